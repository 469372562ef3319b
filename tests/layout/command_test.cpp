// Tests for src/layout/command: a recipe's command split into words as a POSIX shell would split it (expected words
// written out by hand, as `sh` would pass them), rendered without a shell, and every shell construct refused with its
// line and column.
#include "layout/command.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/yaml.h"
#include "testing/support.h"

namespace openrecipes::layout {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> literals(std::string_view command) {
  std::vector<std::string> out;
  for (const auto& w : split_command(command, "recipe.yaml: command")) out.push_back(w.literal().value_or("<var>"));
  return out;
}

RenderedCommand render(std::string_view command, const CommandVariables& vars) {
  return render_command(split_command(command, "recipe.yaml: command"), vars, "recipe.yaml: command");
}

// The InputError's full text for a command that must be refused.
std::string refusal(std::string_view command, const CommandVariables& vars = {}) {
  SCOPED_TRACE(std::string(command));
  return testing::message_of([&] { render(command, vars); });
}

TEST(CommandSplit, blanks_quotes_and_continuations_split_as_a_shell_splits) {
  EXPECT_THAT(literals("torchrun  --nproc-per-node 8\t x.py \\\n  --lr 1e-5\n"),
              ElementsAre("torchrun", "--nproc-per-node", "8", "x.py", "--lr", "1e-5"));
  // '...' is literal, "..." keeps blanks; a backslash escapes the next character outside quotes.
  EXPECT_THAT(literals(R"(a 'b c' "d e" f\ g 'it'\''s' "q\"x\\y" '$HOME')"),
              ElementsAre("a", "b c", "d e", "f g", "it's", "q\"x\\y", "$HOME"));
  // A JSON value in single quotes is one word, braces and all.
  EXPECT_THAT(
      literals(R"(ray job submit --runtime-env-json='{"env_vars": {"A": "1"}}' -- python3 t.py)"),
      ElementsAre("ray", "job", "submit", R"(--runtime-env-json={"env_vars": {"A": "1"}})", "--", "python3", "t.py"));
  // Leading and trailing blank lines (a YAML block scalar) are fine.
  EXPECT_THAT(literals("\n\n  python3 t.py\n\n"), ElementsAre("python3", "t.py"));
}

TEST(CommandSplit, words_record_their_line_column_and_span) {
  const std::string cmd = "python3 \\\n  t.py --x 'a b'";
  auto words = split_command(cmd, "c");
  ASSERT_EQ(words.size(), 4u);
  EXPECT_EQ(words[1].line, 2u);
  EXPECT_EQ(words[1].column, 3u);
  EXPECT_EQ(cmd.substr(words[3].begin, words[3].end - words[3].begin), "'a b'");
}

TEST(CommandSplit, variables_arrays_and_the_entry_module_are_parts) {
  auto words =
      split_command("python3 <slime entry module> ${MODEL_ARGS[@]} --load \"$HF_CKPT\"/x --d ${SFT_DATA}", "c");
  ASSERT_EQ(words.size(), 7u);
  EXPECT_EQ(words[1].parts[0].kind, WordPart::Kind::entry_module);
  EXPECT_EQ(words[2].parts[0].kind, WordPart::Kind::array);
  EXPECT_EQ(words[2].parts[0].text, "MODEL_ARGS");
  ASSERT_EQ(words[4].parts.size(), 2u);
  EXPECT_EQ(words[4].parts[0].kind, WordPart::Kind::variable);
  EXPECT_TRUE(words[4].parts[0].quoted);
  EXPECT_EQ(words[4].parts[1].text, "/x");
  EXPECT_FALSE(words[4].literal());
  EXPECT_THAT(command_variable_names(words), ElementsAre("<slime entry module>", "MODEL_ARGS", "HF_CKPT", "SFT_DATA"));
}

TEST(CommandRender, values_are_substituted_whole_and_never_reread_as_syntax) {
  CommandVariables v;
  v.values = {{"HF_CKPT", "/ckpt/a b; rm -rf / $(id) `id`"}, {"SFT_DATA", "/data/rows.parquet"}};
  v.arrays = {{"MODEL_ARGS", {"--num-layers", "28", "--swiglu"}}};
  v.entry_module = "train.py";
  auto r = render(
      "AUTOTUNE_SEQ_LEN=8192 python3 <slime entry module> ${MODEL_ARGS[@]} --hf-checkpoint $HF_CKPT "
      "--prompt-data=\"$SFT_DATA\"",
      v);
  EXPECT_THAT(r.env, ElementsAre(std::pair<std::string, std::string>{"AUTOTUNE_SEQ_LEN", "8192"}));
  EXPECT_THAT(r.argv, ElementsAre("python3", "train.py", "--num-layers", "28", "--swiglu", "--hf-checkpoint",
                                  "/ckpt/a b; rm -rf / $(id) `id`", "--prompt-data=/data/rows.parquet"));
}

TEST(CommandRender, the_bundled_reference_recipes_command_renders_to_its_megatron_arguments) {
  YamlField doc = load_yaml_file(testing::source_dir() / "registry/recipes/qwen3-0.6b/H200/ref/recipe.yaml");
  const std::string cmd = doc["command"].as_string(kMaxCommandBytes);
  CommandVariables v;
  v.values = {{"MEGATRON_LM", "/opt/Megatron-LM"}};
  auto r = render(cmd, v);
  ASSERT_GE(r.argv.size(), 6u);
  EXPECT_THAT(
      std::vector<std::string>(r.argv.begin(), r.argv.begin() + 6),
      ElementsAre("torchrun", "--nproc-per-node", "1", "/opt/Megatron-LM/pretrain_gpt.py", "--num-layers", "28"));
  EXPECT_EQ(r.argv.back(), "100000");  // ... --eval-interval 100000
  EXPECT_TRUE(r.env.empty());
}

TEST(CommandRefusals, shell_injection_in_any_form_is_refused_with_line_and_column) {
  EXPECT_THAT(refusal("python3 t.py --lr 1e-5; rm -rf /"),
              HasSubstr("recipe.yaml: command: line 1, column 23: ';' is a shell operator"));
  EXPECT_THAT(refusal("python3 t.py --name $(whoami)"), HasSubstr("column 21: '$(' would run a command"));
  EXPECT_THAT(refusal("python3 t.py --name \"$(whoami)\""), HasSubstr("'$(' would run a command"));
  EXPECT_THAT(refusal("python3 t.py --name `whoami`"), HasSubstr("a backtick would run a command"));
  EXPECT_THAT(refusal("python3 t.py --name \"a`id`\""), HasSubstr("a backtick would run a command"));
  EXPECT_THAT(refusal("python3 t.py --lr 1e-5\nrm -rf /"),
              HasSubstr("line 1, column 23: a line break ends the command here"));
  EXPECT_THAT(refusal("python3 t.py --name 'a\nb'"), HasSubstr("a line break inside quotes"));
  EXPECT_THAT(refusal("python3 t.py --name \"a\nb\""), HasSubstr("a line break inside quotes"));
  EXPECT_THAT(refusal("python3 t.py && rm -rf /"), HasSubstr("'&' is a shell operator"));
  EXPECT_THAT(refusal("python3 t.py | sh"), HasSubstr("'|' is a shell operator"));
  EXPECT_THAT(refusal("python3 t.py > /etc/passwd"), HasSubstr("'>' is a shell operator"));
  EXPECT_THAT(refusal("python3 t.py < x"), HasSubstr("'<' is a shell operator"));
  EXPECT_THAT(refusal("(python3 t.py)"), HasSubstr("'(' is a shell operator"));
}

TEST(CommandRefusals, what_a_shell_would_expand_is_refused) {
  EXPECT_THAT(refusal("python3 t.py --files *.json"), HasSubstr("an unquoted '*'"));
  EXPECT_THAT(refusal("python3 t.py --x a?"), HasSubstr("an unquoted '?'"));
  EXPECT_THAT(refusal("python3 t.py --x {a,b}"), HasSubstr("an unquoted '{'"));
  EXPECT_THAT(refusal("python3 ~/t.py"), HasSubstr("a leading '~'"));
  EXPECT_THAT(refusal("python3 t.py # a comment"), HasSubstr("a comment"));
  EXPECT_THAT(refusal("python3 t.py --cost 5$"), HasSubstr("a '$' that starts no variable"));
  EXPECT_THAT(refusal("python3 t.py --x ${A[0]}"), HasSubstr("a '$' that starts no variable"));
  EXPECT_THAT(refusal(std::string("python3 t.py --x a\x01")), HasSubstr("control character U+0001"));
  EXPECT_THAT(refusal("python3 t.py --x 'open"), HasSubstr("column 18: a quote (') never closed"));
  EXPECT_THAT(refusal("python3 t.py --x \"open"), HasSubstr("a quote (\") never closed"));
  EXPECT_THAT(refusal("python3 t.py \\"), HasSubstr("a backslash at the end of the command"));
  EXPECT_THAT(refusal("python3 t.py \xff"), HasSubstr("UTF-8"));
  // Quoted, the same characters are plain text.
  EXPECT_THAT(render("python3 t.py '*.json' \"a;b|c\" '~/x' \\$5", {}).argv,
              ElementsAre("python3", "t.py", "*.json", "a;b|c", "~/x", "$5"));
}

TEST(CommandRefusals, variables_need_values_and_arrays_stand_alone) {
  EXPECT_THAT(
      refusal("python3 t.py --load $HF_CKPT"),
      HasSubstr("recipe.yaml: command: line 1, column 21: $HF_CKPT has no value (fix: give it: --var HF_CKPT=VALUE)"));
  EXPECT_THAT(refusal("python3 t.py ${MODEL_ARGS[@]}"), HasSubstr("${MODEL_ARGS[@]} has no value"));
  CommandVariables v;
  v.arrays = {{"MODEL_ARGS", {"--x"}}};
  EXPECT_THAT(refusal("python3 t.py \"${MODEL_ARGS[@]}\"", v), HasSubstr("inside a word or quotes"));
  EXPECT_THAT(refusal("python3 t.py --a=${MODEL_ARGS[@]}", v), HasSubstr("inside a word or quotes"));
  EXPECT_THAT(refusal("python3 <slime entry module>"), HasSubstr("<slime entry module> has no value"));
  EXPECT_THAT(refusal("A=1 B=2"), HasSubstr("the command has no program to run"));
}

TEST(CommandRefusals, oversized_commands_are_refused) {
  EXPECT_THAT(refusal(std::string(kMaxCommandBytes + 1, 'a')), HasSubstr("over the limit of 65536"));
  std::string many = "python3";
  for (std::size_t i = 0; i < kMaxCommandWords; ++i) many += " x";
  EXPECT_THAT(refusal(many), HasSubstr("over 4096 words"));
}

}  // namespace
}  // namespace openrecipes::layout

namespace openrecipes::layout {
namespace {

// CommandEditor's switches and removals (tune's rewrite of recompute, the distributed optimizer and its overlap flags):
// the rest of the command stays byte for byte, and each change is recorded.
TEST(CommandEditor, a_switch_is_appended_or_put_after_its_anchor_and_turned_off_everywhere) {
  const std::string cmd =
      "torchrun --nproc-per-node 1 $MEGATRON_LM/pretrain_gpt.py \\\n  --bf16 --seq-length 512 \\\n"
      "  --use-distributed-optimizer --lr 1e-5 --use-distributed-optimizer\n";
  std::vector<FlagChange> changes;
  CommandEditor on(cmd, "cmd", &changes);
  on.set_switch({"--overlap-grad-reduce"}, true);
  on.set_switch({"--sequence-parallel"}, true, {"--seq-length"});
  on.set_switch({"--bf16"}, true);  // already on: nothing
  EXPECT_EQ(on.result(),
            "torchrun --nproc-per-node 1 $MEGATRON_LM/pretrain_gpt.py \\\n  --bf16 --seq-length 512 "
            "--sequence-parallel \\\n  --use-distributed-optimizer --lr 1e-5 --use-distributed-optimizer "
            "--overlap-grad-reduce\n");
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].flag, "--overlap-grad-reduce");
  EXPECT_EQ(changes[0].from, "off");
  EXPECT_EQ(changes[0].to, "on");
  changes.clear();
  CommandEditor off(cmd, "cmd", &changes);
  off.set_switch({"--use-distributed-optimizer"}, false);
  off.set_switch({"--overlap-param-gather"}, false);  // absent: nothing
  EXPECT_EQ(off.result(),
            "torchrun --nproc-per-node 1 $MEGATRON_LM/pretrain_gpt.py \\\n  --bf16 --seq-length 512 \\\n"
            "  --lr 1e-5\n");
  EXPECT_EQ(changes.size(), 2u);  // both occurrences
  EXPECT_EQ(changes[0].to, "off");
  EXPECT_EQ(literals(off.result()), (std::vector<std::string>{"torchrun", "--nproc-per-node", "1", "<var>", "--bf16",
                                                              "--seq-length", "512", "--lr", "1e-5"}));
}

TEST(CommandEditor, remove_drops_a_flag_with_its_value_in_either_spelling_and_a_variable_value_too) {
  const std::string cmd =
      "torchrun x.py --recompute-granularity selective --lr 1e-5 --recompute-method=uniform "
      "--data-path $SFT_DATA --bf16\n";
  std::vector<FlagChange> changes;
  CommandEditor e(cmd, "cmd", &changes);
  e.remove({"--recompute-granularity"});
  e.remove({"--recompute-method"});
  e.remove({"--data-path"});
  e.remove({"--recompute-num-layers"});  // absent: nothing
  EXPECT_EQ(e.result(), "torchrun x.py --lr 1e-5 --bf16\n");
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_EQ(changes[0].flag, "--recompute-granularity");
  EXPECT_EQ(changes[0].from, "selective");
  EXPECT_EQ(changes[1].flag, "--recompute-method");
  EXPECT_EQ(changes[1].from, "uniform");
  EXPECT_EQ(changes[2].from, "$SFT_DATA");
  EXPECT_EQ(changes[2].to, "(removed)");
  // Flags side by side at a line's start: the line keeps its indentation, and the next line is untouched.
  CommandEditor lines(
      "torchrun x.py \\\n  --recompute-granularity full --recompute-method uniform --bf16 \\\n  --lr 1\n", "cmd");
  lines.remove({"--recompute-granularity"});
  lines.remove({"--recompute-method"});
  EXPECT_EQ(lines.result(), "torchrun x.py \\\n  --bf16 \\\n  --lr 1\n");
}

}  // namespace
}  // namespace openrecipes::layout
