// Tests for src/checks/framework_options: argparse's reading of a command's arguments with Megatron-LM d98e8a64's own
// argument table (registry/rules/options/megatron-lm.json, generated from its parser by tools/framework_options.py),
// and by naming convention without one.
#include "checks/framework_options.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "testing/support.h"

namespace openrecipes::checks {
namespace {

const OptionTable& megatron() {
  const OptionTable* t = OptionTable::bundled("megatron-lm");
  if (!t) throw std::runtime_error("no bundled Megatron-LM table");
  return *t;
}

struct Parsed {
  std::vector<layout::CommandWord> words;
  ParsedArguments args;
  // Each destination's value as one line: "=CONST" or the words joined with '|' (occurrences with ';').
  std::string value(const std::string& dest) const {
    auto it = args.by_dest.find(dest);
    if (it == args.by_dest.end()) return "(unset)";
    if (it->second.constant) return "=" + *it->second.constant;
    std::string out;
    for (const auto& occ : it->second.occurrences) {
      if (!out.empty()) out += ";";
      for (std::size_t k = 0; k < occ.size(); ++k) out += (k ? "|" : "") + *occ[k].literal();
    }
    return out;
  }
  std::vector<std::string> problems() const {
    std::vector<std::string> out;
    for (const auto& p : args.problems) out.push_back(p.what);
    return out;
  }
};

Parsed parse(const std::string& text, const OptionTable* table = &megatron(),
             const std::map<std::string, std::string>& known = {}) {
  Parsed p;
  p.words = layout::split_command(text, "t");
  p.args = parse_arguments(p.words, table, known);
  return p;
}

TEST(FrameworkOptions, the_table_is_megatron_lms_own_at_the_pinned_commit) {
  const auto& t = megatron();
  EXPECT_EQ(t.framework, "megatron-lm");
  EXPECT_EQ(t.commit, "d98e8a64ddf34856e74b24714e3bedb2f5a39553");
  EXPECT_FALSE(t.allow_abbrev);  // parse_args: argparse.ArgumentParser(..., allow_abbrev=False)
  // Flags whose destination is not their spelling: what a naming convention would get wrong.
  EXPECT_EQ(t.find("--norm-epsilon")->dest, "layernorm_epsilon");
  EXPECT_EQ(t.find("--disable-bias-linear")->dest, "add_bias_linear");
  EXPECT_EQ(t.find("--disable-bias-linear")->action, OptionSpec::Action::store_false);
  EXPECT_EQ(t.find("--no-rope-fusion")->dest, "apply_rope_fusion");
  EXPECT_EQ(t.find("--no-persist-layer-norm")->action, OptionSpec::Action::store_true);
  EXPECT_EQ(t.find("--lr")->type, "float");
  EXPECT_EQ(t.find("--micro-batch-size")->type, "int");
  EXPECT_EQ(t.find("--data-path")->nargs, "*");
  EXPECT_EQ(t.find("--attention-backend")->enum_values.at("flash"), "AttnBackend.flash");
  EXPECT_EQ(t.find("--micro-batch"), nullptr);  // no abbreviations
  // By destination, and each default as the argument dump prints it (str() of the repr the table keeps; the bundled
  // recipes' dumps print these: "distributed_backend ... nccl", "attention_backend ... AttnBackend.auto").
  EXPECT_EQ(t.find_dest("layernorm_epsilon")->flags.front(), "--norm-epsilon");
  EXPECT_EQ(t.find_dest("no_such_destination"), nullptr);
  EXPECT_EQ(t.find_dest("distributed_backend")->printed_default(), "nccl");                // 'nccl'
  EXPECT_EQ(t.find_dest("attention_backend")->printed_default(), "AttnBackend.auto");      // <AttnBackend.auto: 5>
  EXPECT_EQ(t.find_dest("hidden_dropout")->printed_default(), "0.1");                      // a number as kept
  EXPECT_EQ(t.find_dest("tensor_parallel_num_weight_shards")->printed_default(), "None");  // validate_args sets 1
}

TEST(FrameworkOptions, slimes_and_miles_tables_hold_their_own_options_and_megatron_lms) {
  for (const char* fw : {"slime", "miles"}) {
    const OptionTable* t = OptionTable::bundled(fw);
    ASSERT_NE(t, nullptr) << fw;
    EXPECT_EQ(t->extends_framework, "megatron-lm");
    EXPECT_EQ(t->extends_commit, megatron().commit);
    // slime's own (slime/utils/arguments.py): --disable-compute-advantages-and-returns stores False into
    // compute_advantages_and_returns; and Megatron-LM's, which slime's provider extends.
    EXPECT_EQ(t->find("--disable-compute-advantages-and-returns")->dest, "compute_advantages_and_returns");
    EXPECT_EQ(t->find("--disable-compute-advantages-and-returns")->action, OptionSpec::Action::store_false);
    EXPECT_EQ(t->find("--max-tokens-per-gpu")->type, "int");
    EXPECT_EQ(t->find("--norm-epsilon")->dest, "layernorm_epsilon");
    EXPECT_EQ(t->options().size(), megatron().options().size() + (std::string(fw) == "slime" ? 210u : 348u));
    auto p = parse("--loss-type sft_loss --debug-train-only --actor-num-gpus-per-node 4 --micro-batch-size 2", t);
    EXPECT_EQ(p.value("loss_type"), "sft_loss");
    EXPECT_EQ(p.value("debug_train_only"), "=True");
    EXPECT_EQ(p.value("actor_num_gpus_per_node"), "4");
    EXPECT_EQ(p.value("micro_batch_size"), "2");
    EXPECT_TRUE(p.problems().empty());
  }
}

TEST(FrameworkOptions, each_action_sets_its_destination_as_argparse_does) {
  auto p = parse(
      "--norm-epsilon 1e-6 --disable-bias-linear --no-persist-layer-norm --lr=1e-4 --lr 1e-5 --data-path a b "
      "--rampup-batch-size 16 16 1000 --inference-disable-ep-consensus --no-inference-disable-ep-consensus "
      "--adam-beta1 -0.5");
  EXPECT_EQ(p.value("layernorm_epsilon"), "1e-6");
  EXPECT_EQ(p.value("add_bias_linear"), "=False");
  EXPECT_EQ(p.value("no_persist_layer_norm"), "=True");
  EXPECT_EQ(p.value("lr"), "1e-5");  // the last one wins
  EXPECT_EQ(p.value("data_path"), "a|b");
  EXPECT_EQ(p.value("rampup_batch_size"), "16|16|1000");
  EXPECT_EQ(p.value("inference_disable_ep_consensus"), "=False");  // BooleanOptionalAction's --no- form
  EXPECT_EQ(p.value("adam_beta1"), "-0.5");                        // a negative number is a value, not a flag
  EXPECT_TRUE(p.problems().empty());
}

TEST(FrameworkOptions, what_argparse_refuses_is_a_problem) {
  auto p = parse("--train-iters --lr 1e-5 stray --disable-bias-linear=yes --adam-eps -1e-8 --rampup-batch-size 1 2");
  EXPECT_EQ(p.problems(),
            (std::vector<std::string>{"--train-iters expects one argument",
                                      "a value where a flag is due (argparse: unrecognized arguments)",  // stray
                                      "--disable-bias-linear takes no value (argparse: ignored explicit argument)",
                                      "--adam-eps expects one argument",  // -1e-8 reads as a flag, as argparse reads it
                                      "--rampup-batch-size expects 3 arguments",
                                      "a value where a flag is due (argparse: unrecognized arguments)",     // 1
                                      "a value where a flag is due (argparse: unrecognized arguments)"}));  // 2
  // An abbreviation is no flag of Megatron's: it is read by name, as an argument the dump will not have.
  EXPECT_EQ(parse("--micro-batch 8").value("micro_batch"), "8");
}

// Regression (SPEC §5: the published command must agree with the argument dump): an empty quote or a backslash in front
// of a flag hid it from the check, while the shell that renders the word (and argparse after it) saw the flag.
TEST(FrameworkOptions, a_flag_is_what_the_rendered_word_starts_with) {
  auto p = parse("--cuda-graph-modules attn ''--micro-batch-size 4 \\--lr 1e-2 \"--\"seed 7");
  EXPECT_EQ(p.value("cuda_graph_modules"), "attn");
  EXPECT_EQ(p.value("micro_batch_size"), "4");
  EXPECT_EQ(p.value("lr"), "1e-2");
  EXPECT_EQ(p.value("seed"), "7");
  EXPECT_TRUE(p.problems().empty());
  EXPECT_EQ(parse("--lr$X 1").problems(),
            (std::vector<std::string>{"a variable inside the flag's name",
                                      "a value where a flag is due (argparse: unrecognized arguments)"}));
}

TEST(FrameworkOptions, without_a_table_flags_are_read_by_naming_convention) {
  std::map<std::string, std::string> known{{"use_wandb", "False"}};
  auto p = parse("--actor-num-nodes 2 --colocate --no-use-wandb --prompt-data a b", nullptr, known);
  EXPECT_EQ(p.value("actor_num_nodes"), "2");
  EXPECT_EQ(p.value("colocate"), "=True");
  EXPECT_EQ(p.value("use_wandb"), "=False");  // --no-x sets x to False when the dump has x and no no_x
  EXPECT_EQ(p.value("prompt_data"), "a|b");
  auto arrays = parse("--lr 1 ${MODEL_ARGS[@]}", nullptr);
  ASSERT_EQ(arrays.problems().size(), 1u);
  EXPECT_EQ(arrays.problems()[0], "the words of this array only the run's captured argv shows");
}

TEST(FrameworkOptions, a_table_file_is_validated) {
  auto bad = [](const std::string& text) { return testing::message_of([&] { OptionTable::parse(text, "m.json"); }); };
  const std::string head = R"({"format_version": 1, "framework": "x", "commit": "c", "allow_abbrev": false, )";
  EXPECT_NO_THROW(OptionTable::parse(head + R"("options": []})", "m.json"));
  EXPECT_NE(bad(head + R"("options": [{"flags": ["--a"], "dest": "a", "action": "store", "nargs": null, "type": "int",
                           "const": null}, {"flags": ["--a"], "dest": "b", "action": "store", "nargs": null,
                           "type": "int", "const": null}]})")
                .find("flag --a is listed twice"),
            std::string::npos);
  EXPECT_NE(bad(R"({"format_version": 2})").find("format_version is not 1"), std::string::npos);
  EXPECT_NE(bad(head + R"("options": [{"flags": 3}]})").find("not an argument table"), std::string::npos);
}

}  // namespace
}  // namespace openrecipes::checks
