// Evaluates a compiled template with Jinja2's runtime semantics (jinja2/compiler.py generated code and
// jinja2/runtime.py): frames and slots, for/else with loop controls, LoopContext, macros and call blocks,
// filter/set blocks, Python operators, and the sandbox limits (steps, output, call depth, native stack).
#include "rows/template/interp.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include "rows/template/failure.h"
#include "rows/template/pyformat.h"
#include "rows/template/pyops.h"
#include "rows/template/pystr.h"
#include "rows/template/unicode.h"

namespace openrecipes::rows::template_engine {

namespace {
constexpr std::uintptr_t kMaxStackBytes = 1u << 20;  // native recursion bound (deep macro/expression nesting)
}

const Value* Args::kwarg(std::string_view name) const {
  for (const auto& kv : kw)
    if (kv.first == name) return &kv.second;
  return nullptr;
}

void bind_args(const Args& a, std::initializer_list<const char*> names, const Value** out, const char* fn_name,
               std::size_t required) {
  std::size_t n = names.size();
  for (std::size_t i = 0; i < n; ++i) out[i] = nullptr;
  if (a.pos.size() > n)
    fail(PyError::TypeError, std::string(fn_name) + "() takes " + std::to_string(n) + " positional arguments but " +
                                 std::to_string(a.pos.size()) + " were given");
  for (std::size_t i = 0; i < a.pos.size(); ++i) out[i] = &a.pos[i];
  for (const auto& kv : a.kw) {
    std::size_t i = 0;
    for (const char* nm : names) {
      if (kv.first == nm) break;
      ++i;
    }
    if (i == n)
      fail(PyError::TypeError, std::string(fn_name) + "() got an unexpected keyword argument '" + kv.first + "'");
    if (out[i] != nullptr)
      fail(PyError::TypeError, std::string(fn_name) + "() got multiple values for argument '" + kv.first + "'");
    out[i] = &kv.second;
  }
  for (std::size_t i = 0; i < required; ++i)
    if (out[i] == nullptr)
      fail(PyError::TypeError, std::string(fn_name) + "() missing required argument: '" + *(names.begin() + i) + "'");
}

Interp::Interp(const Program& prog, const RenderOptions& options, VarSource& vars)
    : prog_(prog), options_(options), vars_(vars), max_steps_(options.limits.max_steps) {}

void Interp::fail_steps() const {
  fail(PyError::LimitExceeded, "the template ran more than max_steps (" + std::to_string(max_steps_) +
                                   ") evaluation steps (loop iterations, expressions, items processed)");
}

void Interp::check_stack() {
  char probe;
  auto here = reinterpret_cast<std::uintptr_t>(&probe);
  if (stack_base_ > here && stack_base_ - here > kMaxStackBytes)
    fail(PyError::LimitExceeded, "the template nests too deeply (more than " + std::to_string(kMaxStackBytes >> 10) +
                                     " KiB of native stack; max_depth bounds macro calls and source nesting)");
}

void Interp::check_output(const std::string& out) const {
  if (out.size() > options_.limits.max_output_bytes)
    fail(PyError::LimitExceeded,
         "the rendered text exceeds max_output_bytes (" + std::to_string(options_.limits.max_output_bytes) + " bytes)");
}

std::string Interp::run() {
  char probe;
  stack_base_ = reinterpret_cast<std::uintptr_t>(&probe);
  auto root = Rc<Activation>::adopt(new Activation());
  root->slots.assign(prog_.root_fn.slot_count, Value::missing());
  std::string out;
  act_ = root.get();
  out_ = &out;
  try {
    enter_frame(prog_.root_frame);
    exec_body(prog_.body);
  } catch (Failure& f) {
    if (f.line == 0) {
      f.line = line_;
      f.col = col_;
    }
    release_all(*root);
    throw;
  }
  release_all(*root);
  return out;
}

void Interp::register_namespace(NamespaceObj* ns) {
  charge_alloc(sizeof(NamespaceObj));
  namespaces_.push_back(Rc<NamespaceObj>::share(ns));
}

void Interp::release_all(Activation& root) {
  // Break every reference cycle the render may have made (macro closures, namespaces holding each other) and
  // keep destruction flat: namespaces are emptied while the registry still holds them all.
  root.slots.clear();
  toplevel_vars_.clear();
  resolved_.clear();
  for (auto& ns : namespaces_) ns->attrs.clear();
  namespaces_.clear();
}

// ---------------------------------------------------------------------------------------------------------
// Variables

Value& Interp::slot(VarRef r) {
  Activation* a = act_;
  for (std::uint16_t h = 0; h < r.hops; ++h) a = a->parent.get();
  return a->slots[r.slot];
}

Value Interp::resolve(const std::string& name) {
  for (const auto& kv : toplevel_vars_)
    if (kv.first == name) return kv.second;
  for (const auto& kv : resolved_)
    if (kv.first == name) return kv.second;
  Value v;
  if (vars_.lookup(name, v)) {
    resolved_.emplace_back(name, v);
    return v;
  }
  if (lookup_global(name, v)) return v;
  return Value::missing();
}

void Interp::set_toplevel(const std::string& name, const Value& v) {
  for (auto& kv : toplevel_vars_)
    if (kv.first == name) {
      kv.second = v;
      return;
    }
  toplevel_vars_.emplace_back(name, v);
}

void Interp::enter_frame(const FrameInfo& f) {
  for (const FrameLoad& l : f.loads) {
    switch (l.kind) {
      case LoadKind::Param:
        break;
      case LoadKind::Resolve:
        act_->slots[l.slot] = resolve(l.name);
        break;
      case LoadKind::Alias: {
        Value v = slot(l.alias);
        act_->slots[l.slot] = std::move(v);
        break;
      }
      case LoadKind::Undefined:
        act_->slots[l.slot] = Value::missing();
        break;
    }
  }
}

void Interp::leave_frame(const FrameInfo& f) {
  for (const FrameLoad& l : f.loads) act_->slots[l.slot] = Value::missing();
}

// ---------------------------------------------------------------------------------------------------------
// Iteration

Cursor Interp::iter(const Value& v) {
  Cursor c;
  switch (v.kind()) {
    case Kind::Missing:
    case Kind::Undefined:
      c.mode = Cursor::Mode::Empty;
      break;
    case Kind::List:
    case Kind::Tuple:
      c.mode = Cursor::Mode::Seq;
      break;
    case Kind::Dict:
      c.mode = Cursor::Mode::DictKeys;
      break;
    case Kind::Str:
      c.mode = Cursor::Mode::Str;
      break;
    case Kind::Iterator:
      c.mode = Cursor::Mode::Iter;
      break;
    case Kind::Loop:
      fail(PyError::Unsupported, "iterating over a loop object is not supported");
    default:
      fail(PyError::TypeError, "'" + type_name(v) + "' object is not iterable");
  }
  c.src = v;
  return c;
}

bool Interp::next(Cursor& c, Value& out) {
  switch (c.mode) {
    case Cursor::Mode::Empty:
      return false;
    case Cursor::Mode::Seq: {
      const auto& items = c.src.list().items;
      if (c.pos >= items.size()) return false;
      out = items[c.pos++];
      return true;
    }
    case Cursor::Mode::DictKeys: {
      const auto& items = c.src.dict().items;
      if (c.pos >= items.size()) return false;
      out = items[c.pos++].first;
      return true;
    }
    case Cursor::Mode::Str: {
      std::string_view s = c.src.str();
      if (c.pos >= s.size()) return false;
      std::size_t start = c.pos;
      next_cp(s, c.pos);
      out = Value::substr(c.src, start, c.pos - start);
      if (out.is_safe()) out = Value::string(out.str());  // iterating a Markup yields plain str
      return true;
    }
    case Cursor::Mode::Iter:
      return static_cast<IterObj*>(c.src.obj())->next(*this, out);
  }
  return false;
}

std::vector<Value> Interp::to_vector(const Value& v) {
  if (v.is_seq()) {
    step(v.list().items.size());
    return v.list().items;
  }
  std::vector<Value> out;
  Cursor c = iter(v);
  Value item;
  while (next(c, item)) {
    step();
    out.push_back(item);
  }
  charge_alloc(out.size() * sizeof(Value));
  return out;
}

std::int64_t Interp::loop_length(LoopObj& l) {
  if (l.length >= 0) return l.length;
  if (has_len(l.iterable) && !l.iterable.is(Kind::Loop)) {
    l.length = static_cast<std::int64_t>(py_len(l.iterable));
    return l.length;
  }
  std::vector<Value> rest;
  Value item;
  while (next(l.cursor, item)) {
    step();
    rest.push_back(item);
  }
  std::int64_t n = static_cast<std::int64_t>(rest.size()) + l.index0 + 1 + (l.after.is(Kind::Missing) ? 0 : 1);
  l.cursor = Cursor();
  l.cursor.mode = Cursor::Mode::Seq;
  l.cursor.src = Value::new_list(std::move(rest));
  l.length = n;
  return n;
}

std::int64_t loop_length(Interp* in, LoopObj& loop) {
  if (in != nullptr) return in->loop_length(loop);
  if (loop.length >= 0) return loop.length;
  if (has_len(loop.iterable) && !loop.iterable.is(Kind::Loop)) {
    loop.length = static_cast<std::int64_t>(py_len(loop.iterable));
    return loop.length;
  }
  fail(PyError::Unsupported, "the length of this loop is not known here");
}

namespace {

bool loop_next(Interp& in, LoopObj& l, Value& out) {
  if (!l.after.is(Kind::Missing)) {
    out = std::move(l.after);
    l.after = Value::missing();
  } else if (!in.next(l.cursor, out)) {
    return false;
  }
  ++l.index0;
  l.before = std::move(l.current);
  l.current = out;
  return true;
}

}  // namespace

/// The generator Jinja2 builds for `for x in seq if cond`: runs in its own function activation.
struct FilterLoopIter final : IterObj {
  const ForStmt* f = nullptr;
  Cursor src;
  Rc<Activation> act;
  bool started = false;

  bool next(Interp& in, Value& out) override {
    Activation* saved = in.act_;
    struct Restore {
      Interp& in;
      Activation* saved;
      ~Restore() { in.act_ = saved; }
    } restore{in, saved};
    if (!started) {
      started = true;
      in.act_ = act.get();
      in.enter_frame(f->test_frame);
      in.act_ = saved;
    }
    Value item;
    while (in.next(src, item)) {
      in.step();
      in.assign_test_target(*f, *f->target, item, *act);
      in.act_ = act.get();
      bool keep = truthy(in.eval(*f->filter));
      in.act_ = saved;
      if (keep) {
        out = std::move(item);
        return true;
      }
    }
    return false;
  }
};

void Interp::assign_test_target(const ForStmt& f, const Expr& target, const Value& v, Activation& test_act) {
  if (target.kind == ExprKind::Name) {
    const auto& n = static_cast<const NameExpr&>(target);
    for (const auto& kv : f.test_target)
      if (kv.first == n.name) {
        test_act.slots[kv.second] = v;
        return;
      }
    return;
  }
  const auto& seq = static_cast<const SeqExpr&>(target);
  std::vector<Value> items = to_vector(v);
  if (items.size() < seq.items.size())
    fail(PyError::ValueError, "not enough values to unpack (expected " + std::to_string(seq.items.size()) + ", got " +
                                  std::to_string(items.size()) + ")");
  if (items.size() > seq.items.size())
    fail(PyError::ValueError, "too many values to unpack (expected " + std::to_string(seq.items.size()) + ")");
  for (std::size_t i = 0; i < items.size(); ++i) assign_test_target(f, *seq.items[i], items[i], test_act);
}

// ---------------------------------------------------------------------------------------------------------
// Statements

Interp::Flow Interp::exec_body(const Body& b) {
  for (const auto& s : b) {
    Flow fl = exec(*s);
    if (fl != Flow::Normal) return fl;
  }
  return Flow::Normal;
}

void Interp::exec_output(const OutputStmt& o) {
  for (const auto& part : o.parts) {
    if (!part.expr) {
      out_->append(part.data);
    } else if (part.expr->foldable && part.expr->kind != ExprKind::Const) {
      // Jinja2 folds a constant output expression at compile time (any value, then str()).
      Value v;
      if (!try_fold(*part.expr, v, false)) v = eval_node(*part.expr);
      append_str(*out_, v);
    } else {
      Value v = eval(*part.expr);
      append_str(*out_, v);
    }
    check_output(*out_);
  }
}

void Interp::exec_assign(const Expr& target, Value v, bool toplevel) {
  switch (target.kind) {
    case ExprKind::Name: {
      const auto& n = static_cast<const NameExpr&>(target);
      if (toplevel) set_toplevel(n.name, v);
      slot(n.ref) = std::move(v);
      return;
    }
    case ExprKind::Tuple:
    case ExprKind::List: {
      const auto& seq = static_cast<const SeqExpr&>(target);
      std::vector<Value> items = to_vector(v);
      if (items.size() < seq.items.size())
        fail(PyError::ValueError, "not enough values to unpack (expected " + std::to_string(seq.items.size()) +
                                      ", got " + std::to_string(items.size()) + ")");
      if (items.size() > seq.items.size())
        fail(PyError::ValueError, "too many values to unpack (expected " + std::to_string(seq.items.size()) + ")");
      for (std::size_t i = 0; i < items.size(); ++i) exec_assign(*seq.items[i], std::move(items[i]), toplevel);
      return;
    }
    case ExprKind::NSRef: {
      const auto& n = static_cast<const NSRefExpr&>(target);
      Value& ns = slot(n.ref);
      if (!ns.is(Kind::Namespace))
        fail(PyError::TemplateRuntimeError, "cannot assign attribute on non-namespace object");
      ns.ns().set(n.attr, std::move(v));
      return;
    }
    default:
      fail(PyError::TemplateSyntaxError, "can't assign to this expression");
  }
}

std::string Interp::capture_body(const Body& b, const FrameInfo& frame, Flow* flow_out) {
  std::string buf;
  std::string* saved = out_;
  out_ = &buf;
  struct Restore {
    Interp& in;
    std::string* saved;
    ~Restore() { in.out_ = saved; }
  } restore{*this, saved};
  enter_frame(frame);
  Flow fl = exec_body(b);
  if (flow_out != nullptr) *flow_out = fl;
  return buf;
}

Interp::Flow Interp::run_loop(const ForStmt& f, const Value& iterable, std::int64_t depth0) {
  Cursor cur;
  Value iter_value = iterable;
  if (f.filter) {
    auto it = Rc<FilterLoopIter>::adopt(new FilterLoopIter());
    it->depth = value_depth(iterable) + 1;
    check_value_depth(it->depth);
    it->f = &f;
    it->src = iter(iterable);
    it->act = Rc<Activation>::adopt(new Activation());
    it->act->parent = f.recursive ? act_->parent : Rc<Activation>::share(act_);
    it->act->slots.assign(f.test_fn.slot_count, Value::missing());
    iter_value = Value::object(Kind::Iterator, it.get());
    cur = iter(iter_value);
  } else {
    cur = iter(iterable);
  }
  Rc<LoopObj> loop;
  if (f.extended) {
    loop = Rc<LoopObj>::adopt(new LoopObj());
    loop->iterable = iter_value;
    loop->cursor = std::move(cur);
    loop->depth0 = depth0;
    if (f.recursive) {
      loop->recursive = &f;
      loop->recurse_parent = act_->parent;
    }
  }
  bool completed = false;
  Value item;
  for (;;) {
    step();
    bool has = f.extended ? loop_next(*this, *loop, item) : next(cur, item);
    if (!has) break;
    exec_assign(*f.target, item, false);
    if (f.extended) act_->slots[f.loop_slot] = Value::object(Kind::Loop, loop.get());
    enter_frame(f.body_frame);
    Flow fl = exec_body(f.body);
    if (fl == Flow::Break) break;
    if (fl == Flow::Continue) continue;
    completed = true;
  }
  leave_frame(f.body_frame);
  if (!f.else_body.empty() && !completed) {
    enter_frame(f.else_frame);
    Flow fl = exec_body(f.else_body);
    leave_frame(f.else_frame);
    if (fl != Flow::Normal && !f.recursive) return fl;
  }
  return Flow::Normal;
}

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

Interp::Flow Interp::exec_for(const ForStmt& f) {
  Value iterable = eval(*f.iter);
  if (!f.recursive) return run_loop(f, iterable, 0);
  // Recursive loops run in their own function: `def loop(reciter, loop_render_func, depth=0)`.
  Value result;
  {
    auto act = Rc<Activation>::adopt(new Activation());
    act->parent = Rc<Activation>::share(act_);
    act->slots.assign(f.loop_fn.slot_count, Value::missing());
    Activation* saved_act = act_;
    std::string buf;
    std::string* saved_out = out_;
    act_ = act.get();
    out_ = &buf;
    struct Restore {
      Interp& in;
      Activation* a;
      std::string* o;
      Activation* cur;
      ~Restore() {
        cur->slots.clear();
        in.act_ = a;
        in.out_ = o;
      }
    } restore{*this, saved_act, saved_out, act.get()};
    run_loop(f, iterable, 0);
    saved_out->append(buf);
  }
  check_output(*out_);
  return Flow::Normal;
}

Interp::Flow Interp::exec(const Stmt& s) {
  step();
  check_stack();
  line_ = s.line;
  col_ = s.col;
  switch (s.kind) {
    case StmtKind::Output:
      exec_output(static_cast<const OutputStmt&>(s));
      return Flow::Normal;
    case StmtKind::If: {
      const auto& i = static_cast<const IfStmt&>(s);
      for (const auto& br : i.branches)
        if (truthy(eval(*br.first))) return exec_body(br.second);
      return exec_body(i.else_body);
    }
    case StmtKind::For:
      return exec_for(static_cast<const ForStmt&>(s));
    case StmtKind::Assign: {
      const auto& a = static_cast<const AssignStmt&>(s);
      if (a.target->kind == ExprKind::NSRef) {
        const auto& n = static_cast<const NSRefExpr&>(*a.target);
        if (!slot(n.ref).is(Kind::Namespace))
          fail(PyError::TemplateRuntimeError, "cannot assign attribute on non-namespace object");
      }
      Value v = eval(*a.value);
      exec_assign(*a.target, std::move(v), a.toplevel);
      return Flow::Normal;
    }
    case StmtKind::AssignBlock: {
      const auto& a = static_cast<const AssignBlockStmt&>(s);
      Flow fl = Flow::Normal;
      std::string text = capture_body(a.body, a.frame, &fl);
      if (fl != Flow::Normal) return fl;
      Value v = Value::string(text);
      if (a.filter) v = eval_filter(static_cast<const FilterExpr&>(*a.filter), &v);
      leave_frame(a.frame);
      exec_assign(*a.target, std::move(v), a.toplevel);
      return Flow::Normal;
    }
    case StmtKind::Macro: {
      const auto& m = static_cast<const MacroStmt&>(s);
      auto obj = Rc<MacroObj>::adopt(new MacroObj());
      obj->def = m.def.get();
      obj->closure = Rc<Activation>::share(act_);
      Value v = Value::object(Kind::Macro, obj.get());
      if (m.toplevel) set_toplevel(m.def->name, v);
      slot(m.target) = std::move(v);
      return Flow::Normal;
    }
    case StmtKind::CallBlock: {
      const auto& c = static_cast<const CallBlockStmt&>(s);
      auto caller = Rc<MacroObj>::adopt(new MacroObj());
      caller->def = c.caller.get();
      caller->closure = Rc<Activation>::share(act_);
      caller->is_caller = true;
      Value caller_v = Value::object(Kind::Macro, caller.get());
      Value r;
      if (!c.call) {
        Args none;
        r = call_macro(*caller, none);
      } else {
        // visit_Call(node.call, frame, forward_caller=True)
        const CallExpr& ce = *c.call;
        Value callee;
        Args args;
        if (ce.fn->kind == ExprKind::Getattr) {
          const auto& g = static_cast<const GetattrExpr&>(*ce.fn);
          Value obj = eval(*g.obj);
          callee = getattr(obj, g.attr, g.attr_id);
        } else {
          callee = eval(*ce.fn);
        }
        eval_args(ce.args, args);
        args.kw.emplace_back("caller", caller_v);
        line_ = s.line;
        r = call(callee, args);
      }
      append_str(*out_, r);
      check_output(*out_);
      return Flow::Normal;
    }
    case StmtKind::FilterBlock: {
      const auto& fb = static_cast<const FilterBlockStmt&>(s);
      Flow fl = Flow::Normal;
      std::string text = capture_body(fb.body, fb.frame, &fl);
      if (fl != Flow::Normal) return fl;
      Value input = Value::string(text);
      Value r = eval_filter(static_cast<const FilterExpr&>(*fb.filter), &input);
      leave_frame(fb.frame);
      append_str(*out_, r);
      check_output(*out_);
      return Flow::Normal;
    }
    case StmtKind::With: {
      const auto& w = static_cast<const WithStmt&>(s);
      enter_frame(w.frame);
      for (std::size_t i = 0; i < w.targets.size(); ++i) {
        Value v = eval(*w.values[i]);
        exec_assign(*w.targets[i], std::move(v), false);
      }
      Flow fl = exec_body(w.body);
      leave_frame(w.frame);
      return fl;
    }
    case StmtKind::Break:
      return Flow::Break;
    case StmtKind::Continue:
      return Flow::Continue;
    case StmtKind::Block: {
      const auto& b = static_cast<const BlockStmt&>(s);
      auto act = Rc<Activation>::adopt(new Activation());
      act->slots.assign(b.fn.slot_count, Value::missing());
      Activation* saved = act_;
      act_ = act.get();
      struct Restore {
        Interp& in;
        Activation* saved;
        Activation* cur;
        ~Restore() {
          cur->slots.clear();
          in.act_ = saved;
        }
      } restore{*this, saved, act.get()};
      enter_frame(b.frame);
      exec_body(b.body);
      return Flow::Normal;
    }
    case StmtKind::FileAccess:
      fail(PyError::TypeError, "no loader for this environment specified ({% " +
                                   static_cast<const FileAccessStmt&>(s).tag +
                                   " %} cannot read other templates in the sandbox)");
  }
  return Flow::Normal;
}

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
      auto act = Rc<Activation>::adopt(new Activation());
      act->parent = l.recurse_parent;
      act->slots.assign(f.loop_fn.slot_count, Value::missing());
      Activation* saved_act = act_;
      std::string buf;
      std::string* saved_out = out_;
      act_ = act.get();
      out_ = &buf;
      struct Restore {
        Interp& in;
        Activation* a;
        std::string* o;
        Activation* cur;
        ~Restore() {
          cur->slots.clear();
          in.act_ = a;
          in.out_ = o;
        }
      } restore{*this, saved_act, saved_out, act.get()};
      run_loop(f, args.pos[0], l.depth0 + 1);
      return Value::string(buf);
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

  Activation* saved_act = act_;
  std::string buf;
  std::string* saved_out = out_;
  act_ = act.get();
  out_ = &buf;
  struct Restore {
    Interp& in;
    Activation* a;
    std::string* o;
    Activation* cur;
    ~Restore() {
      cur->slots.clear();  // breaks closure cycles (macros defined inside this call)
      in.act_ = a;
      in.out_ = o;
    }
  } restore{*this, saved_act, saved_out, act.get()};
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

// ---------------------------------------------------------------------------------------------------------
// Expressions

Value Interp::getattr(const Value& obj, std::string_view name, int id) { return sandbox_getattr(*this, obj, name, id); }

Value Interp::getitem(const Value& obj, const Value& key) { return sandbox_getitem(*this, obj, key); }

Value Interp::call_filter(int id, std::string_view name, const Value& input, Args& args) {
  if (id < 0) fail(PyError::TemplateRuntimeError, "No filter named '" + std::string(name) + "' found.");
  step();
  return apply_filter(*this, id, input, args);
}

bool Interp::call_test(int id, std::string_view name, const Value& v, Args& args) {
  if (id < 0) fail(PyError::TemplateRuntimeError, "No test named '" + std::string(name) + "' found.");
  step();
  return apply_test(*this, id, v, args);
}

Value Interp::eval_filter(const FilterExpr& f, const Value* block_input) {
  Value input;
  if (!f.node) {
    input = *block_input;
  } else if (block_input != nullptr && f.node->kind == ExprKind::Filter) {
    input = eval_filter(static_cast<const FilterExpr&>(*f.node), block_input);
  } else {
    input = eval(*f.node);
  }
  Args args;
  eval_args(f.args, args);
  line_ = f.line;
  col_ = f.col;
  return call_filter(f.id, f.name, input, args);
}

namespace {

std::optional<std::int64_t> slice_index(const Value& v) {
  if (v.is(Kind::None)) return std::nullopt;
  if (v.is_int_like()) return v.as_int();
  fail(PyError::TypeError, "slice indices must be integers or None or have an __index__ method");
}

}  // namespace

Value Interp::eval_slice_get(const Value& obj, const SliceExpr& s) {
  Value a = s.start ? eval(*s.start) : Value::none();
  Value b = s.stop ? eval(*s.stop) : Value::none();
  Value c = s.step ? eval(*s.step) : Value::none();
  if (obj.is_undefined()) fail_undefined(obj);
  bool sliceable = obj.is_str() || obj.is(Kind::Tuple) ||
                   (obj.is(Kind::List) && (obj.list().plain() || obj.list().flavor == ListFlavor::Range));
  if (!sliceable) {
    if (folding_) {
      // A constant output expression is folded by Jinja2's compiler through the sandbox's getitem, which turns
      // the TypeError into an Undefined.
      auto info = Rc<UndefinedInfo>::adopt(new UndefinedInfo());
      info->obj_type = object_type_repr(obj);
      info->name = "slice(" + repr(a) + ", " + repr(b) + ", " + repr(c) + ")";
      info->name_is_str = false;
      return Value::undefined_info(std::move(info));
    }
    // Jinja2 compiles slices to a plain Python subscript (no sandbox getitem), so this raises.
    if (obj.is(Kind::Dict)) fail(PyError::TypeError, "unhashable type: 'slice'");
    fail(PyError::TypeError, "'" + type_name(obj) + "' object is not subscriptable");
  }
  std::optional<std::int64_t> start = slice_index(a), stop = slice_index(b), stepv = slice_index(c);
  std::int64_t st = stepv.value_or(1);
  if (st == 0) fail(PyError::ValueError, "slice step cannot be zero");
  if (obj.is_str()) {
    work(obj.str().size());
    if (st == 1 && is_ascii(obj.str())) {
      std::int64_t first;
      std::int64_t n = pystr::slice_indices(static_cast<std::int64_t>(obj.str().size()), start, stop, 1, first);
      if (n <= 0) return Value::borrowed(std::string_view(), obj.is_safe());
      return Value::substr(obj, static_cast<std::size_t>(first), static_cast<std::size_t>(n));
    }
    return Value::string(pystr::slice(obj.str(), start, stop, st), obj.is_safe());
  }
  const auto& items = obj.list().items;
  std::int64_t first;
  std::int64_t n = pystr::slice_indices(static_cast<std::int64_t>(items.size()), start, stop, st, first);
  std::vector<Value> out;
  if (n > 0) {
    step(static_cast<std::uint64_t>(n));
    out.reserve(static_cast<std::size_t>(n));
    for (std::int64_t k = 0, idx = first; k < n; ++k, idx += st) out.push_back(items[static_cast<std::size_t>(idx)]);
  }
  return obj.is(Kind::Tuple) ? Value::new_tuple(std::move(out)) : Value::new_list(std::move(out));
}

// `a + b + c + ...` (a left-deep chain of +): evaluated left to right exactly like nested +, but runs of plain
// strings are joined into one buffer instead of one new string per +.
Value Interp::eval_add_chain(const BinaryExpr& top) {
  std::vector<const BinaryExpr*> chain;
  const Expr* leftmost = &top;
  while (leftmost->kind == ExprKind::Binary && static_cast<const BinaryExpr*>(leftmost)->op == BinOp::Add) {
    chain.push_back(static_cast<const BinaryExpr*>(leftmost));
    leftmost = static_cast<const BinaryExpr*>(leftmost)->left.get();
  }
  Value acc = eval(*leftmost);
  std::string buf;
  bool buffered = false;  // acc's text lives in buf
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const BinaryExpr& node = **it;
    step();
    Value r = eval(*node.right);
    line_ = node.line;
    col_ = node.col;
    const bool plain_acc = buffered || (acc.is_str() && !acc.is_safe());
    if (plain_acc && r.is_str() && !r.is_safe()) {
      if (!buffered) {
        buf.assign(acc.str());
        buffered = true;
      }
      buf.append(r.str());
      work(r.str().size());
      check_text_size(buf.size());
      continue;
    }
    if (buffered) {
      acc = Value::string(buf);
      buffered = false;
    }
    if (acc.is_str() && r.is_str()) work(acc.str().size() + r.str().size());
    acc = py_binary(BinOp::Add, acc, r);
  }
  if (buffered) return Value::string(buf);
  return acc;
}

Value Interp::eval_compare(const CompareExpr& c) {
  Value cur = eval(*c.first);
  for (const auto& op : c.ops) {
    Value rhs = eval(*op.second);
    line_ = c.line;
    bool r;
    switch (op.first) {
      case CmpOp::Eq:
        r = py_eq(cur, rhs);
        break;
      case CmpOp::Ne:
        r = !py_eq(cur, rhs);
        break;
      case CmpOp::In:
      case CmpOp::NotIn: {
        if (rhs.is(Kind::Iterator)) {
          Cursor cc = iter(rhs);
          Value item;
          r = false;
          while (next(cc, item)) {
            step();
            if (py_eq(item, cur)) {
              r = true;
              break;
            }
          }
        } else {
          if (rhs.is_str()) work(rhs.str().size());
          if (rhs.is_seq()) step(rhs.list().items.size());
          r = py_contains(rhs, cur);
        }
        if (op.first == CmpOp::NotIn) r = !r;
        break;
      }
      default:
        r = py_order(cur, rhs, op.first);
    }
    if (!r) return Value::boolean(false);
    cur = std::move(rhs);
  }
  return Value::boolean(true);
}

namespace {

// Jinja2's has_safe_repr: values its compiler can embed as constants.
bool safe_repr(const Value& v) {
  switch (v.kind()) {
    case Kind::None:
    case Kind::Bool:
    case Kind::Int:
    case Kind::Float:
    case Kind::Str:
      return true;
    case Kind::List:
    case Kind::Tuple: {
      const ListObj& l = v.list();
      if (l.flavor == ListFlavor::Range) return true;
      if (l.flavor != ListFlavor::Plain) return false;
      for (const auto& x : l.items)
        if (!safe_repr(x)) return false;
      return true;
    }
    case Kind::Dict:
      for (const auto& kv : v.dict().items)
        if (!safe_repr(kv.first) || !safe_repr(kv.second)) return false;
      return true;
    default:
      return false;
  }
}

/// Thrown while folding when an expression turns out not to be constant (nodes.Impossible).
struct Impossible {};

}  // namespace

bool Interp::try_fold(const Expr& e, Value& out, bool need_safe_repr) {
  folding_ = true;
  try {
    Value v = eval_node(e);
    folding_ = false;
    if (need_safe_repr && !safe_repr(v)) return false;
    out = std::move(v);
    return true;
  } catch (const Impossible&) {
  } catch (const Failure&) {
  }
  folding_ = false;
  return false;
}

void Interp::not_constant() const { throw Impossible{}; }

Value Interp::eval(const Expr& e) {
  if (e.foldable && !folding_ && e.kind != ExprKind::Const) {
    // Jinja2's optimizer replaces a constant subexpression by its value when that value has a safe repr;
    // otherwise the node is evaluated at run time (where slices do not go through the sandbox).
    Value v;
    if (try_fold(e, v, true)) return v;
  }
  return eval_node(e);
}

Value Interp::eval_node(const Expr& e) {
  step();
  line_ = e.line;
  col_ = e.col;
  if (folding_ && !e.foldable) not_constant();
  switch (e.kind) {
    case ExprKind::Const: {
      const auto& c = static_cast<const ConstExpr&>(e);
      switch (c.type) {
        case ConstExpr::Type::None:
          return Value::none();
        case ConstExpr::Type::Bool:
          return Value::boolean(c.b);
        case ConstExpr::Type::Int:
          return Value::integer(c.i);
        case ConstExpr::Type::Float:
          return Value::floating(c.f);
        case ConstExpr::Type::Str:
          return Value::borrowed(c.s);
      }
      return Value::none();
    }
    case ExprKind::Name: {
      const auto& n = static_cast<const NameExpr&>(e);
      const Value& v = slot(n.ref);
      if (v.is(Kind::Missing)) return Value::undefined_name(n.name);
      return v;
    }
    case ExprKind::List:
    case ExprKind::Tuple: {
      const auto& s = static_cast<const SeqExpr&>(e);
      std::vector<Value> items;
      items.reserve(s.items.size());
      for (const auto& x : s.items) items.push_back(eval(*x));
      return e.kind == ExprKind::List ? Value::new_list(std::move(items)) : Value::new_tuple(std::move(items));
    }
    case ExprKind::Dict: {
      const auto& d = static_cast<const DictExpr&>(e);
      Value out = Value::new_dict();
      for (const auto& kv : d.items) {
        Value k = eval(*kv.first);
        Value v = eval(*kv.second);
        if (!is_hashable(k)) fail(PyError::TypeError, "unhashable type: '" + type_name(k) + "'");
        out.dict().set(std::move(k), std::move(v));
      }
      return out;
    }
    case ExprKind::Getattr: {
      const auto& g = static_cast<const GetattrExpr&>(e);
      Value obj = eval(*g.obj);
      line_ = e.line;
      col_ = e.col;
      return getattr(obj, g.attr, g.attr_id);
    }
    case ExprKind::Getitem: {
      const auto& g = static_cast<const GetitemExpr&>(e);
      Value obj = eval(*g.obj);
      if (g.arg->kind == ExprKind::Slice) return eval_slice_get(obj, static_cast<const SliceExpr&>(*g.arg));
      Value key = eval(*g.arg);
      line_ = e.line;
      col_ = e.col;
      return getitem(obj, key);
    }
    case ExprKind::Slice:
      fail(PyError::Unsupported, "a slice outside of a subscript is not supported");
    case ExprKind::Call:
      return eval_call(static_cast<const CallExpr&>(e));
    case ExprKind::Filter:
      return eval_filter(static_cast<const FilterExpr&>(e), nullptr);
    case ExprKind::Test: {
      const auto& t = static_cast<const FilterExpr&>(e);
      Value v = eval(*t.node);
      Args args;
      eval_args(t.args, args);
      line_ = e.line;
      col_ = e.col;
      return Value::boolean(call_test(t.id, t.name, v, args));
    }
    case ExprKind::Binary: {
      const auto& b = static_cast<const BinaryExpr&>(e);
      if (b.op == BinOp::Add) return eval_add_chain(b);
      Value l = eval(*b.left);
      Value r = eval(*b.right);
      line_ = e.line;
      col_ = e.col;
      if (b.op == BinOp::Mod && l.is_str()) {
        work(l.str().size());
        return Value::string(percent_format(l.str(), r, l.is_safe()), l.is_safe());
      }
      if (l.is_str() && r.is_str()) work(l.str().size() + r.str().size());
      if (b.op == BinOp::Mul && (l.is_str() || l.is_seq() || r.is_str() || r.is_seq())) {
        const Value& seq = (l.is_str() || l.is_seq()) ? l : r;
        const Value& times = (l.is_str() || l.is_seq()) ? r : l;
        if (times.is_int_like() && times.as_int() > 0) {
          std::size_t unit = seq.is_str() ? seq.str().size() : seq.list().items.size() * sizeof(Value);
          if (unit > 0 && static_cast<std::uint64_t>(times.as_int()) > options_.limits.max_alloc_bytes / unit)
            fail(PyError::LimitExceeded, "repeating a " + type_name(seq) + " " + std::to_string(times.as_int()) +
                                             " times exceeds max_alloc_bytes (" +
                                             std::to_string(options_.limits.max_alloc_bytes) + " bytes)");
          work(unit * static_cast<std::size_t>(times.as_int()));
        }
      }
      return py_binary(b.op, l, r);
    }
    case ExprKind::Unary: {
      const auto& u = static_cast<const UnaryExpr&>(e);
      Value v = eval(*u.operand);
      if (u.op == UnOp::Not) return Value::boolean(!truthy(v));
      line_ = e.line;
      return py_negate(v, u.op == UnOp::Neg);
    }
    case ExprKind::And: {
      const auto& a = static_cast<const LogicExpr&>(e);
      Value l = eval(*a.left);
      if (!truthy(l)) return l;
      return eval(*a.right);
    }
    case ExprKind::Or: {
      const auto& a = static_cast<const LogicExpr&>(e);
      Value l = eval(*a.left);
      if (truthy(l)) return l;
      return eval(*a.right);
    }
    case ExprKind::Concat: {
      const auto& c = static_cast<const ConcatExpr&>(e);
      std::string s;
      for (const auto& x : c.items) {
        Value v = eval(*x);
        append_str(s, v);
        check_text_size(s.size());
      }
      work(s.size());
      return Value::string(s);
    }
    case ExprKind::Compare:
      return eval_compare(static_cast<const CompareExpr&>(e));
    case ExprKind::CondExpr: {
      const auto& c = static_cast<const CondExpr&>(e);
      if (truthy(eval(*c.test))) return eval(*c.expr1);
      if (c.expr2) return eval(*c.expr2);
      if (folding_) not_constant();
      return Value::undefined_hint("the inline if-expression on line " + std::to_string(e.line) +
                                   " evaluated to false and no else section was defined.");
    }
    case ExprKind::NSRef:
      fail(PyError::TemplateSyntaxError, "a namespace reference can only be assigned");
  }
  return Value::none();
}

}  // namespace openrecipes::rows::template_engine
