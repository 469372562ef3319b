// Fast scanner for the plain-JSON subset of safetensors headers and indexes (falls back to nlohmann; SPEC §3 speed).
#include "params/json_scan.h"

#include <cstring>

namespace openrecipes::params {

bool JsonScan::string(std::string_view* out) {
  skip_ws();
  if (p_ == end_ || *p_ != '"') return false;
  const char* start = ++p_;
  const void* q = std::memchr(p_, '"', static_cast<std::size_t>(end_ - p_));
  if (!q) return false;
  const char* stop = static_cast<const char*>(q);
  for (const char* c = start; c < stop; ++c) {
    const auto u = static_cast<unsigned char>(*c);
    if (u < 0x20 || u >= 0x7f || u == '\\') return false;  // control bytes, non-ASCII, escapes: the full parser's job
  }
  *out = std::string_view(start, static_cast<std::size_t>(stop - start));
  p_ = stop + 1;
  return true;
}

bool JsonScan::unsigned_int(std::uint64_t* out) {
  skip_ws();
  const char* start = p_;
  std::uint64_t v = 0;
  while (p_ != end_ && *p_ >= '0' && *p_ <= '9') {
    const auto digit = static_cast<std::uint64_t>(*p_ - '0');
    if (v > (UINT64_MAX - digit) / 10) return false;
    v = v * 10 + digit;
    ++p_;
  }
  if (p_ == start || (p_ - start > 1 && *start == '0')) return false;
  if (p_ != end_ && (*p_ == '.' || *p_ == 'e' || *p_ == 'E')) return false;
  *out = v;
  return true;
}

bool JsonScan::skip_value(int depth) {
  if (depth > 64) return false;
  skip_ws();
  if (p_ == end_) return false;
  const char c = *p_;
  if (c == '"') {
    std::string_view s;
    return string(&s);
  }
  if (c == '{') {
    ++p_;
    if (eat('}')) return true;
    do {
      std::string_view key;
      if (!string(&key) || !eat(':') || !skip_value(depth + 1)) return false;
    } while (eat(','));
    return eat('}');
  }
  if (c == '[') {
    ++p_;
    if (eat(']')) return true;
    do {
      if (!skip_value(depth + 1)) return false;
    } while (eat(','));
    return eat(']');
  }
  for (std::string_view word : {std::string_view("true"), std::string_view("false"), std::string_view("null")})
    if (static_cast<std::size_t>(end_ - p_) >= word.size() && std::string_view(p_, word.size()) == word) {
      p_ += word.size();
      return true;
    }
  // A JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  const char* q = p_;
  if (q != end_ && *q == '-') ++q;
  if (q == end_ || *q < '0' || *q > '9') return false;
  if (*q == '0')
    ++q;
  else
    while (q != end_ && *q >= '0' && *q <= '9') ++q;
  if (q != end_ && *q == '.') {
    ++q;
    if (q == end_ || *q < '0' || *q > '9') return false;
    while (q != end_ && *q >= '0' && *q <= '9') ++q;
  }
  if (q != end_ && (*q == 'e' || *q == 'E')) {
    ++q;
    if (q != end_ && (*q == '+' || *q == '-')) ++q;
    if (q == end_ || *q < '0' || *q > '9') return false;
    while (q != end_ && *q >= '0' && *q <= '9') ++q;
  }
  p_ = q;
  return true;
}

}  // namespace openrecipes::params
