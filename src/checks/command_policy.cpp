// The program policy (registry/rules/command.yaml; SPEC §4.1, §5, §6): one check of a recipe's command for every
// command that reads it.
#include "checks/command_policy.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "checks/embedded_rules.h"
#include "checks/framework_options.h"
#include "core/error.h"
#include "core/text.h"
#include "core/yaml.h"

namespace openrecipes::checks {
namespace {

using layout::CommandWord;
using layout::WordPart;

bool is_env_name(const std::string& s) {
  if (s.empty() || s.size() > 128 || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

std::vector<std::string> strings(const YamlField& list) {
  std::vector<std::string> out;
  for (const auto& x : list.items()) out.push_back(x.as_string(200));
  return out;
}

// A flag's name as torchrun reads it: before any '=', with '_' spelled '-'.
std::string flag_name(const std::string& word) {
  std::string name = word.substr(0, word.find('='));
  std::replace(name.begin(), name.end(), '_', '-');
  return name;
}

std::string shown(const CommandWord& w) { return quote_for_message(w.shown(), 60); }

// A finite decimal: digits with at most one point and at least one digit ("0.3", "1", ".5"); never inf, nan, 1e5 or a
// sign, which Python's float() would also take.
bool is_finite_decimal(const std::string& s) {
  if (s.empty() || s.size() > 32 || std::count(s.begin(), s.end(), '.') > 1) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return c == '.' || (c >= '0' && c <= '9'); }) && s != ".";
}

// One value of a path argument: a variable, then a plain path inside it. `write`: the variable is RUN_DIR.
struct PathValue {
  std::string variable, suffix, problem;
};
PathValue path_value(const CommandWord& v, bool write) {
  PathValue out;
  if (v.parts.empty() || v.parts.front().kind != WordPart::Kind::variable) {
    out.problem = write ? "a file the run writes, named outside the run folder"
                        : "a file the run reads, named by the recipe rather than through a variable";
    return out;
  }
  out.variable = v.parts.front().text;
  for (std::size_t k = 1; k < v.parts.size(); ++k) {
    if (v.parts[k].kind != WordPart::Kind::literal) {
      out.problem = "a path holds one variable, at its start";
      return out;
    }
    out.suffix += v.parts[k].text;
  }
  if (write && out.variable != kRunDirVariable) {
    out.problem = "a file the run writes, named through $" + out.variable + " rather than inside the run folder";
    return out;
  }
  if (!out.suffix.empty() && out.suffix.front() != '/') {
    out.problem = "the text after $" + out.variable + " names a path beside it, not inside it";
    return out;
  }
  for (std::size_t b = 0; b < out.suffix.size();) {
    const std::size_t e = std::min(out.suffix.find('/', b), out.suffix.size());
    if (out.suffix.compare(b, e - b, "..") == 0) {
      out.problem = "'..' climbs out of $" + out.variable;
      return out;
    }
    b = e + 1;
  }
  return out;
}

// The word of an external parser's argument name (--sglang-model-path: "path") that says it names a file, if any.
std::optional<std::string> external_file_word(const std::string& flag, const std::vector<std::string>& prefixes,
                                              const std::vector<std::string>& refused) {
  for (const auto& p : prefixes) {
    if (!flag.starts_with(p)) continue;
    std::string rest = flag.substr(p.size());
    std::replace(rest.begin(), rest.end(), '_', '-');
    for (std::size_t b = 0; b <= rest.size();) {
      const std::size_t e = std::min(rest.find('-', b), rest.size());
      const std::string word = rest.substr(b, e - b);
      if (std::find(refused.begin(), refused.end(), word) != refused.end()) return word;
      b = e + 1;
    }
  }
  return std::nullopt;
}

}  // namespace

CommandPolicy CommandPolicy::parse(std::string_view text, const std::string& file) {
  CommandPolicy out;
  auto root = parse_yaml(std::string(text), file);
  root.reject_unknown_keys(
      {"version", "programs", "entry_scripts", "script_arguments", "external_arguments", "environment"});
  root.require("version").as_int(1, 1);
  for (const auto& p : root.require("programs").items()) {
    p.reject_unknown_keys({"name", "why", "spellings", "flags", "switches"});
    Program prog;
    prog.name = p.require("name").as_string(40);
    if (p.require("why").as_string(400).empty()) throw InputError(p["why"].where(), "every program needs a reason");
    prog.spellings = p["spellings"].defined() ? strings(p["spellings"]) : std::vector<std::string>{prog.name};
    prog.flags = strings(p.require("flags"));
    prog.switches = strings(p.require("switches"));
    out.programs_.push_back(std::move(prog));
  }
  auto entries = root.require("entry_scripts");
  for (const auto& fw : entries.keys()) {
    auto e = entries[fw];
    e.reject_unknown_keys({"variable", "scripts"});
    Entry entry{e.require("variable").as_string(64), strings(e.require("scripts"))};
    if (!is_env_name(entry.variable)) throw InputError(e["variable"].where(), "not a variable name");
    for (const auto& s : entry.scripts)
      if (s.empty() || s.front() == '/' || s.find("..") != std::string::npos)
        throw InputError(e["scripts"].where(), "an entry script is a path inside the checkout, without '..'");
    out.entries_[fw] = std::move(entry);
  }
  if (root["script_arguments"].defined())
    for (const auto& r : root["script_arguments"].items()) {
      r.reject_unknown_keys({"rule", "why", "names", "packages", "form"});
      ScriptArgument a;
      const std::string rule = r.require("rule").as_string(20);
      if (rule == "refused")
        a.rule = ScriptArgument::Rule::refused;
      else if (rule == "read")
        a.rule = ScriptArgument::Rule::read;
      else if (rule == "write")
        a.rule = ScriptArgument::Rule::write;
      else if (rule == "module")
        a.rule = ScriptArgument::Rule::module;
      else if (rule == "value")
        a.rule = ScriptArgument::Rule::value;
      else
        throw InputError(r["rule"].where(), "unknown rule '" + rule + "'", "use refused, read, write, module or value");
      a.why = r.require("why").as_string(600);
      if (a.why.empty()) throw InputError(r["why"].where(), "every rule needs a reason");
      if (a.rule == ScriptArgument::Rule::module) a.packages = strings(r.require("packages"));
      if (r["form"].defined()) {
        if (a.rule != ScriptArgument::Rule::read || r["form"].as_string(20) != "datasets")
          throw InputError(r["form"].where(), "the only form is datasets, of a read rule");
        a.datasets = true;
      }
      for (const auto& n : r.require("names").items()) {
        const std::string name = n.as_string(100);
        if (!name.starts_with("--")) throw InputError(n.where(), "'" + name + "' is not a flag");
        if (!out.script_args_.emplace(name, a).second)
          throw InputError(n.where(), "'" + name + "' is listed twice", "keep each flag in one rule");
      }
    }
  if (root["external_arguments"].defined()) {
    auto x = root["external_arguments"];
    x.reject_unknown_keys({"why", "prefixes", "refused_words", "only_with", "only_with_why"});
    out.external_why_ = x.require("why").as_string(600);
    if (x["only_with"].defined()) {
      out.external_only_with_ = x["only_with"].as_string(100);
      out.external_only_with_why_ = x.require("only_with_why").as_string(600);
      if (!out.external_only_with_.starts_with("--"))
        throw InputError(x["only_with"].where(), "'" + out.external_only_with_ + "' is not a flag");
    }
    out.external_prefixes_ = strings(x.require("prefixes"));
    out.external_refused_words_ = strings(x.require("refused_words"));
    for (const auto& p : out.external_prefixes_)
      if (!p.starts_with("--") || !p.ends_with("-")) throw InputError(x["prefixes"].where(), "a prefix is --name-");
  }
  for (const auto& r : root.require("environment").items()) {
    r.reject_unknown_keys({"class", "why", "names"});
    Classification c;
    c.cls = parse_arg_class(r.require("class").as_string(64), r["class"].where());
    c.why = r.require("why").as_string(400);
    if (c.why.empty()) throw InputError(r["why"].where(), "every rule needs a reason");
    c.rule = r.where();
    for (const auto& n : r.require("names").items()) {
      const std::string name = n.as_string(128);
      if (!is_env_name(name)) throw InputError(n.where(), "'" + name + "' is not an environment variable name");
      if (!out.env_.emplace(name, c).second)
        throw InputError(n.where(), "'" + name + "' is listed twice", "keep each variable in one rule");
    }
  }
  return out;
}

const CommandPolicy& CommandPolicy::bundled() {
  static const CommandPolicy policy = parse(rules_file("command.yaml"), "registry/rules/command.yaml");
  return policy;
}

std::optional<Classification> CommandPolicy::environment_class(std::string_view name) const {
  auto it = env_.find(name);
  if (it == env_.end()) return std::nullopt;
  return it->second;
}

std::string CommandPolicy::argument_rule(std::string_view flag) const {
  auto it = script_args_.find(flag);
  if (it == script_args_.end()) return "";
  switch (it->second.rule) {
    case ScriptArgument::Rule::refused:
      return "refused";
    case ScriptArgument::Rule::read:
      return "read";
    case ScriptArgument::Rule::write:
      return "write";
    case ScriptArgument::Rule::module:
      return "module";
    case ScriptArgument::Rule::value:
      return "value";
  }
  return "";
}

std::string CommandPolicy::framework_variable(const std::string& framework) const {
  auto it = entries_.find(framework);
  return it == entries_.end() ? std::string() : it->second.variable;
}

PolicyCheck CommandPolicy::check(const std::vector<CommandWord>& words, const std::string& framework,
                                 const std::string& where, const std::vector<std::string>& patch_modules) const {
  PolicyCheck out;
  auto problem = [&](const CommandWord* w, const char* rule, const std::string& what, const std::string& fix) {
    std::string at = where;
    if (w) at += fmt::format("{}line {}, column {}", at.empty() ? "" : ", ", w->line, w->column);
    out.problems.push_back({Stage::command, rule, at.empty() ? what : at + ": " + what, fix});
  };
  CommandShape shape;

  // The environment: allowed names only, each once, with plain values.
  shape.env_end = layout::assignment_count(words);
  std::set<std::string> seen;
  for (std::size_t i = 0; i < shape.env_end; ++i) {
    const CommandWord& w = words[i];
    const std::string name = *layout::assignment_name(w);
    if (!environment_class(name)) {
      const bool path_var = name == "PYTHONPATH";
      problem(&w, "command.environment",
              fmt::format("the command sets {}, which a recipe may not set (a variable that can make the trainer "
                          "load code from a path, or one the policy does not know)",
                          name),
              path_var ? "list the recipe's own Python files under patches: (patches/ goes on PYTHONPATH, each file "
                         "pinned by sha256), or remove it"
                       : "remove it: a recipe may set only the variables of registry/rules/command.yaml");
    } else if (!seen.insert(name).second) {
      problem(&w, "command.environment", name + " is set twice", "set it once");
    }
    for (const auto& p : w.parts)
      if (p.kind == WordPart::Kind::array || p.kind == WordPart::Kind::entry_module)
        problem(&w, "command.environment", "the value of " + name + " holds " + shown(w), "give it a plain value");
  }

  // The program: named, one of the policy's.
  if (shape.env_end >= words.size()) {
    problem(nullptr, "command.program", "the command has no program to run", "give the training command");
    return out;
  }
  shape.program = shape.env_end;
  const CommandWord& pw = words[shape.program];
  const auto program_text = pw.literal();
  const Program* program = nullptr;
  for (const auto& p : programs_)
    if (program_text && std::find(p.spellings.begin(), p.spellings.end(), *program_text) != p.spellings.end())
      program = &p;
  if (!program) {
    std::string names;
    for (const auto& p : programs_) names += (names.empty() ? "" : " or ") + p.name;
    problem(&pw, "command.program", "the command runs " + shown(pw) + ", not the framework's launcher",
            "start it with " + names + ", by name (no path, no variable), then the framework's entry script");
    return out;
  }
  shape.program_name = program->name;

  // Its flags, spelled in full, each once, each with a literal whole number.
  std::size_t i = shape.program + 1;
  std::set<std::string> given;
  while (i < words.size()) {
    const auto lit = words[i].literal();
    if (!lit || !lit->starts_with("-")) break;
    const std::string name = program->name == "torchrun" ? flag_name(*lit) : *lit;
    if (!given.insert(name).second) {
      problem(&words[i], "command.program-flag", fmt::format("{} {} is given twice", program->name, shown(words[i])),
              "give each of the launcher's flags once");
      return out;
    }
    const bool is_switch =
        std::find(program->switches.begin(), program->switches.end(), name) != program->switches.end();
    const bool is_flag = std::find(program->flags.begin(), program->flags.end(), name) != program->flags.end();
    if (!is_switch && !is_flag) {
      std::string list;
      for (const auto& f : program->flags) list += (list.empty() ? "" : ", ") + f;
      for (const auto& f : program->switches) list += (list.empty() ? "" : ", ") + f;
      problem(&words[i], "command.program-flag",
              fmt::format("{} {} is not one of the flags a recipe may give it", program->name, shown(words[i])),
              fmt::format("give {} only {}, spelled in full, then the framework's entry script", program->name,
                          list.empty() ? "no flags" : list));
      return out;
    }
    if (is_switch && lit->find('=') != std::string::npos) {
      problem(&words[i], "command.program-flag", shown(words[i]) + " takes no value", "write it alone");
      return out;
    }
    if (is_flag) {
      const bool glued = lit->find('=') != std::string::npos;
      const CommandWord* value_word = glued ? &words[i] : i + 1 < words.size() ? &words[i + 1] : nullptr;
      const auto value = !value_word ? std::nullopt
                         : glued     ? std::optional<std::string>(lit->substr(lit->find('=') + 1))
                                     : value_word->literal();
      if (!value || value->empty() || value->size() > 9 ||
          !std::all_of(value->begin(), value->end(), [](char c) { return c >= '0' && c <= '9'; })) {
        problem(value_word ? value_word : &words[i], "command.program-flag",
                fmt::format("{} {} takes a whole number, and is given {}", program->name, name,
                            value_word && !glued ? shown(*value_word)
                            : value              ? quote_for_message(*value)
                                                 : "none"),
                "write the number itself (relayout and run set the launcher's counts)");
        return out;
      }
    }
    i += is_flag && lit->find('=') == std::string::npos ? 2 : 1;
  }

  // The entry script.
  auto entry = entries_.find(framework);
  if (entry == entries_.end()) {
    problem(nullptr, "command.script", "the policy has no entry scripts for framework '" + framework + "'",
            "use slime, miles or megatron-lm");
    return out;
  }
  std::string scripts;
  for (const auto& s : entry->second.scripts) scripts += (scripts.empty() ? "" : ", ") + s;
  const bool ray = framework != "megatron-lm";
  const std::string fix = fmt::format(
      "give the framework's entry script through its checkout's variable: ${}/<script> with <script> one of {}{}",
      entry->second.variable, scripts, ray ? ", or <slime entry module>" : "");
  if (i >= words.size()) {
    problem(nullptr, "command.script", "after " + program->name + " comes no entry script", fix);
    return out;
  }
  shape.script = i;
  shape.ray_driver = ray;
  const CommandWord& sw = words[i];
  if (sw.parts.size() == 1 && sw.parts[0].kind == WordPart::Kind::entry_module) {
    if (!ray) {
      problem(&sw, "command.script", "<slime entry module> is slime's and miles' entry point, not Megatron-LM's", fix);
      return out;
    }
    shape.script_name = "train.py";
  } else {
    const bool through_checkout = sw.parts.size() == 2 && sw.parts[0].kind == WordPart::Kind::variable &&
                                  sw.parts[0].text == entry->second.variable &&
                                  sw.parts[1].kind == WordPart::Kind::literal && sw.parts[1].text.starts_with("/");
    const std::string rel = through_checkout ? sw.parts[1].text.substr(1) : std::string();
    if (!through_checkout ||
        std::find(entry->second.scripts.begin(), entry->second.scripts.end(), rel) == entry->second.scripts.end()) {
      problem(&sw, "command.script", "the entry script " + shown(sw) + " is not one of " + framework + "'s", fix);
      return out;
    }
    shape.script_name = rel;
  }
  shape.paths = check_script_arguments(words, shape.script + 1, OptionTable::bundled_or_megatron(framework),
                                       patch_modules, problem);
  if (out.problems.empty()) out.shape = shape;
  return out;
}

std::vector<PathArgument> CommandPolicy::check_script_arguments(
    const std::vector<CommandWord>& words, std::size_t first, const OptionTable* table,
    const std::vector<std::string>& patch_modules,
    const std::function<void(const CommandWord*, const char*, const std::string&, const std::string&)>& problem) const {
  std::vector<PathArgument> paths;
  // The switch without which external arguments are refused (command.yaml external_arguments.only_with).
  bool external_allowed = external_only_with_.empty();
  for (std::size_t i = first; i < words.size(); ++i)
    external_allowed = external_allowed || words[i].literal() == external_only_with_;
  for (std::size_t i = first; i < words.size(); ++i) {
    const CommandWord& w = words[i];
    if (!is_option_word(w, table)) continue;
    const std::string head = w.leading_literal();
    const auto eq = head.find('=');
    const std::string flag = head.substr(0, eq);
    if (eq == std::string::npos && !w.literal()) {
      problem(&w, "command.argument", shown(w) + ": a variable inside a flag's name (which flag it is depends on it)",
              "write the flag's name in full, and the variable as its value");
      continue;
    }
    auto rule = script_args_.find(flag);
    if (rule == script_args_.end()) {
      const bool external = std::any_of(external_prefixes_.begin(), external_prefixes_.end(),
                                        [&](const std::string& p) { return flag.starts_with(p); });
      if (auto word = external_file_word(flag, external_prefixes_, external_refused_words_))
        problem(&w, "command.argument",
                fmt::format("{} is refused: its name says it names a file ('{}'), and {}", flag, *word, external_why_),
                "remove it: an SFT recipe runs no SGLang engine (slime's --debug-train-only)");
      else if (external && !external_allowed)
        problem(&w, "command.argument",
                fmt::format("{} is refused: without {} {}", flag, external_only_with_, external_only_with_why_),
                fmt::format("train only ({}: an SFT recipe runs no SGLang engine), or remove it", external_only_with_));
      continue;
    }
    const ScriptArgument& a = rule->second;
    if (a.rule == ScriptArgument::Rule::refused) {
      problem(&w, "command.argument", fmt::format("{} is refused: it {}", flag, a.why),
              "remove it: a recipe runs no code but the framework's, its pinned patches and data/'s plugin, and sets "
              "no environment variable but at the command's start");
      continue;
    }
    if (a.rule == ScriptArgument::Rule::value) continue;
    // Its values: the text after '=', or the words that follow up to the next flag.
    std::vector<std::pair<CommandWord, std::size_t>> values;
    if (eq != std::string::npos) {
      values.emplace_back(w.after(eq + 1), i);
    } else {
      for (std::size_t k = i + 1; k < words.size() && !is_option_word(words[k], table); ++k)
        values.emplace_back(words[k], k);
    }
    if (a.rule == ScriptArgument::Rule::read || a.rule == ScriptArgument::Rule::write) {
      const bool write = a.rule == ScriptArgument::Rule::write;
      // Megatron-LM reads a blend as weight-prefix pairs only when the count is even and every other word is a
      // number (megatron/core/datasets/utils.py get_blend_from_list); otherwise every word is a prefix.
      bool weighted = a.datasets && values.size() % 2 == 0 && !values.empty();
      for (std::size_t k = 0; weighted && k < values.size(); k += 2) weighted = values[k].first.literal().has_value();
      for (std::size_t k = 0; k < values.size(); ++k) {
        const auto& [v, index] = values[k];
        if (weighted && k % 2 == 0) {
          if (!is_finite_decimal(*v.literal()))
            problem(
                &words[index], "command.argument",
                fmt::format("{} {}: a dataset's weight is a finite decimal number (digits, one point)", flag, shown(v)),
                "write the weight as 0.3 or 1, and each dataset prefix through a variable after its weight");
          continue;
        }
        auto path = path_value(v, write);
        if (!path.problem.empty()) {
          problem(&words[index], "command.argument",
                  fmt::format("{} {}: {}; it {}", flag, shown(v), path.problem, a.why),
                  write ? "write it inside the run folder: $RUN_DIR or $RUN_DIR/<path> (run sets RUN_DIR to the "
                          "folder it creates)"
                        : "give the path through a variable the user sets ($TORCH_DIST, $HF_CKPT, $SFT_DATA, ...), "
                          "alone or followed by /<path> without '..'");
          continue;
        }
        paths.push_back({flag, write ? PathArgument::Access::write : PathArgument::Access::read, a.datasets,
                         path.variable, path.suffix, index});
      }
      continue;
    }
    for (const auto& [v, index] : values) {
      const auto lit = v.literal();
      const std::string top = lit ? lit->substr(0, lit->find('.')) : "";
      const bool allowed = lit && !top.empty() &&
                           (std::find(a.packages.begin(), a.packages.end(), top) != a.packages.end() ||
                            std::find(patch_modules.begin(), patch_modules.end(), top) != patch_modules.end());
      if (!allowed) {
        std::string list;
        for (const auto& p : a.packages) list += (list.empty() ? "" : ", ") + p;
        for (const auto& p : patch_modules) list += (list.empty() ? "" : ", ") + p;
        problem(&words[index], "command.argument",
                fmt::format("{} {} is not an import path in {}: {} is {}", flag, shown(v), list, flag, a.why),
                "name a function of data/'s plugin, of the framework, or of a module among the recipe's patches");
      }
    }
  }
  return paths;
}

}  // namespace openrecipes::checks
