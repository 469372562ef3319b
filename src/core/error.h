// Typed errors with a message a user can act on: what went wrong, where (file, line, step), and the fix.
// DESIGN.md "Errors": exit code 2 for bad input or usage, 1 for a check that failed, 0 for success.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

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

/// Several problems of one input found in one pass (a recipe.yaml's schema problems, each an InputError), so a user
/// fixes them in one round. what() is all of them on one line: "where: N problems: (1) ...; (2) ... (fix: ...)", each
/// without the `where` it shares, in the order of the lines they name; the CLI prints one a line (each()). `each`
/// holds at least two.
class InputErrors : public InputError {
 public:
  InputErrors(std::string where, std::vector<InputError> each);
  const std::vector<InputError>& each() const noexcept { return each_; }
  /// One problem's text without the `where` prefix they share ("line 4: unknown field ..."), for a list of them.
  std::string item(const InputError& e) const;

 private:
  struct Sorted {};  // `each` already in file order
  InputErrors(const std::string& where, std::vector<InputError> sorted, Sorted);
  std::vector<InputError> each_;
};

}  // namespace openrecipes
