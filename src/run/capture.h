// A run's evidence as `openrecipes run` leaves it (PROTOCOL.md "Running a recipe"; SPEC §2, §6): the node logs, the
// version probes, the scheduler's admission and finish times, the exit status, and run.json, the manifest listing
// every captured file with its sha256, so that `submit` can tell a run directory edited after capture.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "run/run_plan.h"

namespace openrecipes::run {

/// An evidence file of the run: its path relative to RUN_DIR and its format as recipe.yaml names it.
struct EvidenceRef {
  std::string path;
  std::string format;
  std::string key;  ///< times: the launcher's run label or Slurm's job id
};

/// One captured file.
struct CapturedFile {
  std::string path;  ///< relative to RUN_DIR, '/'-separated
  std::uint64_t bytes = 0;
  std::string sha256;
};

/// What run.json records (format_version 1).
struct RunRecord {
  std::string status;  ///< "completed" (exit 0), "failed" or "cancelled"
  int exit_code = 0;
  std::string reason;  ///< why it is not completed ("" when it is)
  std::string job_id;  ///< Slurm's, "" for the local launcher
  EvidenceRef log, arguments, versions, times;
  bool convergence_arm = true;                     ///< false for a --profile run
  std::string network;                             ///< the inter-node network as the probe saw it
  std::optional<std::int64_t> gpus_per_node_seen;  ///< GPUs the first node's nvidia-smi listed
  std::vector<CapturedFile> files;                 ///< every file under RUN_DIR but run.json, sorted by path
  std::vector<std::string> skipped;                ///< files left out: names that are not UTF-8 (shown lossily)
};

/// The launcher's clock, as scheduler_times.h's launcher format reads it: `run rc=<code> start=<s> end=<s>`.
std::string launcher_times_line(int exit_code, double start_s, double end_s);

/// Fills `record`'s evidence paths (Megatron-LM prints its step lines on the last rank, its argument dump on rank 0;
/// under Ray the driver prints both on the head), the network and GPUs seen, lists and hashes every file under the
/// run directory, and writes run.json atomically. Throws InputError naming the folder when it cannot be read.
void write_run_record(const RunPlan& plan, RunRecord& record);

/// A run directory checked against its run.json: every listed file present with its sha256, the plan it ran.
struct CheckedRun {
  RunPlan plan;
  RunRecord record;
};

/// Reads RUN_DIR/run.json and RUN_DIR/plan.json and checks every file run.json lists. Throws InputError naming the
/// file for: no run.json (the run never finished capturing: "incomplete"), malformed JSON, another format_version, a
/// listed file that is missing or whose sha256 differs ("edited after capture"), or a path that leaves RUN_DIR.
CheckedRun read_run_dir(const std::filesystem::path& run_dir);

}  // namespace openrecipes::run
