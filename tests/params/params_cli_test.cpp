// `openrecipes params` end to end. The CLI links every module; when the binary is not built (or predates this
// subcommand) these tests skip rather than fail, so or_params_tests does not depend on other stages building.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "hf_layouts.h"
#include "safetensors_writer.h"
#include "testing/support.h"

namespace openrecipes::params {
namespace {
using ::testing::HasSubstr;
using json = nlohmann::json;
namespace st = testing::st;

bool cli_has_params() {
  const char* bin = std::getenv("OPENRECIPES_BIN");
  std::filesystem::path p = bin && *bin ? bin : std::filesystem::path(OPENRECIPES_BUILD_DIR) / "openrecipes";
  if (!std::filesystem::exists(p)) return false;
  return testing::run_cli({"params", "--help"}).exit_code == 0;
}

#define REQUIRE_CLI()                                                                                 \
  do {                                                                                                \
    if (!cli_has_params()) GTEST_SKIP() << "openrecipes binary with the params subcommand not built"; \
  } while (0)

json tiny() { return testing::hf::tiny_qwen3_moe(); }

TEST(ParamsCli, checkpoint_and_config_agree_exit_0_with_json) {
  REQUIRE_CLI();
  testing::TempDir d;
  auto t = testing::hf::layout_for(tiny());
  st::write_sharded(d / "ckpt", t, st::split_evenly(t, 2));
  d.write("ckpt/config.json", tiny().dump());
  auto r = testing::run_cli({"params", (d / "ckpt").string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["N"], 2 * (3072 + 128 + 2 * 1536) + 3200);  // see report_test: the same hand calculation
  EXPECT_EQ(j["config_check"]["agrees"], true);
}

TEST(ParamsCli, a_disagreeing_config_exits_1_and_bad_input_exits_2) {
  REQUIRE_CLI();
  testing::TempDir d;
  auto t = testing::hf::layout_for(tiny());
  st::write_sharded(d / "ckpt", t, st::split_evenly(t, 1));
  json wrong = tiny();
  wrong["moe_intermediate_size"] = 8;  // the shapes in the headers say 16
  auto config = d.write("wrong.json", wrong.dump());
  auto r = testing::run_cli({"params", (d / "ckpt").string(), "--config", config.string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("DISAGREES"));
  auto bad = testing::run_cli({"params", (d / "missing").string(), "--config", config.string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("missing: not found"));
}

TEST(ParamsCli, a_200k_deep_config_is_bad_input_not_a_crash) {
  REQUIRE_CLI();
  testing::TempDir d;
  auto config = d.write("deep.json", "{\"a\": " + std::string(200000, '[') + std::string(200000, ']') + "}");
  auto r = testing::run_cli({"params", "--config", config.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr(config.string() + ": JSON nested deeper than 64 levels"));
}

TEST(ParamsCli, a_key_twice_in_config_json_is_bad_input) {
  REQUIRE_CLI();
  testing::TempDir d;
  std::string text = tiny().dump();
  text.insert(1, "\"hidden_size\": 4096, ");  // nlohmann would keep the last one silently
  auto config = d.write("dup.json", text);
  auto r = testing::run_cli({"params", "--config", config.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("the key \"hidden_size\" appears twice"));
}

TEST(ParamsCli, config_alone_gives_n_before_a_download) {
  REQUIRE_CLI();
  OPENRECIPES_REQUIRE_FIXTURES();
  auto r =
      testing::run_cli({"params", "--config", (testing::fixtures_dir() / "configs/Qwen3-0.6B/config.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("595,984,384"));
  // The model's folder reads its config.json: the same count (28 x 15,728,640 + 155,582,464 = 595,984,384).
  auto folder = testing::run_cli({"params", "--config", (testing::fixtures_dir() / "configs/Qwen3-0.6B").string()});
  ASSERT_EQ(folder.exit_code, 0) << folder.err;
  EXPECT_EQ(folder.out, r.out);
  testing::TempDir empty;
  auto none = testing::run_cli({"params", "--config", empty.path().string()});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_THAT(none.err, HasSubstr("a folder without config.json"));
}

}  // namespace
}  // namespace openrecipes::params
