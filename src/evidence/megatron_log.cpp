// Megatron-LM and Megatron-Bridge training_log parsers (SPEC §2 "Step records").
#include "evidence/megatron_log.h"

#include <cctype>
#include <map>

#include <fmt/format.h>

#include "core/error.h"
#include "core/text.h"

namespace openrecipes::evidence {
namespace {

struct IterationLine {
  std::int64_t iteration = 0;
  std::int64_t train_iters = 0;
  std::optional<double> elapsed_ms;
  std::optional<std::int64_t> global_batch;
  std::optional<double> loss;
  std::int64_t skipped = 0, nan = 0;
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Finds "iteration <spaces> k/ <spaces> N" followed by " |"; returns the offset after N or npos.
std::size_t match_iteration_head(std::string_view line, std::int64_t& k, std::int64_t& n) {
  std::size_t pos = 0;
  while ((pos = line.find("iteration", pos)) != std::string_view::npos) {
    std::size_t i = pos + 9;
    pos += 9;
    std::size_t sp = i;
    while (i < line.size() && line[i] == ' ') ++i;
    if (i == sp) continue;
    std::size_t ds = i;
    while (i < line.size() && is_digit(line[i])) ++i;
    if (i == ds || i >= line.size() || line[i] != '/') continue;
    auto kv = parse_int(line.substr(ds, i - ds));
    ++i;
    while (i < line.size() && line[i] == ' ') ++i;
    std::size_t ns = i;
    while (i < line.size() && is_digit(line[i])) ++i;
    if (i == ns) continue;
    auto nv = parse_int(line.substr(ns, i - ns));
    std::size_t j = i;
    while (j < line.size() && line[j] == ' ') ++j;
    if (j >= line.size() || line[j] != '|' || !kv || !nv) continue;
    k = *kv;
    n = *nv;
    return j;
  }
  return std::string_view::npos;
}

IterationLine parse_iteration_fields(std::string_view rest, const std::string& where, std::int64_t k,
                                     std::int64_t n) {
  IterationLine it;
  it.iteration = k;
  it.train_iters = n;
  // Megatron ends every training_log line with " |"; a line that does not is cut off (a truncated log), and
  // its last number may be cut too, so it is never read.
  if (trim(rest).empty() || trim(rest).back() != '|')
    throw InputError(where, "training_log line is cut off (it does not end with '|')",
                     "the log is truncated; give the complete log of the run");
  auto fields = split(trim(rest), '|');
  for (std::size_t f = 1; f + 1 < fields.size(); ++f) {
    std::string_view field = trim(fields[f]);
    auto colon = field.rfind(':');
    if (colon == std::string_view::npos) continue;  // a field we do not read
    std::string_view name = trim(field.substr(0, colon));
    std::string_view value = trim(field.substr(colon + 1));
    auto need_double = [&](std::string_view what) {
      auto v = parse_double(value);
      if (!v) throw InputError(where, fmt::format("'{}' is not a number: {}", what, quote_for_message(value)));
      return *v;
    };
    auto need_int = [&](std::string_view what) {
      auto v = parse_int(value);
      if (!v) throw InputError(where, fmt::format("'{}' is not an integer: {}", what, quote_for_message(value)));
      return *v;
    };
    if (name == "elapsed time per iteration (ms)") it.elapsed_ms = need_double(name);
    else if (name == "global batch size") it.global_batch = need_int(name);
    else if (name == "lm loss") it.loss = need_double(name);
    else if (name == "number of skipped iterations") it.skipped = need_int(name);
    else if (name == "number of nan iterations") it.nan = need_int(name);
  }
  return it;
}

struct RawLine {
  IterationLine it;
  std::size_t line;
};

StepLog assemble(std::vector<RawLine>& raw, const std::string& file, const std::string& format,
                 std::optional<std::int64_t> log_interval) {
  if (raw.empty())
    throw InputError(file, "no per-step training_log lines ('iteration k/ N | ...') found",
                     "give the run's full stdout/stderr log, written with --log-interval 1");
  StepLog log;
  log.file = file;
  log.format = format;
  log.train_iters = raw.front().it.train_iters;
  // Megatron prints a line every `log_interval` iterations. The interval is the argument dump's when known,
  // else the smallest gap between consecutive lines; a larger gap means lines (and steps) are missing, which
  // the measurement then reports by step, rather than a longer interval being assumed.
  std::int64_t interval = log_interval.value_or(0);
  for (std::size_t r = 1; r < raw.size(); ++r) {
    std::int64_t gap = raw[r].it.iteration - raw[r - 1].it.iteration;
    if (gap <= 0)
      throw InputError(fmt::format("{}:{}", file, raw[r].line),
                       fmt::format("iteration {} does not follow iteration {} (line {})", raw[r].it.iteration,
                                   raw[r - 1].it.iteration, raw[r - 1].line),
                       "give the log of one run only, without restarts or lines from several ranks");
    if (!log_interval && (interval == 0 || gap < interval)) interval = gap;
  }
  if (interval <= 0) interval = raw.front().it.iteration;  // one line and no dump: it covers the whole run
  for (std::size_t r = 0; r < raw.size(); ++r) {
    const auto& it = raw[r].it;
    std::string where = fmt::format("{}:{}", file, raw[r].line);
    if (it.train_iters != *log.train_iters)
      throw InputError(where, fmt::format("this line says the run has {} iterations, an earlier line said {}",
                                          it.train_iters, *log.train_iters),
                       "give the log of one run only");
    if (it.iteration < 1) throw InputError(where, "iteration number must be at least 1");
    std::int64_t k = std::min<std::int64_t>(interval, it.iteration);
    if (!it.elapsed_ms)
      throw InputError(where, "training_log line has no 'elapsed time per iteration (ms)'",
                       "the log is truncated or not a Megatron-LM training log");
    if (it.skipped < 0 || it.nan < 0 || it.skipped > k || it.nan > k)
      throw InputError(where, fmt::format("skipped ({}) or nan ({}) iterations out of range for an interval of {}",
                                          it.skipped, it.nan, k));
    StepRecord rec;
    rec.first_step = it.iteration - k;  // iterations [it-k+1, it] are steps [it-k, it-1]
    rec.steps = k;
    rec.time_s = *it.elapsed_ms / 1000.0;
    rec.rows = it.global_batch;
    rec.loss = it.loss;
    rec.skipped = it.skipped;
    rec.nan = it.nan;
    rec.line = raw[r].line;
    log.records.push_back(rec);
  }
  return log;
}

}  // namespace

StepLog parse_megatron_log(std::string_view text, const std::string& file, std::optional<std::int64_t> log_interval) {
  std::vector<RawLine> raw;
  auto lines = lines_of(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::int64_t k = 0, n = 0;
    auto at = match_iteration_head(lines[i], k, n);
    if (at == std::string_view::npos) continue;
    std::string where = fmt::format("{}:{}", file, i + 1);
    raw.push_back({parse_iteration_fields(lines[i].substr(at), where, k, n), i + 1});
  }
  return assemble(raw, file, "megatron", log_interval);
}

StepLog parse_megatron_bridge_log(std::string_view text, const std::string& file,
                                  std::optional<std::int64_t> log_interval) {
  std::vector<RawLine> raw;
  double pending = 0;  // the last Step Time not yet given to an iteration line (valid when pending_line > 0)
  std::size_t pending_line = 0;
  auto lines = lines_of(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    std::string where = fmt::format("{}:{}", file, i + 1);
    if (auto p = line.find("Step Time :"); p != std::string_view::npos) {
      std::string_view rest = trim(line.substr(p + 11));
      std::size_t e = 0;
      while (e < rest.size() && (is_digit(rest[e]) || rest[e] == '.')) ++e;
      auto v = parse_double(rest.substr(0, e));
      if (!v || e >= rest.size() || rest[e] != 's')
        throw InputError(where, "malformed 'Step Time : <seconds>s' line: " + quote_for_message(line),
                         "the log is truncated or not a Megatron-Bridge log");
      if (pending_line)
        throw InputError(where, fmt::format("two Step Time lines (lines {} and {}) with no iteration line between",
                                            pending_line, i + 1));
      pending = *v;
      pending_line = i + 1;
      continue;
    }
    std::int64_t k = 0, n = 0;
    auto at = match_iteration_head(line, k, n);
    if (at == std::string_view::npos) continue;
    auto it = parse_iteration_fields(line.substr(at), where, k, n);
    if (!pending_line)
      throw InputError(where, fmt::format("iteration {} has no 'Step Time : x.xxs' line before it", k),
                       "give the full Megatron-Bridge log, or read it with format 'megatron'");
    it.elapsed_ms = pending * 1000.0;
    pending_line = 0;
    raw.push_back({it, i + 1});
  }
  auto log = assemble(raw, file, "megatron-bridge", log_interval);
  return log;
}

}  // namespace openrecipes::evidence
