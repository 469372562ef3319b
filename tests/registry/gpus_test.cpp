// registry/gpus.yaml's GPU types (src/registry/gpus.h): the bundled types carry the hardware the step-time model
// reads, each figure the one its source states (a dense peak is half the with-sparsity figure NVIDIA quotes); a type
// that gives part of its hardware is refused, naming what is missing.
#include "registry/gpus.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/support.h"

namespace openrecipes::registry {
namespace {

TEST(GpuTypes, the_bundled_types_carry_their_vendors_hardware_figures) {
  const auto gpus = load_gpus(testing::source_dir() / "registry/gpus.yaml");
  struct Want {
    const char* key;
    double fp8, hbm, nvlink, network;
  };
  // H100 and H200 SXM: FP8 3,958 TFLOPS with sparsity, so 1,979 dense; 3.35 and 4.8 TB/s; NVLink 900 GB/s. HGX B200:
  // FP8 9 PFLOPS a GPU with sparsity, 8 TB/s, NVLink 1.8 TB/s. p5, p5en and p6-b200: 3,200 Gbps of EFA.
  for (const Want& w : {Want{"H100", 3958.0 / 2, 3350, 900, 3200}, Want{"H200", 3958.0 / 2, 4800, 900, 3200},
                        Want{"B200", 9000.0 / 2, 8000, 1800, 3200}}) {
    SCOPED_TRACE(w.key);
    const auto& g = gpus.at(w.key);
    ASSERT_TRUE(g.hardware);
    EXPECT_DOUBLE_EQ(g.hardware->dense_fp8_tflops, w.fp8);
    EXPECT_DOUBLE_EQ(g.hardware->hbm_gb_per_s, w.hbm);
    EXPECT_DOUBLE_EQ(g.hardware->nvlink_gb_per_s, w.nvlink);
    EXPECT_DOUBLE_EQ(g.hardware->node_network_gbit_per_s, w.network);
    EXPECT_NEAR(g.dense_bf16_tflops * 2, g.hardware->dense_fp8_tflops, 1);  // FP8 doubles BF16 (989 is 1,979 / 2)
    EXPECT_THAT(g.hardware->hardware_source, ::testing::HasSubstr("https://www.nvidia.com/"));
  }
  // A100 80GB SXM: BF16 624 TFLOPS with sparsity, 312 dense; 2,039 GB/s; NVLink 600 GB/s; no FP8 tensor cores (0).
  // p4de.24xlarge: 400 Gbps of EFA, $27.44705 an hour, 8 GPUs.
  const auto& a = gpus.at("A100");
  ASSERT_TRUE(a.hardware);
  EXPECT_DOUBLE_EQ(a.dense_bf16_tflops, 624.0 / 2);
  EXPECT_DOUBLE_EQ(a.hardware->dense_fp8_tflops, 0);
  EXPECT_DOUBLE_EQ(a.hardware->hbm_gb_per_s, 2039);
  EXPECT_DOUBLE_EQ(a.hardware->nvlink_gb_per_s, 600);
  EXPECT_DOUBLE_EQ(a.hardware->node_network_gbit_per_s, 400);
  EXPECT_NEAR(a.dollars_per_gpu_hour, 27.44705 / 8, 1e-6);
  EXPECT_EQ(a.memory_mib, 81920);
}

TEST(GpuTypes, part_of_the_hardware_is_refused_naming_what_is_missing) {
  testing::TempDir dir;
  const auto file =
      dir.write("gpus.yaml",
                "version: 1\ngpus:\n  X1:\n    name: X\n    instance: I\n    instance_dollars_per_hour: 8\n"
                "    dollars_per_gpu_hour: 1\n    dense_bf16_tflops: 100\n    price_source: s\n"
                "    peak_source: s\n    price_date: 2026-01-01\n    device_names: [\"X\"]\n"
                "    dense_fp8_tflops: 200\n    hbm_gb_per_s: 1000\n");
  EXPECT_THAT(
      testing::message_of([&] { load_gpus(file); }),
      ::testing::HasSubstr("GPU type 'X1' gives part of its hardware: nvlink_gb_per_s, node_network_gbit_per_s, "
                           "hardware_source missing"));
}

}  // namespace
}  // namespace openrecipes::registry
