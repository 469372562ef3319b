// registry/gpus.yaml loader (SPEC §3).
#include "registry/gpus.h"

#include <cmath>
#include <regex>

#include <fmt/format.h>

#include "core/error.h"
#include "core/text.h"
#include "core/yaml.h"

namespace openrecipes::registry {

std::map<std::string, GpuType> load_gpus(const std::filesystem::path& file) {
  auto root = load_yaml_file(file);
  root.reject_unknown_keys({"version", "gpus"});
  root.require("version").as_int(1, 1);
  std::map<std::string, GpuType> out;
  auto gpus = root.require("gpus");
  static const std::regex key_re("[A-Za-z0-9][A-Za-z0-9_.-]{0,31}");
  static const std::regex date_re("[0-9]{4}-[0-9]{2}-[0-9]{2}");
  for (const auto& key : gpus.keys()) {
    auto g = gpus[key];
    if (!std::regex_match(key, key_re)) throw InputError(g.where(), "GPU type '" + key + "' is not a simple name");
    g.reject_unknown_keys({"name", "instance", "instance_dollars_per_hour", "dollars_per_gpu_hour", "dense_bf16_tflops",
                           "price_source", "peak_source", "price_date", "device_names", "memory_mib", "memory_source",
                           "dense_fp8_tflops", "hbm_gb_per_s", "nvlink_gb_per_s", "node_network_gbit_per_s",
                           "hardware_source"});
    GpuType t;
    t.key = key;
    t.name = g.require("name").as_string(200);
    t.instance = g.require("instance").as_string(200);
    t.instance_dollars_per_hour = g.require("instance_dollars_per_hour").as_double(0.01, 1e6);
    t.dollars_per_gpu_hour = g.require("dollars_per_gpu_hour").as_double(0.001, 1e5);
    t.dense_bf16_tflops = g.require("dense_bf16_tflops").as_double(1, 1e6);
    t.price_source = g.require("price_source").as_string(500);
    t.peak_source = g.require("peak_source").as_string(500);
    t.price_date = g.require("price_date").as_string(10);
    if (g["memory_mib"].defined()) {
      t.memory_mib = g.require("memory_mib").as_double(1024, 1e8);
      t.memory_source = g.require("memory_source").as_string(500);
    }
    static constexpr const char* kHardware[] = {"dense_fp8_tflops", "hbm_gb_per_s", "nvlink_gb_per_s",
                                                "node_network_gbit_per_s", "hardware_source"};
    int given = 0;
    for (const char* f : kHardware) given += g[f].defined() ? 1 : 0;
    if (given > 0 && given < 5) {
      std::string missing;
      for (const char* f : kHardware)
        if (!g[f].defined()) missing += std::string(missing.empty() ? "" : ", ") + f;
      throw InputError(g.where(), "GPU type '" + key + "' gives part of its hardware: " + missing + " missing",
                       "give all five hardware fields (docs/step-time-model.md), or none");
    }
    if (given == 5) {
      GpuHardware h;
      h.dense_fp8_tflops = g.require("dense_fp8_tflops").as_double(0, 1e6);  // 0: no FP8 tensor cores (A100)
      h.hbm_gb_per_s = g.require("hbm_gb_per_s").as_double(1, 1e6);
      h.nvlink_gb_per_s = g.require("nvlink_gb_per_s").as_double(1, 1e6);
      h.node_network_gbit_per_s = g.require("node_network_gbit_per_s").as_double(1, 1e6);
      h.hardware_source = g.require("hardware_source").as_string(500);
      t.hardware = h;
    }
    for (const auto& n : g.require("device_names").items()) {
      t.device_names.push_back(n.as_string(100));
      if (t.device_names.back().empty()) throw InputError(n.where(), "an empty device name");
    }
    if (t.device_names.empty())
      throw InputError(g["device_names"].where(), "no device names",
                       "list the names the NVIDIA driver reports for this GPU type (nvidia-smi -L)");
    if (!std::regex_match(t.price_date, date_re))
      throw InputError(g["price_date"].where(), "expected a date YYYY-MM-DD");
    const double per_gpu = t.instance_dollars_per_hour / double(kInstanceGpus);
    if (std::fabs(per_gpu - t.dollars_per_gpu_hour) > 1e-4)
      throw InputError(g["dollars_per_gpu_hour"].where(),
                       fmt::format("{} is not the instance price {} / {} = {}", format_double(t.dollars_per_gpu_hour),
                                   format_double(t.instance_dollars_per_hour), kInstanceGpus, format_double(per_gpu)),
                       "the rate is the on-demand instance price divided by its 8 GPUs");
    out.emplace(key, t);
  }
  if (out.empty()) throw InputError(file.string(), "no GPU types");
  return out;
}

layout::GpuSpeed gpu_speed(const GpuType& gpu, std::int64_t gpus_per_node) {
  if (!gpu.hardware)
    throw InputError("gpus.yaml: " + gpu.key, "no hardware figures for the step-time model",
                     "give dense_fp8_tflops, hbm_gb_per_s, nvlink_gb_per_s, node_network_gbit_per_s and "
                     "hardware_source");
  const GpuHardware& h = *gpu.hardware;
  return {gpu.dense_bf16_tflops,     h.dense_fp8_tflops, h.hbm_gb_per_s, h.nvlink_gb_per_s,
          h.node_network_gbit_per_s, kInstanceGpus,      gpus_per_node};
}

}  // namespace openrecipes::registry
