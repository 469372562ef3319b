// Depth-bounded, duplicate-key-refusing JSON parsing for untrusted files (DESIGN.md "Untrusted input").
#include "core/json_limits.h"

#include <limits>
#include <map>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"

namespace openrecipes {

namespace {

// Calls `on(i)` for each byte offset i of `text` outside JSON strings (a string's quotes, contents and escapes are
// skipped). `on` returns how many bytes after i to skip too (0 for none).
template <class F>
void scan_outside_strings(std::string_view text, F&& on) {
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    i += on(i);
  }
}

}  // namespace

void check_json_depth(std::string_view text, std::size_t max_depth, const std::string& where, const std::string& fix) {
  std::size_t depth = 0;
  scan_outside_strings(text, [&](std::size_t i) -> std::size_t {
    const char c = text[i];
    if (c == '[' || c == '{') {
      if (++depth > max_depth)
        throw InputError(where, fmt::format("JSON nested deeper than {} levels (at byte {})", max_depth, i), fix);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
    return 0;
  });
}

namespace {

// The strict parse; `nonfinite` (may be null) maps the ordinal of a number in document order to the value it stands
// for (parse_json_python's masked words).
nlohmann::json parse_strict(std::string_view text, const std::string& where, const std::string& fix,
                            std::size_t max_depth, const std::map<std::size_t, double>* nonfinite) {
  check_json_depth(text, max_depth, where, fix);
  std::size_t numbers = 0;
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
            throw InputError(where,
                             fmt::format("the key \"{}\" appears twice in one object (JSON readers disagree "
                                         "on which one wins)",
                                         path(last_key)),
                             fix);
          break;
        }
        case json::parse_event_t::value:
          if (nonfinite && value.is_number()) {
            auto it = nonfinite->find(numbers++);
            if (it != nonfinite->end()) value = it->second;
          }
          break;
      }
      return true;
    });
  } catch (const json::parse_error& e) {
    throw InputError(where, fmt::format("not valid JSON at byte {}: {}", e.byte, json_error_text(e.what())), fix);
  } catch (const json::exception& e) {
    throw InputError(where, "not valid JSON: " + json_error_text(e.what()), fix);
  }
}

// Python's json.dump spellings of the non-finite floats and numbers of the same length that stand in for them, so
// that byte positions in error messages stay the file's own.
struct NonfiniteWord {
  std::string_view word, mask;
  double value;
};
const NonfiniteWord kNonfiniteWords[] = {
    {"-Infinity", "-0.000000", -std::numeric_limits<double>::infinity()},
    {"Infinity", "0.000000", std::numeric_limits<double>::infinity()},
    {"NaN", "0.0", std::numeric_limits<double>::quiet_NaN()},
};

}  // namespace

nlohmann::json parse_json_bounded(std::string_view text, const std::string& where, const std::string& fix,
                                  std::size_t max_depth) {
  check_json_depth(text, max_depth, where, fix);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(where, fmt::format("not valid JSON at byte {}: {}", e.byte, json_error_text(e.what())), fix);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(where, "not valid JSON: " + json_error_text(e.what()), fix);
  }
}

nlohmann::json parse_json_strict(std::string_view text, const std::string& where, const std::string& fix,
                                 std::size_t max_depth) {
  return parse_strict(text, where, fix, max_depth, nullptr);
}

nlohmann::json parse_json_python(std::string_view text, const std::string& where, const std::string& fix,
                                 std::size_t max_depth) {
  // Outside strings, every token that starts with '-' or a digit is a number (in JSON that parses at all); a bare
  // NaN / Infinity / -Infinity becomes a same-length number, and its ordinal among the numbers is remembered.
  auto token_char = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '+' || c == '-';
  };
  std::string masked(text);
  std::map<std::size_t, double> nonfinite;
  std::size_t numbers = 0;
  scan_outside_strings(text, [&](std::size_t i) -> std::size_t {
    if (i > 0 && token_char(text[i - 1])) return 0;  // inside a token
    for (const auto& w : kNonfiniteWords)
      if (text.substr(i, w.word.size()) == w.word &&
          (i + w.word.size() == text.size() || !token_char(text[i + w.word.size()]))) {
        masked.replace(i, w.word.size(), w.mask);
        nonfinite.emplace(numbers++, w.value);
        return w.word.size() - 1;
      }
    if (text[i] == '-' || (text[i] >= '0' && text[i] <= '9')) ++numbers;
    return 0;
  });
  return parse_strict(masked, where, fix, max_depth, &nonfinite);
}

std::string json_error_text(std::string_view what) {
  if (what.starts_with("[json.exception.")) {
    const auto close = what.find("] ");
    if (close != std::string_view::npos) what.remove_prefix(close + 2);
  }
  if (what.starts_with("parse error")) {
    const auto colon = what.find(": ");
    if (colon != std::string_view::npos) what.remove_prefix(colon + 2);
  }
  return std::string(what);
}

}  // namespace openrecipes
