// Typed errors with a message a user can act on: what went wrong, where (file, line, step), and the fix.
// DESIGN.md "Errors": exit code 2 for bad input or usage, 1 for a check that failed, 0 for success.
#pragma once

#include <stdexcept>
#include <string>

namespace openrecipes {

/// Process exit codes shared by every subcommand (DESIGN.md, Conventions): 0 ok; 1 a check failed (for
/// `build --strict`, a recipe not verified); 2 bad input or usage (an InputError); 3 an internal error, i.e. a bug
/// in openrecipes, never the input's fault.
enum class ExitCode : int { ok = 0, check_failed = 1, bad_input = 2, internal_error = 3 };

/// Bad input or usage: a file that cannot be read, a malformed field, a value out of range.
/// `where` names the file (and line, step or field), `what` the problem, `fix` what the user should do;
/// what() is "where: what (fix: fix)". Maps to exit code 2. Never carries a stack trace.
class InputError : public std::runtime_error {
 public:
  InputError(std::string where, std::string what, std::string fix = {});
  const std::string& where() const noexcept { return where_; }
  const std::string& problem() const noexcept { return what_; }
  const std::string& fix() const noexcept { return fix_; }

 private:
  std::string where_, what_, fix_;
};

}  // namespace openrecipes
