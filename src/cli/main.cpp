// Entry point of `openrecipes`: dispatches to the registered subcommands and maps errors to exit codes
// (DESIGN.md "Errors": 0 ok, 1 a check failed, 2 bad input or usage; never a stack trace for bad input).
#include <algorithm>
#include <iostream>
#include <map>
#include <mutex>

#include "cli/command.h"
#include "core/error.h"
#include "core/text.h"
#include "core/version.h"

namespace openrecipes::cli {
namespace {
std::vector<Command>& commands() {
  static std::vector<Command> all;
  return all;
}
}  // namespace

bool register_command(Command command) {
  commands().push_back(std::move(command));
  return true;
}

std::vector<Command> registered_commands() {
  auto all = commands();
  std::sort(all.begin(), all.end(), [](const Command& a, const Command& b) { return a.name < b.name; });
  return all;
}

}  // namespace openrecipes::cli

int main(int argc, char** argv) {
  using namespace openrecipes;
  CLI::App app{"OpenRecipes: verified SFT throughput recipes, recomputed from their evidence"};
  app.require_subcommand(1);
  app.set_version_flag("--version", kToolVersion);
  std::map<CLI::App*, std::function<int()>> actions;
  for (auto& c : cli::registered_commands()) {
    CLI::App* sub = app.add_subcommand(c.name, c.description);
    actions[sub] = c.setup(*sub);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : static_cast<int>(ExitCode::bad_input);
  }
  try {
    for (auto& [sub, action] : actions)
      if (sub->parsed()) return action();
    return static_cast<int>(ExitCode::bad_input);
  } catch (const InputErrors& e) {  // several problems of one input: one a line, each escaped as below
    std::cerr << "openrecipes: error: " << escape_controls(e.where()) << ": " << e.each().size()
              << " problems (fix: " << e.fix() << ")\n";
    for (const auto& one : e.each()) std::cerr << "  - " << escape_controls(e.item(one)) << "\n";
    return static_cast<int>(ExitCode::bad_input);
  } catch (const InputError& e) {
    // Messages quote untrusted files: escape control bytes so a file cannot drive the terminal, and cap length.
    std::cerr << "openrecipes: error: " << escape_controls(e.what()) << "\n";
    return static_cast<int>(ExitCode::bad_input);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : static_cast<int>(ExitCode::bad_input);
  } catch (const std::exception& e) {
    std::cerr << "openrecipes: internal error: " << escape_controls(e.what()) << "\n"
              << "  This is a bug in openrecipes, not in your input; please report it with the command you ran.\n";
    return static_cast<int>(ExitCode::internal_error);
  }
}
