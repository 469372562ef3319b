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
#include "rows/template/interp.h"
#include "rows/template/visitor.h"

namespace openrecipes::rows::template_engine {
namespace {

[[noreturn]] void fail_node(PyError type, const std::string& msg, std::uint32_t line, std::uint32_t col) {
  throw Failure{type, msg, line, col};
}

struct Fn {
  Fn* parent = nullptr;
  FunctionInfo* info = nullptr;
  std::map<std::string, std::uint16_t> idents;
  std::uint16_t slot(const std::string& ident) {
    auto it = idents.find(ident);
    if (it != idents.end()) return it->second;
    if (info->slot_count == 0xFFFF) fail(PyError::LimitExceeded, "too many variables in one template function");
    std::uint16_t s = info->slot_count++;
    info->slot_names.push_back(ident);
    idents.emplace(ident, s);
    return s;
  }
};

struct Ref {
  Fn* fn = nullptr;
  std::uint16_t slot = 0;
  bool operator==(const Ref& o) const { return fn == o.fn && slot == o.slot; }
};

struct Load {
  LoadKind kind = LoadKind::Undefined;
  std::string name;
  Ref alias;
};

struct Sym {
  Sym* parent = nullptr;
  int level = 0;
  Fn* fn = nullptr;
  std::map<std::string, Ref> refs;
  std::vector<std::pair<Ref, Load>> loads;
  std::set<std::string> stores;

  Sym inner(Fn* new_fn = nullptr) {
    Sym s;
    s.parent = this;
    s.level = level + 1;
    s.fn = new_fn != nullptr ? new_fn : fn;
    return s;
  }
  Sym copy() const { return *this; }

  const Ref* find_ref(const std::string& name) const {
    for (const Sym* s = this; s != nullptr; s = s->parent) {
      auto it = s->refs.find(name);
      if (it != s->refs.end()) return &it->second;
    }
    return nullptr;
  }
  void set_load(const Ref& r, Load l) {
    for (auto& kv : loads)
      if (kv.first == r) {
        kv.second = std::move(l);
        return;
      }
    loads.emplace_back(r, std::move(l));
  }
  Ref define_ref(const std::string& name, std::optional<Load> load) {
    Ref r{fn, fn->slot("l_" + std::to_string(level) + "_" + name)};
    refs[name] = r;
    if (load) set_load(r, std::move(*load));
    return r;
  }
  void store(const std::string& name) {
    stores.insert(name);
    if (refs.count(name)) return;
    if (parent != nullptr) {
      if (const Ref* outer = parent->find_ref(name)) {
        define_ref(name, Load{LoadKind::Alias, {}, *outer});
        return;
      }
    }
    define_ref(name, Load{LoadKind::Undefined, {}, {}});
  }
  Ref declare_parameter(const std::string& name) {
    stores.insert(name);
    return define_ref(name, Load{LoadKind::Param, {}, {}});
  }
  void load(const std::string& name) {
    if (find_ref(name) == nullptr) define_ref(name, Load{LoadKind::Resolve, name, {}});
  }
  void branch_update(const std::vector<Sym*>& branches) {
    std::map<std::string, int> counts;
    std::vector<std::string> order;
    for (const Sym* b : branches)
      for (const auto& target : b->stores) {
        if (stores.count(target)) continue;
        if (!counts.count(target)) order.push_back(target);
        ++counts[target];
      }
    for (const Sym* b : branches) {
      for (const auto& kv : b->refs) refs[kv.first] = kv.second;
      for (const auto& kv : b->loads) set_load(kv.first, kv.second);
      stores.insert(b->stores.begin(), b->stores.end());
    }
    for (const auto& name : order) {
      if (counts[name] == static_cast<int>(branches.size())) continue;
      const Ref* target = find_ref(name);
      if (target == nullptr) continue;
      Ref t = *target;
      if (parent != nullptr) {
        if (const Ref* outer = parent->find_ref(name)) {
          set_load(t, Load{LoadKind::Alias, {}, *outer});
          continue;
        }
      }
      set_load(t, Load{LoadKind::Resolve, name, {}});
    }
  }
};

std::uint16_t hops_between(const Fn* from, const Fn* to) {
  std::uint16_t h = 0;
  for (const Fn* f = from; f != nullptr; f = f->parent, ++h)
    if (f == to) return h;
  fail(PyError::RuntimeError, "internal error: variable of an unrelated function");
}

VarRef var_ref(const Sym& frame, const Ref& r) { return VarRef{hops_between(frame.fn, r.fn), r.slot}; }

FrameInfo frame_info(const Sym& s) {
  FrameInfo info;
  for (const auto& kv : s.loads) {
    FrameLoad fl;
    fl.slot = kv.first.slot;
    fl.kind = kv.second.kind;
    fl.name = kv.second.name;
    if (fl.kind == LoadKind::Alias) fl.alias = var_ref(s, kv.second.alias);
    info.loads.push_back(std::move(fl));
  }
  return info;
}

// jinja2.compiler.find_undeclared (UndeclaredNameVisitor).
std::set<std::string> find_undeclared(Body& body, std::set<std::string> names) {
  struct V {
    std::set<std::string> names, undeclared;
    void on_expr(Expr& e) {
      if (e.kind != ExprKind::Name) return;
      auto& n = static_cast<NameExpr&>(e);
      if (n.ctx == NameCtx::Load && names.count(n.name))
        undeclared.insert(n.name);
      else
        names.erase(n.name);
    }
    void on_stmt(Stmt& s) {
      // Macro/call-block parameters are Name nodes in Jinja2's tree (ctx "param").
      if (s.kind == StmtKind::Macro)
        for (auto& a : static_cast<MacroStmt&>(s).def->arg_names) names.erase(a);
      if (s.kind == StmtKind::CallBlock)
        for (auto& a : static_cast<CallBlockStmt&>(s).caller->arg_names) names.erase(a);
    }
  } v{std::move(names), {}};
  walk_body(body, v, false);
  return v.undeclared;
}

// ---- FrameSymbolVisitor ----
struct FrameVisitor {
  Sym* sym;

  void expr(Expr* e, bool as_param = false) {
    if (e == nullptr) return;
    switch (e->kind) {
      case ExprKind::Name: {
        auto& n = static_cast<NameExpr&>(*e);
        if (as_param || n.ctx == NameCtx::Param)
          sym->declare_parameter(n.name);
        else if (n.ctx == NameCtx::Store)
          sym->store(n.name);
        else
          sym->load(n.name);
        return;
      }
      case ExprKind::NSRef:
        sym->load(static_cast<NSRefExpr&>(*e).name);
        return;
      case ExprKind::List:
      case ExprKind::Tuple:
        for (auto& x : static_cast<SeqExpr&>(*e).items) expr(x.get(), as_param);
        return;
      default: {
        // Generic visit: every child expression is a load.
        struct Loads {
          FrameVisitor* fv;
          Expr* root;
          void on_expr(Expr& x) {
            if (&x == root) return;
            if (x.kind == ExprKind::Name) fv->sym->load(static_cast<NameExpr&>(x).name);
            if (x.kind == ExprKind::NSRef) fv->sym->load(static_cast<NSRefExpr&>(x).name);
          }
        } l{this, e};
        walk_expr(e, l);
      }
    }
  }
  void args(CallArgs& a) {
    for (auto& x : a.args) expr(x.get());
    for (auto& kv : a.kwargs) expr(kv.second.get());
    expr(a.dyn_args.get());
    expr(a.dyn_kwargs.get());
  }

  void body(Body& b) {
    for (auto& s : b) stmt(*s);
  }

  void visit_if_branches(IfStmt& i, std::size_t first) {
    // visit_If on the node whose test is branches[first] (elif nodes are nested If nodes in Jinja2).
    expr(i.branches[first].first.get());
    Sym* original = sym;
    Sym body_syms = original->copy();
    sym = &body_syms;
    body(i.branches[first].second);
    Sym elif_syms = original->copy();
    if (first == 0) {
      sym = &elif_syms;
      for (std::size_t k = 1; k < i.branches.size(); ++k) visit_elif(i, k);
    }
    Sym else_syms = original->copy();
    if (first == 0) {
      sym = &else_syms;
      body(i.else_body);
    }
    sym = original;
    sym->branch_update({&body_syms, &elif_syms, &else_syms});
  }
  void visit_elif(IfStmt& i, std::size_t k) {
    // An elif If node: its own test, its body, empty elif/else.
    expr(i.branches[k].first.get());
    Sym* original = sym;
    Sym body_syms = original->copy();
    sym = &body_syms;
    body(i.branches[k].second);
    Sym e1 = original->copy(), e2 = original->copy();
    sym = original;
    sym->branch_update({&body_syms, &e1, &e2});
  }

  void stmt(Stmt& s) {
    switch (s.kind) {
      case StmtKind::Output:
        for (auto& p : static_cast<OutputStmt&>(s).parts) expr(p.expr.get());
        break;
      case StmtKind::If:
        visit_if_branches(static_cast<IfStmt&>(s), 0);
        break;
      case StmtKind::For:
        expr(static_cast<ForStmt&>(s).iter.get());
        break;
      case StmtKind::Assign:
        expr(static_cast<AssignStmt&>(s).value.get());
        expr(static_cast<AssignStmt&>(s).target.get());
        break;
      case StmtKind::AssignBlock:
        expr(static_cast<AssignBlockStmt&>(s).target.get());
        break;
      case StmtKind::Macro:
        sym->store(static_cast<MacroStmt&>(s).def->name);
        break;
      case StmtKind::CallBlock:
        if (auto& c = static_cast<CallBlockStmt&>(s).call) expr(c.get());
        break;
      case StmtKind::FilterBlock:
        expr(static_cast<FilterBlockStmt&>(s).filter.get());
        break;
      case StmtKind::With:
        for (auto& v : static_cast<WithStmt&>(s).values) expr(v.get());
        break;
      default:
        break;
    }
  }
};

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
