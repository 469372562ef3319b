// `openrecipes plan`: every valid layout of a model on G GPUs of a type with its predicted peak memory per GPU and step
// time (SPEC §7; docs/memory-model.md), or `plan --log` to set the prediction beside a run's measured peak.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <tbb/parallel_for.h>
#include <boost/algorithm/string/predicate.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checks/megatron_arguments.h"
#include "cli/command.h"
#include "core/error.h"
#include "core/files.h"
#include "core/json_limits.h"
#include "core/text.h"
#include "core/utf8.h"
#include "evidence/megatron_args.h"
#include "evidence/megatron_memory.h"
#include "layout/layout_json.h"
#include "layout/model_rules.h"
#include "layout/planner.h"
#include "layout/setup_flags.h"
#include "params/mfu.h"
#include "registry/gpus.h"
#include "registry/model.h"
#include "registry/recipe_memory.h"

namespace openrecipes::cli {
namespace {
namespace fs = std::filesystem;

struct PlanOptions {
  std::string model, gpu, from, registry = "registry";
  std::optional<std::string> command;  // set when --command is given, even as an empty word (then refused)
  std::optional<std::int64_t> gpus, row_length, global_batch, tp, pp, cp, ep, etp, vpp, micro_batch, vocab_size;
  std::optional<std::int64_t> gpus_per_node;  // unset: 8, or a command's launcher's own GPUs a node
  std::string recompute, impl;
  bool distributed_optimizer = false, no_distributed_optimizer = false;
  std::optional<std::int64_t> top;
  std::vector<std::string> logs;
  bool json = false;
};

std::string vpp_text(const layout::Layout& l) { return l.vpp ? std::to_string(*l.vpp) : "-"; }

// Tokens a GPU trains a second (SPEC §2: global batch × row length a step) and MFU (SPEC §3) at a predicted step.
struct PredictedRate {
  double tokens_per_s_per_gpu = 0, mfu = 0;
};

PredictedRate predicted_rate(const layout::PlannedLayout& p, std::int64_t gpus, double n_active, double peak_tflops) {
  const double tokens =
      layout::tokens_per_s_per_gpu(p.setup.global_batch, p.setup.row_length, p.step_time->step_time_s, gpus);
  return {tokens, params::mfu(n_active, tokens, peak_tflops)};
}

nlohmann::ordered_json layout_json(const layout::PlannedLayout& p, std::int64_t gpus, double n_active,
                                   double peak_tflops) {
  const auto& t = p.setup;
  nlohmann::ordered_json j = layout::setup_to_json(t);  // the layout's own fields, then the setup's
  j["peak_memory_mib"] = std::round(p.memory.peak_mib * 10) / 10;
  j["fits"] = p.fits;
  j["peak_stage"] = p.memory.stage;
  j["peak_moment"] = std::string(p.memory.moment);
  nlohmann::ordered_json terms;
  for (const auto& x : p.memory.terms) terms[std::string(x.name)] = std::round(x.mib * 10) / 10;
  j["terms"] = std::move(terms);
  j["relative_time"] = std::round(p.relative_time * 1000) / 1000;
  if (p.step_time) {  // predictions (docs/step-time-model.md)
    const auto& st = *p.step_time;
    const auto rate = predicted_rate(p, gpus, n_active, peak_tflops);
    j["step_time_s"] = layout::round_step_time(st.step_time_s);
    j["step_time_interval_s"] = {layout::round_step_time(st.low_s), layout::round_step_time(st.high_s)};
    j["tokens_per_s_per_gpu"] = round_to_figures(rate.tokens_per_s_per_gpu, 0.1, 3);
    j["mfu"] = round_to_figures(rate.mfu, 1e-4, 2);
    nlohmann::ordered_json terms;
    for (std::size_t k = 0; k < layout::kStepTimeTerms; ++k)  // the terms that take time (most layouts have half)
      if (st.terms[k] > 0) terms[layout::step_time_term_name(k)] = layout::round_step_time(st.terms[k]);
    j["step_time_terms"] = std::move(terms);
    j["step_time_bound"] = st.host_bound() ? "host" : "device";  // the longer lane (docs/step-time-model.md)
    j["step_time_stage"] = st.pace_stage();
  }
  j["warnings"] = p.warnings;
  return j;
}

// One layout's terms (two lines within 120 columns), and the measured peak when there is one.
void print_terms(const layout::PlannedLayout& p, const std::optional<double>& measured) {
  std::cout << fmt::format("peak on stage {} at the {} (MiB):\n ", p.memory.stage, p.memory.moment);
  for (const auto& x : p.memory.terms) std::cout << fmt::format(" {} {:.0f}", x.name, x.mib);
  std::cout << "\n";
  if (measured && *measured > 0)
    std::cout << fmt::format("measured max allocated {:.0f} MiB: predicted {:+.1f}%\n", *measured,
                             (p.memory.peak_mib - *measured) / *measured * 100);
  if (!p.step_time) return;
  const auto& st = *p.step_time;
  std::cout << fmt::format(
      "predicted step {:.3g} s ({:.3g} to {:.3g}), paced by stage {}: GPU {:.3g} s, host {:.3g} s ({}-bound); terms"
      " (s):\n ",
      st.step_time_s, st.low_s, st.high_s, st.pace_stage(), st.device_s, st.host_s, st.host_bound() ? "host" : "GPU");
  for (std::size_t k = 0; k < layout::kStepTimeTerms; ++k)
    if (st.terms[k] > 0) std::cout << fmt::format(" {} {:.3g}", layout::step_time_term_name(k), st.terms[k]);
  std::cout << "\n";
}

// `plan --log`: each log's prediction beside Megatron's measured peak and Megatron's own estimate.
int run_logs(const PlanOptions& o) {
  auto rows = nlohmann::ordered_json::array();
  if (!o.json)
    std::cout << fmt::format("{:<38} {:>10} {:>10} {:>7} {:>10} {:>7}\n", "run", "predicted", "measured", "error",
                             "Megatron", "error");
  for (const auto& file : o.logs) {
    const std::string text = read_file(file);
    const auto dump = evidence::parse_megatron_args(text, file);
    const auto measured = evidence::parse_megatron_memory(text, file);
    if (!measured)
      throw InputError(file, "no Megatron memory line ('memory (MB) | ... max allocated: ...')",
                       "log the run with --log-memory-interval 1, or give a log with iteration 2's memory line");
    const auto shape = layout::shape_from_arguments(dump.values, file);
    const auto setup = layout::setup_from_arguments(dump.values, file);
    // A layout Megatron refuses at start-up never ran: the log was edited, or is not one run's.
    if (const auto broken = layout::model_violations(shape, setup); !broken.empty())
      throw InputError(file, "its argument dump breaks a rule of its model: " + broken.front().what,
                       "give the unedited log of one run");
    const double predicted = layout::estimate_memory(shape, setup).peak_mib;
    const double m = measured->max_allocated_mib;
    if (!(m > 0))
      throw InputError(file, "max allocated is 0 MB: nothing to compare with", "give the log of a run that trained");
    // A bundled recipe's log is evidence/train.log: name it by its recipe's folder.
    const fs::path path(file);
    const std::string name = path.parent_path().filename() == "evidence"
                                 ? path.parent_path().parent_path().filename().string()
                                 : path.stem().string();
    if (o.json) {
      nlohmann::ordered_json j{{"log", file},
                               {"predicted_mib", std::round(predicted * 10) / 10},
                               {"measured_mib", m},
                               {"error", std::round((predicted - m) / m * 10000) / 10000}};
      j["megatron_estimate_mib"] =
          measured->theoretical_mib ? nlohmann::ordered_json(*measured->theoretical_mib) : nullptr;
      rows.push_back(std::move(j));
      continue;
    }
    const std::string theirs =
        measured->theoretical_mib ? fmt::format("{:.0f}", *measured->theoretical_mib) : std::string("-");
    const std::string their_error =
        measured->theoretical_mib ? fmt::format("{:+.1f}%", (*measured->theoretical_mib - m) / m * 100) : "-";
    std::cout << fmt::format("{:<38} {:>10.0f} {:>10.0f} {:>+6.1f}% {:>10} {:>7}\n", display_word(name), predicted, m,
                             (predicted - m) / m * 100, theirs, their_error);
  }
  if (o.json) std::cout << nlohmann::ordered_json{{"runs", rows}}.dump(2) << "\n";
  return 0;
}

// What a plan is printed with: the model's and GPU type's names, N (for MFU) and the GPU's dense BF16 peak.
struct PlanHeading {
  std::string model_name, gpu_key;
  double n_active = 0, peak_tflops = 0;
};

// The heading of a plan of `shape` on the GPU type `gpu`.
PlanHeading heading(std::string model_name, const registry::GpuType& gpu, const layout::ModelShape& shape) {
  return {std::move(model_name), gpu.key, double(shape.active_params()), gpu.dense_bf16_tflops};
}

// When no layout fits, the smallest peaks first: the nearest to fitting (plan's table and JSON alike).
void nearest_first_when_none_fits(std::vector<layout::PlannedLayout>& plans, std::int64_t fitting) {
  if (fitting == 0)
    std::stable_sort(plans.begin(), plans.end(), [](const layout::PlannedLayout& a, const layout::PlannedLayout& b) {
      return a.memory.peak_mib < b.memory.peak_mib;
    });
}

// The planned layouts as JSON (docs/memory-model.md): the request, the counts and each layout (layout_json).
int print_plans_json(const PlanOptions& o, const layout::PlanRequest& q, const PlanHeading& h,
                     std::vector<layout::PlannedLayout>& plans, std::int64_t fitting,
                     const std::optional<double>& measured, const nlohmann::ordered_json& stages = nullptr) {
  nearest_first_when_none_fits(plans, fitting);
  const double usable = layout::usable_memory_mib(q.memory_mib);
  nlohmann::ordered_json j{{"model", h.model_name},
                           {"gpu", h.gpu_key},
                           {"gpus", q.gpus},
                           {"row_length", q.row_length},
                           {"global_batch", q.global_batch},
                           {"memory_mib", q.memory_mib},
                           {"usable_mib", std::round(usable)},
                           {"count", plans.size()},
                           {"fitting", fitting}};
  if (measured) j["measured_peak_mib"] = *measured;
  if (q.speed) j["step_time"] = "predicted (docs/step-time-model.md)";
  if (plans.empty()) j["no_valid_layout"] = layout::no_layout_reason(q);
  // Written a layout at a time, as dump(2) writes the whole document (the same bytes): DeepSeek-V3 on 256 GPUs has
  // some 40,000 layouts, and one tree of them all costs more time in allocation than the planning (bench/plan.sh).
  // A file name is bytes, not always UTF-8: invalid bytes come out as U+FFFD, never an error.
  constexpr auto kReplace = nlohmann::ordered_json::error_handler_t::replace;
  std::string head = j.dump(2, ' ', false, kReplace);
  head.resize(head.size() - 2);  // the closing "\n}"
  std::cout << head << ",\n  \"layouts\": [";
  const std::size_t n = o.top ? std::min<std::size_t>(plans.size(), static_cast<std::size_t>(*o.top)) : plans.size();
  // Each layout's text, indented 4 more inside "layouts"; written in batches, each batch's texts made in parallel
  // (serialising dominates: DeepSeek-V3 on 256 GPUs writes 90,000 layouts, bench/plan.sh).
  auto layout_text = [&](std::size_t i) {
    auto one = layout_json(plans[i], q.gpus, h.n_active, h.peak_tflops);
    if (i == 0 && !stages.is_null()) one["stages"] = stages;
    const std::string text = one.dump(2, ' ', false, kReplace);
    std::string indented(i == 0 ? "\n    " : ",\n    ");
    std::string_view rest = text;
    for (std::size_t nl; (nl = rest.find('\n')) != std::string_view::npos; rest.remove_prefix(nl + 1))
      indented.append(rest.substr(0, nl + 1)).append("    ");
    return indented.append(rest);
  };
  constexpr std::size_t kBatch = 4096;
  std::vector<std::string> texts;
  for (std::size_t begin = 0; begin < n; begin += kBatch) {
    const std::size_t end = std::min(n, begin + kBatch);
    texts.assign(end - begin, std::string());
    tbb::parallel_for(begin, end, [&](std::size_t i) { texts[i - begin] = layout_text(i); });
    for (const auto& t : texts) std::cout << t;
  }
  std::cout << (n == 0 ? "]\n}\n" : "\n  ]\n}\n");
  return fitting == 0 ? static_cast<int>(ExitCode::check_failed) : 0;  // as the table: none fits (or none is valid)
}

// The planned layouts as a table, fastest first (or smallest peak first when none fits); one layout's terms.
int print_plans_table(const PlanOptions& o, const layout::PlanRequest& q, const PlanHeading& h,
                      std::vector<layout::PlannedLayout>& plans, std::int64_t fitting,
                      const std::optional<double>& measured) {
  const double usable = layout::usable_memory_mib(q.memory_mib);
  std::cout << fmt::format("plan {} on {} x {} ({:.0f} MiB a GPU, {:.0f} usable), rows of {} tokens, {} a step\n",
                           h.model_name, q.gpus, h.gpu_key, q.memory_mib, usable, q.row_length, q.global_batch);
  if (plans.empty()) {  // the GPUs leave no layout, whatever the knobs (explain_no_layout)
    std::cout << fmt::format("  no valid layout: {}\n", layout::no_layout_reason(q));
    return static_cast<int>(ExitCode::check_failed);
  }
  std::cout << fmt::format("{} valid layout{}, {} fit{}; ", plans.size(), plans.size() == 1 ? "" : "s", fitting,
                           fitting == 1 ? "s" : "");
  const std::size_t shown = std::min<std::size_t>(plans.size(), static_cast<std::size_t>(o.top.value_or(20)));
  nearest_first_when_none_fits(plans, fitting);
  const bool predicted = q.speed.has_value();
  std::cout << fmt::format("{} by {}\n", shown == plans.size() ? "all" : fmt::format("the first {}", shown),
                           fitting == 0 ? "predicted peak (none fits)"
                           : predicted  ? "predicted step time"
                                        : "estimated step time (a heuristic: docs/memory-model.md)");
  if (predicted)
    std::cout << fmt::format(
        "step time, tokens/s/GPU and MFU are predictions (docs/step-time-model.md): 90% of the measured runs of "
        "models left out of the fit came within ×/÷ {:.2f}\n",
        1 + layout::step_time_error90());
  std::cout << fmt::format("  {:>3} {:>3} {:>3} {:>3} {:>3} {:>3} {:>4} {:>3} {:>4}  {:<10} {:<7} {:>9}  {:<4} ", "TP",
                           "PP", "CP", "EP", "ETP", "VPP", "DP", "MBS", "SP", "recompute", "distopt", "peak MiB",
                           "fits");
  std::cout << (predicted ? fmt::format("{:>8} {:>9} {:>5}\n", "step s", "tok/s/GPU", "MFU")
                          : fmt::format("{:>6}\n", "time"));
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& p = plans[i];
    const auto& l = p.setup.layout;
    std::cout << fmt::format("  {:>3} {:>3} {:>3} {:>3} {:>3} {:>3} {:>4} {:>3} {:>4}  {:<10} {:<7} {:>9.0f}  {:<4} ",
                             l.tp, l.pp, l.cp, l.ep, l.etp, vpp_text(l), l.dp, l.micro_batch,
                             p.setup.sequence_parallel ? "yes" : "no", layout::recompute_name(p.setup.recompute),
                             p.setup.distributed_optimizer ? "yes" : "no", p.memory.peak_mib, p.fits ? "yes" : "no");
    if (p.step_time) {
      const auto rate = predicted_rate(p, q.gpus, h.n_active, h.peak_tflops);
      // Whole tokens and percent, but three and two figures below 10 and 1: never a rate printed as 0.
      const double tokens = rate.tokens_per_s_per_gpu, percent = rate.mfu * 100;
      std::cout << fmt::format("{:>8.3g} {:>9} {:>4}%\n", p.step_time->step_time_s,
                               tokens < 10 ? fmt::format("{:.3g}", tokens) : fmt::format("{:.0f}", tokens),
                               percent < 1 ? fmt::format("{:.2g}", percent) : fmt::format("{:.0f}", percent));
    } else {
      std::cout << fmt::format("{:>6.2f}\n", p.relative_time);
    }
    if (const std::string split = layout::uneven_split_flags(p.setup); !split.empty() && l.pp > 1)
      std::cout << "      pipeline split: " << split << "\n";
    for (const auto& w : p.warnings) std::cout << "      warning: " << w << "\n";
  }
  if (plans.size() == 1) print_terms(plans.front(), measured);
  return fitting == 0 ? static_cast<int>(ExitCode::check_failed) : 0;
}

// The run `t` describes, its layout left to the planner: row length, batch, implementation, fused cross-entropy.
void take_run(layout::PlanRequest& q, const layout::TrainingSetup& t) {
  q.row_length = t.row_length;
  q.global_batch = t.global_batch;
  q.impl = t.impl;
  q.fused_cross_entropy = t.fused_cross_entropy;
  q.grads_16bit = t.grads_16bit;
}

// Every knob of `q` fixed to `t`'s: the one layout a recipe runs.
void fix_every_knob(layout::PlanRequest& q, const layout::TrainingSetup& t) {
  take_run(q, t);
  q.tp = t.layout.tp, q.pp = t.layout.pp, q.cp = t.layout.cp, q.ep = t.layout.ep, q.etp = t.layout.etp;
  q.vpp = t.layout.vpp;
  q.micro_batch = t.layout.micro_batch;
  q.recompute = t.recompute;
  q.distributed_optimizer = t.distributed_optimizer;
  q.sequence_parallel = t.sequence_parallel;
  q.split =
      layout::PlanRequest::Split{t.first_stage_layers, t.last_stage_layers, t.embedding_in_split, t.loss_in_split};
}

// The GPU type `gpu_key` of the registry's gpus.yaml, with its memory (MiB); InputError naming the fix when there is
// none.
registry::GpuType gpu_type(const fs::path& registry_dir, const std::string& gpu_key) {
  const auto gpus = registry::load_gpus(registry_dir / "gpus.yaml");
  std::vector<std::string> keys;
  for (const auto& [k, v] : gpus) keys.push_back(k);
  if (gpu_key.empty())
    throw InputError("plan", "no GPU type", fmt::format("give --gpu (a key of gpus.yaml: {})", fmt::join(keys, ", ")));
  // A GPU type by its key, in any case ("h100" is H100); else the nearest key and every key gpus.yaml has.
  auto g = std::find_if(gpus.begin(), gpus.end(),
                        [&](const auto& kv) { return boost::algorithm::iequals(kv.first, gpu_key); });
  if (g == gpus.end()) {
    const std::string near = nearest_name(gpu_key, keys);
    throw InputError("--gpu", "no GPU type " + quote_for_message(gpu_key) + " in gpus.yaml",
                     (near.empty() ? std::string() : "did you mean " + near + "? ") +
                         fmt::format("use one of: {}", fmt::join(keys, ", ")));
  }
  if (!(g->second.memory_mib > 0))
    throw InputError((registry_dir / "gpus.yaml").string() + ": " + gpu_key,
                     "has no memory_mib: plan cannot say whether a layout fits",
                     "add memory_mib (nvidia-smi's memory.total, MiB) and memory_source to the GPU type");
  return g->second;
}

// The request's GPUs a node, `per_node` (before take_gpu, whose rates use it); InputError when `q.gpus` do not fill
// whole nodes of it (layout::node_violation).
void take_nodes(layout::PlanRequest& q, std::int64_t per_node) {
  q.gpus_per_node = per_node;
  if (const auto v = layout::node_violation(q.gpus, per_node)) throw InputError("--gpus-per-node", v->what, v->fix);
}

// The request's memory and, where gpus.yaml gives the type's hardware, its rates for the step-time model.
void take_gpu(layout::PlanRequest& q, const registry::GpuType& gpu) {
  q.memory_mib = gpu.memory_mib;
  if (gpu.hardware) q.speed = registry::gpu_speed(gpu, q.gpus_per_node);
}

// `plan --command`: the one layout a training command runs, planned stage by stage (docs/memory-model.md "A
// command"). The JSON adds "stages" to the layout; the text a line a pipeline stage.
int run_command(const PlanOptions& o) {
  const std::string& file = *o.command;
  if (file.empty()) throw InputError("--command", "is empty", "give the file that holds the training command");
  if (!o.model.empty() || !o.from.empty())
    throw InputError("--command", "reads the command's own model and layout",
                     "give --command without --model or --from");
  const bool knobs = o.tp || o.pp || o.cp || o.ep || o.etp || o.vpp || o.micro_batch || o.row_length ||
                     o.global_batch || o.top || !o.recompute.empty() || !o.impl.empty() || o.distributed_optimizer ||
                     o.no_distributed_optimizer;
  if (knobs)
    throw InputError("--command",
                     "plans the command's own layout: --tp, --pp, --micro-batch, --recompute and the like are for "
                     "--model and --from",
                     "change the command, or give them with --model");
  if (o.gpus_per_node && *o.gpus_per_node < 1)
    throw InputError("--gpus-per-node", fmt::format("{} is not a count", *o.gpus_per_node), "give 1 or more");
  const auto run = checks::read_command_run(read_file(file, layout::kMaxCommandBytes), file, o.gpus, o.vocab_size);
  const auto& cmd = run.command;
  const auto& shape = run.shape;
  const auto& setup = run.setup;
  layout::PlanRequest q;
  q.gpus = cmd.gpus;
  // The launcher's GPUs a node (torchrun --nproc-per-node 4 --nnodes 8 places TP 8 on two nodes), unless given.
  take_nodes(q, o.gpus_per_node.value_or(cmd.gpus_per_node.value_or(8)));
  take_run(q, setup);  // what the printers show of the request; the layout is planned by plan_setup below
  const auto gpu = gpu_type(bundled_path(o.registry), o.gpu);
  take_gpu(q, gpu);
  std::vector<layout::PlannedLayout> plans{
      layout::plan_setup(shape, setup, q.memory_mib, q.gpus_per_node, q.speed, q.precision)};
  auto stages = nlohmann::ordered_json::array();
  for (std::int64_t s = 0; s < setup.layout.pp; ++s) {
    const auto e = layout::estimate_memory(shape, plans.front().setup, s);
    auto terms = nlohmann::ordered_json::object();
    for (const auto& t : e.terms) terms[std::string(t.name)] = std::round(t.mib * 10) / 10;
    stages.push_back({{"pp_rank", s},
                      {"peak_memory_mib", std::round(e.peak_mib * 10) / 10},
                      {"moment", std::string(e.moment)},
                      {"terms", std::move(terms)}});
  }
  const std::string name = fmt::format("{} ({} GPUs from {})", display_word(file), cmd.gpus, cmd.gpus_from);
  // N (SPEC §3) is the model's own: the command's vocab_size (or the tokenizer's), not as Megatron pads it at this TP.
  const auto vocab = parse_int(cmd.arguments.at("vocab_size"));
  const PlanHeading h = heading(name, gpu, vocab && *vocab > 0 ? layout::with_vocab(shape, *vocab) : shape);
  if (o.json) return print_plans_json(o, q, h, plans, plans.front().fits ? 1 : 0, std::nullopt, stages);
  const int rc = print_plans_table(o, q, h, plans, plans.front().fits ? 1 : 0, std::nullopt);
  std::cout << "by pipeline stage (the last is the rank Megatron's tensorboard writer reports):\n";
  for (const auto& s : stages)
    std::cout << fmt::format("  stage {:>3}  {:>9.0f} MiB  at the {}\n", s["pp_rank"].get<std::int64_t>(),
                             s["peak_memory_mib"].get<double>(), s["moment"].get<std::string>());
  return rc;
}

int run(const PlanOptions& o) {
  if (o.command) {
    if (!o.logs.empty()) throw InputError("--command", "given with --log", "give one of them");
    return run_command(o);
  }
  if (o.vocab_size) throw InputError("--vocab-size", "is for --command", "give it with --command");
  if (!o.logs.empty()) {
    if (!o.model.empty() || !o.from.empty() || o.gpus)
      throw InputError("--log", "reads each log's own model and layout",
                       "give --log without --model, --from or --gpus");
    return run_logs(o);
  }
  if (!o.model.empty() && !o.from.empty())
    throw InputError("--from", "takes the recipe's own model", "give --model or --from, not both");
  layout::ModelShape shape;
  layout::PlanRequest q;
  std::string model_name, gpu_key = o.gpu;
  std::optional<double> measured, n_model;
  fs::path registry_dir = bundled_path(o.registry);
  if (!o.from.empty()) {
    const auto recipe = registry::load_recipe(registry::recipe_folder(o.from));
    const auto rm = registry::recipe_memory(recipe);
    shape = rm.shape;
    model_name = recipe.id;
    if (gpu_key.empty()) gpu_key = recipe.gpu;
    if (auto root = registry::registry_root(recipe.dir)) registry_dir = *root;
    // N (SPEC §3) is the recipe's model's, as its page computes MFU: the run's dump holds the padded vocabulary.
    const auto models = registry::load_models(registry_dir / "models");
    if (auto it = models.find(recipe.model); it != models.end() && it->second.active_params > 0)
      n_model = double(it->second.active_params);
    const auto& t = rm.setup;
    q.gpus = recipe.gpus;
    if (!o.gpus) {  // the recipe's own layout, every knob fixed
      fix_every_knob(q, t);
      if (rm.measured) measured = rm.measured->max_allocated_mib;
    } else {
      take_run(q, t);
    }
  } else {
    if (o.model.empty())
      throw InputError("plan", "no model", "give --model <model id | config.json>, --from <recipe> or --log <log>");
    const bool folder = fs::is_directory(o.model);
    if (folder || (o.model.size() > 5 && o.model.substr(o.model.size() - 5) == ".json")) {
      const std::string file = folder ? (fs::path(o.model) / "config.json").string() : o.model;
      const nlohmann::json config = parse_json_strict(read_file(file), file, "give the model's own config.json");
      shape = layout::shape_from_config(config, file);
      model_name = o.model;
    } else {
      // A model id of the registry, or the path of a model file (registry/models/<id>.yaml): its folder's models.
      const bool model_file =
          o.model.size() > 5 && o.model.substr(o.model.size() - 5) == ".yaml" && fs::is_regular_file(o.model);
      const fs::path models_dir = model_file ? fs::path(o.model).parent_path() : registry_dir / "models";
      const std::string model_id = model_file ? fs::path(o.model).stem().string() : o.model;
      const auto models = registry::load_models(models_dir.empty() ? fs::path(".") : models_dir);
      auto it = models.find(model_id);
      if (it == models.end()) {
        std::vector<std::string> ids;
        for (const auto& [id, info] : models) ids.push_back(id);
        const std::string near = nearest_name(o.model, ids);
        throw InputError("--model",
                         "no model " + quote_for_message(o.model) + " in " + (registry_dir / "models").string(),
                         (near.empty() ? std::string() : "did you mean " + near + "? ") +
                             "give a model id of the registry (its models/<id>.yaml) or a config.json");
      }
      shape = layout::shape_from_config(it->second.config, it->second.file);
      model_name = o.model;
    }
    q.impl = layout::Impl::te;
    q.pad_vocab = true;  // a config.json's vocabulary, padded at each layout's TP as Megatron-LM pads it
  }
  const auto gpu = gpu_type(registry_dir, gpu_key);
  if (o.gpus) q.gpus = *o.gpus;
  if (o.from.empty() && !o.gpus) throw InputError("plan", "no GPU count", "give --gpus G");
  take_nodes(q, o.gpus_per_node.value_or(8));
  take_gpu(q, gpu);
  if (o.row_length) q.row_length = *o.row_length;
  if (o.global_batch) q.global_batch = *o.global_batch;
  for (auto [v, field] :
       {std::pair{&o.tp, &q.tp}, std::pair{&o.pp, &q.pp}, std::pair{&o.cp, &q.cp}, std::pair{&o.ep, &q.ep},
        std::pair{&o.etp, &q.etp}, std::pair{&o.vpp, &q.vpp}, std::pair{&o.micro_batch, &q.micro_batch}})
    if (*v) *field = *v;
  if (!o.recompute.empty()) q.recompute = layout::require_recompute(o.recompute, "--recompute");
  if (o.distributed_optimizer && o.no_distributed_optimizer)
    throw InputError("--distributed-optimizer", "given with --no-distributed-optimizer", "give one of them");
  if (o.distributed_optimizer) q.distributed_optimizer = true;
  if (o.no_distributed_optimizer) q.distributed_optimizer = false;
  if (!o.impl.empty()) {
    if (o.impl != "local" && o.impl != "te")
      throw InputError("--impl", quote_for_message(o.impl) + " is not an implementation", "give local or te");
    q.impl = o.impl == "local" ? layout::Impl::local : layout::Impl::te;
  }
  if (o.top && *o.top < 1) throw InputError("--top", fmt::format("{} is not a count", *o.top), "give 1 or more");
  auto plans = layout::plan_layouts(shape, q);
  if (plans.empty()) layout::explain_no_layout(shape, q);
  std::int64_t fitting = 0;
  for (const auto& p : plans) fitting += p.fits ? 1 : 0;
  PlanHeading h = heading(model_name, gpu, shape);
  if (n_model) h.n_active = *n_model;
  return o.json ? print_plans_json(o, q, h, plans, fitting, measured)
                : print_plans_table(o, q, h, plans, fitting, measured);
}

const bool registered_plan = register_command(
    {"plan", "Every valid layout of a model on G GPUs, with its predicted peak memory per GPU and step time",
     [](CLI::App& app) {
       auto o = std::make_shared<PlanOptions>();
       app.add_option(
           "--model", o->model,
           "a model id of the registry, a model file (registry/models/<id>.yaml), a Hugging Face config.json "
           "or its folder");
       app.add_option("--gpu", o->gpu, "the GPU type (a key of gpus.yaml, in any case)");
       app.add_option("--gpus", o->gpus, "G, the GPUs");
       app.add_option("--gpus-per-node", o->gpus_per_node,
                      "GPUs of one node (default 8; with --command, the launcher's own when it gives them)");
       app.add_option("--row-length", o->row_length, "L, tokens a row (default 8192, the protocol's)");
       app.add_option("--global-batch", o->global_batch, "rows a step (default 128, the protocol's)");
       app.add_option("--from", o->from, "a recipe: its model, run setup and measured peak (with --gpus: re-plan it)");
       app.add_option("--command", o->command,
                      "FILE: a training command (torchrun ... pretrain_gpt.py ..., slime's train.py, or bare "
                      "Megatron-LM arguments): its one layout, stage by stage");
       app.add_option("--vocab-size", o->vocab_size,
                      "with --command: the tokenizer's vocabulary when the command does not give --vocab-size");
       app.add_option("--tp", o->tp, "fix TP");
       app.add_option("--pp", o->pp, "fix PP");
       app.add_option("--cp", o->cp, "fix CP");
       app.add_option("--ep", o->ep, "fix EP");
       app.add_option("--etp", o->etp, "fix ETP");
       app.add_option("--vpp", o->vpp, "fix the virtual pipeline size");
       app.add_option("--micro-batch", o->micro_batch, "fix the micro-batch (rows)");
       app.add_option("--recompute", o->recompute, "fix recompute: none, selective, full, full:N or block:N");
       app.add_flag("--distributed-optimizer", o->distributed_optimizer, "fix the distributed optimizer on");
       app.add_flag("--no-distributed-optimizer", o->no_distributed_optimizer, "fix the distributed optimizer off");
       app.add_option("--impl", o->impl, "local or te (default te; --from: the recipe's)");
       app.add_option("--top", o->top, "layouts to list (default 20 in text, every one in JSON)");
       app.add_option("--registry", o->registry,
                      "the registry holding models/ and gpus.yaml (default the bundled one)");
       app.add_option("--log", o->logs, "Megatron logs: each run's predicted peak beside its measured max allocated")
           ->expected(1, -1);
       app.add_flag("--json", o->json, "JSON output");
       app.footer(
           "Exit codes: 0 layouts listed, some fit; 1 no valid layout, or none fits (listed, the nearest first); 2 bad "
           "input (a knob given that no valid layout has: its valid values named). docs/memory-model.md gives the "
           "model.");
       return [o]() { return run(*o); };
     }});

}  // namespace
}  // namespace openrecipes::cli
