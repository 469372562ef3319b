// Megatron-LM's learning-rate schedule (OptimizerParamScheduler.get_lr) and the check of a log's printed rates
// against the argument dump it came with.
#include "checks/lr_schedule.h"

#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "core/text.h"

namespace openrecipes::checks {
namespace {

std::optional<double> number(const std::map<std::string, std::string>& a, const std::string& key) {
  auto it = a.find(key);
  if (it == a.end()) return std::nullopt;
  auto v = parse_double(it->second);
  if (!v || !std::isfinite(*v)) return std::nullopt;
  return v;
}

bool is_none(const std::map<std::string, std::string>& a, const std::string& key) {
  auto it = a.find(key);
  return it == a.end() || it->second == "None";
}

}  // namespace

std::optional<double> megatron_learning_rate(const std::map<std::string, std::string>& a, std::int64_t iteration) {
  if (iteration < 0 || !is_none(a, "rampup_batch_size") || !is_none(a, "decoupled_lr")) return std::nullopt;
  auto style_it = a.find("lr_decay_style");
  if (style_it == a.end()) return std::nullopt;
  const std::string& style = style_it->second;
  if (style != "constant" && style != "linear" && style != "cosine") return std::nullopt;
  auto max_lr = number(a, "lr"), min_lr = number(a, "min_lr");
  auto train_iters = number(a, "train_iters");
  if (!max_lr || !min_lr || !train_iters || *train_iters <= 0) return std::nullopt;
  double decay = *train_iters;
  if (!is_none(a, "lr_decay_iters")) {
    auto d = number(a, "lr_decay_iters");
    if (!d || *d <= 0) return std::nullopt;
    decay = *d;
  }
  double warmup = 0;
  if (!is_none(a, "lr_warmup_fraction")) {
    auto f = number(a, "lr_warmup_fraction");
    if (!f || *f < 0) return std::nullopt;
    warmup = *f * decay;
  } else if (auto w = number(a, "lr_warmup_iters")) {
    if (*w < 0) return std::nullopt;
    warmup = *w;
  }
  const double init = number(a, "lr_warmup_init").value_or(0.0);
  const double k = static_cast<double>(iteration);
  if (warmup > 0 && k <= warmup) return init + (*max_lr - init) * k / warmup;
  if (style == "constant") return *max_lr;
  if (k > decay) return *min_lr;
  if (decay <= warmup) return std::nullopt;
  const double r = (k - warmup) / (decay - warmup);
  const double coeff = style == "linear" ? 1.0 - r : 0.5 * (std::cos(std::numbers::pi * r) + 1.0);
  return *min_lr + coeff * (*max_lr - *min_lr);
}

std::vector<std::string> check_logged_learning_rates(const std::map<std::string, std::string>& args,
                                                     const StepLog& log) {
  std::vector<std::string> out;
  // A resumed run's scheduler state (and the skipped iterations before it) is not in the log: nothing to check.
  if (log.records.empty() || log.records.front().first_step != 0) return out;
  std::size_t more = 0;
  std::int64_t skipped = 0;
  for (const auto& rec : log.records) {
    // Megatron advances the scheduler only when the update succeeds (fp16 loss-scale skips do not count).
    skipped += rec.skipped;
    if (!rec.learning_rate) continue;
    const std::int64_t iteration = rec.last_step() + 1;
    auto want = megatron_learning_rate(args, iteration - skipped);
    if (!want) return {};
    const double got = *rec.learning_rate;
    if (std::fabs(got - *want) <= kPrintedRateTolerance * std::fabs(*want) + 1e-12) continue;
    if (out.size() < 3)
      out.push_back(
          fmt::format("{}:{}: the log prints learning rate {} at iteration {}{}, but the argument dump's "
                      "schedule (lr {}, min_lr {}, lr_decay_style {}) gives {}",
                      log.file, rec.line, fmt::format("{:.6E}", got), iteration,
                      skipped ? fmt::format(" ({} skipped before it)", skipped) : std::string(), args.at("lr"),
                      args.at("min_lr"), args.at("lr_decay_style"), fmt::format("{:.6E}", *want)));
    else
      ++more;
  }
  if (more) out.push_back(fmt::format("and {} like these", counted(std::int64_t(more), "more iteration")));
  return out;
}

}  // namespace openrecipes::checks
