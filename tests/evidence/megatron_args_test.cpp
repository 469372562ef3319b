// Megatron argument dump parser on the H200 fixture runs (values read from the logs by hand).
#include "evidence/megatron_args.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/files.h"
#include "testing/support.h"

namespace openrecipes::evidence {
namespace {
using testing::fixtures_dir;

TEST(MegatronArgs, h200_ref_dump_has_every_argument_with_its_value) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto path = fixtures_dir() / "runs/megatron-h200/ref.log";
  auto dump = parse_megatron_args(read_file(path), path.string());
  EXPECT_EQ(dump.values.size(), 846u);  // 848 lines between and including the two rules
  EXPECT_EQ(dump.values.at("lr"), "1e-05");
  EXPECT_EQ(dump.values.at("micro_batch_size"), "1");
  EXPECT_EQ(dump.values.at("recompute_granularity"), "selective");
  EXPECT_EQ(dump.values.at("global_batch_size"), "32");
  EXPECT_EQ(dump.values.at("seq_length"), "2048");
  EXPECT_EQ(dump.values.at("world_size"), "1");
  EXPECT_EQ(dump.values.at("config_logger_dir"), "");  // printed with an empty value
  // names of 48+ characters are printed with no dots
  EXPECT_EQ(dump.values.at("inference_dynamic_batching_cuda_graph_mixed_prefill_count"), "16");
  EXPECT_EQ(dump.values.at("ddp_param_name_patterns_for_fp32_local_accumulation"), "[]");
}

TEST(MegatronArgs, mbs2_and_lr10_differ_from_ref_where_source_says) {
  OPENRECIPES_REQUIRE_FIXTURES();
  auto mbs2 = parse_megatron_args(read_file(fixtures_dir() / "runs/megatron-h200/mbs2.log"), "mbs2.log");
  EXPECT_EQ(mbs2.values.at("micro_batch_size"), "2");
  EXPECT_EQ(mbs2.values.at("recompute_granularity"), "None");
  auto lr10 = parse_megatron_args(read_file(fixtures_dir() / "runs/megatron-h200/lr10.log"), "lr10.log");
  EXPECT_EQ(lr10.values.at("lr"), "0.0001");
}

TEST(MegatronArgs, unclosed_dump_is_a_truncated_log) {
  std::string text = "------------------------ arguments ------------------------\n  lr ............ 1e-05\n";
  try {
    parse_megatron_args(text, "x.log");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("x.log:1: the argument dump is not closed"), std::string::npos) << e.what();
  }
}

TEST(MegatronArgs, missing_dump_and_damaged_line_are_errors) {
  EXPECT_THROW(parse_megatron_args("no dump here\n", "x.log"), InputError);
  std::string text =
      "------------------------ arguments ------------------------\n  lr ............ 1e-05\n"
      "WARNING something else\n-------------------- end of arguments ---------------------\n";
  try {
    parse_megatron_args(text, "x.log");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("x.log:3: not an argument line"), std::string::npos) << e.what();
  }
}

TEST(MegatronArgs, duplicate_argument_is_an_error) {
  std::string text =
      "------------------------ arguments ------------------------\n  lr ............ 1e-05\n"
      "  lr ............ 1e-04\n-------------------- end of arguments ---------------------\n";
  EXPECT_THROW(parse_megatron_args(text, "x.log"), InputError);
}

}  // namespace
}  // namespace openrecipes::evidence
