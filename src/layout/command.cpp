// A recipe's command split into words like a POSIX shell before expansion, and rendered to an argument vector with
// the protocol's variables (PROTOCOL.md "Running a recipe", SPEC §6). No shell ever sees it.
#include "layout/command.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "core/error.h"
#include "core/utf8.h"

namespace openrecipes::layout {
namespace {

constexpr std::string_view kEntryModule = "<slime entry module>";
const char* const kFix = "a recipe's command is one command of plain words (docs/recipe-format.md, \"command\")";

bool name_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool name_char(char c) { return name_start(c) || (c >= '0' && c <= '9'); }

class Splitter {
 public:
  Splitter(std::string_view text, std::string_view where) : s_(text), where_(where) {}

  std::vector<CommandWord> run() {
    if (s_.size() > kMaxCommandBytes)
      throw InputError(std::string(where_),
                       fmt::format("the command has {} bytes, over the limit of {}", s_.size(), kMaxCommandBytes),
                       "shorten it: long argument lists belong in the model script (${MODEL_ARGS[@]})");
    if (auto bad = find_invalid_utf8(s_); bad != std::string_view::npos) {
      seek(bad);
      fail(describe_invalid_utf8(s_, bad), "save the recipe as UTF-8");
    }
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == ' ' || c == '\t') {
        advance();
      } else if (c == '\\' && peek(1) == '\n') {
        advance(2);
      } else if (c == '\n') {
        if (!words_.empty() && !only_blank_after(i_))
          fail("a line break ends the command here, and a recipe's command is one command",
               "end the line with a backslash to continue it, or remove the second command");
        advance();
      } else if (c == '#') {
        fail("a comment ('#' starting a word)", "remove the comment, or quote the '#'");
      } else {
        word();
      }
    }
    return std::move(words_);
  }

 private:
  std::string_view s_, where_;
  std::size_t i_ = 0, line_ = 1, col_ = 1;
  std::vector<CommandWord> words_;

  char peek(std::size_t k = 0) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }
  void advance(std::size_t n = 1) {
    for (std::size_t k = 0; k < n && i_ < s_.size(); ++k, ++i_) {
      if (s_[i_] == '\n') {
        ++line_;
        col_ = 1;
      } else if ((static_cast<unsigned char>(s_[i_]) & 0xC0) != 0x80) {
        ++col_;
      }
    }
  }
  void seek(std::size_t to) {
    i_ = 0, line_ = 1, col_ = 1;
    advance(to);
  }
  bool only_blank_after(std::size_t from) const {
    return s_.find_first_not_of(" \t\n", from) == std::string_view::npos;
  }
  [[noreturn]] void fail(const std::string& what, const std::string& fix) const {
    throw InputError(fmt::format("{}: line {}, column {}", where_, line_, col_), what, fix);
  }
  [[noreturn]] void fail(const std::string& what) const { fail(what, kFix); }

  static void add_text(CommandWord& w, std::string_view t, bool quoted) {
    if (!w.parts.empty() && w.parts.back().kind == WordPart::Kind::literal && w.parts.back().quoted == quoted)
      w.parts.back().text += t;
    else
      w.parts.push_back({WordPart::Kind::literal, std::string(t), quoted});
  }

  void check_char(char c) const {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u == 0x7f)
      fail(fmt::format("control character U+{:04X}", u), "remove it (a recipe's command is plain text)");
  }

  void variable(CommandWord& w, bool quoted) {
    // at '$'
    if (peek(1) == '(')
      fail("'$(' would run a command (command substitution)", "write the value itself, or give it as a variable");
    if (name_start(peek(1))) {
      std::size_t n = 1;
      while (name_char(peek(n))) ++n;
      w.parts.push_back({WordPart::Kind::variable, std::string(s_.substr(i_ + 1, n - 1)), quoted});
      advance(n);
      return;
    }
    if (peek(1) == '{' && name_start(peek(2))) {
      std::size_t n = 2;
      while (name_char(peek(n))) ++n;
      std::string name(s_.substr(i_ + 2, n - 2));
      if (peek(n) == '}') {
        w.parts.push_back({WordPart::Kind::variable, name, quoted});
        advance(n + 1);
        return;
      }
      if (s_.substr(i_ + n, 4) == "[@]}") {
        w.parts.push_back({WordPart::Kind::array, name, quoted});
        advance(n + 4);
        return;
      }
    }
    fail("a '$' that starts no variable ($NAME, ${NAME} or ${NAME[@]}); a shell would expand it",
         "write \\$ (or put it in single quotes) for a literal dollar sign");
  }

  void single_quoted(CommandWord& w) {
    advance();  // the opening quote
    const std::size_t open_line = line_, open_col = col_ - 1;
    std::size_t from = i_;
    while (i_ < s_.size() && s_[i_] != '\'') {
      if (s_[i_] == '\n') fail("a line break inside quotes", "a flag value is one line: remove the line break");
      check_char(s_[i_]);
      advance();
    }
    if (i_ >= s_.size())
      throw InputError(fmt::format("{}: line {}, column {}", where_, open_line, open_col), "a quote (') never closed",
                       "close it");
    add_text(w, s_.substr(from, i_ - from), true);
    advance();
  }

  void double_quoted(CommandWord& w) {
    advance();
    const std::size_t open_line = line_, open_col = col_ - 1;
    while (i_ < s_.size() && s_[i_] != '"') {
      const char c = s_[i_];
      if (c == '\\' && peek(1) == '\n') {
        advance(2);
      } else if (c == '\\' && (peek(1) == '$' || peek(1) == '`' || peek(1) == '"' || peek(1) == '\\')) {
        add_text(w, s_.substr(i_ + 1, 1), true);
        advance(2);
      } else if (c == '$') {
        variable(w, true);
      } else if (c == '`') {
        fail("a backtick would run a command (command substitution)", "write the value itself");
      } else if (c == '\n') {
        fail("a line break inside quotes", "a flag value is one line: remove the line break");
      } else {
        check_char(c);
        add_text(w, s_.substr(i_, 1), true);
        advance();
      }
    }
    if (i_ >= s_.size())
      throw InputError(fmt::format("{}: line {}, column {}", where_, open_line, open_col), "a quote (\") never closed",
                       "close it");
    advance();
  }

  void word() {
    CommandWord w;
    w.begin = i_;
    w.line = line_;
    w.column = col_;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == ' ' || c == '\t' || c == '\n') break;
      if (c == '\\') {
        if (peek(1) == '\n') {
          advance(2);
          continue;
        }
        if (i_ + 1 >= s_.size()) fail("a backslash at the end of the command", "remove it");
        check_char(peek(1));
        const std::size_t len = utf8_len(static_cast<unsigned char>(peek(1)));
        add_text(w, s_.substr(i_ + 1, len), true);
        advance(1 + len);
      } else if (c == '\'') {
        single_quoted(w);
      } else if (c == '"') {
        double_quoted(w);
      } else if (c == '$') {
        variable(w, false);
      } else if (c == '`') {
        fail("a backtick would run a command (command substitution)", "write the value itself");
      } else if (c == '<' && s_.substr(i_, kEntryModule.size()) == kEntryModule) {
        w.parts.push_back({WordPart::Kind::entry_module, std::string(kEntryModule), false});
        advance(kEntryModule.size());
      } else if (c == ';' || c == '&' || c == '|' || c == '<' || c == '>' || c == '(' || c == ')') {
        fail(fmt::format("'{}' is a shell operator, and no shell runs a recipe's command", c),
             "remove it, or quote it if it belongs to a value");
      } else if (c == '*' || c == '?' || c == '[' || c == ']' || c == '{' || c == '}') {
        fail(fmt::format("an unquoted '{}', which a shell would expand (globbing or braces)", c),
             "quote the word if the character belongs to a value");
      } else if (c == '~' && i_ == w.begin) {
        fail("a leading '~', which a shell would expand to a home folder", "write the path in full or as a variable");
      } else {
        check_char(c);
        add_text(w, s_.substr(i_, 1), false);
        advance();
      }
    }
    w.end = i_;
    if (words_.size() == kMaxCommandWords)
      fail(fmt::format("over {} words", kMaxCommandWords),
           "shorten it: long argument lists belong in the model script (${MODEL_ARGS[@]})");
    words_.push_back(std::move(w));
  }
};

std::string where_of(std::string_view where, const CommandWord& w) {
  return fmt::format("{}: line {}, column {}", where, w.line, w.column);
}

}  // namespace

std::optional<std::string> assignment_name(const CommandWord& w) {
  if (w.parts.empty() || w.parts[0].kind != WordPart::Kind::literal || w.parts[0].quoted) return std::nullopt;
  const std::string& t = w.parts[0].text;
  const std::size_t eq = t.find('=');
  if (eq == std::string::npos || eq == 0 || !name_start(t[0]) ||
      !std::all_of(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(eq), name_char))
    return std::nullopt;
  return t.substr(0, eq);
}

std::size_t assignment_count(const std::vector<CommandWord>& words) {
  std::size_t n = 0;
  while (n < words.size() && assignment_name(words[n])) ++n;
  return n;
}

std::string CommandWord::shown() const {
  std::string out;
  for (const auto& p : parts)
    out += p.kind == WordPart::Kind::literal    ? p.text
           : p.kind == WordPart::Kind::variable ? "$" + p.text
           : p.kind == WordPart::Kind::array    ? "${" + p.text + "[@]}"
                                                : p.text;
  return out;
}

std::string CommandWord::leading_literal() const {
  std::string out;
  for (const auto& p : parts) {
    if (p.kind != WordPart::Kind::literal) break;
    out += p.text;
  }
  return out;
}

CommandWord CommandWord::after(std::size_t n) const {
  CommandWord w = *this;
  while (n > 0 && !w.parts.empty() && w.parts.front().kind == WordPart::Kind::literal) {
    auto& t = w.parts.front().text;
    const std::size_t k = std::min(n, t.size());
    t.erase(0, k);
    n -= k;
    if (t.empty()) w.parts.erase(w.parts.begin());
  }
  if (w.parts.empty()) w.parts.push_back({WordPart::Kind::literal, "", false});
  return w;
}

std::optional<std::string> CommandWord::literal() const {
  std::string out;
  for (const auto& p : parts) {
    if (p.kind != WordPart::Kind::literal) return std::nullopt;
    out += p.text;
  }
  return out;
}

std::vector<CommandWord> split_command(std::string_view command, std::string_view where) {
  return Splitter(command, where).run();
}

RenderedCommand render_command(const std::vector<CommandWord>& words, const CommandVariables& vars,
                               std::string_view where) {
  RenderedCommand out;
  bool program_seen = false;
  auto value_of = [&](const CommandWord& w, const WordPart& p) -> const std::string& {
    auto it = vars.values.find(p.text);
    if (it == vars.values.end())
      throw InputError(where_of(where, w), fmt::format("${} has no value", p.text),
                       fmt::format("give it: --var {}=VALUE", p.text));
    return it->second;
  };
  for (const auto& w : words) {
    // NAME=value before the program: the environment (the NAME= part unquoted, as a shell requires).
    if (!program_seen && assignment_name(w)) {
      {
        const std::string& t = w.parts[0].text;
        const std::size_t eq = t.find('=');
        std::string value = t.substr(eq + 1);
        for (std::size_t k = 1; k < w.parts.size(); ++k) {
          const WordPart& p = w.parts[k];
          if (p.kind == WordPart::Kind::literal)
            value += p.text;
          else if (p.kind == WordPart::Kind::variable)
            value += value_of(w, p);
          else
            throw InputError(
                where_of(where, w),
                fmt::format("{} inside the value of {}",
                            p.kind == WordPart::Kind::array ? "${" + p.text + "[@]}" : p.text, t.substr(0, eq)),
                "give the variable a plain value");
        }
        out.env.emplace_back(t.substr(0, eq), std::move(value));
        continue;
      }
    }
    program_seen = true;
    if (w.parts.size() == 1 && w.parts[0].kind == WordPart::Kind::array && !w.parts[0].quoted) {
      auto it = vars.arrays.find(w.parts[0].text);
      if (it == vars.arrays.end())
        throw InputError(where_of(where, w), fmt::format("${{{}[@]}} has no value", w.parts[0].text),
                         w.parts[0].text == "MODEL_ARGS"
                             ? "give the framework checkout whose scripts/models/<model>.sh sets it"
                             : "only ${MODEL_ARGS[@]} is an array a recipe may use");
      out.argv.insert(out.argv.end(), it->second.begin(), it->second.end());
      continue;
    }
    if (w.parts.size() == 1 && w.parts[0].kind == WordPart::Kind::entry_module) {
      if (!vars.entry_module)
        throw InputError(where_of(where, w), "<slime entry module> has no value",
                         "give what it stands for: the training image's slime entry point, e.g. train.py");
      out.argv.push_back(*vars.entry_module);
      continue;
    }
    std::string arg;
    for (const auto& p : w.parts) {
      switch (p.kind) {
        case WordPart::Kind::literal:
          arg += p.text;
          break;
        case WordPart::Kind::variable:
          arg += value_of(w, p);
          break;
        case WordPart::Kind::array:
          throw InputError(where_of(where, w), fmt::format("${{{}[@]}} inside a word or quotes", p.text),
                           "write it as a word of its own, unquoted");
        case WordPart::Kind::entry_module:
          throw InputError(where_of(where, w), "<slime entry module> inside a word", "write it as a word of its own");
      }
    }
    out.argv.push_back(std::move(arg));
  }
  if (out.argv.empty())
    throw InputError(std::string(where), "the command has no program to run", "give the training command");
  return out;
}

std::optional<std::string> flag_value(const std::vector<CommandWord>& words, const std::vector<std::string>& spellings,
                                      std::size_t first, std::size_t last) {
  last = std::min(last, words.size());
  for (std::size_t i = first; i < last; ++i) {
    const auto lit = words[i].literal();
    if (!lit) continue;
    for (const auto& f : spellings) {
      if (*lit == f) return i + 1 < last ? words[i + 1].literal() : std::nullopt;
      if (lit->starts_with(f + "=")) return lit->substr(f.size() + 1);
    }
  }
  return std::nullopt;
}

std::vector<std::string> command_variable_names(const std::vector<CommandWord>& words) {
  std::vector<std::string> out;
  for (const auto& w : words)
    for (const auto& p : w.parts) {
      if (p.kind == WordPart::Kind::literal) continue;
      std::string name = p.kind == WordPart::Kind::entry_module ? std::string(kEntryModule) : p.text;
      if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(std::move(name));
    }
  return out;
}

}  // namespace openrecipes::layout

namespace openrecipes::layout {

CommandEditor::CommandEditor(const std::string& command, const std::string& where, std::vector<FlagChange>* changes,
                             std::vector<std::string>* notes)
    : text_(command), words_(split_command(command, where)), changes_(changes), notes_(notes) {}

void CommandEditor::set(const std::vector<std::string>& spellings, const std::string& value, bool insert_if_absent,
                        const std::vector<std::string>& anchor) {
  auto changed = [&](const std::string& flag, const std::string& from) {
    if (changes_) changes_->push_back({flag, from, value});
  };
  for (std::size_t i = 0; i < words_.size(); ++i) {
    auto lit = words_[i].literal();
    if (!lit) continue;
    for (const auto& flag : spellings) {
      if (*lit == flag) {
        if (i + 1 >= words_.size()) return;
        const CommandWord& v = words_[i + 1];
        auto old = v.literal();
        if (!old) {
          if (notes_)
            notes_->push_back(
                fmt::format("{} is given as {}: set it to {}", flag, text_.substr(v.begin, v.end - v.begin), value));
          return;
        }
        if (*old != value) {
          edits_.push_back({v.begin, v.end, value});
          changed(flag, *old);
        }
        return;
      }
      if (lit->starts_with(flag + "=")) {
        std::string old = lit->substr(flag.size() + 1);
        if (old != value) {
          edits_.push_back({words_[i].begin, words_[i].end, flag + "=" + value});
          changed(flag, old);
        }
        return;
      }
    }
  }
  if (!insert_if_absent) return;
  std::size_t at = text_.find_last_not_of(" \t\n") + 1;
  if (!anchor.empty())
    for (std::size_t i = 0; i + 1 < words_.size(); ++i)
      if (auto lit = words_[i].literal(); lit && std::find(anchor.begin(), anchor.end(), *lit) != anchor.end())
        at = words_[i + 1].end;
  edits_.push_back({at, at, " " + spellings.front() + " " + value});
  changed(spellings.front(), "");
}

std::string FlagChange::str() const { return fmt::format("{} {} -> {}", flag, from.empty() ? "(absent)" : from, to); }

// The text a removed span [begin, end) takes with it: the blanks before it, or, when those are a line's indentation,
// the blanks after it (so the next word keeps the line's indentation).
static std::pair<std::size_t, std::size_t> removal_span(const std::string& text, std::size_t begin, std::size_t end) {
  auto blank = [&](std::size_t i) { return text[i] == ' ' || text[i] == '\t'; };
  std::size_t at = begin;
  while (at > 0 && blank(at - 1)) --at;
  if (at > 0 && text[at - 1] != '\n') return {at, end};
  while (end < text.size() && blank(end)) ++end;
  return {begin, end};
}

void CommandEditor::set_switch(const std::vector<std::string>& spellings, bool on,
                               const std::vector<std::string>& anchor) {
  bool present = false;
  for (const auto& w : words_) {
    auto lit = w.literal();
    if (!lit || std::find(spellings.begin(), spellings.end(), *lit) == spellings.end()) continue;
    present = true;
    if (!on) {
      edits_.push_back({w.begin, w.end, ""});
      if (changes_) changes_->push_back({*lit, "on", "off"});
    }
  }
  if (!on || present) return;
  std::size_t at = text_.find_last_not_of(" \t\n") + 1;
  if (!anchor.empty())
    for (std::size_t i = 0; i + 1 < words_.size(); ++i)
      if (auto lit = words_[i].literal(); lit && std::find(anchor.begin(), anchor.end(), *lit) != anchor.end())
        at = words_[i + 1].end;
  edits_.push_back({at, at, " " + spellings.front()});
  if (changes_) changes_->push_back({spellings.front(), "off", "on"});
}

void CommandEditor::remove(const std::vector<std::string>& spellings) {
  for (std::size_t i = 0; i < words_.size(); ++i) {
    auto lit = words_[i].literal();
    if (!lit) continue;
    for (const auto& flag : spellings) {
      if (*lit == flag && i + 1 < words_.size()) {
        const CommandWord& v = words_[i + 1];
        edits_.push_back({words_[i].begin, v.end, ""});
        if (changes_) changes_->push_back({flag, text_.substr(v.begin, v.end - v.begin), "(removed)"});
        ++i;
        break;
      }
      if (lit->starts_with(flag + "=")) {
        edits_.push_back({words_[i].begin, words_[i].end, ""});
        if (changes_) changes_->push_back({flag, lit->substr(flag.size() + 1), "(removed)"});
        break;
      }
    }
  }
}

void CommandEditor::set_env(const std::string& name, const std::string& value) {
  for (std::size_t i = 0; i < assignment_count(words_); ++i) {
    const CommandWord& w = words_[i];
    auto lit = w.literal();
    if (lit && lit->starts_with(name + "=")) {
      std::string old = lit->substr(name.size() + 1);
      if (old != value) {
        edits_.push_back({w.begin, w.end, name + "=" + value});
        if (changes_) changes_->push_back({name, old, value});
      }
      return;
    }
  }
  const std::size_t at = words_.empty() ? 0 : words_.front().begin;
  edits_.push_back({at, at, name + "=" + value + " "});
  if (changes_) changes_->push_back({name, "", value});
}

bool CommandEditor::has(const std::vector<std::string>& spellings) const {
  for (const auto& w : words_)
    if (auto lit = w.literal())
      for (const auto& f : spellings)
        if (*lit == f || lit->starts_with(f + "=")) return true;
  return false;
}

std::string CommandEditor::result() const {
  // Removals (words dropped: an empty text over a span) separated by blanks alone become one, which then takes its
  // blanks with it (removal_span).
  auto removal = [](const Edit& x) { return x.text.empty() && x.begin < x.end; };
  std::vector<Edit> sorted = edits_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Edit& a, const Edit& b) { return a.begin < b.begin; });
  std::vector<Edit> merged;
  for (const auto& x : sorted) {
    if (!merged.empty() && removal(merged.back()) && removal(x) && x.begin >= merged.back().end &&
        text_.find_first_not_of(" \t", merged.back().end) >= x.begin) {
      merged.back().end = std::max(merged.back().end, x.end);
      continue;
    }
    merged.push_back(x);
  }
  for (auto& x : merged)
    if (removal(x)) std::tie(x.begin, x.end) = removal_span(text_, x.begin, x.end);
  // From the back, so earlier spans stay valid; insertions at one place applied last-first keep their order.
  std::vector<Edit> e(merged.rbegin(), merged.rend());
  std::stable_sort(e.begin(), e.end(), [](const Edit& a, const Edit& b) { return a.begin > b.begin; });
  std::string out = text_;
  for (const auto& x : e) out.replace(x.begin, x.end - x.begin, x.text);
  return out;
}

}  // namespace openrecipes::layout
