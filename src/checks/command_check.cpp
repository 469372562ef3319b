// The published command against the run's launch and argument dump (SPEC §5; checks/command_check.h).
#include "checks/command_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/text.h"
#include "evidence/python_literal.h"

namespace openrecipes::checks {
namespace {

using layout::CommandWord;
using layout::WordPart;
using Action = OptionSpec::Action;

bool match_parts(const std::vector<WordPart>& parts, std::size_t pi, std::string_view text,
                 std::map<std::string, std::string>& b) {
  if (pi == parts.size()) return text.empty();
  const WordPart& p = parts[pi];
  if (p.kind == WordPart::Kind::literal) {
    if (!text.starts_with(p.text)) return false;
    return match_parts(parts, pi + 1, text.substr(p.text.size()), b);
  }
  if (p.kind != WordPart::Kind::variable) return false;  // arrays and the entry module are whole words
  if (auto it = b.find(p.text); it != b.end()) {
    if (!text.starts_with(it->second)) return false;
    return match_parts(parts, pi + 1, text.substr(it->second.size()), b);
  }
  for (std::size_t n = 1; n <= text.size(); ++n) {
    auto trial = b;
    trial[p.text] = std::string(text.substr(0, n));
    if (match_parts(parts, pi + 1, text.substr(n), trial)) {
      b = std::move(trial);
      return true;
    }
  }
  return false;
}

CommandWord literal_word(const std::string& s) {
  CommandWord w;
  w.parts.push_back({WordPart::Kind::literal, s, false});
  return w;
}

bool whole_array(const CommandWord& w) { return w.parts.size() == 1 && w.parts[0].kind == WordPart::Kind::array; }

// Python's str() of a parsed literal element, for messages and string comparison.
std::string python_str(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_null()) return "None";
  if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
  if (v.is_number()) return format_double(v.get<double>());
  return v.dump();
}

// A value in a message: as printed when it is short printable ASCII, quoted and escaped otherwise.
std::string visible(const std::string& v) {
  const bool plain = !v.empty() && v.size() <= 120 &&
                     std::all_of(v.begin(), v.end(), [](char c) { return c > 0x20 && c < 0x7f && c != '\''; });
  return plain ? v : quote_for_message(v, 120);
}

bool numbers_equal(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// Does one value word agree with one printed value (`printed`: the dump's text for a scalar, python_str of a list
// element)? `type` as the table gives it ("" when there is no table: numbers compared as numbers when both are).
bool value_agrees(const CommandWord& word, const std::string& printed, const OptionSpec* spec) {
  const auto literal = word.literal();
  if (!literal) {
    std::map<std::string, std::string> b;
    return word_matches(word, printed, b);
  }
  const std::string& lit = *literal;
  const std::string type = spec ? spec->type : "";
  if (type.starts_with("other:")) return true;  // converted by the framework's own function: presence only
  if (type == "bool") return printed == (lit.empty() ? "False" : "True");
  if (type == "enum") {
    auto it = spec->enum_values.find(lit);
    return it != spec->enum_values.end() && it->second == printed;
  }
  if (type == "int") {
    auto a = parse_int(lit), d = parse_int(printed);
    return a && d && *a == *d;
  }
  if (type == "float") {
    auto a = parse_double(lit), d = parse_double(printed);
    return a && d && numbers_equal(*a, *d);
  }
  if (type == "str") return lit == printed;
  // No table: as the dump prints it, or the same number.
  if (lit == printed) return true;
  auto a = parse_double(lit), d = parse_double(printed);
  return a && d && numbers_equal(*a, *d);
}

// The dump's value as a list of printed elements (nullopt when it is not a list literal).
std::optional<std::vector<std::string>> dump_list(const std::string& value) {
  std::string_view t = trim(value);
  if (t.empty() || t.front() != '[') return std::nullopt;
  try {
    std::size_t used = 0;
    auto j = evidence::parse_python_literal(t, used);
    if (used != t.size() || !j.is_array()) return std::nullopt;
    std::vector<std::string> out;
    for (const auto& e : j) out.push_back(python_str(e));
    return out;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string join_words(const std::vector<CommandWord>& ws) {
  std::string out;
  for (const auto& w : ws) out += (out.empty() ? "" : " ") + w.shown();
  return out;
}

// Whether the dump's value agrees with what the arguments set for one destination; the command's value as shown.
bool argument_agrees(const ParsedArgument& a, const std::string& printed, std::string& command_value) {
  const OptionSpec* spec = a.spec;
  if (a.constant) {
    command_value = *a.constant;
    if (spec && spec->action == Action::append_const) return true;  // a list of consts: presence only
    return printed == *a.constant;
  }
  if (a.occurrences.empty()) return true;
  const bool append = spec && spec->action == Action::append;
  const bool list_valued = spec ? (spec->nargs == "*" || spec->nargs == "+" || parse_int(spec->nargs).has_value())
                                : (a.occurrences.back().size() > 1 || dump_list(printed).has_value());
  if (append) {
    std::string shown_all;
    for (const auto& occ : a.occurrences) shown_all += (shown_all.empty() ? "" : ", ") + join_words(occ);
    command_value = "[" + shown_all + "]";
    if (list_valued) return true;  // a list of lists: presence only
    auto list = dump_list(printed);
    if (!list || list->size() != a.occurrences.size()) return false;
    for (std::size_t k = 0; k < list->size(); ++k)
      if (a.occurrences[k].size() != 1 || !value_agrees(a.occurrences[k][0], (*list)[k], spec)) return false;
    return true;
  }
  const auto& words = a.occurrences.back();
  command_value = join_words(words);
  if (spec && spec->type.starts_with("other:")) return true;
  if (!list_valued) return words.size() == 1 && value_agrees(words[0], printed, spec);
  auto list = dump_list(printed);
  if (!list) return false;
  if (spec && spec->type == "enum") return true;  // a list of enum members prints their reprs: presence only
  if (list->size() != words.size()) return false;
  for (std::size_t k = 0; k < words.size(); ++k)
    if (!value_agrees(words[k], (*list)[k], spec)) return false;
  return true;
}

// A choice argparse would refuse.
std::optional<std::string> refused_choice(const ParsedArgument& a) {
  if (!a.spec || a.spec->choices.empty() || a.spec->type == "enum") return std::nullopt;
  for (const auto& occ : a.occurrences)
    for (const auto& w : occ) {
      auto lit = w.literal();
      if (!lit) continue;
      bool ok = false;
      for (const auto& c : a.spec->choices) ok |= value_agrees(w, c, a.spec);
      if (!ok) return *lit;
    }
  return std::nullopt;
}

// The whole number a program flag of the command gives (any of `spellings`), nullopt when absent.
std::optional<std::int64_t> program_flag(const std::vector<CommandWord>& words, const CommandShape& shape,
                                         const std::vector<std::string>& spellings) {
  const auto v = layout::flag_value(words, spellings, shape.program + 1, shape.script);
  return v ? parse_int(*v) : std::nullopt;
}

// torchrun starts --nproc-per-node processes on each of --nnodes nodes (1 and 1 when absent; python3 starts one):
// the processes the published command starts must be the run's world size.
void check_world_size(const std::vector<CommandWord>& words, const CommandShape& shape,
                      const std::map<std::string, std::string>& dump, Reasons& out) {
  if (shape.program_name != "torchrun" && shape.program_name != "python3") return;
  // slime and miles: python3 is the Ray driver; the trainers are the actor's GPUs (--actor-num-nodes x
  // --actor-num-gpus-per-node, which slime makes world_size), script arguments the dump check compares already.
  if (shape.ray_driver) return;
  auto it = dump.find("world_size");
  const auto world = it == dump.end() ? std::nullopt : parse_int(it->second);
  if (!world) return;  // checks/device.h says so
  std::int64_t procs = 1;
  if (shape.program_name == "torchrun") {
    procs = program_flag(words, shape, {"--nproc-per-node", "--nproc_per_node"}).value_or(1) *
            program_flag(words, shape, {"--nnodes"}).value_or(1);
  }
  if (procs != *world)
    out.push_back(
        {Stage::command, "command.world-size",
         fmt::format("the published command starts {} trainer process(es) ({}), but the argument dump has "
                     "world_size = {}",
                     procs,
                     shape.program_name == "torchrun" ? "torchrun's --nproc-per-node x --nnodes" : "python3 starts one",
                     *world),
         "publish the command as it ran: the launcher's counts are the run's"});
}

// The words ${MODEL_ARGS[@]} stood for in the run, which no published word shows: a model script gives the model's
// shape, so they may not set what the published command sets too (which of the two the run used would then depend on
// words a reader cannot see), nor a structural argument (how the run was laid out or packed: the recipe's speed).
void check_array_words(const evidence::Launch& launch, const LaunchMatch& m, const OptionTable* table,
                       const std::map<std::string, std::string>& dump,
                       const std::function<ArgClass(const std::string&)>& classify, Reasons& out) {
  std::vector<CommandWord> inside, outside;
  for (std::size_t k = m.script + 1; k < launch.argv.size(); ++k)
    (k >= m.array->first && k < m.array->second ? inside : outside).push_back(literal_word(launch.argv[k]));
  const auto a = parse_arguments(inside, table, dump), b = parse_arguments(outside, table, dump);
  for (const auto& [dest, arg] : a.by_dest) {
    if (b.by_dest.count(dest))
      out.push_back({Stage::command, "command.expansion",
                     fmt::format("{} sets {} both in the published command's own words and in the words its "
                                 "${{MODEL_ARGS[@]}} stood for, which no reader of the command sees",
                                 launch.file, dest),
                     "set it in one place: in the command, or in the framework's model script"});
    else if (classify && classify(dest) == ArgClass::structural)
      out.push_back({Stage::command, "command.expansion",
                     fmt::format("{} sets {} (structural: the layout or packing the recipe is about) in the words its "
                                 "${{MODEL_ARGS[@]}} stood for, which no reader of the command sees",
                                 launch.file, dest),
                     "give the recipe's layout and packing in its command, not in the model script"});
  }
}

}  // namespace

bool word_matches(const CommandWord& word, std::string_view text, std::map<std::string, std::string>& bindings) {
  return match_parts(word.parts, 0, text, bindings);
}

LaunchMatch match_launch(const std::vector<CommandWord>& words, const CommandShape& shape,
                         const evidence::Launch& launch) {
  LaunchMatch m;
  auto& b = m.bindings;
  // The environment, word for word.
  if (launch.env.size() != shape.env_end) {
    m.problem = fmt::format("the command sets {}, the run {}",
                            counted(std::int64_t(shape.env_end), "environment variable"), launch.env.size());
    return m;
  }
  for (std::size_t i = 0; i < shape.env_end; ++i) {
    const CommandWord& w = words[i];
    const auto name = *layout::assignment_name(w);
    if (launch.env[i].first != name || !word_matches(w.after(name.size() + 1), launch.env[i].second, b)) {
      m.problem = fmt::format("the command's {} is {}={} in the run", visible(w.shown()), launch.env[i].first,
                              visible(launch.env[i].second));
      return m;
    }
  }
  // The words, the one array (if any) standing for the run of argv words between the fixed prefix and suffix.
  const std::vector<CommandWord> rest(words.begin() + static_cast<std::ptrdiff_t>(shape.program), words.end());
  std::size_t arrays = static_cast<std::size_t>(std::count_if(rest.begin(), rest.end(), whole_array));
  if (arrays > 1) {
    m.problem = "the command has more than one ${NAME[@]} word, so its words cannot be aligned with the run's";
    return m;
  }
  const auto& argv = launch.argv;
  const auto at = std::find_if(rest.begin(), rest.end(), whole_array);
  const std::size_t prefix = static_cast<std::size_t>(at - rest.begin());
  const std::size_t suffix = arrays ? rest.size() - prefix - 1 : 0;
  if (arrays ? argv.size() < prefix + suffix : argv.size() != rest.size()) {
    m.problem = fmt::format("the command has {} words{}, the run's argv {}", rest.size() - arrays,
                            arrays ? " besides its ${NAME[@]}" : "", argv.size());
    return m;
  }
  auto word_vs = [&](const CommandWord& w, const std::string& a) -> std::optional<std::string> {
    if (w.parts.size() == 1 && w.parts[0].kind == WordPart::Kind::entry_module) {
      if (a == "train.py" || a.ends_with("/train.py")) return std::nullopt;
    } else if (word_matches(w, a, b)) {
      return std::nullopt;
    }
    return fmt::format("the command's {} is {} in the run", visible(w.shown()), visible(a));
  };
  for (std::size_t k = 0; k < prefix; ++k)
    if ((m.problem = word_vs(rest[k], argv[k]))) return m;
  for (std::size_t k = 0; k < suffix; ++k)
    if ((m.problem = word_vs(rest[rest.size() - 1 - k], argv[argv.size() - 1 - k]))) return m;
  m.script = shape.script - shape.program;
  if (arrays) {
    m.array = std::make_pair(prefix, argv.size() - suffix);
    if (prefix <= m.script) m.script += argv.size() - prefix - suffix - 1;
  }
  return m;
}

Reasons check_command_evidence(const std::vector<CommandWord>& words, const CommandShape& shape,
                               const std::map<std::string, std::string>& dump, const evidence::Launch* launch,
                               const OptionTable* table, const std::string& where,
                               const std::function<ArgClass(const std::string&)>& classify, bool table_is_the_runs) {
  Reasons out;
  check_world_size(words, shape, dump, out);
  std::vector<std::string> differences;
  std::vector<CommandWord> args;
  std::string source = "the published command";
  if (launch) {
    const LaunchMatch m = match_launch(words, shape, *launch);
    if (m.problem) {
      out.push_back({Stage::command, "command.launch",
                     fmt::format("{} is not the command the run started ({}): {}", where, launch->file, *m.problem),
                     "publish the command as it ran (openrecipes submit writes it from the run's plan)"});
      return out;
    }
    for (std::size_t k = m.script + 1; k < launch->argv.size(); ++k) args.push_back(literal_word(launch->argv[k]));
    source = "the run's argv (" + launch->file + ")";
    if (m.array) check_array_words(*launch, m, table, dump, classify, out);
  } else {
    args.assign(words.begin() + static_cast<std::ptrdiff_t>(shape.script) + 1, words.end());
  }
  const auto parsed = parse_arguments(args, table, dump);
  for (const auto& p : parsed.problems) {
    if (whole_array(*p.word)) {
      out.push_back(
          {Stage::command, "command.expansion",
           fmt::format("{} uses {}, and the evidence has no captured launch to show its words", where, p.word->shown()),
           "submit the run with openrecipes submit, which keeps the run's argv as evidence/launch.json"});
      continue;
    }
    differences.push_back(
        fmt::format("{} (in {})", p.what.empty() ? p.word->shown() : p.word->shown() + ": " + p.what, source));
  }
  for (const auto& [dest, a] : parsed.by_dest) {
    if (table_is_the_runs && table && !a.spec) {
      differences.push_back(fmt::format("{} gives {}, which {} {}'s parser does not have (it would refuse to start)",
                                        source, a.flag, table->framework, table->commit.substr(0, 8)));
      continue;
    }
    auto it = dump.find(dest);
    if (it == dump.end()) {
      differences.push_back(
          fmt::format("{} sets {} ({}), but the argument dump has no {}", source, a.flag, dest, dest));
      continue;
    }
    if (auto bad = refused_choice(a)) {
      differences.push_back(
          fmt::format("{} gives {} {}, which is not one of its choices", source, a.flag, visible(*bad)));
      continue;
    }
    std::string command_value;
    if (!argument_agrees(a, it->second, command_value))
      differences.push_back(a.constant
                                ? fmt::format("{} gives {}, which sets {} = {}, but the argument dump has {} = {}",
                                              source, a.flag, dest, visible(command_value), dest, visible(it->second))
                                : fmt::format("{} gives {} {}, but the argument dump has {} = {}", source, a.flag,
                                              visible(command_value), dest, visible(it->second)));
  }
  for (std::size_t k = 0; k < differences.size() && k < kMaxCommandDifferences; ++k)
    out.push_back({Stage::command, "command.argument-dump", differences[k],
                   "publish the command as it ran: its arguments are the run's argument dump's"});
  if (differences.size() > kMaxCommandDifferences)
    out.push_back({Stage::command, "command.argument-dump",
                   fmt::format("{} more differences between {} and the argument dump",
                               differences.size() - kMaxCommandDifferences, source),
                   "publish the command as it ran"});
  return out;
}

}  // namespace openrecipes::checks
