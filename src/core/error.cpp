// Typed errors (DESIGN.md "Errors").
#include "core/error.h"

namespace openrecipes {
namespace {
std::string compose(const std::string& where, const std::string& what, const std::string& fix) {
  std::string s = where.empty() ? what : where + ": " + what;
  if (!fix.empty()) s += " (fix: " + fix + ")";
  return s;
}
}  // namespace

InputError::InputError(std::string where, std::string what, std::string fix)
    : std::runtime_error(compose(where, what, fix)),
      where_(std::move(where)),
      what_(std::move(what)),
      fix_(std::move(fix)) {}

}  // namespace openrecipes
