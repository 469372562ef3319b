// Test helper: the log a slime or miles SFT run prints, in their real line formats, for a given command. slime and
// miles print Megatron-LM's argument dump (validate_args' `_print_args`: a header, "  name ....(48 - len dots) value"
// sorted case-insensitively, a footer; notes/slime.md §4.2) and, per step, `step N: {...}` (model.py; miles prints it
// twice) and `perf N: {...}` (train_metric_utils.py) dict lines. The dump holds what the run's parser would: every
// option of the framework's table (registry/rules/options/, generated from slime's, miles' and Megatron-LM's own
// parsers) at its default, the defaults slime's provider resets on Megatron-LM's options, and the values the command
// gives, read with that table; slime's own post-parse defaults (seq_length 4096 when unset, bf16); world_size
// (actor_num_nodes x actor_num_gpus_per_node, as slime sets it), rank and data_parallel_size. Values print as Python's
// str() would: a quoted string default without its quotes.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "checks/framework_options.h"
#include "core/files.h"
#include "layout/command.h"
#include "testing/support.h"

namespace openrecipes::testing {

/// Python's str() of a value whose repr() is `repr` (the tables' "default"): a quoted string loses its quotes.
inline std::string str_of_repr(const std::string& repr) {
  if (repr.size() >= 2 && (repr.front() == '\'' || repr.front() == '"') && repr.back() == repr.front())
    return repr.substr(1, repr.size() - 2);
  return repr;
}

/// The argument dump `framework`'s parser prints for `command` (the words after `<slime entry module>`; a word that
/// is a variable stands for /mnt/<name in lower case>). Throws std::runtime_error for a command the table cannot
/// read.
inline std::map<std::string, std::string> slime_dump_values(const std::string& command, const std::string& framework) {
  const checks::OptionTable* table = checks::OptionTable::bundled(framework);
  if (!table) throw std::runtime_error("no table for " + framework);
  std::map<std::string, std::string> values;
  for (const auto& o : table->options()) values[o.dest] = str_of_repr(o.default_value);
  const auto own = nlohmann::json::parse(read_file(source_dir() / "registry/rules/options" / (framework + ".json")));
  for (const auto& [dest, repr] : own.at("megatron_defaults").items()) values[dest] = str_of_repr(repr);
  auto words = layout::split_command(command, "test command");
  std::size_t script = 0;
  while (script < words.size() && words[script].shown() != "<slime entry module>") ++script;
  if (script == words.size()) throw std::runtime_error("no <slime entry module> in the command");
  std::vector<layout::CommandWord> args(words.begin() + static_cast<std::ptrdiff_t>(script) + 1, words.end());
  const auto parsed = checks::parse_arguments(args, table, values);
  if (!parsed.problems.empty()) throw std::runtime_error("the command does not parse: " + parsed.problems[0].what);
  auto text = [](const layout::CommandWord& w) {
    if (auto lit = w.literal()) return *lit;
    std::string name = w.shown();
    name.erase(std::remove_if(name.begin(), name.end(), [](char c) { return c == '$' || c == '{' || c == '}'; }),
               name.end());
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    return "/mnt/" + name;
  };
  for (const auto& [dest, arg] : parsed.by_dest) {
    if (arg.constant) {
      values[dest] = *arg.constant;
      continue;
    }
    const auto& words_given = arg.occurrences.back();
    const bool list = arg.spec && (arg.spec->nargs == "*" || arg.spec->nargs == "+");
    if (!list && words_given.size() == 1) {
      values[dest] = text(words_given[0]);
      continue;
    }
    const bool quoted = !arg.spec || (arg.spec->type != "int" && arg.spec->type != "float");
    std::string v = "[";
    for (std::size_t k = 0; k < words_given.size(); ++k)
      v += (k ? ", " : "") + (quoted ? "'" + text(words_given[k]) + "'" : text(words_given[k]));
    values[dest] = v + "]";
  }
  // slime's _set_default_megatron_args (backends/megatron_utils/arguments.py), before the dump is printed.
  if (values["seq_length"] == "None") values["seq_length"] = "4096";
  if (values["max_position_embeddings"] == "None") values["max_position_embeddings"] = values["seq_length"];
  values["bf16"] = values["fp16"] == "True" ? "False" : "True";
  const auto number = [&](const char* name) { return std::stoll(values.at(name)); };
  const std::int64_t world = number("actor_num_nodes") * number("actor_num_gpus_per_node");
  values["world_size"] = std::to_string(world);
  values["rank"] = "0";
  values["data_parallel_size"] =
      std::to_string(world / (number("tensor_model_parallel_size") * number("pipeline_model_parallel_size") *
                              number("context_parallel_size")));
  return values;
}

/// The dump block as Megatron-LM's `_print_args` prints it.
inline std::string megatron_dump_text(const std::map<std::string, std::string>& values) {
  std::vector<std::string> names;
  for (const auto& kv : values) names.push_back(kv.first);
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
    std::string x = a, y = b;
    std::transform(x.begin(), x.end(), x.begin(), [](unsigned char c) { return std::tolower(c); });
    std::transform(y.begin(), y.end(), y.begin(), [](unsigned char c) { return std::tolower(c); });
    return x < y;
  });
  std::string out = "------------------------ arguments ------------------------\n";
  for (const auto& n : names)
    out += "  " + n + " " + std::string(n.size() < 48 ? 48 - n.size() : 1, '.') + " " + values.at(n) + "\n";
  return out + "-------------------- end of arguments ---------------------\n";
}

/// A whole slime (or miles) log: the dump, then `steps` steps of loss `loss[k]` (k < loss.size(), else the last) and
/// step time `step_time_s`, as slime's logger lines print them; miles prints each step line twice.
inline std::string slime_run_log(const std::map<std::string, std::string>& dump, const std::string& framework,
                                 int steps, const std::vector<double>& loss, double step_time_s,
                                 double grad_norm = 1.5) {
  std::string out = "[2026-12-03 10:00:00] arguments.py:1626 - parsed arguments\n" + megatron_dump_text(dump);
  for (int k = 0; k < steps; ++k) {
    const double l = loss[std::min<std::size_t>(static_cast<std::size_t>(k), loss.size() - 1)];
    const std::string step = fmt::format(
        "[2026-12-03 10:{:02}:{:02}] model.py:918 - step {}: {{'train/loss': {}, 'train/grad_norm': {}, "
        "'train/global_batch_size': {}, 'train/step': {}}}\n",
        k / 10, (k * 6) % 60, k, l, grad_norm, dump.at("global_batch_size"), k);
    out += step;
    if (framework == "miles") out += step;
    out += fmt::format(
        "[2026-12-03 10:{:02}:{:02}] train_metric_utils.py:401 - perf {}: {{'perf/train_wait_time': 0.25, "
        "'perf/train_time': {}, 'perf/step_time': {}}}\n",
        k / 10, (k * 6) % 60, k, step_time_s - 0.25, step_time_s);
  }
  return out;
}

}  // namespace openrecipes::testing
