// Test helper: a real Megatron-LM log rewritten as if run with another --log-interval, for tests of how logging
// intervals are read (SPEC §2 "A Megatron line averages over its logging interval").
#pragma once

#include <regex>
#include <string>

namespace openrecipes::testing {

/// `log` (a Megatron log written with --log-interval 1) as if written with --log-interval `k`: its argument dump
/// says log_interval k and only the training_log lines of iterations that are multiples of k are kept (their
/// values stay the single iteration's, so the lines stand for k-step records). Other lines are kept as they are.
inline std::string relogged_every(const std::string& log, int k) {
  std::string text =
      std::regex_replace(log, std::regex("log_interval \\.+ 1\n"),
                         "log_interval .................................... " + std::to_string(k) + "\n");
  const std::regex iteration_line(" iteration +([0-9]+)/ *[0-9]+ \\|");
  std::string kept;
  for (std::size_t begin = 0; begin < text.size();) {
    auto end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size() - 1;
    const std::string line = text.substr(begin, end - begin + 1);
    std::smatch m;
    if (!std::regex_search(line, m, iteration_line) || std::stoi(m[1]) % k == 0) kept += line;
    begin = end + 1;
  }
  return kept;
}

}  // namespace openrecipes::testing
