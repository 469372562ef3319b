// Test helper: deterministic rows that tests/oracles/rows_oracle.py rebuilds independently with numpy
// (id(i) = (i * 2654435761 + seed) mod 2147483647, i = r*L + k), and a runner for that oracle.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "testing/support.h"

namespace openrecipes::rows::testing {

/// Row r (length L) of the formula rows.
inline std::vector<std::int32_t> formula_row(std::uint64_t r, std::uint32_t L, std::uint64_t seed) {
  std::vector<std::int32_t> row(L);
  for (std::uint32_t k = 0; k < L; ++k) {
    const std::uint64_t i = r * L + k;
    row[k] = static_cast<std::int32_t>((i * 2654435761ull + seed) % 2147483647ull);
  }
  return row;
}

/// Runs tests/oracles/rows_oracle.py with `args`; returns its stdout without the trailing newline.
inline std::string rows_oracle(const std::vector<std::string>& args) {
  std::vector<std::string> argv{openrecipes::testing::oracle_python(),
                                (openrecipes::testing::source_dir() / "tests/oracles/rows_oracle.py").string()};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = openrecipes::testing::run_process(argv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
  return r.out;
}

}  // namespace openrecipes::rows::testing
