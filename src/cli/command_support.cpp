// What several commands share (cli/command.h): where a default into the bundled registry lives when a command runs
// outside the checkout (README commands work from any directory), data/, this executable, a GPU type's memory, and the
// Slurm options of run and tune.
#include <filesystem>
#include <system_error>

#include "cli/command.h"
#include "core/error.h"
#include "registry/gpus.h"
#include "registry/recipe.h"

namespace openrecipes::cli {

std::string bundled_path(const std::string& relative) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(relative, ec)) return relative;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return relative;
  const fs::path candidate = exe.parent_path().parent_path() / relative;
  if (fs::exists(candidate, ec)) return candidate.string();
  return relative;
}

std::filesystem::path data_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  std::vector<fs::path> candidates;
  if (!ec) candidates.push_back(exe.parent_path().parent_path() / "data");
  candidates.push_back("data");
  for (const auto& d : candidates)
    if (fs::is_regular_file(d / "pretokenized_sft_rollout.py", ec)) return fs::absolute(d).lexically_normal();
  throw InputError("data/", "no data/pretokenized_sft_rollout.py beside openrecipes' checkout or in this folder",
                   "run the openrecipes of a checkout (its data/ goes on the trainer's PYTHONPATH)");
}

std::string self_exe() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("openrecipes") : exe.string();
}

namespace {

// GPU type `gpu` of the gpus.yaml of the registry `recipe_dir` sits in, else the bundled one.
std::optional<registry::GpuType> recipe_gpu_type(const std::filesystem::path& recipe_dir, const std::string& gpu) {
  const auto root = registry::registry_root(recipe_dir);
  const std::filesystem::path file =
      root ? *root / "gpus.yaml" : std::filesystem::path(bundled_path("registry/gpus.yaml"));
  const auto gpus = registry::load_gpus(file);
  const auto g = gpus.find(gpu);
  if (g == gpus.end()) return std::nullopt;
  return g->second;
}

}  // namespace

double gpu_memory_mib(const std::filesystem::path& recipe_dir, const std::string& gpu) {
  const auto g = recipe_gpu_type(recipe_dir, gpu);
  return g ? g->memory_mib : 0;
}

std::optional<layout::GpuSpeed> gpu_speed_of(const std::filesystem::path& recipe_dir, const std::string& gpu,
                                             std::int64_t gpus_per_node) {
  const auto g = recipe_gpu_type(recipe_dir, gpu);
  if (!g || !g->hardware) return std::nullopt;
  return registry::gpu_speed(*g, gpus_per_node);
}

void add_slurm_options(CLI::App& app, std::vector<std::string>& sbatch_args, bool& no_gres,
                       const std::string& applies_to) {
  app.add_option("--sbatch-arg", sbatch_args,
                 "Slurm: an extra sbatch option for " + applies_to + ", e.g. --sbatch-arg=--partition=gpu");
  app.add_flag("--no-gres", no_gres, "Slurm: do not ask for GPUs with --gpus-per-node (no GRES on the cluster)");
}

}  // namespace openrecipes::cli
