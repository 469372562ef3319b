// Every command the tool prints for a user to run is one the project's own command reader (layout::split_command, the
// reader every recipe's command goes through) takes, and names only what the tool documents: the variables
// `run --list-vars` lists, the data-prep words it says to replace, and the relayout command it suggests is one
// openrecipes itself accepts as printed. Over every recipe of the bundled registry: `run --list-vars`, the site's
// Reproduce box (build --json's reproduce block, the box's source) and relayout's suggestions on 8 GPUs with the
// draft command each then names.
#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/text.h"
#include "layout/command.h"
#include "testing/support.h"

namespace openrecipes {
namespace {
namespace fs = std::filesystem;

// What `run --list-vars` documents for a recipe: its variables ($NAME as listed), the data-prep words to replace,
// and the run line it prints.
struct Listed {
  std::set<std::string> variables, placeholders;
  std::string run_line;
};

Listed list_vars(const fs::path& recipe) {
  auto r = testing::run_cli({"run", recipe.string(), "--list-vars"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  Listed out;
  bool in_placeholders = false, next_is_run = false;
  static const std::regex variable(R"(^  \$\{?([A-Za-z_][A-Za-z0-9_]*)(\[@\])?\}?  \()");
  static const std::regex placeholder(R"(^  ([A-Z][A-Z0-9_]*)$)");
  for (auto line_view : lines_of(r.out)) {
    const std::string line(line_view);
    std::smatch m;
    if (next_is_run) out.run_line = line.substr(2), next_is_run = false;
    if (line.starts_with("data-prep words to replace")) in_placeholders = true;
    if (line.starts_with("run it with")) in_placeholders = false, next_is_run = true;
    if (std::regex_search(line, m, variable)) out.variables.insert(m[1]);
    if (in_placeholders && std::regex_match(line, m, placeholder)) out.placeholders.insert(m[1]);
    if (line.starts_with("  <slime entry module>  (")) out.variables.insert("<slime entry module>");
  }
  return out;
}

// The problems of `command` (printed for `what`): it must split with the project's reader, and each variable it uses
// and each NAME of a --var NAME=VALUE be among `documented`, each all-capitals word among `placeholders`.
std::vector<std::string> undocumented(const std::string& command, const std::string& what,
                                      const std::set<std::string>& documented,
                                      const std::set<std::string>& placeholders) {
  std::vector<std::string> out;
  std::vector<layout::CommandWord> words;
  try {
    words = layout::split_command(command, what);
  } catch (const InputError& e) {
    return {std::string("does not read: ") + e.what()};
  }
  static const std::regex capitals("[A-Z][A-Z0-9_]{3,}");
  for (std::size_t i = 0; i < words.size(); ++i) {
    for (const auto& part : words[i].parts) {
      const bool named = part.kind == layout::WordPart::Kind::variable || part.kind == layout::WordPart::Kind::array;
      if (named && !documented.count(part.text)) out.push_back(what + ": $" + part.text + " is not documented");
      if (part.kind == layout::WordPart::Kind::entry_module && !documented.count("<slime entry module>"))
        out.push_back(what + ": <slime entry module> is not documented");
    }
    const auto literal = words[i].literal();
    if (!literal) continue;
    if (std::regex_match(*literal, capitals) && !placeholders.count(*literal))
      out.push_back(what + ": the word " + *literal + " is not one the tool says to replace");
    if (i > 0 && words[i - 1].literal() == "--var") {
      const std::string name = literal->substr(0, literal->find('='));
      if (!documented.count(name)) out.push_back(what + ": --var " + name + " is not documented");
    }
  }
  return out;
}

std::vector<fs::path> bundled_recipes() {
  std::vector<fs::path> out;
  for (const auto& model : fs::directory_iterator(testing::source_dir() / "registry" / "recipes"))
    for (const auto& gpu : fs::directory_iterator(model.path()))
      for (const auto& recipe : fs::directory_iterator(gpu.path())) out.push_back(recipe.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(PrintedCommands, run_list_vars_and_the_reproduce_box_parse_and_name_only_what_the_tool_documents) {
  const auto board =
      nlohmann::json::parse(testing::run_cli({"build", (testing::source_dir() / "registry").string(), "--json"}).out);
  std::size_t boxes = 0;
  for (const auto& dir : bundled_recipes()) {
    const std::string id = dir.parent_path().parent_path().filename().string() + "/" +
                           dir.parent_path().filename().string() + "/" + dir.filename().string();
    const Listed listed = list_vars(dir);
    ASSERT_FALSE(listed.run_line.empty()) << id;
    for (const auto& p : undocumented(listed.run_line, id + " --list-vars", listed.variables, listed.placeholders))
      ADD_FAILURE() << p;
    // The Reproduce box: the same run line, and its data-prep commands name only the words it says to replace.
    for (const auto& pair : board["pairs"])
      for (const char* list : {"ranked", "unranked"})
        for (const auto& e : pair[list]) {
          if (e["id"] != id || !e.contains("reproduce")) continue;
          ++boxes;
          const auto& box = e["reproduce"];
          // The box names the folder in a clone of the registry, --list-vars the folder as the user gave it.
          std::string run = box["run"];
          const std::string clone_folder = "registry/recipes/" + id;
          ASSERT_NE(run.find(clone_folder), std::string::npos) << run;
          run.replace(run.find(clone_folder), clone_folder.size(), dir.string());
          EXPECT_EQ(run, listed.run_line) << id;
          std::set<std::string> words;
          for (const auto& p : box["placeholders"]) words.insert(p["name"].get<std::string>());
          EXPECT_EQ(words, listed.placeholders) << id;
          for (const auto& line : box["prepare"])
            for (const auto& p : undocumented(line.get<std::string>(), id + " Reproduce box", listed.variables, words))
              ADD_FAILURE() << p;
        }
  }
  EXPECT_EQ(boxes, 7u);  // every bundled recipe has its box
}

TEST(PrintedCommands, relayouts_suggested_commands_parse_name_only_documented_variables_and_run_as_printed) {
  std::size_t suggested = 0, drafts = 0;
  testing::TempDir scratch;
  for (const auto& dir : bundled_recipes()) {
    const Listed listed = list_vars(dir);
    auto r = testing::run_cli({"relayout", dir.string(), "--gpus", "8", "--micro-batch", "32"});
    // The trainer command it prints (after the blank line) uses only the recipe's documented variables.
    const std::size_t blank = r.out.find("\n\n");
    ASSERT_NE(blank, std::string::npos) << r.out;
    for (const auto& p : undocumented(r.out.substr(blank + 2), dir.string() + " relayout", listed.variables, {}))
      ADD_FAILURE() << p;
    // The suggestion, "as a command (openrecipes relayout ...)": openrecipes takes it as printed and it fits.
    const std::string tag = "as a command (";
    const std::size_t at = r.out.find(tag);
    if (at == std::string::npos) continue;  // the asked layout fits: nothing suggested
    ++suggested;
    const std::string command = r.out.substr(at + tag.size(), r.out.find("):\n", at) - at - tag.size());
    const auto words = layout::split_command(command, "relayout's suggestion");
    std::vector<std::string> args;
    for (const auto& w : words) args.push_back(w.literal().value());
    ASSERT_EQ(args.front(), "openrecipes") << command;
    auto again = testing::run_cli(std::vector<std::string>(args.begin() + 1, args.end()));
    EXPECT_EQ(again.exit_code, 0) << command << "\n" << again.out << again.err;
    // The peak the list gives the first change is the one its command's relayout predicts (the same setup: its
    // sequence parallelism as the printed command runs it).
    std::smatch listed_peak, relaid_peak;
    static const std::regex first_change("changes that fit on [0-9]+ GPUs:\n    - [^\n]*, peak ([0-9]+) MiB a GPU");
    static const std::regex predicted("\n  memory  predicted peak ([0-9]+) MiB");
    ASSERT_TRUE(std::regex_search(r.out, listed_peak, first_change)) << r.out;
    ASSERT_TRUE(std::regex_search(again.out, relaid_peak, predicted)) << again.out;
    EXPECT_EQ(listed_peak[1].str(), relaid_peak[1].str()) << command;
    // The layout that fits names the command that writes it as a recipe draft: run as printed (from a scratch
    // folder, where its drafts/ goes), it writes a draft that run reads, on the suggestion's GPUs.
    static const std::regex draft_line("\n  draft   (openrecipes relayout .*) writes it as a recipe draft[^\n]*\n");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(again.out, m, draft_line)) << again.out;
    ++drafts;
    std::vector<std::string> draft_args = {"env", "-C", scratch.path().string(), testing::cli_binary()};
    for (const auto& w : layout::split_command(m[1].str(), "relayout's draft command"))
      draft_args.push_back(w.literal().value());
    draft_args.erase(draft_args.begin() + 4);  // its "openrecipes": the binary under test
    const auto written = testing::run_process(draft_args);
    ASSERT_EQ(written.exit_code, 0) << m[1].str() << "\n" << written.out << written.err;
    const fs::path draft = scratch.path() / draft_args.back();
    auto listed_draft = testing::run_cli({"run", draft.string(), "--list-vars"});
    EXPECT_EQ(listed_draft.exit_code, 0) << listed_draft.out << listed_draft.err;
    EXPECT_NE(listed_draft.out.find("openrecipes run " + draft.string() + " --launcher local"), std::string::npos)
        << listed_draft.out;
  }
  EXPECT_GT(suggested, 0u);
  EXPECT_EQ(drafts, suggested);  // micro-batch 32 does not divide a global batch of 32 over DP 8: each run suggests
}

// A suggestion that changes TP (ref on 64 GPUs: the global batch of 32 cannot take DP 64): the listed peak is the one
// its printed command's relayout predicts. A dense recipe without --sequence-parallel keeps it off at the new TP.
TEST(PrintedCommands, a_suggested_tp_change_lists_the_peak_its_command_gets) {
  const auto dir = testing::source_dir() / "registry/recipes/qwen3-0.6b/H200/ref";
  auto r = testing::run_cli({"relayout", dir.string(), "--gpus", "64"});
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex("    - TP 1 -> 2: [^\n]*, peak ([0-9]+) MiB a GPU"))) << r.out;
  auto again = testing::run_cli({"relayout", dir.string(), "--gpus", "64", "--tp", "2"});
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("predicted peak " + m[1].str() + " MiB"), std::string::npos) << m[1] << "\n" << again.out;
}

}  // namespace
}  // namespace openrecipes
