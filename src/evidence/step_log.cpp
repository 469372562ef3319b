// Evidence format dispatch (SPEC §2).
#include "evidence/step_log.h"

#include <algorithm>

#include "core/error.h"
#include "core/files.h"
#include "evidence/megatron_log.h"
#include "evidence/slime_log.h"
#include "evidence/steps_jsonl.h"

namespace openrecipes::evidence {

const std::vector<std::string>& step_log_formats() {
  static const std::vector<std::string> formats{"megatron", "megatron-bridge", "slime", "miles", "steps-jsonl"};
  return formats;
}

void require_step_log_format(const std::string& format, const std::string& where) {
  const auto& known = step_log_formats();
  if (std::find(known.begin(), known.end(), format) != known.end()) return;
  std::string list;
  for (const auto& f : known) list += (list.empty() ? "" : ", ") + f;
  throw InputError(where, "unknown evidence format '" + format + "'", "use one of: " + list);
}

std::string step_time_definition(const std::string& format, const std::string& time_field) {
  auto field = [&](const char* current) {
    return "'" + (time_field.empty() ? std::string(current) : time_field) + "'";
  };
  if (format == "megatron")
    return field("elapsed time per iteration (ms)") +
           ": Megatron-LM's timer of each training iteration (forward-backward and optimizer step; stopped for "
           "evaluation and checkpoint saves), averaged over the logging interval";
  if (format == "megatron-bridge")
    return field("Step Time") +
           ": Megatron-Bridge's timer of each training iteration (forward-backward and "
           "optimizer step)";
  if (format == "slime" || format == "miles") {
    std::string out = field("perf/step_time");
    if (time_field == "perf/total_train_time") out += " (perf/step_time's name before 2025-10-30)";
    out +=
        " = train_wait + train: from the end of one step's train block to the end of the next. The train block "
        "holds forward-backward and the optimizer step (and the log-prob pass unless "
        "--disable-compute-advantages-and-returns); the wait holds all between steps: ";
    out += format == "slime" ? "slime's weight backup to CPU after every step"
                             : "the weight backup to CPU only when a reference, teacher or old-actor model or "
                               "colocation needs it (miles)";
    out +=
        ", the perf logging, with train.py a memory clear, checkpoint saves (unlike Megatron's timer, it does not "
        "stop for them), update_weights (nothing with --debug-train-only) and the wait for the next rollout (for "
        "SFT the rollout function reads rows; train_async.py overlaps it with the previous step)";
    return out;
  }
  if (format == "steps-jsonl")
    return field("time_s") + ": the step's wall-clock time as the run's own harness measured it";
  require_step_log_format(format, "format");
  return {};  // unreachable: require_step_log_format threw
}

StepLog parse_step_log(std::string_view text, const std::string& format, std::optional<std::int64_t> log_interval,
                       const std::string& file) {
  require_step_log_format(format, file);
  if (format == "megatron") return parse_megatron_log(text, file, log_interval);
  if (format == "megatron-bridge") return parse_megatron_bridge_log(text, file, log_interval);
  if (format == "slime" || format == "miles") return parse_slime_log(text, file, format);
  return parse_steps_jsonl(text, file);
}

StepLog read_step_log(const std::filesystem::path& path, const std::string& format,
                      std::optional<std::int64_t> log_interval, const std::string& display_name) {
  const std::string file = display_name.empty() ? path.string() : display_name;
  require_step_log_format(format, file);  // before reading: an unknown format is the error, not the file
  return parse_step_log(read_file(path, kMaxTextFileBytes), format, log_interval, file);
}

}  // namespace openrecipes::evidence
