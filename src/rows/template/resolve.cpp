// Jinja2's variable scoping, reproduced at compile time: Symbols frames with refs/loads/stores and branch_update
// (jinja2/idtracking.py), frames entered where Jinja2's compiler enters them (jinja2/compiler.py), each Python
// function of the generated code becoming an activation with numbered slots.
#include "rows/template/resolve.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "rows/template/failure.h"
#include "rows/template/idtracking.h"
#include "rows/template/interp.h"
#include "rows/template/visitor.h"

namespace openrecipes::rows::template_engine {
namespace {

using namespace idtracking;  // Fn, Ref, Load, Sym, FrameVisitor (jinja2/idtracking.py)

[[noreturn]] void fail_node(PyError type, const std::string& msg, std::uint32_t line, std::uint32_t col) {
  throw Failure{type, msg, line, col};
}

// ---- the compiler walk ----
class Resolver {
 public:
  std::vector<std::unique_ptr<Fn>> fns;

  Fn* new_fn(Fn* parent, FunctionInfo* info) {
    fns.push_back(std::make_unique<Fn>());
    fns.back()->parent = parent;
    fns.back()->info = info;
    return fns.back().get();
  }

  void program(Program& p) {
    Fn* root = new_fn(nullptr, &p.root_fn);
    Sym frame;
    frame.fn = root;
    FrameVisitor v{&frame};
    v.body(p.body);
    body(p.body, frame, true, false, false);
    p.root_frame = frame_info(frame);
  }

 private:
  void body(Body& b, Sym& f, bool toplevel, bool soft, bool in_loop) {
    for (auto& s : b) stmt(*s, f, toplevel, soft, in_loop);
  }

  VarRef ref_for(Sym& f, const std::string& name) {
    const Ref* r = f.find_ref(name);
    if (r == nullptr) {
      // Jinja2 raises an internal AssertionError here ({% set x | f(y) %} with y unknown); resolve from context.
      Ref nr = f.define_ref(name, Load{LoadKind::Resolve, name, {}});
      return var_ref(f, nr);
    }
    return var_ref(f, *r);
  }

  void args(CallArgs& a, Sym& f, bool soft) {
    for (auto& x : a.args) expr(x.get(), f, soft);
    for (auto& kv : a.kwargs) expr(kv.second.get(), f, soft);
    expr(a.dyn_args.get(), f, soft);
    expr(a.dyn_kwargs.get(), f, soft);
  }

  void expr(Expr* e, Sym& f, bool soft) {
    if (e == nullptr) return;
    switch (e->kind) {
      case ExprKind::Name: {
        auto& n = static_cast<NameExpr&>(*e);
        n.ref = ref_for(f, n.name);
        return;
      }
      case ExprKind::NSRef: {
        auto& n = static_cast<NSRefExpr&>(*e);
        n.ref = ref_for(f, n.name);
        return;
      }
      case ExprKind::List:
      case ExprKind::Tuple:
        for (auto& x : static_cast<SeqExpr&>(*e).items) expr(x.get(), f, soft);
        return;
      case ExprKind::Dict:
        for (auto& kv : static_cast<DictExpr&>(*e).items) {
          expr(kv.first.get(), f, soft);
          expr(kv.second.get(), f, soft);
        }
        return;
      case ExprKind::Getattr:
        static_cast<GetattrExpr&>(*e).attr_id = attr_id(static_cast<GetattrExpr&>(*e).attr);
        expr(static_cast<GetattrExpr&>(*e).obj.get(), f, soft);
        return;
      case ExprKind::Getitem:
        expr(static_cast<GetitemExpr&>(*e).obj.get(), f, soft);
        expr(static_cast<GetitemExpr&>(*e).arg.get(), f, soft);
        return;
      case ExprKind::Slice: {
        auto& s = static_cast<SliceExpr&>(*e);
        expr(s.start.get(), f, soft);
        expr(s.stop.get(), f, soft);
        expr(s.step.get(), f, soft);
        return;
      }
      case ExprKind::Call:
        expr(static_cast<CallExpr&>(*e).fn.get(), f, soft);
        args(static_cast<CallExpr&>(*e).args, f, soft);
        return;
      case ExprKind::Filter:
      case ExprKind::Test: {
        auto& fe = static_cast<FilterExpr&>(*e);
        bool is_filter = e->kind == ExprKind::Filter;
        fe.id = is_filter ? filter_id(fe.name) : test_id(fe.name);
        if (fe.id < 0 && !soft)
          fail_node(PyError::TemplateAssertionError,
                    std::string("No ") + (is_filter ? "filter" : "test") + " named '" + fe.name + "'.", e->line,
                    e->col);
        expr(fe.node.get(), f, soft);
        args(fe.args, f, soft);
        return;
      }
      case ExprKind::Binary:
        expr(static_cast<BinaryExpr&>(*e).left.get(), f, soft);
        expr(static_cast<BinaryExpr&>(*e).right.get(), f, soft);
        return;
      case ExprKind::Unary:
        expr(static_cast<UnaryExpr&>(*e).operand.get(), f, soft);
        return;
      case ExprKind::And:
      case ExprKind::Or:
        expr(static_cast<LogicExpr&>(*e).left.get(), f, soft);
        expr(static_cast<LogicExpr&>(*e).right.get(), f, soft);
        return;
      case ExprKind::Concat:
        for (auto& x : static_cast<ConcatExpr&>(*e).items) expr(x.get(), f, soft);
        return;
      case ExprKind::Compare:
        expr(static_cast<CompareExpr&>(*e).first.get(), f, soft);
        for (auto& op : static_cast<CompareExpr&>(*e).ops) expr(op.second.get(), f, soft);
        return;
      case ExprKind::CondExpr: {
        auto& c = static_cast<CondExpr&>(*e);
        expr(c.test.get(), f, true);
        expr(c.expr1.get(), f, true);
        expr(c.expr2.get(), f, true);
        return;
      }
      case ExprKind::Const:
        return;
    }
  }

  void macro_body(MacroDef& d, Sym& outer, std::uint32_t line, std::uint32_t col) {
    Fn* fn = new_fn(outer.fn, &d.fn);
    Sym mf = outer.inner(fn);
    FrameVisitor v{&mf};
    for (auto& a : d.arg_names) mf.declare_parameter(a);
    for (auto& x : d.defaults) v.expr(x.get());
    v.body(d.body);
    std::set<std::string> skip_special;
    for (std::size_t i = 0; i < d.arg_names.size(); ++i) {
      const std::string& a = d.arg_names[i];
      if (a == "caller") d.explicit_caller = static_cast<int>(i);
      if (a == "kwargs" || a == "varargs") skip_special.insert(a);
      d.arg_slots.push_back(mf.find_ref(a)->slot);
    }
    std::set<std::string> undeclared = find_undeclared(d.body, {"caller", "kwargs", "varargs"});
    if (undeclared.count("caller")) {
      if (d.explicit_caller >= 0) {
        std::size_t from_end = d.arg_names.size() - static_cast<std::size_t>(d.explicit_caller);
        if (from_end > d.defaults.size())
          fail_node(PyError::TemplateAssertionError,
                    "When defining macros or call blocks the special \"caller\" argument must be omitted or be given a "
                    "default.",
                    line, col);
      } else {
        d.caller_slot = mf.declare_parameter("caller").slot;
      }
      d.accesses_caller = true;
    }
    if (undeclared.count("kwargs") && !skip_special.count("kwargs")) {
      d.kwargs_slot = mf.declare_parameter("kwargs").slot;
      d.accesses_kwargs = true;
    }
    if (undeclared.count("varargs") && !skip_special.count("varargs")) {
      d.varargs_slot = mf.declare_parameter("varargs").slot;
      d.accesses_varargs = true;
    }
    // Jinja2 analyses the macro node a second time after declaring the special parameters.
    for (auto& a : d.arg_names) mf.declare_parameter(a);
    for (auto& x : d.defaults) v.expr(x.get());
    v.body(d.body);
    for (auto& x : d.defaults) expr(x.get(), mf, false);
    body(d.body, mf, false, false, false);
    d.frame = frame_info(mf);
  }

  static bool assigns_loop(ForStmt& fo) {
    struct V {
      bool found = false;
      void on_expr(Expr& e) {
        if (e.kind == ExprKind::Name) {
          auto& n = static_cast<NameExpr&>(e);
          if (n.ctx == NameCtx::Store && n.name == "loop") found = true;
        }
      }
      void on_stmt(Stmt&) {}
    } v;
    walk_stmt(fo, v, true);
    return v.found;
  }

  void collect_target_names(Expr* e, std::vector<std::string>& out) {
    if (e->kind == ExprKind::Name) out.push_back(static_cast<NameExpr*>(e)->name);
    if (e->kind == ExprKind::Tuple || e->kind == ExprKind::List)
      for (auto& x : static_cast<SeqExpr*>(e)->items) collect_target_names(x.get(), out);
  }

  void for_stmt(ForStmt& fo, Sym& outer, bool soft, bool in_loop) {
    Fn* loop_fn = fo.recursive ? new_fn(outer.fn, &fo.loop_fn) : nullptr;
    Sym lf = outer.inner(loop_fn);
    Sym ef = outer.inner(loop_fn);
    Fn* test_fn = fo.filter ? new_fn(outer.fn, &fo.test_fn) : nullptr;
    Sym tf = outer.inner(test_fn);
    fo.extended = fo.recursive || find_undeclared(fo.body, {"loop"}).count("loop") > 0;
    if (fo.extended) fo.loop_slot = lf.declare_parameter("loop").slot;
    {
      FrameVisitor v{&lf};
      v.expr(fo.target.get(), true);
      v.body(fo.body);
    }
    if (!fo.else_body.empty()) {
      FrameVisitor v{&ef};
      v.body(fo.else_body);
    }
    if (fo.filter) {
      FrameVisitor v{&tf};
      v.expr(fo.target.get(), true);
      v.expr(fo.filter.get());
    }
    if (assigns_loop(fo))
      fail_node(PyError::TemplateAssertionError, "Can't assign to special loop variable in for-loop target", fo.line,
                fo.col);
    expr(fo.iter.get(), outer, soft);
    expr(fo.target.get(), lf, false);
    body(fo.body, lf, false, false, true);
    body(fo.else_body, ef, false, false, fo.recursive ? false : in_loop);
    if (fo.filter) {
      expr(fo.filter.get(), tf, false);
      std::vector<std::string> names;
      collect_target_names(fo.target.get(), names);
      for (auto& n : names) fo.test_target.emplace_back(n, tf.find_ref(n)->slot);
      fo.test_frame = frame_info(tf);
    }
    fo.body_frame = frame_info(lf);
    fo.else_frame = frame_info(ef);
  }

  void stmt(Stmt& s, Sym& f, bool toplevel, bool soft, bool in_loop) {
    switch (s.kind) {
      case StmtKind::Output:
        for (auto& p : static_cast<OutputStmt&>(s).parts) expr(p.expr.get(), f, soft);
        return;
      case StmtKind::If: {
        auto& i = static_cast<IfStmt&>(s);
        for (auto& br : i.branches) {
          expr(br.first.get(), f, true);
          body(br.second, f, toplevel, true, in_loop);
        }
        body(i.else_body, f, toplevel, true, in_loop);
        return;
      }
      case StmtKind::For:
        for_stmt(static_cast<ForStmt&>(s), f, soft, in_loop);
        return;
      case StmtKind::Assign: {
        auto& a = static_cast<AssignStmt&>(s);
        expr(a.value.get(), f, soft);
        expr(a.target.get(), f, soft);
        a.toplevel = toplevel;
        return;
      }
      case StmtKind::AssignBlock: {
        auto& a = static_cast<AssignBlockStmt&>(s);
        Sym bf = f.inner();
        FrameVisitor v{&bf};
        v.body(a.body);
        body(a.body, bf, false, false, in_loop);
        expr(a.target.get(), f, soft);
        expr(a.filter.get(), bf, false);
        a.frame = frame_info(bf);
        a.toplevel = toplevel;
        return;
      }
      case StmtKind::Macro: {
        auto& m = static_cast<MacroStmt&>(s);
        macro_body(*m.def, f, s.line, s.col);
        m.target = ref_for(f, m.def->name);
        m.toplevel = toplevel;
        return;
      }
      case StmtKind::CallBlock: {
        auto& c = static_cast<CallBlockStmt&>(s);
        macro_body(*c.caller, f, s.line, s.col);
        if (c.call) expr(c.call.get(), f, soft);
        return;
      }
      case StmtKind::FilterBlock: {
        auto& fb = static_cast<FilterBlockStmt&>(s);
        Sym ff = f.inner();
        FrameVisitor v{&ff};
        v.body(fb.body);
        v.expr(fb.filter.get());
        body(fb.body, ff, false, false, in_loop);
        expr(fb.filter.get(), ff, false);
        fb.frame = frame_info(ff);
        return;
      }
      case StmtKind::With: {
        auto& w = static_cast<WithStmt&>(s);
        Sym wf = f.inner();
        FrameVisitor v{&wf};
        for (auto& t : w.targets) v.expr(t.get());
        v.body(w.body);
        for (auto& val : w.values) expr(val.get(), f, soft);
        for (auto& t : w.targets) expr(t.get(), wf, false);
        body(w.body, wf, false, false, in_loop);
        w.frame = frame_info(wf);
        return;
      }
      case StmtKind::Break:
      case StmtKind::Continue:
        if (!in_loop)
          fail_node(PyError::TemplateSyntaxError,
                    s.kind == StmtKind::Break ? "'break' outside loop" : "'continue' not properly in loop", s.line,
                    s.col);
        return;
      case StmtKind::Block: {
        auto& b = static_cast<BlockStmt&>(s);
        Fn* fn = new_fn(nullptr, &b.fn);
        Sym bf;
        bf.fn = fn;
        FrameVisitor v{&bf};
        v.body(b.body);
        body(b.body, bf, false, false, false);
        b.frame = frame_info(bf);
        return;
      }
      case StmtKind::FileAccess:
        return;
    }
  }
};

}  // namespace

void resolve_program(Program& prog) {
  Resolver r;
  r.program(prog);
  struct Marker {
    void on_expr(Expr& e) {
      if (!e.foldable) mark_foldable(&e);
    }
    void on_stmt(Stmt&) {}
  } marker;
  walk_body(prog.body, marker, true);
}

}  // namespace openrecipes::rows::template_engine
