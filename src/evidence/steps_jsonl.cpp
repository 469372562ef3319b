// steps.jsonl parser (SPEC §2).
#include "evidence/steps_jsonl.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/json_limits.h"
#include "core/text.h"
#include "evidence/step_log.h"

namespace openrecipes::evidence {

StepLog parse_steps_jsonl(std::string_view text, const std::string& file) {
  StepLog log;
  log.file = file;
  log.format = "steps-jsonl";
  log.time_field = "time_s";
  std::set<std::int64_t> seen;
  auto lines = lines_of(text);
  const char* fix = "each line must be {\"step\": int, \"tokens\": int, \"time_s\": float, \"loss\": float|null}";
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = trim(lines[i]);
    if (line.empty()) continue;
    std::string where = fmt::format("{}:{}", file, i + 1);
    // A key given twice is an error (nlohmann alone keeps the last one silently); nesting is bounded.
    nlohmann::json j;
    try {
      j = parse_json_strict(line, where, fix);
    } catch (const InputError& e) {
      const std::string_view what = e.what();
      if (what.find("appears twice") != std::string_view::npos || what.find("nested deeper") != std::string_view::npos)
        throw;  // these name the key or the depth limit
      throw InputError(where, "not a JSON object", fix);
    }
    if (!j.is_object()) throw InputError(where, "not a JSON object", fix);
    for (auto& [k, v] : j.items()) {
      (void)v;
      if (k != "step" && k != "tokens" && k != "time_s" && k != "loss" && k != "skipped" && k != "nan")
        throw InputError(where, "unknown field '" + k + "'", fix);
    }
    auto need = [&](const char* key) -> const nlohmann::json& {
      if (!j.contains(key)) throw InputError(where, fmt::format("missing field '{}'", key), fix);
      return j[key];
    };
    const auto& step = need("step");
    const auto& tokens = need("tokens");
    const auto& time = need("time_s");
    if (!step.is_number_integer() || step.get<std::int64_t>() < 0)
      throw InputError(where, "'step' must be a non-negative integer", fix);
    if (!tokens.is_number_integer() || tokens.get<std::int64_t>() < 0)
      throw InputError(where, "'tokens' must be a non-negative integer", fix);
    if (!time.is_number()) throw InputError(where, "'time_s' must be a number", fix);
    if (double t = time.get<double>(); t > 0 && t < kMinStepTimeS)
      throw InputError(where,
                       fmt::format("'time_s' {} s is below 1 ms; no training step is that fast", format_double(t)),
                       "time_s is the step's wall-clock time in seconds; give the run's own measured times");
    StepRecord r;
    r.first_step = step.get<std::int64_t>();
    r.tokens = tokens.get<std::int64_t>();
    r.time_s = time.get<double>();
    r.line = i + 1;
    if (j.contains("loss") && !j["loss"].is_null()) {
      if (!j["loss"].is_number()) throw InputError(where, "'loss' must be a number or null", fix);
      r.loss = j["loss"].get<double>();
    }
    for (const char* flag : {"skipped", "nan"}) {
      if (!j.contains(flag)) continue;
      if (!j[flag].is_boolean()) throw InputError(where, fmt::format("'{}' must be true or false", flag), fix);
      (std::string(flag) == "skipped" ? r.skipped : r.nan) = j[flag].get<bool>() ? 1 : 0;
    }
    if (!seen.insert(r.first_step).second)
      throw InputError(where, fmt::format("step {} appears twice", r.first_step), "give one line per step");
    if (!log.records.empty() && r.first_step < log.records.back().first_step)
      throw InputError(
          where,
          fmt::format("step {} comes after step {}: steps must count up", r.first_step, log.records.back().first_step),
          "give the steps in the order the run took them");
    log.records.push_back(r);
  }
  if (log.records.empty()) throw InputError(file, "no step lines", fix);
  // Steps count from 0 (docs/evidence-format.md): a file from 1 is Megatron's 1-based iterations copied as they are,
  // which measure would score over the wrong steps and the convergence check would find without a step 0.
  if (log.records.front().first_step != 0)
    throw InputError(
        fmt::format("{}:{}", file, log.records.front().line),
        fmt::format("the first step is {}: steps.jsonl numbers a run's steps from 0", log.records.front().first_step),
        "write step = iteration - 1 for Megatron-LM's 1-based iterations (docs/evidence-format.md)");
  return log;
}

}  // namespace openrecipes::evidence
