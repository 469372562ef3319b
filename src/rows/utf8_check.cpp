// Strict UTF-8 validation of source text (Unicode Table 3-7), shared with the tokenizer's validator, and its
// error wording.
#include "rows/utf8_check.h"

#include "rows/tokenizer/utf8.h"

#include <fmt/format.h>

namespace openrecipes::rows {

std::size_t find_invalid_utf8(std::string_view s) { return tok::find_invalid_utf8(s); }

std::string describe_invalid_utf8(std::string_view s, std::size_t offset) {
  std::string bytes;
  for (std::size_t k = offset; k < s.size() && k < offset + 4; ++k)
    bytes += fmt::format("{}0x{:02X}", bytes.empty() ? "" : " ", static_cast<unsigned char>(s[k]));
  return fmt::format("byte {} ({})", offset, bytes);
}

}  // namespace openrecipes::rows
