// The stack check: recipe versions against the run's versions dump, log banners and argument dump (SPEC §6 "Stack").
#include "checks/stack.h"

#include <algorithm>
#include <optional>
#include <set>

#include <fmt/format.h>

namespace openrecipes::checks {
namespace {

// Which version names in a versions dump stand for a stack component.
std::vector<std::string> evidence_names(const std::string& component) {
  if (component == "pytorch") return {"torch", "pytorch"};
  if (component == "nccl") return {"nccl", "nvidia_nccl_cu12", "nvidia_nccl_cu13"};
  if (component == "megatron_lm") return {"megatron_lm_commit", "megatron_lm", "megatron_core_commit"};
  if (component == "megatron-lm_commit") return {"megatron_lm_commit", "megatron_lm", "megatron_core_commit"};
  if (component == "transformer_engine") return {"transformer_engine", "transformer_engine_torch"};
  return {component};
}

bool is_commit_component(const std::string& c) { return c == "megatron_lm" || c.ends_with("_commit"); }
bool is_megatron_commit(const std::string& c) { return c == "megatron_lm" || c == "megatron-lm_commit"; }

// The commit in Megatron-Core's local version "0.20.0+d98e8a6", when it holds one.
std::optional<std::string> core_commit(const std::string& version) {
  const auto plus = version.find('+');
  if (plus == std::string::npos) return std::nullopt;
  std::string h = version.substr(plus + 1);
  if (h.size() < 7 || h.size() > 40 ||
      !std::all_of(h.begin(), h.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }))
    return std::nullopt;
  return h;
}

}  // namespace

bool commits_agree(const std::string& a, const std::string& b) {
  const auto n = std::min(a.size(), b.size());
  return n >= 7 && a.compare(0, n, b, 0, n) == 0;
}

StackCheck check_stack(const std::vector<StackEntry>& entries, const evidence::VersionDump* dump,
                       const std::map<std::string, std::string>* args) {
  StackCheck out;
  for (const auto& s : entries) {
    StackStatus st{s.component, s.version, "not pinned"};
    std::set<std::string> shown;
    if (dump) {
      for (const auto& name : evidence_names(s.component))
        for (const auto& v : dump->of(name)) shown.insert(v);
      if (is_megatron_commit(s.component))
        for (const auto& v : dump->of("megatron_core"))
          if (auto c = core_commit(v)) shown.insert(*c);
      if (s.component == "transformer_engine" && shown.erase("0.0.0")) shown.insert("none");
    }
    if (s.component == "transformer_engine" && s.version == "none") {
      // Not used: the argument dump must show the local (non-TE) implementation.
      auto it = args ? args->find("transformer_impl") : decltype(args->end()){};
      if (args && it != args->end() && it->second == "local")
        st.status = "pinned";
      else
        out.problems.push_back({Stage::stack, "stack.transformer-engine-none",
                                "transformer_engine is 'none' but the argument dump does not show "
                                "--transformer-impl local",
                                "give the Transformer Engine version the run used"});
      out.stack.push_back(st);
      continue;
    }
    const bool agrees = std::any_of(shown.begin(), shown.end(), [&](const std::string& v) {
      return v == s.version || (is_commit_component(s.component) && commits_agree(v, s.version));
    });
    // The evidence must agree with itself too: pip's "2.11.0" and torch's own "2.11.0+cu130" are one version, a
    // banner's 2.11.0 beside a probe's 2.9.0 are two, and a recipe may not pick the one it likes.
    std::set<std::string> distinct;
    for (const auto& v : shown) distinct.insert(is_commit_component(s.component) ? v : v.substr(0, v.find('+')));
    bool self_consistent = true;
    for (const auto& a : distinct)
      for (const auto& b : distinct)
        self_consistent &= a == b || (is_commit_component(s.component) && commits_agree(a, b));
    if (agrees && self_consistent) {
      st.status = "pinned";
    } else if (agrees) {
      std::string list;
      for (const auto& v : shown) list += (list.empty() ? "" : ", ") + v;
      out.problems.push_back(
          {Stage::stack, "stack.version",
           fmt::format("the evidence shows several versions of {}: {} ({})", s.component, list, dump->file),
           "keep the evidence of one run: its files must agree on what it ran"});
      st.status = "mismatch";
    } else if (!shown.empty()) {
      std::string list;
      for (const auto& v : shown) list += (list.empty() ? "" : ", ") + v;
      out.problems.push_back({Stage::stack, "stack.version",
                              fmt::format("the recipe says {} {}, but the evidence shows {} ({})", s.component,
                                          s.version, list, dump->file),
                              "record the version the run's evidence shows"});
      st.status = "mismatch";
    }
    out.stack.push_back(st);
  }
  return out;
}

}  // namespace openrecipes::checks
