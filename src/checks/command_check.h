// The published command against the run's own evidence (SPEC §5): the command users copy must be the one that ran.
// Its words, with its variables and ${MODEL_ARGS[@]} expanded as the run expanded them (the captured launch, when the
// evidence has one), must be the run's argv, and every argument it sets, read with the framework's argparse rules
// (checks/framework_options.h), must have the value the run's argument dump shows.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checks/argument_rules.h"
#include "checks/command_policy.h"
#include "checks/framework_options.h"
#include "core/reason.h"
#include "evidence/launch.h"
#include "layout/command.h"

namespace openrecipes::checks {

/// At most this many differences are reported one by one; the rest are counted in one more reason.
inline constexpr std::size_t kMaxCommandDifferences = 20;

/// Checks a recipe's command against its run's evidence. `words` is split_command of the command and `shape` the
/// policy's reading of it (CommandPolicy::check); `dump` the run's argument dump (name -> value as printed);
/// `launch` the captured launch (nullptr when the evidence has none); `table` the framework's argument table
/// (nullptr: flags are read by naming convention); `where` names the command in messages.
///
/// With a launch: the command's environment words must be its env (same names, in order, values equal where literal,
/// a variable standing for any non-empty text, one value per variable), and its words from the program on its argv
/// word for word, a whole ${NAME[@]} word standing for any run of words (at most one such word), <slime entry module>
/// for a path ending in /train.py. The arguments checked are then the argv's, after the script. Without a launch they
/// are the command's own, a variable matching any text; a ${NAME[@]} word is then a reason (nothing shows its words).
///
/// The processes the command starts (torchrun's --nproc-per-node x --nnodes; python3: one) must be the dump's
/// world_size. With a launch, the words ${MODEL_ARGS[@]} stood for may not set a destination the command's own words
/// set too, nor one `classify` (the argument rules) classes structural.
///
/// Every destination the arguments set must be in the dump with the value they give: numbers compared as numbers
/// (int, float), Python's bool(word) for type bool, an enum by the member the word names, lists element by element;
/// a value of a type only the framework can convert ("other:<name>") is checked for presence only. A flag argparse
/// would refuse (no value where one is due, an unknown choice, a word where a flag is due) is a difference too.
/// Returns one reason (stage "command") per difference, naming the argument, the command's value and the dump's, at
/// most kMaxCommandDifferences and then a count; `where` names the command in the reasons about the launch.
/// Never throws.
Reasons check_command_evidence(const std::vector<layout::CommandWord>& words, const CommandShape& shape,
                               const std::map<std::string, std::string>& dump, const evidence::Launch* launch,
                               const OptionTable* table, const std::string& where,
                               const std::function<ArgClass(const std::string&)>& classify = {},
                               bool table_is_the_runs = false);

/// How a command's words line up with a run's launch: the first disagreement (nullopt when they agree), where the
/// entry script is in the argv, the argv words [first, second) its one ${NAME[@]} word stood for, and each variable's
/// value in the run.
struct LaunchMatch {
  std::optional<std::string> problem;
  std::size_t script = 0;
  std::optional<std::pair<std::size_t, std::size_t>> array;
  std::map<std::string, std::string> bindings;
};

/// Lines the command (`words`, its policy `shape`) up with `launch`: the environment word for word (names in order,
/// values matched with their variables), then every word from the program on with the argv, one whole ${NAME[@]}
/// word standing for any run of argv words (more than one is a problem), <slime entry module> for a path ending in
/// /train.py. Never throws.
LaunchMatch match_launch(const std::vector<layout::CommandWord>& words, const CommandShape& shape,
                         const evidence::Launch& launch);

/// True when `word` (literal parts and $variables) matches `text`, each variable standing for any non-empty text and
/// a variable already in `bindings` for its bound value; on success `bindings` holds every variable's value.
bool word_matches(const layout::CommandWord& word, std::string_view text, std::map<std::string, std::string>& bindings);

}  // namespace openrecipes::checks
