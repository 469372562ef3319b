// Score and step-time variation over the measured window (SPEC §2 "Score", "CV"; PROTOCOL.md "Measurement").
#pragma once

#include <cstdint>
#include <vector>

#include "core/step_record.h"
#include "measure/window.h"

namespace openrecipes::measure {

/// The workload facts a measurement needs.
struct StepShape {
  std::int64_t gpus = 0;          ///< n_GPU
  std::int64_t row_length = 0;    ///< L, tokens per row (rows carry no padding)
  std::int64_t global_batch = 0;  ///< rows per optimizer step
};

/// What the window gives: tokens/s/GPU = ΣT_i / (n_GPU × Σt_i) summed before dividing, and the coefficient of
/// variation of t_i (population standard deviation / mean). `step_times_s` holds t_i for every step of W in
/// order (a logging interval of k steps contributes its average k times).
struct Throughput {
  double tokens_per_s_per_gpu = 0;  ///< tokens / second / GPU
  double cv = 0;                    ///< dimensionless
  double total_tokens = 0;          ///< ΣT_i over W
  double total_time_s = 0;          ///< Σt_i over W, seconds
  double mean_step_time_s = 0;
  std::vector<double> step_times_s;
};

/// Measures `log` over `window`. T_i = global_batch × row_length; a record that prints its own rows or tokens
/// must agree with that. A record covering k > 1 steps is used only when all k lie inside the window.
/// Throws InputError naming the file, line and step when: a step of W is missing or covered twice; a logging
/// interval is cut by the window (fix: --log-interval 1); a step in W was skipped or is nan (or its loss is not
/// finite); a step in W has a non-finite gradient norm or no loss at all, whatever the log's counters say;
/// t_i is missing, zero or negative; a record's rows or tokens disagree with the workload.
Throughput measure_throughput(const StepLog& log, const Window& window, const StepShape& shape);

}  // namespace openrecipes::measure
