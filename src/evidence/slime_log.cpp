// slime / miles `step N: {...}` and `perf N: {...}` log lines (SPEC §2).
#include "evidence/slime_log.h"

#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "core/error.h"
#include "core/text.h"
#include "evidence/python_literal.h"
#include "evidence/step_log.h"

namespace openrecipes::evidence {
namespace {

// Finds "<word> N: {" with <word> not preceded by an identifier character or '-'; returns the offset of '{'.
// A signed or out-of-range N ("step -1: {", "step 10^30: {") is an error naming `where`, never a skipped line.
std::size_t find_tagged_dict(std::string_view line, std::string_view word, std::int64_t& n, const std::string& where) {
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
    if (i < line.size() && (line[i] == '-' || line[i] == '+')) ++i;
    std::size_t digits_at = i;
    while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
    if (i == digits_at || line.substr(i, 3) != ": {") continue;
    std::string_view text = line.substr(ds, i - ds);
    auto v = digits_at == ds ? parse_int(text) : std::nullopt;
    if (!v)
      throw InputError(where,
                       fmt::format("{} is not a step number (0 to 2^63-1)",
                                   quote_for_message(std::string(word) + " " + std::string(text) + ":", 60)),
                       "the log is edited or damaged; give the training job's own unedited log");
    n = *v;
    return i + 2;
  }
  return std::string_view::npos;
}

struct Partial {
  std::optional<double> time_s;
  std::optional<double> loss;
  std::optional<double> grad_norm;
  std::optional<std::int64_t> rows;
  std::size_t line = 0, step_line = 0, perf_line = 0;
  std::string step_text, perf_text;  ///< the dicts as printed, to tell a repeated line from a conflicting one
};

// slime's trainer key for the step time, and its name before slime 2e27587bc (2025-10-30), which logged the same
// train_wait + train sum as perf/total_train_time (notes/slime.md §2.3 "Naming history").
constexpr const char* kStepTimeKey = "perf/step_time";
constexpr const char* kOldStepTimeKey = "perf/total_train_time";

std::optional<double> number_field(const nlohmann::json& d, const char* key, const std::string& where) {
  auto it = d.find(key);
  if (it == d.end() || it->is_null()) return std::nullopt;
  if (!it->is_number()) throw InputError(where, fmt::format("'{}' is not a number", key));
  return it->get<double>();
}

}  // namespace

StepLog parse_slime_log(std::string_view text, const std::string& file, const std::string& format) {
  std::map<std::int64_t, Partial> steps;
  std::string time_field = kStepTimeKey;  // the key the trainer's perf lines carry
  std::size_t time_field_line = 0;        // the first perf line that gave a step time
  // The last step N of each kind of line and where it was: both kinds count up, one line per step.
  std::optional<std::pair<std::int64_t, std::size_t>> last_step, last_perf;
  auto in_order = [&](std::optional<std::pair<std::int64_t, std::size_t>>& last, std::string_view word, std::int64_t n,
                      const std::string& where, std::size_t line) {
    if (last && n < last->first)
      throw InputError(where,
                       fmt::format("{} {} comes after {} {} (line {}): steps must count up", word, n, word, last->first,
                                   last->second),
                       "give the log of one run only, without restarts");
    last = std::make_pair(n, line);
  };
  auto lines = lines_of(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    std::string where = fmt::format("{}:{}", file, i + 1);
    for (std::string_view word : {std::string_view("step"), std::string_view("perf")}) {
      std::int64_t n = 0;
      auto at = find_tagged_dict(line, word, n, where);
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
      const std::string text(line.substr(at, used));
      Partial& p = steps[n];
      // miles prints every `step N:` line twice with the same text (log_utils.log_train_step and model.train):
      // a repeat of a line already read is dropped; a second line for the step that says something else is an
      // error.
      auto repeated = [&](std::size_t seen_line, const std::string& seen_text, std::string_view what) {
        if (!seen_line) return false;
        if (seen_text == text) return true;
        throw InputError(where,
                         fmt::format("{} {} logged twice with different values (also line {})", what, n, seen_line),
                         "give the log of one run only");
      };
      if (word == "step") {
        if (repeated(p.step_line, p.step_text, "step")) continue;
        in_order(last_step, word, n, where, i + 1);
        p.step_line = i + 1;
        p.step_text = text;
        p.loss = number_field(d, "train/loss", where);
        p.grad_norm = number_field(d, "train/grad_norm", where);
        if (auto gbs = number_field(d, "train/global_batch_size", where)) {
          if (*gbs != std::floor(*gbs) || *gbs < 0 || *gbs > 1e12)
            throw InputError(where, "'train/global_batch_size' is not a row count");
          p.rows = static_cast<std::int64_t>(*gbs);
        }
      } else {
        const char* key = d.contains(kStepTimeKey) ? kStepTimeKey : kOldStepTimeKey;
        auto t = number_field(d, key, where);
        if (!t) continue;  // rollout perf line, not a train step
        if (repeated(p.perf_line, p.perf_text, "the perf line of step")) continue;
        in_order(last_perf, word, n, where, i + 1);
        if (*t > 0 && *t < kMinStepTimeS)
          throw InputError(
              where, fmt::format("'{}' {} s is below 1 ms; no training step is that fast", key, format_double(*t)),
              "the step times were edited or damaged; give the training job's own unedited log");
        if (!time_field_line) {
          time_field = key;
          time_field_line = i + 1;
        } else if (time_field != key) {
          throw InputError(where,
                           fmt::format("this perf line gives the step time as '{}', line {} as '{}'", key,
                                       time_field_line, time_field),
                           "give the log of one run only (a slime version logs one of the two names)");
        }
        p.perf_line = i + 1;
        p.perf_text = text;
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
  log.time_field = time_field;
  for (auto& [n, p] : steps) {
    StepRecord r;
    r.first_step = n;
    r.steps = 1;
    r.time_s = p.time_s;
    r.loss = p.loss;
    r.grad_norm = p.grad_norm;
    r.rows = p.rows;
    r.line = p.perf_line ? p.perf_line : p.line;
    if (p.loss && std::isnan(*p.loss)) r.nan = 1;
    log.records.push_back(r);
  }
  return log;
}

}  // namespace openrecipes::evidence
