// Calls in the evaluator (jinja2/runtime.py Macro.__call__ and Context.call): argument evaluation, builtins,
// bound methods, joiner/cycler objects, recursive loop calls and macros with caller/varargs/kwargs, under the
// call depth limit.
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include "rows/template/failure.h"
#include "rows/template/interp.h"
#include "rows/template/pyformat.h"
#include "rows/template/pyops.h"
#include "rows/template/pystr.h"
#include "rows/template/unicode.h"

namespace openrecipes::rows::template_engine {

namespace {

struct CallDepth {
  std::size_t& depth;
  CallDepth(std::size_t& d, std::size_t max) : depth(d) {
    if (++depth > max)
      fail(PyError::LimitExceeded, "macro/call nesting deeper than max_depth (" + std::to_string(max) + ")");
  }
  ~CallDepth() { --depth; }
};

}  // namespace
// ---------------------------------------------------------------------------------------------------------
// Calls

void Interp::eval_args(const CallArgs& a, Args& out) {
  out.pos.reserve(a.args.size());
  for (const auto& x : a.args) out.pos.push_back(eval(*x));
  for (const auto& kv : a.kwargs) out.kw.emplace_back(kv.first, eval(*kv.second));
  if (a.dyn_args) {
    Value v = eval(*a.dyn_args);
    if (!v.is_seq() && !v.is(Kind::Iterator) && !v.is_str() && !v.is(Kind::Dict) && !v.is_undefined())
      fail(PyError::TypeError, "argument after * must be an iterable, not " + type_name(v));
    for (auto& x : to_vector(v)) out.pos.push_back(std::move(x));
  }
  if (a.dyn_kwargs) {
    Value v = eval(*a.dyn_kwargs);
    if (!v.is(Kind::Dict)) fail(PyError::TypeError, "argument after ** must be a mapping, not " + type_name(v));
    for (const auto& kv : v.dict().items) {
      if (!kv.first.is_str()) fail(PyError::TypeError, "keywords must be strings");
      std::string k(kv.first.str());
      if (out.kwarg(k) != nullptr) fail(PyError::TypeError, "got multiple values for keyword argument '" + k + "'");
      out.kw.emplace_back(std::move(k), kv.second);
    }
  }
}

Value Interp::eval_call(const CallExpr& c) {
  if (c.fn->kind == ExprKind::Getattr) {
    const auto& g = static_cast<const GetattrExpr&>(*c.fn);
    Value obj = eval(*g.obj);
    if (obj.is_undefined()) {
      line_ = g.line;
      fail_undefined(obj);
    }
    Args args;
    Value out;
    // Methods of builtin types never run template code on lookup, so evaluating the arguments first is
    // indistinguishable from Python's order.
    if (obj.is_str() || obj.is_seq() || obj.is(Kind::Dict)) {
      eval_args(c.args, args);
      line_ = c.line;
      col_ = c.col;
      if (call_method_fast(*this, obj, g.attr, g.attr_id, args, out)) return out;
      Value callee = getattr(obj, g.attr, g.attr_id);
      return call(callee, args);
    }
    Value callee = getattr(obj, g.attr, g.attr_id);
    eval_args(c.args, args);
    line_ = c.line;
    col_ = c.col;
    return call(callee, args);
  }
  Value callee = eval(*c.fn);
  Args args;
  eval_args(c.args, args);
  line_ = c.line;
  col_ = c.col;
  return call(callee, args);
}

Value Interp::call(const Value& callee, Args& args) {
  step();
  switch (callee.kind()) {
    case Kind::Missing:
    case Kind::Undefined:
      fail_undefined(callee);
    case Kind::Macro:
      return call_macro(*static_cast<MacroObj*>(callee.obj()), args);
    case Kind::Builtin:
      return call_global(*this, callee.builtin_id(), args);
    case Kind::Method:
      return call_bound_method(*this, *static_cast<MethodObj*>(callee.obj()), args);
    case Kind::Joiner: {
      if (!args.pos.empty() || !args.kw.empty())
        fail(PyError::TypeError, "Joiner.__call__() takes 1 positional argument but " +
                                     std::to_string(args.pos.size() + 1) + " were given");
      auto& j = *static_cast<JoinerObj*>(callee.obj());
      if (!j.used) {
        j.used = true;
        return Value::borrowed(std::string_view());
      }
      return j.sep;
    }
    case Kind::Loop: {
      auto& l = *static_cast<LoopObj*>(callee.obj());
      if (l.recursive == nullptr)
        fail(PyError::TypeError, "The loop must have the 'recursive' marker to be called recursively.");
      if (args.pos.size() != 1 || !args.kw.empty())
        fail(PyError::TypeError, "LoopContext.__call__() takes 2 positional arguments but " +
                                     std::to_string(args.pos.size() + 1) + " were given");
      CallDepth depth(call_depth_, options_.limits.max_depth);
      check_stack();
      const ForStmt& f = *l.recursive;
      return Value::string(run_recursive_loop(f, l.recurse_parent, args.pos[0], l.depth0 + 1));
    }
    default:
      fail(PyError::TypeError, "'" + type_name(callee) + "' object is not callable");
  }
}

Value Interp::call_macro(MacroObj& m, Args& args) {
  const MacroDef& d = *m.def;
  const std::string mname = m.is_caller ? "None" : "'" + d.name + "'";
  CallDepth depth(call_depth_, options_.limits.max_depth);
  check_stack();
  auto act = Rc<Activation>::adopt(new Activation());
  act->parent = m.closure;
  act->slots.assign(d.fn.slot_count, Value::missing());
  const std::size_t n = d.arg_names.size();
  const std::size_t npos = std::min(args.pos.size(), n);
  for (std::size_t i = 0; i < npos; ++i) act->slots[d.arg_slots[i]] = args.pos[i];
  std::vector<bool> used(args.kw.size(), false);
  auto pop_kw = [&](std::string_view name) -> const Value* {
    for (std::size_t k = 0; k < args.kw.size(); ++k)
      if (!used[k] && args.kw[k].first == name) {
        used[k] = true;
        return &args.kw[k].second;
      }
    return nullptr;
  };
  bool found_caller = false;
  if (npos != n) {
    for (std::size_t i = npos; i < n; ++i) {
      const Value* v = pop_kw(d.arg_names[i]);
      if (d.arg_names[i] == "caller") found_caller = true;
      if (v != nullptr) act->slots[d.arg_slots[i]] = *v;
    }
  } else {
    found_caller = d.explicit_caller >= 0;
  }
  if (d.accesses_caller && !found_caller) {
    const Value* c = pop_kw("caller");
    if (c == nullptr || c->is(Kind::None)) {
      auto info = Rc<UndefinedInfo>::adopt(new UndefinedInfo());
      info->hint = "No caller defined";
      act->slots[d.caller_slot] = Value::undefined_info(std::move(info));
    } else {
      act->slots[d.caller_slot] = *c;
    }
  }
  if (d.accesses_kwargs) {
    Value kw = Value::new_dict();
    for (std::size_t k = 0; k < args.kw.size(); ++k)
      if (!used[k]) kw.dict().set(Value::string(args.kw[k].first), args.kw[k].second);
    act->slots[d.kwargs_slot] = std::move(kw);
  } else {
    for (std::size_t k = 0; k < args.kw.size(); ++k) {
      if (used[k]) continue;
      for (std::size_t j = k; j < args.kw.size(); ++j)
        if (!used[j] && args.kw[j].first == "caller")
          fail(PyError::TypeError, "macro " + mname +
                                       " was invoked with two values for the special caller argument. This is most "
                                       "likely a bug.");
      fail(PyError::TypeError, "macro " + mname + " takes no keyword argument '" + args.kw[k].first + "'");
    }
  }
  if (d.accesses_varargs) {
    std::vector<Value> rest;
    for (std::size_t i = n; i < args.pos.size(); ++i) rest.push_back(args.pos[i]);
    act->slots[d.varargs_slot] = Value::new_tuple(std::move(rest));
  } else if (args.pos.size() > n) {
    fail(PyError::TypeError, "macro " + mname + " takes not more than " + std::to_string(n) + " argument(s)");
  }

  std::string buf;
  ActivationScope scope(*this, act.get(), &buf);
  enter_frame(d.frame);
  const std::size_t first_default = n - d.defaults.size();
  for (std::size_t i = 0; i < n; ++i) {
    Value& s = act->slots[d.arg_slots[i]];
    if (!s.is(Kind::Missing)) continue;
    if (i >= first_default) {
      s = eval(*d.defaults[i - first_default]);
    } else {
      auto info = Rc<UndefinedInfo>::adopt(new UndefinedInfo());
      info->hint = "parameter '" + d.arg_names[i] + "' was not provided";
      s = Value::undefined_info(std::move(info));
    }
  }
  exec_body(d.body);
  return Value::string(buf);
}

}  // namespace openrecipes::rows::template_engine
