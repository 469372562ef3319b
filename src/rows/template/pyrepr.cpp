// Python's str() and repr() of the engine's values (CPython 3.11 Objects/floatobject.c float_repr, unicodeobject.c
// unicode_repr, listobject.c/dictobject.c container printing with Jinja2's Undefined and Markup).
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "rows/template/failure.h"
#include "rows/template/objects.h"
#include "rows/template/pyops.h"
#include "rows/template/unicode.h"

namespace openrecipes::rows::template_engine {

void append_unicode_escape(std::string& out, char32_t c) {
  char b[16];
  if (c <= 0xFF)
    std::snprintf(b, sizeof b, "\\x%02x", static_cast<unsigned>(c));
  else if (c <= 0xFFFF)
    std::snprintf(b, sizeof b, "\\u%04x", static_cast<unsigned>(c));
  else
    std::snprintf(b, sizeof b, "\\U%08x", static_cast<unsigned>(c));
  out += b;
}

std::string float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<std::size_t>(r.ptr - buf));
  bool neg = sci[0] == '-';
  if (neg) sci.remove_prefix(1);
  std::size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e))
    if (c != '.') digits.push_back(c);
  int exp = 0;
  std::string_view es = sci.substr(e + 1);
  bool eneg = es[0] == '-';
  if (es[0] == '+' || es[0] == '-') es.remove_prefix(1);
  std::from_chars(es.data(), es.data() + es.size(), exp);
  if (eneg) exp = -exp;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  int decpt = exp + 1;
  std::string out = neg ? "-" : "";
  int nd = static_cast<int>(digits.size());
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) {
      out += "0.";
      out.append(static_cast<std::size_t>(-decpt), '0');
      out += digits;
    } else if (decpt >= nd) {
      out += digits;
      out.append(static_cast<std::size_t>(decpt - nd), '0');
      out += ".0";
    } else {
      out += digits.substr(0, static_cast<std::size_t>(decpt));
      out += ".";
      out += digits.substr(static_cast<std::size_t>(decpt));
    }
  } else {
    out += digits[0];
    if (nd > 1) {
      out += ".";
      out += digits.substr(1);
    }
    int x = decpt - 1;
    out += x < 0 ? "e-" : "e+";
    int ax = x < 0 ? -x : x;
    if (ax < 10) out += "0";
    out += std::to_string(ax);
  }
  return out;
}

void append_str_repr(std::string& out, std::string_view s) {
  bool has_single = s.find('\'') != std::string_view::npos;
  bool has_double = s.find('"') != std::string_view::npos;
  char quote = (has_single && !has_double) ? '"' : '\'';
  out.push_back(quote);
  for (std::size_t i = 0; i < s.size();) {
    std::size_t start = i;
    char32_t c = next_cp(s, i);
    if (c == static_cast<char32_t>(quote) || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7F) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", static_cast<unsigned>(c));
      out += b;
    } else if (c < 0x7F) {
      out.push_back(static_cast<char>(c));
    } else if (py_isprintable(c)) {
      out.append(s.substr(start, i - start));
    } else {
      append_unicode_escape(out, c);
    }
  }
  out.push_back(quote);
}

namespace {

[[noreturn]] void fail_unprintable(const Value& v) {
  fail(PyError::Unsupported, "printing a " + type_name(v) +
                                 " object shows a memory address in Python, which is not reproducible; convert it "
                                 "first (e.g. |list or |join)");
}

void append_seq_repr(std::string& out, const Value& v) {
  const ListObj& l = v.list();
  if (l.flavor == ListFlavor::DictKeys || l.flavor == ListFlavor::DictValues || l.flavor == ListFlavor::DictItems) {
    out += type_name(v) + "([";
    for (std::size_t i = 0; i < l.items.size(); ++i) {
      if (i) out += ", ";
      append_repr(out, l.items[i]);
      check_text_size(out.size());
    }
    out += "])";
    return;
  }
  if (l.flavor == ListFlavor::Range) {
    out += "range(" + std::to_string(l.range_start) + ", " + std::to_string(l.range_stop);
    if (l.range_step != 1) out += ", " + std::to_string(l.range_step);
    out += ")";
    return;
  }
  bool tuple = v.is(Kind::Tuple);
  out.push_back(tuple ? '(' : '[');
  for (std::size_t i = 0; i < l.items.size(); ++i) {
    if (i) out += ", ";
    append_repr(out, l.items[i]);
    check_text_size(out.size());
  }
  if (tuple && l.items.size() == 1) out.push_back(',');
  out.push_back(tuple ? ')' : ']');
}

void append_dict_repr(std::string& out, const DictObj& d) {
  out.push_back('{');
  for (std::size_t i = 0; i < d.items.size(); ++i) {
    if (i) out += ", ";
    append_repr(out, d.items[i].first);
    out += ": ";
    append_repr(out, d.items[i].second);
    check_text_size(out.size());
  }
  out.push_back('}');
}

}  // namespace

namespace {
thread_local std::uint32_t tl_repr_depth = 0;
struct ReprDepth {
  ReprDepth() {
    if (++tl_repr_depth > kMaxValueDepth + 16)
      fail(PyError::LimitExceeded, "printing values nested deeper than " + std::to_string(kMaxValueDepth) + " levels");
  }
  ~ReprDepth() { --tl_repr_depth; }
};
}  // namespace

void append_repr(std::string& out, const Value& v) {
  ReprDepth guard;
  switch (v.kind()) {
    case Kind::Missing:
    case Kind::Undefined:
      out += "Undefined";
      return;
    case Kind::None:
      out += "None";
      return;
    case Kind::Bool:
      out += v.as_bool() ? "True" : "False";
      return;
    case Kind::Int:
      out += std::to_string(v.as_int());
      return;
    case Kind::Float:
      out += float_repr(v.as_float());
      return;
    case Kind::Str:
      if (v.is_safe()) {
        out += "Markup(";
        append_str_repr(out, v.str());
        out += ")";
      } else {
        append_str_repr(out, v.str());
      }
      return;
    case Kind::List:
    case Kind::Tuple:
      append_seq_repr(out, v);
      return;
    case Kind::Dict:
      append_dict_repr(out, v.dict());
      return;
    case Kind::Namespace: {
      out += "<Namespace {";
      const auto& attrs = v.ns().attrs;
      for (std::size_t i = 0; i < attrs.size(); ++i) {
        if (i) out += ", ";
        append_str_repr(out, attrs[i].first);
        out += ": ";
        append_repr(out, attrs[i].second);
      }
      out += "}>";
      return;
    }
    case Kind::Macro: {
      auto* m = static_cast<MacroObj*>(v.obj());
      out += "<Macro ";
      if (m->is_caller) {
        out += "anonymous";
      } else {
        append_str_repr(out, m->def->name);
      }
      out += ">";
      return;
    }
    case Kind::Loop: {
      auto& l = *static_cast<LoopObj*>(v.obj());
      out += "<LoopContext " + std::to_string(l.index0 + 1) + "/" + std::to_string(loop_length(nullptr, l)) + ">";
      return;
    }
    case Kind::Builtin:
    default:
      fail_unprintable(v);
  }
}

std::string repr(const Value& v) {
  std::string s;
  append_repr(s, v);
  return s;
}

void append_str(std::string& out, const Value& v) {
  switch (v.kind()) {
    case Kind::Missing:
    case Kind::Undefined:
      return;
    case Kind::Str:
      out.append(v.str());
      return;
    default:
      append_repr(out, v);
  }
}

std::string to_str(const Value& v) {
  if (v.is_str()) return std::string(v.str());
  std::string s;
  append_str(s, v);
  return s;
}

}  // namespace openrecipes::rows::template_engine
