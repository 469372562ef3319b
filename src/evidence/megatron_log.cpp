// Megatron-LM and Megatron-Bridge training_log parsers (SPEC §2 "Step records").
#include "evidence/megatron_log.h"

#include <cctype>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/error.h"
#include "core/text.h"
#include "evidence/calendar_time.h"
#include "evidence/step_log.h"

namespace openrecipes::evidence {
namespace {

struct IterationLine {
  std::int64_t iteration = 0;
  std::int64_t train_iters = 0;
  std::optional<double> elapsed_ms;
  std::optional<std::int64_t> global_batch;
  std::optional<double> learning_rate;
  std::optional<double> loss;
  std::optional<double> grad_norm;
  std::int64_t skipped = 0, nan = 0;
  std::optional<CalendarTime> stamp;  ///< the line's "[YYYY-MM-DD HH:MM:SS(.ffffff)]", when it has one
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Where "iteration <spaces> k/ <spaces> N |" sits in a line: `head` is the offset of "iteration", `after` the
// offset of the '|' after N (npos: no such text). `k_text`/`n_text` are the digit runs as printed.
struct IterationHead {
  std::size_t head = std::string_view::npos, after = std::string_view::npos;
  std::string_view k_text, n_text;
};

IterationHead match_iteration_head(std::string_view line) {
  std::size_t pos = 0;
  while ((pos = line.find("iteration", pos)) != std::string_view::npos) {
    std::size_t head = pos;
    std::size_t i = pos + 9;
    pos += 9;
    std::size_t sp = i;
    while (i < line.size() && line[i] == ' ') ++i;
    if (i == sp) continue;
    std::size_t ds = i;
    while (i < line.size() && is_digit(line[i])) ++i;
    if (i == ds || i >= line.size() || line[i] != '/') continue;
    std::string_view kt = line.substr(ds, i - ds);
    ++i;
    while (i < line.size() && line[i] == ' ') ++i;
    std::size_t ns = i;
    while (i < line.size() && is_digit(line[i])) ++i;
    if (i == ns) continue;
    std::string_view nt = line.substr(ns, i - ns);
    std::size_t j = i;
    while (j < line.size() && line[j] == ' ') ++j;
    if (j >= line.size() || line[j] != '|') continue;
    return {head, j, kt, nt};
  }
  return {};
}

// The "[YYYY-MM-DD HH:MM:SS(.ffffff)]" just before "iteration" (Megatron's training_log prefix), if any. A
// bracket of that shape holding a date that does not exist is an error; other brackets are not timestamps.
std::optional<CalendarTime> stamp_before(std::string_view line, std::size_t head, const std::string& where) {
  std::string_view before = line.substr(0, head);
  while (!before.empty() && before.back() == ' ') before.remove_suffix(1);
  if (before.empty() || before.back() != ']') return std::nullopt;
  auto open = before.rfind('[');
  if (open == std::string_view::npos) return std::nullopt;
  std::string_view inner = before.substr(open + 1, before.size() - open - 2);
  const char* why = "";
  auto t = parse_calendar_time(inner, ' ', &why);
  if (!t && std::string_view(why) == "not a date or time of day")
    throw InputError(where, fmt::format("timestamp {} is not a date or time of day", quote_for_message(inner)),
                     "the log is edited or damaged; give the run's own unedited log");
  return t;
}

IterationLine parse_iteration_fields(std::string_view rest, const std::string& where, std::int64_t k, std::int64_t n) {
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
      if (!v)
        throw InputError(where, fmt::format("'{}' is not a number: {}", what, quote_for_message(value)),
                         "the log is edited or damaged; give the run's own unedited log");
      return *v;
    };
    auto need_int = [&](std::string_view what) {
      auto v = parse_int(value);
      if (!v)
        throw InputError(where,
                         fmt::format("'{}' is not an integer (or is beyond 2^63): {}", what, quote_for_message(value)),
                         "the log is edited or damaged; give the run's own unedited log");
      return *v;
    };
    if (name == "elapsed time per iteration (ms)")
      it.elapsed_ms = need_double(name);
    else if (name == "global batch size")
      it.global_batch = need_int(name);
    else if (name == "lm loss")
      it.loss = need_double(name);
    else if (name == "learning rate")
      it.learning_rate = need_double(name);
    else if (name == "grad norm")
      it.grad_norm = need_double(name);
    else if (name == "number of skipped iterations")
      it.skipped = need_int(name);
    else if (name == "number of nan iterations")
      it.nan = need_int(name);
  }
  return it;
}

struct RawLine {
  IterationLine it;
  std::size_t line;
  bool pause_before = false;  ///< an evaluation or a checkpoint save is logged since the previous iteration line
};

// Megatron stops its 'interval-time' timer around evaluation (evaluate_and_print_results) and checkpoint saves
// (save_checkpoint_and_time), so the wall clock runs on while the step times do not. Their log lines mark
// where the timestamps may legitimately run ahead of the step times.
bool is_pause_line(std::string_view line) {
  return line.find("validation loss at") != std::string_view::npos ||
         line.find("saving checkpoint at iteration") != std::string_view::npos ||
         line.find("successfully saved checkpoint") != std::string_view::npos;
}

// Agreement between the log's clock and its step times. Two timestamps `dt` seconds apart must agree with the
// step time × iterations between them (`sum` seconds) within
//   kClockRelative × max(dt, sum) + the timestamps' resolution + kClockSlackS.
// Measured on the real fixture logs (fixtures/runs/megatron-h200/{ref,mbs2,lr10}.log, microsecond stamps,
// --log-interval 1; fixtures/logs/{mdk-gpt3-7b-fp16-1node,seo-dense-0.2b-a100,seo-moe64-top1-ep4-a100}.log,
// 1 s stamps, intervals 10 and 20): every line after the second agrees to < 1 ms; the worst line is the first
// interval after start-up (iteration 2 of ref.log: stamps 4.765 s apart, elapsed 5.972 s, off by 1.207 s, 20%;
// mbs2.log: 2.582 s vs 3.539 s, off by 0.956 s); over the whole logged span the worst is ref.log (99.744 s vs
// 100.950 s, 1.2%) and, for 1 s stamps, mdk (1087 s vs 1087.649 s). A 0.5 s slack would reject ref.log's first
// interval (bound 1.097 s), so the slack is 1.5 s: the worst real line uses 58% of its bound (2.097 s).
//
// One more allowance, found on a real run (the bundled qwen3-0.6b/H200/tulu3-ref, Megatron-LM d98e8a64 on one H200,
// 2026-12-02): step times may exceed the clock by up to the previous line's own step time. Megatron reads its
// interval timer (training.py training_log, `timers('interval-time').elapsed(barrier=True)`) before it stamps the
// line, and in between it reads the losses back from the GPU, so the stamp waits until the GPU has drained the
// work the CPU queued ahead; the timer, restarted at the read, counts that drain in the next interval. On the first
// logged step the drain is long: iteration 1 stamped 01:24:59.518 (5458.3 ms), iteration 2 stamped 1.715 s later
// with 3586.8 ms, 1.872 s more than the clock (beyond 10% + 1.5 s). The drain is work of the previous step, so it is
// at most that step's time; and since it only moves time from one interval to the next, the span check keeps its
// total honest. The clock running ahead of the step times (a shortened step time) gets no such allowance.
constexpr double kClockRelative = 0.10;
constexpr double kClockSlackS = 1.5;

// Cross-checks timestamps against elapsed times (see above). Lines with sub-second stamps are checked pair by
// pair; the span from the first to the last stamped line is checked always (the only check for 1 s stamps,
// whose per-line differences are dominated by rounding). Spans holding an elapsed time that is not a positive
// number are left to the measurement, which names the bad step.
void check_clock(const std::vector<RawLine>& raw, const std::string& file) {
  // prefix[r]: seconds of training from raw[0] to raw[r] by the elapsed times; bad[r]: how many of those
  // lines have a time that is not a positive number (those spans are not checked).
  std::vector<double> prefix(raw.size(), 0.0);
  std::vector<std::size_t> bad(raw.size(), 0), pauses(raw.size(), 0);
  for (std::size_t r = 1; r < raw.size(); ++r) {
    pauses[r] = pauses[r - 1] + (raw[r].pause_before ? 1 : 0);
    double ms = *raw[r].it.elapsed_ms;
    bool usable = std::isfinite(ms) && ms > 0;
    bad[r] = bad[r - 1] + (usable ? 0 : 1);
    prefix[r] = prefix[r - 1] +
                (usable ? ms / 1000.0 * static_cast<double>(raw[r].it.iteration - raw[r - 1].it.iteration) : 0.0);
  }
  // With an evaluation or checkpoint save in between (`paused`), the wall clock may run ahead of the step times
  // by any amount; step times that exceed the wall clock are still impossible.
  // `drain`: the step time of the line the span starts at (seconds), which may be counted twice (see above).
  auto agree = [](double dt, double sum, double resolution, bool paused, double drain) {
    const double bound = kClockRelative * std::max(std::fabs(dt), std::fabs(sum)) + resolution + kClockSlackS;
    return sum - dt <= bound + drain && (paused || dt - sum <= bound);
  };
  auto step_s = [&](std::size_t r) {
    const double ms = raw[r].it.elapsed_ms ? *raw[r].it.elapsed_ms : 0.0;
    return std::isfinite(ms) && ms > 0 ? ms / 1000.0 : 0.0;
  };
  auto fix = "the elapsed times or the timestamps were edited; give the run's own unedited log";
  std::optional<std::size_t> first, prev;
  for (std::size_t r = 0; r < raw.size(); ++r) {
    if (!raw[r].it.stamp) continue;
    if (!first) first = r;
    if (prev) {
      const auto& a = *raw[*prev].it.stamp;
      const auto& b = *raw[r].it.stamp;
      double dt = b.seconds - a.seconds, sum = prefix[r] - prefix[*prev];
      double resolution = std::max(a.resolution_s, b.resolution_s);
      if (resolution < 1 && bad[r] == bad[*prev] &&
          !agree(dt, sum, resolution, pauses[r] != pauses[*prev], step_s(*prev)))
        throw InputError(fmt::format("{}:{}", file, raw[r].line),
                         fmt::format("the timestamps say {:.3f} s passed since line {} (iteration {}), but the "
                                     "step times say {:.3f} s ({} x {} ms); they must agree within "
                                     "10% + {:.1f} s (the step times may run ahead by the previous line's step time "
                                     "more)",
                                     dt, raw[*prev].line, raw[*prev].it.iteration, sum,
                                     counted(raw[r].it.iteration - raw[*prev].it.iteration, "iteration"),
                                     format_double(*raw[r].it.elapsed_ms), kClockSlackS + resolution),
                         fix);
    }
    prev = r;
  }
  if (!first || *prev == *first) return;
  const auto& a = *raw[*first].it.stamp;
  const auto& b = *raw[*prev].it.stamp;
  double dt = b.seconds - a.seconds, sum = prefix[*prev] - prefix[*first];
  double resolution = std::max(a.resolution_s, b.resolution_s);
  if (bad[*prev] == bad[*first] && std::isfinite(sum) &&
      !agree(dt, sum, resolution, pauses[*prev] != pauses[*first], step_s(*first)))
    throw InputError(fmt::format("{}:{}", file, raw[*prev].line),
                     fmt::format("the timestamps say {:.3f} s passed from line {} (iteration {}) to line {} "
                                 "(iteration {}), but the step times in between sum to {:.3f} s; they must agree "
                                 "within 10% + {:.1f} s",
                                 dt, raw[*first].line, raw[*first].it.iteration, raw[*prev].line,
                                 raw[*prev].it.iteration, sum, kClockSlackS + resolution),
                     fix);
}

// The --format that `text` looks written in, when it is not `format` (a user's likely slip: a golden-values file, a
// slime log or a JSON Lines step file given as a Megatron-LM log); "" when it looks like none of them.
std::string other_format(std::string_view text, const std::string& format) {
  const std::string_view head = text.substr(0, 1 << 16);
  const auto first = head.find_first_not_of(" \t\r\n");
  const char lead = first == std::string_view::npos ? '\0' : head[first];
  if (lead == '{' && head.find("\"lm loss\"") != std::string_view::npos) return "golden-values";
  if (lead == '{' && head.find("\"step\"") != std::string_view::npos) return "steps-jsonl";
  if (head.find("'train/loss'") != std::string_view::npos) return "slime (or miles)";
  if (format == "megatron" && head.find("Step Time") != std::string_view::npos) return "megatron-bridge";
  if (format == "megatron-bridge" && head.find("elapsed time per iteration (ms)") != std::string_view::npos)
    return "megatron";
  return "";
}

StepLog assemble(std::vector<RawLine>& raw, const std::string& file, const std::string& format,
                 std::optional<std::int64_t> log_interval, std::string_view text) {
  if (raw.empty()) {
    const std::string other = other_format(text, format);
    throw InputError(file, "no per-step training_log lines ('iteration k/ N | ...') found",
                     other.empty()
                         ? "give the run's full stdout/stderr log, written with --log-interval 1"
                         : "it looks like a " + other + " file: give --format " + other.substr(0, other.find(' ')) +
                               " (--reference-format for a reference arm), or the run's full log");
  }
  StepLog log;
  log.file = file;
  log.format = format;
  log.time_field = format == "megatron-bridge" ? "Step Time" : "elapsed time per iteration (ms)";
  log.train_iters = raw.front().it.train_iters;
  for (const auto& r : raw) {
    std::string where = fmt::format("{}:{}", file, r.line);
    if (r.it.train_iters != *log.train_iters)
      throw InputError(where,
                       fmt::format("this line says the run has {} iterations, an earlier line said {}",
                                   r.it.train_iters, *log.train_iters),
                       "give the log of one run only");
    if (r.it.iteration < 1)
      throw InputError(where, fmt::format("iteration number must be at least 1 (this line says {})", r.it.iteration),
                       "Megatron counts iterations from 1; give the run's own unedited log");
    if (r.it.iteration > r.it.train_iters)
      throw InputError(where,
                       fmt::format("iteration {} is beyond the run's length ('{}/ {}')", r.it.iteration, r.it.iteration,
                                   r.it.train_iters),
                       "Megatron stops at --train-iters; give the log of one run only, unedited");
    if (!r.it.elapsed_ms)
      throw InputError(where, "training_log line has no 'elapsed time per iteration (ms)'",
                       "the log is truncated or not a Megatron-LM training log");
    if (*r.it.elapsed_ms > 0 && *r.it.elapsed_ms / 1000.0 < kMinStepTimeS)
      throw InputError(
          where,
          fmt::format("step time {} ms is below 1 ms; no training step is that fast", format_double(*r.it.elapsed_ms)),
          "the step times were edited or damaged; give the run's own unedited log");
  }
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
  check_clock(raw, file);
  for (std::size_t r = 0; r < raw.size(); ++r) {
    const auto& it = raw[r].it;
    std::string where = fmt::format("{}:{}", file, raw[r].line);
    std::int64_t k = std::min<std::int64_t>(interval, it.iteration);
    if (it.skipped < 0 || it.nan < 0 || it.skipped > k || it.nan > k)
      throw InputError(
          where,
          fmt::format("skipped ({}) or nan ({}) iterations out of range for an interval of {}", it.skipped, it.nan, k),
          "the log is edited or damaged; give the run's own unedited log");
    StepRecord rec;
    rec.first_step = it.iteration - k;  // iterations [it-k+1, it] are steps [it-k, it-1]
    rec.steps = k;
    rec.time_s = *it.elapsed_ms / 1000.0;
    rec.rows = it.global_batch;
    rec.loss = it.loss;
    rec.learning_rate = it.learning_rate;
    rec.grad_norm = it.grad_norm;
    rec.skipped = it.skipped;
    rec.nan = it.nan;
    rec.line = raw[r].line;
    log.records.push_back(rec);
  }
  return log;
}

// Reads the iteration head of line `i` (1-based `i + 1` in messages) into an IterationLine, or nullopt when
// the line is not a training_log line. Iteration numbers too large to be a count are an error, not a skip.
std::optional<IterationLine> read_iteration_line(std::string_view line, const std::string& where) {
  auto h = match_iteration_head(line);
  if (h.after == std::string_view::npos) return std::nullopt;
  auto k = parse_int(h.k_text), n = parse_int(h.n_text);
  if (!k || !n)
    throw InputError(where,
                     fmt::format("iteration {} is beyond any run length (2^63)",
                                 quote_for_message(std::string(h.k_text) + "/ " + std::string(h.n_text), 60)),
                     "the log is edited or damaged; give the run's own unedited log");
  auto it = parse_iteration_fields(line.substr(h.after), where, *k, *n);
  it.stamp = stamp_before(line, h.head, where);
  return it;
}

}  // namespace

StepLog parse_megatron_log(std::string_view text, const std::string& file, std::optional<std::int64_t> log_interval) {
  std::vector<RawLine> raw;
  auto lines = lines_of(text);
  bool paused = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string where = fmt::format("{}:{}", file, i + 1);
    if (auto it = read_iteration_line(lines[i], where)) {
      raw.push_back({*it, i + 1, paused});
      paused = false;
    } else if (is_pause_line(lines[i])) {
      paused = true;
    }
  }
  return assemble(raw, file, "megatron", log_interval, text);
}

StepLog parse_megatron_bridge_log(std::string_view text, const std::string& file,
                                  std::optional<std::int64_t> log_interval) {
  std::vector<RawLine> raw;
  double pending = 0;   // the last Step Time not yet given to an iteration line (valid when pending_line > 0)
  bool paused = false;  // an evaluation or checkpoint save logged since the last iteration line
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
        throw InputError(
            where,
            fmt::format("two Step Time lines (lines {} and {}) with no iteration line between", pending_line, i + 1),
            "give the log of one run only, unedited");
      pending = *v;
      pending_line = i + 1;
      continue;
    }
    auto it = read_iteration_line(line, where);
    if (!it) {
      paused = paused || is_pause_line(line);
      continue;
    }
    if (!pending_line)
      throw InputError(where, fmt::format("iteration {} has no 'Step Time : x.xxs' line before it", it->iteration),
                       "give the full Megatron-Bridge log, or read it with format 'megatron'");
    // Both clocks time the same iteration: Step Time is printed with 2 decimals, so they agree within that
    // rounding (0.005 s) plus 5% of the elapsed time.
    if (it->elapsed_ms && std::isfinite(*it->elapsed_ms)) {
      double elapsed_s = *it->elapsed_ms / 1000.0;
      if (!(std::fabs(pending - elapsed_s) <= 0.005 + 0.05 * std::fabs(elapsed_s)))
        throw InputError(where,
                         fmt::format("'Step Time : {}s' (line {}) contradicts this line's 'elapsed time per "
                                     "iteration (ms): {}'; they must agree within 0.005 s + 5%",
                                     format_double(pending), pending_line, format_double(*it->elapsed_ms)),
                         "the step times were edited; give the run's own unedited log");
    }
    it->elapsed_ms = pending * 1000.0;
    pending_line = 0;
    raw.push_back({*it, i + 1, paused});
    paused = false;
  }
  return assemble(raw, file, "megatron-bridge", log_interval, text);
}

}  // namespace openrecipes::evidence
