// `rows register`: a protocol rows build hashed again and recorded in the registry (registry/rows_register.h).
#include "registry/rows_register.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/atomic_output.h"
#include "core/error.h"
#include "core/files.h"
#include "core/text.h"
#include "core/yaml.h"
#include "registry/folder_writer.h"
#include "registry/model.h"
#include "registry/recipe.h"
#include "registry/reference_rows.h"
#include "rows/output/rows_verify.h"

namespace openrecipes::registry {
namespace fs = std::filesystem;

std::string with_rows_build(const std::string& yaml, const std::string& id, const std::string& file) {
  const std::string eol = yaml.find("\r\n") != std::string::npos ? "\r\n" : "\n";
  std::string out;
  bool done = false;
  for (std::size_t at = 0; at < yaml.size();) {
    auto nl = yaml.find('\n', at);
    const std::string line = yaml.substr(at, nl == std::string::npos ? std::string::npos : nl - at + 1);
    if (!done && line.rfind("rows_build:", 0) == 0) {
      out += "rows_build: " + id + eol;
      done = true;
    } else {
      out += line;
    }
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  if (!done) {
    if (!out.empty() && out.back() != '\n') out += eol;
    out += "# The reference rows build this model's standard-workload recipes must have trained on (registry/rows/)." +
           eol + "rows_build: " + id + eol;
  }
  auto before = parse_yaml(yaml, file).to_json(), after = parse_yaml(out, file).to_json();
  before["rows_build"] = id;
  if (before != after)
    throw InputError(file + ": rows_build",
                     "cannot set it by editing the line (it is written over several lines, or twice)",
                     "set rows_build: " + id + " in the model file by hand");
  return out;
}

RowsRegistered register_rows_build(const fs::path& root, const RowsRegistration& q, const ProtocolWorkload& protocol) {
  RowsRegistered out;
  const auto manifest = rows::read_manifest(q.manifest);
  out.manifest = manifest;
  const fs::path rows_path = rows::rows_path_for_manifest(q.manifest);
  if (!fs::exists(rows_path))
    throw InputError(rows_path.string(), "the rows file of this manifest is not there",
                     "register a manifest beside the rows.parquet it describes, so the rows can be checked");
  // registry/rows holds the protocol's workload only: what a model's standard recipes verify against (SPEC §5).
  if (auto problems = protocol_build_problems(manifest, protocol); !problems.empty())
    throw InputError(q.manifest.string(),
                     fmt::format("the build is not the protocol's workload: {}", fmt::join(problems, "; ")),
                     fmt::format("a reference rows build is the protocol's dataset files at its revision ({}), rows "
                                 "of {} tokens; a recipe on other rows declares a non-standard workload",
                                 protocol.file, protocol.row_length));
  auto models = load_models(root / "models");
  const ModelInfo* model = nullptr;
  if (!q.model.empty()) {
    auto it = models.find(q.model);
    if (it == models.end())
      throw InputError("--model", fmt::format("{} has no model '{}'", (root / "models").string(), q.model),
                       "give a model id of registry/models/<id>.yaml");
    model = &it->second;
  }
  if (q.id && !is_registry_name(*q.id))
    throw InputError("--id", quote_for_message(*q.id) + " is not a rows build id", "give [a-z0-9][a-z0-9._-]{0,79}");
  out.id = q.id.value_or(default_reference_rows_id(manifest));
  const fs::path dir = root / "rows" / out.id;
  // The digests of the shorter runs' rows: the protocol's run lengths below the build's count, the prefixes asked
  // for, and those an earlier registration of the same build recorded.
  std::vector<std::uint64_t> counts;
  for (auto c : protocol_row_counts())
    if (c < manifest.rows_written) counts.push_back(c);
  for (auto c : q.prefixes) {
    if (c >= manifest.rows_written)
      throw InputError("--prefix", fmt::format("{} rows is not fewer than the build's {}", c, manifest.rows_written),
                       "the whole build's digest is its rows_sha256; give a smaller count");
    counts.push_back(c);
  }
  const bool already = fs::exists(dir / "rows.yaml");
  std::optional<ReferenceRows> existing;
  if (already) {
    existing = load_reference_rows(dir);
    if (!(existing->manifest == manifest))
      throw InputError(dir.string(), "a different rows build is registered under this id",
                       "give the new build an id of its own with --id");
    for (const auto& p : existing->prefixes) counts.push_back(p.count);
  }
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  // The model file's new text, worked out before anything is written. A model's build is replaced only when asked:
  // its standard recipes verify against it.
  std::string model_text;
  if (model) {
    if (model->rows_build && *model->rows_build != out.id) {
      if (!q.replace)
        throw InputError("--model " + model->id,
                         fmt::format("{} already names rows build '{}' (rows_build: in {}); its standard recipes "
                                     "verify against it",
                                     model->id, *model->rows_build, model->file),
                         fmt::format("give --replace to make '{}' its rows build instead (recipes on '{}' then no "
                                     "longer verify), or register without --model",
                                     out.id, *model->rows_build));
      out.replaced = model->rows_build;
    }
    model_text = with_rows_build(read_file(model->file), out.id, model->file);
    out.model_file = model->file;
  }
  // One read of the rows file: every row (the manifest must describe it) and the prefixes' digests.
  const auto digest = rows::hash_rows_file(rows_path, std::nullopt, manifest.row_length, q.threads, counts);
  if (digest.rows != manifest.rows_written || digest.sha256 != manifest.rows_sha256)
    throw InputError(
        q.manifest.string(),
        fmt::format("the manifest records {} rows with rows_sha256 {}, but {} holds {} rows hashing to {}",
                    manifest.rows_written, manifest.rows_sha256, rows_path.string(), digest.rows, digest.sha256),
        "build the rows again (openrecipes rows build) and register the new manifest");
  std::vector<RowsPrefix> prefixes;
  for (std::size_t k = 0; k < counts.size(); ++k) prefixes.push_back({counts[k], digest.prefix_sha256[k]});
  const bool changed = !existing || existing->prefixes != prefixes;
  const std::string yaml = reference_rows_yaml(
      out.id, manifest, prefixes,
      fmt::format("A reference rows build, registered by openrecipes rows register from {} after hashing its {} rows\n"
                  "again ({}); {} is the build's own manifest.",
                  q.manifest.filename().string(), manifest.rows_written, rows_path.filename().string(),
                  kReferenceManifestName));
  if (changed) {
    // Staged beside the builds and read back before it replaces a build: a failure leaves no half build behind.
    write_folder(
        dir, {}, "register", true,
        [&](const fs::path& staged) {
          write_file_atomic(staged / kReferenceManifestName, rows::manifest_to_json(manifest));
          write_file_atomic(staged / "rows.yaml", yaml);
        },
        [&](const fs::path& staged) { load_reference_rows_files(staged, out.id); });
  }
  out.status = !changed ? "already registered:" : already ? "registered again (prefixes added):" : "registered";
  out.rows_yaml = dir / "rows.yaml";
  if (model) write_file_atomic(model->file, model_text);
  return out;
}

}  // namespace openrecipes::registry
