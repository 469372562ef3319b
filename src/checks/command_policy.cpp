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

}  // namespace

CommandPolicy CommandPolicy::parse(std::string_view text, const std::string& file) {
  CommandPolicy out;
  auto root = parse_yaml(std::string(text), file);
  root.reject_unknown_keys({"version", "programs", "entry_scripts", "script_arguments", "environment"});
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
      r.reject_unknown_keys({"rule", "why", "names", "packages"});
      ScriptArgument a;
      const std::string rule = r.require("rule").as_string(20);
      if (rule == "refused")
        a.rule = ScriptArgument::Rule::refused;
      else if (rule == "variable")
        a.rule = ScriptArgument::Rule::variable;
      else if (rule == "module")
        a.rule = ScriptArgument::Rule::module;
      else
        throw InputError(r["rule"].where(), "unknown rule '" + rule + "'", "use refused, variable or module");
      a.why = r.require("why").as_string(600);
      if (a.rule == ScriptArgument::Rule::module) a.packages = strings(r.require("packages"));
      for (const auto& n : r.require("names").items()) {
        const std::string name = n.as_string(100);
        if (!name.starts_with("--")) throw InputError(n.where(), "'" + name + "' is not a flag");
        if (!out.script_args_.emplace(name, a).second)
          throw InputError(n.where(), "'" + name + "' is listed twice", "keep each flag in one rule");
      }
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
    out.problems.push_back({"command", rule, at.empty() ? what : at + ": " + what, fix});
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
  check_script_arguments(words, shape.script + 1, patch_modules, problem);
  if (out.problems.empty()) out.shape = shape;
  return out;
}

void CommandPolicy::check_script_arguments(
    const std::vector<CommandWord>& words, std::size_t first, const std::vector<std::string>& patch_modules,
    const std::function<void(const CommandWord*, const char*, const std::string&, const std::string&)>& problem) const {
  for (std::size_t i = first; i < words.size(); ++i) {
    const CommandWord& w = words[i];
    if (!is_option_word(w)) continue;
    const std::string head = w.leading_literal();
    const auto eq = head.find('=');
    const std::string flag = head.substr(0, eq);
    if (eq == std::string::npos && !w.literal()) {
      problem(&w, "command.argument", shown(w) + ": a variable inside a flag's name (which flag it is depends on it)",
              "write the flag's name in full, and the variable as its value");
      continue;
    }
    auto rule = script_args_.find(flag);
    if (rule == script_args_.end()) continue;
    const ScriptArgument& a = rule->second;
    if (a.rule == ScriptArgument::Rule::refused) {
      problem(&w, "command.argument", fmt::format("{} is refused: it {}", flag, a.why),
              "remove it: a recipe runs no code but the framework's, its pinned patches and data/'s plugin");
      continue;
    }
    // Its values: the text after '=', or the words that follow up to the next flag.
    std::vector<CommandWord> values;
    if (eq != std::string::npos) {
      values.push_back(w.after(eq + 1));
    } else {
      for (std::size_t k = i + 1; k < words.size() && !is_option_word(words[k]); ++k) values.push_back(words[k]);
    }
    for (const auto& v : values) {
      const auto lit = v.literal();
      if (a.rule == ScriptArgument::Rule::variable) {
        const bool by_variable = !v.parts.empty() && v.parts.front().kind == WordPart::Kind::variable;
        if (!by_variable && !(lit && parse_double(*lit)))
          problem(&words[i], "command.argument",
                  fmt::format("{} {}: a file the run reads named by the recipe; it {}", flag, shown(v), a.why),
                  "give the path through a variable the user sets ($TORCH_DIST, $HF_CKPT, $SFT_DATA, ...)");
        continue;
      }
      const std::string top = lit ? lit->substr(0, lit->find('.')) : "";
      const bool allowed = lit && !top.empty() &&
                           (std::find(a.packages.begin(), a.packages.end(), top) != a.packages.end() ||
                            std::find(patch_modules.begin(), patch_modules.end(), top) != patch_modules.end());
      if (!allowed) {
        std::string list;
        for (const auto& p : a.packages) list += (list.empty() ? "" : ", ") + p;
        for (const auto& p : patch_modules) list += (list.empty() ? "" : ", ") + p;
        problem(&words[i], "command.argument",
                fmt::format("{} {} is not an import path in {}: {} is {}", flag, shown(v), list, flag, a.why),
                "name a function of data/'s plugin, of the framework, or of a module among the recipe's patches");
      }
    }
  }
}

}  // namespace openrecipes::checks
