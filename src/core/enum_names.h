// An enum's names kept in one table, read both ways: the name a value prints as, and the value a name in an input
// file (YAML, tokenizer.json, a flag) stands for. One table an enum, so a name is spelled once.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace openrecipes {

/// One row of an enum's name table: a value and its name.
template <class E>
struct EnumName {
  E value;
  std::string_view name;
};

/// The name `table` gives `value`; "?" when the table has no row for it (a value added to the enum without its row:
/// each table's test lists every value). A row is an EnumName or any struct with `value` and `name` first (a table
/// with more columns, such as a description).
template <class Row, std::size_t N>
constexpr std::string_view name_of(const Row (&table)[N], decltype(Row::value) value) {
  for (const auto& row : table)
    if (row.value == value) return row.name;
  return "?";
}

/// The value `table` names `name` (exact, case-sensitive); nullopt when no row has that name.
template <class Row, std::size_t N>
constexpr std::optional<decltype(Row::value)> value_named(const Row (&table)[N], std::string_view name) {
  for (const auto& row : table)
    if (row.name == name) return row.value;
  return std::nullopt;
}

/// The names of `table` in its order, as an error's fix lists them: "a, b or c" (`last_joiner` "or").
template <class Row, std::size_t N>
std::string names_listed(const Row (&table)[N], std::string_view last_joiner = "or") {
  std::string out;
  for (std::size_t i = 0; i < N; ++i) {
    if (i) out += i + 1 == N ? " " + std::string(last_joiner) + " " : std::string(", ");
    out += table[i].name;
  }
  return out;
}

}  // namespace openrecipes
