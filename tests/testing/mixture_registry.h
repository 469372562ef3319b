// Test fixture: the bundled tulu3-ref run (a real H200 run that trained on exactly the 81 rows of the Qwen3, L 512,
// seed-0 rows build of the 100 conversations of ../shared/fixtures/tulu3, 32 rows a step) recorded as a
// standard-workload recipe on allenai/tulu-3-sft-mixture at its pinned revision (SPEC §5, reference rows), and the
// `rows build` of those conversations labelled as that mixture. tests/cli/rows_cli_test.cpp holds that such a
// registry never verifies; tests/registry/rows_register_test.cpp registers the build under a test protocol.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/atomic_output.h"
#include "core/files.h"
#include "testing/support.h"

namespace openrecipes::testing {

/// A scratch copy of registry/ holding only tulu3-ref, its workload replaced by the standard one with rows
/// {count: 81, sha256: `rows_sha256`}.
struct MixtureRegistry {
  TempDir d;
  std::filesystem::path root = d / "registry";
  std::filesystem::path recipe = root / "recipes/qwen3-0.6b/H200/tulu3-ref/recipe.yaml";
  explicit MixtureRegistry(const std::string& rows_sha256) {
    namespace fs = std::filesystem;
    fs::copy(source_dir() / "registry", root, fs::copy_options::recursive);
    for (const auto& e : fs::directory_iterator(root / "recipes/qwen3-0.6b/H200"))
      if (e.path().filename() != "tulu3-ref") fs::remove_all(e.path());
    std::string y = read_file(recipe);
    const auto begin = y.find("workload:\n"), end = y.find("  row_length: 512\n");
    y.replace(begin, end - begin,
              "workload:\n  kind: standard\n  dataset: allenai/tulu-3-sft-mixture\n"
              "  revision: b14afda60f1bbebe55d5d2fa1e4df5042f97f8be\n  tokenizer: Qwen/Qwen3-0.6B\n"
              "  tokenizer_revision: null\n  seed: 0\n  rows: {count: 81, sha256: " +
                  rows_sha256 + "}\n");
    write_file_atomic(recipe, y);
  }
};

/// The arguments of `openrecipes rows build` of ../shared/fixtures/tulu3/sft_sample.jsonl with the Qwen3 tokenizer at
/// L 512, labelled allenai/tulu-3-sft-mixture at the pinned revision, written to `out` (no progress output).
inline std::vector<std::string> mixture_rows_build_args(const std::string& out) {
  return {"rows",
          "build",
          "--source",
          (fixtures_dir() / "tulu3/sft_sample.jsonl").string(),
          "--tokenizer",
          (fixtures_dir() / "tokenizers/qwen3").string(),
          "--row-length",
          "512",
          "--dataset-id",
          "allenai/tulu-3-sft-mixture",
          "--dataset-revision",
          "b14afda60f1bbebe55d5d2fa1e4df5042f97f8be",
          "-o",
          out,
          "--quiet"};
}

}  // namespace openrecipes::testing
