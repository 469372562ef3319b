// A framework's argparse rules (registry/rules/options/*.json) and argparse's reading of a command with them.
#include "checks/framework_options.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <regex>

#include "checks/embedded_rules.h"
#include "core/error.h"
#include "core/json_limits.h"
#include "core/text.h"

namespace openrecipes::checks {
namespace {

using layout::CommandWord;
using layout::WordPart;
using Action = OptionSpec::Action;

Action action_of(const std::string& a) {
  if (a == "store") return Action::store;
  if (a == "store_true") return Action::store_true;
  if (a == "store_false") return Action::store_false;
  if (a == "store_const") return Action::store_const;
  if (a == "append") return Action::append;
  if (a == "append_const") return Action::append_const;
  if (a == "count") return Action::count;
  if (a == "boolean_optional") return Action::boolean_optional;
  return Action::other;
}

// argparse's _negative_number_matcher: '^-\d+$|^-\d*\.\d+$'.
bool negative_number(std::string_view w) {
  static const std::regex re("-[0-9]+|-[0-9]*\\.[0-9]+");
  return std::regex_match(w.begin(), w.end(), re);
}

bool is_array(const CommandWord& w) {
  return std::any_of(w.parts.begin(), w.parts.end(), [](const WordPart& p) { return p.kind == WordPart::Kind::array; });
}

std::string dest_of(std::string flag) {
  while (!flag.empty() && flag.front() == '-') flag.erase(flag.begin());
  std::replace(flag.begin(), flag.end(), '-', '_');
  return flag;
}

}  // namespace

bool is_option_word(const CommandWord& w, const OptionTable* table) {
  const std::string t = w.leading_literal();
  if (t.size() < 2 || t[0] != '-') return false;
  auto lit = w.literal();
  if (lit && negative_number(*lit)) return false;
  // argparse's _parse_optional: a word that is not one of the parser's flags, exactly or before its '=', and holds a
  // space is a value ("-a b/../x" is --save's value, not an unknown flag).
  if (t.find(' ') == std::string::npos) return true;
  if (!table) return false;
  const auto eq = t.find('=');
  return table->find(t) != nullptr || (eq != std::string::npos && table->find(t.substr(0, eq)) != nullptr);
}

OptionTable OptionTable::parse(std::string_view text, const std::string& file) {
  const char* fix = "make the table again with tools/framework_options.py";
  OptionTable t;
  t.file = file;
  try {
    const auto j = parse_json_strict(std::string(text), file, fix);
    if (j.at("format_version") != 1) throw InputError(file, "format_version is not 1", fix);
    t.framework = j.at("framework").get<std::string>();
    t.commit = j.at("commit").get<std::string>();
    t.allow_abbrev = j.at("allow_abbrev").get<bool>();
    if (j.contains("extends")) {
      t.extends_framework = j.at("extends").at("framework").get<std::string>();
      t.extends_commit = j.at("extends").at("commit").get<std::string>();
    }
    for (const auto& o : j.at("options")) {
      OptionSpec s;
      s.flags = o.at("flags").get<std::vector<std::string>>();
      s.dest = o.at("dest").get<std::string>();
      s.action = action_of(o.at("action").get<std::string>());
      const auto& n = o.at("nargs");
      s.nargs = n.is_null() ? "" : n.is_number_integer() ? std::to_string(n.get<std::int64_t>()) : n.get<std::string>();
      s.type = o.at("type").get<std::string>();
      if (!o.at("const").is_null()) s.const_value = o.at("const").get<std::string>();
      if (o.contains("default")) s.default_value = o.at("default").get<std::string>();
      if (o.contains("choices")) s.choices = o.at("choices").get<std::vector<std::string>>();
      if (o.contains("values")) s.enum_values = o.at("values").get<std::map<std::string, std::string>>();
      const std::size_t index = t.options_.size();
      for (const auto& f : s.flags)
        if (!t.by_flag_.emplace(f, index).second) throw InputError(file, "flag " + f + " is listed twice", fix);
      t.by_dest_.emplace(s.dest, index);
      t.options_.push_back(std::move(s));
    }
  } catch (const nlohmann::json::exception& e) {
    throw InputError(file, "not an argument table: " + json_error_text(e.what()), fix);
  }
  return t;
}

const OptionTable* OptionTable::bundled_or_megatron(const std::string& framework) {
  const OptionTable* table = bundled(framework);
  return table ? table : bundled("megatron-lm");
}

const OptionTable* OptionTable::bundled(const std::string& framework) {
  static const std::map<std::string, OptionTable> tables = [] {
    std::map<std::string, OptionTable> out;
    for (const auto& f : rules_files()) {
      if (!f.path.starts_with("options/") || !f.path.ends_with(".json")) continue;
      auto t = parse(f.bytes, "registry/rules/" + std::string(f.path));
      out.emplace(t.framework, std::move(t));
    }
    // slime's and miles' tables list what they add to Megatron-LM's parser: the parser a run has is both.
    for (auto& [name, t] : out) {
      if (t.extends_framework.empty()) continue;
      auto base = out.find(t.extends_framework);
      if (base == out.end() || base->second.commit != t.extends_commit)
        throw std::logic_error(t.file + " extends " + t.extends_framework + " " + t.extends_commit +
                               ", which is not the bundled table");
      t.extend(base->second);
    }
    return out;
  }();
  auto it = tables.find(framework);
  return it == tables.end() ? nullptr : &it->second;
}

void OptionTable::extend(const OptionTable& base) {
  for (const auto& o : base.options_) {
    if (std::any_of(o.flags.begin(), o.flags.end(), [&](const std::string& f) { return by_flag_.count(f) > 0; }))
      continue;  // the framework's own spelling wins, as argparse would have refused a second one
    const std::size_t index = options_.size();
    for (const auto& f : o.flags) by_flag_.emplace(f, index);
    by_dest_.emplace(o.dest, index);
    options_.push_back(o);
  }
}

const OptionSpec* OptionTable::find(std::string_view flag) const {
  if (auto it = by_flag_.find(flag); it != by_flag_.end()) return &options_[it->second];
  if (!allow_abbrev || !flag.starts_with("--")) return nullptr;
  const OptionSpec* match = nullptr;
  for (auto it = by_flag_.lower_bound(flag); it != by_flag_.end() && it->first.starts_with(flag); ++it) {
    if (match && match != &options_[it->second]) return nullptr;  // ambiguous: argparse refuses it
    match = &options_[it->second];
  }
  return match;
}

bool OptionTable::has_dest(std::string_view dest) const { return by_dest_.count(dest) > 0; }

const OptionSpec* OptionTable::find_dest(std::string_view dest) const {
  const auto it = by_dest_.find(dest);
  return it == by_dest_.end() ? nullptr : &options_[it->second];
}

std::string OptionSpec::printed_default() const {
  const std::string& r = default_value;
  if (r.size() >= 2 && (r.front() == '\'' || r.front() == '"') && r.back() == r.front())
    return r.substr(1, r.size() - 2);
  if (r.size() >= 2 && r.front() == '<' && r.back() == '>' && r.find(": ") != std::string::npos)
    return r.substr(1, r.find(": ") - 1);
  return r;
}

ParsedArguments parse_arguments(const std::vector<CommandWord>& words, const OptionTable* table,
                                const std::map<std::string, std::string>& known_dests) {
  ParsedArguments out;
  std::size_t i = 0;
  while (i < words.size()) {
    const CommandWord& w = words[i];
    if (is_array(w)) {
      out.problems.push_back({&w, "the words of this array only the run's captured argv shows"});
      ++i;
      continue;
    }
    if (!is_option_word(w, table)) {
      out.problems.push_back({&w, "a value where a flag is due (argparse: unrecognized arguments)"});
      ++i;
      continue;
    }
    // --flag=value: the flag is the text before the first '=' (quotes removed, as argparse sees it).
    const std::string head = w.leading_literal();
    const auto eq = head.find('=');
    const std::string flag = head.substr(0, eq);
    if (eq == std::string::npos && !w.literal()) {
      // A variable glued to the flag's name: which flag argparse sees depends on the value.
      out.problems.push_back({&w, "a variable inside the flag's name"});
      ++i;
      continue;
    }
    std::optional<CommandWord> explicit_value;
    if (eq != std::string::npos) explicit_value = w.after(eq + 1);
    ++i;
    const OptionSpec* spec = table ? table->find(flag) : nullptr;
    // The words that follow up to the next flag: the values argparse may give this flag.
    std::size_t run_end = i;
    // An array word ends them too: its words (flags, perhaps) are only known from the run's argv.
    while (run_end < words.size() && !is_option_word(words[run_end], table) && !is_array(words[run_end])) ++run_end;
    const std::size_t following = run_end - i;

    std::string dest = spec ? spec->dest : dest_of(flag);
    ParsedArgument& a = out.by_dest[dest];
    a.dest = dest;
    a.flag = flag;
    a.spec = spec;
    auto take = [&](std::size_t n) {
      std::vector<CommandWord> v(words.begin() + static_cast<std::ptrdiff_t>(i),
                                 words.begin() + static_cast<std::ptrdiff_t>(i + n));
      i += n;
      return v;
    };
    auto set_values = [&](std::vector<CommandWord> v) {
      a.constant.reset();
      const bool append = spec && (spec->action == Action::append);
      if (!append) a.occurrences.clear();
      a.occurrences.push_back(std::move(v));
    };
    auto problem = [&](const std::string& what) { out.problems.push_back({&w, what}); };
    if (!spec) {
      // Naming convention: no table, or a flag the table lacks.
      if (!table || !table->has_dest(dest)) {
        if (!known_dests.count(dest) && dest.starts_with("no_") && known_dests.count(dest.substr(3))) {
          out.by_dest.erase(dest);
          dest = dest.substr(3);
          ParsedArgument& b = out.by_dest[dest];
          b = {dest, flag, nullptr, "False", {}};
          if (explicit_value || following > 0) problem(flag + " takes no value");
          i += following;
          continue;
        }
      }
      if (explicit_value) {
        set_values({*explicit_value});
      } else if (following == 0) {
        a.occurrences.clear();
        a.constant = "True";
      } else {
        set_values(take(following));
      }
      continue;
    }
    switch (spec->action) {
      case Action::store_true:
      case Action::store_false:
      case Action::store_const:
      case Action::append_const:
      case Action::count:
      case Action::boolean_optional: {
        if (explicit_value) problem(flag + " takes no value (argparse: ignored explicit argument)");
        a.occurrences.clear();
        if (spec->action == Action::store_true) a.constant = "True";
        if (spec->action == Action::store_false) a.constant = "False";
        if (spec->action == Action::store_const || spec->action == Action::append_const)
          a.constant = spec->const_value.value_or("None");
        if (spec->action == Action::count) {
          const auto n = a.constant ? parse_int(*a.constant).value_or(0) : 0;
          a.constant = std::to_string(n + 1);
        }
        if (spec->action == Action::boolean_optional) a.constant = flag.starts_with("--no-") ? "False" : "True";
        break;
      }
      case Action::store:
      case Action::append:
      case Action::other: {
        if (explicit_value) {
          if (spec->nargs == "*" || spec->nargs == "+" || spec->nargs == "" || spec->nargs == "?" || spec->nargs == "1")
            set_values({*explicit_value});
          else
            problem(fmt::format("{} expects {} arguments, not one given with '='", flag, spec->nargs));
          break;
        }
        const std::string& n = spec->nargs;
        if (n.empty()) {
          if (following == 0)
            problem(flag + " expects one argument");
          else
            set_values(take(1));
        } else if (n == "?") {
          if (following == 0) {
            a.occurrences.clear();
            a.constant = spec->const_value.value_or("None");
          } else {
            set_values(take(1));
          }
        } else if (n == "*") {
          set_values(take(following));
        } else if (n == "+") {
          if (following == 0)
            problem(flag + " expects at least one argument");
          else
            set_values(take(following));
        } else {
          const auto count = parse_int(n).value_or(1);
          if (static_cast<std::int64_t>(following) < count)
            problem(fmt::format("{} expects {} arguments", flag, count));
          else
            set_values(take(static_cast<std::size_t>(count)));
        }
        break;
      }
    }
  }
  return out;
}

}  // namespace openrecipes::checks
