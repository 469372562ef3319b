// Jinja2's text filters (jinja2/filters.py, 3.1: capitalize, center, escape, format, indent, replace, title,
// trim, truncate, urlencode, wordcount, xmlattr, ...) with transformers' tojson, over Python's str semantics.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "rows/template/failure.h"
#include "rows/template/filters.h"
#include "rows/template/methods.h"
#include "rows/template/pyformat.h"
#include "rows/template/pyops.h"
#include "rows/template/pystr.h"
#include "rows/template/unicode.h"

namespace openrecipes::rows::template_engine {

namespace {

std::string url_quote(const Value& v, bool for_qs) {
  std::string s = v.is_str() ? std::string(v.str()) : to_str(v);
  std::string out;
  for (unsigned char c : s) {
    bool safe = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
                c == '-' || c == '~' || (!for_qs && c == '/');
    if (safe) {
      out.push_back(static_cast<char>(c));
    } else {
      char b[4];
      std::snprintf(b, sizeof b, "%%%02X", c);
      out += b;
    }
  }
  if (for_qs) {
    std::string r;
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (out.compare(i, 3, "%20") == 0) {
        r.push_back('+');
        i += 2;
      } else {
        r.push_back(out[i]);
      }
    }
    return r;
  }
  return out;
}

std::string filesizeformat(const Value& v, bool binary) {
  double bytes;
  if (v.is_number()) {
    bytes = v.as_float();
  } else if (v.is_str()) {
    if (!parse_py_float(v.str(), bytes)) fail(PyError::ValueError, "could not convert string to float: " + repr(v));
  } else {
    fail(PyError::TypeError, "float() argument must be a string or a real number, not '" + type_name(v) + "'");
  }
  double base = binary ? 1024 : 1000;
  const char* prefixes_b[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"};
  const char* prefixes_d[] = {"kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"};
  if (bytes == 1) return "1 Byte";
  if (bytes < base) return std::to_string(static_cast<std::int64_t>(bytes)) + " Bytes";
  char buf[64];
  double unit = 0;
  const char* prefix = "";
  for (int i = 0; i < 8; ++i) {
    unit = std::pow(base, i + 2);
    prefix = binary ? prefixes_b[i] : prefixes_d[i];
    if (bytes < unit) break;
  }
  std::snprintf(buf, sizeof buf, "%.1f %s", base * bytes / unit, prefix);
  return buf;
}

}  // namespace

Value do_forceescape(Interp&, const Value& value, Args& a) {
  const Value* p[1];
  bind_args(a, {}, p, "escape");
  return Value::string(html_escape(to_str(value)), true);
}

Value do_escape(Interp& in, const Value& value, Args& a) {
  if (!value.is_str() || !value.is_safe()) return do_forceescape(in, value, a);
  const Value* p[1];
  bind_args(a, {}, p, "escape");
  return value;
}

Value do_capitalize(Interp&, const Value& value, Args& a) {
  const Value* p[1];
  bind_args(a, {}, p, "capitalize");
  return Value::string(py_capitalize(soft_str(value).str()));
}

Value do_center(Interp&, const Value& value, Args& a) {
  const Value* p[1];
  bind_args(a, {"width"}, p, "do_center");
  std::int64_t w = arg_int(p[0], 80, "width");
  if (w > 1 << 20) fail(PyError::LimitExceeded, "center width too large");
  return Value::string(pystr::center(soft_str(value).str(), w, ' '));
}

Value do_filesizeformat(Interp&, const Value& value, Args& a) {
  const Value* p[1];
  bind_args(a, {"binary"}, p, "do_filesizeformat");
  return Value::string(filesizeformat(value, arg_true(p[0], false)));
}

Value do_format(Interp&, const Value& value, Args& a) {
  if (!a.pos.empty() && !a.kw.empty())
    fail(PyError::FilterArgumentError, "can't handle positional and keyword arguments at the same time");
  Value args;
  if (!a.kw.empty()) {
    args = Value::new_dict();
    for (const auto& kv : a.kw) args.dict().set(Value::string(kv.first), kv.second);
  } else {
    args = Value::new_tuple(a.pos);
  }
  Value s = soft_str(value);
  return Value::string(percent_format(s.str(), args, s.is_safe()), s.is_safe());
}

Value do_indent(Interp& in, const Value& value, Args& a) {
  const Value* p[3];
  bind_args(a, {"width", "first", "blank"}, p, "do_indent");
  const Value* width = p[0];
  const Value* first = p[1];
  const Value* blank = p[2];
  if (!value.is_str()) {
    if (value.is_undefined()) fail_undefined(value);
    // `s += "\n"` extends a list with characters; then s.splitlines() fails.
    if (value.is(Kind::List)) fail(PyError::AttributeError, "'list' object has no attribute 'splitlines'");
    if (value.is(Kind::Tuple)) fail(PyError::TypeError, "can only concatenate tuple (not \"str\") to tuple");
    fail(PyError::TypeError, "unsupported operand type(s) for +=: '" + type_name(value) + "' and 'str'");
  }
  std::string indention;
  if (width != nullptr && width->is_str()) {
    indention = std::string(width->str());
  } else {
    std::int64_t w = arg_int(width, 4, "width");
    if (w > 4096) fail(PyError::LimitExceeded, "indent width too large");
    if (w > 0) indention.assign(static_cast<std::size_t>(w), ' ');
  }
  std::string s(value.str());
  s += "\n";
  auto lines = pystr::splitlines(s, false);
  check_text_size(s.size() + lines.size() * (indention.size() + 1));
  std::string rv;
  if (arg_true(blank, false)) {
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (i) rv += "\n" + indention;
      rv.append(lines[i]);
    }
  } else {
    rv = std::string(lines.empty() ? std::string_view() : lines[0]);
    for (std::size_t i = 1; i < lines.size(); ++i) {
      rv += "\n";
      if (!lines[i].empty()) rv += indention;
      rv.append(lines[i]);
    }
  }
  if (arg_true(first, false)) rv = indention + rv;
  in.work(rv.size());
  return Value::string(rv, value.is_safe());
}

Value do_lower(Interp&, const Value& value, Args& a) {
  const Value* p[1];
  bind_args(a, {}, p, "lower");
  return Value::string(py_lower(soft_str(value).str()));
}

Value do_upper(Interp&, const Value& value, Args& a) {
  const Value* p[1];
  bind_args(a, {}, p, "upper");
  return Value::string(py_upper(soft_str(value).str()));
}

Value do_pprint(Interp&, const Value& value, Args& a) {
  const Value* p[1];
  bind_args(a, {}, p, "do_pprint");
  std::string r = repr(value);
  if (cp_count(r) > 80) fail(PyError::Unsupported, "|pprint of values longer than 80 characters is not supported");
  return Value::string(r);
}

Value do_replace(Interp& in, const Value& value, Args& a) {
  const Value* p[3];
  bind_args(a, {"old", "new", "count"}, p, "do_replace", 2);
  std::int64_t count = (p[2] == nullptr || p[2]->is(Kind::None)) ? -1 : arg_int(p[2], -1, "count");
  std::string s = to_str(value);
  std::string old_s = to_str(*p[0]), new_s = to_str(*p[1]);
  {
    std::int64_t hits =
        old_s.empty() ? static_cast<std::int64_t>(cp_count(s)) + 1 : pystr::count(s, old_s, std::nullopt, std::nullopt);
    if (count >= 0) hits = std::min(hits, count);
    if (new_s.size() > old_s.size())
      check_text_size(s.size() + static_cast<std::size_t>(hits) * (new_s.size() - old_s.size()));
  }
  std::string r = pystr::replace(s, old_s, new_s, count);
  in.work(r.size());
  return Value::string(r);
}

Value do_mark_safe(Interp&, const Value& value, Args& a) {
  const Value* p[1];
  bind_args(a, {}, p, "do_mark_safe");
  if (value.is_str()) return value.as_safe();
  return Value::string(to_str(value), true);
}

Value do_string(Interp&, const Value& value, Args& a) {
  const Value* p[1];
  bind_args(a, {}, p, "soft_str");
  return soft_str(value);
}

Value do_striptags(Interp&, const Value&, Args&) {
  fail(PyError::Unsupported, "|striptags is not supported by this engine");
}

Value do_title(Interp&, const Value& value, Args& a) {
  const Value* p[1];
  bind_args(a, {}, p, "do_title");
  Value s = soft_str(value);
  std::string_view t = s.str();
  // re.split(r"([-\s({\[<]+)") then item[0].upper() + item[1:].lower() for every non-empty item.
  auto is_sep = [](char32_t c) { return c == '-' || c == '(' || c == '{' || c == '[' || c == '<' || py_isspace(c); };
  std::string out;
  std::size_t i = 0;
  while (i < t.size()) {
    std::size_t j = i;
    char32_t c = next_cp(t, j);
    bool sep = is_sep(c);
    std::size_t k = i;
    while (k < t.size()) {
      std::size_t m = k;
      if (is_sep(next_cp(t, m)) != sep) break;
      k = m;
    }
    std::string_view item = t.substr(i, k - i);
    std::size_t first_end = 0;
    next_cp(item, first_end);
    out += py_upper(item.substr(0, first_end));
    out += py_lower(item.substr(first_end));
    i = k;
  }
  return Value::string(out, s.is_safe());
}

Value do_trim(Interp&, const Value& value, Args& a) {
  const Value* p[1];
  bind_args(a, {"chars"}, p, "do_trim");
  Value s = soft_str(value);
  std::string_view cv;
  const std::string_view* chars = strip_chars(p[0], cv);
  return Value::view_of(s, pystr::strip(s.str(), chars, true, true));
}

Value do_truncate(Interp&, const Value& s, Args& a) {
  const Value* p[4];
  bind_args(a, {"length", "killwords", "end", "leeway"}, p, "do_truncate");
  const Value* length_v = p[0];
  const Value* killwords = p[1];
  const Value* end_v = p[2];
  const Value* leeway_v = p[3];
  std::int64_t length = arg_int(length_v, 255, "length");
  std::string end = end_v ? to_str(*end_v) : "...";
  std::int64_t leeway = arg_int(leeway_v, 5, "leeway");
  auto end_len = static_cast<std::int64_t>(cp_count(end));
  if (length < end_len)
    fail(PyError::RuntimeError,
         "AssertionError: expected length >= " + std::to_string(end_len) + ", got " + std::to_string(length));
  if (leeway < 0) fail(PyError::RuntimeError, "AssertionError: expected leeway >= 0, got " + std::to_string(leeway));
  if (!s.is_str()) {
    // Jinja2 does not convert: len(s) decides, and a long non-string fails on slicing/rsplit.
    if (s.is(Kind::Iterator)) fail(PyError::TypeError, "object of type '" + type_name(s) + "' has no len()");
    if (static_cast<std::int64_t>(py_len(s)) <= length + leeway) return s;
    if (s.is(Kind::Dict)) fail(PyError::TypeError, "unhashable type: 'slice'");
    if (arg_true(killwords, false))
      fail(PyError::TypeError, "can only concatenate " + type_name(s) + " (not \"str\") to " + type_name(s));
    fail(PyError::AttributeError, "'" + type_name(s) + "' object has no attribute 'rsplit'");
  }
  std::string_view t = s.str();
  if (static_cast<std::int64_t>(cp_count(t)) <= length + leeway) return s;
  std::string head = pystr::slice(t, std::nullopt, length - end_len, 1);
  if (arg_true(killwords, false)) return Value::string(head + end);
  std::string_view space = " ";
  auto parts = pystr::rsplit(head, &space, 1);
  return Value::string(std::string(parts[0]) + end);
}

Value do_urlencode(Interp& in, const Value& value, Args& a) {
  const Value* p[1];
  bind_args(a, {}, p, "do_urlencode");
  if (value.is_str() || !(value.is_seq() || value.is(Kind::Dict) || value.is(Kind::Iterator)))
    return Value::string(url_quote(value, false));
  std::vector<Value> items;
  if (value.is(Kind::Dict)) {
    for (const auto& kv : value.dict().items) items.push_back(Value::new_tuple({kv.first, kv.second}));
  } else {
    items = in.to_vector(value);
  }
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    std::vector<Value> kv = in.to_vector(items[i]);
    if (kv.size() != 2) fail(PyError::ValueError, "too many values to unpack (expected 2)");
    if (i) out += "&";
    out += url_quote(kv[0], true) + "=" + url_quote(kv[1], true);
  }
  return Value::string(out);
}

Value do_urlize(Interp&, const Value&, Args&) { fail(PyError::Unsupported, "|urlize is not supported by this engine"); }

Value do_wordcount(Interp&, const Value& value, Args& a) {
  const Value* p[1];
  bind_args(a, {}, p, "do_wordcount");
  Value s = soft_str(value);
  std::string_view t = s.str();
  std::int64_t n = 0;
  bool in_word = false;
  for (std::size_t i = 0; i < t.size();) {
    char32_t c = next_cp(t, i);
    bool w = c == '_' || py_isalnum(c);
    if (w && !in_word) ++n;
    in_word = w;
  }
  return Value::integer(n);
}

Value do_wordwrap(Interp&, const Value&, Args&) {
  fail(PyError::Unsupported, "|wordwrap is not supported by this engine");
}

Value do_xmlattr(Interp&, const Value& value, Args& a) {
  const Value* p[1];
  bind_args(a, {"autospace"}, p, "do_xmlattr");
  if (!value.is(Kind::Dict))
    fail(PyError::AttributeError, "'" + type_name(value) + "' object has no attribute 'items'");
  std::string rv;
  bool first = true;
  for (const auto& kv : value.dict().items) {
    if (kv.second.is(Kind::None) || kv.second.is_undefined()) continue;
    std::string key = to_str(kv.first);
    for (char c : key)
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == '/' || c == '>' || c == '=')
        fail(PyError::ValueError, "Invalid character in attribute name: " + repr(kv.first));
    if (!first) rv += " ";
    first = false;
    rv += html_escape(key) + "=\"" +
          (kv.second.is_str() && kv.second.is_safe() ? std::string(kv.second.str()) : html_escape(to_str(kv.second))) +
          "\"";
  }
  if (arg_true(p[0], true) && !rv.empty()) rv = " " + rv;
  return Value::string(rv);
}

Value do_tojson(Interp& in, const Value& value, Args& a) {
  const Value* p[4];
  // transformers: tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False)
  bind_args(a, {"ensure_ascii", "indent", "separators", "sort_keys"}, p, "tojson");
  Value none = Value::none();
  std::string r =
      json_dumps(value, arg_true(p[0], false), p[1] ? *p[1] : none, p[2] ? *p[2] : none, arg_true(p[3], false));
  in.work(r.size());
  return Value::string(r);
}

}  // namespace openrecipes::rows::template_engine
