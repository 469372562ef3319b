// A generic walk over a template's tree in Jinja2's NodeVisitor order (jinja2/visitor.py, nodes.py
// iter_child_nodes), close enough for find_undeclared/find_all: calls f.on_expr(Expr&) and f.on_stmt(Stmt&) on
// every node, entering macro and block bodies as told.
#pragma once

#include "rows/template/ast.h"

namespace openrecipes::rows::template_engine {

template <class F>
void walk_expr(Expr* e, F& f);
template <class F>
void walk_body(Body& b, F& f, bool into_blocks);

template <class F>
void walk_args(CallArgs& a, F& f) {
  for (auto& x : a.args) walk_expr(x.get(), f);
  for (auto& kv : a.kwargs) walk_expr(kv.second.get(), f);
  walk_expr(a.dyn_args.get(), f);
  walk_expr(a.dyn_kwargs.get(), f);
}

template <class F>
void walk_expr(Expr* e, F& f) {
  if (e == nullptr) return;
  f.on_expr(*e);
  switch (e->kind) {
    case ExprKind::List:
    case ExprKind::Tuple:
      for (auto& x : static_cast<SeqExpr*>(e)->items) walk_expr(x.get(), f);
      break;
    case ExprKind::Dict:
      for (auto& kv : static_cast<DictExpr*>(e)->items) {
        walk_expr(kv.first.get(), f);
        walk_expr(kv.second.get(), f);
      }
      break;
    case ExprKind::Getattr:
      walk_expr(static_cast<GetattrExpr*>(e)->obj.get(), f);
      break;
    case ExprKind::Getitem:
      walk_expr(static_cast<GetitemExpr*>(e)->obj.get(), f);
      walk_expr(static_cast<GetitemExpr*>(e)->arg.get(), f);
      break;
    case ExprKind::Slice: {
      auto* s = static_cast<SliceExpr*>(e);
      walk_expr(s->start.get(), f);
      walk_expr(s->stop.get(), f);
      walk_expr(s->step.get(), f);
      break;
    }
    case ExprKind::Call:
      walk_expr(static_cast<CallExpr*>(e)->fn.get(), f);
      walk_args(static_cast<CallExpr*>(e)->args, f);
      break;
    case ExprKind::Filter:
    case ExprKind::Test:
      walk_expr(static_cast<FilterExpr*>(e)->node.get(), f);
      walk_args(static_cast<FilterExpr*>(e)->args, f);
      break;
    case ExprKind::Binary:
      walk_expr(static_cast<BinaryExpr*>(e)->left.get(), f);
      walk_expr(static_cast<BinaryExpr*>(e)->right.get(), f);
      break;
    case ExprKind::Unary:
      walk_expr(static_cast<UnaryExpr*>(e)->operand.get(), f);
      break;
    case ExprKind::And:
    case ExprKind::Or:
      walk_expr(static_cast<LogicExpr*>(e)->left.get(), f);
      walk_expr(static_cast<LogicExpr*>(e)->right.get(), f);
      break;
    case ExprKind::Concat:
      for (auto& x : static_cast<ConcatExpr*>(e)->items) walk_expr(x.get(), f);
      break;
    case ExprKind::Compare:
      walk_expr(static_cast<CompareExpr*>(e)->first.get(), f);
      for (auto& op : static_cast<CompareExpr*>(e)->ops) walk_expr(op.second.get(), f);
      break;
    case ExprKind::CondExpr: {
      auto* c = static_cast<CondExpr*>(e);
      walk_expr(c->test.get(), f);
      walk_expr(c->expr1.get(), f);
      walk_expr(c->expr2.get(), f);
      break;
    }
    default:
      break;
  }
}

template <class F>
void walk_macro(MacroDef& d, F& f, bool into_blocks) {
  for (auto& x : d.defaults) walk_expr(x.get(), f);
  walk_body(d.body, f, into_blocks);
}

template <class F>
void walk_stmt(Stmt& s, F& f, bool into_blocks) {
  f.on_stmt(s);
  switch (s.kind) {
    case StmtKind::Output:
      for (auto& p : static_cast<OutputStmt&>(s).parts) walk_expr(p.expr.get(), f);
      break;
    case StmtKind::If: {
      auto& i = static_cast<IfStmt&>(s);
      for (auto& br : i.branches) {
        walk_expr(br.first.get(), f);
        walk_body(br.second, f, into_blocks);
      }
      walk_body(i.else_body, f, into_blocks);
      break;
    }
    case StmtKind::For: {
      auto& fo = static_cast<ForStmt&>(s);
      walk_expr(fo.target.get(), f);
      walk_expr(fo.iter.get(), f);
      walk_body(fo.body, f, into_blocks);
      walk_body(fo.else_body, f, into_blocks);
      walk_expr(fo.filter.get(), f);
      break;
    }
    case StmtKind::Assign:
      walk_expr(static_cast<AssignStmt&>(s).target.get(), f);
      walk_expr(static_cast<AssignStmt&>(s).value.get(), f);
      break;
    case StmtKind::AssignBlock: {
      auto& a = static_cast<AssignBlockStmt&>(s);
      walk_expr(a.target.get(), f);
      walk_body(a.body, f, into_blocks);
      walk_expr(a.filter.get(), f);
      break;
    }
    case StmtKind::Macro:
      walk_macro(*static_cast<MacroStmt&>(s).def, f, into_blocks);
      break;
    case StmtKind::CallBlock: {
      auto& c = static_cast<CallBlockStmt&>(s);
      if (c.call) walk_expr(c.call.get(), f);
      walk_macro(*c.caller, f, into_blocks);
      break;
    }
    case StmtKind::FilterBlock:
      walk_body(static_cast<FilterBlockStmt&>(s).body, f, into_blocks);
      walk_expr(static_cast<FilterBlockStmt&>(s).filter.get(), f);
      break;
    case StmtKind::With: {
      auto& w = static_cast<WithStmt&>(s);
      for (auto& t : w.targets) walk_expr(t.get(), f);
      for (auto& v : w.values) walk_expr(v.get(), f);
      walk_body(w.body, f, into_blocks);
      break;
    }
    case StmtKind::Block:
      if (into_blocks) walk_body(static_cast<BlockStmt&>(s).body, f, into_blocks);
      break;
    default:
      break;
  }
}

template <class F>
void walk_body(Body& b, F& f, bool into_blocks) {
  for (auto& s : b) walk_stmt(*s, f, into_blocks);
}

}  // namespace openrecipes::rows::template_engine
