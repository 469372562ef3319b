// Executing a run plan: plan.json, patches, the launcher, run.json (run/execute.h).
#include "run/execute.h"

#include <fmt/format.h>

#include <chrono>
#include <functional>

#include "core/atomic_output.h"
#include "core/error.h"
#include "run/node.h"
#include "run/patches.h"

namespace openrecipes::run {
namespace {
namespace fs = std::filesystem;

double now_s() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

}  // namespace

RunRecord execute_run(const RunPlan& plan, const ExecuteOptions& o) {
  const bool created = !fs::exists(plan.run_dir);
  fs::create_directories(plan.run_dir);
  // Until the trainer starts, a failure leaves no run directory behind (so the same -o can be used again).
  auto before_launch = [&](const std::function<void()>& step) {
    try {
      step();
    } catch (...) {
      std::error_code ec;
      if (created) fs::remove_all(plan.run_dir, ec);
      throw;
    }
  };
  // The diffs this run applied are taken back when it ends, however it ends (a launch that throws, a patch git
  // refuses after others applied): the checkout is left as the run found it.
  struct AppliedPatches {
    const RunPlan& plan;
    std::vector<std::string> paths;
    std::string text;  // patches.txt: what was applied, then what was reverted
    ~AppliedPatches() {
      if (!paths.empty()) revert_patches(plan, paths);  // never throws
    }
    // The normal end: reverted now, and patches.txt says so.
    void revert_and_record() {
      if (paths.empty()) return;
      text += revert_patches(plan, paths);
      paths.clear();
      write_file_atomic(fs::path(plan.run_dir) / "patches.txt", text);
    }
  } patches{plan, {}, {}};
  before_launch([&] {
    write_file_atomic(fs::path(plan.run_dir) / "plan.json", plan_json(plan));
    if (!plan.patches.empty()) {
      patches.text = apply_patches(plan, false, &patches.paths);
      write_file_atomic(fs::path(plan.run_dir) / "patches.txt", patches.text);
    }
  });
  install_stop_handlers();
  const volatile std::sig_atomic_t* stop = o.stop ? o.stop : &g_stop_requested;
  RunRecord record;
  if (plan.launcher == "local") {
    const double start = now_s();
    int rc = 0;
    std::string failure;
    try {
      rc = run_node(plan, 0, "127.0.0.1", o.echo, stop);
    } catch (const InputError& e) {
      rc = 127;
      failure = e.what();
    }
    const double end = now_s();
    write_file_atomic(fs::path(plan.run_dir) / "times.txt", launcher_times_line(rc, start, end));
    record.times = {"times.txt", "launcher", "run"};
    record.exit_code = rc;
    if (rc == 0 && !*stop) {
      record.status = "completed";
    } else if (*stop) {
      record.status = "cancelled";
      record.reason = fmt::format("stopped by {} (exit status {})", o.stopped_by, rc);
      if (record.exit_code == 0) record.exit_code = 130;
    } else {
      record.status = "failed";
      record.reason = failure.empty() ? fmt::format("the trainer exited with status {}", rc) : failure;
    }
  } else {
    SlurmOptions so = o.slurm;
    so.stop = stop;
    run_slurm(plan, so, record, before_launch);
  }
  patches.revert_and_record();
  write_run_record(plan, record);
  return record;
}

}  // namespace openrecipes::run
