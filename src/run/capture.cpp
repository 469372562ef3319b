// run.json: the run's evidence paths and every captured file's sha256 (run/capture.h).
#include "run/capture.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <regex>

#include "core/atomic_output.h"
#include "core/error.h"
#include "core/files.h"
#include "core/json_limits.h"
#include "core/sha256.h"
#include "core/text.h"
#include "core/utf8.h"
#include "run/node.h"

namespace openrecipes::run {
namespace {
namespace fs = std::filesystem;

// sha256 and size of a file, read 1 MiB at a time (a run's log can be large; nothing is held whole).
std::pair<std::uint64_t, std::string> hash_file(const fs::path& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw InputError(path.string(), "cannot read it", "check the run directory's permissions");
  Sha256 h;
  std::uint64_t total = 0;
  std::vector<char> buf(1 << 20);
  std::size_t k;
  while ((k = std::fread(buf.data(), 1, buf.size(), f)) > 0) {
    h.update(buf.data(), k);
    total += k;
  }
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) throw InputError(path.string(), "a read failed", "check the disk");
  return {total, h.hex()};
}

std::string section(const std::string& text, const std::string& header) {
  const auto at = text.find("--- " + header + "\n");
  if (at == std::string::npos) return "";
  const auto begin = at + header.size() + 5;
  const auto end = text.find("\n--- ", begin);
  return text.substr(begin, end == std::string::npos ? std::string::npos : end - begin + 1);
}

nlohmann::ordered_json ref_json(const EvidenceRef& r) {
  return {{"path", r.path}, {"format", r.format}, {"key", r.key}};
}

EvidenceRef ref_from(const nlohmann::json& j) { return {j.at("path"), j.at("format"), j.at("key")}; }

}  // namespace

std::string launcher_times_line(int exit_code, double start_s, double end_s) {
  return fmt::format("run rc={} start={:.6f} end={:.6f}\n", exit_code, start_s, end_s);
}

void write_run_record(const RunPlan& p, RunRecord& r) {
  const fs::path dir = p.run_dir;
  const std::string log_format = p.framework == "megatron-lm" ? "megatron" : p.framework;
  r.log = {step_log_file(p.mode, p.nodes), log_format, ""};
  r.arguments = {"nodes/0/train.log", "megatron-args", ""};
  r.versions = {"nodes/0/versions.txt", "versions", ""};
  r.convergence_arm = !p.profile && p.trial_iters == 0;

  std::string versions;
  try {
    versions = read_file(dir / r.versions.path);
  } catch (const InputError&) {
  }
  std::int64_t gpus = 0;
  static const std::regex gpu_line(R"(^\d+, .*)");
  const std::string gpu_list =
      section(versions, "nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader");
  for (const auto& line : split(gpu_list, '\n'))
    if (std::regex_match(std::string(line), gpu_line)) ++gpus;
  if (gpus > 0) r.gpus_per_node_seen = gpus;
  if (p.nodes == 1) {
    r.network = "none (one node)";
  } else {
    std::vector<std::string> devices;
    const std::string ib = section(versions, "ibv_devinfo -l");
    for (auto line : split(ib, '\n')) {
      line = trim(line);
      if (!line.empty() && line.find("found") == std::string_view::npos && line.find(':') == std::string_view::npos)
        devices.emplace_back(line);
    }
    std::string list;
    for (const auto& d : devices) list += (list.empty() ? "" : ", ") + d;
    r.network = devices.empty() ? "not pinned (no InfiniBand device seen)" : "InfiniBand (" + list + ")";
  }

  r.files.clear();
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_regular_file() || it->is_symlink()) continue;
    const std::string rel = fs::relative(it->path(), dir).generic_string();
    if (rel == "run.json" || fs::path(rel).filename().string().starts_with(".")) continue;
    if (!is_valid_utf8(rel)) {  // a name JSON cannot hold: said, not listed (submit never needs it)
      r.skipped.push_back(lossy_utf8(rel));
      continue;
    }
    const auto [bytes, sha] = hash_file(it->path());
    r.files.push_back({rel, bytes, sha});
  }
  if (ec) throw InputError(dir.string(), "cannot list the run directory: " + ec.message());
  std::sort(r.files.begin(), r.files.end(), [](const auto& a, const auto& b) { return a.path < b.path; });

  nlohmann::ordered_json j;
  j["format_version"] = 1;
  j["recipe"] = p.recipe_id;
  j["status"] = r.status;
  j["exit_code"] = r.exit_code;
  j["reason"] = r.reason;
  j["job_id"] = r.job_id;
  j["convergence_arm"] = r.convergence_arm;
  j["evidence"] = {{"log", ref_json(r.log)},
                   {"arguments", ref_json(r.arguments)},
                   {"versions", ref_json(r.versions)},
                   {"times", ref_json(r.times)}};
  j["network"] = r.network;
  j["gpus_per_node_seen"] = r.gpus_per_node_seen ? nlohmann::ordered_json(*r.gpus_per_node_seen) : nullptr;
  auto files = nlohmann::ordered_json::array();
  for (const auto& f : r.files) files.push_back({{"path", f.path}, {"bytes", f.bytes}, {"sha256", f.sha256}});
  j["files"] = files;
  j["not_captured"] = r.skipped;
  write_file_atomic(dir / "run.json", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

CheckedRun read_run_dir(const fs::path& run_dir) {
  const fs::path manifest = run_dir / "run.json";
  std::error_code ec;
  if (!fs::is_regular_file(manifest, ec))
    throw InputError(manifest.string(),
                     "no run.json: the run is incomplete (it is still going, or was stopped before its evidence was "
                     "captured)",
                     "submit a run directory that openrecipes run finished");
  CheckedRun out;
  try {
    const auto j = parse_json_strict(read_file(manifest, 16u << 20), manifest.string(),
                                     "submit a run directory that openrecipes run finished");
    if (j.at("format_version") != 1)
      throw InputError(manifest.string(), "format_version is not 1", "capture the run with this openrecipes");
    RunRecord& r = out.record;
    r.status = j.at("status"), r.exit_code = j.at("exit_code"), r.reason = j.at("reason"), r.job_id = j.at("job_id");
    r.convergence_arm = j.at("convergence_arm");
    const auto& ev = j.at("evidence");
    r.log = ref_from(ev.at("log")), r.arguments = ref_from(ev.at("arguments"));
    r.versions = ref_from(ev.at("versions")), r.times = ref_from(ev.at("times"));
    r.network = j.at("network");
    if (!j.at("gpus_per_node_seen").is_null()) r.gpus_per_node_seen = j.at("gpus_per_node_seen").get<std::int64_t>();
    for (const auto& f : j.at("files")) r.files.push_back({f.at("path"), f.at("bytes"), f.at("sha256")});
  } catch (const nlohmann::json::exception& e) {
    throw InputError(manifest.string(), "not a run.json openrecipes wrote: " + json_error_text(e.what()),
                     "submit a run directory that openrecipes run finished");
  }
  bool plan_listed = false;
  for (const auto& f : out.record.files) {
    const fs::path path = resolve_inside(run_dir, f.path, manifest.string() + ": files");
    if (!fs::is_regular_file(path, ec))
      throw InputError(manifest.string(), fmt::format("{} is listed but missing", f.path),
                       "the run directory was changed after capture: submit it as openrecipes run left it");
    const auto [bytes, got] = hash_file(path);
    if (got != f.sha256 || bytes != f.bytes)
      throw InputError(
          manifest.string(),
          fmt::format("{} has sha256 {}, run.json says {}: the file was edited after capture", f.path, got, f.sha256),
          "submit the run directory as openrecipes run left it (or run the recipe again)");
    plan_listed = plan_listed || f.path == "plan.json";
  }
  if (!plan_listed)
    throw InputError(manifest.string(), "run.json does not list plan.json",
                     "submit a run directory that openrecipes run finished");
  for (const EvidenceRef* e : {&out.record.log, &out.record.arguments, &out.record.versions, &out.record.times})
    if (std::none_of(out.record.files.begin(), out.record.files.end(),
                     [&](const auto& f) { return f.path == e->path; }))
      throw InputError(manifest.string(), fmt::format("the evidence file {} is not among the captured files", e->path),
                       "submit a run directory that openrecipes run finished");
  out.plan = read_plan(run_dir / "plan.json");
  return out;
}

}  // namespace openrecipes::run
