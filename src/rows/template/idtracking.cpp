// Jinja2's symbol tracking helpers (jinja2/idtracking.py, jinja2/compiler.py find_undeclared).
#include "rows/template/idtracking.h"

namespace openrecipes::rows::template_engine::idtracking {

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

}  // namespace openrecipes::rows::template_engine::idtracking
