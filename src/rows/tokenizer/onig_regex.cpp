// Oniguruma wrapper with the onig crate's iteration rules (SPEC §1.3; upstream rust-onig 6.5 find.rs).
#include "rows/tokenizer/onig_regex.h"

#include <oniguruma.h>

#include <mutex>
#include <stdexcept>

#include <fmt/format.h>

#include "core/error.h"

namespace openrecipes::rows::tok {
namespace {

void init_onig() {
  static std::once_flag once;
  std::call_once(once, [] {
    OnigEncoding encs[] = {ONIG_ENCODING_UTF8};
    onig_initialize(encs, 1);
  });
}

std::string onig_message(int code, OnigErrorInfo* info) {
  OnigUChar buf[ONIG_MAX_ERROR_MESSAGE_LEN];
  int n = info ? onig_error_code_to_str(buf, code, info) : onig_error_code_to_str(buf, code);
  return std::string(reinterpret_cast<const char*>(buf), n > 0 ? static_cast<std::size_t>(n) : 0);
}

}  // namespace

std::unique_ptr<OnigRegex> OnigRegex::compile(std::string_view pattern, std::string& error) {
  init_onig();
  regex_t* reg = nullptr;
  OnigErrorInfo info;
  const auto* p = reinterpret_cast<const OnigUChar*>(pattern.data());
  int rc = onig_new(&reg, p, p + pattern.size(), ONIG_OPTION_NONE, ONIG_ENCODING_UTF8, ONIG_SYNTAX_RUBY, &info);
  if (rc != ONIG_NORMAL) {
    error = onig_message(rc, &info);
    return nullptr;
  }
  return std::unique_ptr<OnigRegex>(new OnigRegex(reg));
}

OnigRegex::~OnigRegex() { onig_free(static_cast<regex_t*>(reg_)); }

void OnigRegex::find_all(std::string_view text, std::vector<Span>& out) const {
  auto* reg = static_cast<regex_t*>(reg_);
  const auto* str = reinterpret_cast<const OnigUChar*>(text.data());
  const auto* end = str + text.size();
  OnigRegion* region = onig_region_new();
  std::size_t last_end = 0;
  bool have_last = false;
  std::size_t last_match_end = 0;
  while (last_end <= text.size()) {
    onig_region_clear(region);
    int r = onig_search(reg, str, end, str + last_end, end, region, ONIG_OPTION_NONE);
    if (r == ONIG_MISMATCH) break;
    if (r < 0) {
      onig_region_free(region, 1);
      // Oniguruma's default bound on backtracking (10,000,000 retries a match, as the onig crate upstream uses):
      // a pattern that backtracks catastrophically on this text stops here, as it does in tokenizers.
      if (r == ONIGERR_RETRY_LIMIT_IN_MATCH_OVER || r == ONIGERR_RETRY_LIMIT_IN_SEARCH_OVER)
        throw InputError("the text to encode",
                         fmt::format("the tokenizer's regex backtracked past Oniguruma's retry limit ({} a match) at "
                                     "byte {}",
                                     onig_get_retry_limit_in_match(), last_end),
                         "split that text, or use a tokenizer whose patterns do not backtrack this much");
      throw std::runtime_error("Oniguruma search error: " + onig_message(r, nullptr));
    }
    const auto s = static_cast<std::size_t>(region->beg[0]);
    const auto e = static_cast<std::size_t>(region->end[0]);
    if (e == s && have_last && last_match_end == e) {
      // Skip one character (the onig crate advances by one char, or 1 at the end).
      if (last_end < text.size()) {
        const auto b = static_cast<unsigned char>(text[last_end]);
        last_end += b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
      } else {
        last_end += 1;
      }
      continue;
    }
    last_end = e;
    last_match_end = e;
    have_last = true;
    out.emplace_back(s, e);
  }
  onig_region_free(region, 1);
}

}  // namespace openrecipes::rows::tok
