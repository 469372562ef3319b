// GPU-hours and $ per 1M tokens (SPEC §2–3).
#include "measure/cost.h"

namespace openrecipes::measure {

double gpu_hours(std::int64_t gpus, double admitted_s, double finished_s) {
  return static_cast<double>(gpus) * (finished_s - admitted_s) / 3600.0;
}

double dollars_per_million_tokens(double rate_per_gpu_hour, double tokens_per_s_per_gpu) {
  return rate_per_gpu_hour / (tokens_per_s_per_gpu * 3600.0) * 1e6;
}

}  // namespace openrecipes::measure
