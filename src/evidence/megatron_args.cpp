// Megatron-LM argument dump parser (SPEC §4.1). Megatron prints each argument as
// "  {name} {'.' * (48 - len(name))} {value}" between two rule lines (megatron/training/arguments.py).
#include "evidence/megatron_args.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/text.h"

namespace openrecipes::evidence {
namespace {
bool is_rule(std::string_view line, std::string_view word) {
  line = trim(line);
  if (line.size() < word.size() + 4 || line.front() != '-' || line.back() != '-') return false;
  auto p = line.find(word);
  if (p == std::string_view::npos) return false;
  for (std::size_t i = 0; i < p; ++i)
    if (line[i] != '-' && line[i] != ' ') return false;
  for (std::size_t i = p + word.size(); i < line.size(); ++i)
    if (line[i] != '-' && line[i] != ' ') return false;
  return true;
}
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
}  // namespace

ArgumentDump parse_megatron_args(std::string_view text, const std::string& file) {
  ArgumentDump dump;
  dump.file = file;
  auto lines = lines_of(text);
  std::size_t i = 0;
  while (i < lines.size() && !is_rule(lines[i], "arguments")) ++i;
  if (i == lines.size())
    throw InputError(file, "no Megatron argument dump ('---- arguments ----' block) found",
                     "give the log of a Megatron-LM run: it prints its resolved arguments at start-up");
  dump.first_line = i + 1;
  for (++i; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (is_rule(line, "end of arguments")) return dump;
    std::string where = fmt::format("{}:{}", file, i + 1);
    std::string_view body = line;
    while (!body.empty() && body.front() == ' ') body.remove_prefix(1);
    std::size_t n = 0;
    while (n < body.size() && is_name_char(body[n])) ++n;
    // "name" ' ' dots* (' ' value)?  — names of 48+ characters get no dots, an empty value leaves "dots ".
    std::size_t p = n + 1;
    bool ok = n > 0 && n < body.size() && body[n] == ' ';
    while (ok && p < body.size() && body[p] == '.') ++p;
    if (ok && p < body.size() && body[p] != ' ') ok = false;
    if (!ok)
      throw InputError(where, "not an argument line ('name ..... value'): " + quote_for_message(line),
                       "the argument dump is damaged or interleaved with other output; give the unedited log");
    std::string_view value_text = p < body.size() ? trim(body.substr(p + 1)) : std::string_view();
    std::string name(body.substr(0, n));
    std::string value(value_text);
    if (!dump.values.emplace(name, value).second)
      throw InputError(where, "argument '" + name + "' appears twice in the dump", "give the log of one run only");
  }
  throw InputError(fmt::format("{}:{}", file, dump.first_line),
                   "the argument dump is not closed by '---- end of arguments ----'",
                   "the log is truncated; give the complete log");
}

std::optional<ArgumentDump> find_megatron_args(std::string_view text, const std::string& file) {
  for (auto line : lines_of(text))
    if (is_rule(line, "arguments")) return parse_megatron_args(text, file);
  return std::nullopt;
}

std::optional<std::int64_t> log_interval_of(const ArgumentDump& dump) {
  auto it = dump.values.find("log_interval");
  return it == dump.values.end() ? std::nullopt : parse_int(it->second);
}

namespace {
std::optional<std::int64_t> positive(const ArgumentDump& dump, const char* name) {
  auto it = dump.values.find(name);
  if (it == dump.values.end()) return std::nullopt;
  auto v = parse_int(it->second);
  return v && *v > 0 ? v : std::nullopt;
}
}  // namespace

std::optional<std::int64_t> gpu_count_of(const ArgumentDump& dump) {
  constexpr std::int64_t kBound = std::int64_t{1} << 20;
  const auto world = positive(dump, "world_size");
  const auto nodes = positive(dump, "actor_num_nodes"), per_node = positive(dump, "actor_num_gpus_per_node");
  std::optional<std::int64_t> actor;
  if (nodes && per_node && *nodes <= kBound && *per_node <= kBound) actor = *nodes * *per_node;
  if (world && actor && *world != *actor)
    throw InputError(dump.file,
                     fmt::format("the argument dump has world_size = {}, but actor_num_nodes x "
                                 "actor_num_gpus_per_node = {} x {} = {} (slime sets world_size to that)",
                                 *world, *nodes, *per_node, *actor),
                     "give the run's own unedited log");
  return world ? world : actor;
}

std::optional<std::int64_t> run_steps_of(const ArgumentDump& dump) {
  // slime and miles: num_rollout rollouts from start_rollout_id, each of rollout_batch_size x n_samples_per_prompt
  // samples cut into steps of global_batch_size (what does not fill a step is dropped: slime rollout.py,
  // dp_schedule). Their train_iters, printed before the actor sets it, is not the run length.
  if (auto rollouts = positive(dump, "num_rollout")) {
    auto prompts = positive(dump, "rollout_batch_size"), samples = positive(dump, "n_samples_per_prompt"),
         batch = positive(dump, "global_batch_size");
    if (!prompts || !samples || !batch) return std::nullopt;
    std::int64_t start = 0;
    if (auto it = dump.values.find("start_rollout_id"); it != dump.values.end() && it->second != "None") {
      auto v = parse_int(it->second);
      if (!v || *v < 0) return std::nullopt;
      start = *v;
    }
    constexpr std::int64_t kBound = std::int64_t{1} << 30;  // each factor; the products stay within int64
    if (*rollouts > kBound || *prompts > kBound || *samples > kBound || start > *rollouts) return std::nullopt;
    return (*rollouts - start) * ((*prompts * *samples) / *batch);
  }
  return positive(dump, "train_iters");
}

std::optional<std::int64_t> own_log_interval(std::string_view text, const std::string& file) {
  auto dump = find_megatron_args(text, file);
  return dump ? log_interval_of(*dump) : std::nullopt;
}

}  // namespace openrecipes::evidence
