// Statements of the evaluator (jinja2/compiler.py visit_For/If/Output/Assign/... and jinja2/runtime.py
// LoopContext): for/else with loop controls and `for ... if` filtering, recursive loops, output, {% set %} and
// block captures, filter/call blocks, with the step, output and depth limits.
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

Interp::Flow Interp::exec_for(const ForStmt& f) {
  Value iterable = eval(*f.iter);
  if (!f.recursive) return run_loop(f, iterable, 0);
  // Recursive loops run in their own function: `def loop(reciter, loop_render_func, depth=0)`.
  out_->append(run_recursive_loop(f, Rc<Activation>::share(act_), iterable, 0));
  check_output(*out_);
  return Flow::Normal;
}

std::string Interp::run_recursive_loop(const ForStmt& f, Rc<Activation> parent, const Value& iterable,
                                       std::int64_t depth0) {
  auto act = Rc<Activation>::adopt(new Activation());
  act->parent = std::move(parent);
  act->slots.assign(f.loop_fn.slot_count, Value::missing());
  std::string buf;
  ActivationScope scope(*this, act.get(), &buf);
  run_loop(f, iterable, depth0);
  return buf;
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

}  // namespace openrecipes::rows::template_engine
