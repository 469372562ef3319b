// Reference rows builds (registry/reference_rows.h): rows.yaml's reader and writer, and the rows check.
#include "registry/reference_rows.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/files.h"
#include "core/json_limits.h"
#include "core/protocol.h"
#include "core/sha256.h"
#include "core/yaml.h"

namespace openrecipes::registry {
namespace fs = std::filesystem;
namespace {

// rows.yaml's fields beyond the manifest's own, and the manifest's (docs/rows-format.md), in the order written.
const std::vector<std::string> kOwnKeys = {"id", "manifest", "prefixes"};
const std::vector<std::string> kManifestKeys = {
    "dataset_id",           "dataset_revision", "sources",        "tokenizer_json_sha256", "tokenizer_config_sha256",
    "chat_template_sha256", "eos_token",        "eos_id",         "strftime_date",         "seed",
    "row_length",           "conversations",    "rows_requested", "rows_written",          "rows_sha256",
    "tokens_dropped",       "tool_version"};

const char* const kRegisterFix =
    "write it again with openrecipes rows register <rows.manifest.json> (docs/rows-format.md, \"Reference rows "
    "builds\")";

}  // namespace

ReferenceRows load_reference_rows(const fs::path& given) {
  // "registry/rows/<id>/" names the folder <id> too.
  const fs::path dir = given.has_filename() ? given : given.parent_path();
  return load_reference_rows_files(dir, dir.filename().string());
}

ReferenceRows load_reference_rows_files(const fs::path& dir, const std::string& expected_id) {
  ReferenceRows out;
  out.dir = dir;
  out.file = dir / "rows.yaml";
  const std::string file = out.file.string();
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(out.file, ec)))
    throw InputError(file, "is a symbolic link", "keep rows.yaml itself in the build's folder");
  auto y = load_yaml_file(out.file);
  std::vector<std::string> allowed = kOwnKeys;
  allowed.insert(allowed.end(), kManifestKeys.begin(), kManifestKeys.end());
  y.reject_unknown_keys(allowed);
  out.id = y.require("id").as_string(80);
  if (out.id != expected_id)
    throw InputError(y["id"].where(), fmt::format("id '{}' is not the folder's name '{}'", out.id, expected_id),
                     "a rows build lives in registry/rows/<id>/");
  if (!is_registry_name(out.id))
    throw InputError(y["id"].where(), "not a rows build id ([a-z0-9][a-z0-9._-]{0,79})", "rename the folder");
  out.manifest_relative = y.require("manifest").as_string(200);
  if (out.manifest_relative != kReferenceManifestName)
    throw InputError(y["manifest"].where(),
                     fmt::format("the manifest must be the build folder's {}", kReferenceManifestName),
                     "keep the build's manifest beside rows.yaml as " + std::string(kReferenceManifestName));
  if (y["prefixes"].defined()) {
    for (const auto& item : y["prefixes"].items()) {
      item.reject_unknown_keys({"count", "sha256"});
      RowsPrefix p;
      p.count = static_cast<std::uint64_t>(item.require("count").as_int(1, INT64_MAX));
      p.sha256 = item.require("sha256").as_string(64);
      if (!is_sha256_hex(p.sha256))
        throw InputError(item["sha256"].where(), "expected 64 lowercase hex digits", kRegisterFix);
      if (!out.prefixes.empty() && p.count <= out.prefixes.back().count)
        throw InputError(item["count"].where(), "prefixes must be in increasing count", kRegisterFix);
      out.prefixes.push_back(std::move(p));
    }
  }
  // The manifest's own fields, read by the manifest's own checks (every field present, typed, in range).
  nlohmann::json j = nlohmann::json::object();
  const auto present = y.keys();
  for (const auto& key : kManifestKeys) {
    if (key != "rows_requested")
      (void)y.require(key);
    else if (std::find(present.begin(), present.end(), key) == present.end())
      throw InputError(file + ": rows_requested", "missing (null when the build was not limited to R rows)",
                       kRegisterFix);
    j[key] = y[key].defined() ? y[key].to_json() : nlohmann::json();
  }
  j["format_version"] = rows::RowsManifest::kFormatVersion;
  try {
    // Bytes that are not UTF-8 become U+FFFD here, so the manifest's reader refuses the field (a digest is not hex,
    // a name is not the manifest's) instead of the JSON writer throwing.
    out.manifest = rows::manifest_from_json(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), file);
  } catch (const InputError& e) {  // the reader's own fix is about a manifest; this is rows.yaml
    throw InputError(e.where(), e.problem(), kRegisterFix);
  }
  if (!out.prefixes.empty() && out.prefixes.back().count >= out.manifest.rows_written)
    throw InputError(file + ": prefixes",
                     fmt::format("a prefix of {} rows is not shorter than the build's {} rows",
                                 out.prefixes.back().count, out.manifest.rows_written),
                     "the whole build's digest is rows_sha256; prefixes are for fewer rows");
  // The evidence: the build's own manifest, which must say the same.
  const fs::path evidence = dir / out.manifest_relative;
  if (fs::is_symlink(fs::symlink_status(evidence, ec)))
    throw InputError(evidence.string(), "is a symbolic link", "keep the manifest itself in the build's folder");
  const auto from_manifest = rows::read_manifest(evidence);
  if (!(from_manifest == out.manifest)) {
    // Both are the manifest writer's own text (rows::manifest_to_json), read back to compare field by field.
    const auto a = parse_json_strict(rows::manifest_to_json(out.manifest), file, "");
    const auto b = parse_json_strict(rows::manifest_to_json(from_manifest), evidence.string(), "");
    for (const auto& key : kManifestKeys)
      if (a.at(key) != b.at(key))
        throw InputError(file + ": " + key,
                         fmt::format("rows.yaml records {} but its manifest {} records {}", a.at(key).dump(),
                                     out.manifest_relative, b.at(key).dump()),
                         kRegisterFix);
  }
  return out;
}

std::map<std::string, ReferenceRows> load_reference_rows_folder(const fs::path& rows_dir) {
  std::map<std::string, ReferenceRows> out;
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(rows_dir, ec))) return out;
  if (fs::is_symlink(fs::symlink_status(rows_dir, ec)) || !fs::is_directory(rows_dir, ec))
    throw InputError(rows_dir.string(), "not a folder", "registry/rows/ holds one folder per reference rows build");
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(rows_dir)) {
    // A README or .gitkeep beside the builds, and a hidden folder (an interrupted register's .<id>.tmp), are not
    // builds; a symbolic link is refused (it could stand for a folder outside the registry).
    if (e.path().filename().string().starts_with(".")) continue;
    if (e.is_symlink())
      throw InputError(e.path().string(), "is a symbolic link",
                       "registry/rows/ holds one folder per reference rows build, each with rows.yaml and " +
                           std::string(kReferenceManifestName));
    if (!e.is_directory()) continue;
    dirs.push_back(e.path());
  }
  std::sort(dirs.begin(), dirs.end());
  for (const auto& d : dirs) {
    auto b = load_reference_rows(d);
    out.emplace(b.id, std::move(b));
  }
  return out;
}

std::vector<std::uint64_t> protocol_row_counts() {
  std::vector<std::uint64_t> out{static_cast<std::uint64_t>(protocol::kShortRunSteps * protocol::kGlobalBatch)};
  for (auto steps = protocol::kStandardRunMinSteps; steps <= protocol::kStandardRunMaxSteps; ++steps)
    out.push_back(static_cast<std::uint64_t>(steps * protocol::kGlobalBatch));
  return out;
}

std::string reference_rows_yaml(const std::string& id, const rows::RowsManifest& m,
                                const std::vector<RowsPrefix>& prefixes, const std::string& comment) {
  // A digest always quoted (the manifest's reader checks it is 64 lowercase hex digits), whatever its first digit.
  const auto hex = [](const std::string& digest) { return "\"" + digest + "\""; };
  std::string y;
  for (std::size_t at = 0; at < comment.size();) {
    auto nl = comment.find('\n', at);
    if (nl == std::string::npos) nl = comment.size();
    y += "# " + comment.substr(at, nl - at) + "\n";
    at = nl + 1;
  }
  y += "id: " + yaml_scalar(id) + "\nmanifest: " + kReferenceManifestName + "\n";
  y += "dataset_id: " + yaml_scalar(m.dataset_id) + "\ndataset_revision: " + yaml_scalar(m.dataset_revision) +
       "\nsources:\n";
  for (const auto& s : m.sources)
    y += fmt::format("  - {{name: {}, sha256: {}, bytes: {}, conversations: {}}}\n", yaml_scalar(s.name), hex(s.sha256),
                     s.bytes, s.conversations);
  y += "tokenizer_json_sha256: " + hex(m.tokenizer_json_sha256) +
       "\ntokenizer_config_sha256: " + hex(m.tokenizer_config_sha256) +
       "\nchat_template_sha256: " + hex(m.chat_template_sha256) + "\neos_token: " + yaml_scalar(m.eos_token) +
       fmt::format("\neos_id: {}\n", m.eos_id) + "strftime_date: " + yaml_scalar(m.strftime_date) +
       fmt::format("\nseed: {}\nrow_length: {}\nconversations: {}\nrows_requested: {}\nrows_written: {}\n", m.seed,
                   m.row_length, m.conversations,
                   m.rows_requested ? std::to_string(*m.rows_requested) : std::string("null"), m.rows_written) +
       "rows_sha256: " + hex(m.rows_sha256) + fmt::format("\ntokens_dropped: {}\n", m.tokens_dropped) +
       "tool_version: " + yaml_scalar(m.tool_version) + "\n";
  if (!prefixes.empty()) {
    y += "# rows_sha256 of the first `count` rows, hashed by rows register from the rows file it checked.\nprefixes:\n";
    for (const auto& p : prefixes) y += fmt::format("  - {{count: {}, sha256: {}}}\n", p.count, hex(p.sha256));
  }
  return y;
}

std::string default_reference_rows_id(const rows::RowsManifest& m) {
  std::string dataset = m.dataset_id.empty() ? "local" : m.dataset_id.substr(m.dataset_id.rfind('/') + 1);
  std::string id = fmt::format("{}-L{}-seed{}-r{}-tok{}", dataset, m.row_length, m.seed, m.rows_written,
                               m.tokenizer_json_sha256.substr(0, 8));
  for (auto& c : id) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-')) c = '-';
  }
  if (id.size() > 80) id.resize(80);
  if (!std::isalnum(static_cast<unsigned char>(id[0]))) id[0] = 'r';
  return id;
}

RowsCheck check_rows(const Recipe& r, const ModelInfo* model, const std::map<std::string, ReferenceRows>& builds,
                     const ProtocolWorkload& protocol) {
  if (!r.workload.standard) return {"not applicable (non-standard workload)", std::nullopt, std::nullopt};
  auto not_verified = [](const std::string& why, const std::string& fix) {
    return RowsCheck{"not verified: " + why, why, fix};
  };
  // The standard workload is the protocol's shape of step: rows of L tokens, B of them a step (PROTOCOL.md).
  if (r.workload.row_length != protocol.row_length || r.workload.global_batch != protocol.global_batch)
    return not_verified(
        fmt::format("a standard recipe trains on rows of {} tokens, {} a step; this one records row_length {} and "
                    "global_batch {}",
                    protocol.row_length, protocol.global_batch, r.workload.row_length, r.workload.global_batch),
        "declare the workload non-standard (kind: non-standard, with a key and a description of its own), or run the "
        "protocol's rows and batch");
  const std::string register_fix =
      "build the standard rows for the model's tokenizer (openrecipes rows build, docs/rows-format.md \"Reference "
      "rows builds\"), then record them with openrecipes rows register <rows.manifest.json> --model " +
      (model ? model->id : r.model);
  if (!model || !model->rows_build)
    return not_verified(fmt::format("the registry records no rows build for {} to check rows_sha256 against",
                                    model ? model->id : r.model),
                        register_fix);
  auto it = builds.find(*model->rows_build);
  if (it == builds.end())  // load_registry refuses this; kept for a registry assembled by hand
    return not_verified(
        fmt::format("{} names rows build '{}', which registry/rows/ does not hold", model->file, *model->rows_build),
        register_fix);
  const auto& b = it->second.manifest;
  // The build itself must be the protocol's workload: its dataset, revision, row length and source files.
  if (auto problems = protocol_build_problems(b, protocol); !problems.empty())
    return not_verified(
        fmt::format("rows build '{}' is not the protocol's workload: {}", it->first, fmt::join(problems, "; ")),
        "register a build of the protocol's dataset files at its revision (registry/rules/"
        "workload.yaml), L " +
            std::to_string(protocol.row_length));
  std::vector<std::string> differ;
  auto compare = [&](const char* what, const std::string& recipe, const std::string& build) {
    if (recipe != build) differ.push_back(fmt::format("{} {} (the build's: {})", what, recipe, build));
  };
  compare("dataset", r.workload.dataset, b.dataset_id);
  compare("revision", r.workload.revision, b.dataset_revision);
  compare("seed", std::to_string(r.workload.seed), std::to_string(b.seed));
  compare("row_length", std::to_string(r.workload.row_length), std::to_string(b.row_length));
  // slime and miles read the rows through data/'s plugin, step i rows [i·B, (i+1)·B) (SPEC §1): the run read exactly
  // steps x global batch of them. (Megatron-LM reads an exported indexed dataset by its own sampling: the rows
  // recorded are the export's.)
  if (r.stack.framework != "megatron-lm" && r.workload.rows_count != r.steps_per_run * r.workload.global_batch)
    differ.push_back(fmt::format("rows count {}, but a {}-step run of {} rows a step reads {}", r.workload.rows_count,
                                 r.steps_per_run, r.workload.global_batch, r.steps_per_run * r.workload.global_batch));
  // The recipe's rows: the whole build, or a prefix of it the registry recorded.
  const auto count = static_cast<std::uint64_t>(r.workload.rows_count);
  std::optional<std::string> digest;
  if (count == b.rows_written) digest = b.rows_sha256;
  for (const auto& p : it->second.prefixes)
    if (p.count == count) digest = p.sha256;
  if (!digest) {
    std::string known;
    for (const auto& p : it->second.prefixes) known += std::to_string(p.count) + ", ";
    known += std::to_string(b.rows_written);
    differ.push_back(fmt::format("rows count {} (the build records the digests of the first {} rows)", count, known));
  } else {
    compare("rows_sha256", r.workload.rows_sha256, *digest);
  }
  if (differ.empty())
    return {fmt::format("verified: the {} rows of rows build '{}' (registry/rows/{})", count, it->first, it->first),
            std::nullopt, std::nullopt};
  std::string why = fmt::format("the recipe's rows are not rows build '{}' of {}: ", it->first, model->id);
  for (std::size_t k = 0; k < differ.size(); ++k) why += (k ? "; " : "") + differ[k];
  return not_verified(why,
                      "train on the registry's rows: build them with the build's dataset revision, tokenizer, "
                      "seed and row length (registry/rows/" +
                          it->first +
                          "/rows.yaml), check them with openrecipes rows verify --build, and record the "
                          "rows_sha256 of the rows the run read");
}

}  // namespace openrecipes::registry
