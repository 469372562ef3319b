// GPU types and their prices and peaks, from registry/gpus.yaml (SPEC §3; PROTOCOL.md "Cost").
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace openrecipes::registry {

/// One GPU type. The rate is the instance's on-demand price divided by its 8 GPUs.
struct GpuType {
  std::string key;       ///< "H200"
  std::string name;      ///< "NVIDIA H200 141GB"
  std::string instance;  ///< "AWS p5en.48xlarge"
  double instance_dollars_per_hour = 0;
  double dollars_per_gpu_hour = 0;  ///< instance price / 8
  double dense_bf16_tflops = 0;     ///< dense BF16 peak, TFLOP/s
  std::string price_source, peak_source;
  std::string price_date;  ///< YYYY-MM-DD the price was read
  /// The names the NVIDIA driver reports for this type (nvidia-smi, torch.cuda.get_device_name): a run's evidence
  /// must show one of them exactly (SPEC §5).
  std::vector<std::string> device_names;
  double memory_mib = 0;      ///< one GPU's memory as nvidia-smi reports it (MiB); 0 when gpus.yaml does not say
  std::string memory_source;  ///< where memory_mib was read
};

/// Loads gpus.yaml. Throws InputError (file:line: field) on malformed YAML, missing or out-of-range fields,
/// unknown fields, a rate that is not the instance price / 8 (to the cent's hundredth), or no device names.
std::map<std::string, GpuType> load_gpus(const std::filesystem::path& file);

}  // namespace openrecipes::registry
