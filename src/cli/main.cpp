// Entry point of `openrecipes`: dispatches to the registered subcommands and maps errors to exit codes
// (DESIGN.md "Errors": 0 ok, 1 a check failed, 2 bad input or usage; never a stack trace for bad input).
#include <algorithm>
#include <cctype>
#include <charconv>
#include <iostream>
#include <map>
#include <mutex>
#include <system_error>

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

namespace {

// The innermost subcommand the command line named ("plan", "rows build"), for the fix of a usage error.
std::string parsed_path(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands()) {
    const std::string inner = parsed_path(*sub);
    return sub->get_name() + (inner.empty() ? "" : " " + inner);
  }
  return "";
}

// A usage error of the command line (an unknown option, a value of the wrong type, a missing argument) in the
// project's format: "openrecipes: error: <what> (fix: ...)", exit 2. --help and --version print as CLI11 writes them.
int usage_error(const CLI::App& app, const CLI::ParseError& e) {
  if (e.get_exit_code() == 0) return app.exit(e);
  std::string what = e.what();
  // CLI11's "Could not convert: --flag = value": say which value, and that the option takes another kind.
  if (const std::string prefix = "Could not convert: "; what.starts_with(prefix)) {
    const std::string rest = what.substr(prefix.size());
    const auto eq = rest.find(" = ");
    what = eq == std::string::npos
               ? "cannot read " + rest
               : rest.substr(0, eq) + ": '" + rest.substr(eq + 3) + "' is not a value this option takes";
  } else if (!what.empty()) {
    what[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(what[0])));
  }
  const std::string sub = parsed_path(app);
  std::cerr << "openrecipes: error: " << escape_controls(what) << " (fix: openrecipes "
            << (sub.empty() ? "" : sub + " ") << "--help lists what it takes)\n";
  return static_cast<int>(ExitCode::bad_input);
}

// Every whole-number option of `app` and its subcommands refuses a number past 64 bits, which CLI11 would clamp to
// 2^63 - 1 (and the command would then quote that back): the message names the number as given.
void refuse_oversized_integers(CLI::App& app) {
  for (CLI::Option* opt : app.get_options())
    if (opt->get_type_name() == "INT")
      opt->check(CLI::Validator(
          [](std::string& text) -> std::string {
            std::int64_t v = 0;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
            if (ec == std::errc::result_out_of_range)
              return escape_controls(text, 40) + " is larger than any value it takes";
            return "";
          },
          "", "within 64 bits"));
  for (CLI::App* sub : app.get_subcommands({})) refuse_oversized_integers(*sub);
}

}  // namespace
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
  cli::refuse_oversized_integers(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli::usage_error(app, e);
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
    return cli::usage_error(app, e);
  } catch (const std::exception& e) {
    std::cerr << "openrecipes: internal error: " << escape_controls(e.what()) << "\n"
              << "  This is a bug in openrecipes, not in your input; please report it with the command you ran.\n";
    return static_cast<int>(ExitCode::internal_error);
  }
}
