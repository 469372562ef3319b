// A tuned recipe's search (issue 29): the tune.json that `openrecipes tune` wrote (format openrecipes-tune v1,
// docs/tune.md), kept as the recipe's evidence/search.json by `submit --search` so that its page can show how it was
// found. Read here as untrusted input; written by run/tune.cpp (tune_json).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace openrecipes::evidence {

/// At most this many candidates and trials in a search record, and this many bytes in the file (submit and build).
inline constexpr std::size_t kMaxSearchTrials = 10000;
inline constexpr std::size_t kMaxSearchBytes = std::size_t{16} << 20;

/// Where a recipe keeps trial `trial`'s step log beside its search record `search_relative` (recipe.yaml's
/// evidence.search path): "<its folder>/search-trials/<NN>.log" (NN the trial number, two digits at least).
/// `submit --search` copies each trial's log there; build recomputes the trial's numbers from it.
std::string trial_log_path(const std::string& search_relative, std::int64_t trial);

/// One candidate configuration of the search: the draft recipe tune wrote for it.
struct SearchCandidate {
  std::string name;     ///< the draft's folder name ("tulu3-ref-mbs32")
  std::string knobs;    ///< what changed from the start, in words ("micro-batch 4 -> 32"; "the start")
  bool start = false;   ///< the starting recipe's own configuration
  std::string command;  ///< the draft's command (the recipe's own length)
};

/// One trial: a short run of one candidate.
struct SearchTrial {
  std::int64_t trial = 0;  ///< 1-based, in the order run
  std::string candidate;   ///< a SearchCandidate's name
  std::string run_dir;     ///< its run directory, relative to the tune folder ("" when it never started)
  std::string knobs;
  std::string outcome;  ///< measured, cut: slower, cut: budget, oom, crashed, refused, interrupted
  std::string reason;   ///< why it was cut or failed ("" when measured)
  std::string planner;  ///< the planner's verdict against what happened ("" when nothing to judge)
  double predicted_peak_mib = 0;
  bool planner_fits = true;
  std::optional<double> measured_peak_mib;  ///< Megatron's max allocated (MiB), when the log printed it
  std::int64_t steps_measured = 0;
  std::optional<double> tokens_per_s_per_gpu;   ///< over its measured steps
  std::optional<double> score_low, score_high;  ///< the score's 95% interval (high absent: unbounded)
  double wall_s = 0;                            ///< launch to exit, seconds
  bool best = false;
  bool within_noise_of_best = false;
  /// It records numbers a build recomputes from its step log (a score or a measured peak): submit --search copies
  /// that log, build reads it, the page links it.
  bool recomputed() const { return tokens_per_s_per_gpu || measured_peak_mib; }
};

/// The search as tune.json records it.
struct TuneSearch {
  std::string file;
  std::string recipe;  ///< the starting recipe's id, "<model>/<gpu>/<name>"
  std::int64_t gpus = 0, nodes = 0;
  std::string launcher;
  double budget_minutes = 0;
  std::int64_t warmup_steps = 0, trial_steps = 0;
  std::string interval_method;
  std::vector<SearchCandidate> candidates;
  std::vector<SearchTrial> trials;
  std::string stopped;  ///< why the search stopped ("budget", "every candidate tried", ...)
  double elapsed_s = 0;
  /// The winner: its trial number and candidate, and its run of the recipe's own length (score absent when that run
  /// did not complete or the start won).
  struct Winner {
    std::int64_t trial = 0;
    std::string candidate;
    bool start = false;
    std::string run_dir;  ///< its run of the recipe's own length, relative to the tune folder ("" when none)
    std::optional<double> tokens_per_s_per_gpu;
  };
  std::optional<Winner> winner;

  /// The candidate named `name`, or nullptr.
  const SearchCandidate* find_candidate(const std::string& name) const;
};

/// Parses tune.json's text. Throws InputError naming `file` (and the fix: keep the tune.json openrecipes tune wrote)
/// for malformed JSON, duplicate keys, another format or format_version, a missing field or one of the wrong type,
/// a negative, non-finite or implausibly large number (a count over 10^6, a size over 10^9 MiB, a time over 10^9 s),
/// an unknown outcome, a string over 64 KiB or holding a control character (a command may hold newlines and tabs),
/// more than kMaxSearchTrials candidates or trials, not exactly one start candidate, trials not numbered 1, 2, ..., a
/// first trial other than the start, a trial naming a candidate the record lacks or one tried before, or whose knobs
/// are not its candidate's, a score outside its own interval, a winner that is not one of its measured trials, and a
/// best trial other than the winner's.
TuneSearch parse_tune_search(std::string_view text, const std::string& file);

}  // namespace openrecipes::evidence
