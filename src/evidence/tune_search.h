// A tuned recipe's search (docs/tune.md): the tune.json that `openrecipes tune` writes (format openrecipes-tune v1),
// kept as the recipe's evidence/search.json by `submit --search` so that its page can show how it was found. Written
// and read here: the reader takes it as untrusted input.
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

/// How a trial of the search ended (docs/tune.md "Trials"): the one list tune writes and the reader accepts.
enum class TrialOutcome : unsigned char {
  measured,     ///< "measured": it ran its steps and was scored
  cut_slower,   ///< "cut: slower": its interval fell more than 5% below the best's (the cut rule:
                ///< measure::interval_falls_short)
  cut_budget,   ///< "cut: budget": the budget ran out during it
  oom,          ///< "oom": the GPU ran out of memory
  crashed,      ///< "crashed": another failure
  refused,      ///< "refused": run's plan refused it
  interrupted,  ///< "interrupted": a signal stopped it
};

/// The outcome as tune.json writes it ("measured", "cut: slower", ...).
const char* outcome_name(TrialOutcome outcome);
/// The outcome named `name`, or nullopt for a name tune does not write.
std::optional<TrialOutcome> outcome_named(std::string_view name);

/// A trial's layout as tune.json records a candidate's (the planner's knobs).
struct SearchLayout {
  std::int64_t tp = 1, pp = 1, cp = 1, ep = 1, etp = 1, dp = 1;
  std::optional<std::int64_t> vpp;
  bool operator==(const SearchLayout&) const = default;
};

/// One candidate configuration of the search: the draft recipe tune wrote for it.
struct SearchCandidate {
  std::string name;    ///< the draft's folder name ("tulu3-ref-mbs32")
  bool start = false;  ///< the starting recipe's own configuration
  std::string knobs;   ///< what changed from the start, in words ("micro-batch 4 -> 32"; "the start")
  SearchLayout layout;
  std::int64_t micro_batch = 1;
  std::string recompute;  ///< layout::recompute_name: "none", "selective", "full:1", "block:2"
  bool distributed_optimizer = false, sequence_parallel = false;
  double predicted_peak_mib = 0;                ///< the planner's peak per GPU, rounded
  bool planner_fits = true;                     ///< the planner's verdict against the GPU's usable memory
  double relative_time = 1;                     ///< the planner's speed heuristic
  std::optional<double> predicted_step_time_s;  ///< the step-time model's (absent in records before it, or no rates)
  std::vector<std::string> changes;             ///< the command's flag changes, "--micro-batch-size 4 -> 32"
  std::optional<std::string> swap;  ///< the same-math swap it adds ("" none; absent in records before swaps)
  std::string command;              ///< the draft's command (the recipe's own length)
  bool operator==(const SearchCandidate&) const = default;
};

/// One argument a same-math swap changes, with its two values as the dumps print them.
struct SearchSwapArgument {
  std::string argument, reference, recipe;
  bool operator==(const SearchSwapArgument&) const = default;
};

/// A same-math swap the search could try: its component test, what it changes, the recipe whose test allowed it.
struct SearchSwap {
  std::string test;
  std::vector<SearchSwapArgument> arguments;
  std::string tested_in;
  bool operator==(const SearchSwap&) const = default;
};

/// One trial: a short run of one candidate.
struct SearchTrial {
  std::int64_t trial = 0;  ///< 1-based, in the order run
  std::string candidate;   ///< a SearchCandidate's name
  std::string knobs;
  TrialOutcome outcome = TrialOutcome::measured;
  std::string reason;  ///< why it was cut or failed ("" when measured)
  double predicted_peak_mib = 0;
  bool planner_fits = true;
  std::optional<double> measured_peak_mib;  ///< Megatron's max allocated (MiB), when the log printed it
  std::string planner;                      ///< the planner's verdict against what happened ("" when nothing to judge)
  std::int64_t steps_measured = 0;
  std::optional<double> tokens_per_s_per_gpu;   ///< over its measured steps
  std::optional<double> score_low, score_high;  ///< the score's 95% interval (high absent: unbounded)
  std::optional<double> mean_step_time_s;       ///< over its measured steps
  std::optional<double> predicted_step_time_s;  ///< its candidate's predicted step (absent: no prediction)
  double wall_s = 0;                            ///< launch to exit, seconds
  std::optional<double> startup_s;              ///< launch to its first step line
  bool best = false;
  bool within_noise_of_best = false;
  std::string run_dir;  ///< its run directory, relative to the tune folder ("" when it never started)
  /// It records numbers a build recomputes from its step log (a score or a measured peak): submit --search copies
  /// that log, build reads it, the page links it.
  bool recomputed() const { return tokens_per_s_per_gpu || measured_peak_mib; }
  bool operator==(const SearchTrial&) const = default;
};

/// The search as tune.json records it.
struct TuneSearch {
  std::string file;    ///< where it was read from (not written)
  std::string recipe;  ///< the starting recipe's id, "<model>/<gpu>/<name>"
  std::int64_t gpus = 0, nodes = 0;
  std::string launcher;
  double budget_minutes = 0;
  std::int64_t warmup_steps = 0, trial_steps = 0;
  double memory_mib = 0;                    ///< one GPU's memory (gpus.yaml), 0 for none
  std::optional<double> usable_memory_mib;  ///< what the planner let a layout use of it
  std::string interval_method;
  std::vector<SearchCandidate> candidates;
  std::optional<std::vector<SearchSwap>> swaps;  ///< absent in records written before swaps
  std::vector<SearchTrial> trials;
  std::string stopped;  ///< why the search stopped ("budget", "every candidate tried", ...)
  double elapsed_s = 0;
  /// The winner: its trial number and candidate, and its run of the recipe's own length (score absent when that run
  /// did not complete or the start won).
  struct Winner {
    std::int64_t trial = 0;
    std::string candidate;
    bool start = false;
    std::string knobs;
    std::string recipe;   ///< its draft, relative to the tune folder ("recipes/<model>/<gpu>/<name>")
    std::string run_dir;  ///< its run of the recipe's own length, relative to the tune folder ("" when none)
    std::string status;   ///< that run's run.json status ("" when none)
    std::optional<double> tokens_per_s_per_gpu;
    std::optional<double> score_low, score_high;
    bool operator==(const Winner&) const = default;
  };
  std::optional<Winner> winner;

  /// The candidate named `name`, or nullptr.
  const SearchCandidate* find_candidate(const std::string& name) const;
  bool operator==(const TuneSearch&) const = default;
};

/// tune.json's text for `search` (format openrecipes-tune, format_version 1; docs/tune.md): the writer beside the
/// reader, so that a record written and read back is the same (its `file` set to where it was read from) and a record
/// tune wrote, read and written again, is the same bytes. Keys in the order tune has always written them, 2-space
/// indent, a trailing newline.
std::string tune_search_json(const TuneSearch& search);

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
