// Jinja2's symbol tracking (jinja2/idtracking.py) for the compile-time resolver: the functions of the generated code
// with their numbered slots (Fn), a symbol's reference (Ref) and how a frame loads it (Load), the Symbols frames
// (Sym: refs, loads, stores, branch_update) and the FrameSymbolVisitor that fills them. Internal to resolve.cpp and
// idtracking.cpp; everything here lives in template_engine::idtracking.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "rows/template/ast.h"
#include "rows/template/failure.h"
#include "rows/template/visitor.h"

namespace openrecipes::rows::template_engine::idtracking {

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

/// How many activations up from `from` the function `to` is (0: the same one); internal error when unrelated.
std::uint16_t hops_between(const Fn* from, const Fn* to);
/// The slot reference of `r` as seen from `frame`'s function.
VarRef var_ref(const Sym& frame, const Ref& r);
/// The loads a frame performs on entry, for the interpreter.
FrameInfo frame_info(const Sym& s);
/// jinja2.compiler.find_undeclared (UndeclaredNameVisitor): which of `names` `body` reads before assigning.
std::set<std::string> find_undeclared(Body& body, std::set<std::string> names);

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

}  // namespace openrecipes::rows::template_engine::idtracking
