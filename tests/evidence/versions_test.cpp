#include "evidence/versions.h"

#include <gtest/gtest.h>

#include <set>

#include "core/files.h"
#include "testing/support.h"

namespace openrecipes::evidence {
namespace {

TEST(Versions, h200_env_dump_shows_the_stack) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto path = testing::fixtures_dir() / "runs/megatron-h200/env.txt";
  auto v = parse_versions(read_file(path), path.string());
  EXPECT_TRUE(v.shows("torch", "2.11.0+cu130"));
  EXPECT_TRUE(v.shows("torch", "2.11.0"));  // pip list prints it again without the local tag
  EXPECT_TRUE(v.shows("cuda", "13.0"));
  EXPECT_TRUE(v.shows("nccl", "2.28.9"));
  EXPECT_TRUE(v.shows("nvidia-nccl-cu13", "2.28.9"));
  EXPECT_TRUE(v.shows("megatron_lm_commit", "d98e8a64ddf34856e74b24714e3bedb2f5a39553"));
  EXPECT_TRUE(v.shows("nvidia_driver", "580.159.04"));
  EXPECT_TRUE(v.of("transformer_engine").empty());
}

TEST(Versions, names_fold_dashes_dots_and_case) {
  auto v = parse_versions("Transformer-Engine 2.9.0\ndeep_ep==1.2.1\nsome prose line with words 1.0\n", "v.txt");
  EXPECT_TRUE(v.shows("transformer_engine", "2.9.0"));
  EXPECT_TRUE(v.shows("deep-ep", "1.2.1"));
  EXPECT_TRUE(v.of("some").empty());
}

// Regression (SPEC §6 "Stack"): a probe that prints its versions on one line was read as prose, so PyTorch, CUDA and
// NCCL showed "not pinned" and a recipe recording other versions was accepted.
TEST(Versions, every_pair_on_one_line_is_read) {
  auto v = parse_versions("torch 2.11.0+cu130 cuda 13.0 nccl 2.28.9\n", "v.txt");
  EXPECT_EQ(v.of("torch"), std::set<std::string>{"2.11.0+cu130"});
  EXPECT_EQ(v.of("cuda"), std::set<std::string>{"13.0"});
  EXPECT_EQ(v.of("nccl"), std::set<std::string>{"2.28.9"});
  auto w = parse_versions("versions: torch==2.10.0, cuda: 12.9, deep_ep 1.2.1; built 2026\n", "w.txt");
  EXPECT_EQ(w.of("torch"), std::set<std::string>{"2.10.0"});
  EXPECT_EQ(w.of("cuda"), std::set<std::string>{"12.9"});
  EXPECT_EQ(w.of("deep_ep"), std::set<std::string>{"1.2.1"});
  EXPECT_EQ(w.of("built"), std::set<std::string>{"2026"});
}

TEST(Versions, words_that_are_not_versions_are_not_read) {
  // nvidia-smi's table cells and topology matrix: 77W, 0-15, NV18 are not versions; "Version:" is a label.
  auto v = parse_versions(
      "N/A   35C    P0   77W /  700W\nGPU0\t X \tNV18\t0-15\t0\nmegatron_lm_commit: not seen (git not found)\n"
      "megatron_lm_commit: D98E8A64\nCUDA Version 13.0 and Version: 9.9\n",
      "v.txt");
  EXPECT_TRUE(v.of("p0").empty());
  EXPECT_TRUE(v.of("x").empty());
  EXPECT_TRUE(v.of("megatron_lm_commit").empty());  // a commit is 7-40 lowercase hex digits
  EXPECT_TRUE(v.of("version").empty());
  EXPECT_EQ(v.of("cuda"), std::set<std::string>{});  // "CUDA Version 13.0": 'Version' is not a version
}

TEST(Versions, megatron_banners_are_read_from_a_log) {
  const std::string log =
      "> PyTorch version ................ 2.11.0+cu130\n> Megatron-Core version .......... 0.20.0+d98e8a6\n"
      "> Transformer Engine version ... 0.0.0\n [2026-12-02] iteration 1/ 20 | lr: 1.0E-05 | torch 9.9\n";
  auto b = parse_version_banners(log, "train.log");
  EXPECT_EQ(b.of("pytorch"), std::set<std::string>{"2.11.0+cu130"});
  EXPECT_EQ(b.of("megatron_core"), std::set<std::string>{"0.20.0+d98e8a6"});
  EXPECT_EQ(b.of("transformer_engine"), std::set<std::string>{"0.0.0"});
  EXPECT_TRUE(b.of("torch").empty());  // only banners are read from a log
  EXPECT_TRUE(b.of("lr").empty());
  EXPECT_EQ(b.versions.size(), 3u);
}

TEST(Versions, devices_from_nvidia_smi_table_list_and_query) {
  auto v = parse_versions(
      "|   0  NVIDIA H100 80GB HBM3          On  |   00000000:18:00.0 Off |                    0 |\n"
      "|   1  NVIDIA H100 80GB HBM3          On  |   00000000:2A:00.0 Off |                    0 |\n"
      "GPU 2: NVIDIA B200 (UUID: GPU-1234)\n"
      "--- nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader\n"
      "0, NVIDIA H200, 580.159.04\n1, NVIDIA H200, 580.159.04\n--- next\n3, Not A Device, 1.0\n",
      "v.txt");
  ASSERT_EQ(v.devices.size(), 5u);
  EXPECT_EQ(v.devices[0], (Device{0, "NVIDIA H100 80GB HBM3", 1, "v.txt"}));
  EXPECT_EQ(v.devices[1], (Device{1, "NVIDIA H100 80GB HBM3", 2, "v.txt"}));
  EXPECT_EQ(v.devices[2], (Device{2, "NVIDIA B200", 3, "v.txt"}));
  EXPECT_EQ(v.devices[3], (Device{0, "NVIDIA H200", 5, "v.txt"}));
  EXPECT_EQ(v.devices[4], (Device{1, "NVIDIA H200", 6, "v.txt"}));
  EXPECT_TRUE(v.of("h200").empty());  // a device row gives no version pair
}

// Found by the review: formats that name a GPU without nvidia-smi's table or -L's UUID.
TEST(Versions, devices_from_other_nvidia_smi_formats) {
  auto v = parse_versions(
      "GPU 1: NVIDIA H100 80GB HBM3\n"
      "==============NVSMI LOG==============\n    Product Name                          : NVIDIA H100 80GB HBM3\n"
      "--- nvidia-smi --query-gpu=name --format=csv\nname\nNVIDIA H100 80GB HBM3\nNVIDIA H100 80GB HBM3\n",
      "v.txt");
  ASSERT_EQ(v.devices.size(), 4u);
  EXPECT_EQ(v.devices[0], (Device{1, "NVIDIA H100 80GB HBM3", 1, "v.txt"}));
  EXPECT_EQ(v.devices[1], (Device{1, "NVIDIA H100 80GB HBM3", 3, "v.txt"}));  // -q lists GPUs in order
  EXPECT_EQ(v.devices[2], (Device{0, "NVIDIA H100 80GB HBM3", 6, "v.txt"}));  // a name column's rows, in order
  EXPECT_EQ(v.devices[3], (Device{1, "NVIDIA H100 80GB HBM3", 7, "v.txt"}));
}

TEST(Versions, fixture_dumps_name_their_device) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto path = testing::fixtures_dir() / "runs/megatron-h200/env.txt";
  auto v = parse_versions(read_file(path), path.string());
  ASSERT_EQ(v.devices.size(), 1u);
  EXPECT_EQ(v.devices[0].name, "NVIDIA H200");
  EXPECT_EQ(v.devices[0].index, 0);
}

}  // namespace
}  // namespace openrecipes::evidence
