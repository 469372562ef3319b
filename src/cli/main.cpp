// Entry point of `openrecipes`: dispatches to the registered subcommands and maps errors to exit codes
// (DESIGN.md "Errors": 0 ok, 1 a check failed, 2 bad input or usage; never a stack trace for bad input).
#include <algorithm>
#include <cctype>
#include <charconv>
#include <iostream>
#include <map>
#include <mutex>
#include <system_error>

#include <fmt/format.h>

#include "cli/command.h"
#include "core/error.h"
#include "core/text.h"
#include "core/utf8.h"
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

// One error line, as every error is printed: the text made inert (control bytes escaped, bidi controls shown as
// \u202E: messages quote untrusted files, which must not drive the terminal) and capped.
void print_error(const std::string& text) {
  std::cerr << "openrecipes: error: " << escape_controls(inert_text(text)) << "\n";
}

// The innermost subcommand the command line named (the app itself when none).
const CLI::App& parsed_app(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands()) return parsed_app(*sub);
  return app;
}

// Its names from the top ("plan", "rows build"; "" for the app itself), for the fix of a usage error.
std::string parsed_path(const CLI::App& app) {
  std::string path;
  for (const CLI::App* a = &parsed_app(app); a != &app; a = a->get_parent())
    path = a->get_name() + (path.empty() ? "" : " " + path);
  return path;
}

// A usage error of the command line (an unknown option, a value of the wrong type, a missing argument) in the
// project's format: "openrecipes: error: <what> (fix: ...)", exit 2. --help and --version print as CLI11 writes them.
int usage_error(const CLI::App& app, const CLI::ParseError& e) {
  if (e.get_exit_code() == 0) return app.exit(e);
  std::string what = e.what();
  // CLI11 checks required arguments before unknown ones; a misspelt option is the first thing to say
  // ("measure --bogus": the option, then the missing log).
  if (dynamic_cast<const CLI::RequiredError*>(&e))
    for (const auto& word : parsed_app(app).remaining())
      if (word.starts_with("-")) {
        what = "the following argument was not expected: " + word + ", and " + what;
        break;
      }
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
  print_error(what + " (fix: openrecipes " + (sub.empty() ? "" : sub + " ") + "--help lists what it takes)");
  return static_cast<int>(ExitCode::bad_input);
}

// Every whole-number option of `app` and its subcommands reads its value in decimal, as the help says: CLI11 alone
// reads "010" as octal 8 and "0x10" as 16, and clamps a number past 64 bits to 2^63 - 1 (which the command would then
// quote back). Leading zeros are dropped ("010" is 10), any other form is refused, and a number past 64 bits is named
// as given.
void decimal_integers(CLI::App& app) {
  for (CLI::Option* opt : app.get_options())
    if (opt->get_type_name() == "INT")
      opt->transform(CLI::Validator(
          [](std::string& text) -> std::string {
            const bool negative = text.starts_with('-');
            const std::size_t sign = negative || text.starts_with('+') ? 1 : 0;
            const std::string digits = text.substr(sign);
            if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
              return "'" + escape_controls(text, 40) + "' is not a whole number (write it in decimal digits)";
            const std::size_t first = std::min(digits.find_first_not_of('0'), digits.size() - 1);
            const std::string value = (negative ? "-" : "") + digits.substr(first);
            std::int64_t v = 0;
            if (std::from_chars(value.data(), value.data() + value.size(), v).ec == std::errc::result_out_of_range)
              return escape_controls(text, 40) + (negative ? " is smaller" : " is larger") + " than any value it takes";
            text = value;
            return "";
          },
          "", "a decimal whole number"));
  for (CLI::App* sub : app.get_subcommands({})) decimal_integers(*sub);
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
  cli::decimal_integers(app);
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
    cli::print_error(fmt::format("{}: {} problems (fix: {})", e.where(), e.each().size(), e.fix()));
    for (const auto& one : e.each()) std::cerr << "  - " << escape_controls(inert_text(e.item(one))) << "\n";
    return static_cast<int>(ExitCode::bad_input);
  } catch (const InputError& e) {
    cli::print_error(e.what());
    return static_cast<int>(ExitCode::bad_input);
  } catch (const CLI::ParseError& e) {
    return cli::usage_error(app, e);
  } catch (const std::exception& e) {
    std::cerr << "openrecipes: internal error: " << escape_controls(e.what()) << "\n"
              << "  This is a bug in openrecipes, not in your input; please report it with the command you ran.\n";
    return static_cast<int>(ExitCode::internal_error);
  }
}
