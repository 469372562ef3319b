// `openrecipes measure <log>`: one stage alone — the score and CV of a training log over the measured window
// (SPEC §2). GPU count, row length and global batch come from the log's argument dump when it has one.
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "core/error.h"
#include "core/files.h"
#include "core/text.h"
#include "evidence/megatron_args.h"
#include "evidence/step_log.h"
#include "measure/throughput.h"

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

const bool registered = register_command({
    "measure", "Score (tokens/s/GPU) and step-time CV of one training log over the measured window",
    [](CLI::App& app) {
      auto o = std::make_shared<MeasureOptions>();
      app.add_option("log", o->log, "Training log (or steps.jsonl)")->required();
      app.add_option("--format", o->format, "megatron, megatron-bridge, slime, miles or steps-jsonl")->capture_default_str();
      app.add_option("--gpus", o->gpus, "GPU count (default: world_size from the argument dump)");
      app.add_option("--row-length", o->row_length, "Tokens per row (default: seq_length from the dump, else 8192)");
      app.add_option("--global-batch", o->global_batch, "Rows per step (default: from the log, else 128)");
      app.add_option("--steps-per-run", o->steps_per_run, "Steps the run ran (default: from the log)");
      app.add_option("--window", o->window, "Measured window FIRST-LAST, for runs the protocol has no window for");
      app.add_flag("--json", o->json, "Machine-readable output");
      return [o]() -> int {
        std::string text = read_file(o->log);
        std::optional<evidence::ArgumentDump> dump;
        if (o->format == "megatron" || o->format == "megatron-bridge") {
          try {
            dump = evidence::parse_megatron_args(text, o->log);
          } catch (const InputError&) {
            // no argument dump in this log: the options must say what it would have
          }
        }
        auto log = evidence::read_step_log(o->log, o->format, dump_int(dump, "log_interval"));
        std::int64_t gpus = o->gpus ? o->gpus : dump_int(dump, "world_size").value_or(0);
        if (gpus < 1) throw InputError(o->log, "the GPU count is not in the log", "pass --gpus N");
        std::int64_t row = o->row_length ? o->row_length : dump_int(dump, "seq_length").value_or(8192);
        std::int64_t gbs = o->global_batch ? o->global_batch : dump_int(dump, "global_batch_size").value_or(0);
        if (!gbs)
          for (const auto& r : log.records)
            if (r.rows) gbs = *r.rows;
        if (!gbs) gbs = 128;
        std::int64_t steps = o->steps_per_run ? o->steps_per_run : log.train_iters.value_or(0);
        std::optional<measure::Window> declared;
        if (!o->window.empty()) {
          auto parts = split(o->window, '-');
          auto a = parts.size() == 2 ? parse_int(parts[0]) : std::nullopt;
          auto b = parts.size() == 2 ? parse_int(parts[1]) : std::nullopt;
          if (!a || !b) throw InputError("--window", "expected FIRST-LAST, e.g. 5-19");
          declared = measure::Window{*a, *b};
        }
        if (!steps) throw InputError(o->log, "the log does not say how many steps the run ran", "pass --steps-per-run");
        auto window = measure::window_for_run(steps, declared, "--window");
        auto m = measure::measure_throughput(log, window, {gpus, row, gbs});
        if (o->json) {
          nlohmann::json j{{"log", o->log},          {"format", log.format},
                           {"window", {window.first, window.last}},
                           {"gpus", gpus},           {"row_length", row},
                           {"global_batch", gbs},    {"tokens_per_s_per_gpu", m.tokens_per_s_per_gpu},
                           {"cv", m.cv},             {"total_tokens", m.total_tokens},
                           {"total_time_s", m.total_time_s}, {"step_times_s", m.step_times_s}};
          std::cout << j.dump(2) << "\n";
        } else {
          std::cout << fmt::format("{}: {}-step run, window {} ({} steps), {} GPU(s), {} rows x {} tokens per step\n",
                                   o->log, steps, window.str(), window.size(), gpus, gbs, row);
          std::cout << fmt::format("  tokens/s/GPU  {:.1f}\n  step time     mean {:.4f} s, CV {:.2f}%\n",
                                   m.tokens_per_s_per_gpu, m.mean_step_time_s, 100 * m.cv);
        }
        return 0;
      };
    }});

}  // namespace
}  // namespace openrecipes::cli
