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
         const auto gpus_given = given(gpus_opt, o->gpus, kGpus);
         const auto row_given = given(row_opt, o->row_length, kRowLength);
         const auto gbs_given = given(gbs_opt, o->global_batch, kGlobalBatch);
         const auto steps_given = given(steps_opt, o->steps_per_run, kStepsPerRun);
         std::optional<measure::Window> declared;
         if (!o->window.empty()) {
           auto parts = split(o->window, '-');
           auto a = parts.size() == 2 ? parse_int(parts[0]) : std::nullopt;
           auto b = parts.size() == 2 ? parse_int(parts[1]) : std::nullopt;
           if (!a || !b)
             throw InputError("--window", fmt::format("{} is not FIRST-LAST", quote_for_message(o->window)),
                              "give two 0-based step numbers, e.g. --window 5-19");
           declared = measure::Window{*a, *b};
         }
         std::string text = read_file(o->log);
         std::optional<evidence::ArgumentDump> dump;  // none: the options must say what it would have
         if (o->format != "steps-jsonl")  // slime and miles print Megatron's dump too (notes/slime.md §4.2)
           dump = evidence::find_megatron_args(text, o->log);
         auto log =
             evidence::parse_step_log(text, o->format, dump ? evidence::log_interval_of(*dump) : std::nullopt, o->log);
         std::int64_t gpus = gpus_given.value_or(dump ? evidence::gpu_count_of(*dump).value_or(0) : 0);
         if (gpus < 1) throw InputError(o->log, "the GPU count is not in the log", "pass --gpus N");
         if (gpus > kGpus.max)
           throw InputError(o->log, fmt::format("the argument dump gives {} GPUs, beyond {}", gpus, kGpus.max),
                            "give the run's own unedited log, or pass --gpus N");
         // A flag that contradicts what the run recorded is refused, naming both values: the score would be of
         // another run than the log's.
         auto contradicts = [&](const char* option, std::optional<std::int64_t> flag,
                                std::optional<std::int64_t> recorded, const char* what) {
           if (flag && recorded && *flag != *recorded)
             throw InputError(
                 option,
                 fmt::format("{} {}, but the log's argument dump records {} {}", option, *flag, what, *recorded),
                 fmt::format("leave {} out (the run's own {} is used), or measure the log of the run "
                             "you mean",
                             option, what));
         };
         contradicts("--gpus", gpus_given, dump ? evidence::gpu_count_of(*dump) : std::nullopt, "world_size");
         // slime and miles print a placeholder seq_length (4096 when unset, notes/slime.md §4.2): the rows their
         // plugin feeds are the protocol's unless --row-length says otherwise, and measure says it assumed so.
         const bool dump_has_row_length = o->format == "megatron" || o->format == "megatron-bridge";
         const auto dump_row = dump_has_row_length ? dump_int(dump, "seq_length") : std::nullopt;
         contradicts("--row-length", row_given, dump_row, "seq_length");
         contradicts("--global-batch", gbs_given, dump_int(dump, "global_batch_size"), "global_batch_size");
         std::string row_source = row_given ? "--row-length" : "the argument dump's seq_length";
         if (!row_given && !dump_row) {
           if (dump_has_row_length)
             throw InputError(o->log,
                              "the log does not say how long its rows are (no seq_length in an argument dump), and "
                              "a score is only as right as the row length",
                              "pass --row-length L (the tokens in each row the run trained on)");
           row_source = fmt::format(
               "assumed: the protocol's L ({} prints no row length of its own); pass "
               "--row-length for another",
               o->format);
         }
         std::int64_t row = row_given.value_or(dump_row.value_or(protocol::kRowLength));
         std::int64_t gbs = gbs_given.value_or(dump_int(dump, "global_batch_size").value_or(0));
         if (!gbs)
           for (const auto& r : log.records)
             if (r.rows) gbs = *r.rows;
         if (!gbs) gbs = protocol::kGlobalBatch;
         if (row < 1 || gbs < 1)
           throw InputError(o->log,
                            fmt::format("the log gives a row length of {} and a global batch of {}; both must be "
                                        "positive",
                                        row, gbs),
                            "pass --row-length and --global-batch");
         if (steps_given && log.train_iters && *steps_given != *log.train_iters)
           throw InputError("--steps-per-run",
                            fmt::format("{} steps, but the log says the run has {} ('iteration k/ {}')", *steps_given,
                                        *log.train_iters, *log.train_iters),
                            "leave --steps-per-run out: the log's own run length is used");
         // slime and miles print no 'iteration k/ N': their dump gives the run length (num_rollout and the batch).
         // 0: the dump gives none (a plain integer: GCC's -Wmaybe-uninitialized misreads an optional here at -O2)
         const std::int64_t dump_steps = !log.train_iters && dump ? evidence::run_steps_of(*dump).value_or(0) : 0;
         if (steps_given && dump_steps && *steps_given != dump_steps)
           throw InputError(
               "--steps-per-run",
               fmt::format("{} steps, but the log's argument dump gives a {}-step run", *steps_given, dump_steps),
               "leave --steps-per-run out: the log's own run length is used");
         std::int64_t steps = steps_given.value_or(log.train_iters.value_or(dump_steps));
         if (!steps && dump && dump->values.count("num_rollout"))
           throw InputError(o->log,
                            "the argument dump's num_rollout, start_rollout_id, rollout_batch_size, "
                            "n_samples_per_prompt and global_batch_size give no run length (not positive whole "
                            "numbers, or beyond 2^30)",
                            "pass --steps-per-run");
         if (!steps)
           throw InputError(o->log, "the log does not say how many steps the run ran", "pass --steps-per-run");
         // Window problems name --window only when the user passed it; otherwise they are about the log's run.
         measure::Window window;
         try {
           window = measure::window_for_run(steps, declared, declared ? "--window" : o->log);
         } catch (const InputError& e) {
           if (declared) throw;
           throw InputError(e.where(), e.problem(), "pass --window FIRST-LAST (0-based steps) to measure this run");
         }
         auto m = measure::measure_throughput(log, window, {gpus, row, gbs});
         if (!std::isfinite(m.tokens_per_s_per_gpu) || !std::isfinite(m.cv) || !std::isfinite(m.mean_step_time_s))
           throw InputError(o->log, "the step times give no finite score (tokens/s/GPU or CV is not a number)",
                            "the step times are damaged; give the run's own unedited log");
         if (o->json) {
           nlohmann::json j{{"log", o->log},
                            {"format", log.format},
                            {"steps_per_run", steps},
                            {"window", {window.first, window.last}},
                            {"gpus", gpus},
                            {"row_length", row},
                            {"row_length_source", row_source},
                            {"global_batch", gbs},
                            {"tokens_per_s_per_gpu", m.tokens_per_s_per_gpu},
                            {"tokens_per_s_per_gpu_interval",
                             {m.interval.score_low,
                              m.interval.bounded() ? nlohmann::json(m.interval.score_high) : nlohmann::json(nullptr)}},
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
         } else {
           // The numbers as build prints them (site/format.h): one format for a score wherever it is shown.
           std::cout << fmt::format("{}: {}-step run, window {} ({} steps), {} GPU(s), {} rows x {} tokens per step\n",
                                    o->log, steps, window.str(), window.size(), gpus, with_thousands(gbs),
                                    with_thousands(row));
           if (row_source.starts_with("assumed"))
             std::cout << fmt::format("  row length    {} {}\n", with_thousands(row), row_source);
           std::cout << fmt::format(
               "  tokens/s/GPU  {}, 95% interval {}\n  step time     mean {:.4f} s ± {:.4f} s, CV {}\n",
               site::format_tokens_per_s(m.tokens_per_s_per_gpu),
               site::format_score_interval(m.interval.score_low, m.interval.score_high), m.mean_step_time_s,
               m.interval.half_width_s, site::format_percent(m.cv));
           const auto method = wrap_words(fmt::format("{} (n = {}, t_0.975,{} = {:.4f})", measure::kIntervalMethod,
                                                      m.interval.n, m.interval.n - 1, m.interval.t_quantile),
                                          104);
           for (std::size_t i = 0; i < method.size(); ++i)
             std::cout << (i ? "                " : "  interval is   ") << method[i] << "\n";
           const auto lines = wrap_words(evidence::step_time_definition(log.format, log.time_field), 104);
           for (std::size_t i = 0; i < lines.size(); ++i)
             std::cout << (i ? "                " : "  step time is  ") << lines[i] << "\n";
         }
         return 0;
       };
     }});

}  // namespace
}  // namespace openrecipes::cli
