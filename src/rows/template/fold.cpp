// Jinja2's compile-time constant folding, the marking half (jinja2/nodes.py Expr.as_const): which expressions
// the compiler may fold; the interpreter folds them (Interp::try_fold) with the values of this render.
#include <set>
#include <string>

#include "rows/template/resolve.h"

namespace openrecipes::rows::template_engine {

bool mark_foldable(Expr* e) {
  if (e == nullptr) return true;
  bool f = false;
  auto all = [](auto& range, auto get) {
    bool ok = true;
    for (auto& x : range) ok = mark_foldable(get(x)) && ok;
    return ok;
  };
  switch (e->kind) {
    case ExprKind::Const:
      f = true;
      break;
    case ExprKind::List:
    case ExprKind::Tuple:
      f = all(static_cast<SeqExpr*>(e)->items, [](ExprPtr& x) { return x.get(); });
      break;
    case ExprKind::Dict: {
      bool ok = true;
      for (auto& kv : static_cast<DictExpr*>(e)->items) {
        ok = mark_foldable(kv.first.get()) && ok;
        ok = mark_foldable(kv.second.get()) && ok;
      }
      f = ok;
      break;
    }
    case ExprKind::Getattr:
      f = mark_foldable(static_cast<GetattrExpr*>(e)->obj.get());
      break;
    case ExprKind::Getitem: {
      bool a = mark_foldable(static_cast<GetitemExpr*>(e)->obj.get());
      bool b = mark_foldable(static_cast<GetitemExpr*>(e)->arg.get());
      f = a && b;
      break;
    }
    case ExprKind::Slice: {
      auto* s = static_cast<SliceExpr*>(e);
      bool a = mark_foldable(s->start.get()), b = mark_foldable(s->stop.get()), c = mark_foldable(s->step.get());
      f = a && b && c;
      break;
    }
    case ExprKind::Binary: {
      bool a = mark_foldable(static_cast<BinaryExpr*>(e)->left.get());
      bool b = mark_foldable(static_cast<BinaryExpr*>(e)->right.get());
      f = a && b;
      break;
    }
    case ExprKind::Unary:
      f = mark_foldable(static_cast<UnaryExpr*>(e)->operand.get());
      break;
    case ExprKind::And:
    case ExprKind::Or: {
      // Short-circuit: the right side counts only when it is evaluated (checked while folding).
      bool a = mark_foldable(static_cast<LogicExpr*>(e)->left.get());
      mark_foldable(static_cast<LogicExpr*>(e)->right.get());
      f = a;
      break;
    }
    case ExprKind::Concat:
      f = all(static_cast<ConcatExpr*>(e)->items, [](ExprPtr& x) { return x.get(); });
      break;
    case ExprKind::Compare: {
      // A chain stops at the first false comparison: later operands count only when reached.
      auto* c = static_cast<CompareExpr*>(e);
      bool ok = mark_foldable(c->first.get());
      for (std::size_t i = 0; i < c->ops.size(); ++i) {
        bool b = mark_foldable(c->ops[i].second.get());
        if (i == 0) ok = ok && b;
      }
      f = ok;
      break;
    }
    case ExprKind::CondExpr: {
      // Only the chosen branch is evaluated (checked while folding).
      auto* c = static_cast<CondExpr*>(e);
      bool t = mark_foldable(c->test.get());
      bool a = mark_foldable(c->expr1.get());
      bool b = c->expr2 ? mark_foldable(c->expr2.get()) : false;
      f = t && (a || b);
      break;
    }
    case ExprKind::Filter:
    case ExprKind::Test: {
      auto* fe = static_cast<FilterExpr*>(e);
      bool ok = fe->node ? mark_foldable(fe->node.get()) : false;
      for (auto& x : fe->args.args) ok = mark_foldable(x.get()) && ok;
      for (auto& kv : fe->args.kwargs) ok = mark_foldable(kv.second.get()) && ok;
      ok = mark_foldable(fe->args.dyn_args.get()) && ok;
      ok = mark_foldable(fe->args.dyn_kwargs.get()) && ok;
      static const std::set<std::string> context_filters = {"map",        "select",     "reject",
                                                            "selectattr", "rejectattr", "random"};
      if (fe->id < 0 || (e->kind == ExprKind::Filter && context_filters.count(fe->name))) ok = false;
      f = ok;
      break;
    }
    case ExprKind::Call: {
      auto* c = static_cast<CallExpr*>(e);
      mark_foldable(c->fn.get());
      for (auto& x : c->args.args) mark_foldable(x.get());
      for (auto& kv : c->args.kwargs) mark_foldable(kv.second.get());
      mark_foldable(c->args.dyn_args.get());
      mark_foldable(c->args.dyn_kwargs.get());
      break;
    }
    default:
      break;  // Name, NSRef: never constant
  }
  e->foldable = f;
  return f;
}

}  // namespace openrecipes::rows::template_engine
