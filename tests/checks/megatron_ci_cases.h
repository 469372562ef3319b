// Megatron-LM's CI runs (tests/data/megatron_ci/cases.jsonl, written by tools/megatron_ci_cases.py from Megatron-LM
// d98e8a64) for the tests that read them: the rows, and a row's argv as a command line.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/files.h"
#include "core/text.h"
#include "testing/support.h"

namespace openrecipes::checks {

/// Every row of the table, in its order.
inline std::vector<nlohmann::json> cases() {
  const auto file = testing::source_dir() / "tests/data/megatron_ci/cases.jsonl";
  const std::string text = read_file(file);
  std::vector<nlohmann::json> out;
  for (const auto line : lines_of(text))
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  return out;
}

/// The argv as a command line after "python pretrain_gpt.py": each word quoted whole, a ${VARIABLE} left for the
/// reader to see as one.
inline std::string command_of(const nlohmann::json& arguments) {
  std::string text = "python pretrain_gpt.py";
  for (const auto& a : arguments) {
    const std::string w = a.get<std::string>();
    if (w.find("${") != std::string::npos) {
      text += " \"" + w + "\"";
    } else {
      std::string quoted;
      for (char c : w) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
      text += " '" + quoted + "'";
    }
  }
  return text;
}

}  // namespace openrecipes::checks
