// The recipe's GPU type and count against the devices and world size its evidence shows (SPEC §5).
#include "checks/device.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/text.h"

namespace openrecipes::checks {

Reasons check_device(const DeviceClaim& claim, const evidence::VersionDump* dump,
                     const std::map<std::string, std::string>* args) {
  Reasons out;
  std::string accepted;
  for (const auto& n : claim.accepted_names) accepted += (accepted.empty() ? "'" : ", '") + n + "'";
  if (accepted.empty()) accepted = "none";
  if (!dump || dump->devices.empty()) {
    out.push_back(
        {Stage::device, "device.shown",
         fmt::format("the evidence names no GPU{}, so the recipe's GPU type {} cannot be checked",
                     dump ? " (" + dump->file + " lists none)" : " (the recipe has no versions dump)", claim.gpu),
         "keep the run's `nvidia-smi` (or `nvidia-smi --query-gpu=index,name --format=csv`) output in the "
         "versions dump: openrecipes run records it"});
  } else {
    std::vector<std::string> seen;
    for (const auto& d : dump->devices) {
      if (std::find(claim.accepted_names.begin(), claim.accepted_names.end(), d.name) != claim.accepted_names.end())
        continue;
      if (std::find(seen.begin(), seen.end(), d.name) != seen.end()) continue;
      seen.push_back(d.name);
      out.push_back({Stage::device, "device.type",
                     fmt::format("the evidence shows GPU {} '{}' ({}:{}), which is not the recipe's GPU type {} "
                                 "(registry/gpus.yaml accepts {})",
                                 d.index, terminal_safe(d.name, true), d.file, d.line, claim.gpu, accepted),
                     "file the recipe under the GPU type it ran on"});
    }
  }
  auto it = args ? args->find("world_size") : decltype(args->end()){};
  if (!args || it == args->end()) {
    out.push_back({Stage::device, "device.world-size",
                   fmt::format("the argument dump records no world_size, so the recipe's {} cannot be checked",
                               counted(claim.gpus, "GPU")),
                   "keep the run's whole argument dump as evidence"});
  } else if (auto n = parse_int(it->second); !n || *n != claim.gpus) {
    out.push_back({Stage::device, "device.world-size",
                   fmt::format("the recipe records gpus: {}, but its argument dump has world_size = {}", claim.gpus,
                               quote_for_message(it->second)),
                   "record the GPU count the run used"});
  }
  if (auto fp8 = args ? args->find("fp8") : decltype(args->end()){};
      !claim.fp8 && args && fp8 != args->end() && fp8->second != "None" && !fp8->second.empty())
    out.push_back(
        {Stage::device, "device.fp8",
         fmt::format("the argument dump trains in FP8 (fp8 = {}), which GPU type {} cannot run: it has no FP8 "
                     "tensor cores (registry/gpus.yaml dense_fp8_tflops 0)",
                     quote_for_message(fp8->second), claim.gpu),
         "file the recipe under the GPU type it ran on"});
  return out;
}

std::string evidence_device(const evidence::VersionDump* dump) {
  if (!dump || dump->devices.empty()) return "";
  const std::string& first = dump->devices.front().name;
  for (const auto& d : dump->devices)
    if (d.name != first) return "";
  return first;
}

}  // namespace openrecipes::checks
