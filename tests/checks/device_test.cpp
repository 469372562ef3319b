// Tests for src/checks/device: the recipe's GPU type and count against the devices and world size its evidence shows
// (SPEC §5).
#include "checks/device.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/files.h"
#include "testing/support.h"

namespace openrecipes::checks {
namespace {

const DeviceClaim kH200{"H200", {"NVIDIA H200"}, 1};
const DeviceClaim kH100{"H100", {"NVIDIA H100 80GB HBM3"}, 1};
const std::map<std::string, std::string> kOneRank{{"world_size", "1"}};

std::vector<std::string> texts(const Reasons& r) {
  std::vector<std::string> out;
  for (const auto& x : r) out.push_back(x.text());
  return out;
}

TEST(Device, the_real_h200_runs_name_their_device) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto path = testing::fixtures_dir() / "runs/megatron-h200/env.txt";
  auto dump = evidence::parse_versions(read_file(path), "evidence/env.txt");
  EXPECT_THAT(check_device(kH200, &dump, &kOneRank), ::testing::IsEmpty());
  EXPECT_EQ(evidence_device(&dump), "NVIDIA H200");
  // SPEC §5 (the device): the same runs filed under H100 would be priced at H100's rate.
  EXPECT_THAT(texts(check_device(kH100, &dump, &kOneRank)),
              ::testing::ElementsAre("device: the evidence shows GPU 0 'NVIDIA H200' (evidence/env.txt:10), which is "
                                     "not the recipe's GPU type H100 (registry/gpus.yaml accepts "
                                     "'NVIDIA H100 80GB HBM3')"));
}

TEST(Device, evidence_without_a_device_or_world_size_leaves_the_claim_unchecked) {
  auto none = evidence::parse_versions("torch 2.11.0\n", "evidence/versions.txt");
  EXPECT_THAT(texts(check_device(kH200, &none, nullptr)),
              ::testing::ElementsAre("device: the evidence names no GPU (evidence/versions.txt lists none), so the "
                                     "recipe's GPU type H200 cannot be checked",
                                     "device: the argument dump records no world_size, so the recipe's 1 GPU "
                                     "cannot be checked"));
  EXPECT_THAT(texts(check_device(kH200, nullptr, &kOneRank)),
              ::testing::ElementsAre("device: the evidence names no GPU (the recipe has no versions dump), so the "
                                     "recipe's GPU type H200 cannot be checked"));
  EXPECT_EQ(evidence_device(&none), "");
}

TEST(Device, a_world_size_other_than_the_gpu_count_and_a_mixed_node_are_named) {
  auto two = evidence::parse_versions("0, NVIDIA H200, 580\n", "v.txt");  // no query header: not a device list
  EXPECT_TRUE(two.devices.empty());
  auto mixed = evidence::parse_versions(
      "--- nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader\n0, NVIDIA H200, 580.1\n"
      "1, NVIDIA H200 NVL, 580.1\n2, NVIDIA H200 NVL, 580.1\n",
      "v.txt");
  std::map<std::string, std::string> eight{{"world_size", "8"}};
  EXPECT_THAT(texts(check_device({"H200", {"NVIDIA H200"}, 4}, &mixed, &eight)),
              ::testing::ElementsAre("device: the evidence shows GPU 1 'NVIDIA H200 NVL' (v.txt:3), which is not the "
                                     "recipe's GPU type H200 (registry/gpus.yaml accepts 'NVIDIA H200')",
                                     "device: the recipe records gpus: 4, but its argument dump has world_size = '8'"));
  EXPECT_EQ(evidence_device(&mixed), "");  // several names: none to show
}

// An A100 (gpus.yaml dense_fp8_tflops 0) has no FP8 tensor cores: a dump that trains in FP8 is not its evidence.
TEST(Device, fp8_training_on_a_type_without_fp8_is_named) {
  auto a100 = evidence::parse_versions(
      "--- nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader\n0, NVIDIA A100-SXM4-80GB, 580.1\n",
      "v.txt");
  std::map<std::string, std::string> fp8{{"world_size", "1"}, {"fp8", "hybrid"}};
  EXPECT_THAT(texts(check_device({"A100", {"NVIDIA A100-SXM4-80GB"}, 1, false}, &a100, &fp8)),
              ::testing::ElementsAre("device: the argument dump trains in FP8 (fp8 = 'hybrid'), which GPU type A100 "
                                     "cannot run: it has no FP8 tensor cores (registry/gpus.yaml dense_fp8_tflops 0)"));
  fp8["fp8"] = "None";
  EXPECT_TRUE(check_device({"A100", {"NVIDIA A100-SXM4-80GB"}, 1, false}, &a100, &fp8).empty());
  fp8["fp8"] = "hybrid";
  EXPECT_TRUE(check_device({"H100", {"NVIDIA A100-SXM4-80GB"}, 1, true}, &a100, &fp8).empty());
}

}  // namespace
}  // namespace openrecipes::checks
