// tools/active_params.py, the independent Python counterpart of `openrecipes params` (SPEC §3: N from safetensors
// headers plus config.json), against count_from_checkpoint: for every fixture architecture a sparse checkpoint is
// written, counted in-process and by the Python tool, and N, the totals, the quantization scales and every class's
// tensors, parameters and active parameters must be equal, as must the --tensors listing and the human table. Bad
// input must make the tool exit 2 with one line naming the file (and the tensor), never a traceback.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "core/error.h"
#include "hf_layouts.h"
#include "params/count.h"
#include "params/report.h"
#include "safetensors_writer.h"
#include "testing/param_name.h"
#include "testing/support.h"

namespace openrecipes::params {
namespace {
namespace fs = std::filesystem;
namespace st = testing::st;
namespace hf = testing::hf;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::TempDir;
using json = nlohmann::json;
using oj = nlohmann::ordered_json;

fs::path tool() { return testing::source_dir() / "tools/active_params.py"; }

testing::ProcessResult run_tool(const std::vector<std::string>& args) {
  std::vector<std::string> argv{testing::oracle_python(), tool().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return testing::run_process(argv);
}

json read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

// Configs kept with these tests (tests/params/configs/<model>) need no fixtures; the others are fixture configs.
bool is_test_config(const std::string& model) {
  return fs::exists(testing::source_dir() / "tests/params/configs" / model / "config.json");
}
fs::path config_file(const std::string& model) {
  return is_test_config(model) ? testing::source_dir() / "tests/params/configs" / model / "config.json"
                               : testing::fixtures_dir() / "configs" / model / "config.json";
}

std::vector<std::string> keys_of(const oj& j) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  return keys;
}

oj field(const oj& j, const std::string& key) { return j.is_object() && j.contains(key) ? j.at(key) : oj(); }

// The tool's --json must hold, in openrecipes' key order, the same counts as to_json(pc): N, totals, scales,
// shards, tensors, MoE fields, tying, and per class counted, tensors, params and active.
void expect_same_json(const ParamCount& pc, const std::string& where, const oj& py) {
  const oj cxx = to_json(pc, where);
  ASSERT_TRUE(py.is_object());
  std::vector<std::string> expected_keys = keys_of(cxx);
  if (py.contains("tensor_list")) expected_keys.push_back("tensor_list");
  EXPECT_EQ(keys_of(py), expected_keys);
  for (const char* k : {"source", "where", "model_type", "N", "counted_total", "total_params", "shards", "tensors",
                        "top_k", "num_experts", "output_tied"})
    EXPECT_EQ(field(py, k), cxx.at(k)) << k;
  for (const char* k : {"tensors", "values"})
    EXPECT_EQ(field(field(py, "quantization_scales"), k), cxx.at("quantization_scales").at(k))
        << "quantization_scales." << k;
  const oj& classes = cxx.at("classes");
  EXPECT_EQ(keys_of(field(py, "classes")), keys_of(classes));
  for (const auto& [name, c] : classes.items())
    for (const char* k : {"counted", "tensors", "params", "active"})
      EXPECT_EQ(field(field(field(py, "classes"), name), k), c.at(k)) << name << "." << k;
}

// The tool's --json --tensors tensor_list: every tensor's name, class and parameters in checkpoint order.
void expect_same_tensor_list(const ParamCount& pc, const oj& py) {
  const oj list = field(py, "tensor_list");
  ASSERT_TRUE(list.is_array());
  ASSERT_EQ(list.size(), pc.tensor_list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const TensorCount& t = pc.tensor_list[i];
    ASSERT_EQ(field(list[i], "name"), t.name) << i;
    ASSERT_EQ(field(list[i], "class"), std::string(param_class_name(t.cls))) << t.name;
    ASSERT_EQ(field(list[i], "params"), t.params) << t.name;
  }
}

// Runs the tool on `args` (a checkpoint first) with --json --tensors and compares the JSON numbers and tensor list
// with the in-process count `pc`. With `text`, also runs it with --tensors: the output must be format_table (without
// the config.json cross-check, which the tool does not make), a blank line, then format_tensor_list, byte for byte.
void expect_tool_agrees(const ParamCount& pc, const std::vector<std::string>& args, bool text = true) {
  const std::string where = args.front();
  std::vector<std::string> json_args = args;
  json_args.insert(json_args.end(), {"--json", "--tensors"});
  const auto r = run_tool(json_args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const oj py = oj::parse(r.out, nullptr, false);
  ASSERT_FALSE(py.is_discarded()) << r.out.substr(0, 2000);
  expect_same_json(pc, where, py);
  expect_same_tensor_list(pc, py);
  if (!text) return;

  std::vector<std::string> text_args = args;
  text_args.push_back("--tensors");
  const auto t = run_tool(text_args);
  ASSERT_EQ(t.exit_code, 0) << t.err;
  const std::string list = format_tensor_list(pc);
  ASSERT_GE(t.out.size(), list.size());
  EXPECT_TRUE(t.out.ends_with(list)) << "the --tensors lines differ from format_tensor_list";
  EXPECT_EQ(t.out.substr(0, t.out.size() - list.size()), format_table(pc, where) + "\n");
}

// Writes `tensors` into `dir` as `shards` shards with an index (1: still an index) and counts them in-process.
ParamCount write_and_count(const fs::path& dir, const std::vector<st::Tensor>& tensors, std::size_t shards,
                           const json& config, const fs::path& config_path) {
  st::write_sharded(dir, tensors, st::split_evenly(tensors, shards));
  return count_from_checkpoint(dir, config, config_path.string());
}

// ---- every architecture -------------------------------------------------------------------------------------------

const std::vector<std::string>& compared_models() {
  static const std::vector<std::string> models{"Llama-3.1-8B",
                                               "Llama-3.1-70B",
                                               "Llama-3.1-405B",
                                               "Qwen3-0.6B",
                                               "Qwen3-8B",
                                               "Qwen3-32B",
                                               "Qwen3-30B-A3B",
                                               "Qwen3-235B-A22B",
                                               "Qwen3-235B-A22B-Instruct-2507_InferSim",
                                               "Qwen3-Next-80B-A3B",
                                               "Qwen3.5-27B",
                                               "Qwen3.5-35B-A3B",
                                               "Qwen3.5-122B-A10B-FP8",
                                               "Qwen3.5-397B-A17B",
                                               "Qwen3.6-27B-NVFP4",
                                               "Qwen3.6-35B-A3B",
                                               "DeepSeek-V3",
                                               "DeepSeek-R1",
                                               "DeepSeek-V3.2",
                                               "DeepSeek-V3.2-Exp",
                                               "Kimi-K2-Instruct",
                                               "GLM-4.5-Air",
                                               "GLM-4.7-FP8_aiconfigurator-trimmed",
                                               "GLM-5",
                                               "gpt-oss-20b",
                                               "gpt-oss-120b",
                                               "Mixtral-8x22B"};
  return models;
}

// Fixture configs that cannot count a checkpoint of their own layout: compared as errors below.
const std::set<std::string> kRefusedConfigs{"DeepSeek-V3_InferSim-modified"};

constexpr std::size_t kTextListMaxTensors = 20'000;

class EveryArchitecture : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryArchitecture, python_tool_counts_n_and_every_class_exactly_as_count_from_checkpoint) {
  if (!is_test_config(GetParam())) OPENRECIPES_REQUIRE_FIXTURES();
  const fs::path cfg = config_file(GetParam());
  const json config = read_json(cfg);
  const auto tensors = hf::layout_for(config);
  TempDir d;
  // At least two shards, about 2,000 tensors each: shard order and the index are part of what is compared.
  const ParamCount pc =
      write_and_count(d / "ckpt", tensors, std::max<std::size_t>(2, tensors.size() / 2000), config, cfg);
  EXPECT_GT(pc.n_active, 0);
  // The text listing too, byte for byte, where it is cheap (up to 20,000 tensors: every architecture but the
  // largest MoE layouts, whose tensors the JSON tensor list compares one by one all the same).
  expect_tool_agrees(pc, {(d / "ckpt").string(), "--config", cfg.string()}, tensors.size() <= kTextListMaxTensors);
}

INSTANTIATE_TEST_SUITE_P(ActiveParams, EveryArchitecture, ::testing::ValuesIn(compared_models()), testing::param_name);

TEST(ActiveParams, every_fixture_config_and_test_config_is_compared) {
  OPENRECIPES_REQUIRE_FIXTURES();
  const std::set<std::string> compared(compared_models().begin(), compared_models().end());
  std::size_t seen = 0;
  for (const fs::path& folder : {testing::fixtures_dir() / "configs", testing::source_dir() / "tests/params/configs"})
    for (const auto& e : fs::directory_iterator(folder)) {
      if (!fs::exists(e.path() / "config.json")) continue;
      const std::string name = e.path().filename().string();
      ++seen;
      EXPECT_TRUE(compared.count(name) || kRefusedConfigs.count(name)) << name << " is not compared";
    }
  EXPECT_EQ(seen, compared.size() + kRefusedConfigs.size());
}

TEST(ActiveParams, gpt_oss_20b_in_the_shards_of_its_real_index_counts_alike) {
  OPENRECIPES_REQUIRE_FIXTURES();
  const fs::path dir = testing::fixtures_dir() / "configs/gpt-oss-20b";
  const json config = read_json(dir / "config.json");
  const auto shard_of =
      read_json(dir / "model.safetensors.index.json").at("weight_map").get<std::map<std::string, std::string>>();
  TempDir d;
  st::write_sharded(d.path(), hf::layout_for(config), shard_of);
  const ParamCount pc = count_from_checkpoint(d.path(), config, (dir / "config.json").string());
  EXPECT_EQ(pc.shards, 3);
  expect_tool_agrees(pc, {d.path().string(), "--config", (dir / "config.json").string()});
}

// ---- input forms and config.json beside the checkpoint ------------------------------------------------------------

TEST(ActiveParams, a_folder_its_index_and_a_single_file_count_alike_with_config_json_beside_them) {
  const json config = hf::tiny_qwen3_moe();
  const auto tensors = hf::layout_for(config);
  TempDir d;
  const fs::path beside = d.write("sharded/config.json", config.dump());
  const ParamCount sharded = write_and_count(d / "sharded", tensors, 3, config, beside);
  EXPECT_EQ(sharded.shards, 3);
  expect_tool_agrees(sharded, {(d / "sharded").string()});
  expect_tool_agrees(sharded, {(d / "sharded/model.safetensors.index.json").string()});

  const fs::path single_config = d.write("single/config.json", config.dump());
  st::write_safetensors(d / "single/model.safetensors", tensors);
  const ParamCount single = count_from_checkpoint(d / "single", config, single_config.string());
  EXPECT_EQ(single.shards, 1);
  expect_tool_agrees(single, {(d / "single").string()});
  expect_tool_agrees(single, {(d / "single/model.safetensors").string()});

  // A folder holding one .safetensors file of another name and no index.
  const fs::path odd_config = d.write("odd/config.json", config.dump());
  st::write_safetensors(d / "odd/consolidated.safetensors", tensors);
  expect_tool_agrees(count_from_checkpoint(d / "odd", config, odd_config.string()), {(d / "odd").string()});
}

// ---- rarer layouts: each rule that the fixture layouts do not reach ---------------------------------------------

std::vector<st::Tensor> renamed(std::vector<st::Tensor> tensors, const std::string& from, const std::string& to) {
  for (auto& t : tensors)
    if (t.name.starts_with(from)) t.name = to + t.name.substr(from.size());
  return tensors;
}

json tiny_llama() {
  return {{"model_type", "llama"},    {"hidden_size", 64},          {"vocab_size", 100},
          {"num_hidden_layers", 2},   {"num_attention_heads", 4},   {"num_key_value_heads", 2},
          {"intermediate_size", 128}, {"tie_word_embeddings", true}};
}

TEST(ActiveParams, f8_e8m0_scales_fp8_lm_head_scales_and_e8m0_outside_the_weights_count_alike) {
  // Every 2-D projection F8_E4M3 with an F8_E8M0 `weight_scale` per 32 inputs (MXFP8), lm_head F8 with an F32
  // weight_scale_inv, the final norm stored as F8_E8M0 (exponents only: a scale wherever it is not a weight).
  const json config = hf::tiny_qwen3_moe();
  std::vector<st::Tensor> tensors;
  for (const auto& t : hf::layout_for(config)) {
    if (t.name == "model.norm.weight") {
      tensors.push_back({t.name, "F8_E8M0", t.shape});
    } else if (t.name == "lm_head.weight") {
      tensors.push_back({t.name, "F8_E4M3", t.shape});
      tensors.push_back({"lm_head.weight_scale_inv", "F32", {1, 1}});
    } else if (t.name.ends_with("_proj.weight")) {
      tensors.push_back({t.name, "F8_E4M3", t.shape});
      tensors.push_back({t.name + "_scale", "F8_E8M0", {t.shape[0], t.shape[1] / 16}});
    } else {
      tensors.push_back(t);
    }
  }
  TempDir d;
  const fs::path cfg = d.write("config.json", config.dump());
  const ParamCount pc = write_and_count(d / "ckpt", tensors, 2, config, cfg);
  EXPECT_GT(pc.quantization_scales->tensors, 0);
  expect_tool_agrees(pc, {(d / "ckpt").string(), "--config", cfg.string()});
}

TEST(ActiveParams, rotary_tables_and_int8_weights_of_a_tied_llama_count_alike) {
  // Older exports carry self_attn.rotary_emb.inv_freq (a position embedding); I8 weights count one value per byte.
  const json config = tiny_llama();
  auto tensors = hf::layout_for(config);
  for (auto& t : tensors)
    if (t.name.ends_with("mlp.down_proj.weight")) t.dtype = "I8";
  for (int l = 0; l < 2; ++l)
    tensors.push_back({fmt::format("model.layers.{}.self_attn.rotary_emb.inv_freq", l), "F32", {8}});
  TempDir d;
  const fs::path cfg = d.write("config.json", config.dump());
  const ParamCount pc = write_and_count(d / "ckpt", tensors, 1, config, cfg);
  EXPECT_TRUE(pc.output_tied);
  EXPECT_EQ(pc.of(ParamClass::position_embedding).tensors, 2);
  expect_tool_agrees(pc, {(d / "ckpt").string(), "--config", cfg.string()});
}

TEST(ActiveParams, a_text_only_qwen3_5_export_and_a_bf16_gpt_oss_export_count_alike) {
  OPENRECIPES_REQUIRE_FIXTURES();
  TempDir d;
  {  // Qwen3.5 text-only: names under model. instead of model.language_model., no vision tower.
    const fs::path cfg = config_file("Qwen3.5-35B-A3B");
    const json config = read_json(cfg);
    auto tensors = renamed(hf::layout_for(config), "model.language_model.", "model.");
    std::erase_if(tensors, [](const st::Tensor& t) { return t.name.starts_with("model.visual."); });
    const ParamCount pc = write_and_count(d / "qwen", tensors, 2, config, cfg);
    EXPECT_EQ(pc.of(ParamClass::vision).tensors, 0);
    expect_tool_agrees(pc, {(d / "qwen").string(), "--config", cfg.string()});
  }
  {  // gpt-oss dequantized to BF16: mlp.experts.gate_up_proj [E, H, 2I] and down_proj [E, I, H], no scales.
    const fs::path cfg = config_file("gpt-oss-20b");
    const json config = read_json(cfg);
    std::vector<st::Tensor> tensors;
    for (const auto& t : hf::layout_for(config)) {
      if (t.name.ends_with("_scales")) continue;
      if (t.name.ends_with("_blocks")) {
        const std::uint64_t in = t.shape[2] * 32;
        tensors.push_back({t.name.substr(0, t.name.size() - 7), "BF16", {t.shape[0], in, t.shape[1]}});
        continue;
      }
      tensors.push_back(t);
    }
    const ParamCount pc = write_and_count(d / "oss", tensors, 2, config, cfg);
    EXPECT_EQ(pc.quantization_scales->tensors, 0);
    expect_tool_agrees(pc, {(d / "oss").string(), "--config", cfg.string()});
  }
}

// ---- bad input: exit 2, one line naming the file, never a traceback ---------------------------------------------

// The in-process count refuses the checkpoint (InputError) and so does the tool: exit 2, nothing on stdout, one line
// on stderr starting "active_params.py: error: " and holding each of `needles` (the file, the tensor, the problem).
void expect_both_refuse(const fs::path& checkpoint, const fs::path& config_path,
                        const std::vector<std::string>& needles) {
  EXPECT_THROW(count_from_checkpoint(checkpoint, read_json(config_path), config_path.string()), InputError);
  const auto r = run_tool({checkpoint.string(), "--config", config_path.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, StartsWith("active_params.py: error: "));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("Traceback")));
  for (const auto& n : needles) EXPECT_THAT(r.err, HasSubstr(n));
}

// A one-tensor model.safetensors whose header the test writes by hand, and a config beside it.
struct RawCheckpoint {
  TempDir d;
  fs::path file = d / "model.safetensors";
  fs::path config = d.write("config.json", hf::tiny_qwen3_moe().dump());
};

TEST(ActiveParamsErrors, a_header_length_past_the_end_of_the_file_exits_2_naming_the_file) {
  RawCheckpoint c;
  const std::string header = R"({"lm_head.weight":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]}})";
  st::write_raw(c.file, header.size() + 100, header, 4);  // the length claims 100 bytes the file does not have
  expect_both_refuse(c.file, c.config, {c.file.string() + ": header length", "runs past the end of the file"});
}

TEST(ActiveParamsErrors, a_header_length_over_100_mb_exits_2_naming_the_file) {
  RawCheckpoint c;
  st::write_raw(c.file, 100'000'001, "{}", 0);
  expect_both_refuse(c.file, c.config, {c.file.string() + ": header length 100000001 is over the 100 MB limit"});
}

TEST(ActiveParamsErrors, a_header_that_is_not_json_exits_2_naming_the_file) {
  RawCheckpoint c;
  const std::string header = R"({"lm_head.weight":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]})";  // no '}'
  st::write_raw(c.file, header.size(), header, 4);
  expect_both_refuse(c.file, c.config, {c.file.string() + ": header is not valid JSON"});
}

TEST(ActiveParamsErrors, an_unknown_dtype_exits_2_naming_the_file_the_tensor_and_the_known_dtypes) {
  RawCheckpoint c;
  const std::string header = R"({"lm_head.weight":{"dtype":"F7","shape":[2],"data_offsets":[0,4]}})";
  st::write_raw(c.file, header.size(), header, 4);
  expect_both_refuse(c.file, c.config,
                     {c.file.string() + ": tensor 'lm_head.weight': unknown dtype 'F7'", "BOOL, F4, F6_E2M3"});
}

TEST(ActiveParamsErrors, offsets_that_leave_a_gap_in_the_data_region_exit_2_naming_the_tensor) {
  RawCheckpoint c;
  const std::string header = R"({"a":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]},)"
                             R"("b":{"dtype":"BF16","shape":[2],"data_offsets":[8,12]}})";
  st::write_raw(c.file, header.size(), header, 12);
  expect_both_refuse(c.file, c.config, {c.file.string() + ": tensor 'b': data_offsets [8, 12) leave bytes [4, 8)"});
}

TEST(ActiveParamsErrors, a_tensor_no_rule_classes_exits_2_naming_the_shard_and_the_tensor) {
  const json config = hf::tiny_qwen3_moe();
  auto tensors = hf::layout_for(config);
  tensors.push_back({"model.layers.1.mlp.mystery_proj.weight", "BF16", {4, 4}});
  TempDir d;
  const fs::path cfg = d.write("config.json", config.dump());
  st::write_sharded(d / "ckpt", tensors, st::split_evenly(tensors, 1));
  expect_both_refuse(d / "ckpt", cfg,
                     {(d / "ckpt/model-00001-of-00001.safetensors").string() +
                          ": tensor 'model.layers.1.mlp.mystery_proj.weight': no rule for model_type qwen3_moe",
                      "src/params/tensor_rules.cpp"});
}

// "experts.03" next to "experts.3" would count expert 3 twice: an index with a leading zero is no index, so the
// name matches no rule and both refuse it (Hugging Face names never pad).
TEST(ActiveParamsErrors, an_expert_or_layer_index_with_a_leading_zero_exits_2_naming_the_tensor) {
  const json config = hf::tiny_qwen3_moe();
  for (const std::string name : {"model.layers.1.mlp.experts.03.up_proj.weight", "model.layers.01.mlp.gate.weight"}) {
    SCOPED_TRACE(name);
    auto tensors = hf::layout_for(config);
    tensors.push_back({name, "BF16", {4, 4}});
    TempDir d;
    const fs::path cfg = d.write("config.json", config.dump());
    st::write_sharded(d / "ckpt", tensors, st::split_evenly(tensors, 1));
    expect_both_refuse(d / "ckpt", cfg,
                       {(d / "ckpt/model-00001-of-00001.safetensors").string() + ": tensor '" + name + "'"});
  }
}

TEST(ActiveParamsErrors, a_shard_the_index_names_that_is_missing_exits_2_naming_the_index_and_the_shard) {
  const json config = hf::tiny_qwen3_moe();
  const auto tensors = hf::layout_for(config);
  TempDir d;
  const fs::path cfg = d.write("config.json", config.dump());
  st::write_sharded(d / "ckpt", tensors, st::split_evenly(tensors, 3));
  fs::remove(d / "ckpt/model-00002-of-00003.safetensors");
  expect_both_refuse(d / "ckpt", cfg,
                     {(d / "ckpt/model.safetensors.index.json").string() + ": weight_map",
                      "maps to shard 'model-00002-of-00003.safetensors'", "which is missing"});
}

TEST(ActiveParamsErrors, routed_experts_with_no_expert_count_in_config_json_exit_2_naming_the_field) {
  json config = hf::tiny_qwen3_moe();
  const auto tensors = hf::layout_for(config);
  config.erase("num_experts");
  TempDir d;
  const fs::path cfg = d.write("config.json", config.dump());
  st::write_sharded(d / "ckpt", tensors, st::split_evenly(tensors, 1));
  expect_both_refuse(d / "ckpt", cfg, {cfg.string() + ": num_experts: missing", "model.layers.0.mlp.experts.0."});
}

TEST(ActiveParamsErrors, an_infersim_config_renaming_n_routed_experts_exits_2_naming_both_fields) {
  OPENRECIPES_REQUIRE_FIXTURES();
  // The InferSim copy of DeepSeek-V3's config (num_routed_experts), shrunk to a few small layers; the checkpoint
  // has the Hugging Face names, written from the same config with the field spelled as Hugging Face does.
  json config = read_json(config_file("DeepSeek-V3_InferSim-modified"));
  ASSERT_FALSE(config.contains("n_routed_experts"));
  const json small = json{{"hidden_size", 64},
                          {"intermediate_size", 128},
                          {"moe_intermediate_size", 16},
                          {"num_hidden_layers", 3},
                          {"first_k_dense_replace", 1},
                          {"num_routed_experts", 8},
                          {"num_experts_per_tok", 2},
                          {"q_lora_rank", 32},
                          {"kv_lora_rank", 16},
                          {"qk_nope_head_dim", 8},
                          {"qk_rope_head_dim", 8},
                          {"v_head_dim", 8},
                          {"num_attention_heads", 4},
                          {"num_key_value_heads", 4},
                          {"vocab_size", 100},
                          {"n_group", 1},
                          {"topk_group", 1}};
  for (const auto& [k, v] : small.items()) config[k] = v;
  json hf_names = config;
  hf_names["n_routed_experts"] = config["num_routed_experts"];
  hf_names["n_shared_experts"] = config["num_shared_experts"];
  hf_names.erase("quantization_config");
  TempDir d;
  const fs::path cfg = d.write("config.json", config.dump());
  st::write_sharded(d / "ckpt", hf::layout_for(hf_names), st::split_evenly(hf::layout_for(hf_names), 1));
  expect_both_refuse(d / "ckpt", cfg, {cfg.string() + ": n_routed_experts: missing", "num_routed_experts (InferSim"});
}

TEST(ActiveParamsErrors, a_u8_weight_without_an_fp4_declaration_exits_2_naming_the_tensor) {
  const json config = hf::tiny_qwen3_moe();  // no quantization_config
  auto tensors = hf::layout_for(config);
  for (auto& t : tensors)
    if (t.name == "model.layers.0.self_attn.o_proj.weight") t.dtype = "U8";
  TempDir d;
  const fs::path cfg = d.write("config.json", config.dump());
  st::write_sharded(d / "ckpt", tensors, st::split_evenly(tensors, 1));
  expect_both_refuse(d / "ckpt", cfg,
                     {"tensor 'model.layers.0.self_attn.o_proj.weight': is a U8 weight", "declares no 4-bit format"});
}

// ---- the tool itself -----------------------------------------------------------------------------------------------

TEST(ActiveParams, the_tool_imports_only_json_struct_os_argparse_re_and_sys) {
  std::ifstream in(tool());
  ASSERT_TRUE(in) << tool();
  std::stringstream text;
  text << in.rdbuf();
  const std::string source = text.str();
  EXPECT_THAT(source, StartsWith("#!/usr/bin/python3\n\"\"\""));  // a docstring first
  EXPECT_THAT(source, HasSubstr("SPEC §3"));
  // Every line that starts (after indentation) with `import` or `from` names a module; each must be allowed.
  const std::set<std::string> allowed{"argparse", "json", "os", "re", "struct", "sys"};
  std::set<std::string> imported;
  std::istringstream lines(source);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos) continue;
    std::istringstream words(line.substr(start));
    std::string keyword, module;
    words >> keyword >> module;
    if (keyword != "import" && keyword != "from") continue;
    EXPECT_TRUE(allowed.count(module)) << "imports " << module << ": " << line;
    imported.insert(module);
  }
  EXPECT_EQ(imported, allowed);
}

}  // namespace
}  // namespace openrecipes::params
