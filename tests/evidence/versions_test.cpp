#include "evidence/versions.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace openrecipes::evidence
