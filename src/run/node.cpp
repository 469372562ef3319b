// One node's task: version probe, trainer launch (torchrun or Ray), log tee (run/node.h).
#include "run/node.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/atomic_output.h"
#include "core/error.h"
#include "core/subprocess.h"
#include "core/text.h"

namespace openrecipes::run {

volatile std::sig_atomic_t g_stop_requested = 0;

namespace {
namespace fs = std::filesystem;

extern "C" void on_stop_signal(int) { g_stop_requested = 1; }

// The probe run by the plan's Python: versions it can read without starting CUDA work beyond a device count.
constexpr const char* kProbe = R"PY(
import importlib.metadata as md, platform
print("python", platform.python_version())
try:
    import torch
    print("torch", torch.__version__)
    print("cuda", torch.version.cuda)
    try:
        v = torch.cuda.nccl.version()
        print("nccl", ".".join(map(str, v)) if isinstance(v, tuple) else v)
    except Exception as e:
        print("nccl: not seen (%s)" % type(e).__name__)
    try:
        print("cudnn", torch.backends.cudnn.version())
    except Exception:
        pass
    print("gpus_visible", torch.cuda.device_count())
except Exception as e:
    print("torch: not importable (%s)" % type(e).__name__)
for dist in ("transformer_engine", "transformer_engine_torch", "deep_ep", "megatron_core", "flash_attn", "ray", "sglang"):
    try:
        print(dist, md.version(dist))
    except Exception:
        print(dist + ": not installed")
)PY";

// stdout of a probe command, or a line saying why there is none.
std::string probe(const std::vector<std::string>& argv, const std::string& label) {
  try {
    auto r = run_process(argv);
    if (r.exit_code != 0) return fmt::format("{}: exit status {}\n{}", label, r.exit_code, r.err.substr(0, 2000));
    return r.out.size() > (1u << 20) ? r.out.substr(0, 1u << 20) : r.out;
  } catch (const InputError&) {
    return label + ": not found\n";
  }
}

void git_probe(std::string& out, const std::string& dir, const std::string& name) {
  if (dir.empty()) return;
  std::string head;
  try {
    auto r = run_process({"git", "-C", dir, "rev-parse", "HEAD"});
    head = r.exit_code == 0 ? std::string(trim(r.out)) : "not seen (" + dir + " is not a git checkout)";
  } catch (const InputError&) {
    head = "not seen (git not found)";
  }
  out += name + "_commit: " + head + "\n";
  if (head.starts_with("not seen")) return;
  auto dirty = probe({"git", "-C", dir, "status", "--porcelain", "--untracked-files=no"}, name + "_status");
  out += name + (dirty.empty() ? "_tree: clean\n" : "_tree: modified\n" + dirty);
}

// A file the trainer's output is appended to and flushed chunk by chunk (the evidence so far survives a crash).
class LogFile {
 public:
  explicit LogFile(const fs::path& p) : f_(std::fopen(p.c_str(), "ab")) {
    if (!f_) throw InputError(p.string(), "cannot open the log for writing", "check the run directory's permissions");
  }
  ~LogFile() {
    if (f_) std::fclose(f_);
  }
  LogFile(const LogFile&) = delete;
  LogFile& operator=(const LogFile&) = delete;
  void write(std::string_view s) {
    std::fwrite(s.data(), 1, s.size(), f_);
    std::fflush(f_);
  }

 private:
  std::FILE* f_;
};

// Every child runs in the node's folder (the log's), so what the trainer writes to a relative path of its own (such as
// Megatron's snapshot.pickle) stays inside the run folder (SPEC §6 "Files the trainer touches").
int stream_to(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env,
              const fs::path& log, bool echo, const volatile std::sig_atomic_t* stop) {
  LogFile out(log);
  StreamOptions o;
  o.env = env;
  o.cwd = fs::absolute(log).parent_path().string();
  o.stop = stop;
  o.on_output = [&](std::string_view s) {
    out.write(s);
    if (echo) {
      std::cout << s;
      std::cout.flush();
    }
  };
  return run_process_streaming(argv, o);
}

void write_exit(const fs::path& dir, int code) { write_file_atomic(dir / "exit.txt", std::to_string(code) + "\n"); }

// A JSON string of the runtime environment for `ray job submit`.
std::string runtime_env_json(const std::vector<std::pair<std::string, std::string>>& env) {
  nlohmann::ordered_json vars = nlohmann::ordered_json::object();
  for (const auto& [k, v] : env) vars[k] = v;
  vars["RAY_DEDUP_LOGS"] = "0";
  vars["PYTHONUNBUFFERED"] = "1";
  return nlohmann::ordered_json{{"env_vars", vars}}.dump();
}

int run_ray_head(const RunPlan& p, const fs::path& dir, const std::string& head, bool echo) {
  const std::vector<std::pair<std::string, std::string>> none;
  const std::string temp = fmt::format("/tmp/openrecipes-ray-{}", p.ray_port);
  const auto ray_log = dir / "ray.log";
  // The head runs with --block as a child of this task, so stopping that child stops this cluster's head and nothing
  // else (a bare `ray stop` would stop every Ray cluster of the user on the node).
  static volatile std::sig_atomic_t head_stop = 0;
  head_stop = 0;
  std::atomic<int> head_rc{-1};
  std::thread head_thread([&] {
    try {
      head_rc = stream_to({"ray", "start", "--head", "--block", "--node-ip-address", head, "--port",
                           std::to_string(p.ray_port), "--dashboard-port", std::to_string(p.dashboard_port),
                           "--num-gpus", std::to_string(p.gpus_per_node), "--disable-usage-stats", "--temp-dir", temp},
                          none, ray_log, false, &head_stop);
    } catch (const InputError& e) {
      LogFile(ray_log).write(std::string("openrecipes: ") + e.what() + "\n");
      head_rc = 127;
    }
  });
  auto finish = [&](int rc) {
    head_stop = 1;
    head_thread.join();
    return rc;
  };
  // Wait until every node's GPUs have joined (slime's placement group waits without bound otherwise).
  const std::string want = fmt::format("/{}.0 GPU", p.gpus);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(10);
  const std::string address = fmt::format("{}:{}", head, p.ray_port);
  for (;;) {
    if (g_stop_requested) return finish(130);
    if (head_rc >= 0) return finish(head_rc == 0 ? 1 : head_rc.load());  // the head ended before the cluster was up
    auto st = run_process({"ray", "status", "--address", address});
    if (st.exit_code == 0 && st.out.find(want) != std::string::npos) break;
    if (std::chrono::steady_clock::now() > deadline) {
      LogFile(ray_log).write(fmt::format("openrecipes: the Ray cluster never showed {} GPUs in 10 minutes\n", p.gpus));
      return finish(1);
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  auto [argv, env] = node_command(p, 0, head);
  const std::string id = fmt::format("openrecipes-{}-{}", p.ray_port, p.dashboard_port);
  const std::string dashboard = fmt::format("http://127.0.0.1:{}", p.dashboard_port);
  std::vector<std::string> submit = {"ray",
                                     "job",
                                     "submit",
                                     "--address",
                                     dashboard,
                                     "--submission-id",
                                     id,
                                     "--runtime-env-json",
                                     runtime_env_json(env),
                                     "--"};
  submit.insert(submit.end(), argv.begin(), argv.end());
  int rc = 0;
  try {
    rc = stream_to(submit, none, dir / "train.log", echo, &g_stop_requested);
  } catch (...) {
    finish(0);
    throw;
  }
  if (g_stop_requested) run_process({"ray", "job", "stop", "--address", dashboard, id});
  return finish(rc);
}

int run_ray_worker(const RunPlan& p, const fs::path& dir, const std::string& head) {
  // A worker joins and blocks until the head's task has written its exit status (RUN_DIR is shared by the nodes).
  static volatile std::sig_atomic_t head_done = 0;
  head_done = 0;
  const fs::path head_exit = node_dir(p, 0) / "exit.txt";
  std::thread watcher([&] {
    while (!head_done) {
      std::error_code ec;
      if (g_stop_requested || fs::exists(head_exit, ec)) head_done = 1;
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  });
  int rc = 0;
  try {
    rc = stream_to({"ray", "start", "--address", fmt::format("{}:{}", head, p.ray_port), "--num-gpus",
                    std::to_string(p.gpus_per_node), "--block"},
                   {}, dir / "ray.log", false, &head_done);
  } catch (...) {
    head_done = 1;
    watcher.join();
    throw;
  }
  head_done = 1;
  watcher.join();
  std::error_code ec;
  return fs::exists(head_exit, ec) && !g_stop_requested ? 0 : rc;
}

}  // namespace

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaction(s, &sa, nullptr);
}

fs::path node_dir(const RunPlan& plan, std::int64_t rank) {
  return fs::path(plan.run_dir) / "nodes" / std::to_string(rank);
}

std::string probe_versions(const RunPlan& p) {
  std::string out = probe({p.python, "-c", kProbe}, "python (" + p.python + ")");
  if (p.framework != "megatron-lm") git_probe(out, p.framework_dir, p.framework);
  git_probe(out, p.megatron_dir.empty() && p.framework == "megatron-lm" ? p.framework_dir : p.megatron_dir,
            "megatron_lm");
  out += "--- nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader\n";
  out += probe({"nvidia-smi", "--query-gpu=index,name,driver_version", "--format=csv,noheader"}, "nvidia-smi");
  out += "--- nvidia-smi\n" + probe({"nvidia-smi"}, "nvidia-smi");
  out += "--- nvidia-smi topo -m\n" + probe({"nvidia-smi", "topo", "-m"}, "nvidia-smi");
  out += "--- ibv_devinfo -l\n" + probe({"ibv_devinfo", "-l"}, "ibv_devinfo");
  return out;
}

int run_node(const RunPlan& p, std::int64_t rank, const std::string& head, bool echo,
             const volatile std::sig_atomic_t* stop) {
  const fs::path dir = node_dir(p, rank);
  fs::create_directories(dir);
  write_file_atomic(dir / "versions.txt", probe_versions(p));
  int rc = 0;
  try {
    if (p.mode == LaunchMode::megatron) {
      auto [argv, env] = node_command(p, rank, head);
      rc = stream_to(argv, env, dir / "train.log", echo, stop ? stop : &g_stop_requested);
    } else {
      rc = rank == 0 ? run_ray_head(p, dir, head, echo) : run_ray_worker(p, dir, head);
    }
  } catch (const InputError& e) {
    LogFile(dir / "train.log").write(std::string("openrecipes: ") + e.what() + "\n");
    write_exit(dir, 127);
    throw;
  }
  write_exit(dir, rc);
  return rc;
}

}  // namespace openrecipes::run
