// Parser for slime and miles training logs (SPEC §2): `step N: {'train/loss': ..., 'train/global_batch_size':
// ...}` lines (slime/backends/megatron_utils/model.py) and `perf N: {..., 'perf/step_time': ...}` lines
// (slime/observability/train_metric_utils.py). miles, a slime fork, prints the same lines.
#pragma once

#include <string>
#include <string_view>

#include "core/step_record.h"

namespace openrecipes::evidence {

/// One record per step N that has a `step N:` line or a `perf N:` line carrying 'perf/step_time' (seconds;
/// runs of slime before 2025-10-30 log the same value as 'perf/total_train_time', which is read when
/// 'perf/step_time' is absent; StepLog::time_field says which). The loss is 'train/loss', the gradient norm
/// 'train/grad_norm', rows 'train/global_batch_size'. Lines of other roles ("critic-step N:") and perf lines
/// without a step time (rollout perf) are skipped. A perf line's N is the rollout id; SFT runs take one optimizer
/// step per rollout, so it is read as step N. Records are sorted by step. A line that repeats an earlier line of
/// the same step and kind with the same dict text is dropped (miles prints each `step N:` line twice).
/// Throws InputError (file:line) when no such line exists, a dict does not parse, or a step's line appears twice
/// with different dicts.
StepLog parse_slime_log(std::string_view text, const std::string& file, const std::string& format = "slime");

}  // namespace openrecipes::evidence
