// Typed errors (DESIGN.md "Errors").
#include "core/error.h"

#include <algorithm>
#include <cctype>
#include <cstdint>

namespace openrecipes {
namespace {
std::string compose(const std::string& where, const std::string& what, const std::string& fix) {
  std::string s = where.empty() ? what : where + ": " + what;
  if (!fix.empty()) s += " (fix: " + fix + ")";
  return s;
}

// `what` of a problem whose where starts with the shared one: "line 4: ..." for "file:4: ...", else the rest.
std::string without_where(const std::string& shared, const std::string& text) {
  if (shared.empty() || !text.starts_with(shared + ":")) return text;
  std::string rest = text.substr(shared.size() + 1);
  std::size_t digits = 0;
  while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) ++digits;
  if (digits > 0 && digits < rest.size() && rest[digits] == ':') return "line " + rest;
  return rest.starts_with(" ") ? rest.substr(1) : rest;
}

// The line a problem names ("line 4: ..."), for listing them in the file's order; none sorts last.
std::size_t line_of(const std::string& shared, const InputError& e) {
  const std::string item = without_where(shared, e.what());
  if (!item.starts_with("line ")) return SIZE_MAX;
  std::size_t line = 0, i = 5;
  for (; i < item.size() && i < 15 && std::isdigit(static_cast<unsigned char>(item[i])); ++i)
    line = line * 10 + static_cast<std::size_t>(item[i] - '0');
  return i > 5 ? line : SIZE_MAX;
}

std::vector<InputError> in_file_order(const std::string& shared, std::vector<InputError> each) {
  std::stable_sort(each.begin(), each.end(),
                   [&](const InputError& a, const InputError& b) { return line_of(shared, a) < line_of(shared, b); });
  return each;
}

std::string list_of(const std::string& shared, const std::vector<InputError>& each) {
  std::string out = std::to_string(each.size()) + " problems:";
  for (std::size_t i = 0; i < each.size(); ++i)
    out += (i ? "; (" : " (") + std::to_string(i + 1) + ") " + without_where(shared, each[i].what());
  return out;
}

}  // namespace

InputErrors::InputErrors(std::string where, std::vector<InputError> each)
    : InputErrors(where, in_file_order(where, std::move(each)), Sorted{}) {}

InputErrors::InputErrors(const std::string& where, std::vector<InputError> sorted, Sorted)
    : InputError(where, list_of(where, sorted), "fix each where it is named, then run again"),
      each_(std::move(sorted)) {}

std::string InputErrors::item(const InputError& e) const { return without_where(where(), e.what()); }

InputError::InputError(std::string where, std::string what, std::string fix)
    : std::runtime_error(compose(where, what, fix)),
      where_(std::move(where)),
      what_(std::move(what)),
      fix_(std::move(fix)) {}

}  // namespace openrecipes
