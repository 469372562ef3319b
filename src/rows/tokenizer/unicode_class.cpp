// Builds the two-stage code point -> class table of unicode_class.h from the generated runs (SPEC §1.3).
#include "rows/tokenizer/unicode_class.h"

#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace openrecipes::rows::tok::detail {

// Runs of the generated table (unicode_class_data.cpp): first code point of the run and its bits.
extern const std::uint32_t kClassRuns[][2];
extern const unsigned kClassRunsSize;

namespace {

enum : std::uint32_t { kRL = 1, kRM = 2, kRNd = 4, kRNl = 8, kRNo = 16, kRP = 32, kRPc = 64, kRS = 128, kRSpace = 256 };

// Other_Alphabetic code points outside the Mark categories (they are So): circled and squared Latin letters.
bool other_alphabetic_symbol(char32_t c) {
  return (c >= 0x24B6 && c <= 0x24E9) || (c >= 0x1F130 && c <= 0x1F149) || (c >= 0x1F150 && c <= 0x1F169) ||
         (c >= 0x1F170 && c <= 0x1F189);
}

std::uint8_t to_class(char32_t c, std::uint32_t r) {
  std::uint8_t bits = 0;
  if (r & kRL) bits |= kLetter;
  if (r & kRM) bits |= kMark;
  if (r & (kRNd | kRNl | kRNo)) bits |= kNumber;
  if (r & kRP) bits |= kPunct;
  if (r & kRS) bits |= kSymbol;
  if (r & kRSpace) bits |= kSpace;
  // Rust regex \w: Alphabetic (letters, Nl, Other_Alphabetic), marks, Nd, Pc, Join_Control.
  if ((r & (kRL | kRM | kRNd | kRNl | kRPc)) || other_alphabetic_symbol(c) || c == 0x200C || c == 0x200D) bits |= kWord;
  return bits;
}

ClassTable* build() {
  auto* t = new ClassTable;
  std::map<std::string, std::uint16_t> unique;  // block bytes -> block index
  std::vector<std::uint8_t> blocks;
  std::string block(256, '\0');
  unsigned run = 0;
  for (std::uint32_t hi = 0; hi < (0x110000u >> 8); ++hi) {
    for (std::uint32_t lo = 0; lo < 256; ++lo) {
      const char32_t c = (hi << 8) | lo;
      while (run + 1 < kClassRunsSize && kClassRuns[run + 1][0] <= c) ++run;
      block[lo] = static_cast<char>(to_class(c, kClassRuns[run][1]));
    }
    auto [it, inserted] = unique.emplace(block, static_cast<std::uint16_t>(unique.size()));
    if (inserted) blocks.insert(blocks.end(), block.begin(), block.end());
    t->stage1[hi] = it->second;
  }
  t->blocks = new std::uint8_t[blocks.size()];
  std::memcpy(t->blocks, blocks.data(), blocks.size());
  return t;
}

}  // namespace

const ClassTable& class_table() {
  static const ClassTable* table = build();  // built once, thread-safe; lives for the process
  return *table;
}

}  // namespace openrecipes::rows::tok::detail
