// The program policy (SPEC §4.1, §5, §6; registry/rules/command.yaml): what a recipe's command may start, with which
// launcher flags, on which entry script, and which environment variables it may set, each with its class for the
// configuration check. One policy for every command that reads a recipe's command (run, build, relayout, submit),
// compiled into the binary, so that no recipe field reaches a program or a loader the user did not choose.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checks/argument_rules.h"
#include "core/reason.h"
#include "layout/command.h"

namespace openrecipes::checks {

class OptionTable;  // checks/framework_options.h

/// A file or folder the trainer reads or writes, as one value of a path argument names it (SPEC §6 "Files the trainer
/// touches"): `$<variable><suffix>`, the suffix empty or "/a/b" without a ".." component.
struct PathArgument {
  enum class Access : unsigned char { read, write };
  std::string flag;  ///< the argument as the command spells it: "--load"
  Access access = Access::read;
  bool dataset = false;  ///< a Megatron-LM dataset prefix: the run reads <path>.bin and <path>.idx
  std::string variable;  ///< the variable the path starts with: "TORCH_DIST"; RUN_DIR for every write
  std::string suffix;    ///< what follows it: "" or "/iter_0000010"
  std::size_t word = 0;  ///< the index of the value's word in split_command's words (a --flag=value word: the flag's)
};

/// The variable every write argument starts with: `run` sets it to the run folder it creates (RUN_DIR), and no recipe
/// or user gives it.
inline constexpr const char* kRunDirVariable = "RUN_DIR";

/// Where the parts of a command that keeps the policy are, as indices into split_command's words.
struct CommandShape {
  std::size_t env_end = 0;   ///< words [0, env_end) are the NAME=value environment assignments
  std::size_t program = 0;   ///< the program word (torchrun, python3)
  std::size_t script = 0;    ///< the entry script word; its arguments follow it
  std::string program_name;  ///< the program as the policy names it: "torchrun" or "python3"
  std::string script_name;   ///< the entry script relative to the checkout: "pretrain_gpt.py", "train.py"
  /// slime and miles: the program is the Ray driver, and the trainers are the actor's GPUs the script's arguments
  /// give (--actor-num-nodes x --actor-num-gpus-per-node), not the processes the program starts.
  bool ray_driver = false;
  /// Every value of the script's path arguments (read and write), in the command's order.
  std::vector<PathArgument> paths;
};

/// The policy's verdict on one command: its shape when it keeps the policy, and every way it breaks it.
struct PolicyCheck {
  std::optional<CommandShape> shape;
  Reasons problems;  ///< stage "command"; each names the line and column of the word and the fix
};

class CommandPolicy {
 public:
  /// Parses a policy (registry/rules/command.yaml's format) from `text`; `file` names it in messages. Throws
  /// InputError (file:line: field) for malformed YAML, unknown fields, an unknown class, a rule without a reason, a
  /// variable listed twice or a name that is not an environment variable name.
  static CommandPolicy parse(std::string_view text, const std::string& file);

  /// The policy compiled into openrecipes from registry/rules/command.yaml.
  static const CommandPolicy& bundled();

  /// The class and why of environment variable `name` (rule: "registry/rules/command.yaml:<line>"), or nullopt when a
  /// recipe may not set it.
  std::optional<Classification> environment_class(std::string_view name) const;

  /// The rule the policy gives the script argument spelled `flag` ("--load"): "refused", "read", "write", "module" or
  /// "value" (text that names no file), or "" when the policy names no rule for it. The names test holds every
  /// text-valued option of the frameworks' own parsers to having one.
  std::string argument_rule(std::string_view flag) const;

  /// The checkout variable of `framework` (MEGATRON_LM, SLIME, MILES), or "" for a framework the policy lacks.
  std::string framework_variable(const std::string& framework) const;

  /// Checks `words` (split_command of a recipe's command, variables not expanded) for a recipe of `framework`: every
  /// leading NAME=value names an allowed variable (once) and holds no ${NAME[@]} or <slime entry module>; the program
  /// is a word of its own, named (torchrun, or python3 in one of its spellings; never a path or a variable); its flags
  /// are the policy's, spelled in full ('_' or '-'), each once, each with a literal whole number; the script is one of
  /// the framework's entry scripts, as $<CHECKOUT>/<script> or, for slime and miles, <slime entry module>; among the
  /// script's arguments (read as argparse reads them: the text a word starts with, quotes removed), none the policy
  /// refuses, no flag whose name holds a variable, every value of a `read` argument `$NAME` or `$NAME/<path>` with no
  /// ".." in the path (a `datasets` argument: those, or pairs of a weight, a finite decimal, and such a path), every
  /// value of a `write` argument `$RUN_DIR` or `$RUN_DIR/<path>` likewise, every value of a `module` argument an import
  /// path in one of the policy's packages or `patch_modules` (the top-level modules of the recipe's pinned patches),
  /// and no argument of an external parser (slime's --sglang-*, --router-*) whose name says it names a file, nor any
  /// when the command does not pass --debug-train-only (SGLang's parser then reads it, abbreviations included). Each
  /// message starts with `where` and the word's line and column ("recipe.yaml: command, line 1, column 1: ..."; `where`
  /// may be ""). The shape lists every path the arguments name. Never throws.
  PolicyCheck check(const std::vector<layout::CommandWord>& words, const std::string& framework,
                    const std::string& where, const std::vector<std::string>& patch_modules = {}) const;

 private:
  struct Program {
    std::string name;
    std::vector<std::string> spellings, flags, switches;
  };
  struct Entry {
    std::string variable;
    std::vector<std::string> scripts;
  };
  struct ScriptArgument {
    enum class Rule : unsigned char { refused, read, write, module, value } rule;
    std::string why;
    std::vector<std::string> packages;  ///< module: the import paths' allowed top-level packages
    bool datasets = false;              ///< read: Megatron-LM's dataset prefixes, each may follow its weight
  };
  std::vector<PathArgument> check_script_arguments(
      const std::vector<layout::CommandWord>& words, std::size_t first, const OptionTable* table,
      const std::vector<std::string>& patch_modules,
      const std::function<void(const layout::CommandWord*, const char*, const std::string&, const std::string&)>&
          problem) const;
  std::vector<Program> programs_;
  std::map<std::string, Entry> entries_;                    // framework -> its checkout variable and entry scripts
  std::map<std::string, Classification, std::less<>> env_;  // variable -> class
  std::map<std::string, ScriptArgument, std::less<>> script_args_;  // flag -> its rule
  // Arguments of parsers whose tables are not compiled in (slime's SGLang and router options): refused when a word of
  // the name (split at '-') is one of refused_words_.
  std::vector<std::string> external_prefixes_, external_refused_words_;
  std::string external_why_;
  // The switch without which any of them is refused ("" for none), and why.
  std::string external_only_with_, external_only_with_why_;
};

}  // namespace openrecipes::checks
