// Shared types for what a training log says about each optimizer step (SPEC §2 "Step records").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace openrecipes {

/// One record of a training log. Megatron-LM prints one line per logging interval: a record then covers
/// `steps` consecutive steps starting at `first_step` (0-based; Megatron's "iteration k" is step k-1) and its
/// time and loss are averages over them. Parsers fill what the log shows; absent fields stay empty.
struct StepRecord {
  std::int64_t first_step = 0;          ///< 0-based index of the first step the record covers
  std::int64_t steps = 1;               ///< k >= 1: steps the record covers (the logging interval)
  std::optional<double> time_s;         ///< step time in seconds (the average over the k steps), if logged
  std::optional<std::int64_t> rows;     ///< rows (global batch size) per step, when the log prints it
  std::optional<std::int64_t> tokens;   ///< tokens per step, when the log prints it (steps.jsonl)
  std::optional<double> loss;           ///< training loss (lm loss), averaged over the interval
  std::optional<double> learning_rate;  ///< the learning rate the log prints after the record's last step
  std::optional<double> grad_norm;      ///< gradient norm (Megatron "grad norm", slime "train/grad_norm"), if logged
  std::int64_t skipped = 0;             ///< iterations in the interval the optimizer skipped
  std::int64_t nan = 0;                 ///< iterations in the interval with a nan loss or gradient
  std::size_t line = 0;                 ///< 1-based line of the record in its file (for messages)

  std::int64_t last_step() const { return first_step + steps - 1; }
};

/// All records one evidence file gave, in file order.
struct StepLog {
  std::string file;        ///< the evidence file, for messages
  std::string format;      ///< parser that read it: megatron, megatron-bridge, slime, steps-jsonl
  std::string time_field;  ///< the log's name for the step time (e.g. perf/step_time)
  std::vector<StepRecord> records;
  std::optional<std::int64_t> train_iters;  ///< the run length the log announces (Megatron "iteration k/ N")
};

}  // namespace openrecipes
