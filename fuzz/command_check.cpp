// Fuzz target: a recipe's command against its run's evidence (SPEC §5; checks/command_policy.h, command_check.h): the
// program policy, then the command (or the captured launch) read with Megatron-LM's argument table, and by naming
// convention, against an argument dump. Input: the command, NUL, the argument dump, optionally NUL and launch.json.
#include <string>

#include "checks/command_check.h"
#include "checks/command_policy.h"
#include "evidence/launch.h"
#include "evidence/megatron_args.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  const std::string_view in = fuzz::text(data, size);
  const auto a = in.find('\0');
  const std::string_view command = in.substr(0, a);
  std::string_view dump_text = a == std::string_view::npos ? std::string_view() : in.substr(a + 1);
  std::string_view launch_text;
  if (const auto b = dump_text.find('\0'); b != std::string_view::npos) {
    launch_text = dump_text.substr(b + 1);
    dump_text = dump_text.substr(0, b);
  }
  std::vector<layout::CommandWord> words;
  try {
    words = layout::split_command(command, "recipe.yaml: command");
  } catch (const InputError&) {
    return 0;
  }
  std::map<std::string, std::string> dump;
  fuzz::expect_input_error_or_success([&] { dump = evidence::parse_megatron_args(dump_text, "args").values; });
  std::optional<evidence::Launch> launch;
  if (!launch_text.empty())
    fuzz::expect_input_error_or_success([&] { launch = evidence::parse_launch(launch_text, "launch.json"); });
  // Neither the policy nor the check may throw on any input (they report, the build goes on): any exception escapes
  // to libFuzzer as a finding.
  for (const char* framework : {"megatron-lm", "slime"}) {
    const auto policy = checks::CommandPolicy::bundled().check(words, framework, "cmd");
    if (!policy.shape) {
      if (policy.problems.empty()) fuzz::finding("the policy refused a command without saying why");
      continue;
    }
    for (const checks::OptionTable* table :
         {checks::OptionTable::bundled("megatron-lm"), static_cast<const checks::OptionTable*>(nullptr)}) {
      const auto reasons =
          checks::check_command_evidence(words, *policy.shape, dump, launch ? &*launch : nullptr, table, "cmd");
      if (reasons.size() > checks::kMaxCommandDifferences + 8) fuzz::finding("unbounded differences");
      for (const auto& r : reasons)
        if (r.stage != Stage::command || r.message.empty()) fuzz::finding("a reason without its stage or sentence");
    }
  }
  return 0;
}
