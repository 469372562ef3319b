// The tree-walking evaluator of a compiled chat template: Jinja2's runtime semantics (frames, loops, macros,
// call blocks, filters, tests, sandboxed attribute access) under TemplateLimits.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rows/template/ast.h"
#include "rows/template/chat_template.h"
#include "rows/template/objects.h"
#include "rows/template/value.h"

namespace openrecipes::rows::template_engine {

/// Call arguments: positional values and keyword arguments.
struct Args {
  std::vector<Value> pos;
  std::vector<std::pair<std::string, Value>> kw;
  /// The keyword argument `name`, or null.
  const Value* kwarg(std::string_view name) const;
};

/// Binds Python-style parameters: `names` in order; fills `out[i]` with the positional or keyword argument for
/// names[i] (null when not given). Fails with TypeError like Python for extra or unknown arguments.
void bind_args(const Args& a, std::initializer_list<const char*> names, const Value** out, const char* fn_name,
               std::size_t required = 0);

/// The render variables (template.render(**variables)), converted from the caller's JSON on first use.
class VarSource {
 public:
  virtual ~VarSource() = default;
  virtual bool lookup(std::string_view name, Value& out) = 0;
};

class Interp {
 public:
  Interp(const Program& prog, const RenderOptions& options, VarSource& vars);
  /// Renders the template; throws Failure (with the line of the failing node).
  std::string run();

  // ---- services for the builtins ----
  /// Counts `n` evaluation steps against max_steps.
  void step(std::uint64_t n = 1) {
    steps_ += n;
    if (steps_ > max_steps_) fail_steps();
  }
  /// Counts string work of `bytes` (one step per 64 bytes).
  void work(std::size_t bytes) { step(bytes / 64); }
  const RenderOptions& options() const { return options_; }

  Value getattr(const Value& obj, std::string_view name, int attr_id);
  Value getitem(const Value& obj, const Value& key);
  /// Calls any callable value (macro, builtin, bound method, joiner, recursive loop).
  Value call(const Value& callee, Args& args);
  Value call_filter(int id, std::string_view name, const Value& input, Args& args);
  bool call_test(int id, std::string_view name, const Value& v, Args& args);
  /// iter(v); fails with TypeError for values that are not iterable.
  Cursor iter(const Value& v);
  bool next(Cursor& c, Value& out);
  /// list(v).
  std::vector<Value> to_vector(const Value& v);
  /// Fails with LimitExceeded when `out` is longer than max_output_bytes.
  void check_output(const std::string& out) const;

  std::int64_t loop_length(LoopObj& loop);
  /// Keeps a namespace until the render ends, when all namespaces are emptied (they may reference each other).
  void register_namespace(NamespaceObj* ns);

 private:
  enum class Flow : std::uint8_t { Normal, Break, Continue };

  const Program& prog_;
  const RenderOptions& options_;
  VarSource& vars_;
  std::uint64_t steps_ = 0;
  std::uint64_t max_steps_;
  std::size_t call_depth_ = 0;
  std::uintptr_t stack_base_ = 0;
  std::uint32_t line_ = 0, col_ = 0;
  bool folding_ = false;  // evaluating like Jinja2's compile-time constant folding (as_const)
  Activation* act_ = nullptr;
  std::string* out_ = nullptr;
  /// While it lives, the interpreter runs in `act` and renders into `out` (a macro call or a recursive loop);
  /// on the way out, also by an exception, act's slots are cleared (breaking closure cycles: macros defined
  /// inside the call) and the previous activation and output are back.
  class ActivationScope {
   public:
    ActivationScope(Interp& in, Activation* act, std::string* out)
        : in_(in), saved_act_(in.act_), saved_out_(in.out_), act_(act) {
      in.act_ = act;
      in.out_ = out;
    }
    ~ActivationScope() {
      act_->slots.clear();
      in_.act_ = saved_act_;
      in_.out_ = saved_out_;
    }
    ActivationScope(const ActivationScope&) = delete;
    ActivationScope& operator=(const ActivationScope&) = delete;

   private:
    Interp& in_;
    Activation* saved_act_;
    std::string* saved_out_;
    Activation* act_;
  };
  std::vector<std::pair<std::string, Value>> toplevel_vars_;  // context.vars written by top-level {% set %}
  std::vector<std::pair<std::string, Value>> resolved_;       // cache of converted render variables
  std::vector<Rc<NamespaceObj>> namespaces_;                  // every namespace() of this render

  void release_all(Activation& root);

  [[noreturn]] void fail_steps() const;
  void check_stack();

  Value& slot(VarRef r);
  Value resolve(const std::string& name);
  void enter_frame(const FrameInfo& f);
  void leave_frame(const FrameInfo& f);

  Flow exec_body(const Body& b);
  Flow exec(const Stmt& s);
  Flow exec_for(const ForStmt& f);
  Flow run_loop(const ForStmt& f, const Value& iterable, std::int64_t depth0);
  /// Runs a `{% for ... recursive %}` loop body in its own activation (Jinja2's `def loop(reciter,
  /// loop_render_func, depth=0)`) whose parent is `parent`, and returns what it rendered.
  std::string run_recursive_loop(const ForStmt& f, Rc<Activation> parent, const Value& iterable, std::int64_t depth0);
  void exec_output(const OutputStmt& o);
  void exec_assign(const Expr& target, Value v, bool toplevel);
  void assign_test_target(const ForStmt& f, const Expr& target, const Value& v, Activation& test_act);
  void set_toplevel(const std::string& name, const Value& v);

  Value eval(const Expr& e);
  Value eval_node(const Expr& e);
  bool try_fold(const Expr& e, Value& out, bool need_safe_repr);
  [[noreturn]] void not_constant() const;
  Value eval_call(const CallExpr& c);
  void eval_args(const CallArgs& a, Args& out);
  Value eval_filter(const FilterExpr& f, const Value* block_input);
  Value eval_compare(const CompareExpr& c);
  Value eval_add_chain(const BinaryExpr& top);
  Value eval_slice_get(const Value& obj, const SliceExpr& s);

  Value call_macro(MacroObj& m, Args& args);
  std::string capture_body(const Body& b, const FrameInfo& frame, Flow* flow_out);

  friend struct FilterLoopIter;
  friend std::int64_t template_engine::loop_length(Interp* in, LoopObj& loop);
};

// ---- builtins (filters.cpp, jinja_tests.cpp, globals.cpp, access.cpp) ----
Value apply_filter(Interp& in, int id, const Value& input, Args& args);
bool apply_test(Interp& in, int id, const Value& v, Args& args);
Value call_global(Interp& in, int id, Args& args);
/// Value of a global name (range, dict, namespace, cycler, joiner, lipsum, raise_exception, strftime_now).
bool lookup_global(std::string_view name, Value& out);
/// AttrId of a known attribute/method name, or -1.
int attr_id(std::string_view name);
/// Jinja2's sandboxed getattr / getitem (ImmutableSandboxedEnvironment).
Value sandbox_getattr(Interp& in, const Value& obj, std::string_view name, int attr_id);
Value sandbox_getitem(Interp& in, const Value& obj, const Value& key);
/// Calls obj.name(*args) directly when `obj` has a safe method `name` (returns false otherwise).
bool call_method_fast(Interp& in, const Value& obj, std::string_view name, int attr_id, Args& args, Value& out);
/// Whether Python's getattr(obj, name) finds an attribute (not a dict key), as |attr checks.
bool has_python_attr(const Value& obj, std::string_view name);
/// Calls a bound method object.
Value call_bound_method(Interp& in, MethodObj& m, Args& args);

/// Converts a JSON value of the caller's variables (strings are borrowed: the JSON must outlive the render).
template <class Json>
Value value_from_json(const Json& j);

}  // namespace openrecipes::rows::template_engine
