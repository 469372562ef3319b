// Test helper: a scratch copy of the bundled registry's mock-data pair (registry/ with its three real H200 runs of
// Megatron-LM mock data, ref, mbs2 and lr10; the other pairs left out so a test sees one pair) for a test to break,
// and the build of a registry folder (load, evaluate) with lookups by recipe name.
#pragma once

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/files.h"
#include "registry/evaluate.h"
#include "registry/registry.h"
#include "testing/support.h"

namespace openrecipes::registry::scratch {

inline std::filesystem::path bundled() { return testing::source_dir() / "registry"; }

struct Built {
  Registry reg;
  std::vector<RecipeResult> results;
  /// The result of recipe qwen3-0.6b/H200/<name>; throws when there is none.
  const RecipeResult& get(const std::string& name) const {
    for (const auto& r : results)
      if (r.id == "qwen3-0.6b/H200/" + name) return r;
    throw std::runtime_error("no result " + name);
  }
};

inline Built build(const std::filesystem::path& root) {
  Built b{load_registry(root), {}};
  b.results = evaluate_registry(b.reg);
  return b;
}

inline bool has_reason(const RecipeResult& r, const std::string& needle) {
  for (const auto& s : r.reasons)
    if (s.text().find(needle) != std::string::npos) return true;
  return false;
}

/// The fix of `r`'s reason under `rule` ("" when it gives none).
inline std::string fix_of(const RecipeResult& r, const std::string& rule) {
  for (const auto& s : r.reasons)
    if (s.rule == rule) return s.fix;
  return "";
}

inline std::string reasons_of(const RecipeResult& r) {
  std::string s;
  for (const auto& x : r.reasons) s += x.text() + "\n";
  return s;
}

/// For EXPECT_TRUE: whether `r` gives a reason containing `needle`; when it does not, the failure message lists the
/// reasons it gives (reasons_of).
inline ::testing::AssertionResult gives_reason(const RecipeResult& r, const std::string& needle) {
  if (has_reason(r, needle)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "no reason contains \"" << needle << "\"; the reasons:\n" << reasons_of(r);
}

struct Scratch {
  testing::TempDir dir;
  std::filesystem::path root;
  /// The bundled registry with only the recipes `keep` (default: the mock-data pair ref, mbs2, lr10).
  explicit Scratch(const std::set<std::string>& keep = {"ref", "mbs2", "lr10"}) : root(dir / "registry") {
    std::filesystem::copy(bundled(), root, std::filesystem::copy_options::recursive);
    for (const auto& e : std::filesystem::directory_iterator(root / "recipes/qwen3-0.6b/H200"))
      if (!keep.count(e.path().filename().string())) std::filesystem::remove_all(e.path());
  }
  std::filesystem::path recipe(const std::string& name) const { return root / "recipes/qwen3-0.6b/H200" / name; }
  std::string read(const std::filesystem::path& p) const { return read_file(p); }
  void write(const std::filesystem::path& p, const std::string& s) const { std::ofstream(p, std::ios::binary) << s; }
  /// Rewrites `p` as `change` returns it from its text.
  void edit(const std::filesystem::path& p, const std::function<std::string(std::string)>& change) const {
    write(p, change(read(p)));
  }
  /// Replaces the first `from` in `p` by `to` (fails the test when `from` is absent).
  void replace(const std::filesystem::path& p, const std::string& from, const std::string& to) const {
    std::string s = read(p);
    auto at = s.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    s.replace(at, from.size(), to);
    write(p, s);
  }
  /// Copies recipe `from` to a new recipe `to` (folder and id).
  void copy_recipe(const std::string& from, const std::string& to) const {
    std::filesystem::copy(recipe(from), recipe(to), std::filesystem::copy_options::recursive);
    replace(recipe(to) / "recipe.yaml", "id: " + from + "\n", "id: " + to + "\n");
  }
  /// Makes `name`'s step log another run's (for a test that files a copy of a recipe as a recipe of its own: one run
  /// is one recipe): the gradient norm of its first step, outside every window and check, one thousandth higher.
  void another_run(const std::string& name, const std::string& log = "evidence/train.log") const {
    another_run_at(recipe(name) / log);
  }
  /// The same for the Megatron log at `file`.
  void another_run_at(const std::filesystem::path& file) const {
    std::string text = read(file);
    const auto at = text.find("grad norm: ");
    ASSERT_NE(at, std::string::npos) << file;
    const auto end = text.find(' ', at + 11);
    const double g = std::stod(text.substr(at + 11, end - at - 11));
    text.replace(at + 11, end - at - 11, fmt::format("{:.3f}", g + 0.001));
    write(file, text);
  }
};

}  // namespace openrecipes::registry::scratch
