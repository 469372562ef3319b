// Megatron-LM's own CI training runs (tests/data/megatron_ci/cases.jsonl, written by tools/megatron_ci_cases.py from
// Megatron-LM d98e8a64): the table holds together, and every run's arguments read with the argparse table compiled
// into openrecipes (registry/rules/options/megatron-lm.json, the same commit) without a problem or an unknown flag:
// the command reader the planner's `plan --command` starts from.
#include <set>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "checks/framework_options.h"
#include "core/files.h"
#include "core/text.h"
#include "layout/command.h"
#include "testing/support.h"

namespace openrecipes::checks {
namespace {

std::vector<nlohmann::json> cases() {
  const auto file = testing::source_dir() / "tests/data/megatron_ci/cases.jsonl";
  const std::string text = read_file(file);
  std::vector<nlohmann::json> out;
  for (const auto line : lines_of(text))
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  return out;
}

// The argv as a command line: each word quoted whole, a ${VARIABLE} left for the reader to see as one.
std::string command_of(const nlohmann::json& arguments) {
  std::string text = "python pretrain_gpt.py";
  for (const auto& a : arguments) {
    const std::string w = a.get<std::string>();
    if (w.find("${") != std::string::npos) {
      text += " \"" + w + "\"";
    } else {
      std::string quoted;
      for (char c : w) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
      text += " '" + quoted + "'";
    }
  }
  return text;
}

TEST(MegatronCiCases, the_table_holds_together) {
  const auto rows = cases();
  ASSERT_EQ(rows.size(), 209u);  // tools/megatron_ci_cases.py at d98e8a64: the GPT and MoE runs with a GPU count
  std::set<std::string> keys, families;
  for (const auto& r : rows) {
    SCOPED_TRACE(r.dump().substr(0, 120));
    const std::string c = r.at("case");
    families.insert(c.substr(0, c.find('/')));
    EXPECT_TRUE(keys.insert(fmt::format("{} {} {}", c, r.at("environment").get<std::string>(),
                                        r.at("platform").get<std::string>()))
                    .second);
    EXPECT_EQ(r.at("gpus").get<int>(), r.at("nodes").get<int>() * r.at("gpus_per_node").get<int>());
    EXPECT_GT(r.at("peak_bytes").get<std::int64_t>(), 0);
    EXPECT_GE(r.at("peak_step").get<int>(), 1);
    EXPECT_EQ(r.at("commit"), "d98e8a64dd");
    const std::string platform = r.at("platform"), environment = r.at("environment");
    EXPECT_TRUE((environment == "dev" && (platform == "dgx_h100" || platform == "dgx_a100")) ||
                (environment == "lts" && platform == "dgx_a100"));
  }
  EXPECT_EQ(families, (std::set<std::string>{"gpt", "moe"}));  // no Mixtral case is scheduled by a recipe there
}

TEST(MegatronCiCases, every_runs_arguments_read_with_megatrons_own_argparse_table) {
  const OptionTable* megatron = OptionTable::bundled("megatron-lm");
  ASSERT_NE(megatron, nullptr);
  std::size_t read = 0;
  for (const auto& r : cases()) {
    const std::string where = r.at("case");
    SCOPED_TRACE(where);
    const auto words = layout::split_command(command_of(r.at("arguments")), where);
    ASSERT_GE(words.size(), 2u);
    const std::vector<layout::CommandWord> args(words.begin() + 2, words.end());
    const auto parsed = parse_arguments(args, megatron, {});
    for (const auto& p : parsed.problems) ADD_FAILURE() << (p.word ? p.word->shown() + ": " : "") << p.what;
    for (const auto& [dest, a] : parsed.by_dest) EXPECT_NE(a.spec, nullptr) << a.flag << " is no flag of Megatron-LM";
    EXPECT_TRUE(parsed.by_dest.count("num_layers")) << "every run sets its layer count";
    read += parsed.problems.empty();
  }
  EXPECT_EQ(read, 209u);
}

}  // namespace
}  // namespace openrecipes::checks
