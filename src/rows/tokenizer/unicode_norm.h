// Unicode normalization forms (NFC, NFD, NFKC, NFKD) exactly as tokenizers 0.23.2 computes them (SPEC §1
// step 3). Upstream normalizes with unicode-normalization-alignments 0.1.12, whose tables are Unicode 9.0.0: a
// character assigned after 9.0 is, to it, a starter with no decomposition that composes with nothing. We use
// utf8proc (Unicode 15.0) for every character assigned in 9.0 (normalization data of assigned characters is
// stable across versions) and copy the later ones through as such inert starters.
#pragma once

#include <string>
#include <string_view>

#include "core/enum_names.h"

namespace openrecipes::rows::tok {

enum class NormForm { NFC, NFD, NFKC, NFKD };

/// Each form as tokenizer.json names its normalizer ("type": "NFKC").
inline constexpr EnumName<NormForm> kNormFormNames[] = {
    {NormForm::NFC, "NFC"}, {NormForm::NFD, "NFD"}, {NormForm::NFKC, "NFKC"}, {NormForm::NFKD, "NFKD"}};

/// Normalizes valid UTF-8 `in` to `form`. Returns false when `in` is already normalized (then `out` is left
/// untouched), true when `out` holds the normalized text. Thread-safe; never throws for valid UTF-8.
bool unicode_normalize(NormForm form, std::string_view in, std::string& out);

/// True when `c` was assigned in Unicode 9.0 (the normalization tables' version upstream).
bool assigned_in_unicode9(char32_t c);

}  // namespace openrecipes::rows::tok
