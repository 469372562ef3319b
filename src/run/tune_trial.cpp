// One trial of `openrecipes tune`: run, watched, scored and classed (run/tune_trial.h).
#include "run/tune_trial.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <thread>

#include "core/error.h"
#include "core/files.h"
#include "core/text.h"
#include "evidence/megatron_memory.h"
#include "evidence/step_log.h"
#include "layout/planner.h"
#include "run/node.h"

namespace openrecipes::run {
namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The step records a trial's log text holds so far (its text up to the last full line); none while it does not parse.
std::vector<StepRecord> records_in(std::string_view text, const fs::path& log) {
  const auto end = text.rfind('\n');
  try {
    return evidence::parse_step_log(text.substr(0, end == std::string_view::npos ? 0 : end + 1), "megatron",
                                    std::nullopt, log.string())
        .records;
  } catch (const InputError&) {
    return {};
  }
}

// The same, read from the log file (none while it is not there).
std::vector<StepRecord> records_so_far(const fs::path& log) {
  std::error_code ec;
  if (!fs::is_regular_file(log, ec)) return {};
  try {
    return records_in(read_file(log, std::size_t{64} << 20), log);
  } catch (const InputError&) {
    return {};
  }
}

// The score over steps [first, last] of `records`, when they are all there and measurable.
std::optional<measure::Throughput> score_of(const std::vector<StepRecord>& records, const std::string& file,
                                            std::int64_t first, std::int64_t last, const measure::StepShape& shape) {
  if (last < first + 1) return std::nullopt;
  StepLog log;
  log.file = file;
  log.format = "megatron";
  log.records = records;
  try {
    return measure::measure_throughput(log, {first, last}, shape);
  } catch (const InputError&) {
    return std::nullopt;
  }
}

std::int64_t last_step_seen(const std::vector<StepRecord>& records) {
  std::int64_t last = -1;
  for (const auto& r : records) last = std::max(last, r.last_step());
  return last;
}

bool is_oom(const std::string& log) {
  // PyTorch's "CUDA out of memory" (torch.OutOfMemoryError), cuBLAS's failed workspace allocation.
  static const std::vector<std::string> marks = {"out of memory", "OutOfMemoryError", "CUBLAS_STATUS_ALLOC_FAILED"};
  return std::any_of(marks.begin(), marks.end(), [&](const auto& m) { return log.find(m) != std::string::npos; });
}

// The last line of a failed log that names an error, for the trial's reason.
std::string last_error_line(const std::string& log) {
  std::string found;
  for (auto line : lines_of(log))
    if (line.find("Error") != std::string_view::npos || line.find("error:") != std::string_view::npos)
      found = std::string(trim(line));
  if (found.size() > 200) found = found.substr(0, 200) + "...";
  return terminal_safe(found, false);
}

// Watches a running trial's log: cuts it when its interval falls below the best's, or at the budget's deadline.
class TrialWatch {
 public:
  TrialWatch(fs::path log, std::int64_t warmup, std::int64_t last_step, measure::StepShape shape,
             std::optional<measure::ScoreInterval> best, Clock::time_point deadline)
      : log_(std::move(log)),
        warmup_(warmup),
        last_(last_step),
        shape_(shape),
        best_(best),
        deadline_(deadline),
        thread_([this] { loop(); }) {}
  ~TrialWatch() {
    done_ = true;
    thread_.join();
  }
  TrialWatch(const TrialWatch&) = delete;
  TrialWatch& operator=(const TrialWatch&) = delete;
  volatile std::sig_atomic_t stop = 0;
  std::optional<TrialOutcome> cut_outcome() {
    std::lock_guard<std::mutex> g(m_);
    return outcome_;
  }
  std::string cut_reason() {
    std::lock_guard<std::mutex> g(m_);
    return reason_;
  }
  std::optional<double> first_step_s() {
    std::lock_guard<std::mutex> g(m_);
    return first_step_s_;
  }

 private:
  void cut(TrialOutcome outcome, const std::string& reason) {
    std::lock_guard<std::mutex> g(m_);
    if (outcome_) return;
    outcome_ = outcome;
    reason_ = reason;
    stop = 1;
  }
  void loop() {
    const auto started = Clock::now();
    while (!done_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
      if (g_stop_requested) {
        cut(TrialOutcome::interrupted, "stopped by a signal");
        continue;
      }
      if (Clock::now() > deadline_) cut(TrialOutcome::cut_budget, "the budget ran out during the trial");
      const auto records = records_so_far(log_);
      const std::int64_t seen = std::min(last_step_seen(records), last_);
      if (seen >= 0) {
        std::lock_guard<std::mutex> g(m_);
        if (!first_step_s_) first_step_s_ = seconds_since(started);
      }
      if (!best_ || seen - warmup_ + 1 < 3 || seen >= last_) continue;
      if (auto s = score_of(records, log_.string(), warmup_, seen, shape_);
          s && measure::interval_falls_short(s->interval, *best_))
        cut(TrialOutcome::cut_slower,
            fmt::format(
                "after {} measured steps its 95% interval ends at {} tokens/s/GPU, more than {:g}% below the best's {}",
                seen - warmup_ + 1, with_thousands(s->interval.score_high, 1), measure::kCutMargin * 100,
                with_thousands(best_->score_low, 1)));
    }
  }
  fs::path log_;
  std::int64_t warmup_, last_;
  measure::StepShape shape_;
  std::optional<measure::ScoreInterval> best_;
  Clock::time_point deadline_;
  std::mutex m_;
  std::optional<TrialOutcome> outcome_;
  std::string reason_;
  std::optional<double> first_step_s_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace

TuneTrial run_trial(const TrialSetup& q) {
  TuneTrial t;
  t.run_dir = q.run.run_dir.string();
  const std::int64_t trial_iters = q.run.trial_iters;
  const auto trial_start = Clock::now();
  try {
    const RunPlan plan = make_plan(q.run);
    const fs::path log = fs::path(plan.run_dir) / step_log_file(plan.mode, plan.nodes);
    RunRecord rec;
    std::optional<TrialOutcome> cut_outcome;
    std::string cut_reason;
    {
      TrialWatch watch(log, q.warmup_steps, trial_iters - 1, q.shape, q.best, q.deadline);
      ExecuteOptions eo = q.execute;
      eo.echo = false;
      eo.slurm.echo = false;
      eo.stop = &watch.stop;
      eo.stopped_by = "openrecipes tune";
      rec = execute_run(plan, eo);
      cut_outcome = watch.cut_outcome();
      cut_reason = watch.cut_reason();
      t.startup_s = watch.first_step_s();
    }
    t.wall_s = seconds_since(trial_start);
    const std::string text = read_file(log, std::size_t{64} << 20);
    const auto records = records_in(text, log);
    const std::int64_t seen = std::min(last_step_seen(records), trial_iters - 1);
    if (auto s = score_of(records, log.string(), q.warmup_steps, seen, q.shape)) {
      t.steps_measured = seen - q.warmup_steps + 1;
      t.interval = s->interval;
      t.tokens_per_s_per_gpu = s->tokens_per_s_per_gpu;
    }
    try {
      if (auto m = evidence::parse_megatron_memory(text, log.string())) t.measured_peak_mib = m->max_allocated_mib;
    } catch (const InputError&) {
    }
    if (rec.status == "completed" && t.steps_measured == q.trial_steps) {
      t.outcome = TrialOutcome::measured;
    } else if (cut_outcome) {
      t.outcome = *cut_outcome;
      t.reason = cut_reason;
    } else if (is_oom(text)) {
      t.outcome = TrialOutcome::oom;
      t.reason = last_error_line(text);
    } else {
      t.outcome = TrialOutcome::crashed;
      t.reason = rec.reason + (last_error_line(text).empty() ? "" : ": " + last_error_line(text));
    }
  } catch (const InputError& e) {
    t.outcome = TrialOutcome::refused;
    t.reason = e.what();
    t.wall_s = seconds_since(trial_start);
  }
  return t;
}

std::string planner_verdict(const TuneTrial& t, double predicted_mib, bool fits, double memory_mib) {
  if (t.outcome == TrialOutcome::oom)
    return fits ? fmt::format("wrong: it predicted {} MiB, within the usable {} MiB", mib_text(predicted_mib),
                              mib_text(layout::usable_memory_mib(memory_mib)))
                : "right: it predicted no fit";
  if (t.measured_peak_mib)
    return fmt::format("{} fits; predicted {} MiB, measured {} MiB ({:+.1f}%)", fits ? "right:" : "wrong: ran, yet",
                       mib_text(predicted_mib), mib_text(*t.measured_peak_mib),
                       (predicted_mib / *t.measured_peak_mib - 1) * 100);
  return "";
}

std::string mib_text(double mib) { return with_thousands(static_cast<std::int64_t>(std::llround(mib))); }

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

}  // namespace openrecipes::run
