// Strict typed YAML access with file:line messages (DESIGN.md "Untrusted input").
#include "core/yaml.h"

#include <algorithm>
#include <cmath>
#include <regex>
#include <unordered_map>

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>

#include "core/error.h"
#include "core/files.h"
#include "core/text.h"
#include "core/utf8.h"

namespace openrecipes {

YamlField::YamlField(std::shared_ptr<const std::string> file, YAML::Node node, std::string path)
    : file_(std::move(file)), node_(std::move(node)), path_(std::move(path)) {}

std::string YamlField::where() const {
  std::string s = *file_;
  if (node_.IsDefined()) {
    auto m = node_.Mark();
    if (m.line >= 0) s += fmt::format(":{}", m.line + 1);
  }
  if (!path_.empty()) s += ": " + path_;
  return s;
}

YamlField YamlField::operator[](const std::string& key) const {
  std::string child_path = path_.empty() ? key : path_ + "." + key;
  if (!node_.IsMap()) return YamlField(file_, YAML::Node(YAML::NodeType::Undefined), child_path);
  // Look the key up without inserting it (operator[] on a const node does not insert). A missing key yields
  // an invalid node in yaml-cpp, on which most calls throw; hand out a fresh undefined node instead.
  const YAML::Node& cn = node_;
  YAML::Node child = cn[key];
  if (!child.IsDefined()) return YamlField(file_, YAML::Node(YAML::NodeType::Undefined), child_path);
  return YamlField(file_, child, child_path);
}

YamlField YamlField::require(const std::string& key) const {
  if (!node_.IsMap()) throw InputError(where(), "expected a map with key '" + key + "'", "see docs/recipe-format.md");
  YamlField f = (*this)[key];
  if (!f.defined()) throw MissingFieldError(where(), path_, key);
  return f;
}

MissingFieldError::MissingFieldError(std::string where, std::string path, std::string field)
    : InputError(std::move(where), "missing required field '" + field + "'", "add it (see docs/recipe-format.md)"),
      path_(std::move(path)),
      field_(std::move(field)) {}

std::vector<std::string> YamlField::keys() const {
  if (!node_.IsMap()) throw InputError(where(), "expected a map", "see docs/recipe-format.md");
  std::vector<std::string> out;
  for (const auto& kv : node_) {
    if (!kv.first.IsScalar()) throw InputError(where(), "map keys must be plain strings");
    out.push_back(kv.first.Scalar());
  }
  return out;
}

std::vector<YamlField> YamlField::items() const {
  if (!node_.IsSequence()) throw InputError(where(), "expected a list", "write it as a YAML list (- item)");
  std::vector<YamlField> out;
  std::size_t i = 0;
  for (const auto& item : node_) out.emplace_back(file_, item, fmt::format("{}[{}]", path_, i++));
  return out;
}

void YamlField::reject_unknown_keys(const std::vector<std::string>& allowed) const {
  keys();  // throws when this is not a map
  // Every unknown field of the map at once, each with the name it likely meant: one round to fix them all.
  std::string at, listed, first_near;
  std::size_t unknown = 0;
  for (const auto& kv : node_) {
    const std::string& k = kv.first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), k) != allowed.end()) continue;
    const std::string near = nearest_name(k, allowed);
    if (unknown++ == 0) {
      // Point at the first one's own line, not the map's first line.
      at = *file_;
      if (kv.first.Mark().line >= 0) at += fmt::format(":{}", kv.first.Mark().line + 1);
      if (!path_.empty()) at += ": " + path_;
      first_near = near;
    }
    listed +=
        (listed.empty() ? "" : ", ") + quote_for_message(k) + (near.empty() ? "" : " (did you mean '" + near + "'?)");
  }
  if (unknown == 0) return;
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
  if (unknown > 1)
    throw InputError(at, fmt::format("{} unknown fields: {}", unknown, listed),
                     "remove them or use the fields here: " + list);
  const std::string name = listed.substr(0, listed.find(" (did you mean"));
  throw InputError(at, "unknown field " + name,
                   first_near.empty() ? "remove it or use one of: " + list
                                      : "did you mean '" + first_near + "'? (the fields here: " + list + ")");
}

void YamlField::reject_unknown_keys(std::initializer_list<const char*> allowed) const {
  reject_unknown_keys(std::vector<std::string>(allowed.begin(), allowed.end()));
}

std::string YamlField::as_string(std::size_t max_len) const {
  if (!defined()) throw InputError(where(), "missing value", "add it (see docs/recipe-format.md)");
  if (!node_.IsScalar()) throw InputError(where(), "expected a text value, not a list or map");
  const std::string& s = node_.Scalar();
  if (s.size() > max_len)
    throw InputError(where(), fmt::format("value is {} bytes long, over the limit of {}", s.size(), max_len),
                     "shorten it");
  return s;
}

std::optional<std::string> YamlField::string_or_null(std::size_t max_len) const {
  if (!defined()) return std::nullopt;
  return as_string(max_len);
}

std::int64_t YamlField::as_int(std::int64_t min, std::int64_t max) const {
  if (defined() && !node_.IsScalar()) throw InputError(where(), "expected an integer, not a list or map");
  std::string s = as_string(64);
  auto v = parse_int(s);
  if (!v) throw InputError(where(), "expected an integer, got " + quote_for_message(s));
  if (*v < min || *v > max)
    throw InputError(where(), fmt::format("{} is out of range [{}, {}]", *v, min, max), "use a value in range");
  return *v;
}

double YamlField::as_double(double min, double max) const {
  if (defined() && !node_.IsScalar()) throw InputError(where(), "expected a number, not a list or map");
  std::string s = as_string(64);
  auto v = parse_double(s);
  if (!v) throw InputError(where(), "expected a number, got " + quote_for_message(s));
  if (!std::isfinite(*v)) throw InputError(where(), "expected a finite number, got " + s);
  if (*v < min || *v > max)
    throw InputError(where(), fmt::format("{} is out of range [{}, {}]", s, format_double(min), format_double(max)),
                     "use a value in range");
  return *v;
}

bool YamlField::as_bool() const {
  std::string s = as_string(16);
  if (s == "true" || s == "True") return true;
  if (s == "false" || s == "False") return false;
  throw InputError(where(), "expected true or false, got " + quote_for_message(s));
}

nlohmann::json YamlField::to_json() const {
  if (!node_.IsDefined() || node_.IsNull()) return nullptr;
  if (node_.IsMap()) {
    nlohmann::json o = nlohmann::json::object();
    for (const auto& k : keys()) o[k] = (*this)[k].to_json();
    return o;
  }
  if (node_.IsSequence()) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& i : items()) a.push_back(i.to_json());
    return a;
  }
  const std::string& s = node_.Scalar();
  if (node_.Tag() == "!" || node_.Tag() == "tag:yaml.org,2002:str") return s;  // quoted or !!str: a string
  if (s == "true" || s == "True") return true;
  if (s == "false" || s == "False") return false;
  if (s == "null" || s == "~") return nullptr;
  if (auto i = parse_int(s)) return *i;
  if (auto d = parse_double(s); d && std::isfinite(*d)) return *d;
  return s;
}

namespace {

std::string line_of(const YAML::Node& n) { return n.Mark().line >= 0 ? std::to_string(n.Mark().line + 1) : "?"; }

// Explicit tags beyond YAML 1.2's core schema (e.g. !!python/object:os.system, !custom) are refused: another
// reader of the same file might act on them, and this one would silently ignore them. Untagged nodes carry "?"
// (plain) or "!" (quoted).
void check_tag(const YAML::Node& n, const std::string& name, const std::string& path) {
  const std::string& tag = n.Tag();
  if (tag.empty() || tag == "?" || tag == "!") return;
  static const char* const kCore[] = {"str", "int", "float", "bool", "null", "map", "seq"};
  for (const char* t : kCore)
    if (tag == std::string("tag:yaml.org,2002:") + t) return;
  throw InputError(fmt::format("{}:{}{}", name, line_of(n), path.empty() ? "" : ": " + path),
                   "YAML tag " + quote_for_message(tag, 120) + " is not allowed",
                   "remove the tag; only the core-schema tags !!str, !!int, !!float, !!bool, !!null, !!map and "
                   "!!seq are accepted");
}

// Levels of nesting a file may have: far more than any registry file needs (a recipe has about five).
constexpr int kMaxYamlDepth = 256;

// Nodes check_tree visits at most: far more than any registry file holds (a recipe has a few hundred). Anchors and
// aliases reuse a node, so nested aliases (a "billion laughs" file) would make the walk exponential without a cap.
constexpr std::size_t kMaxYamlNodes = std::size_t{1} << 20;

// Walks the tree once after loading: duplicate keys in a map (yaml-cpp keeps the first one silently) and tags.
void check_tree(const YAML::Node& n, const std::string& name, const std::string& path, int depth,
                std::size_t& visited) {
  if (depth > kMaxYamlDepth)
    throw InputError(fmt::format("{}:{}", name, line_of(n)),
                     fmt::format("YAML nested deeper than {} levels", kMaxYamlDepth), "flatten the file");
  if (++visited > kMaxYamlNodes)
    throw InputError(name, fmt::format("the YAML expands to over {} nodes (aliases of aliases?)", kMaxYamlNodes),
                     "write the values out instead of nesting aliases");
  check_tag(n, name, path);
  if (n.IsMap()) {
    std::unordered_map<std::string, YAML::Node> seen;  // a map of 10^6 keys is checked in linear time
    for (const auto& kv : n) {
      check_tag(kv.first, name, path);
      if (!kv.first.IsScalar())
        throw InputError(fmt::format("{}:{}{}", name, line_of(kv.first), path.empty() ? "" : ": " + path),
                         "map keys must be plain strings");
      const std::string& k = kv.first.Scalar();
      const std::string child = path.empty() ? k : path + "." + k;
      if (auto [prev, inserted] = seen.emplace(k, kv.first); !inserted)
        throw InputError(fmt::format("{}:{}: {}", name, line_of(kv.first), child),
                         fmt::format("duplicate key {} (first at line {}, again at line {})", quote_for_message(k),
                                     line_of(prev->second), line_of(kv.first)),
                         "keep one of them; YAML readers disagree on which one wins");
      check_tree(kv.second, name, child, depth + 1, visited);
    }
  } else if (n.IsSequence()) {
    std::size_t i = 0;
    for (const auto& item : n) check_tree(item, name, fmt::format("{}[{}]", path, i++), depth + 1, visited);
  }
}

}  // namespace

YamlField parse_yaml(const std::string& text, const std::string& name) {
  auto file = std::make_shared<const std::string>(name);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own guard, which fires before check_tree's on a deeper file: the same message either way.
    throw InputError(e.mark.line >= 0 ? fmt::format("{}:{}", name, e.mark.line + 1) : name,
                     fmt::format("YAML nested deeper than {} levels", kMaxYamlDepth), "flatten the file");
  } catch (const YAML::Exception& e) {
    std::string where = name;
    if (e.mark.line >= 0) where += fmt::format(":{}:{}", e.mark.line + 1, e.mark.column + 1);
    throw InputError(where, "malformed YAML: " + e.msg, "fix the syntax at that position");
  }
  if (!root.IsMap()) throw InputError(name, "expected a YAML map at the top level", "see docs/recipe-format.md");
  std::size_t visited = 0;
  check_tree(root, name, "", 0, visited);
  return YamlField(file, root, "");
}

YamlField load_yaml_file(const std::filesystem::path& path) {
  return parse_yaml(read_file(path, kMaxYamlBytes), path.string());
}

std::string yaml_scalar(const std::string& s) {
  static const std::regex plain("[A-Za-z_][A-Za-z0-9_./+-]*");
  static const std::regex keyword(
      "(?:null|Null|NULL|true|True|TRUE|false|False|FALSE|yes|Yes|YES|no|No|NO|on|On|ON|"
      "off|Off|OFF|y|Y|n|N|[-+]?\\.(?:inf|Inf|INF|nan|NaN|NAN))");
  if (s.size() <= 200 && std::regex_match(s, plain) && !std::regex_match(s, keyword)) return s;
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else if (c1_control_at(s, i)) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(s[++i]));
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

}  // namespace openrecipes
