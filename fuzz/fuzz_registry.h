// A scratch registry for the recipe fuzz targets: the bundled registry's tables (gpus.yaml, models/, rules/) and its
// ref recipe, plus a recipe folder recipes/qwen3-0.6b/H200/fuzz/ with ref's evidence, whose recipe.yaml is the input.
#pragma once

#include <filesystem>
#include <string_view>

#include "fuzz_support.h"

namespace openrecipes::fuzz {

/// The scratch registry's root (made on first use from the checkout's registry/, OPENRECIPES_SOURCE_DIR).
inline const std::filesystem::path& registry_root() {
  static const std::filesystem::path root = [] {
    namespace fs = std::filesystem;
    const fs::path bundled = fs::path(OPENRECIPES_SOURCE_DIR) / "registry";
    const fs::path r = scratch() / "registry";
    fs::remove_all(r);
    fs::create_directories(r / "recipes/qwen3-0.6b/H200/fuzz");
    fs::copy(bundled / "gpus.yaml", r / "gpus.yaml");
    fs::copy(bundled / "models", r / "models", fs::copy_options::recursive);
    fs::copy(bundled / "rules", r / "rules", fs::copy_options::recursive);
    fs::copy(bundled / "recipes/qwen3-0.6b/H200/ref", r / "recipes/qwen3-0.6b/H200/ref", fs::copy_options::recursive);
    fs::copy(bundled / "recipes/qwen3-0.6b/H200/ref/evidence", r / "recipes/qwen3-0.6b/H200/fuzz/evidence",
             fs::copy_options::recursive);
    return r;
  }();
  return root;
}

/// Writes `yaml` as recipes/qwen3-0.6b/H200/fuzz/recipe.yaml of the scratch registry; returns that folder.
inline std::filesystem::path registry_with_recipe(std::string_view yaml) {
  const auto dir = registry_root() / "recipes/qwen3-0.6b/H200/fuzz";
  write_file(dir / "recipe.yaml", yaml);
  return dir;
}

}  // namespace openrecipes::fuzz
