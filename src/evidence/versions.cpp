// Versions dump parser: version pairs, framework banners, nvidia-smi's header and devices (SPEC §5, §6 "Stack").
#include "evidence/versions.h"

#include <cctype>
#include <optional>

#include "core/text.h"

namespace openrecipes::evidence {

std::string fold_package_name(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '-' || c == '.' || c == ' ')
      out.push_back('_');
    else
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

bool VersionDump::shows(const std::string& name, const std::string& version) const {
  return of(name).count(version) > 0;
}

const std::set<std::string>& VersionDump::of(const std::string& name) const {
  static const std::set<std::string> none;
  auto it = versions.find(fold_package_name(name));
  return it == versions.end() ? none : it->second;
}

void VersionDump::merge(const VersionDump& other) {
  if (other.versions.empty() && other.devices.empty()) return;
  file = file.empty() ? other.file : file + " and " + other.file;
  for (const auto& [name, set] : other.versions) versions[name].insert(set.begin(), set.end());
  devices.insert(devices.end(), other.devices.begin(), other.devices.end());
}

namespace {

bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

bool is_name(std::string_view s) {
  if (s.empty() || s.size() > 100 || !std::isalpha(static_cast<unsigned char>(s.front()))) return false;
  for (char c : s)
    if (!(alnum(c) || c == '_' || c == '-' || c == '.')) return false;
  return true;
}

bool is_hex_commit(std::string_view s) {
  if (s.size() < 7 || s.size() > 40) return false;
  for (char c : s)
    if (!(digit(c) || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// A version: starts with a digit, holds letters, digits and . + - _ only, and is all digits or holds a '.'; for a
// commit, 7-40 hex digits.
bool is_version(std::string_view name, std::string_view s) {
  if (name.ends_with("commit") || name.ends_with("COMMIT")) return is_hex_commit(s);
  if (s.empty() || s.size() > 100 || !digit(s.front())) return false;
  bool dot = false, all_digits = true;
  for (char c : s) {
    if (c == '.') dot = true;
    if (!digit(c)) all_digits = false;
    if (!(alnum(c) || c == '.' || c == '+' || c == '-' || c == '_')) return false;
  }
  return dot || all_digits;
}

// Punctuation that ends a word in prose or a CSV row, not part of a name or a version.
std::string_view strip_punctuation(std::string_view w) {
  while (!w.empty() && (w.back() == ':' || w.back() == ',' || w.back() == ';')) w.remove_suffix(1);
  return w;
}

std::vector<std::string_view> words_of(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_ascii_space(line[i])) ++i;
    std::size_t j = i;
    while (j < line.size() && !is_ascii_space(line[j])) ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

void add(VersionDump& out, std::string_view name, std::string_view version) {
  out.versions[fold_package_name(name)].insert(std::string(version));
}

// "name version" pairs anywhere on the line, and name==version words.
void read_pairs(std::string_view line, VersionDump& out) {
  const auto words = words_of(line);
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (auto eq = words[i].find("=="); eq != std::string_view::npos) {
      auto name = words[i].substr(0, eq), version = strip_punctuation(words[i].substr(eq + 2));
      if (is_name(name) && is_version(name, version)) add(out, name, version);
      continue;
    }
    if (i + 1 >= words.size()) break;
    const auto name = strip_punctuation(words[i]);
    const auto version = strip_punctuation(words[i + 1]);
    if (fold_package_name(name) == "version") continue;  // "Driver Version: x" and the like: a label, not a package
    if (is_name(name) && is_version(name, version)) {
      add(out, name, version);
      ++i;
    }
  }
}

// "> PyTorch version ........ 2.11.0+cu130" (Megatron-LM's training banner).
bool read_banner(std::string_view t, VersionDump& out) {
  if (t.empty() || t.front() != '>') return false;
  t = trim(t.substr(1));
  const auto at = t.find(" version ");
  if (at == std::string_view::npos) return false;
  const std::string_view name = trim(t.substr(0, at));
  std::string_view rest = trim(t.substr(at + 9));
  std::size_t dots = 0;
  while (dots < rest.size() && rest[dots] == '.') ++dots;
  if (dots == 0) return false;
  rest = trim(rest.substr(dots));
  if (name.empty() || name.size() > 100 || rest.find_first_of(" \t") != std::string_view::npos) return false;
  for (char c : name)
    if (!(alnum(c) || c == ' ' || c == '-' || c == '_' || c == '.')) return false;
  if (!is_version("", rest)) return false;
  add(out, name, rest);
  return true;
}

// "<Name> version: <v> ..." (PyTorch's collect_env: "PyTorch version: 2.11.0+cu130", "Python version: 3.12.3 (main,
// ...)"): the words before " version:" name the package, the first word after it is its version.
bool read_version_label(std::string_view t, VersionDump& out) {
  const auto at = t.find(" version: ");
  const auto at2 = t.find(" Version: ");
  const auto k = std::min(at, at2);
  if (k == std::string_view::npos || k == 0 || k > 60) return false;
  const std::string_view name = t.substr(0, k);
  for (char c : name)
    if (!(alnum(c) || c == ' ' || c == '-' || c == '_' || c == '.')) return false;
  if (!std::isalpha(static_cast<unsigned char>(name.front()))) return false;
  std::string_view rest = trim(t.substr(k + 10));
  rest = rest.substr(0, rest.find_first_of(" \t"));
  if (!is_version("", rest)) return false;
  add(out, name, rest);
  return true;
}

void after_label(std::string_view line, std::string_view label, std::string_view key, VersionDump& out) {
  auto p = line.find(label);
  if (p == std::string_view::npos) return;
  std::string_view rest = trim(line.substr(p + label.size()));
  std::size_t e = 0;
  while (e < rest.size() && rest[e] != ' ' && rest[e] != '|') ++e;
  if (is_version("", rest.substr(0, e))) out.versions[std::string(key)].insert(std::string(rest.substr(0, e)));
}

// A device name as the driver prints it: printable, starts with a letter, at most 100 bytes.
bool is_device_name(std::string_view s) {
  if (s.empty() || s.size() > 100 || !std::isalpha(static_cast<unsigned char>(s.front()))) return false;
  for (char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == '|' || c == ',') return false;
  return true;
}

std::optional<std::int64_t> small_index(std::string_view s) {
  auto v = parse_int(s);
  if (!v || *v < 0 || *v > 100000 || s.empty() || !digit(s.front())) return std::nullopt;
  return v;
}

// "|   0  NVIDIA H200                    On  |   00000000:00:06.0 Off |" (nvidia-smi's table).
bool read_table_device(std::string_view t, std::size_t line_no, VersionDump& out) {
  if (t.size() < 3 || t.front() != '|') return false;
  const auto bar = t.find('|', 1);
  if (bar == std::string_view::npos) return false;
  std::string_view cell = trim(t.substr(1, bar - 1));
  std::size_t d = 0;
  while (d < cell.size() && digit(cell[d])) ++d;
  if (d == 0 || d >= cell.size() || !is_ascii_space(cell[d])) return false;
  auto index = small_index(cell.substr(0, d));
  std::string_view rest = trim(cell.substr(d));
  // The name ends before the persistence mode (On / Off) or the TCC/WDDM driver model.
  for (std::string_view mode : {" On", " Off", " TCC", " WDDM"})
    if (rest.ends_with(mode)) {
      rest = trim(rest.substr(0, rest.size() - mode.size()));
      break;
    }
  if (!index || !is_device_name(rest)) return false;
  out.devices.push_back({*index, std::string(rest), line_no, out.file});
  return true;
}

// "GPU 0: NVIDIA H200 (UUID: GPU-...)" (nvidia-smi -L; the UUID part may be missing).
bool read_list_device(std::string_view t, std::size_t line_no, VersionDump& out) {
  if (!t.starts_with("GPU ")) return false;
  const auto colon = t.find(": ");
  if (colon == std::string_view::npos) return false;
  auto uuid = t.rfind(" (UUID:");
  if (uuid == std::string_view::npos || uuid < colon) uuid = t.size();
  auto index = small_index(t.substr(4, colon - 4));
  std::string_view name = trim(t.substr(colon + 2, uuid - colon - 2));
  if (!index || !is_device_name(name)) return false;
  out.devices.push_back({*index, std::string(name), line_no, out.file});
  return true;
}

// "    Product Name                          : NVIDIA H200" (nvidia-smi -q, one per GPU in order).
bool read_product_name(std::string_view t, std::size_t line_no, VersionDump& out) {
  if (!t.starts_with("Product Name")) return false;
  const auto colon = t.find(':');
  if (colon == std::string_view::npos || trim(t.substr(12, colon - 12)).size() != 0) return false;
  std::string_view name = trim(t.substr(colon + 1));
  if (!is_device_name(name)) return false;
  std::int64_t index = 0;
  for (const auto& d : out.devices) index += d.file == out.file && d.line < line_no ? 1 : 0;
  out.devices.push_back({index, std::string(name), line_no, out.file});
  return true;
}

// The columns of an `nvidia-smi --query-gpu=...` CSV block: where the name is, and the index (-1: none, the rows'
// order is the index), read from the query (in a command line) or from the CSV header line.
struct QueryColumns {
  int name = -1, index = -1;
};

std::optional<QueryColumns> gpu_query_columns(std::string_view t) {
  std::string_view fields;
  if (auto q = t.find("--query-gpu="); q != std::string_view::npos) {
    fields = t.substr(q + 12);
    fields = fields.substr(0, fields.find_first_of(" \t"));
  } else if (t == "name" || t.starts_with("name,") || t.starts_with("index,") || t == "index") {
    fields = t;  // a CSV header line
  } else {
    return std::nullopt;
  }
  QueryColumns c;
  int k = 0;
  for (auto f : split(fields, ',')) {
    f = trim(f);
    if (f == "name") c.name = k;
    if (f == "index") c.index = k;
    ++k;
  }
  if (c.name < 0) return std::nullopt;
  return c;
}

// A row of such a block: "0, NVIDIA H200, 580.159.04" (index,name,driver_version) or "NVIDIA H200" (name).
bool read_csv_device(std::string_view t, std::size_t line_no, const QueryColumns& c, std::int64_t row,
                     VersionDump& out) {
  const auto fields = split(t, ',');
  if (static_cast<int>(fields.size()) <= std::max(c.name, c.index)) return false;
  auto index =
      c.index >= 0 ? small_index(trim(fields[static_cast<std::size_t>(c.index)])) : std::optional<std::int64_t>(row);
  std::string_view name = trim(fields[static_cast<std::size_t>(c.name)]);
  if (!index || !is_device_name(name)) return false;
  out.devices.push_back({*index, std::string(name), line_no, out.file});
  return true;
}

}  // namespace

VersionDump parse_versions(std::string_view text, const std::string& file) {
  VersionDump out;
  out.file = file;
  std::optional<QueryColumns> csv_block;
  std::int64_t csv_row = 0;
  std::size_t line_no = 0;
  for (std::string_view line : lines_of(text)) {
    ++line_no;
    std::string_view t = trim(line);
    if (auto columns = gpu_query_columns(t)) {
      csv_block = columns;
      csv_row = 0;
      continue;
    }
    if (csv_block) {
      if (read_csv_device(t, line_no, *csv_block, csv_row, out)) {
        ++csv_row;
        continue;
      }
      csv_block.reset();
    }
    if (read_table_device(t, line_no, out) || read_list_device(t, line_no, out) || read_product_name(t, line_no, out) ||
        read_banner(t, out))
      continue;
    after_label(line, "Driver Version:", "nvidia_driver", out);
    after_label(line, "CUDA Version:", "cuda_driver_api", out);
    if (line.find("CUDA Version:") != std::string_view::npos) continue;  // the header: its pairs are labels
    if (line.find("Driver Version:") != std::string_view::npos) continue;
    if (read_version_label(t, out)) continue;
    if (!t.empty() && (t.front() == '|' || t.front() == '+')) continue;  // a table row or border of nvidia-smi's
    read_pairs(t, out);
  }
  return out;
}

VersionDump parse_version_banners(std::string_view log_text, const std::string& file) {
  VersionDump out;
  out.file = file;
  for (std::string_view line : lines_of(log_text)) {
    std::string_view t = trim(line);
    if (!t.empty() && t.front() == '>') read_banner(t, out);
  }
  return out;
}

}  // namespace openrecipes::evidence
