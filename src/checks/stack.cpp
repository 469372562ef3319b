// The stack check: recipe versions against the run's versions dump and argument dump (SPEC §6 "Stack").
#include "checks/stack.h"

#include <set>

#include <fmt/format.h>

namespace openrecipes::checks {
namespace {

// Which version names in a versions dump stand for a stack component.
std::vector<std::string> evidence_names(const std::string& component) {
  if (component == "pytorch") return {"torch", "pytorch"};
  if (component == "nccl") return {"nccl", "nvidia_nccl_cu12", "nvidia_nccl_cu13"};
  if (component == "megatron_lm") return {"megatron_lm_commit", "megatron_lm", "megatron_core_commit"};
  if (component == "megatron-lm_commit") return {"megatron_lm_commit", "megatron_lm"};
  if (component == "transformer_engine") return {"transformer_engine", "transformer_engine_torch"};
  return {component};
}

}  // namespace

StackCheck check_stack(const std::vector<StackEntry>& entries, const evidence::VersionDump* dump,
                       const std::map<std::string, std::string>* args) {
  StackCheck out;
  for (const auto& s : entries) {
    StackStatus st{s.component, s.version, "not pinned"};
    if (s.component == "transformer_engine" && s.version == "none") {
      // Not used: the argument dump must show the local (non-TE) implementation.
      auto it = args ? args->find("transformer_impl") : decltype(args->end()){};
      if (args && it != args->end() && it->second == "local")
        st.status = "pinned";
      else
        out.problems.push_back(
            "stack: transformer_engine is 'none' but the argument dump does not show --transformer-impl local");
      out.stack.push_back(st);
      continue;
    }
    if (dump) {
      std::set<std::string> shown;
      for (const auto& name : evidence_names(s.component))
        for (const auto& v : dump->of(name)) shown.insert(v);
      if (shown.count(s.version)) {
        st.status = "pinned";
      } else if (!shown.empty()) {
        std::string list;
        for (const auto& v : shown) list += (list.empty() ? "" : ", ") + v;
        out.problems.push_back(
            fmt::format("stack: the recipe says {} {}, but {} shows {}", s.component, s.version, dump->file, list));
        st.status = "mismatch";
      }
    }
    out.stack.push_back(st);
  }
  return out;
}

}  // namespace openrecipes::checks
