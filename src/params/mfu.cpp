// MFU from N, the score and the GPU's peak (SPEC §3).
#include "params/mfu.h"

#include <cmath>

#include "core/error.h"
#include "core/text.h"

namespace openrecipes::params {

double mfu(double n_active, double tokens_per_s_per_gpu, double peak_tflops) {
  if (!std::isfinite(n_active) || n_active < 0)
    throw InputError("MFU", "N is " + format_double(n_active) + ", not a non-negative number",
                     "count N with `openrecipes params`");
  if (!std::isfinite(tokens_per_s_per_gpu) || tokens_per_s_per_gpu < 0)
    throw InputError("MFU", "tokens/s/GPU is " + format_double(tokens_per_s_per_gpu) + ", not a non-negative number",
                     "recompute the score from the run's evidence");
  if (!std::isfinite(peak_tflops) || peak_tflops <= 0)
    throw InputError("MFU", "peak is " + format_double(peak_tflops) + " TFLOP/s, not a positive number",
                     "set the GPU's dense BF16 peak in registry/gpus.yaml");
  return 6.0 * n_active * tokens_per_s_per_gpu / (peak_tflops * 1e12);
}

}  // namespace openrecipes::params
