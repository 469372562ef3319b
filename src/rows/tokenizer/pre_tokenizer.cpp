// Pre-tokenizer steps (SPEC §1.3; upstream pre_tokenizers/{split,byte_level,digits,sequence}.rs,
// tokenizer/pattern.rs find_matches and NormalizedString::split behaviours).
#include "rows/tokenizer/pre_tokenizer.h"

#include <algorithm>

#include "core/utf8.h"
#include "rows/tokenizer/bpe.h"
#include "rows/tokenizer/unicode_class.h"

namespace openrecipes::rows::tok {
namespace {

struct Flagged {
  std::size_t begin, end;
  bool flag;  // is_match before behaviour; "remove" after
};

// Upstream Pattern::find_matches for a match list: the whole text as alternating (span, is_match) parts.
void to_flagged(const std::vector<Span>& matches, std::size_t n, std::vector<Flagged>& out) {
  out.clear();
  std::size_t prev = 0;
  for (const auto& [s, e] : matches) {
    if (prev != s) out.push_back({prev, s, false});
    out.push_back({s, e, true});
    prev = e;
  }
  if (prev != n) out.push_back({prev, n, false});
}

// Upstream NormalizedString::split: applies the delimiter behaviour; returns (span, remove) parts.
void apply_behavior(SplitBehavior behavior, std::vector<Flagged>& parts) {
  std::vector<Flagged> acc;
  acc.reserve(parts.size());
  bool previous_match = false;
  switch (behavior) {
    case SplitBehavior::isolated:
      for (auto& p : parts) p.flag = false;
      return;
    case SplitBehavior::removed:
      return;  // matches are removed
    case SplitBehavior::contiguous:
      for (const auto& p : parts) {
        if (p.flag == previous_match && !acc.empty())
          acc.back().end = p.end;
        else
          acc.push_back({p.begin, p.end, false});
        previous_match = p.flag;
      }
      break;
    case SplitBehavior::merged_with_previous:
      for (const auto& p : parts) {
        if (p.flag && !previous_match && !acc.empty())
          acc.back().end = p.end;
        else
          acc.push_back({p.begin, p.end, false});
        previous_match = p.flag;
      }
      break;
    case SplitBehavior::merged_with_next:
      for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
        if (it->flag && !previous_match && !acc.empty())
          acc.back().begin = it->begin;
        else
          acc.push_back({it->begin, it->end, false});
        previous_match = it->flag;
      }
      std::reverse(acc.begin(), acc.end());
      break;
  }
  parts.swap(acc);
}

void byte_level_map(std::string_view raw, std::string& out) {
  const auto& chars = byte_level_chars();
  out.clear();
  out.reserve(raw.size() * 2);
  for (unsigned char b : raw) append_utf8(out, chars[b]);
}

}  // namespace

bool PreTokenizer::can_virtualize(const std::vector<PreTokenizerStep>& steps) {
  if (steps.empty() || steps.back().kind != PreTokenizerStep::Kind::byte_level) return false;
  for (std::size_t i = 0; i + 1 < steps.size(); ++i)
    if (steps[i].kind == PreTokenizerStep::Kind::byte_level) return false;
  return true;
}

PreTokenizer::PreTokenizer(std::vector<PreTokenizerStep> steps, bool virtual_byte_level)
    : steps_(std::move(steps)), virtual_(virtual_byte_level && can_virtualize(steps_)) {}

void PreTokenizer::apply_split(const PreTokenizerStep& st, std::string_view piece, PreTokenizeScratch& scratch,
                               std::vector<std::string_view>& out) const {
  auto& matches = scratch.matches;
  matches.clear();
  if (st.kind == PreTokenizerStep::Kind::digits) {
    // Upstream Pattern for Fn(char) -> bool (char::is_numeric): each numeric character is one match.
    for (std::size_t i = 0; i < piece.size();) {
      std::size_t len;
      char32_t c = decode_utf8(piece.data() + i, len);
      if (char_class(c) & kNumber) matches.emplace_back(i, i + len);
      i += len;
    }
  } else if (st.scanner != Scanner::none) {
    scan_matches(st.scanner, piece, matches);
  } else if (st.is_literal) {
    for (std::size_t pos = piece.find(st.literal); pos != std::string_view::npos;
         pos = piece.find(st.literal, pos + st.literal.size()))
      matches.emplace_back(pos, pos + st.literal.size());
  } else {
    st.regex->find_all(piece, matches);
  }
  SplitBehavior behavior = st.behavior;
  if (st.kind == PreTokenizerStep::Kind::digits)
    behavior = st.individual_digits ? SplitBehavior::isolated : SplitBehavior::contiguous;
  if (behavior == SplitBehavior::isolated) {  // fast path: every part is kept
    std::size_t prev = 0;
    for (const auto& [s, e] : matches) {
      if (prev < s) out.push_back(piece.substr(prev, s - prev));
      if (s < e) out.push_back(piece.substr(s, e - s));
      prev = e;
    }
    if (prev < piece.size()) out.push_back(piece.substr(prev));
    return;
  }
  thread_local std::vector<Flagged> parts;
  to_flagged(matches, piece.size(), parts);
  if (st.invert)
    for (auto& p : parts) p.flag = !p.flag;
  apply_behavior(behavior, parts);
  for (const auto& p : parts)
    if (!p.flag && p.begin < p.end) out.push_back(piece.substr(p.begin, p.end - p.begin));
}

void PreTokenizer::run(std::string_view text, PreTokenizeScratch& scratch, std::vector<std::string_view>& out) const {
  out.clear();
  if (text.empty()) return;
  if (steps_.empty()) {
    out.push_back(text);
    return;
  }
  auto* cur = &scratch.a;
  auto* next = &scratch.b;
  cur->clear();
  cur->push_back(text);
  for (std::size_t k = 0; k < steps_.size(); ++k) {
    const PreTokenizerStep& st = steps_[k];
    auto* dst = (k + 1 == steps_.size()) ? &out : next;
    dst->clear();
    if (st.kind == PreTokenizerStep::Kind::byte_level) {
      for (std::string_view piece : *cur) {
        if (st.add_prefix_space && piece.front() != ' ') {
          scratch.arena.emplace_back();
          std::string& s = scratch.arena.back();
          s.reserve(piece.size() + 1);
          s.push_back(' ');
          s.append(piece);
          piece = s;
        }
        const std::size_t first = dst->size();
        if (st.use_regex) {
          static const PreTokenizerStep gpt2 = [] {
            PreTokenizerStep g;
            g.scanner = Scanner::gpt2;
            return g;
          }();
          apply_split(gpt2, piece, scratch, *dst);
        } else {
          dst->push_back(piece);
        }
        if (!virtual_ || k + 1 != steps_.size()) {
          for (std::size_t i = first; i < dst->size(); ++i) {
            scratch.arena.emplace_back();
            byte_level_map((*dst)[i], scratch.arena.back());
            (*dst)[i] = scratch.arena.back();
          }
        }
      }
    } else {
      for (std::string_view piece : *cur) apply_split(st, piece, scratch, *dst);
    }
    if (dst != &out) std::swap(cur, next);
  }
}

std::string PreTokenizer::describe() const {
  std::string s;
  for (const auto& st : steps_) {
    if (!s.empty()) s += ", ";
    switch (st.kind) {
      case PreTokenizerStep::Kind::split:
        s += "Split(";
        switch (st.scanner) {
          case Scanner::qwen2:
            s += "qwen2 regex, scanner";
            break;
          case Scanner::llama3:
            s += "llama3 regex, scanner";
            break;
          case Scanner::gpt2:
            s += "gpt2 regex, scanner";
            break;
          case Scanner::deepseek_digits:
            s += "deepseek-v3 digits, scanner";
            break;
          case Scanner::deepseek_cjk:
            s += "deepseek-v3 cjk, scanner";
            break;
          case Scanner::deepseek_main:
            s += "deepseek-v3 regex, scanner";
            break;
          case Scanner::none:
            s += st.is_literal ? "string" : "regex, oniguruma";
            break;
        }
        s += ")";
        break;
      case PreTokenizerStep::Kind::byte_level:
        s += "ByteLevel";
        if (st.use_regex) s += "(use_regex)";
        break;
      case PreTokenizerStep::Kind::digits:
        s += st.individual_digits ? "Digits(individual)" : "Digits";
        break;
    }
  }
  if (steps_.size() > 1) return "Sequence[" + s + "]";
  return s.empty() ? "none" : s;
}

}  // namespace openrecipes::rows::tok
