// A fast scanner for the plain JSON that safetensors headers and model.safetensors.index.json files are made of
// (ASCII strings without escapes, unsigned integers, objects, arrays). It accepts only that subset: on anything else
// it reports "not handled" and the caller parses with nlohmann::json's SAX parser, which also words every error. So
// the scanner decides speed, never what is accepted (SPEC §3 speed target: 163 shards well under a second).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace openrecipes::params {

/// Cursor over JSON text. Every method returns false, leaving the cursor anywhere, when the next token is not what
/// it expects within the subset.
class JsonScan {
 public:
  explicit JsonScan(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  /// Skips whitespace, then consumes `c` if it is next.
  bool eat(char c) {
    skip_ws();
    if (p_ == end_ || *p_ != c) return false;
    ++p_;
    return true;
  }
  /// True when the next non-whitespace byte is `c` (not consumed).
  bool peek(char c) {
    skip_ws();
    return p_ != end_ && *p_ == c;
  }
  /// True at the end of the text, after whitespace.
  bool at_end() {
    skip_ws();
    return p_ == end_;
  }
  /// A string of printable ASCII without escapes; `out` views the text.
  bool string(std::string_view* out);
  /// An unsigned integer without sign, fraction or exponent, fitting 64 bits, no leading zeros.
  bool unsigned_int(std::uint64_t* out);
  /// Any value of the subset (strings, numbers of JSON syntax, true/false/null, objects, arrays), skipped; nesting up
  /// to 64 levels.
  bool skip_value(int depth = 0);

 private:
  void skip_ws() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }
  const char* p_;
  const char* end_;
};

}  // namespace openrecipes::params
