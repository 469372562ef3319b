// Benchmark for issue 4 / SPEC §3: reading and counting the safetensors headers of a 163-shard checkpoint (the
// DeepSeek-V3 layout) must take well under a second. Generates the sparse shards itself in a temp folder, times
// count_from_checkpoint (read + validate + class + count) and open_checkpoint (read + validate) over several runs,
// and, side by side, the Python reference header reader (tests/params/safetensors_params.py). Reports medians.
//
// Usage: params_bench [--config config.json] [--shards 163] [--runs 11] [--python-runs 5] [--keep DIR]
#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../tests/params/hf_layouts.h"
#include "../tests/params/safetensors_writer.h"
#include "core/error.h"
#include "core/subprocess.h"
#include "core/text.h"
#include "params/checkpoint.h"
#include "params/count.h"
#include "params/report.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// CPU seconds this process has used (user + system, all threads): less sensitive than wall time to a busy machine.
double cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

struct Stats {
  double median, min, max;
};
Stats stats_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v.back()};
}

}  // namespace

int main(int argc, char** argv) {
  fs::path config_path = fs::current_path().parent_path() / "shared/fixtures/configs/DeepSeek-V3/config.json";
  std::size_t shards = 163;
  int runs = 11, python_runs = 5;
  fs::path keep;
  fs::path script = fs::current_path() / "tests/params/safetensors_params.py";
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--config")
      config_path = argv[i + 1];
    else if (a == "--shards")
      shards = std::stoul(argv[i + 1]);
    else if (a == "--runs")
      runs = std::stoi(argv[i + 1]);
    else if (a == "--python-runs")
      python_runs = std::stoi(argv[i + 1]);
    else if (a == "--keep")
      keep = argv[i + 1];
    else {
      std::cerr << "unknown option " << a << "\n";
      return 2;
    }
  }
  std::ifstream in(config_path);
  if (!in) {
    std::cerr << "cannot read " << config_path << " (run from the repository root, or pass --config)\n";
    return 2;
  }
  const nlohmann::json config = nlohmann::json::parse(in);
  const fs::path dir =
      keep.empty() ? fs::temp_directory_path() / fmt::format("openrecipes-params-bench-{}", ::getpid()) : keep;
  fs::remove_all(dir);
  auto tensors = openrecipes::testing::hf::layout_for(config);
  auto t0 = Clock::now();
  const std::uint64_t data =
      openrecipes::testing::st::write_sharded(dir, tensors, openrecipes::testing::st::split_evenly(tensors, shards));
  const double write_s = seconds_since(t0);
  std::uint64_t header_bytes = 0;
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".safetensors") {
      ++files;
      std::ifstream f(e.path(), std::ios::binary);
      unsigned char b[8];
      f.read(reinterpret_cast<char*>(b), 8);
      std::uint64_t n = 0;
      for (int k = 7; k >= 0; --k) n = (n << 8) | b[k];
      header_bytes += n;
    }
  fmt::print(
      "params_bench: {} layout ({}), {} shards, {} tensors, {:.1f} MB of header JSON, {:.0f} GB data region "
      "(sparse; written in {:.2f} s)\n",
      config.value("model_type", "?"), config_path.parent_path().filename().string(), files, tensors.size(),
      header_bytes / 1e6, data / 1e9, write_s);

  openrecipes::params::ParamCount pc = openrecipes::params::count_from_checkpoint(dir, config);  // warm the page cache
  std::vector<double> count_s, count_cpu, open_s, python_s;
  for (int r = 0; r < runs; ++r) {
    auto t = Clock::now();
    const double cpu = cpu_seconds();
    pc = openrecipes::params::count_from_checkpoint(dir, config);
    count_s.push_back(seconds_since(t));
    count_cpu.push_back(cpu_seconds() - cpu);
    t = Clock::now();
    auto ck = openrecipes::params::open_checkpoint(dir);
    open_s.push_back(seconds_since(t));
  }
  std::string reference;
  for (int r = 0; r < python_runs && fs::exists(script); ++r) {
    auto t = Clock::now();
    try {
      reference = openrecipes::run_process({"/usr/bin/python3", script.string(), dir.string()}).out;
    } catch (const openrecipes::InputError& e) {
      fmt::print("no python reference: {}\n", e.what());
      break;
    }
    python_s.push_back(seconds_since(t));
  }
  auto c = stats_of(count_s), o = stats_of(open_s), cc = stats_of(count_cpu);
  fmt::print("{:<58} median {:.3f} s (min {:.3f}, max {:.3f}) over {} runs; CPU median {:.3f} s\n",
             "openrecipes count_from_checkpoint (read, validate, class)", c.median, c.min, c.max, runs, cc.median);
  fmt::print("{:<58} median {:.3f} s (min {:.3f}, max {:.3f}) over {} runs\n",
             "openrecipes open_checkpoint (read, validate)", o.median, o.min, o.max, runs);
  if (!python_s.empty()) {
    auto p = stats_of(python_s);
    fmt::print("{:<58} median {:.3f} s (min {:.3f}, max {:.3f}) over {} runs\n",
               "python reference reader (json + struct; read, validate)", p.median, p.min, p.max, python_runs);
    auto ref = nlohmann::json::parse(reference, nullptr, false);
    if (!ref.is_discarded())
      fmt::print("python reference: {} shards, {} tensors (openrecipes: {} shards, {} tensors)\n",
                 ref.value("shards", 0), ref.value("tensors", 0), pc.shards, pc.tensors);
  } else {
    fmt::print("python reference reader: not run ({} not found)\n", script.string());
  }
  fmt::print("N = {} ({:.2f} B)\n", openrecipes::with_thousands(pc.n_active), pc.n_active / 1e9);
  if (keep.empty()) fs::remove_all(dir);
  return c.median < 1.0 ? 0 : 1;
}
