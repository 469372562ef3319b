// A recipe's command as words, without a shell (DESIGN.md "Untrusted input": commands run as argument vectors), and
// its rendering with the protocol's variables (PROTOCOL.md "Running a recipe", SPEC §6): $HF_CKPT, $TORCH_DIST,
// $SFT_DATA, `<slime entry module>`, ${MODEL_ARGS[@]}, and whatever else a recipe names with a value given.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace openrecipes::layout {

/// A piece of a word: literal text, a variable ($NAME or ${NAME}), an array (${NAME[@]}), or the placeholder
/// `<slime entry module>` (the training image's slime entry point).
struct WordPart {
  enum class Kind : unsigned char { literal, variable, array, entry_module };
  Kind kind = Kind::literal;
  std::string text;     ///< the literal text (quotes removed), or the variable's name
  bool quoted = false;  ///< inside '...' or "..."
};

/// One word of a command, as a POSIX shell splits it before any expansion.
struct CommandWord {
  std::vector<WordPart> parts;
  std::size_t begin = 0, end = 0;  ///< byte span [begin, end) in the command text, quotes included
  std::size_t line = 1, column = 1;
  /// The word when it holds no variable (the text a shell would pass), else nullopt.
  std::optional<std::string> literal() const;
  /// The word for messages, quotes removed and variables as written: $NAME, ${NAME[@]}, <slime entry module>.
  std::string shown() const;
  /// The text the word starts with, quotes removed, up to its first variable (all of it when it has none): what a
  /// program that reads its arguments (argparse) is sure to see at the front of the rendered word. `''--lr` and
  /// `\--lr` start with "--lr" as a shell renders them.
  std::string leading_literal() const;
  /// The word without the first `n` bytes of its leading literal: the value of a `--flag=value` word is
  /// after(flag.size() + 1). An empty word is one empty literal part.
  CommandWord after(std::size_t n) const;
};

/// Limits on a command (it comes from a stranger's recipe).
inline constexpr std::size_t kMaxCommandBytes = 64 * 1024;
inline constexpr std::size_t kMaxCommandWords = 4096;

/// Splits `command` into words the way a POSIX shell does before expansion: blanks separate words; a backslash
/// before a line break joins the lines; '...' is literal; in "..." a backslash escapes only $ ` " \ and a line break;
/// outside quotes a backslash escapes the next character; $NAME, ${NAME} and ${NAME[@]} are variables (not in '...');
/// the exact text `<slime entry module>` is the entry-point placeholder. Everything a shell would do more is refused,
/// since no shell ever runs it: the operators ; & | < > ( ), backticks and $( ), a line break not escaped (a command is
/// one command), a comment, unquoted glob or brace characters (* ? [ ] { }) and a leading ~, control characters,
/// an unterminated quote, a '$' not starting a variable, more than kMaxCommandBytes or kMaxCommandWords. Throws
/// InputError "<where>: line L, column C: ..." with the fix.
std::vector<CommandWord> split_command(std::string_view command, std::string_view where);

/// What the variables of a command stand for.
struct CommandVariables {
  std::map<std::string, std::string> values;               ///< NAME -> value ($NAME, ${NAME})
  std::map<std::string, std::vector<std::string>> arrays;  ///< NAME -> words (${NAME[@]})
  std::optional<std::string> entry_module;                 ///< what `<slime entry module>` stands for
};

/// The NAME of an environment assignment word, as a shell reads one before the program: the word's first part is an
/// unquoted literal "NAME=..." with NAME a shell variable name. nullopt for any other word.
std::optional<std::string> assignment_name(const CommandWord& word);

/// How many of the leading words of `words` are environment assignments (assignment_name) before the program.
std::size_t assignment_count(const std::vector<CommandWord>& words);

/// A rendered command: leading NAME=value words become the environment, the rest the argument vector.
struct RenderedCommand {
  std::vector<std::pair<std::string, std::string>> env;
  std::vector<std::string> argv;
};

/// Substitutes every variable: a value becomes part of its word (never split, never re-read as syntax); an array
/// must be a whole unquoted word and becomes its words; `<slime entry module>` a word of its own. Leading words of
/// the form NAME=value (before the program) are the environment. Throws InputError (naming `where`, the variable,
/// its line and column, and the fix) for a variable with no value, an array used inside a word or as a value,
/// `<slime entry module>` with none given, and a command with no program.
RenderedCommand render_command(const std::vector<CommandWord>& words, const CommandVariables& vars,
                               std::string_view where);

/// The value `words[first, last)` give a flag (any of its `spellings`, as `--f v` or `--f=v`, the first that occurs):
/// the value's text, nullopt when the flag is absent or its value holds a variable.
std::optional<std::string> flag_value(const std::vector<CommandWord>& words, const std::vector<std::string>& spellings,
                                      std::size_t first = 0, std::size_t last = SIZE_MAX);

/// The names of the variables `words` use ($NAME and arrays; `<slime entry module>` as "<slime entry module>"), each
/// once, in order of first use.
std::vector<std::string> command_variable_names(const std::vector<CommandWord>& words);

/// One flag of a command and what an edit did to it.
struct FlagChange {
  std::string flag;      ///< e.g. "--nproc-per-node", or "AUTOTUNE_SEQ_LEN" for the environment
  std::string from, to;  ///< "" for "absent" / "removed"
  /// "--micro-batch-size 4 -> 16"; "--recompute-granularity (absent) -> selective".
  std::string str() const;
};

/// Rewrites flags of a command in place: the rest of its text stays byte for byte (relayout, `run --profile`).
class CommandEditor {
 public:
  /// Splits `command` (split_command; throws its InputError naming `where`). Each change is appended to `changes`,
  /// and a flag whose value is a variable (which cannot be rewritten) to `notes`; either may be null.
  CommandEditor(const std::string& command, const std::string& where, std::vector<FlagChange>* changes = nullptr,
                std::vector<std::string>* notes = nullptr);
  /// Sets `flag` (any of its spellings, as `--f v` or `--f=v`) to `value`. Absent: inserted after `anchor`'s value
  /// when given (a flag of the same program), else appended, unless `insert_if_absent` is false.
  void set(const std::vector<std::string>& spellings, const std::string& value, bool insert_if_absent,
           const std::vector<std::string>& anchor = {});
  /// Turns a switch (a flag that takes no value, e.g. --use-distributed-optimizer) on (appended, or inserted after
  /// `anchor`'s value, when absent) or off (every occurrence removed).
  void set_switch(const std::vector<std::string>& spellings, bool on, const std::vector<std::string>& anchor = {});
  /// Removes every occurrence of a flag that takes one value (`--f v` or `--f=v`), with its value. A flag whose value
  /// is a variable is removed too (its name is in the change).
  void remove(const std::vector<std::string>& spellings);
  /// Sets the leading environment assignment NAME=value (inserted before the program when absent).
  void set_env(const std::string& name, const std::string& value);
  /// True when any spelling of the flag is present.
  bool has(const std::vector<std::string>& spellings) const;
  /// The command with every edit applied.
  std::string result() const;

 private:
  struct Edit {
    std::size_t begin, end;
    std::string text;
  };
  std::string text_;
  std::vector<CommandWord> words_;
  std::vector<Edit> edits_;
  std::vector<FlagChange>* changes_;
  std::vector<std::string>* notes_;
};

}  // namespace openrecipes::layout
