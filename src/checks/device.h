// The device and GPU count a recipe publishes against its run's evidence (SPEC §5): the GPUs the evidence lists must
// be of the recipe's GPU type, and the argument dump's world size must be its GPU count. A recipe whose evidence
// shows no device is not verified: its `gpu:` (which sets its price and its peak FLOPs) would be unchecked.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/reason.h"
#include "evidence/versions.h"

namespace openrecipes::checks {

/// What the recipe says it ran on.
struct DeviceClaim {
  std::string gpu;                          ///< the GPU type (a key of gpus.yaml): "H200"
  std::vector<std::string> accepted_names;  ///< the names the driver reports for that type (gpus.yaml device_names)
  std::int64_t gpus = 0;                    ///< the recipe's GPU count
  bool fp8 = true;  ///< the type has FP8 tensor cores (gpus.yaml dense_fp8_tflops above 0, or no hardware given)
};

/// Checks `claim` against the devices `dump` lists (nullptr: no versions dump) and the argument dump `args`
/// (nullptr: none). Reasons (stage "device"): the evidence lists no GPU; a GPU whose name is not exactly one of the
/// accepted names (naming it, its file and line, and the names the type accepts); no world_size in the argument dump;
/// a world size other than the recipe's GPU count; FP8 training (the dump's fp8 other than None) on a type without FP8
/// tensor cores (an A100 cannot run it: the evidence is not of this GPU type). Never throws.
Reasons check_device(const DeviceClaim& claim, const evidence::VersionDump* dump,
                     const std::map<std::string, std::string>* args);

/// The one GPU name the evidence shows, when every device it lists has the same name; "" otherwise.
std::string evidence_device(const evidence::VersionDump* dump);

}  // namespace openrecipes::checks
