// One node's task of a run (the local launcher runs one in-process; under Slurm `srun` starts `openrecipes run-node`
// once per node): probe the versions, start the trainer the way its framework expects, and tee its output into
// RUN_DIR/nodes/<rank>/ as it comes, so a run that dies mid-way keeps its evidence so far.
#pragma once

#include <csignal>
#include <cstdint>
#include <filesystem>
#include <string>

#include "run/run_plan.h"

namespace openrecipes::run {

/// Set by the SIGINT / SIGTERM handler that install_stop_handlers() installs; node tasks and the Slurm poller stop
/// their children when it reads non-zero.
extern volatile std::sig_atomic_t g_stop_requested;

/// Installs SIGINT and SIGTERM handlers that set g_stop_requested (and SIGHUP's too). Idempotent.
void install_stop_handlers();

/// RUN_DIR/nodes/<rank>: train.log (what the trainer printed, stdout and stderr interleaved), versions.txt (the probe),
/// exit.txt (the exit status, written last), and for Ray runs ray.log.
std::filesystem::path node_dir(const RunPlan& plan, std::int64_t rank);

/// The version probe of one node (SPEC §6 "Stack"), as versions.txt holds it: `python`, `torch`, `cuda`, `nccl`,
/// `cudnn` and the visible GPU count from the plan's Python, the installed versions of transformer_engine, deep_ep,
/// megatron_core, flash_attn, ray and sglang (pip metadata), `<framework>_commit:` and `megatron_lm_commit:` from the
/// checkouts' git, their uncommitted changes, nvidia-smi's output and GPU list, and InfiniBand devices (ibv_devinfo).
/// A tool that is missing leaves a line saying so; never throws.
std::string probe_versions(const RunPlan& plan);

/// Runs node `rank` of the plan with the head node's address `head` (127.0.0.1 for one node) and returns the trainer's
/// exit status (the `ray job submit` client's under Ray; 0 for a Ray worker whose head finished). `echo`: also copy the
/// trainer's output to stdout (the local launcher). Throws InputError when a program cannot be started (torchrun, ray
/// or the trainer not on PATH), after writing exit.txt. `stop`: the flag that stops the trainer (default
/// g_stop_requested; `tune` passes its own, to cut a trial short).
int run_node(const RunPlan& plan, std::int64_t rank, const std::string& head, bool echo,
             const volatile std::sig_atomic_t* stop = nullptr);

}  // namespace openrecipes::run
