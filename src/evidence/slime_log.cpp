// slime / miles `step N: {...}` and `perf N: {...}` log lines (SPEC §2).
#include "evidence/slime_log.h"

#include <cmath>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "core/error.h"
#include "core/text.h"
#include "evidence/python_literal.h"

namespace openrecipes::evidence {
namespace {

// Finds "<word> N: {" with <word> not preceded by an identifier character or '-'; returns the offset of '{'.
std::size_t find_tagged_dict(std::string_view line, std::string_view word, std::int64_t& n) {
  std::size_t pos = 0;
  while ((pos = line.find(word, pos)) != std::string_view::npos) {
    std::size_t at = pos;
    pos += word.size();
    if (at > 0) {
      char b = line[at - 1];
      if (std::isalnum(static_cast<unsigned char>(b)) || b == '_' || b == '-' || b == '/') continue;
    }
    std::size_t i = at + word.size();
    if (i >= line.size() || line[i] != ' ') continue;
    ++i;
    std::size_t ds = i;
    while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
    if (i == ds || line.substr(i, 3) != ": {") continue;
    auto v = parse_int(line.substr(ds, i - ds));
    if (!v) continue;
    n = *v;
    return i + 2;
  }
  return std::string_view::npos;
}

struct Partial {
  std::optional<double> time_s;
  std::optional<double> loss;
  std::optional<std::int64_t> rows;
  std::size_t line = 0, step_line = 0, perf_line = 0;
};

std::optional<double> number_field(const nlohmann::json& d, const char* key, const std::string& where) {
  auto it = d.find(key);
  if (it == d.end() || it->is_null()) return std::nullopt;
  if (!it->is_number()) throw InputError(where, fmt::format("'{}' is not a number", key));
  return it->get<double>();
}

}  // namespace

StepLog parse_slime_log(std::string_view text, const std::string& file, const std::string& format) {
  std::map<std::int64_t, Partial> steps;
  auto lines = lines_of(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    std::string where = fmt::format("{}:{}", file, i + 1);
    for (std::string_view word : {std::string_view("step"), std::string_view("perf")}) {
      std::int64_t n = 0;
      auto at = find_tagged_dict(line, word, n);
      if (at == std::string_view::npos) continue;
      nlohmann::json d;
      std::size_t used = 0;
      try {
        d = parse_python_literal(line.substr(at), used);
      } catch (const std::invalid_argument& e) {
        throw InputError(where, fmt::format("cannot read the {} {} dict: {}", word, n, e.what()),
                         "the log line is truncated or damaged; give the unedited log");
      }
      if (!d.is_object()) throw InputError(where, "expected a dict after '" + std::string(word) + " N:'");
      Partial& p = steps[n];
      if (word == "step") {
        if (p.step_line) throw InputError(where, fmt::format("step {} logged twice (also line {})", n, p.step_line),
                                          "give the log of one run only");
        p.step_line = i + 1;
        p.loss = number_field(d, "train/loss", where);
        if (auto gbs = number_field(d, "train/global_batch_size", where)) {
          if (*gbs != std::floor(*gbs) || *gbs < 0 || *gbs > 1e12)
            throw InputError(where, "'train/global_batch_size' is not a row count");
          p.rows = static_cast<std::int64_t>(*gbs);
        }
      } else {
        auto t = number_field(d, "perf/step_time", where);
        if (!t) continue;  // rollout perf line, not a train step
        if (p.perf_line)
          throw InputError(where, fmt::format("perf/step_time for step {} logged twice (also line {})", n, p.perf_line),
                           "give the log of one run only");
        p.perf_line = i + 1;
        p.time_s = *t;
      }
      if (!p.line) p.line = i + 1;
    }
  }
  if (steps.empty())
    throw InputError(file, "no slime/miles 'step N: {...}' or 'perf N: {...}' lines found",
                     "give the training job's full log");
  StepLog log;
  log.file = file;
  log.format = format;
  for (auto& [n, p] : steps) {
    StepRecord r;
    r.first_step = n;
    r.steps = 1;
    r.time_s = p.time_s;
    r.loss = p.loss;
    r.rows = p.rows;
    r.line = p.perf_line ? p.perf_line : p.line;
    if (p.loss && std::isnan(*p.loss)) r.nan = 1;
    log.records.push_back(r);
  }
  return log;
}

}  // namespace openrecipes::evidence
