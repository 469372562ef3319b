// Jinja2's builtin filters (jinja2/filters.py, 3.1) with transformers' tojson, including the lazy generators
// that map/select/reject/unique return, Python's sort/min/max semantics, and Jinja2's own |title.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_map>

#include "rows/template/builtin_ids.h"
#include "rows/template/failure.h"
#include "rows/template/interp.h"
#include "rows/template/pyformat.h"
#include "rows/template/pyops.h"
#include "rows/template/pystr.h"
#include "rows/template/resolve.h"
#include "rows/template/unicode.h"

namespace openrecipes::rows::template_engine {

namespace {

const char* const kFilterNames[] = {
    "abs",       "attr",       "batch",       "capitalize", "center",  "count",
    "d",         "default",    "dictsort",    "e",          "escape",  "filesizeformat",
    "first",     "float",      "forceescape", "format",     "groupby", "indent",
    "int",       "join",       "last",        "length",     "list",    "lower",
    "items",     "map",        "min",         "max",        "pprint",  "random",
    "reject",    "rejectattr", "replace",     "reverse",    "round",   "safe",
    "select",    "selectattr", "slice",       "sort",       "string",  "striptags",
    "sum",       "title",      "trim",        "truncate",   "unique",  "upper",
    "urlencode", "urlize",     "wordcount",   "wordwrap",   "xmlattr", "tojson",
};
static_assert(sizeof(kFilterNames) / sizeof(kFilterNames[0]) == f_count_of_filters, "filter table");

// soft_str: str(value), keeping Markup.
Value soft_str(const Value& v) {
  if (v.is_str()) return v;
  return Value::string(to_str(v));
}

/// A generator over precomputed items (single pass, like a Python generator).
struct VecIter final : IterObj {
  std::vector<Value> items;
  std::size_t pos = 0;
  bool next(Interp&, Value& out) override {
    if (pos >= items.size()) return false;
    out = std::move(items[pos++]);
    return true;
  }
};

Value make_gen(std::vector<Value> items, const char* type = "generator") {
  charge_alloc(items.size() * sizeof(Value));
  auto g = Rc<VecIter>::adopt(new VecIter());
  std::uint32_t d = 0;
  for (const auto& x : items) d = std::max(d, value_depth(x));
  check_value_depth(d + 1);
  g->depth = d + 1;
  g->items = std::move(items);
  g->py_type = type;
  return Value::object(Kind::Iterator, g.get());
}

// _prepare_attribute_parts
std::vector<Value> attribute_parts(const Value* attr) {
  std::vector<Value> parts;
  if (attr == nullptr || attr->is(Kind::None)) return parts;
  if (attr->is_str()) {
    std::string_view s = attr->str();
    std::string_view dot = ".";
    for (auto p : pystr::split(s, &dot, -1)) {
      bool digits = !p.empty();
      for (std::size_t i = 0; i < p.size();) {
        if (!py_isdigit(next_cp(p, i))) digits = false;
      }
      if (digits && is_ascii(p)) {
        std::int64_t v = 0;
        for (char c : p) v = checked_add(checked_mul(v, 10), c - '0');
        parts.push_back(Value::integer(v));
      } else {
        parts.push_back(Value::view_of(*attr, p));
      }
    }
    return parts;
  }
  parts.push_back(*attr);
  return parts;
}

Value ignore_case(const Value& v) {
  if (v.is_str()) return Value::string(py_lower(v.str()));
  return v;
}

struct AttrGetter {
  std::vector<Value> parts;
  bool lower = false;
  Value dflt;
  bool has_default = false;
  Value operator()(Interp& in, Value item) const {
    for (const auto& part : parts) {
      item = in.getitem(item, part);
      if (has_default && item.is_undefined()) item = dflt;
    }
    return lower ? ignore_case(item) : item;
  }
};

AttrGetter make_attrgetter(const Value* attribute, bool lower, const Value* dflt = nullptr) {
  AttrGetter g;
  g.parts = attribute_parts(attribute);
  g.lower = lower;
  if (dflt != nullptr && !dflt->is(Kind::None)) {
    g.dflt = *dflt;
    g.has_default = true;
  }
  return g;
}

// make_multi_attrgetter: a list key (one entry per comma-separated attribute).
Value multi_key(Interp& in, const Value* attribute, bool lower, const Value& item) {
  std::vector<Value> keys;
  if (attribute != nullptr && attribute->is_str()) {
    std::string_view comma = ",";
    for (auto piece : pystr::split(attribute->str(), &comma, -1)) {
      Value sub = Value::view_of(*attribute, piece);
      AttrGetter g = make_attrgetter(&sub, lower);
      keys.push_back(g(in, item));
    }
  } else {
    AttrGetter g = make_attrgetter(attribute, lower);
    keys.push_back(g(in, item));
  }
  return Value::new_list(std::move(keys));
}

bool arg_true(const Value* v, bool dflt) { return v == nullptr ? dflt : truthy(*v); }

std::int64_t arg_int(const Value* v, std::int64_t dflt, const char* what) {
  if (v == nullptr) return dflt;
  if (!v->is_int_like())
    fail(PyError::TypeError, "'" + type_name(*v) + "' object cannot be interpreted as an integer (" + what + ")");
  return v->as_int();
}

// Python int(str, base) parsing; returns false on ValueError.
bool parse_py_int(std::string_view s, std::int64_t base, std::int64_t& out) {
  std::string_view t = pystr::strip(s, nullptr, true, true);
  bool neg = false;
  if (!t.empty() && (t[0] == '+' || t[0] == '-')) {
    neg = t[0] == '-';
    t.remove_prefix(1);
  }
  if (base == 0 || base == 16 || base == 8 || base == 2) {
    if (t.size() >= 2 && t[0] == '0') {
      char x = static_cast<char>(t[1] | 0x20);
      std::int64_t b = x == 'x' ? 16 : x == 'o' ? 8 : x == 'b' ? 2 : 0;
      if (b != 0 && (base == 0 || base == b)) {
        base = b;
        t.remove_prefix(2);
        if (!t.empty() && t[0] == '_') t.remove_prefix(1);
      }
    }
    if (base == 0) {
      // base 0: decimal without leading zeros (except "0")
      bool all_zero = !t.empty();
      for (char c : t)
        if (c != '0' && c != '_') all_zero = false;
      if (!t.empty() && t[0] == '0' && !all_zero) return false;
      base = 10;
    }
  }
  if (base < 2 || base > 36) fail(PyError::ValueError, "int() base must be >= 2 and <= 36, or 0");
  if (t.empty()) return false;
  std::int64_t v = 0;
  bool prev_us = true;
  for (char c : t) {
    if (c == '_') {
      if (prev_us) return false;
      prev_us = true;
      continue;
    }
    prev_us = false;
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')
      d = (c | 0x20) - 'a' + 10;
    else
      return false;
    if (d >= base) return false;
    std::int64_t nv;
    if (__builtin_mul_overflow(v, base, &nv) || __builtin_add_overflow(nv, d, &nv))
      fail(PyError::Unsupported, "integer overflow: the result needs more than 64 bits");
    v = nv;
  }
  if (prev_us) return false;
  out = neg ? -v : v;
  return true;
}

// Python float(str); returns false on ValueError.
bool parse_py_float(std::string_view s, double& out) {
  std::string_view t = pystr::strip(s, nullptr, true, true);
  std::string clean;
  bool prev_digit = false;
  for (std::size_t i = 0; i < t.size(); ++i) {
    char c = t[i];
    if (c == '_') {
      bool next_digit = i + 1 < t.size() && t[i + 1] >= '0' && t[i + 1] <= '9';
      if (!prev_digit || !next_digit) return false;
      continue;
    }
    if (static_cast<unsigned char>(c) >= 0x80) return false;
    prev_digit = c >= '0' && c <= '9';
    clean.push_back(c);
  }
  if (clean.empty()) return false;
  std::string lower;
  for (char c : clean) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  std::string_view l = lower;
  bool neg = false;
  if (!l.empty() && (l[0] == '+' || l[0] == '-')) {
    neg = l[0] == '-';
    l.remove_prefix(1);
  }
  if (l == "inf" || l == "infinity") {
    out = neg ? -HUGE_VAL : HUGE_VAL;
    return true;
  }
  if (l == "nan") {
    out = neg ? -NAN : NAN;
    return true;
  }
  for (char c : l)
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == '+' || c == '-')) return false;
  if (l.empty() || l[0] == '+' || l[0] == '-') return false;
  char* end = nullptr;
  std::string z(l);
  double v = std::strtod(z.c_str(), &end);
  if (end != z.c_str() + z.size()) return false;
  out = neg ? -v : v;
  return true;
}

Value do_int(const Value& value, const Value* dflt, const Value* base_v) {
  Value d = dflt ? *dflt : Value::integer(0);
  std::int64_t base = 10;
  if (base_v != nullptr) {
    if (!base_v->is_int_like())
      fail(PyError::TypeError, "'" + type_name(*base_v) + "' object cannot be interpreted as an integer");
    base = base_v->as_int();
  }
  if (value.is_undefined()) fail_undefined(value);
  if (value.is_str()) {
    std::int64_t out;
    if (parse_py_int(value.str(), base, out)) return Value::integer(out);
    double f;
    if (parse_py_float(value.str(), f)) {
      if (std::isnan(f)) return d;
      if (std::isinf(f)) fail(PyError::OverflowError, "cannot convert float infinity to integer");
      if (std::fabs(f) >= 9.2e18) fail(PyError::Unsupported, "integer overflow: the result needs more than 64 bits");
      return Value::integer(static_cast<std::int64_t>(f));
    }
    return d;
  }
  if (value.is_int_like()) {
    if (base_v != nullptr) return d;  // int(5, 10): TypeError -> int(float(5)) -> 5? (Python: default path)
    return Value::integer(value.as_int());
  }
  if (value.is(Kind::Float)) {
    double f = value.as_float();
    if (std::isnan(f)) return d;  // ValueError -> int(float(nan)) ValueError -> default
    if (std::isinf(f)) fail(PyError::OverflowError, "cannot convert float infinity to integer");
    if (std::fabs(f) >= 9.2e18) fail(PyError::Unsupported, "integer overflow: the result needs more than 64 bits");
    return Value::integer(static_cast<std::int64_t>(f));
  }
  return d;
}

Value do_float(const Value& value, const Value* dflt) {
  Value d = dflt ? *dflt : Value::floating(0.0);
  if (value.is_undefined()) fail_undefined(value);
  if (value.is(Kind::Float)) return value;
  if (value.is_int_like()) return Value::floating(static_cast<double>(value.as_int()));
  if (value.is_str()) {
    double f;
    if (parse_py_float(value.str(), f)) return Value::floating(f);
    return d;
  }
  return d;
}

double py_round_float(double x, std::int64_t ndigits) {
  if (!std::isfinite(x) || x == 0) return x;
  if (ndigits > 330) return x;
  if (ndigits >= 0) {
    char buf[512];
    std::snprintf(buf, sizeof buf, "%.*f", static_cast<int>(ndigits), x);
    double r = std::strtod(buf, nullptr);
    if (r == 0) r = std::copysign(0.0, x);
    return r;
  }
  if (ndigits < -330) return std::copysign(0.0, x);
  double p = std::pow(10.0, static_cast<double>(-ndigits));
  double y = x / p;
  double z = std::nearbyint(y);
  return std::copysign(z * p, x);
}

Value do_round(const Value& value, const Value* precision, const Value* method) {
  std::string m = method ? to_str(*method) : "common";
  if (m != "common" && m != "ceil" && m != "floor")
    fail(PyError::FilterArgumentError, "method must be common, ceil or floor");
  std::int64_t prec = arg_int(precision, 0, "precision");
  if (m == "common") {
    if (value.is_undefined()) fail(PyError::TypeError, "type Undefined doesn't define __round__ method");
    if (value.is_int_like()) {
      if (prec >= 0) return Value::integer(value.as_int());
      if (prec < -18) return Value::integer(0);
      std::int64_t p = 1;
      for (std::int64_t i = 0; i < -prec; ++i) p *= 10;
      std::int64_t v = value.as_int();
      std::int64_t q = v / p, r = v % p;
      if (r < 0) {
        r += p;
        --q;
      }
      if (2 * r > p || (2 * r == p && (q & 1))) ++q;
      return Value::integer(checked_mul(q, p));
    }
    if (value.is(Kind::Float)) return Value::floating(py_round_float(value.as_float(), prec));
    fail(PyError::TypeError, "type " + type_name(value) + " doesn't define __round__ method");
  }
  if (value.is_undefined()) fail_undefined(value);
  if (!value.is_number()) fail(PyError::TypeError, "must be real number, not " + type_name(value));
  double scale = std::pow(10.0, static_cast<double>(prec));
  double v = value.as_float() * scale;
  double r = m == "ceil" ? std::ceil(v) : std::floor(v);
  return Value::floating(r / scale);
}

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

Value do_title(const Value& v) {
  Value s = soft_str(v);
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

Value do_indent(Interp& in, const Value& sv, const Value* width, const Value* first, const Value* blank) {
  if (!sv.is_str()) {
    if (sv.is_undefined()) fail_undefined(sv);
    // `s += "\n"` extends a list with characters; then s.splitlines() fails.
    if (sv.is(Kind::List)) fail(PyError::AttributeError, "'list' object has no attribute 'splitlines'");
    if (sv.is(Kind::Tuple)) fail(PyError::TypeError, "can only concatenate tuple (not \"str\") to tuple");
    fail(PyError::TypeError, "unsupported operand type(s) for +=: '" + type_name(sv) + "' and 'str'");
  }
  std::string indention;
  if (width != nullptr && width->is_str()) {
    indention = std::string(width->str());
  } else {
    std::int64_t w = arg_int(width, 4, "width");
    if (w > 4096) fail(PyError::LimitExceeded, "indent width too large");
    if (w > 0) indention.assign(static_cast<std::size_t>(w), ' ');
  }
  std::string s(sv.str());
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
  return Value::string(rv, sv.is_safe());
}

Value do_truncate(const Value& s, const Value* length_v, const Value* killwords, const Value* end_v,
                  const Value* leeway_v) {
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

// Lazy generator of do_map: applies a filter or an attribute getter to each item.
struct MapIter final : IterObj {
  Cursor src;
  bool prepared = false;
  Value input;
  Args args;
  AttrGetter getter;
  bool by_attr = false;
  int filter = -1;
  std::string filter_name;
  bool next(Interp& in, Value& out) override {
    if (!prepared) {
      prepared = true;
      if (!truthy(input)) {
        src = Cursor();
        return false;
      }
      if (args.pos.empty() && args.kwarg("attribute") != nullptr) {
        const Value* attribute = args.kwarg("attribute");
        const Value* dflt = args.kwarg("default");
        for (const auto& kv : args.kw)
          if (kv.first != "attribute" && kv.first != "default")
            fail(PyError::FilterArgumentError, "Unexpected keyword argument '" + kv.first + "'");
        getter = make_attrgetter(attribute, false, dflt);
        by_attr = true;
      } else {
        if (args.pos.empty()) fail(PyError::FilterArgumentError, "map requires a filter argument");
        filter_name = to_str(args.pos[0]);
        filter = filter_id(filter_name);
        args.pos.erase(args.pos.begin());
        if (filter < 0) fail(PyError::TemplateRuntimeError, "No filter named '" + filter_name + "'.");
      }
      src = in.iter(input);
    }
    Value item;
    if (!in.next(src, item)) return false;
    in.step();
    if (by_attr) {
      out = getter(in, item);
    } else {
      Args copy = args;
      out = in.call_filter(filter, filter_name, item, copy);
    }
    return true;
  }
};

// Lazy generator of select/reject/selectattr/rejectattr.
struct SelectIter final : IterObj {
  Cursor src;
  bool prepared = false;
  Value input;
  Args args;
  bool reject = false, lookup_attr = false;
  AttrGetter getter;
  int test = -1;
  bool use_test = false;
  std::string test_name;
  bool next(Interp& in, Value& out) override {
    if (!prepared) {
      prepared = true;
      if (!truthy(input)) return false;
      std::size_t off = 0;
      if (lookup_attr) {
        if (args.pos.empty()) fail(PyError::FilterArgumentError, "Missing parameter for attribute name");
        getter = make_attrgetter(&args.pos[0], false);
        off = 1;
      }
      if (args.pos.size() > off) {
        test_name = to_str(args.pos[off]);
        test = test_id(test_name);
        use_test = true;
        args.pos.erase(args.pos.begin(), args.pos.begin() + static_cast<std::ptrdiff_t>(off + 1));
      }
      src = in.iter(input);
    }
    Value item;
    while (in.next(src, item)) {
      in.step();
      Value probe = lookup_attr ? getter(in, item) : item;
      bool r;
      if (use_test) {
        Args copy = args;
        if (test < 0) fail(PyError::TemplateRuntimeError, "No test named '" + test_name + "'.");
        r = in.call_test(test, test_name, probe, copy);
      } else {
        r = truthy(probe);
      }
      if (r != reject) {
        out = std::move(item);
        return true;
      }
    }
    return false;
  }
};

struct UniqueIter final : IterObj {
  Cursor src;
  AttrGetter getter;
  std::vector<Value> seen;
  bool next(Interp& in, Value& out) override {
    Value item;
    while (in.next(src, item)) {
      Value key = getter(in, item);
      if (!is_hashable(key)) fail(PyError::TypeError, "unhashable type: '" + type_name(key) + "'");
      bool dup = false;
      in.step(seen.size() + 1);
      for (const auto& s : seen)
        if (py_eq(s, key)) {
          dup = true;
          break;
        }
      if (!dup) {
        seen.push_back(key);
        out = std::move(item);
        return true;
      }
    }
    return false;
  }
};

void stable_sort_by_key(Interp& in, std::vector<std::pair<Value, Value>>& items, bool reverse) {
  in.step(items.size() * 8);
  std::stable_sort(items.begin(), items.end(), [&](const auto& a, const auto& b) {
    return reverse ? py_order(b.first, a.first, CmpOp::Lt) : py_order(a.first, b.first, CmpOp::Lt);
  });
}

Value min_max(Interp& in, const Value& value, const Value* case_sensitive, const Value* attribute, bool is_max) {
  std::vector<Value> items = in.to_vector(value);
  if (items.empty()) return Value::undefined_hint("No aggregated item, sequence was empty.");
  AttrGetter g = make_attrgetter(attribute, !arg_true(case_sensitive, false));
  std::size_t best = 0;
  Value best_key = g(in, items[0]);
  for (std::size_t i = 1; i < items.size(); ++i) {
    Value k = g(in, items[i]);
    // CPython min_max: item < current (min) or item > current (max); the first extreme item wins.
    bool better = is_max ? py_order(k, best_key, CmpOp::Gt) : py_order(k, best_key, CmpOp::Lt);
    if (better) {
      best = i;
      best_key = std::move(k);
    }
  }
  return items[best];
}

Value py_sum(Interp& in, const Value& iterable, const Value* attribute, const Value* start) {
  Value acc = start ? *start : Value::integer(0);
  if (acc.is_str()) fail(PyError::TypeError, "sum() can't sum strings [use ''.join(seq) instead]");
  AttrGetter g = make_attrgetter(attribute, false);
  Cursor c = in.iter(iterable);
  Value item;
  while (in.next(c, item)) {
    in.step();
    Value v = attribute ? g(in, item) : item;
    acc = py_binary(BinOp::Add, acc, v);
  }
  return acc;
}

bool is_mapping(const Value& v) { return v.is(Kind::Dict); }

}  // namespace

int filter_id(const std::string& name) {
  static const std::unordered_map<std::string, int> table = [] {
    std::unordered_map<std::string, int> t;
    for (int i = 0; i < f_count_of_filters; ++i) t.emplace(kFilterNames[i], i);
    return t;
  }();
  auto it = table.find(name);
  return it == table.end() ? -1 : it->second;
}

Value apply_filter(Interp& in, int id, const Value& value, Args& a) {
  const Value* p[6];
  const char* fn = kFilterNames[id];
  switch (id) {
    case f_abs:
      bind_args(a, {}, p, "abs");
      if (value.is_int_like()) {
        std::int64_t v = value.as_int();
        return Value::integer(v < 0 ? -v : v);
      }
      if (value.is(Kind::Float)) return Value::floating(std::fabs(value.as_float()));
      fail(PyError::TypeError, "bad operand type for abs(): '" + type_name(value) + "'");
    case f_attr: {
      bind_args(a, {"name"}, p, "do_attr", 1);
      if (value.is_undefined()) fail_undefined(value);
      std::string name = to_str(*p[0]);
      if (!has_python_attr(value, name)) {
        auto info = Rc<UndefinedInfo>::adopt(new UndefinedInfo());
        info->obj_type = object_type_repr(value);
        std::string r;
        append_str_repr(r, name);
        info->name = r;
        return Value::undefined_info(std::move(info));
      }
      return in.getattr(value, name, attr_id(name));
    }
    case f_batch: {
      bind_args(a, {"linecount", "fill_with"}, p, "do_batch", 1);
      std::int64_t n = arg_int(p[0], 0, "linecount");
      std::vector<Value> out, tmp;
      Cursor c = in.iter(value);
      Value item;
      while (in.next(c, item)) {
        in.step();
        if (static_cast<std::int64_t>(tmp.size()) == n) {
          out.push_back(Value::new_list(std::move(tmp)));
          tmp.clear();
        }
        tmp.push_back(item);
      }
      if (!tmp.empty()) {
        if (p[1] != nullptr && !p[1]->is(Kind::None))
          while (static_cast<std::int64_t>(tmp.size()) < n) tmp.push_back(*p[1]);
        out.push_back(Value::new_list(std::move(tmp)));
      }
      return make_gen(std::move(out));
    }
    case f_capitalize:
      bind_args(a, {}, p, fn);
      return Value::string(py_capitalize(soft_str(value).str()));
    case f_center: {
      bind_args(a, {"width"}, p, "do_center");
      std::int64_t w = arg_int(p[0], 80, "width");
      if (w > 1 << 20) fail(PyError::LimitExceeded, "center width too large");
      return Value::string(pystr::center(soft_str(value).str(), w, ' '));
    }
    case f_count:
    case f_length:
      bind_args(a, {}, p, "len");
      if (value.is(Kind::Iterator)) fail(PyError::TypeError, "object of type '" + type_name(value) + "' has no len()");
      return Value::integer(static_cast<std::int64_t>(py_len(value)));
    case f_d:
    case f_default: {
      bind_args(a, {"default_value", "boolean"}, p, "do_default");
      bool use = value.is_undefined() || (arg_true(p[1], false) && !truthy(value));
      if (use) return p[0] ? *p[0] : Value::borrowed(std::string_view());
      return value;
    }
    case f_dictsort: {
      bind_args(a, {"case_sensitive", "by", "reverse"}, p, "do_dictsort");
      std::string by = p[1] ? to_str(*p[1]) : "key";
      if (by != "key" && by != "value")
        fail(PyError::FilterArgumentError, "You can only sort by either \"key\" or \"value\"");
      if (!value.is(Kind::Dict)) {
        if (value.is_undefined()) fail_undefined(value);
        fail(PyError::AttributeError, "'" + type_name(value) + "' object has no attribute 'items'");
      }
      bool cs = arg_true(p[0], false);
      std::vector<std::pair<Value, Value>> keyed;
      for (const auto& kv : value.dict().items) {
        Value item = Value::new_tuple({kv.first, kv.second});
        Value k = by == "key" ? kv.first : kv.second;
        keyed.emplace_back(cs ? k : ignore_case(k), item);
      }
      stable_sort_by_key(in, keyed, arg_true(p[2], false));
      std::vector<Value> out;
      for (auto& kv : keyed) out.push_back(std::move(kv.second));
      return Value::new_list(std::move(out));
    }
    case f_e:
    case f_escape:
    case f_forceescape:
      bind_args(a, {}, p, "escape");
      if (id != f_forceescape && value.is_str() && value.is_safe()) return value;
      return Value::string(html_escape(to_str(value)), true);
    case f_filesizeformat:
      bind_args(a, {"binary"}, p, "do_filesizeformat");
      return Value::string(filesizeformat(value, arg_true(p[0], false)));
    case f_first: {
      bind_args(a, {}, p, "do_first");
      Cursor c = in.iter(value);
      Value item;
      if (in.next(c, item)) return item;
      return Value::undefined_hint("No first item, sequence was empty.");
    }
    case f_float:
      bind_args(a, {"default"}, p, "do_float");
      return do_float(value, p[0]);
    case f_format: {
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
    case f_groupby: {
      bind_args(a, {"attribute", "default", "case_sensitive"}, p, "do_groupby", 1);
      bool cs = arg_true(p[2], false);
      AttrGetter key = make_attrgetter(p[0], !cs, p[1]);
      std::vector<std::pair<Value, Value>> keyed;
      for (auto& item : in.to_vector(value)) {
        Value k = key(in, item);
        keyed.emplace_back(std::move(k), std::move(item));
      }
      stable_sort_by_key(in, keyed, false);
      AttrGetter out_key = make_attrgetter(p[0], false, p[1]);
      std::vector<Value> groups;
      std::size_t i = 0;
      while (i < keyed.size()) {
        std::size_t j = i + 1;
        while (j < keyed.size() && py_eq(keyed[j].first, keyed[i].first)) ++j;
        std::vector<Value> members;
        for (std::size_t k = i; k < j; ++k) members.push_back(keyed[k].second);
        Value grouper = cs ? keyed[i].first : out_key(in, members[0]);
        Value t = Value::new_tuple({grouper, Value::new_list(std::move(members))});
        t.list().flavor = ListFlavor::GroupTuple;
        groups.push_back(std::move(t));
        i = j;
      }
      return Value::new_list(std::move(groups));
    }
    case f_indent:
      bind_args(a, {"width", "first", "blank"}, p, "do_indent");
      return do_indent(in, value, p[0], p[1], p[2]);
    case f_int:
      bind_args(a, {"default", "base"}, p, "do_int");
      return do_int(value, p[0], p[1]);
    case f_join: {
      bind_args(a, {"d", "attribute"}, p, "do_join");
      std::string d = p[0] ? to_str(*p[0]) : "";
      std::vector<Value> items = in.to_vector(value);
      AttrGetter g = make_attrgetter(p[1], false);
      std::string out;
      for (std::size_t i = 0; i < items.size(); ++i) {
        if (i) out += d;
        append_str(out, p[1] ? g(in, items[i]) : items[i]);
        if (out.size() > in.options().limits.max_output_bytes) in.check_output(out);
      }
      in.work(out.size());
      return Value::string(out);
    }
    case f_last: {
      bind_args(a, {}, p, "do_last");
      if (value.is_undefined()) return Value::undefined_hint("No last item, sequence was empty.");
      if (value.is_str()) {
        std::string_view s = value.str();
        if (s.empty()) return Value::undefined_hint("No last item, sequence was empty.");
        std::size_t i = s.size();
        prev_cp(s, i);
        return Value::substr(value, i, s.size() - i);
      }
      if (value.is_seq()) {
        const auto& items = value.list().items;
        if (items.empty()) return Value::undefined_hint("No last item, sequence was empty.");
        return items.back();
      }
      if (value.is(Kind::Dict)) {
        const auto& items = value.dict().items;
        if (items.empty()) return Value::undefined_hint("No last item, sequence was empty.");
        return items.back().first;
      }
      fail(PyError::TypeError, "'" + type_name(value) + "' object is not reversible");
    }
    case f_list:
      bind_args(a, {}, p, "list");
      return Value::new_list(in.to_vector(value));
    case f_lower:
      bind_args(a, {}, p, fn);
      return Value::string(py_lower(soft_str(value).str()));
    case f_upper:
      bind_args(a, {}, p, fn);
      return Value::string(py_upper(soft_str(value).str()));
    case f_items: {
      bind_args(a, {}, p, "do_items");
      if (value.is_undefined()) return make_gen({});
      if (!is_mapping(value)) fail(PyError::TypeError, "Can only get item pairs from a mapping.");
      std::vector<Value> out;
      for (const auto& kv : value.dict().items) out.push_back(Value::new_tuple({kv.first, kv.second}));
      return make_gen(std::move(out));
    }
    case f_map: {
      auto it = Rc<MapIter>::adopt(new MapIter());
      it->depth = value_depth(value) + 1;
      check_value_depth(it->depth);
      it->input = value;
      it->args = a;
      return Value::object(Kind::Iterator, it.get());
    }
    case f_min:
    case f_max:
      bind_args(a, {"case_sensitive", "attribute"}, p, id == f_min ? "do_min" : "do_max");
      return min_max(in, value, p[0], p[1], id == f_max);
    case f_pprint: {
      bind_args(a, {}, p, "do_pprint");
      std::string r = repr(value);
      if (cp_count(r) > 80) fail(PyError::Unsupported, "|pprint of values longer than 80 characters is not supported");
      return Value::string(r);
    }
    case f_random:
      fail(PyError::Unsupported, "|random is not deterministic; not supported");
    case f_reject:
    case f_select:
    case f_rejectattr:
    case f_selectattr: {
      auto it = Rc<SelectIter>::adopt(new SelectIter());
      it->depth = value_depth(value) + 1;
      check_value_depth(it->depth);
      it->input = value;
      it->args = a;
      it->reject = id == f_reject || id == f_rejectattr;
      it->lookup_attr = id == f_rejectattr || id == f_selectattr;
      return Value::object(Kind::Iterator, it.get());
    }
    case f_replace: {
      bind_args(a, {"old", "new", "count"}, p, "do_replace", 2);
      std::int64_t count = (p[2] == nullptr || p[2]->is(Kind::None)) ? -1 : arg_int(p[2], -1, "count");
      std::string s = to_str(value);
      std::string old_s = to_str(*p[0]), new_s = to_str(*p[1]);
      {
        std::int64_t hits = old_s.empty() ? static_cast<std::int64_t>(cp_count(s)) + 1
                                          : pystr::count(s, old_s, std::nullopt, std::nullopt);
        if (count >= 0) hits = std::min(hits, count);
        if (new_s.size() > old_s.size())
          check_text_size(s.size() + static_cast<std::size_t>(hits) * (new_s.size() - old_s.size()));
      }
      std::string r = pystr::replace(s, old_s, new_s, count);
      in.work(r.size());
      return Value::string(r);
    }
    case f_reverse: {
      bind_args(a, {}, p, "do_reverse");
      if (value.is_str())
        return Value::string(pystr::slice(value.str(), std::nullopt, std::nullopt, -1), value.is_safe());
      if (value.is_seq() || value.is(Kind::Dict) || value.is_undefined()) {
        std::vector<Value> items = in.to_vector(value);
        std::reverse(items.begin(), items.end());
        const char* t = value.is(Kind::Tuple)  ? "reversed"
                        : value.is(Kind::Dict) ? "dict_reversekeyiterator"
                                               : "list_reverseiterator";
        return make_gen(std::move(items), t);
      }
      if (value.is_number() || value.is(Kind::None) || value.is(Kind::Namespace) || value.is(Kind::Macro) ||
          value.is(Kind::Builtin) || value.is(Kind::Method) || value.is(Kind::Cycler) || value.is(Kind::Joiner))
        fail(PyError::FilterArgumentError, "argument must be iterable");
      std::vector<Value> items = in.to_vector(value);
      std::reverse(items.begin(), items.end());
      return Value::new_list(std::move(items));
    }
    case f_round:
      bind_args(a, {"precision", "method"}, p, "do_round");
      return do_round(value, p[0], p[1]);
    case f_safe:
      bind_args(a, {}, p, "do_mark_safe");
      if (value.is_str()) return value.as_safe();
      return Value::string(to_str(value), true);
    case f_slice: {
      bind_args(a, {"slices", "fill_with"}, p, "do_slice", 1);
      std::int64_t slices = arg_int(p[0], 1, "slices");
      if (slices == 0) fail(PyError::ZeroDivisionError, "integer division or modulo by zero");
      if (slices > 100000) fail(PyError::LimitExceeded, "|slice count too large");
      std::vector<Value> seq = in.to_vector(value);
      auto length = static_cast<std::int64_t>(seq.size());
      std::int64_t per = length / slices, extra = length % slices, offset = 0;
      if (per < 0 || extra < 0) fail(PyError::Unsupported, "negative |slice counts are not supported");
      std::vector<Value> out;
      for (std::int64_t k = 0; k < slices; ++k) {
        std::int64_t start = offset + k * per;
        if (k < extra) ++offset;
        std::int64_t end = offset + (k + 1) * per;
        std::vector<Value> tmp(seq.begin() + start, seq.begin() + end);
        if (p[1] != nullptr && !p[1]->is(Kind::None) && k >= extra) tmp.push_back(*p[1]);
        out.push_back(Value::new_list(std::move(tmp)));
      }
      return make_gen(std::move(out));
    }
    case f_sort: {
      bind_args(a, {"reverse", "case_sensitive", "attribute"}, p, "do_sort");
      bool lower = !arg_true(p[1], false);
      std::vector<std::pair<Value, Value>> keyed;
      for (auto& item : in.to_vector(value)) {
        Value k = multi_key(in, p[2], lower, item);
        keyed.emplace_back(std::move(k), std::move(item));
      }
      stable_sort_by_key(in, keyed, arg_true(p[0], false));
      std::vector<Value> out;
      for (auto& kv : keyed) out.push_back(std::move(kv.second));
      return Value::new_list(std::move(out));
    }
    case f_string:
      bind_args(a, {}, p, "soft_str");
      return soft_str(value);
    case f_striptags:
      fail(PyError::Unsupported, "|striptags is not supported by this engine");
    case f_sum:
      bind_args(a, {"attribute", "start"}, p, "do_sum");
      return py_sum(in, value, p[0], p[1]);
    case f_title:
      bind_args(a, {}, p, "do_title");
      return do_title(value);
    case f_trim: {
      bind_args(a, {"chars"}, p, "do_trim");
      Value s = soft_str(value);
      const std::string_view* chars = nullptr;
      std::string_view cv;
      if (p[0] != nullptr && !p[0]->is(Kind::None)) {
        if (!p[0]->is_str()) fail(PyError::TypeError, "strip arg must be None or str");
        cv = p[0]->str();
        chars = &cv;
      }
      return Value::view_of(s, pystr::strip(s.str(), chars, true, true));
    }
    case f_truncate:
      bind_args(a, {"length", "killwords", "end", "leeway"}, p, "do_truncate");
      return do_truncate(value, p[0], p[1], p[2], p[3]);
    case f_unique: {
      bind_args(a, {"case_sensitive", "attribute"}, p, "do_unique");
      auto it = Rc<UniqueIter>::adopt(new UniqueIter());
      it->depth = value_depth(value) + 1;
      check_value_depth(it->depth);
      it->src = in.iter(value);
      it->getter = make_attrgetter(p[1], !arg_true(p[0], false));
      return Value::object(Kind::Iterator, it.get());
    }
    case f_urlencode: {
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
    case f_urlize:
      fail(PyError::Unsupported, "|urlize is not supported by this engine");
    case f_wordcount: {
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
    case f_wordwrap:
      fail(PyError::Unsupported, "|wordwrap is not supported by this engine");
    case f_xmlattr: {
      bind_args(a, {"autospace"}, p, "do_xmlattr");
      if (!value.is(Kind::Dict))
        fail(PyError::AttributeError, "'" + type_name(value) + "' object has no attribute 'items'");
      std::string rv;
      bool first = true;
      for (const auto& kv : value.dict().items) {
        if (kv.second.is(Kind::None) || kv.second.is_undefined()) continue;
        std::string key = to_str(kv.first);
        for (char c : key)
          if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == '/' || c == '>' ||
              c == '=')
            fail(PyError::ValueError, "Invalid character in attribute name: " + repr(kv.first));
        if (!first) rv += " ";
        first = false;
        rv += html_escape(key) + "=\"" +
              (kv.second.is_str() && kv.second.is_safe() ? std::string(kv.second.str())
                                                         : html_escape(to_str(kv.second))) +
              "\"";
      }
      if (arg_true(p[0], true) && !rv.empty()) rv = " " + rv;
      return Value::string(rv);
    }
    case f_tojson: {
      // transformers: tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False)
      bind_args(a, {"ensure_ascii", "indent", "separators", "sort_keys"}, p, "tojson");
      Value none = Value::none();
      std::string r =
          json_dumps(value, arg_true(p[0], false), p[1] ? *p[1] : none, p[2] ? *p[2] : none, arg_true(p[3], false));
      in.work(r.size());
      return Value::string(r);
    }
    default:
      break;
  }
  fail(PyError::RuntimeError, "internal error: unknown filter id");
}

}  // namespace openrecipes::rows::template_engine
