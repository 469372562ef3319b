// Tests for src/checks/megatron_arguments on Megatron-LM's own CI training runs (tests/data/megatron_ci/cases.jsonl,
// written by tools/megatron_ci_cases.py from Megatron-LM d98e8a64): the table holds together, every run's arguments
// read with the argparse table compiled into openrecipes (registry/rules/options/megatron-lm.json, the same commit)
// without a problem or an unknown flag, and resolve to the values validate_args derives, worked out by hand from
// megatron/training/arguments.py for the runs named below.
#include "checks/megatron_arguments.h"

#include <set>
#include <string>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "checks/megatron_ci_cases.h"
#include "core/error.h"
#include "core/files.h"
#include "core/text.h"
#include "layout/command.h"
#include "layout/memory.h"
#include "layout/model_shape.h"
#include "testing/support.h"

namespace openrecipes::checks {
namespace {

TEST(MegatronCiCases, the_table_holds_together) {
  const auto rows = cases();
  ASSERT_EQ(rows.size(), 209u);  // tools/megatron_ci_cases.py at d98e8a64: the GPT and MoE runs with a GPU count
  std::set<std::string> keys, families;
  for (const auto& r : rows) {
    SCOPED_TRACE(r.dump().substr(0, 120));
    const std::string c = r.at("case");
    families.insert(c.substr(0, c.find('/')));
    EXPECT_TRUE(keys.insert(fmt::format("{} {} {}", c, r.at("environment").get<std::string>(),
                                        r.at("platform").get<std::string>()))
                    .second);
    EXPECT_EQ(r.at("gpus").get<int>(), r.at("nodes").get<int>() * r.at("gpus_per_node").get<int>());
    EXPECT_GT(r.at("peak_bytes").get<std::int64_t>(), 0);
    EXPECT_GE(r.at("peak_step").get<int>(), 1);
    EXPECT_EQ(r.at("commit"), "d98e8a64dd");
    const std::string platform = r.at("platform"), environment = r.at("environment");
    EXPECT_TRUE((environment == "dev" && (platform == "dgx_h100" || platform == "dgx_a100")) ||
                (environment == "lts" && platform == "dgx_a100"));
  }
  EXPECT_EQ(families, (std::set<std::string>{"gpt", "moe"}));  // no Mixtral case is scheduled by a recipe there
}

TEST(MegatronCiCases, every_runs_arguments_read_with_megatrons_own_argparse_table) {
  const OptionTable* megatron = OptionTable::bundled("megatron-lm");
  ASSERT_NE(megatron, nullptr);
  std::size_t read = 0;
  for (const auto& r : cases()) {
    const std::string where = r.at("case");
    SCOPED_TRACE(where);
    const auto words = layout::split_command(command_of(r.at("arguments")), where);
    ASSERT_GE(words.size(), 2u);
    const std::vector<layout::CommandWord> args(words.begin() + 2, words.end());
    const auto parsed = parse_arguments(args, megatron, {});
    for (const auto& p : parsed.problems) ADD_FAILURE() << (p.word ? p.word->shown() + ": " : "") << p.what;
    for (const auto& [dest, a] : parsed.by_dest) EXPECT_NE(a.spec, nullptr) << a.flag << " is no flag of Megatron-LM";
    EXPECT_TRUE(parsed.by_dest.count("num_layers")) << "every run sets its layer count";
    read += parsed.problems.empty();
  }
  EXPECT_EQ(read, 209u);
}

// The run of `name` on `platform` (dev container).
nlohmann::json run_of(const std::string& name, const std::string& platform = "dgx_h100") {
  for (auto& r : cases())
    if (r.at("case") == name && r.at("platform") == platform && r.at("environment") == "dev") return r;
  throw std::runtime_error("no run " + name);
}

std::map<std::string, std::string> resolved(const nlohmann::json& run) {
  const auto words = layout::split_command(command_of(run.at("arguments")), run.at("case").get<std::string>());
  return resolve_megatron_arguments({words.begin() + 2, words.end()}, *OptionTable::bundled("megatron-lm"),
                                    run.at("gpus").get<std::int64_t>(), run.at("case"));
}

TEST(MegatronArguments, a_dense_run_gets_the_sizes_validate_args_derives) {
  const auto v = resolved(run_of("gpt/gpt3_7b_tp1_pp4_memory_speed"));  // 8 GPUs, TP 1, PP 4, no --swiglu
  EXPECT_EQ(v.at("world_size"), "8");
  EXPECT_EQ(v.at("data_parallel_size"), "2");                    // 8 / (TP 1 x PP 4 x CP 1)
  EXPECT_EQ(v.at("ffn_hidden_size"), "16384");                   // 4 x 4096
  EXPECT_EQ(v.at("kv_channels"), "128");                         // 4096 / 32 heads
  EXPECT_EQ(v.at("virtual_pipeline_model_parallel_size"), "8");  // 32 layers / PP 4 / 1 layer a virtual stage
  EXPECT_EQ(v.at("padded_vocab_size"), "131200");                // 131073 up to a multiple of 128 x TP 1: 1025 x 128
  EXPECT_EQ(v.at("sequence_parallel"), "False");                 // TP 1
  EXPECT_EQ(v.at("num_experts"), "None");
  EXPECT_EQ(v.at("expert_tensor_parallel_size"), "1");
  EXPECT_EQ(v.at("tokenizer_type"), "NullTokenizer");        // the command's value
  EXPECT_EQ(v.at("distributed_backend"), "nccl");            // the command's, as the default's repr would print it too
  EXPECT_EQ(v.at("attention_backend"), "AttnBackend.auto");  // the default <AttnBackend.auto: 5> as str() prints it
  EXPECT_EQ(v.at("attention_dropout"), "0.1");               // Megatron's default
  const auto setup = layout::setup_from_arguments(v, "7b");
  EXPECT_FALSE(setup.unfused_attention);  // auto: flash or fused attention under Transformer Engine
  EXPECT_TRUE(setup.attention_dropout);
  EXPECT_TRUE(setup.hidden_dropout);
  EXPECT_EQ(setup.layout.pp, 4);
  EXPECT_EQ(setup.layout.dp, 2);
  EXPECT_EQ(setup.layout.vpp, 8);
  const auto shape = layout::shape_from_arguments(v, "7b");
  EXPECT_EQ(shape.ffn_hidden, 16384);
  EXPECT_EQ(shape.vocab, 131200);
}

TEST(MegatronArguments, an_moe_run_gets_its_layer_pattern_and_virtual_stages) {
  const auto v = resolved(run_of("moe/gpt3_mcore_te_tp2_pp2_ep4_etp1_memory_speed"));     // 8 GPUs, TP 2, PP 2, EP 4
  EXPECT_EQ(v.at("data_parallel_size"), "2");                                             // 8 / (2 x 2)
  EXPECT_EQ(v.at("moe_layer_freq"), "[0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]");  // ([0]*1+[1]*15)
  EXPECT_EQ(v.at("virtual_pipeline_model_parallel_size"), "4");  // --num-virtual-stages-per-pipeline-rank 4
  EXPECT_EQ(v.at("sequence_parallel"), "True");                  // TP 2 keeps it
  EXPECT_EQ(v.at("moe_ffn_hidden_size"), "1024");                // given
  EXPECT_EQ(v.at("expert_tensor_parallel_size"), "1");           // given
  EXPECT_EQ(v.at("attention_backend"), "AttnBackend.unfused");   // --attention-backend unfused, as the dump prints it
  const auto setup = layout::setup_from_arguments(v, "moe");
  EXPECT_TRUE(setup.unfused_attention);
  EXPECT_EQ(setup.layout.ep, 4);
  EXPECT_EQ(setup.layout.etp, 1);
  EXPECT_TRUE(setup.sequence_parallel);
}

TEST(MegatronArguments, every_ci_run_resolves_to_a_training_setup_of_its_gpus) {
  std::size_t shapes = 0;
  for (const auto& run : cases()) {
    SCOPED_TRACE(run.at("case").get<std::string>());
    const auto v = resolved(run);
    const auto setup = layout::setup_from_arguments(v, "run");
    const auto& l = setup.layout;
    EXPECT_EQ(l.tp * l.pp * l.cp * l.dp, run.at("gpus").get<std::int64_t>());
    if (v.at("padded_vocab_size") != "None") {  // the runs with --vocab-size: the others read a tokenizer's vocabulary
      try {
        layout::shape_from_arguments(v, "run");
        ++shapes;
      } catch (const InputError& e) {
        ADD_FAILURE() << e.what();
      }
    }
  }
  EXPECT_EQ(shapes, 6u);  // the six runs that give --vocab-size (NullTokenizer)
}

TEST(MegatronArguments, a_moe_layer_freq_pattern_reads_as_python_evaluates_it) {
  // Each pattern and the list Python gives for it (its docstring's examples among them).
  const std::pair<const char*, const char*> read[] = {{"2", "2"},
                                                      {"([0]*1+[1]*3)", "[0, 1, 1, 1]"},
                                                      {"([1]*3+[0]*2)*2", "[1, 1, 1, 0, 0, 1, 1, 1, 0, 0]"},
                                                      {"[0] + 2 * [1, 0]", "[0, 1, 0, 1, 0]"},
                                                      {"[0,1]", "[0, 1]"}};
  for (const auto& [pattern, printed] : read) EXPECT_EQ(moe_layer_freq_printed(pattern, "c"), printed) << pattern;
  auto refused = [](const std::string& v) { return testing::message_of([&] { moe_layer_freq_printed(v, "c"); }); };
  EXPECT_THAT(refused("([0]*1+[2]*3)"), ::testing::HasSubstr("a layer is 1 (MoE) or 0 (dense), not 2"));
  EXPECT_THAT(refused("([0]*1+[1]*3"), ::testing::HasSubstr("expected ')'"));
  EXPECT_THAT(refused("[1]*99999999999"), ::testing::HasSubstr("a list repeated 99999999999 times"));
  EXPECT_THAT(refused("__import__('os')+[1]"), ::testing::HasSubstr("expected a list, '(' or a count at character 1"));
  EXPECT_THAT(refused("__import__('os')"), ::testing::HasSubstr("not a whole number from 1"));
  EXPECT_THAT(refused("0"), ::testing::HasSubstr("not a whole number from 1"));
}

TEST(MegatronArguments, what_argparse_or_validate_args_refuses_is_an_error_naming_it) {
  const OptionTable& table = *OptionTable::bundled("megatron-lm");
  auto refused = [&](const std::string& args, std::int64_t gpus) {
    const auto words = layout::split_command("python pretrain_gpt.py " + args, "cmd");
    return testing::message_of([&] {
      resolve_megatron_arguments({words.begin() + 2, words.end()}, table, gpus, "cmd");
    });
  };
  EXPECT_THAT(refused("--num-layers 4 --tensor-model-parallel-size 2 --pipeline-model-parallel-size 2", 6),
              ::testing::HasSubstr("6 GPUs are not a multiple of TP 2 x PP 2 x CP 1"));
  EXPECT_THAT(refused("--num-layers 4 --moe-layer-freq '([0]*1+[1]*4)'", 8),
              ::testing::HasSubstr("gives 5 layers, the model has 4 (--num-layers)"));
  EXPECT_THAT(refused("--num-layers 6 --pipeline-model-parallel-size 2 --num-layers-per-virtual-pipeline-stage 2", 8),
              ::testing::HasSubstr("6 layers do not split into PP 2 stages of whole virtual stages of 2 layers"));
  EXPECT_EQ(
      refused("--num-layers 4 --no-such-flag 1", 8),
      "cmd: '--no-such-flag' is not an argument of Megatron-LM's parser (fix: give the training command as the run "
      "starts it (the arguments of pretrain_gpt.py))");
  EXPECT_THAT(refused("--num-layers", 8), ::testing::HasSubstr("cmd:1:"));  // argparse: expected one argument
}

// A command as a recipe writes it: environment words, the launcher and its flags, the entry script, its arguments.
const char* const kTorchrun =
    "CUDA_DEVICE_MAX_CONNECTIONS=1 torchrun --nproc-per-node 4 --nnodes 2 pretrain_gpt.py --num-layers 8 "
    "--hidden-size 1024 --num-attention-heads 16 --seq-length 4096 --max-position-embeddings 4096 "
    "--micro-batch-size 1 --global-batch-size 32 --tensor-model-parallel-size 2 --vocab-size 32000 "
    "--data-path \"${DATA}/text\" --bf16\n";

TEST(TrainingCommand, torchruns_processes_are_the_gpus_and_the_entry_scripts_words_the_arguments) {
  const auto c = read_training_command(kTorchrun, "cmd", std::nullopt, std::nullopt);
  EXPECT_EQ(c.gpus, 8);  // 4 a node x 2 nodes
  EXPECT_EQ(c.gpus_from, "torchrun");
  EXPECT_EQ(c.framework, "megatron-lm");
  EXPECT_EQ(c.arguments.at("data_parallel_size"), "4");     // 8 / TP 2
  EXPECT_EQ(c.arguments.at("padded_vocab_size"), "32000");  // already a multiple of 128 x TP 2
  EXPECT_EQ(c.arguments.at("data_path"), "$DATA/text");     // the variable left unexpanded
  EXPECT_EQ(read_training_command(kTorchrun, "cmd", 16, std::nullopt).arguments.at("data_parallel_size"), "8");
  // The entry script under a variable, as recipes write it ($MEGATRON_LM/pretrain_gpt.py): still the script.
  std::string under_variable = kTorchrun;
  under_variable.replace(under_variable.find(" pretrain_gpt.py"), 16, " $MEGATRON_LM/pretrain_gpt.py");
  const auto v = read_training_command(under_variable, "cmd", std::nullopt, std::nullopt);
  EXPECT_EQ(v.gpus, 8);
  EXPECT_EQ(v.arguments.at("num_layers"), "8");
}

TEST(TrainingCommand, bare_arguments_need_a_gpu_count_and_a_vocabulary) {
  const std::string bare =
      "--num-layers 2 --hidden-size 256 --num-attention-heads 4 --seq-length 128 "
      "--max-position-embeddings 128 --micro-batch-size 1 --global-batch-size 8 --bf16\n";
  EXPECT_EQ(testing::message_of([&] { read_training_command(bare, "cmd", std::nullopt, 50257); }),
            "cmd: the command does not say how many GPUs it runs on (fix: give plan --gpus G (or torchrun's "
            "--nproc-per-node and --nnodes in the command))");
  EXPECT_EQ(testing::message_of([&] { read_training_command(bare, "cmd", 8, std::nullopt); }),
            "cmd: the command does not give the vocabulary size (its tokenizer's) (fix: give plan --vocab-size V, the "
            "tokenizer's vocabulary (Megatron pads it as the run would))");
  const auto c = read_training_command(bare, "cmd", 8, 50257);
  EXPECT_EQ(c.arguments.at("padded_vocab_size"), "50304");  // GPT-2's 50,257 up to a multiple of 128: 393 x 128
  EXPECT_EQ(c.arguments.at("vocab_size"), "50257");         // the tokenizer's, as --vocab-size would give it
  EXPECT_EQ(c.gpus_from, "--gpus");
}

TEST(TrainingCommand, slimes_actor_gpus_and_table_are_used_for_its_train_py) {
  auto train = [](const std::string& launch) {
    return read_training_command("python3 train.py " + launch +
                                     " --num-layers 2 --hidden-size 256 --num-attention-heads 4 --seq-length 128 "
                                     "--vocab-size 1000 --bf16\n",
                                 "cmd", std::nullopt, std::nullopt);
  };
  const auto c = train("--actor-num-nodes 2 --actor-num-gpus-per-node 8");
  EXPECT_EQ(c.framework, "slime");
  EXPECT_EQ(c.gpus, 16);
  EXPECT_EQ(c.gpus_from, "slime");
  // A flag of miles' own (slime's table lacks it): the same train.py, read with miles' table.
  const auto miles = train("--actor-num-gpus-per-node 8 --use-miles-router");
  EXPECT_EQ(miles.framework, "miles");
  EXPECT_EQ(miles.gpus, 8);
  EXPECT_THAT(testing::message_of([&] {
                read_training_command("python3 train.py --actor-num-gpus-per-node 8 --no-such-flag --bf16\n", "cmd",
                                      std::nullopt, 1000);
              }),
              ::testing::HasSubstr("'--no-such-flag' is not an argument of"));
}

TEST(TrainingCommand, what_the_memory_model_does_not_cover_is_refused_by_name) {
  const std::string base = "--num-layers 2 --hidden-size 256 --num-attention-heads 4 --vocab-size 1000 --bf16 ";
  EXPECT_THAT(testing::message_of([&] { read_training_command(base + "--fp8-format hybrid\n", "cmd", 8, {}); }),
              ::testing::StartsWith("cmd: --fp8-format is not modelled: the memory model has no term for FP8"));
  EXPECT_THAT(testing::message_of([&] { read_training_command(base + "--mtp-num-layers 1\n", "cmd", 8, {}); }),
              ::testing::StartsWith("cmd: --mtp-num-layers is not modelled"));
  EXPECT_THAT(testing::message_of([&] { read_training_command(base + "--fp9-format x\n", "cmd", 8, {}); }),
              ::testing::HasSubstr("'--fp9-format' is not an argument of Megatron-LM's parser"));
  // A hostile review: activation offloading and CUDA graphs planned as if absent (the same peak and step). Megatron
  // turns offloading on from its layer count; CUDA graphs by --cuda-graph-impl or its two old spellings.
  for (const std::string flag : {"--cpu-offloading-num-layers 2", "--cuda-graph-impl local",
                                 "--cuda-graph-impl transformer_engine", "--enable-cuda-graph", "--external-cuda-graph",
                                 "--optimizer-cuda-graph", "--moe-layer-recompute", "--distribute-saved-activations"}) {
    const std::string name = flag.substr(0, flag.find(' '));
    EXPECT_THAT(testing::message_of([&] { read_training_command(base + flag + "\n", "cmd", 8, {}); }),
                ::testing::StartsWith("cmd: " + name + " is not modelled"))
        << flag;
  }
  // Their values that mean "off" plan as before.
  for (const std::string flag : {"--cpu-offloading-num-layers 0", "--cuda-graph-impl none"})
    EXPECT_EQ(read_training_command(base + flag + "\n", "cmd", 8, {}).arguments.at("num_layers"), "2") << flag;
}

// A hostile review's inputs (each crashed, hung or planned a wrong number before): refused, naming what and why.
TEST(TrainingCommand, hostile_sizes_patterns_and_launcher_counts_are_refused_naming_them) {
  const std::string base = "--num-layers 8 --hidden-size 1024 --num-attention-heads 16 --vocab-size 32000 --bf16 ";
  auto refused = [&](const std::string& args, std::optional<std::int64_t> gpus = 8) {
    return testing::message_of([&] { read_training_command(args + "\n", "cmd", gpus, std::nullopt); });
  };
  using ::testing::HasSubstr;
  EXPECT_THAT(refused(base + "--tensor-model-parallel-size 4294967296 --pipeline-model-parallel-size 4294967296"),
              HasSubstr("--tensor-model-parallel-size is '4294967296', not a whole number from 1 to 2^31"));
  EXPECT_THAT(refused(base + "--pipeline-model-parallel-size 2 --num-layers-per-virtual-pipeline-stage 0"),
              HasSubstr("--num-layers-per-virtual-pipeline-stage is '0'"));
  EXPECT_THAT(refused(base + "--make-vocab-size-divisible-by 0"), HasSubstr("--make-vocab-size-divisible-by is '0'"));
  EXPECT_THAT(refused(base + "--make-vocab-size-divisible-by -100"), HasSubstr("is '-100'"));
  EXPECT_THAT(refused(base + "--moe-layer-freq '" + std::string(100, '(') + "[1]" + std::string(100, ')') + "'"),
              HasSubstr("parentheses nested more than 64 deep"));
  EXPECT_THAT(refused(base + "--moe-layer-freq '[0]*1+[]*9223372036854775807'"), HasSubstr("gives 1 layers"));
  std::string many = "[1]*1";
  for (int i = 0; i < 8; ++i) many += "+[1]*1048576*0+[1]*1048576*0";
  EXPECT_THAT(refused(base + "--moe-layer-freq '" + many + "'"), HasSubstr("builds more than 2^22 entries"));
  EXPECT_THAT(refused(base + "--moe-layer-freq '[]'"), HasSubstr("gives 0 layers, the model has 8"));
  EXPECT_THAT(refused("torchrun --nnodes $N --nproc-per-node 4 pretrain_gpt.py " + base, std::nullopt),
              HasSubstr("--nnodes is $N, not a GPU count plan can read"));
  EXPECT_EQ(read_training_command("torchrun --nproc-per-node 4 --nproc-per-node=8 pretrain_gpt.py " + base + "\n",
                                  "cmd", std::nullopt, std::nullopt)
                .gpus,
            8);  // argparse keeps the last
  EXPECT_THAT(refused("--num-layers 8 --hidden-size 1024 --num-attention-heads 24 --vocab-size 32000"),
              HasSubstr("--hidden-size 1024 is not a multiple of --num-attention-heads 24"));
  EXPECT_THAT(refused(base + "--pipeline-model-parallel-size 2 --num-layers-per-virtual-pipeline-stage 2 "
                             "--num-virtual-stages-per-pipeline-rank 2"),
              HasSubstr("are both given"));
  EXPECT_THAT(refused(base + "--tensor-model-parallel-size 2 --tensor-parallel-num-weight-shards 4"),
              HasSubstr("--tensor-parallel-num-weight-shards is not modelled"));
  EXPECT_THAT(refused(base + "--attention-backend xyz"),
              HasSubstr("--attention-backend 'xyz' is not one of its values: auto, flash, fused, local, unfused"));
  EXPECT_THAT(refused(base + "--transformer-impl xyz"),
              HasSubstr("--transformer-impl 'xyz' is not one of its choices"));
  EXPECT_THAT(refused(base, 0), HasSubstr("0 is not a GPU count"));
  EXPECT_THAT(refused(base + "--pipeline-model-parallel-size 2 --num-virtual-stages-per-pipeline-rank 2 "
                             "--no-overlap-p2p-communication"),
              HasSubstr("--no-overlap-p2p-communication with virtual stages needs PP > 2, not 2"));
  EXPECT_THAT(refused(base + "--foo\u202egnp.exe"), HasSubstr("'--foo\\xe2\\x80\\xaegnp.exe'"));  // bidi, inert
}

// A review's findings (each planned a wrong number or refused a valid command before): what validate_args derives or
// refuses, what the model does not cover, and what it reads of slime's packing, each named.
TEST(TrainingCommand, validate_args_rules_the_models_refusals_and_slime_packing_hold) {
  const std::string base =
      "--num-layers 8 --hidden-size 1024 --num-attention-heads 16 --seq-length 4096 --max-position-embeddings 4096 "
      "--micro-batch-size 1 --global-batch-size 32 --vocab-size 32000 --bf16 ";
  auto read = [&](const std::string& extra) {
    return read_command_run("pretrain_gpt.py " + base + extra, "cmd", 8, {});
  };
  auto refused = [&](const std::string& command) {
    return testing::message_of([&] { read_command_run(command + "\n", "cmd", 8, std::nullopt); });
  };
  using ::testing::HasSubstr;
  // arguments.py: --recompute-activations is selective recompute.
  EXPECT_EQ(read("--recompute-activations").setup.recompute.kind, layout::Recompute::selective);
  EXPECT_THAT(refused("pretrain_gpt.py " + base + "--recompute-granularity selective --recompute-method uniform"),
              HasSubstr("--recompute-method with selective recompute"));
  EXPECT_THAT(refused("pretrain_gpt.py " + base + "--recompute-granularity full --recompute-method uniform"),
              HasSubstr("full recompute without --recompute-num-layers"));
  // What the model does not cover, by name.
  std::string fp32 = base;
  fp32.erase(fp32.find("--bf16 "), 7);
  EXPECT_THAT(refused("pretrain_gpt.py " + fp32),
              HasSubstr("training without --bf16 or --fp16 (FP32) is not modelled"));
  EXPECT_THAT(refused("pretrain_gpt.py " + base + "--optimizer sgd"), HasSubstr("--optimizer 'sgd' is not modelled"));
  EXPECT_THAT(refused("pretrain_gpt.py " + base + "--use-precision-aware-optimizer"),
              HasSubstr("--use-precision-aware-optimizer is not modelled"));
  // arguments.py: --grad-reduce-in-bf16 with --bf16 keeps the gradients in BF16; the embedding and the loss counted in
  // the pipeline split are read.
  EXPECT_TRUE(read("--grad-reduce-in-bf16").setup.grads_16bit);
  EXPECT_FALSE(read("").setup.grads_16bit);
  // With --fp16 the FP32 accumulation is not turned on: the gradients stay FP16 unless asked for
  // (Megatron-LM's fp16 CI runs peak 2 bytes a parameter lower than FP32 gradients would: megatron_ci_plan_test).
  std::string fp16 = base;
  fp16.replace(fp16.find("--bf16"), 6, "--fp16");
  auto read_fp16 = [&](const std::string& extra) {
    return read_command_run("pretrain_gpt.py " + fp16 + extra, "cmd", 8, {});
  };
  EXPECT_TRUE(read_fp16("").setup.grads_16bit);
  EXPECT_FALSE(read_fp16("--accumulate-allreduce-grads-in-fp32").setup.grads_16bit);
  EXPECT_THAT(refused("pretrain_gpt.py " + base + "--fp16"), HasSubstr("--fp16 and --bf16 are both given"));
  const auto counted = read(
                           "--pipeline-model-parallel-size 2 --account-for-embedding-in-pipeline-split "
                           "--account-for-loss-in-pipeline-split")
                           .setup;
  EXPECT_TRUE(counted.embedding_in_split && counted.loss_in_split);
  EXPECT_THAT(refused("pretrain_gpt.py " + base + "--recompute-granularity selective --recompute-modules mlp"),
              HasSubstr("--recompute-modules mlp is not modelled"));
  EXPECT_EQ(read("--recompute-granularity selective --recompute-modules core_attn").setup.recompute.kind,
            layout::Recompute::selective);
  EXPECT_THAT(refused("pretrain_t5.py " + base), HasSubstr("'pretrain_t5.py' is not modelled"));
  // A variable where the model reads a word, and a size the command lacks, named by flag.
  EXPECT_THAT(refused("pretrain_gpt.py " + base + "--attention-backend $AB"),
              HasSubstr("--attention-backend is $AB: the memory model needs its value"));
  std::string no_layers = base;
  no_layers.erase(0, std::string("--num-layers 8 ").size());
  EXPECT_THAT(refused("pretrain_gpt.py " + no_layers), HasSubstr("the command does not give --num-layers"));
  // SPEC §6 on the command's GPUs: EP 8 x ETP 2 (TP's) is 16 GPUs of a pipeline stage, and there are 8.
  EXPECT_THAT(refused("pretrain_gpt.py " + base +
                      "--num-experts 8 --expert-model-parallel-size 8 --tensor-model-parallel-size 2 "
                      "--sequence-parallel"),
              HasSubstr("is not a multiple of EP 8 x ETP 2"));
  // Megatron's default position embedding is learned: 4,096 positions x 1,024 on the first stage; rope learns none.
  EXPECT_EQ(read("").shape.position_params, 4096 * 1024);
  EXPECT_EQ(read("--position-embedding-type rope").shape.position_params, 0);
  // Only train.py and train_async.py are slime's; run_train.py under torchrun is Megatron's.
  EXPECT_EQ(read_training_command("torchrun --nproc-per-node 8 run_train.py " + base + "\n", "cmd", std::nullopt, {})
                .framework,
            "megatron-lm");
  // A second review's: selective recompute with a layer count, the legacy RoPE flag, positions below the sequence,
  // the MoE all-to-all overlap where TransformerConfig refuses it, and middle stages left with no layers.
  EXPECT_THAT(refused("pretrain_gpt.py " + base + "--recompute-granularity selective --recompute-num-layers 2"),
              HasSubstr("--recompute-num-layers with selective recompute"));
  EXPECT_EQ(read("--use-rotary-position-embeddings").shape.position_params, 0);
  EXPECT_THAT(refused("pretrain_gpt.py " + base + "--max-position-embeddings 2048"),
              HasSubstr("--max-position-embeddings 2048 is below --seq-length 4096"));
  EXPECT_THAT(refused("pretrain_gpt.py " + base + "--overlap-moe-expert-parallel-comm"),
              HasSubstr("--overlap-moe-expert-parallel-comm needs expert parallelism (EP > 1)"));
  EXPECT_THAT(refused("pretrain_gpt.py " + base +
                      "--num-experts 8 --expert-model-parallel-size 2 --pipeline-model-parallel-size 2 "
                      "--moe-token-dispatcher-type alltoall --overlap-moe-expert-parallel-comm"),
              HasSubstr("--overlap-moe-expert-parallel-comm needs virtual pipeline stages when PP > 1"));
  EXPECT_THAT(refused("pretrain_gpt.py " + base +
                      "--num-experts 8 --expert-model-parallel-size 2 --overlap-moe-expert-parallel-comm"),
              HasSubstr("needs the alltoall or flex token dispatcher"));  // allgather: Megatron's default
  EXPECT_TRUE(read("--num-experts 8 --expert-model-parallel-size 2 --pipeline-model-parallel-size 2 "
                   "--num-virtual-stages-per-pipeline-rank 2 --moe-token-dispatcher-type alltoall "
                   "--overlap-moe-expert-parallel-comm")
                  .setup.overlap_moe_expert_parallel_comm);
  EXPECT_THAT(refused("pretrain_gpt.py " + base +
                      "--pipeline-model-parallel-size 4 --decoder-first-pipeline-num-layers 4 "
                      "--decoder-last-pipeline-num-layers 4"),
              HasSubstr("the first/last-stage layer counts leave 0 layers for the 2 other stages"));
  // slime's packing: one bin of --max-tokens-per-gpu x CP tokens a micro-batch.
  const auto packed = read_command_run("python3 train.py --actor-num-gpus-per-node 8 " + base +
                                           "--context-parallel-size 2 --use-dynamic-batch-size --max-tokens-per-gpu "
                                           "16384\n",
                                       "cmd", std::nullopt, std::nullopt);
  EXPECT_EQ(packed.setup.layout.micro_batch, 1);
  EXPECT_EQ(packed.setup.row_length, 32768);  // 16,384 x CP 2
  EXPECT_EQ(packed.setup.layout.max_tokens_per_gpu, 16384);
}

}  // namespace
}  // namespace openrecipes::checks
