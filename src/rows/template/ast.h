// The compiled form of a chat template: Jinja2's node tree (jinja2/nodes.py) with every variable resolved to a
// slot of a function activation, the way Jinja2's compiler resolves names (jinja2/idtracking.py).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace openrecipes::rows::template_engine {

/// A variable: slot `slot` of the activation `hops` function levels up the static chain (0 = current function).
struct VarRef {
  std::uint16_t hops = 0;
  std::uint16_t slot = 0;
};

/// Jinja2's frame load instructions (VAR_LOAD_*), run when a frame is entered (each loop iteration re-enters).
enum class LoadKind : std::uint8_t { Param, Resolve, Alias, Undefined };
struct FrameLoad {
  std::uint16_t slot = 0;
  LoadKind kind = LoadKind::Undefined;
  std::string name;  // Resolve: the context name
  VarRef alias;      // Alias: the outer variable, relative to this frame's function
};
struct FrameInfo {
  std::vector<FrameLoad> loads;
};

/// A Python function of Jinja2's generated code (root, macro, call block, recursive loop, loop filter, block).
struct FunctionInfo {
  std::uint16_t slot_count = 0;
  std::vector<std::string> slot_names;  // for messages
};

enum class ExprKind : std::uint8_t {
  Const,
  Name,
  List,
  Tuple,
  Dict,
  Getattr,
  Getitem,
  Slice,
  Call,
  Filter,
  Test,
  Binary,
  Unary,
  And,
  Or,
  Concat,
  Compare,
  CondExpr,
  NSRef,
};

struct Expr {
  explicit Expr(ExprKind k) : kind(k) {}
  virtual ~Expr() = default;
  ExprKind kind;
  std::uint32_t line = 0, col = 0;
  std::uint32_t height = 1;  // longest path to a leaf (bounded by max_depth)
  // Jinja2's compiler may fold this expression into a constant (nodes.Expr.as_const): it is built from
  // literals, operators, subscripts and context-free filters/tests only (a conditional needs its chosen branch
  // to be foldable, known only when evaluated).
  bool foldable = false;
};
using ExprPtr = std::unique_ptr<Expr>;

enum class NameCtx : std::uint8_t { Load, Store, Param };

struct ConstExpr final : Expr {
  ConstExpr() : Expr(ExprKind::Const) {}
  enum class Type : std::uint8_t { None, Bool, Int, Float, Str } type = Type::None;
  bool b = false;
  std::int64_t i = 0;
  double f = 0;
  std::string s;
};

struct NameExpr final : Expr {
  NameExpr() : Expr(ExprKind::Name) {}
  std::string name;
  NameCtx ctx = NameCtx::Load;
  VarRef ref;
};

struct SeqExpr final : Expr {  // List or Tuple
  explicit SeqExpr(ExprKind k) : Expr(k) {}
  std::vector<ExprPtr> items;
  NameCtx ctx = NameCtx::Load;
};

struct DictExpr final : Expr {
  DictExpr() : Expr(ExprKind::Dict) {}
  std::vector<std::pair<ExprPtr, ExprPtr>> items;
};

struct GetattrExpr final : Expr {
  GetattrExpr() : Expr(ExprKind::Getattr) {}
  ExprPtr obj;
  std::string attr;
  int attr_id = -1;  // AttrId of a known method/attribute name, -1 otherwise
};

struct GetitemExpr final : Expr {
  GetitemExpr() : Expr(ExprKind::Getitem) {}
  ExprPtr obj;
  ExprPtr arg;  // may be a SliceExpr
};

struct SliceExpr final : Expr {
  SliceExpr() : Expr(ExprKind::Slice) {}
  ExprPtr start, stop, step;  // each may be null
};

struct CallArgs {
  std::vector<ExprPtr> args;
  std::vector<std::pair<std::string, ExprPtr>> kwargs;
  ExprPtr dyn_args, dyn_kwargs;
};

struct CallExpr final : Expr {
  CallExpr() : Expr(ExprKind::Call) {}
  ExprPtr fn;
  CallArgs args;
};

/// A filter (`x|name(args)`) or test (`x is name(args)`). `node` is null for {% filter %} / {% set x | f %}.
struct FilterExpr final : Expr {
  explicit FilterExpr(ExprKind k) : Expr(k) {}
  ExprPtr node;
  std::string name;
  int id = -1;  // builtin filter/test id, -1 when unknown (raises at runtime when reached)
  CallArgs args;
};

enum class BinOp : std::uint8_t { Add, Sub, Mul, Div, FloorDiv, Mod, Pow };
enum class UnOp : std::uint8_t { Neg, Pos, Not };
enum class CmpOp : std::uint8_t { Eq, Ne, Gt, GtEq, Lt, LtEq, In, NotIn };

struct BinaryExpr final : Expr {
  BinaryExpr() : Expr(ExprKind::Binary) {}
  BinOp op = BinOp::Add;
  ExprPtr left, right;
};

struct UnaryExpr final : Expr {
  UnaryExpr() : Expr(ExprKind::Unary) {}
  UnOp op = UnOp::Not;
  ExprPtr operand;
};

struct LogicExpr final : Expr {  // And / Or
  explicit LogicExpr(ExprKind k) : Expr(k) {}
  ExprPtr left, right;
};

struct ConcatExpr final : Expr {
  ConcatExpr() : Expr(ExprKind::Concat) {}
  std::vector<ExprPtr> items;
};

struct CompareExpr final : Expr {
  CompareExpr() : Expr(ExprKind::Compare) {}
  ExprPtr first;
  std::vector<std::pair<CmpOp, ExprPtr>> ops;
};

struct CondExpr final : Expr {
  CondExpr() : Expr(ExprKind::CondExpr) {}
  ExprPtr test, expr1, expr2;  // expr2 may be null
};

struct NSRefExpr final : Expr {
  NSRefExpr() : Expr(ExprKind::NSRef) {}
  std::string name, attr;
  VarRef ref;
};

// ---------------------------------------------------------------------------------------------------------

enum class StmtKind : std::uint8_t {
  Output,
  If,
  For,
  Assign,
  AssignBlock,
  Macro,
  CallBlock,
  FilterBlock,
  With,
  Break,
  Continue,
  Block,
  FileAccess,
};

struct Stmt {
  explicit Stmt(StmtKind k) : kind(k) {}
  virtual ~Stmt() = default;
  StmtKind kind;
  std::uint32_t line = 0, col = 0;
};
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

struct OutputPart {
  std::string data;  // template text, when expr is null
  ExprPtr expr;
};
struct OutputStmt final : Stmt {
  OutputStmt() : Stmt(StmtKind::Output) {}
  std::vector<OutputPart> parts;
};

struct IfStmt final : Stmt {
  IfStmt() : Stmt(StmtKind::If) {}
  std::vector<std::pair<ExprPtr, Body>> branches;  // if + elifs
  Body else_body;
};

struct ForStmt final : Stmt {
  ForStmt() : Stmt(StmtKind::For) {}
  ExprPtr target, iter, filter;
  Body body, else_body;
  bool recursive = false;
  bool extended = false;  // the body uses `loop`
  std::uint16_t loop_slot = 0;
  FrameInfo body_frame, else_frame, test_frame;
  FunctionInfo loop_fn;  // recursive loops run in their own function
  FunctionInfo test_fn;  // the loop filter runs in its own function (a generator in Jinja2)
  std::vector<std::pair<std::string, std::uint16_t>> test_target;  // loop target names -> test_fn slots
};

struct AssignStmt final : Stmt {
  AssignStmt() : Stmt(StmtKind::Assign) {}
  ExprPtr target, value;
  bool toplevel = false;
};

struct AssignBlockStmt final : Stmt {
  AssignBlockStmt() : Stmt(StmtKind::AssignBlock) {}
  ExprPtr target;
  ExprPtr filter;  // FilterExpr chain with a null innermost node, or null
  Body body;
  FrameInfo frame;
  bool toplevel = false;
};

/// A macro or call-block body: parameters, defaults, and the function it runs in.
struct MacroDef {
  std::string name;  // empty for call blocks ("caller")
  std::vector<std::string> arg_names;
  std::vector<std::uint16_t> arg_slots;
  std::vector<ExprPtr> defaults;  // for the last defaults.size() arguments
  Body body;
  FunctionInfo fn;
  FrameInfo frame;
  bool accesses_caller = false, accesses_kwargs = false, accesses_varargs = false;
  std::uint16_t caller_slot = 0, kwargs_slot = 0, varargs_slot = 0;
  int explicit_caller = -1;  // index of a parameter named caller
};

struct MacroStmt final : Stmt {
  MacroStmt() : Stmt(StmtKind::Macro) {}
  std::shared_ptr<MacroDef> def;
  VarRef target;
  bool toplevel = false;
};

/// {% call(args) f(...) %}body{% endcall %} and transformers' {% generation %}body{% endgeneration %} (call is
/// null: the body renders in place).
struct CallBlockStmt final : Stmt {
  CallBlockStmt() : Stmt(StmtKind::CallBlock) {}
  std::unique_ptr<CallExpr> call;
  std::shared_ptr<MacroDef> caller;
};

struct FilterBlockStmt final : Stmt {
  FilterBlockStmt() : Stmt(StmtKind::FilterBlock) {}
  ExprPtr filter;
  Body body;
  FrameInfo frame;
};

struct WithStmt final : Stmt {
  WithStmt() : Stmt(StmtKind::With) {}
  std::vector<ExprPtr> targets, values;
  Body body;
  FrameInfo frame;
};

struct BlockStmt final : Stmt {  // {% block %}: renders in place, in its own context-only function
  BlockStmt() : Stmt(StmtKind::Block) {}
  std::string name;
  Body body;
  FunctionInfo fn;
  FrameInfo frame;
};

struct FileAccessStmt final : Stmt {  // include/import/extends: no loader in the sandbox
  FileAccessStmt() : Stmt(StmtKind::FileAccess) {}
  std::string tag;
};

struct SimpleStmt final : Stmt {  // break / continue
  explicit SimpleStmt(StmtKind k) : Stmt(k) {}
};

/// A compiled template.
struct Program {
  std::string name;
  Body body;
  FunctionInfo root_fn;
  FrameInfo root_frame;
};

}  // namespace openrecipes::rows::template_engine
