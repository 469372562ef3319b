// GPU types and their prices and peaks, from registry/gpus.yaml (SPEC §3; PROTOCOL.md "Cost").
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "layout/step_time.h"

namespace openrecipes::registry {

/// What a step-time model needs of a GPU type beyond its BF16 peak (issue 42): the vendor's figures for one SXM GPU and
/// the instance's network, each from `hardware_source`.
struct GpuHardware {
  double dense_fp8_tflops = 0;  ///< dense FP8 peak, TFLOP/s (no sparsity); 0: no FP8 tensor cores (A100)
  double hbm_gb_per_s = 0;      ///< HBM bandwidth, GB/s (10^9 bytes)
  double nvlink_gb_per_s = 0;   ///< NVLink bandwidth of one GPU, GB/s, both directions together (NVIDIA's figure)
  double node_network_gbit_per_s = 0;  ///< the instance's inter-node network, Gbit/s for the node (all its NICs)
  std::string hardware_source;
};

/// The GPUs of every instance gpus.yaml prices: the rate is its price / this, and its network is shared by them.
inline constexpr std::int64_t kInstanceGpus = 8;

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
  std::optional<GpuHardware> hardware;  ///< absent when gpus.yaml gives none of its fields
};

/// Loads gpus.yaml. Throws InputError (file:line: field) on malformed YAML, missing or out-of-range fields,
/// unknown fields, a rate that is not the instance price / 8 (to the cent's hundredth), no device names, or some of
/// the hardware fields (dense_fp8_tflops, hbm_gb_per_s, nvlink_gb_per_s, node_network_gbit_per_s, hardware_source)
/// without the others.
std::map<std::string, GpuType> load_gpus(const std::filesystem::path& file);

/// The rates the step-time model reads (layout/step_time.h) of `gpu` in nodes of `gpus_per_node`. Throws InputError
/// naming the type when gpus.yaml gives it no hardware fields.
layout::GpuSpeed gpu_speed(const GpuType& gpu, std::int64_t gpus_per_node);

}  // namespace openrecipes::registry
