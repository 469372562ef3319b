// rows.manifest.json writer and strict reader (SPEC §1.7): sorted keys, 2-space indent, trailing newline; every
// field of a manifest read from disk is checked (type, range, format) before use.
#include "rows/output/manifest.h"

#include <set>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/atomic_output.h"
#include "core/calendar.h"
#include "core/error.h"
#include "core/files.h"
#include "core/json_limits.h"
#include "core/sha256.h"
#include "core/utf8.h"
#include "rows/output/rows_hash.h"

namespace openrecipes::rows {
namespace {

using json = nlohmann::json;

constexpr std::size_t kMaxString = 4096;
constexpr std::size_t kMaxSources = 100000;
constexpr std::uint64_t kMaxManifestBytes = 16ull << 20;
const char* const kFix = "rebuild the rows (openrecipes rows build) to get a fresh manifest";

const std::vector<std::string> kKeys = {"chat_template_sha256",
                                        "conversations",
                                        "dataset_id",
                                        "dataset_revision",
                                        "eos_id",
                                        "eos_token",
                                        "format_version",
                                        "row_length",
                                        "rows_requested",
                                        "rows_sha256",
                                        "rows_written",
                                        "seed",
                                        "sources",
                                        "strftime_date",
                                        "tokenizer_config_sha256",
                                        "tokenizer_json_sha256",
                                        "tokens_dropped",
                                        "tool_version"};
const std::vector<std::string> kSourceKeys = {"bytes", "conversations", "name", "sha256"};

std::string at(std::string_view where, const std::string& field) { return fmt::format("{}: {}", where, field); }

void check_string(std::string_view where, const std::string& field, const std::string& v, bool may_be_empty) {
  if (v.size() > kMaxString)
    throw InputError(at(where, field), fmt::format("{} bytes, over the limit of {}", v.size(), kMaxString), kFix);
  if (!is_valid_utf8(v)) throw InputError(at(where, field), "not valid UTF-8", kFix);
  if (!may_be_empty && v.empty()) throw InputError(at(where, field), "empty", kFix);
}

void check_sha(std::string_view where, const std::string& field, const std::string& v) {
  if (!is_sha256_hex(v))
    throw InputError(at(where, field),
                     fmt::format("'{}' is not a sha256 (64 lowercase hex characters)", v.substr(0, 80)), kFix);
}

// The rules both directions share.
void validate(const RowsManifest& m, std::string_view where) {
  check_string(where, "dataset_id", m.dataset_id, true);
  check_string(where, "dataset_revision", m.dataset_revision, true);
  check_string(where, "eos_token", m.eos_token, false);
  check_string(where, "tool_version", m.tool_version, false);
  check_sha(where, "tokenizer_json_sha256", m.tokenizer_json_sha256);
  check_sha(where, "tokenizer_config_sha256", m.tokenizer_config_sha256);
  check_sha(where, "chat_template_sha256", m.chat_template_sha256);
  check_sha(where, "rows_sha256", m.rows_sha256);
  if (!is_calendar_date(m.strftime_date))
    throw InputError(at(where, "strftime_date"),
                     fmt::format("'{}' is not a date YYYY-MM-DD", m.strftime_date.substr(0, 40)), kFix);
  if (m.eos_id < 0 || m.eos_id > 0x7fffffff)
    throw InputError(at(where, "eos_id"), fmt::format("{} is not a token id (0..2147483647)", m.eos_id), kFix);
  if (m.row_length == 0 || m.row_length > kMaxRowLength)
    throw InputError(at(where, "row_length"), fmt::format("{} is outside 1..{}", m.row_length, kMaxRowLength), kFix);
  if (m.rows_requested && m.rows_written > *m.rows_requested)
    throw InputError(at(where, "rows_written"),
                     fmt::format("{} rows written but only {} requested", m.rows_written, *m.rows_requested), kFix);
  if (m.sources.empty() || m.sources.size() > kMaxSources)
    throw InputError(at(where, "sources"), fmt::format("{} sources, expected 1..{}", m.sources.size(), kMaxSources),
                     kFix);
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < m.sources.size(); ++i) {
    const auto& s = m.sources[i];
    const std::string f = fmt::format("sources[{}]", i);
    check_string(where, f + ".name", s.name, false);
    check_sha(where, f + ".sha256", s.sha256);
    if (i > 0 && !(m.sources[i - 1].name < s.name))
      throw InputError(
          at(where, f + ".name"),
          fmt::format("'{}' does not come after '{}': sources are in file-name order", s.name, m.sources[i - 1].name),
          kFix);
    if (s.conversations > UINT64_MAX - total)
      throw InputError(at(where, f + ".conversations"), "the counts overflow", kFix);
    total += s.conversations;
  }
  if (total != m.conversations)
    throw InputError(at(where, "conversations"),
                     fmt::format("{} conversations, but the sources add up to {}", m.conversations, total), kFix);
}

// Typed field access on parsed JSON.
const json& field(const json& obj, const std::string& key, std::string_view where, const std::string& path) {
  auto it = obj.find(key);
  if (it == obj.end()) throw InputError(at(where, path), "missing", kFix);
  return *it;
}

std::string get_string(const json& obj, const std::string& key, std::string_view where, const std::string& path) {
  const json& v = field(obj, key, where, path);
  if (!v.is_string())
    throw InputError(at(where, path), std::string("a JSON ") + v.type_name() + ", expected a string", kFix);
  return v.get<std::string>();
}

std::uint64_t get_uint(const json& obj, const std::string& key, std::string_view where, const std::string& path,
                       std::uint64_t max = UINT64_MAX) {
  const json& v = field(obj, key, where, path);
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
    throw InputError(at(where, path), fmt::format("{} is not a non-negative integer", v.dump().substr(0, 40)), kFix);
  const auto u = v.get<std::uint64_t>();
  if (u > max) throw InputError(at(where, path), fmt::format("{} is over the limit of {}", u, max), kFix);
  return u;
}

void reject_unknown(const json& obj, const std::vector<std::string>& keys, std::string_view where,
                    const std::string& path) {
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (std::find(keys.begin(), keys.end(), it.key()) == keys.end())
      throw InputError(at(where, path.empty() ? it.key() : path + "." + it.key()),
                       fmt::format("unknown key (known: {})", fmt::join(keys, ", ")), kFix);
}

}  // namespace

std::string manifest_to_json(const RowsManifest& m) {
  validate(m, "rows manifest");
  json j = json::object();
  j["format_version"] = RowsManifest::kFormatVersion;
  j["dataset_id"] = m.dataset_id;
  j["dataset_revision"] = m.dataset_revision;
  json sources = json::array();
  for (const auto& s : m.sources)
    sources.push_back(
        json{{"name", s.name}, {"sha256", s.sha256}, {"bytes", s.bytes}, {"conversations", s.conversations}});
  j["sources"] = std::move(sources);
  j["tokenizer_json_sha256"] = m.tokenizer_json_sha256;
  j["tokenizer_config_sha256"] = m.tokenizer_config_sha256;
  j["chat_template_sha256"] = m.chat_template_sha256;
  j["eos_token"] = m.eos_token;
  j["eos_id"] = m.eos_id;
  j["strftime_date"] = m.strftime_date;
  j["seed"] = m.seed;
  j["row_length"] = m.row_length;
  j["conversations"] = m.conversations;
  j["rows_requested"] = m.rows_requested ? json(*m.rows_requested) : json(nullptr);
  j["rows_written"] = m.rows_written;
  j["tokens_dropped"] = m.tokens_dropped;
  j["rows_sha256"] = m.rows_sha256;
  j["tool_version"] = m.tool_version;
  return j.dump(2) + "\n";  // nlohmann's object is a std::map: keys come out sorted
}

RowsManifest manifest_from_json(std::string_view text, std::string_view where) {
  // Duplicate keys refused (nlohmann would keep the last one silently) and nesting bounded.
  const json j = parse_json_strict(text, std::string(where), kFix, 8);
  if (!j.is_object()) throw InputError(std::string(where), "the manifest is not a JSON object", kFix);
  reject_unknown(j, kKeys, where, "");
  const std::uint64_t version = get_uint(j, "format_version", where, "format_version");
  if (version != static_cast<std::uint64_t>(RowsManifest::kFormatVersion))
    throw InputError(at(where, "format_version"),
                     fmt::format("version {} is not supported (this tool reads 1)", version),
                     "use the openrecipes version that wrote it, or rebuild the rows");
  RowsManifest m;
  m.dataset_id = get_string(j, "dataset_id", where, "dataset_id");
  m.dataset_revision = get_string(j, "dataset_revision", where, "dataset_revision");
  const json& sources = field(j, "sources", where, "sources");
  if (!sources.is_array()) throw InputError(at(where, "sources"), "not a list", kFix);
  if (sources.size() > kMaxSources)
    throw InputError(at(where, "sources"), fmt::format("{} sources, over the limit of {}", sources.size(), kMaxSources),
                     kFix);
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const std::string p = fmt::format("sources[{}]", i);
    const json& s = sources[i];
    if (!s.is_object()) throw InputError(at(where, p), "not an object", kFix);
    reject_unknown(s, kSourceKeys, where, p);
    m.sources.push_back(ManifestSource{
        get_string(s, "name", where, p + ".name"), get_string(s, "sha256", where, p + ".sha256"),
        get_uint(s, "bytes", where, p + ".bytes"), get_uint(s, "conversations", where, p + ".conversations")});
  }
  m.tokenizer_json_sha256 = get_string(j, "tokenizer_json_sha256", where, "tokenizer_json_sha256");
  m.tokenizer_config_sha256 = get_string(j, "tokenizer_config_sha256", where, "tokenizer_config_sha256");
  m.chat_template_sha256 = get_string(j, "chat_template_sha256", where, "chat_template_sha256");
  m.eos_token = get_string(j, "eos_token", where, "eos_token");
  m.eos_id = static_cast<std::int64_t>(get_uint(j, "eos_id", where, "eos_id", 0x7fffffff));
  m.strftime_date = get_string(j, "strftime_date", where, "strftime_date");
  m.seed = get_uint(j, "seed", where, "seed");
  m.row_length = static_cast<std::uint32_t>(get_uint(j, "row_length", where, "row_length", kMaxRowLength));
  m.conversations = get_uint(j, "conversations", where, "conversations");
  if (!field(j, "rows_requested", where, "rows_requested").is_null())
    m.rows_requested = get_uint(j, "rows_requested", where, "rows_requested");
  m.rows_written = get_uint(j, "rows_written", where, "rows_written");
  m.tokens_dropped = get_uint(j, "tokens_dropped", where, "tokens_dropped");
  m.rows_sha256 = get_string(j, "rows_sha256", where, "rows_sha256");
  m.tool_version = get_string(j, "tool_version", where, "tool_version");
  validate(m, where);
  return m;
}

void write_manifest(const std::filesystem::path& path, const RowsManifest& manifest) {
  write_file_atomic(path, manifest_to_json(manifest));
}

RowsManifest read_manifest(const std::filesystem::path& path) {
  return manifest_from_json(read_file(path, kMaxManifestBytes), path.string());
}

std::filesystem::path manifest_path_for(const std::filesystem::path& rows_parquet) {
  std::filesystem::path p = rows_parquet;
  std::string stem = p.extension() == ".parquet" ? p.stem().string() : p.filename().string();
  return p.parent_path() / (stem + ".manifest.json");
}

std::filesystem::path rows_path_for_manifest(const std::filesystem::path& manifest) {
  const std::string name = manifest.filename().string();
  const std::string suffix = ".manifest.json";
  if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    throw InputError(manifest.string(), "not a rows build's manifest (its name ends in .manifest.json)",
                     "give the <rows>.manifest.json that openrecipes rows build wrote beside <rows>.parquet");
  return manifest.parent_path() / (name.substr(0, name.size() - suffix.size()) + ".parquet");
}

}  // namespace openrecipes::rows
