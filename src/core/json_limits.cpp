// Depth-bounded, duplicate-key-refusing JSON parsing for untrusted files (DESIGN.md "Untrusted input").
#include "core/json_limits.h"

#include <limits>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"

namespace openrecipes {

void check_json_depth(std::string_view text, std::size_t max_depth, const std::string& where, const std::string& fix) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth)
        throw InputError(where, fmt::format("JSON nested deeper than {} levels (at byte {})", max_depth, i), fix);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

nlohmann::json parse_json_strict(std::string_view text, const std::string& where, const std::string& fix,
                                 std::size_t max_depth) {
  check_json_depth(text, max_depth, where, fix);
  using json = nlohmann::json;
  // One entry per open container: its keys (objects) and its name in the path, for messages.
  struct Open {
    bool object = false;
    std::set<std::string> keys;
    std::string name;
  };
  std::vector<Open> open;
  std::string last_key;
  auto path = [&](const std::string& key) {
    std::string p;
    for (std::size_t i = 1; i < open.size(); ++i) p += open[i].name + ".";
    return p + key;
  };
  try {
    return json::parse(text, [&](int, json::parse_event_t event, json& value) {
      switch (event) {
        case json::parse_event_t::object_start:
        case json::parse_event_t::array_start:
          open.push_back({event == json::parse_event_t::object_start, {}, last_key});
          break;
        case json::parse_event_t::object_end:
        case json::parse_event_t::array_end:
          if (!open.empty()) open.pop_back();
          break;
        case json::parse_event_t::key: {
          last_key = value.get<std::string>();
          if (!open.empty() && open.back().object && !open.back().keys.insert(last_key).second)
            throw InputError(where, fmt::format("the key \"{}\" appears twice in one object (JSON readers disagree "
                                                "on which one wins)", path(last_key)),
                             fix);
          break;
        }
        case json::parse_event_t::value:
          break;
      }
      return true;
    });
  } catch (const json::parse_error& e) {
    throw InputError(where, fmt::format("not valid JSON at byte {}: {}", e.byte, e.what()), fix);
  } catch (const json::exception& e) {
    throw InputError(where, std::string("not valid JSON: ") + e.what(), fix);
  }
}

std::string quote_python_nonfinite(std::string_view text) {
  static constexpr std::string_view kWords[] = {"-Infinity", "Infinity", "NaN"};
  auto word_char = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '+' || c == '-';
  };
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) out += text[++i];
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      continue;
    }
    bool replaced = false;
    if (i == 0 || !word_char(text[i - 1]))
      for (auto w : kWords)
        if (text.substr(i, w.size()) == w && (i + w.size() == text.size() || !word_char(text[i + w.size()]))) {
          out += '"';
          out += w;
          out += '"';
          i += w.size() - 1;
          replaced = true;
          break;
        }
    if (!replaced) out += c;
  }
  return out;
}

std::optional<double> python_nonfinite(const nlohmann::json& value) {
  if (!value.is_string()) return std::nullopt;
  const auto& s = value.get_ref<const std::string&>();
  if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (s == "Infinity") return std::numeric_limits<double>::infinity();
  if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
  return std::nullopt;
}

}  // namespace openrecipes
