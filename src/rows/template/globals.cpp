// Template globals: Jinja2's sandboxed range (MAX_RANGE 100000), dict, namespace, cycler, joiner, lipsum, and
// transformers' raise_exception(message) and strftime_now(format) (pinned to RenderOptions::today, SPEC §1.2).
#include <string>

#include "rows/template/builtin_ids.h"
#include "rows/template/failure.h"
#include "rows/template/interp.h"
#include "rows/template/pyformat.h"
#include "rows/template/pyops.h"

namespace openrecipes::rows::template_engine {

namespace {

constexpr std::int64_t kMaxRange = 100000;  // jinja2.sandbox.MAX_RANGE

std::int64_t range_arg(const Value& v) {
  if (!v.is_int_like()) fail(PyError::TypeError, "'" + type_name(v) + "' object cannot be interpreted as an integer");
  return v.as_int();
}

Value make_range(Interp& in, const Args& a) {
  if (!a.kw.empty()) fail(PyError::TypeError, "range() takes no keyword arguments");
  if (a.pos.empty()) fail(PyError::TypeError, "range expected at least 1 argument, got 0");
  if (a.pos.size() > 3)
    fail(PyError::TypeError, "range expected at most 3 arguments, got " + std::to_string(a.pos.size()));
  std::int64_t start = 0, stop, step = 1;
  if (a.pos.size() == 1) {
    stop = range_arg(a.pos[0]);
  } else {
    start = range_arg(a.pos[0]);
    stop = range_arg(a.pos[1]);
    if (a.pos.size() == 3) step = range_arg(a.pos[2]);
  }
  if (step == 0) fail(PyError::ValueError, "range() arg 3 must not be zero");
  // len(range) computed without overflow (long double holds the span of two int64 exactly enough here).
  long double span = step > 0 ? static_cast<long double>(stop) - start : static_cast<long double>(start) - stop;
  long double st = step > 0 ? static_cast<long double>(step) : -static_cast<long double>(step);
  long double len = span <= 0 ? 0 : (span - 1) / st + 1;
  if (len > kMaxRange)
    fail(PyError::OverflowError, "Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).");
  auto n = static_cast<std::int64_t>(len);
  std::vector<Value> items;
  items.reserve(static_cast<std::size_t>(n));
  in.step(static_cast<std::uint64_t>(n));
  for (std::int64_t i = 0; i < n; ++i) items.push_back(Value::integer(start + i * step));
  Value r = Value::new_list(std::move(items));
  r.list().flavor = ListFlavor::Range;
  r.list().range_start = start;
  r.list().range_stop = stop;
  r.list().range_step = step;
  return r;
}

void dict_update(Interp& in, DictObj& d, const Args& a, const char* fn) {
  if (a.pos.size() > 1)
    fail(PyError::TypeError, std::string(fn) + " expected at most 1 argument, got " + std::to_string(a.pos.size()));
  if (!a.pos.empty()) {
    const Value& src = a.pos[0];
    if (src.is(Kind::Dict)) {
      for (const auto& kv : src.dict().items) d.set(kv.first, kv.second);
    } else {
      std::vector<Value> items = in.to_vector(src);
      for (std::size_t i = 0; i < items.size(); ++i) {
        if (!(items[i].is_seq() || items[i].is_str() || items[i].is(Kind::Dict) || items[i].is(Kind::Iterator)))
          fail(PyError::TypeError,
               "cannot convert dictionary update sequence element #" + std::to_string(i) + " to a sequence");
        std::vector<Value> kv = in.to_vector(items[i]);
        if (kv.size() != 2)
          fail(PyError::ValueError, "dictionary update sequence element #" + std::to_string(i) + " has length " +
                                        std::to_string(kv.size()) + "; 2 is required");
        if (!is_hashable(kv[0])) fail(PyError::TypeError, "unhashable type: '" + type_name(kv[0]) + "'");
        d.set(kv[0], kv[1]);
      }
    }
  }
  for (const auto& kv : a.kw) d.set(Value::string(kv.first), kv.second);
}

}  // namespace

bool lookup_global(std::string_view name, Value& out) {
  static const struct {
    const char* name;
    GlobalId id;
  } table[] = {{"range", g_range},
               {"dict", g_dict},
               {"lipsum", g_lipsum},
               {"cycler", g_cycler},
               {"joiner", g_joiner},
               {"namespace", g_namespace},
               {"raise_exception", g_raise_exception},
               {"strftime_now", g_strftime_now}};
  for (const auto& e : table)
    if (name == e.name) {
      out = Value::builtin(e.id);
      return true;
    }
  return false;
}

Value call_global(Interp& in, int id, Args& a) {
  switch (id) {
    case g_range:
      return make_range(in, a);
    case g_dict: {
      Value d = Value::new_dict();
      dict_update(in, d.dict(), a, "dict");
      return d;
    }
    case g_namespace: {
      Value d = Value::new_dict();
      dict_update(in, d.dict(), a, "dict");
      auto ns = Rc<NamespaceObj>::adopt(new NamespaceObj());
      in.register_namespace(ns.get());
      for (auto& kv : d.dict().items) {
        if (!kv.first.is_str()) fail(PyError::Unsupported, "namespace() keys that are not strings are not supported");
        ns->set(kv.first.str(), kv.second);
      }
      return Value::object(Kind::Namespace, ns.get());
    }
    case g_cycler: {
      if (!a.kw.empty())
        fail(PyError::TypeError, "Cycler.__init__() got an unexpected keyword argument '" + a.kw[0].first + "'");
      if (a.pos.empty()) fail(PyError::RuntimeError, "at least one item has to be provided");
      auto c = Rc<CyclerObj>::adopt(new CyclerObj());
      c->items = a.pos;
      return Value::object(Kind::Cycler, c.get());
    }
    case g_joiner: {
      const Value* p[1];
      bind_args(a, {"sep"}, p, "Joiner.__init__");
      auto j = Rc<JoinerObj>::adopt(new JoinerObj());
      j->sep = p[0] ? *p[0] : Value::borrowed(", ");
      return Value::object(Kind::Joiner, j.get());
    }
    case g_lipsum:
      fail(PyError::Unsupported, "lipsum() is random; not supported");
    case g_raise_exception: {
      const Value* p[1];
      bind_args(a, {"message"}, p, "raise_exception", 1);
      fail(PyError::TemplateError, to_str(*p[0]));
    }
    case g_strftime_now: {
      const Value* p[1];
      bind_args(a, {"format"}, p, "strftime_now", 1);
      if (!p[0]->is_str()) fail(PyError::TypeError, "strftime() argument 1 must be str, not " + type_name(*p[0]));
      return Value::string(strftime_date(in.options().today, p[0]->str()));
    }
    default:
      break;
  }
  fail(PyError::RuntimeError, "internal error: unknown global");
}

}  // namespace openrecipes::rows::template_engine
