// tune.json read back as a recipe's search record (evidence/tune_search.h).
#include "evidence/tune_search.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/json_limits.h"

namespace openrecipes::evidence {
namespace {

using json = nlohmann::json;

constexpr std::size_t kMaxSearchString = 64 * 1024;

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[nodiscard]] InputError bad(const std::string& what) const {
    return InputError(file_, what,
                      "keep the tune.json openrecipes tune wrote, unedited (submit --search TUNE_DIR copies it)");
  }
  const json& field(const json& o, const char* key, const std::string& where) const {
    if (!o.is_object()) throw bad(where + " is not an object");
    auto it = o.find(key);
    if (it == o.end()) throw bad(fmt::format("{} has no field '{}'", where, key));
    return *it;
  }
  // A string value (`where` names it); control characters refused (`lines`: but newlines and tabs, as a command
  // holds).
  std::string text_at(const json& v, const std::string& where, bool lines = false) const {
    if (!v.is_string()) throw bad(where + " is not a string");
    auto s = v.get<std::string>();
    if (s.size() > kMaxSearchString) throw bad(where + " is longer than 64 KiB");
    for (unsigned char c : s)
      if ((c < 0x20 && !(lines && (c == '\n' || c == '\t'))) || c == 0x7f)
        throw bad(where + " holds a control character");
    return s;
  }
  std::string text(const json& o, const char* key, const std::string& where, bool lines = false) const {
    return text_at(field(o, key, where), where + "." + key, lines);
  }
  // A string field that may be null ("").
  std::string maybe_text(const json& o, const char* key, const std::string& where) const {
    const json& v = field(o, key, where);
    if (v.is_null()) return {};
    if (!v.is_string()) throw bad(fmt::format("{}.{} is not a string or null", where, key));
    return text_at(v, where + "." + key);
  }
  bool flag(const json& o, const char* key, const std::string& where) const {
    const json& v = field(o, key, where);
    if (!v.is_boolean()) throw bad(fmt::format("{}.{} is not true or false", where, key));
    return v.get<bool>();
  }
  // A finite number >= 0 (null allowed when `nullable`).
  std::optional<double> number_at(const json& v, const std::string& where, bool nullable) const {
    if (nullable && v.is_null()) return std::nullopt;
    if (!v.is_number()) throw bad(where + (nullable ? " is not a number or null" : " is not a number"));
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < 0) throw bad(where + " is negative or not finite");
    if (x > 1e9) throw bad(where + " is over 10^9");
    return x;
  }
  double number(const json& o, const char* key, const std::string& where) const {
    return *number_at(field(o, key, where), where + "." + key, false);
  }
  std::optional<double> maybe(const json& o, const char* key, const std::string& where) const {
    return number_at(field(o, key, where), where + "." + key, true);
  }
  std::int64_t count(const json& o, const char* key, const std::string& where) const {
    const json& v = field(o, key, where);
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > 1000000)
      throw bad(fmt::format("{}.{} is not a whole number from 0 to 10^6", where, key));
    return v.get<std::int64_t>();
  }
  std::vector<std::string> texts(const json& o, const char* key, const std::string& where) const {
    std::vector<std::string> out;
    const json& v = list(o, key, where);
    for (std::size_t i = 0; i < v.size(); ++i) out.push_back(text_at(v[i], fmt::format("{}.{}[{}]", where, key, i)));
    return out;
  }
  // A score's 95% interval, [low, high] (high null: unbounded), or null: into `low` and `high`.
  void interval(const json& o, const char* key, const std::string& where, std::optional<double>& low,
                std::optional<double>& high) const {
    const json& v = field(o, key, where);
    if (v.is_null()) return;
    const std::string at = where + "." + key;
    if (!v.is_array() || v.size() != 2) throw bad(at + " is not [low, high]");
    low = number_at(v[0], at + "[0]", false);
    high = number_at(v[1], at + "[1]", true);
  }
  const json& list(const json& o, const char* key, const std::string& where) const {
    const json& v = field(o, key, where);
    if (!v.is_array()) throw bad(fmt::format("{}.{} is not a list", where, key));
    if (v.size() > kMaxSearchTrials)
      throw bad(fmt::format("{}.{} has more than {} entries", where, key, kMaxSearchTrials));
    return v;
  }

 private:
  std::string file_;
};

}  // namespace

std::string trial_log_path(const std::string& search_relative, std::int64_t trial) {
  const auto parent = std::filesystem::path(search_relative).parent_path();
  return (parent / "search-trials" / fmt::format("{:02}.log", trial)).string();
}

namespace {
constexpr std::pair<TrialOutcome, const char*> kOutcomes[] = {
    {TrialOutcome::measured, "measured"},      {TrialOutcome::cut_slower, "cut: slower"},
    {TrialOutcome::cut_budget, "cut: budget"}, {TrialOutcome::oom, "oom"},
    {TrialOutcome::crashed, "crashed"},        {TrialOutcome::refused, "refused"},
    {TrialOutcome::interrupted, "interrupted"}};
}  // namespace

const char* outcome_name(TrialOutcome outcome) {
  for (const auto& [o, name] : kOutcomes)
    if (o == outcome) return name;
  return "?";
}

std::optional<TrialOutcome> outcome_named(std::string_view name) {
  for (const auto& [o, n] : kOutcomes)
    if (name == n) return o;
  return std::nullopt;
}

const SearchCandidate* TuneSearch::find_candidate(const std::string& name) const {
  for (const auto& c : candidates)
    if (c.name == name) return &c;
  return nullptr;
}

TuneSearch parse_tune_search(std::string_view text, const std::string& file) {
  const Reader r(file);
  const json j = parse_json_strict(text, file, "keep the tune.json openrecipes tune wrote");
  if (!j.is_object()) throw r.bad("not a JSON object");
  if (r.text(j, "format", "the record") != "openrecipes-tune") throw r.bad("format is not openrecipes-tune");
  if (r.count(j, "format_version", "the record") != 1) throw r.bad("format_version is not 1");
  TuneSearch s;
  s.file = file;
  s.recipe = r.text(j, "recipe", "the record");
  s.gpus = r.count(j, "gpus", "the record");
  s.nodes = r.count(j, "nodes", "the record");
  s.launcher = r.text(j, "launcher", "the record");
  s.budget_minutes = r.number(j, "budget_minutes", "the record");
  s.warmup_steps = r.count(j, "warmup_steps", "the record");
  s.trial_steps = r.count(j, "trial_steps", "the record");
  s.memory_mib = r.number(j, "memory_mib", "the record");
  s.usable_memory_mib = r.maybe(j, "usable_memory_mib", "the record");
  s.interval_method = r.text(j, "interval_method", "the record");
  s.stopped = r.text(j, "stopped", "the record");
  s.elapsed_s = r.number(j, "elapsed_s", "the record");
  if (s.gpus < 1 || s.nodes < 1) throw r.bad("gpus and nodes must be at least 1");

  std::set<std::string> names;
  for (const auto& c : r.list(j, "candidates", "the record")) {
    const std::string where = fmt::format("candidates[{}]", s.candidates.size());
    SearchCandidate x;
    x.name = r.text(c, "name", where);
    x.start = r.flag(c, "start", where);
    x.knobs = r.text(c, "knobs", where);
    const json& l = r.field(c, "layout", where);
    const std::string lw = where + ".layout";
    x.layout.tp = r.count(l, "tp", lw), x.layout.pp = r.count(l, "pp", lw), x.layout.cp = r.count(l, "cp", lw);
    x.layout.ep = r.count(l, "ep", lw), x.layout.etp = r.count(l, "etp", lw), x.layout.dp = r.count(l, "dp", lw);
    if (!r.field(l, "vpp", lw).is_null()) x.layout.vpp = r.count(l, "vpp", lw);
    x.micro_batch = r.count(c, "micro_batch", where);
    x.recompute = r.text(c, "recompute", where);
    x.distributed_optimizer = r.flag(c, "distributed_optimizer", where);
    x.sequence_parallel = r.flag(c, "sequence_parallel", where);
    x.predicted_peak_mib = r.number(c, "predicted_peak_mib", where);
    x.planner_fits = r.flag(c, "planner_fits", where);
    x.relative_time = r.number(c, "relative_time", where);
    if (c.contains("predicted_step_time_s")) x.predicted_step_time_s = r.number(c, "predicted_step_time_s", where);
    x.changes = r.texts(c, "changes", where);
    if (c.contains("swap")) x.swap = r.text(c, "swap", where);
    x.command = r.text(c, "command", where, true);
    if (!names.insert(x.name).second) throw r.bad("the candidate " + x.name + " appears twice");
    s.candidates.push_back(std::move(x));
  }
  const auto starts = std::count_if(s.candidates.begin(), s.candidates.end(), [](const auto& c) { return c.start; });
  if (starts != 1) throw r.bad(fmt::format("{} candidates are the start, not one", starts));
  if (j.contains("swaps")) {
    s.swaps.emplace();
    for (const auto& sw : r.list(j, "swaps", "the record")) {
      const std::string where = fmt::format("swaps[{}]", s.swaps->size());
      SearchSwap x{r.text(sw, "test", where), {}, ""};
      for (const auto& a : r.list(sw, "arguments", where))
        x.arguments.push_back({r.text(a, "argument", where + ".arguments"),
                               r.text(a, "reference", where + ".arguments"),
                               r.text(a, "recipe", where + ".arguments")});
      x.tested_in = r.text(sw, "tested_in", where);
      s.swaps->push_back(std::move(x));
    }
  }
  std::set<std::string> tried;
  for (const auto& t : r.list(j, "trials", "the record")) {
    const std::string where = fmt::format("trials[{}]", s.trials.size());
    SearchTrial x;
    x.trial = r.count(t, "trial", where);
    if (x.trial != static_cast<std::int64_t>(s.trials.size()) + 1)
      throw r.bad(fmt::format("{} is numbered {}, not {}", where, x.trial, s.trials.size() + 1));
    x.candidate = r.text(t, "candidate", where);
    const SearchCandidate* c = s.find_candidate(x.candidate);
    if (!c) throw r.bad(where + " names a candidate the record does not list");
    if (!tried.insert(x.candidate).second) throw r.bad(where + " tries a candidate a trial before it tried");
    if (s.trials.empty() && !c->start) throw r.bad("the first trial is not the start");
    x.knobs = r.text(t, "knobs", where);
    if (x.knobs != c->knobs) throw r.bad(where + ".knobs are not its candidate's");
    x.run_dir = r.maybe_text(t, "run_dir", where);
    const std::string outcome = r.text(t, "outcome", where);
    const auto named = outcome_named(outcome);
    if (!named) throw r.bad(fmt::format("{}.outcome '{}' is not one tune writes", where, outcome));
    x.outcome = *named;
    x.reason = r.text(t, "reason", where);
    x.planner = r.text(t, "planner", where);
    x.predicted_peak_mib = r.number(t, "predicted_peak_mib", where);
    x.planner_fits = r.flag(t, "planner_fits", where);
    x.measured_peak_mib = r.maybe(t, "measured_peak_mib", where);
    x.steps_measured = r.count(t, "steps_measured", where);
    x.tokens_per_s_per_gpu = r.maybe(t, "tokens_per_s_per_gpu", where);
    r.interval(t, "tokens_per_s_per_gpu_interval", where, x.score_low, x.score_high);
    if (x.tokens_per_s_per_gpu.has_value() != x.score_low.has_value())
      throw r.bad(where + " has a score without its interval, or an interval without a score");
    // (a zero-width interval, equal step times, holds its score to the last bits of the division)
    if (x.tokens_per_s_per_gpu && (*x.score_low > *x.tokens_per_s_per_gpu * (1 + 1e-9) ||
                                   (x.score_high && *x.score_high < *x.tokens_per_s_per_gpu * (1 - 1e-9))))
      throw r.bad(where + "'s score lies outside its own interval");
    x.mean_step_time_s = r.maybe(t, "mean_step_time_s", where);
    if (t.contains("predicted_step_time_s")) x.predicted_step_time_s = r.number(t, "predicted_step_time_s", where);
    x.wall_s = r.number(t, "wall_s", where);
    x.startup_s = r.maybe(t, "startup_s", where);
    x.best = r.flag(t, "best", where);
    x.within_noise_of_best = r.flag(t, "within_noise_of_best", where);
    s.trials.push_back(std::move(x));
  }
  const json& w = r.field(j, "winner", "the record");
  if (!w.is_null()) {
    TuneSearch::Winner x;
    x.trial = r.count(w, "trial", "winner");
    x.candidate = r.text(w, "candidate", "winner");
    x.start = r.flag(w, "start", "winner");
    x.knobs = r.text(w, "knobs", "winner");
    x.recipe = r.text(w, "recipe", "winner");
    x.run_dir = r.maybe_text(w, "run_dir", "winner");
    x.status = r.maybe_text(w, "status", "winner");
    x.tokens_per_s_per_gpu = r.maybe(w, "tokens_per_s_per_gpu", "winner");
    r.interval(w, "tokens_per_s_per_gpu_interval", "winner", x.score_low, x.score_high);
    if (x.trial < 1 || x.trial > static_cast<std::int64_t>(s.trials.size()) ||
        s.trials[static_cast<std::size_t>(x.trial - 1)].candidate != x.candidate)
      throw r.bad("the winner is not one of the record's trials");
    const auto& wt = s.trials[static_cast<std::size_t>(x.trial - 1)];
    if (wt.outcome != TrialOutcome::measured || !wt.tokens_per_s_per_gpu)
      throw r.bad(std::string("the winner's trial was not measured (") + outcome_name(wt.outcome) + ")");
    if (x.start != s.find_candidate(x.candidate)->start) throw r.bad("the winner's start mark is not its candidate's");
    s.winner = std::move(x);
  }
  for (const auto& t : s.trials)
    if (t.best != (s.winner && s.winner->trial == t.trial))
      throw r.bad(fmt::format("trial {}'s best mark disagrees with the winner (trial {})", t.trial,
                              s.winner ? std::to_string(s.winner->trial) : std::string("none")));
  return s;
}

std::string tune_search_json(const TuneSearch& s) {
  using J = nlohmann::ordered_json;
  auto opt = [](const std::optional<double>& v) { return v ? J(*v) : J(nullptr); };
  auto interval = [](const std::optional<double>& low, const std::optional<double>& high) {
    return low ? J::array({*low, high ? J(*high) : J(nullptr)}) : J(nullptr);
  };
  auto text_or_null = [](const std::string& v) { return v.empty() ? J(nullptr) : J(v); };
  J j;
  j["format"] = "openrecipes-tune";
  j["format_version"] = 1;
  j["recipe"] = s.recipe;
  j["gpus"] = s.gpus, j["nodes"] = s.nodes, j["launcher"] = s.launcher;
  j["budget_minutes"] = s.budget_minutes;
  j["warmup_steps"] = s.warmup_steps, j["trial_steps"] = s.trial_steps;
  j["memory_mib"] = s.memory_mib;
  j["usable_memory_mib"] = opt(s.usable_memory_mib);
  j["interval_method"] = s.interval_method;
  auto cands = J::array();
  for (const auto& c : s.candidates) {
    const auto& l = c.layout;
    J x{{"name", c.name},
        {"start", c.start},
        {"knobs", c.knobs},
        {"layout",
         {{"tp", l.tp},
          {"pp", l.pp},
          {"vpp", l.vpp ? J(*l.vpp) : J(nullptr)},
          {"cp", l.cp},
          {"ep", l.ep},
          {"etp", l.etp},
          {"dp", l.dp}}},
        {"micro_batch", c.micro_batch},
        {"recompute", c.recompute},
        {"distributed_optimizer", c.distributed_optimizer},
        {"sequence_parallel", c.sequence_parallel},
        {"predicted_peak_mib", c.predicted_peak_mib},
        {"planner_fits", c.planner_fits},
        {"relative_time", c.relative_time},
        {"changes", c.changes}};
    if (c.predicted_step_time_s) x["predicted_step_time_s"] = *c.predicted_step_time_s;
    if (c.swap) x["swap"] = *c.swap;
    x["command"] = c.command;
    cands.push_back(std::move(x));
  }
  j["candidates"] = std::move(cands);
  if (s.swaps) {
    auto swaps = J::array();
    for (const auto& sw : *s.swaps) {
      auto args = J::array();
      for (const auto& a : sw.arguments)
        args.push_back({{"argument", a.argument}, {"reference", a.reference}, {"recipe", a.recipe}});
      swaps.push_back({{"test", sw.test}, {"arguments", args}, {"tested_in", sw.tested_in}});
    }
    j["swaps"] = std::move(swaps);
  }
  auto trials = J::array();
  for (const auto& t : s.trials) {
    trials.push_back({{"trial", t.trial},
                      {"candidate", t.candidate},
                      {"knobs", t.knobs},
                      {"outcome", outcome_name(t.outcome)},
                      {"reason", t.reason},
                      {"predicted_peak_mib", t.predicted_peak_mib},
                      {"planner_fits", t.planner_fits},
                      {"measured_peak_mib", opt(t.measured_peak_mib)},
                      {"planner", t.planner},
                      {"steps_measured", t.steps_measured},
                      {"tokens_per_s_per_gpu", opt(t.tokens_per_s_per_gpu)},
                      {"tokens_per_s_per_gpu_interval", interval(t.score_low, t.score_high)},
                      {"mean_step_time_s", opt(t.mean_step_time_s)},
                      {"wall_s", t.wall_s},
                      {"startup_s", opt(t.startup_s)},
                      {"best", t.best},
                      {"within_noise_of_best", t.within_noise_of_best},
                      {"run_dir", t.run_dir}});
    if (t.predicted_step_time_s) trials.back()["predicted_step_time_s"] = *t.predicted_step_time_s;
  }
  j["trials"] = std::move(trials);
  j["stopped"] = s.stopped;
  j["elapsed_s"] = s.elapsed_s;
  if (s.winner) {
    const auto& w = *s.winner;
    j["winner"] = {{"trial", w.trial},
                   {"candidate", w.candidate},
                   {"start", w.start},
                   {"knobs", w.knobs},
                   {"recipe", w.recipe},
                   {"run_dir", text_or_null(w.run_dir)},
                   {"status", text_or_null(w.status)},
                   {"tokens_per_s_per_gpu", opt(w.tokens_per_s_per_gpu)},
                   {"tokens_per_s_per_gpu_interval", interval(w.score_low, w.score_high)}};
  } else {
    j["winner"] = nullptr;
  }
  return j.dump(2) + "\n";
}

}  // namespace openrecipes::evidence
