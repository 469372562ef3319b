// GPU-hours and price per token (SPEC §2 "GPU-hours", §3 "$ per 1M tokens").
#pragma once

#include <cstdint>

namespace openrecipes::measure {

/// GPU-hours = n_GPU × (finished − admitted) / 3600. Times in seconds.
double gpu_hours(std::int64_t gpus, double admitted_s, double finished_s);

/// $ per 1M tokens = rate / (tokens/s/GPU × 3600) × 10^6, with `rate` in $ per GPU-hour.
double dollars_per_million_tokens(double rate_per_gpu_hour, double tokens_per_s_per_gpu);

}  // namespace openrecipes::measure
