// Strict, typed access to YAML files written by strangers (recipes, rules, registry tables): every error names
// the file, the line and the field path, and unknown keys are rejected so a typo never passes silently.
#pragma once

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "core/error.h"

namespace openrecipes {

/// Upper bound for one YAML file: 4 MiB.
inline constexpr std::uint64_t kMaxYamlBytes = 4ull << 20;

/// A required field that is absent: `path` is the map's dotted key path ("" for the file's top level), `field` its key.
/// A reader that reads every section (load_recipe) tells it apart from other problems.
class MissingFieldError : public InputError {
 public:
  MissingFieldError(std::string where, std::string path, std::string field);
  const std::string& path() const noexcept { return path_; }
  const std::string& field() const noexcept { return field_; }

 private:
  std::string path_, field_;
};

/// A node of a loaded YAML file together with where it came from (file and dotted key path), so every
/// accessor can throw an InputError that reads "recipe.yaml:12: workload.row_length: expected an integer".
class YamlField {
 public:
  YamlField(std::shared_ptr<const std::string> file, YAML::Node node, std::string path);

  /// "file:line: key.path" for messages (line is 1-based; omitted when unknown).
  std::string where() const;
  const std::string& path() const { return path_; }
  const std::string& file() const { return *file_; }
  bool defined() const { return node_.IsDefined() && !node_.IsNull(); }
  bool is_map() const { return node_.IsMap(); }
  bool is_sequence() const { return node_.IsSequence(); }

  /// Child of a map. A missing key gives an undefined field (check with defined() or use require()).
  YamlField operator[](const std::string& key) const;
  /// Child of a map that must be present and non-null; throws MissingFieldError otherwise (InputError when not a map).
  YamlField require(const std::string& key) const;
  /// Keys of a map, in file order. Throws when this is not a map.
  std::vector<std::string> keys() const;
  /// Items of a sequence. Throws when this is not a sequence.
  std::vector<YamlField> items() const;
  /// Throws InputError naming every key not in `allowed`, at the first one's line, each with the name it likely meant.
  void reject_unknown_keys(std::initializer_list<const char*> allowed) const;
  void reject_unknown_keys(const std::vector<std::string>& allowed) const;

  /// Scalars, parsed strictly (no silent truncation). Each throws InputError on a missing field, a
  /// non-scalar, or text that is not the type; integers and doubles also check [min, max].
  std::string as_string(std::size_t max_len = 4096) const;
  std::int64_t as_int(std::int64_t min, std::int64_t max) const;
  double as_double(double min, double max) const;
  bool as_bool() const;
  std::optional<std::string> string_or_null(std::size_t max_len = 4096) const;
  /// The subtree as JSON: maps, lists; plain scalars typed as YAML 1.2 core schema does (null, true/false,
  /// integers, floats, else strings); quoted scalars stay strings. Depth is bounded by yaml-cpp's parser.
  nlohmann::json to_json() const;

 private:
  std::shared_ptr<const std::string> file_;
  YAML::Node node_;
  std::string path_;
};

/// Loads a YAML file (at most kMaxYamlBytes). Throws InputError "file:line:col: malformed YAML: ..." on
/// syntax errors, when the top level is not a map, on a key that appears twice in one map (naming the key and
/// both lines), on an explicit tag outside the core schema (!!str, !!int, !!float, !!bool, !!null, !!map, !!seq),
/// and on nesting deeper than 256 levels.
YamlField load_yaml_file(const std::filesystem::path& path);

/// A YAML scalar for any string, as the registry's writers (recipe.yaml, rows.yaml) put one: double-quoted, with
/// YAML's escapes for '"', '\\', C0 controls, DEL and C1 controls, other UTF-8 kept as it is; plain (unquoted) when it
/// is a simple word ([A-Za-z_][A-Za-z0-9_./+-]*, at most 200 bytes, no YAML keyword) that YAML reads back as the same
/// string. load_yaml_file / YamlField::to_json read the result back as the same string.
std::string yaml_scalar(const std::string& s);

/// Parses YAML text; `name` is used in messages as the file name.
YamlField parse_yaml(const std::string& text, const std::string& name);

}  // namespace openrecipes
