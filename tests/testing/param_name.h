// Test helper: the case names of a value-parameterized test over strings (INSTANTIATE_TEST_SUITE_P's name generator),
// so that `ctest -R` can name one case.
#pragma once

#include <cctype>
#include <string>

#include <gtest/gtest.h>

namespace openrecipes::testing {

/// The string parameter with each character that is not an ASCII letter or digit replaced by '_'.
inline std::string param_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param;
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

}  // namespace openrecipes::testing
