// Unicode character data behind Python's str methods (case mappings, cased/case-ignorable, printable, alpha,
// decimal, digit, numeric, space), generated from CPython 3.11 by unicode_tables.py into unicode_tables.cpp.
#pragma once

#include <cstddef>
#include <cstdint>

namespace openrecipes::rows::template_engine::unicode_data {

/// An inclusive code point range [lo, hi]; tables are sorted and disjoint.
struct CodeRange {
  char32_t lo, hi;
};

/// One full case mapping: code point `cp` maps to `out[0..n)` (1 to 3 code points), as Python's str.upper(),
/// str.lower(), str.title() or str.casefold() of that single character.
struct CaseMapping {
  char32_t cp;
  std::uint8_t n;
  char32_t out[3];
};

extern const CaseMapping upper_map[];
extern const std::size_t upper_map_size;
extern const CaseMapping lower_map[];
extern const std::size_t lower_map_size;
extern const CaseMapping title_map[];
extern const std::size_t title_map_size;
extern const CaseMapping fold_map[];
extern const std::size_t fold_map_size;

extern const CodeRange cased_ranges[];
extern const std::size_t cased_ranges_size;
extern const CodeRange case_ignorable_ranges[];
extern const std::size_t case_ignorable_ranges_size;
extern const CodeRange lower_ranges[];
extern const std::size_t lower_ranges_size;
extern const CodeRange upper_ranges[];
extern const std::size_t upper_ranges_size;
extern const CodeRange titlecase_ranges[];
extern const std::size_t titlecase_ranges_size;
extern const CodeRange printable_ranges[];
extern const std::size_t printable_ranges_size;
extern const CodeRange alpha_ranges[];
extern const std::size_t alpha_ranges_size;
extern const CodeRange decimal_ranges[];
extern const std::size_t decimal_ranges_size;
extern const CodeRange digit_ranges[];
extern const std::size_t digit_ranges_size;
extern const CodeRange numeric_ranges[];
extern const std::size_t numeric_ranges_size;
extern const CodeRange space_ranges[];
extern const std::size_t space_ranges_size;

}  // namespace openrecipes::rows::template_engine::unicode_data
