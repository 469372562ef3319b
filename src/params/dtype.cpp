// Safetensors dtypes and widths (upstream huggingface/safetensors `Dtype`), for the header reader (SPEC §3).
#include "params/dtype.h"

#include <array>
#include <utility>

namespace openrecipes::params {
namespace {
struct DtypeRow {
  Dtype dtype;
  std::string_view name;
  int bits;
  bool integer;
};
constexpr std::array<DtypeRow, 22> kDtypes{{
    {Dtype::BOOL, "BOOL", 8, true},
    {Dtype::F4, "F4", 4, false},
    {Dtype::F6_E2M3, "F6_E2M3", 6, false},
    {Dtype::F6_E3M2, "F6_E3M2", 6, false},
    {Dtype::U8, "U8", 8, true},
    {Dtype::I8, "I8", 8, true},
    {Dtype::F8_E5M2, "F8_E5M2", 8, false},
    {Dtype::F8_E4M3, "F8_E4M3", 8, false},
    {Dtype::F8_E8M0, "F8_E8M0", 8, false},
    {Dtype::F8_E4M3FNUZ, "F8_E4M3FNUZ", 8, false},
    {Dtype::F8_E5M2FNUZ, "F8_E5M2FNUZ", 8, false},
    {Dtype::I16, "I16", 16, true},
    {Dtype::U16, "U16", 16, true},
    {Dtype::F16, "F16", 16, false},
    {Dtype::BF16, "BF16", 16, false},
    {Dtype::I32, "I32", 32, true},
    {Dtype::U32, "U32", 32, true},
    {Dtype::F32, "F32", 32, false},
    {Dtype::C64, "C64", 64, false},
    {Dtype::F64, "F64", 64, false},
    {Dtype::I64, "I64", 64, true},
    {Dtype::U64, "U64", 64, true},
}};

const DtypeRow& row(Dtype d) {
  for (const auto& r : kDtypes)
    if (r.dtype == d) return r;
  return kDtypes[0];  // unreachable: every enumerator has a row
}
}  // namespace

std::optional<Dtype> parse_dtype(std::string_view name) {
  for (const auto& r : kDtypes)
    if (r.name == name) return r.dtype;
  return std::nullopt;
}

std::string_view dtype_name(Dtype dtype) { return row(dtype).name; }
int dtype_bits(Dtype dtype) { return row(dtype).bits; }
bool dtype_is_integer(Dtype dtype) { return row(dtype).integer; }

std::string known_dtype_names() {
  std::string out;
  for (const auto& r : kDtypes) {
    if (!out.empty()) out += ", ";
    out += r.name;
  }
  return out;
}

}  // namespace openrecipes::params
