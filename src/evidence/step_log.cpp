// Evidence format dispatch (SPEC §2).
#include "evidence/step_log.h"

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

StepLog read_step_log(const std::filesystem::path& path, const std::string& format,
                      std::optional<std::int64_t> log_interval, const std::string& display_name) {
  const std::string file = display_name.empty() ? path.string() : display_name;
  if (format == "megatron") return parse_megatron_log(read_file(path, kMaxTextFileBytes), file, log_interval);
  if (format == "megatron-bridge") return parse_megatron_bridge_log(read_file(path, kMaxTextFileBytes), file, log_interval);
  if (format == "slime" || format == "miles") return parse_slime_log(read_file(path, kMaxTextFileBytes), file, format);
  if (format == "steps-jsonl") return parse_steps_jsonl(read_file(path, kMaxTextFileBytes), file);
  std::string list;
  for (const auto& f : step_log_formats()) list += (list.empty() ? "" : ", ") + f;
  throw InputError(file, "unknown evidence format '" + format + "'", "use one of: " + list);
}

}  // namespace openrecipes::evidence
