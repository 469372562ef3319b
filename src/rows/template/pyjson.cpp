// json.dumps as transformers' tojson filter calls it (CPython 3.11 Lib/json/encoder.py: ensure_ascii, indent,
// separators, sort_keys, float repr, TypeError for values that are not JSON serializable).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "rows/template/failure.h"
#include "rows/template/pyformat.h"
#include "rows/template/pyops.h"
#include "rows/template/unicode.h"

namespace openrecipes::rows::template_engine {

namespace {

void json_string(std::string& out, std::string_view s, bool ensure_ascii) {
  out.push_back('"');
  for (std::size_t i = 0; i < s.size();) {
    std::size_t start = i;
    char32_t c = next_cp(s, i);
    switch (c) {
      case '"':
        out += "\\\"";
        continue;
      case '\\':
        out += "\\\\";
        continue;
      case '\n':
        out += "\\n";
        continue;
      case '\r':
        out += "\\r";
        continue;
      case '\t':
        out += "\\t";
        continue;
      case '\b':
        out += "\\b";
        continue;
      case '\f':
        out += "\\f";
        continue;
      default:
        break;
    }
    char buf[16];
    if (c < 0x20 || (ensure_ascii && c == 0x7F)) {
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      out += buf;
    } else if (c < 0x80 || !ensure_ascii) {
      out.append(s.substr(start, i - start));
    } else if (c < 0x10000) {
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      out += buf;
    } else {
      char32_t v = c - 0x10000;
      std::snprintf(buf, sizeof buf, "\\u%04x\\u%04x", static_cast<unsigned>(0xD800 | (v >> 10)),
                    static_cast<unsigned>(0xDC00 | (v & 0x3FF)));
      out += buf;
    }
  }
  out.push_back('"');
}

std::string json_float(double f) {
  if (std::isnan(f)) return "NaN";
  if (std::isinf(f)) return f > 0 ? "Infinity" : "-Infinity";
  return float_repr(f);
}

struct JsonWriter {
  bool ensure_ascii;
  bool has_indent;
  std::string indent;
  std::string item_sep, key_sep;
  bool sort_keys;
  std::string out;
  int depth = 0;

  [[noreturn]] void not_serializable(const Value& v) {
    fail(PyError::TypeError, "Object of type " + type_name(v) + " is not JSON serializable");
  }

  void newline(int level) {
    out.push_back('\n');
    for (int i = 0; i < level; ++i) out += indent;
  }

  std::string key_string(const Value& k) {
    switch (k.kind()) {
      case Kind::Str:
        return std::string(k.str());
      case Kind::Float:
        return json_float(k.as_float());
      case Kind::Bool:
        return k.as_bool() ? "true" : "false";
      case Kind::None:
        return "null";
      case Kind::Int:
        return std::to_string(k.as_int());
      default:
        fail(PyError::TypeError, "keys must be str, int, float, bool or None, not " + type_name(k));
    }
  }

  void write(const Value& v) {
    if (++depth > 1000) fail(PyError::LimitExceeded, "JSON nesting deeper than 1000");
    check_text_size(out.size());
    switch (v.kind()) {
      case Kind::None:
        out += "null";
        break;
      case Kind::Bool:
        out += v.as_bool() ? "true" : "false";
        break;
      case Kind::Int:
        out += std::to_string(v.as_int());
        break;
      case Kind::Float:
        out += json_float(v.as_float());
        break;
      case Kind::Str:
        json_string(out, v.str(), ensure_ascii);
        break;
      case Kind::List:
      case Kind::Tuple: {
        if (!v.list().plain()) not_serializable(v);
        const auto& items = v.list().items;
        if (items.empty()) {
          out += "[]";
          break;
        }
        out.push_back('[');
        if (has_indent) newline(depth);
        for (std::size_t i = 0; i < items.size(); ++i) {
          if (i) {
            out += item_sep;
            if (has_indent) newline(depth);
          }
          write(items[i]);
        }
        if (has_indent) newline(depth - 1);
        out.push_back(']');
        break;
      }
      case Kind::Dict: {
        const auto& d = v.dict().items;
        if (d.empty()) {
          out += "{}";
          break;
        }
        std::vector<std::size_t> order(d.size());
        for (std::size_t i = 0; i < d.size(); ++i) order[i] = i;
        if (sort_keys)
          std::stable_sort(order.begin(), order.end(),
                           [&](std::size_t a, std::size_t b) { return py_order(d[a].first, d[b].first, CmpOp::Lt); });
        out.push_back('{');
        if (has_indent) newline(depth);
        bool first = true;
        for (std::size_t idx : order) {
          if (!first) {
            out += item_sep;
            if (has_indent) newline(depth);
          }
          first = false;
          std::string k = key_string(d[idx].first);
          json_string(out, k, ensure_ascii);
          out += key_sep;
          write(d[idx].second);
        }
        if (has_indent) newline(depth - 1);
        out.push_back('}');
        break;
      }
      default:
        not_serializable(v);
    }
    --depth;
  }
};

}  // namespace

std::string json_dumps(const Value& v, bool ensure_ascii, const Value& indent, const Value& separators,
                       bool sort_keys) {
  JsonWriter w;
  w.ensure_ascii = ensure_ascii;
  w.sort_keys = sort_keys;
  w.has_indent = !indent.is(Kind::None);
  if (w.has_indent) {
    if (indent.is_str()) {
      w.indent = std::string(indent.str());
    } else if (indent.is_int_like()) {
      std::int64_t n = indent.as_int();
      if (n > 1024) fail(PyError::LimitExceeded, "tojson indent larger than 1024");
      if (n > 0) w.indent.assign(static_cast<std::size_t>(n), ' ');
    } else {
      fail(PyError::TypeError, "can't multiply sequence by non-int of type '" + type_name(indent) + "'");
    }
  }
  if (separators.is(Kind::None)) {
    w.item_sep = w.has_indent ? "," : ", ";
    w.key_sep = ": ";
  } else {
    if (!separators.is_seq() || separators.list().items.size() != 2)
      fail(PyError::ValueError, "separators must be a (item_separator, key_separator) pair");
    const auto& s = separators.list().items;
    if (!s[0].is_str() || !s[1].is_str()) fail(PyError::TypeError, "separators must be strings");
    w.item_sep = std::string(s[0].str());
    w.key_sep = std::string(s[1].str());
  }
  w.write(v);
  return std::move(w.out);
}

}  // namespace openrecipes::rows::template_engine
