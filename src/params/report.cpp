// Human table and JSON for `openrecipes params` (SPEC §3 breakdown of N).
#include "params/report.h"

#include <fmt/format.h>

#include "core/text.h"

namespace openrecipes::params {

namespace {
std::string billions(std::int64_t n) { return fmt::format("{:.2f} B", static_cast<double>(n) / 1e9); }
}  // namespace

std::string format_table(const ParamCount& pc, const std::string& where, const ParamCount* config_check) {
  std::string out;
  if (pc.source == "checkpoint")
    out += fmt::format("N for {} from checkpoint {} ({} shard{}, {} tensors)\n\n", pc.model_type, where, pc.shards,
                       pc.shards == 1 ? "" : "s", pc.tensors);
  else
    out += fmt::format("N for {} from config arithmetic ({})\n\n", pc.model_type, where);
  out += fmt::format("{:<20}{:>9}{:>20}{:>20}\n", "counted", "tensors", "parameters", "in N");
  for (ParamClass c : kAllParamClasses) {
    if (!is_counted(c)) continue;
    const ClassCount& cc = pc.of(c);
    std::string extra;
    if (c == ParamClass::routed_expert && pc.top_k && pc.num_experts && cc.params > 0)
      extra = fmt::format("   top-{} of {} experts", *pc.top_k, *pc.num_experts);
    if (c == ParamClass::output_projection && pc.output_tied) extra = "   tied to the input embedding";
    out += fmt::format("{:<20}{:>9}{:>20}{:>20}{}\n", param_class_name(c),
                       pc.source == "checkpoint" ? std::to_string(cc.tensors) : std::string("-"),
                       with_thousands(cc.params), with_thousands(cc.active), extra);
  }
  out += fmt::format("{:<49}{:>20}   ({})\n\n", "N (active parameters per token)", with_thousands(pc.n_active),
                     billions(pc.n_active));
  bool any_excluded = false;
  for (ParamClass c : kAllParamClasses) {
    if (is_counted(c)) continue;
    const ClassCount& cc = pc.of(c);
    if (cc.tensors == 0 && cc.params == 0) continue;
    // "values", not "parameters": the quantization_scale row holds scales, which are not parameters.
    if (!any_excluded) out += fmt::format("{:<20}{:>9}{:>20}   {}\n", "left out of N", "tensors", "values", "why");
    any_excluded = true;
    out += fmt::format("{:<20}{:>9}{:>20}   {}\n", param_class_name(c),
                       pc.source == "checkpoint" ? std::to_string(cc.tensors) : std::string("-"),
                       with_thousands(cc.params), param_class_reason(c));
  }
  if (any_excluded) out += "\n";
  if (pc.total_params)
    out += fmt::format("stored parameters (FP4 unpacked): {} ({})\n", with_thousands(*pc.total_params),
                       billions(*pc.total_params));
  if (pc.quantization_scales && pc.quantization_scales->tensors > 0)
    out += fmt::format("quantization scales: {} values in {} tensors (not parameters: not in the total above)\n",
                       with_thousands(pc.quantization_scales->values), with_thousands(pc.quantization_scales->tensors));
  for (const auto& note : pc.notes) out += "note: " + note + "\n";
  if (config_check) {
    auto diffs = compare_counts(pc, *config_check);
    if (diffs.empty()) {
      out += fmt::format("config.json arithmetic: N {} — agrees with the headers\n",
                         with_thousands(config_check->n_active));
    } else {
      out += fmt::format("config.json arithmetic: N {} — DISAGREES with the headers:\n",
                         with_thousands(config_check->n_active));
      out += fmt::format("  {:<28}{:>20}{:>20}\n", "value", "headers", "config.json");
      for (const auto& d : diffs)
        out += fmt::format("  {:<28}{:>20}{:>20}\n", d.what, with_thousands(d.checkpoint), with_thousands(d.config));
    }
  }
  return out;
}

std::string format_tensor_list(const ParamCount& pc) {
  std::string out;
  for (const auto& t : pc.tensor_list)
    out += fmt::format("{:<20}{:>18}  {}\n", param_class_name(t.cls), with_thousands(t.params), t.name);
  return out;
}

nlohmann::ordered_json to_json(const ParamCount& pc, const std::string& where, const ParamCount* config_check) {
  using oj = nlohmann::ordered_json;
  oj j;
  j["source"] = pc.source;
  j["where"] = where;
  j["model_type"] = pc.model_type;
  j["N"] = pc.n_active;
  j["counted_total"] = pc.counted_total;
  j["total_params"] = pc.total_params ? oj(*pc.total_params) : oj(nullptr);
  j["quantization_scales"] = pc.quantization_scales ? oj{{"tensors", pc.quantization_scales->tensors},
                                                         {"values", pc.quantization_scales->values}}
                                                    : oj(nullptr);
  j["shards"] = pc.shards;
  j["tensors"] = pc.tensors;
  j["top_k"] = pc.top_k ? oj(*pc.top_k) : oj(nullptr);
  j["num_experts"] = pc.num_experts ? oj(*pc.num_experts) : oj(nullptr);
  j["output_tied"] = pc.output_tied;
  oj classes = oj::object();
  for (ParamClass c : kAllParamClasses) {
    const ClassCount& cc = pc.of(c);
    oj e;
    e["counted"] = is_counted(c);
    e["tensors"] = cc.tensors;
    e["params"] = cc.params;
    e["active"] = cc.active;
    e["reason"] = std::string(param_class_reason(c));
    e["example"] = cc.example;
    classes[std::string(param_class_name(c))] = std::move(e);
  }
  j["classes"] = std::move(classes);
  j["notes"] = pc.notes;
  if (config_check) {
    auto diffs = compare_counts(pc, *config_check);
    oj check;
    check["N"] = config_check->n_active;
    check["agrees"] = diffs.empty();
    oj list = oj::array();
    for (const auto& d : diffs)
      list.push_back(oj{{"what", d.what}, {"checkpoint", d.checkpoint}, {"config", d.config}});
    check["differences"] = std::move(list);
    j["config_check"] = std::move(check);
  }
  return j;
}

}  // namespace openrecipes::params
