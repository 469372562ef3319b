// Model FLOPs utilization from N (SPEC §3): MFU = 6 × N × tokens/s/GPU / (dense BF16 peak × 10^12).
#pragma once

namespace openrecipes::params {

/// MFU as a fraction (0.42 means 42%): 6 × `n_active` × `tokens_per_s_per_gpu` / (`peak_tflops` × 10^12).
/// `n_active` is N (active parameters per token), `tokens_per_s_per_gpu` the score (SPEC §2), `peak_tflops` the GPU's
/// dense BF16 peak in TFLOP/s from registry/gpus.yaml. Throws InputError when an input is not finite, N or the score
/// is negative, or the peak is not positive.
double mfu(double n_active, double tokens_per_s_per_gpu, double peak_tflops);

}  // namespace openrecipes::params
