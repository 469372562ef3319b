// A training framework's own argument rules, mirrored from its argparse parser
// (registry/rules/options/<framework>.json, written by tools/framework_options.py from the framework's source), and the
// parse of a command's arguments with them: which destination each flag sets and to what (SPEC §5: the published
// command must agree with the argument dump). Argparse's behaviour is matched: exact spellings when the parser
// disallows abbreviations (Megatron-LM: allow_abbrev=False), `--flag=value`, store_true / store_false / store_const /
// BooleanOptionalAction's `--no-` form, append, count, nargs (None, ?, *, +, N), a word starting with '-' that is not a
// negative number ends a flag's values, and the last of repeated flags wins.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "layout/command.h"

namespace openrecipes::checks {

/// One option of a framework's parser.
struct OptionSpec {
  enum class Action : unsigned char {
    store,
    store_true,
    store_false,
    store_const,
    append,
    append_const,
    count,
    boolean_optional,
    other
  };
  std::vector<std::string> flags;  ///< every spelling: "--micro-batch-size"
  std::string dest;                ///< the attribute it sets, as the argument dump names it: "micro_batch_size"
  Action action = Action::store;
  std::string nargs;         ///< "" (one value), "?", "*", "+", or a count ("2")
  std::string type = "str";  ///< "str", "int", "float", "bool" (Python's bool(word)), "enum", "other:<name>"
  std::optional<std::string> const_value;  ///< str() of the const (store_const, nargs '?')
  std::string default_value;               ///< repr() of the default, as the table records it ("None", "'nccl'")
  std::vector<std::string> choices;        ///< str() of each choice, when restricted
  std::map<std::string, std::string>
      enum_values;  ///< enum: the word given -> what the dump prints ("AttnBackend.flash")
  /// The default as the argument dump prints it (str(), where the table keeps repr()): a string without its quotes
  /// ('nccl' -> nccl), an enum member as str() names it (<AttnBackend.auto: 5> -> AttnBackend.auto), else as kept.
  std::string printed_default() const;
};

/// The argument table of one framework at one commit.
class OptionTable {
 public:
  /// Parses registry/rules/options/<framework>.json's format (tools/framework_options.py). Throws InputError naming
  /// `file` for malformed JSON, another format_version, a missing field, or a flag listed by two options.
  static OptionTable parse(std::string_view json, const std::string& file);
  /// The table compiled into openrecipes for `framework` ("megatron-lm", "slime", "miles"), or nullptr when there is
  /// none. A table that extends another (slime's and miles' list what their provider adds to Megatron-LM's parser)
  /// holds the base table's options too.
  static const OptionTable* bundled(const std::string& framework);
  /// bundled(framework), else Megatron-LM's: a framework without a table of its own parses with Megatron-LM's flags.
  static const OptionTable* bundled_or_megatron(const std::string& framework);
  /// Adds `base`'s options whose spellings this table does not have (a table that `extends` another).
  void extend(const OptionTable& base);

  /// The option spelled exactly `flag` (or, where the parser allows abbreviations, the one option it starts).
  const OptionSpec* find(std::string_view flag) const;
  /// True when some option sets `dest`.
  bool has_dest(std::string_view dest) const;
  /// The (first listed) option that sets `dest`, or nullptr.
  const OptionSpec* find_dest(std::string_view dest) const;

  std::string framework, commit, file;
  bool allow_abbrev = true;
  /// The table this one extends (slime, miles: Megatron-LM at a commit); empty for a framework's whole parser.
  std::string extends_framework, extends_commit;
  /// Every option, in the file's order (then the extended table's).
  const std::vector<OptionSpec>& options() const { return options_; }

 private:
  std::vector<OptionSpec> options_;
  std::map<std::string, std::size_t, std::less<>> by_flag_;
  std::map<std::string, std::size_t, std::less<>> by_dest_;
};

/// True when argparse reads `word` as an option (its _parse_optional): its rendered text starts with '-' (the word's
/// leading literal, quotes removed: '' and \ in front change nothing), is not '-' alone, not a negative number
/// (argparse's `^-\d+$|^-\d*\.\d+$`), and, when it holds a space, is one of `table`'s flags exactly or before its '='
/// (argparse reads any other word with a space as a value: `--save "-a b/../x"` saves to "-a b/../x"; without a table
/// such a word is a value). A word that starts with a variable is a value.
bool is_option_word(const layout::CommandWord& word, const OptionTable* table);

/// What a command's arguments set for one destination.
struct ParsedArgument {
  std::string dest;
  std::string flag;                  ///< the last spelling given
  const OptionSpec* spec = nullptr;  ///< nullptr: a flag the table does not know (read by naming convention)
  /// The value: a constant (store_true "True", store_false "False", store_const, count) or the value words.
  std::optional<std::string> constant;
  /// The value words given (a `--flag=value` value as a word of its own): one list per occurrence for append
  /// actions, else the last occurrence's only.
  std::vector<std::vector<layout::CommandWord>> occurrences;
};

/// One problem argparse itself would raise, or that the table cannot settle.
struct ParseProblem {
  const layout::CommandWord* word = nullptr;  ///< the word of the input (which outlives the result)
  std::string what;
};

struct ParsedArguments {
  std::map<std::string, ParsedArgument> by_dest;  ///< by destination, as the dump names it
  std::vector<ParseProblem> problems;
};

/// Parses `words` (a command's words after its entry script) as `table` would: each flag's destination and value.
/// Without a table (`table` null), or for a flag it lacks, the flag is read by naming convention: `--foo-bar` sets
/// foo_bar, to True when no value follows, to its one value, or to the list of the values that follow;
/// `--no-foo-bar` sets no_foo_bar, or foo_bar to False when `known_dests` has foo_bar and not no_foo_bar. A word
/// that is a whole ${NAME[@]} array cannot be read (problem: only the run's captured argv shows its words); a word
/// where a flag is due is a problem (argparse: unrecognized arguments). Never throws.
ParsedArguments parse_arguments(const std::vector<layout::CommandWord>& words, const OptionTable* table,
                                const std::map<std::string, std::string>& known_dests);

}  // namespace openrecipes::checks
