// `openrecipes measure <log>`: one stage alone — the score and CV of a training log over the measured window
// (SPEC §2). GPU count, row length and global batch come from the log's argument dump when it has one.
#include <cmath>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "core/error.h"
#include "core/files.h"
#include "core/protocol.h"
#include "core/text.h"
#include "evidence/megatron_args.h"
#include "evidence/step_log.h"
#include "measure/throughput.h"
#include "site/format.h"

namespace openrecipes::cli {
namespace {

struct MeasureOptions {
  std::string log, format = "megatron";
  std::int64_t gpus = 0, row_length = 0, global_batch = 0, steps_per_run = 0;
  std::string window;
  bool json = false;
};

std::optional<std::int64_t> dump_int(const std::optional<evidence::ArgumentDump>& d, const char* name) {
  if (!d) return std::nullopt;
  auto it = d->values.find(name);
  return it == d->values.end() ? std::nullopt : parse_int(it->second);
}

// Bounds of the numeric options: those of the recipe format (docs/recipe-format.md: gpus 1..100000,
// steps_per_run 1..100000, global_batch 1..2^24) and the longest row `rows build` writes (protocol::kMaxRowLength).
struct Bound {
  const char* option;
  std::int64_t min, max;
};
constexpr Bound kGpus{"--gpus", 1, 100000};
constexpr Bound kRowLength{"--row-length", 1, protocol::kMaxRowLength};
constexpr Bound kGlobalBatch{"--global-batch", 1, 1 << 24};
constexpr Bound kStepsPerRun{"--steps-per-run", 1, 100000};

// The value of an option the user gave (count() > 0), checked against its bound; nullopt when not given.
std::optional<std::int64_t> given(const CLI::Option* opt, std::int64_t value, const Bound& b) {
  if (opt->count() == 0) return std::nullopt;
  if (value < b.min || value > b.max)
    throw InputError(b.option, fmt::format("{} is out of range", value),
                     fmt::format("give a whole number from {} to {}", b.min, b.max));
  return value;
}

// The options a user gave, each checked against its bound (nullopt: not given).
struct GivenOptions {
  std::optional<std::int64_t> gpus, row_length, global_batch, steps_per_run;
  std::optional<measure::Window> window;
};

// What the score is computed with: the options, else the log's own argument dump and step lines (SPEC §2).
struct RunFacts {
  std::int64_t gpus = 0, row_length = 0, global_batch = 0, steps = 0;
  std::string row_source;
};

// --window FIRST-LAST; throws InputError naming --window for anything else.
measure::Window parse_window(const std::string& text) {
  auto parts = split(text, '-');
  auto a = parts.size() == 2 ? parse_int(parts[0]) : std::nullopt;
  auto b = parts.size() == 2 ? parse_int(parts[1]) : std::nullopt;
  if (!a || !b)
    throw InputError("--window", fmt::format("{} is not FIRST-LAST", quote_for_message(text)),
                     "give two 0-based step numbers, e.g. --window 5-19");
  if (*a > *b)  // reversed, not out of range: say so, and the window it likely means
    throw InputError("--window", fmt::format("FIRST {} comes after LAST {}", *a, *b),
                     fmt::format("give the first step first: --window {}-{}", *b, *a));
  return measure::Window{*a, *b};
}

// The GPU count, row length and global batch: an option that contradicts what the run recorded is refused, naming
// both values (the score would be of another run than the log's).
void resolve_shape(const MeasureOptions& o, const GivenOptions& g, const std::optional<evidence::ArgumentDump>& dump,
                   const StepLog& log, RunFacts& f) {
  const auto dump_gpus = dump ? evidence::gpu_count_of(*dump) : std::nullopt;
  const auto dump_batch = dump_int(dump, "global_batch_size");
  f.gpus = g.gpus.value_or(dump_gpus.value_or(0));
  if (f.gpus < 1) throw InputError(o.log, "the GPU count is not in the log", "pass --gpus N");
  if (f.gpus > kGpus.max)
    throw InputError(o.log, fmt::format("the argument dump gives {} GPUs, beyond {}", f.gpus, kGpus.max),
                     "give the run's own unedited log, or pass --gpus N");
  auto contradicts = [&](const char* option, std::optional<std::int64_t> flag, std::optional<std::int64_t> recorded,
                         const char* what) {
    if (flag && recorded && *flag != *recorded)
      throw InputError(option,
                       fmt::format("{} {}, but the log's argument dump records {} {}", option, *flag, what, *recorded),
                       fmt::format("leave {} out (the run's own {} is used), or measure the log of the run "
                                   "you mean",
                                   option, what));
  };
  contradicts("--gpus", g.gpus, dump_gpus, "world_size");
  // slime and miles print a placeholder seq_length (4096 when unset, notes/slime.md §4.2): the rows their
  // plugin feeds are the protocol's unless --row-length says otherwise, and measure says it assumed so.
  const bool dump_has_row_length = o.format == "megatron" || o.format == "megatron-bridge";
  const auto dump_row = dump_has_row_length ? dump_int(dump, "seq_length") : std::nullopt;
  contradicts("--row-length", g.row_length, dump_row, "seq_length");
  contradicts("--global-batch", g.global_batch, dump_batch, "global_batch_size");
  f.row_source = g.row_length ? "--row-length" : "the argument dump's seq_length";
  if (!g.row_length && !dump_row) {
    if (dump_has_row_length)
      throw InputError(o.log,
                       "the log does not say how long its rows are (no seq_length in an argument dump), and "
                       "a score is only as right as the row length",
                       "pass --row-length L (the tokens in each row the run trained on)");
    f.row_source = fmt::format(
        "assumed: the protocol's L ({} prints no row length of its own); pass "
        "--row-length for another",
        o.format);
  }
  f.row_length = g.row_length.value_or(dump_row.value_or(protocol::kRowLength));
  f.global_batch = g.global_batch.value_or(dump_batch.value_or(0));
  if (!f.global_batch)
    for (const auto& r : log.records)
      if (r.rows) f.global_batch = *r.rows;
  if (!f.global_batch) f.global_batch = protocol::kGlobalBatch;
  if (f.row_length < 1 || f.global_batch < 1)
    throw InputError(o.log,
                     fmt::format("the log gives a row length of {} and a global batch of {}; both must be "
                                 "positive",
                                 f.row_length, f.global_batch),
                     "pass --row-length and --global-batch");
}

// The steps the run ran: --steps-per-run, which must agree with the log's 'iteration k/ N' or its dump's run length.
std::int64_t resolve_steps(const MeasureOptions& o, const GivenOptions& g,
                           const std::optional<evidence::ArgumentDump>& dump, const StepLog& log) {
  if (g.steps_per_run && log.train_iters && *g.steps_per_run != *log.train_iters)
    throw InputError("--steps-per-run",
                     fmt::format("{} steps, but the log says the run has {} ('iteration k/ {}')", *g.steps_per_run,
                                 *log.train_iters, *log.train_iters),
                     "leave --steps-per-run out: the log's own run length is used");
  // slime and miles print no 'iteration k/ N': their dump gives the run length (num_rollout and the batch).
  // 0: the dump gives none (a plain integer: GCC's -Wmaybe-uninitialized misreads an optional here at -O2)
  const std::int64_t dump_steps = !log.train_iters && dump ? evidence::run_steps_of(*dump).value_or(0) : 0;
  if (g.steps_per_run && dump_steps && *g.steps_per_run != dump_steps)
    throw InputError(
        "--steps-per-run",
        fmt::format("{} steps, but the log's argument dump gives a {}-step run", *g.steps_per_run, dump_steps),
        "leave --steps-per-run out: the log's own run length is used");
  const std::int64_t steps = g.steps_per_run.value_or(log.train_iters.value_or(dump_steps));
  if (!steps && dump && dump->values.count("num_rollout"))
    throw InputError(o.log,
                     "the argument dump's num_rollout, start_rollout_id, rollout_batch_size, "
                     "n_samples_per_prompt and global_batch_size give no run length (not positive whole "
                     "numbers, or beyond 2^30)",
                     "pass --steps-per-run");
  if (!steps) throw InputError(o.log, "the log does not say how many steps the run ran", "pass --steps-per-run");
  return steps;
}

void print_json(const MeasureOptions& o, const StepLog& log, const RunFacts& f, const measure::Window& window,
                const measure::Throughput& m) {
  nlohmann::json j{
      {"log", o.log},
      {"format", log.format},
      {"steps_per_run", f.steps},
      {"window", {window.first, window.last}},
      {"gpus", f.gpus},
      {"row_length", f.row_length},
      {"row_length_source", f.row_source},
      {"global_batch", f.global_batch},
      {"tokens_per_s_per_gpu", m.tokens_per_s_per_gpu},
      {"tokens_per_s_per_gpu_interval",
       {m.interval.score_low, m.interval.bounded() ? nlohmann::json(m.interval.score_high) : nlohmann::json(nullptr)}},
      {"interval_method", measure::kIntervalMethod},
      {"interval_steps", m.interval.n},
      {"t_quantile", m.interval.t_quantile},
      {"mean_step_time_s", m.mean_step_time_s},
      {"mean_step_time_half_width_s", m.interval.half_width_s},
      {"cv", m.cv},
      {"total_tokens", m.total_tokens},
      {"total_time_s", m.total_time_s},
      {"step_times_s", m.step_times_s},
      {"step_time_definition", evidence::step_time_definition(log.format, log.time_field)}};
  std::cout << j.dump(2) << "\n";
}

// The numbers as build prints them (site/format.h): one format for a score wherever it is shown.
void print_text(const MeasureOptions& o, const StepLog& log, const RunFacts& f, const measure::Window& window,
                const measure::Throughput& m) {
  std::cout << fmt::format("{}: {}-step run, window {} ({}), {}, {} rows x {} tokens per step\n", o.log, f.steps,
                           window.str(), counted(window.size(), "step"), counted(f.gpus, "GPU"),
                           with_thousands(f.global_batch), with_thousands(f.row_length));
  if (f.row_source.starts_with("assumed"))
    std::cout << fmt::format("  row length    {} {}\n", with_thousands(f.row_length), f.row_source);
  std::cout << fmt::format("  tokens/s/GPU  {}, 95% interval {}\n  step time     mean {:.4f} s ± {:.4f} s, CV {}\n",
                           site::format_tokens_per_s(m.tokens_per_s_per_gpu),
                           site::format_score_interval(m.interval.score_low, m.interval.score_high), m.mean_step_time_s,
                           m.interval.half_width_s, site::format_percent(m.cv));
  const auto method = wrap_words(fmt::format("{} (n = {}, t_0.975,{} = {:.4f})", measure::kIntervalMethod, m.interval.n,
                                             m.interval.n - 1, m.interval.t_quantile),
                                 104);
  for (std::size_t i = 0; i < method.size(); ++i)
    std::cout << (i ? "                " : "  interval is   ") << method[i] << "\n";
  const auto lines = wrap_words(evidence::step_time_definition(log.format, log.time_field), 104);
  for (std::size_t i = 0; i < lines.size(); ++i)
    std::cout << (i ? "                " : "  step time is  ") << lines[i] << "\n";
}

int measure_log(const MeasureOptions& o, const GivenOptions& g) {
  const std::string text = read_file(o.log);
  std::optional<evidence::ArgumentDump> dump;  // none: the options must say what it would have
  if (o.format != "steps-jsonl")               // slime and miles print Megatron's dump too (notes/slime.md §4.2)
    dump = evidence::find_megatron_args(text, o.log);
  const auto log =
      evidence::parse_step_log(text, o.format, dump ? evidence::log_interval_of(*dump) : std::nullopt, o.log);
  RunFacts f;
  resolve_shape(o, g, dump, log, f);
  f.steps = resolve_steps(o, g, dump, log);
  // Window problems name --window only when the user passed it; otherwise they are about the log's run.
  measure::Window window;
  try {
    window = measure::window_for_run(f.steps, g.window, g.window ? "--window" : o.log);
  } catch (const InputError& e) {
    if (g.window) throw;
    throw InputError(e.where(), e.problem(), "pass --window FIRST-LAST (0-based steps) to measure this run");
  }
  const auto m = measure::measure_throughput(log, window, {f.gpus, f.row_length, f.global_batch});
  if (!std::isfinite(m.tokens_per_s_per_gpu) || !std::isfinite(m.cv) || !std::isfinite(m.mean_step_time_s))
    throw InputError(o.log, "the step times give no finite score (tokens/s/GPU or CV is not a number)",
                     "the step times are damaged; give the run's own unedited log");
  if (o.json)
    print_json(o, log, f, window, m);
  else
    print_text(o, log, f, window, m);
  return 0;
}

const bool registered_measure = register_command(
    {"measure", "Score (tokens/s/GPU) and step-time CV of one training log over the measured window",
     [](CLI::App& app) {
       auto o = std::make_shared<MeasureOptions>();
       app.add_option("log", o->log, "Training log (or steps.jsonl)")->required();
       app.add_option("--format", o->format, "megatron, megatron-bridge, slime, miles or steps-jsonl")
           ->capture_default_str();
       auto* gpus_opt =
           app.add_option("--gpus", o->gpus, "GPU count, 1..100000 (default: the argument dump's world_size)");
       auto* row_opt = app.add_option(
           "--row-length", o->row_length,
           fmt::format("Tokens per row, 1..{} (default: the argument dump's seq_length; slime and miles print "
                       "none, so the protocol's {} is assumed and said; a Megatron log without a dump "
                       "needs it)",
                       protocol::kMaxRowLength, protocol::kRowLength));
       auto* gbs_opt =
           app.add_option("--global-batch", o->global_batch,
                          fmt::format("Rows per step (default: from the log, else {})", protocol::kGlobalBatch));
       auto* steps_opt =
           app.add_option("--steps-per-run", o->steps_per_run,
                          "Steps the run ran (default: from the log; must agree with the log's own count)");
       app.add_option("--window", o->window, "Measured window FIRST-LAST, for runs the protocol has no window for");
       app.add_flag("--json", o->json, "Machine-readable output");
       return [o, gpus_opt, row_opt, gbs_opt, steps_opt]() -> int {
         GivenOptions g;
         g.gpus = given(gpus_opt, o->gpus, kGpus);
         g.row_length = given(row_opt, o->row_length, kRowLength);
         g.global_batch = given(gbs_opt, o->global_batch, kGlobalBatch);
         g.steps_per_run = given(steps_opt, o->steps_per_run, kStepsPerRun);
         if (!o->window.empty()) g.window = parse_window(o->window);
         return measure_log(*o, g);
       };
     }});

}  // namespace
}  // namespace openrecipes::cli
