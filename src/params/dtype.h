// Safetensors element types (the `dtype` strings of a safetensors header) and their widths in bits.
// Upstream: huggingface/safetensors `Dtype` (BOOL, F4, F6_*, U8, I8, F8_*, I16, U16, F16, BF16, I32, U32, F32, C64,
// F64, I64, U64); used by the header reader for the bytes-versus-shape check (SPEC §3, "N is counted from headers").
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace openrecipes::params {

/// One safetensors element type, named as the header spells it.
enum class Dtype {
  BOOL,
  F4,
  F6_E2M3,
  F6_E3M2,
  U8,
  I8,
  F8_E5M2,
  F8_E4M3,
  F8_E8M0,
  F8_E4M3FNUZ,
  F8_E5M2FNUZ,
  I16,
  U16,
  F16,
  BF16,
  I32,
  U32,
  F32,
  C64,
  F64,
  I64,
  U64,
};

/// The dtype a header string names ("BF16", "F8_E4M3", ...); nullopt for any other string (exact, case-sensitive,
/// as upstream's serde deserializer is).
std::optional<Dtype> parse_dtype(std::string_view name);

/// The header spelling of `dtype`.
std::string_view dtype_name(Dtype dtype);

/// Bits one element occupies in the data region: 4 for F4 (two per byte), 6 for F6_*, 8 for BOOL and the byte types,
/// 16, 32 or 64 otherwise (C64 is two F32). Matches upstream `Dtype::bitsize`.
int dtype_bits(Dtype dtype);

/// Every dtype parse_dtype accepts, as the header spells it, in the table's order, separated by ", "
/// ("BOOL, F4, F6_E2M3, ..."): the one list that error messages quote.
std::string known_dtype_names();

/// True for the integer and boolean types (BOOL, U8, I8, I16, U16, I32, U32, I64, U64).
bool dtype_is_integer(Dtype dtype);

}  // namespace openrecipes::params
