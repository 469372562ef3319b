// The Slurm launcher: batch script, sbatch, polling, scancel, accounting (run/slurm.h).
#include "run/slurm.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <set>
#include <thread>

#include "core/atomic_output.h"
#include "core/error.h"
#include "core/files.h"
#include "core/subprocess.h"
#include "core/text.h"
#include "run/node.h"

namespace openrecipes::run {
namespace {
namespace fs = std::filesystem;

std::string single_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// KEY=value of `scontrol show job -o` (one line; values end at the next " KEY=").
std::string field(const std::string& line, const std::string& key) {
  std::size_t at = 0;
  for (;;) {
    at = line.find(key + "=", at);
    if (at == std::string::npos) return "";
    if (at == 0 || line[at - 1] == ' ') break;
    at += key.size();
  }
  const std::size_t begin = at + key.size() + 1;
  const std::size_t end = line.find(' ', begin);
  return line.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

const std::set<std::string> kFinished = {"COMPLETED", "FAILED",        "CANCELLED", "TIMEOUT",  "NODE_FAIL",
                                         "PREEMPTED", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE", "SPECIAL_EXIT"};

// Prints what `path` gained since `offset`.
void follow(const fs::path& path, std::uintmax_t& offset) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec || size <= offset) return;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return;
  std::fseek(f, static_cast<long>(offset), SEEK_SET);
  char buf[65536];
  std::size_t k;
  while ((k = std::fread(buf, 1, sizeof buf, f)) > 0) {
    std::cout.write(buf, static_cast<std::streamsize>(k));
    offset += k;
  }
  std::fclose(f);
  std::cout.flush();
}

const std::vector<std::pair<std::string, std::string>> kUtc = {{"TZ", "UTC"}};

// `s` for a comment line of the script: every control character (a line break above all) written as '?'.
std::string printable(const std::string& s) {
  std::string out;
  for (char c : s) out += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c;
  return out;
}

}  // namespace

std::string sbatch_script(const RunPlan& p, const SlurmOptions& o) {
  std::string s = "#!/bin/bash\n";
  s += fmt::format(
      "# openrecipes run: {} on {} x {}, written by openrecipes; the trainer's command is\n"
      "# in plan.json beside this file and is started by run-node as an argument vector, never by a shell.\n",
      printable(p.recipe_id), counted(p.nodes, "node"), counted(p.gpus_per_node, "GPU"));
  s += fmt::format("#SBATCH --nodes={}\n#SBATCH --ntasks-per-node=1\n", p.nodes);
  if (o.gres) s += fmt::format("#SBATCH --gpus-per-node={}\n", p.gpus_per_node);
  s += "set -euo pipefail\n";
  s += "head=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\n";
  s += "# the head's address for torchrun's rendezvous and Ray: Slurm's NodeAddr, else its first IPv4 address\n";
  s += "addr=$(scontrol show node \"$head\" | sed -n 's/.*NodeAddr=\\([^ ]*\\).*/\\1/p' | head -n 1)\n";
  s += "addr=${addr:-$(getent ahostsv4 \"$head\" | awk 'NR == 1 { print $1 }')}\n";
  s += "addr=${addr:-$head}\n";
  s += fmt::format("exec srun --kill-on-bad-exit=1 {} run-node {} --head \"$addr\"\n", single_quoted(o.self),
                   single_quoted(p.run_dir));
  return s;
}

std::vector<std::string> sbatch_argv(const RunPlan& p, const SlurmOptions& o, const std::string& script) {
  std::vector<std::string> argv = {"sbatch", "--parsable", "--job-name=openrecipes", fmt::format("--nodes={}", p.nodes),
                                   "--ntasks-per-node=1"};
  if (o.gres) argv.push_back(fmt::format("--gpus-per-node={}", p.gpus_per_node));
  // sbatch expands %-patterns in --output: a '%' of the folder's own name is written %%.
  std::string dir;
  for (char c : p.run_dir) dir += c == '%' ? std::string("%%") : std::string(1, c);
  argv.push_back("--output=" + dir + "/slurm-%j.out");
  argv.insert(argv.end(), o.sbatch_args.begin(), o.sbatch_args.end());
  argv.push_back(script);
  return argv;
}

void run_slurm(const RunPlan& p, const SlurmOptions& o, RunRecord& r,
               const std::function<void(const std::function<void()>&)>& before_launch) {
  const fs::path dir = p.run_dir;
  const std::string script = (dir / "sbatch.sh").string();
  std::string job;
  before_launch([&] {
    write_file_atomic(script, sbatch_script(p, o));
    fs::permissions(script, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
    const auto sub = run_process(sbatch_argv(p, o, script));
    if (sub.exit_code != 0)
      throw InputError("sbatch", "the job was not accepted: " + std::string(trim(sub.err)),
                       "check the cluster's partitions and limits (pass them with --sbatch-arg)");
    job = std::string(trim(split(trim(sub.out), ';')[0]));
    if (!parse_int(job)) throw InputError("sbatch", "no job id in its output: " + quote_for_message(sub.out));
  });
  r.job_id = job;
  std::cout << fmt::format("submitted Slurm job {} ({}); following it (Ctrl-C cancels it)\n", job,
                           counted(p.nodes, "node"));
  std::cout.flush();

  // The node whose log carries the step lines.
  const fs::path followed = fs::path(p.run_dir) / step_log_file(p.mode, p.nodes);
  std::uintmax_t offset = 0;
  std::string state, line;
  bool cancelled = false;
  auto cancel_deadline = std::chrono::steady_clock::time_point::max();
  for (;;) {
    if ((o.stop ? *o.stop : g_stop_requested) && !cancelled) {
      run_process({"scancel", job});
      cancelled = true;
      cancel_deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
      std::cout << fmt::format("openrecipes: cancelling Slurm job {} (scancel)\n", job);
    }
    const auto show = run_process({"scontrol", "show", "job", "-o", job}, {"", kUtc});
    if (show.exit_code == 0) {
      line = std::string(trim(show.out));
      state = field(line, "JobState");
    }
    if (o.echo) follow(followed, offset);
    if (kFinished.count(state)) break;
    if (show.exit_code != 0 && !state.empty()) break;  // aged out of the controller after it was seen
    if (std::chrono::steady_clock::now() > cancel_deadline) break;
    std::this_thread::sleep_for(std::chrono::duration<double>(o.poll_s));
  }
  if (o.echo) follow(followed, offset);

  // Accounting: sacct when the cluster keeps a database, else the controller's own record of the job.
  const auto acct = run_process({"sacct", "-P", "-j", job, "-o", "JobID,Start,End,ExitCode,State"}, {"", kUtc});
  bool have_sacct = false;
  if (acct.exit_code == 0)
    for (auto l : lines_of(acct.out)) {
      auto cells = split(l, '|');
      if (cells.size() == 5 && cells[0] == job && cells[1] != "Unknown" && cells[2] != "Unknown") have_sacct = true;
    }
  if (have_sacct) {
    write_file_atomic(dir / "sacct.txt", acct.out);
    r.times = {"sacct.txt", "sacct", job};
  } else {
    const auto show = run_process({"scontrol", "show", "job", "-o", job}, {"", kUtc});
    if (show.exit_code == 0) line = std::string(trim(show.out));
    write_file_atomic(dir / "scontrol.txt", line + "\n");
    r.times = {"scontrol.txt", "scontrol", job};
  }
  const std::string exit_field = field(line, "ExitCode");  // "code:signal"
  const auto parts = split(exit_field, ':');
  // -1: no code read (plain integers: GCC's -Wmaybe-uninitialized misreads optionals here in the unity build)
  const std::int64_t code = parts.empty() ? -1 : parse_int(parts[0]).value_or(-1);
  const std::int64_t sig = parts.size() > 1 ? parse_int(parts[1]).value_or(0) : 0;
  r.exit_code = code > 0 ? static_cast<int>(code) : sig > 0 ? 128 + static_cast<int>(sig) : code == 0 ? 0 : -1;
  if (state == "COMPLETED" && r.exit_code == 0) {
    r.status = "completed";
  } else if (state.starts_with("CANCELLED") || cancelled) {
    r.status = "cancelled";
    r.reason = fmt::format("Slurm job {} was cancelled (JobState {})", job, state.empty() ? "unknown" : state);
    if (r.exit_code == 0) r.exit_code = 130;
  } else {
    r.status = "failed";
    r.reason = fmt::format("Slurm job {} ended {} with ExitCode {}", job, state.empty() ? "unknown" : state,
                           exit_field.empty() ? "unknown" : exit_field);
    if (r.exit_code == 0) r.exit_code = 1;
  }
}

}  // namespace openrecipes::run
