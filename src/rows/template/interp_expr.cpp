// Expressions in the evaluator (jinja2/compiler.py visit_* for expressions): variables, attribute and item
// access through the sandbox, filters and tests, slicing, `~`/+ chains, comparisons, and Jinja2's compile-time
// constant folding (nodes.as_const, has_safe_repr).
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
