// Evaluates a compiled template with Jinja2's runtime semantics (jinja2/compiler.py generated code and
// jinja2/runtime.py): the render entry point, call arguments, frames and slots, variables and iteration, and the
// sandbox limits (steps, output, native stack). Statements, calls and expressions are in interp_stmt.cpp,
// interp_call.cpp and interp_expr.cpp.
#include "rows/template/interp.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include "rows/template/failure.h"
#include "rows/template/pyformat.h"
#include "rows/template/pyops.h"
#include "rows/template/pystr.h"
#include "rows/template/unicode.h"

namespace openrecipes::rows::template_engine {

namespace {
constexpr std::uintptr_t kMaxStackBytes = 1u << 20;  // native recursion bound (deep macro/expression nesting)
}

const Value* Args::kwarg(std::string_view name) const {
  for (const auto& kv : kw)
    if (kv.first == name) return &kv.second;
  return nullptr;
}

void bind_args(const Args& a, std::initializer_list<const char*> names, const Value** out, const char* fn_name,
               std::size_t required) {
  std::size_t n = names.size();
  for (std::size_t i = 0; i < n; ++i) out[i] = nullptr;
  if (a.pos.size() > n)
    fail(PyError::TypeError, std::string(fn_name) + "() takes " + std::to_string(n) + " positional arguments but " +
                                 std::to_string(a.pos.size()) + " were given");
  for (std::size_t i = 0; i < a.pos.size(); ++i) out[i] = &a.pos[i];
  for (const auto& kv : a.kw) {
    std::size_t i = 0;
    for (const char* nm : names) {
      if (kv.first == nm) break;
      ++i;
    }
    if (i == n)
      fail(PyError::TypeError, std::string(fn_name) + "() got an unexpected keyword argument '" + kv.first + "'");
    if (out[i] != nullptr)
      fail(PyError::TypeError, std::string(fn_name) + "() got multiple values for argument '" + kv.first + "'");
    out[i] = &kv.second;
  }
  for (std::size_t i = 0; i < required; ++i)
    if (out[i] == nullptr)
      fail(PyError::TypeError, std::string(fn_name) + "() missing required argument: '" + *(names.begin() + i) + "'");
}

Interp::Interp(const Program& prog, const RenderOptions& options, VarSource& vars)
    : prog_(prog), options_(options), vars_(vars), max_steps_(options.limits.max_steps) {}

void Interp::fail_steps() const {
  fail(PyError::LimitExceeded, "the template ran more than max_steps (" + std::to_string(max_steps_) +
                                   ") evaluation steps (loop iterations, expressions, items processed)");
}

// The frame address, not a local's: under AddressSanitizer's use-after-return detection locals live on a fake stack
// on the heap, which made the guard miss (make test-asan's stack overflow in
// ChatTemplateLimits.native_stack_guard_catches_recursion_when_max_depth_is_raised).
void Interp::check_stack() {
  auto here = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  if (stack_base_ > here && stack_base_ - here > kMaxStackBytes)
    fail(PyError::LimitExceeded, "the template nests too deeply (more than " + std::to_string(kMaxStackBytes >> 10) +
                                     " KiB of native stack; max_depth bounds macro calls and source nesting)");
}

void Interp::check_output(const std::string& out) const {
  if (out.size() > options_.limits.max_output_bytes)
    fail(PyError::LimitExceeded,
         "the rendered text exceeds max_output_bytes (" + std::to_string(options_.limits.max_output_bytes) + " bytes)");
}

std::string Interp::run() {
  stack_base_ = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  auto root = Rc<Activation>::adopt(new Activation());
  root->slots.assign(prog_.root_fn.slot_count, Value::missing());
  std::string out;
  act_ = root.get();
  out_ = &out;
  try {
    enter_frame(prog_.root_frame);
    exec_body(prog_.body);
  } catch (Failure& f) {
    if (f.line == 0) {
      f.line = line_;
      f.col = col_;
    }
    release_all(*root);
    throw;
  }
  release_all(*root);
  return out;
}

void Interp::register_namespace(NamespaceObj* ns) {
  charge_alloc(sizeof(NamespaceObj));
  namespaces_.push_back(Rc<NamespaceObj>::share(ns));
}

void Interp::release_all(Activation& root) {
  // Break every reference cycle the render may have made (macro closures, namespaces holding each other) and
  // keep destruction flat: namespaces are emptied while the registry still holds them all.
  root.slots.clear();
  toplevel_vars_.clear();
  resolved_.clear();
  for (auto& ns : namespaces_) ns->attrs.clear();
  namespaces_.clear();
}

// ---------------------------------------------------------------------------------------------------------
// Variables

Value& Interp::slot(VarRef r) {
  Activation* a = act_;
  for (std::uint16_t h = 0; h < r.hops; ++h) a = a->parent.get();
  return a->slots[r.slot];
}

Value Interp::resolve(const std::string& name) {
  for (const auto& kv : toplevel_vars_)
    if (kv.first == name) return kv.second;
  for (const auto& kv : resolved_)
    if (kv.first == name) return kv.second;
  Value v;
  if (vars_.lookup(name, v)) {
    resolved_.emplace_back(name, v);
    return v;
  }
  if (lookup_global(name, v)) return v;
  return Value::missing();
}

void Interp::set_toplevel(const std::string& name, const Value& v) {
  for (auto& kv : toplevel_vars_)
    if (kv.first == name) {
      kv.second = v;
      return;
    }
  toplevel_vars_.emplace_back(name, v);
}

void Interp::enter_frame(const FrameInfo& f) {
  for (const FrameLoad& l : f.loads) {
    switch (l.kind) {
      case LoadKind::Param:
        break;
      case LoadKind::Resolve:
        act_->slots[l.slot] = resolve(l.name);
        break;
      case LoadKind::Alias: {
        Value v = slot(l.alias);
        act_->slots[l.slot] = std::move(v);
        break;
      }
      case LoadKind::Undefined:
        act_->slots[l.slot] = Value::missing();
        break;
    }
  }
}

void Interp::leave_frame(const FrameInfo& f) {
  for (const FrameLoad& l : f.loads) act_->slots[l.slot] = Value::missing();
}

// ---------------------------------------------------------------------------------------------------------
// Iteration

Cursor Interp::iter(const Value& v) {
  Cursor c;
  switch (v.kind()) {
    case Kind::Missing:
    case Kind::Undefined:
      c.mode = Cursor::Mode::Empty;
      break;
    case Kind::List:
    case Kind::Tuple:
      c.mode = Cursor::Mode::Seq;
      break;
    case Kind::Dict:
      c.mode = Cursor::Mode::DictKeys;
      break;
    case Kind::Str:
      c.mode = Cursor::Mode::Str;
      break;
    case Kind::Iterator:
      c.mode = Cursor::Mode::Iter;
      break;
    case Kind::Loop:
      fail(PyError::Unsupported, "iterating over a loop object is not supported");
    default:
      fail(PyError::TypeError, "'" + type_name(v) + "' object is not iterable");
  }
  c.src = v;
  return c;
}

bool Interp::next(Cursor& c, Value& out) {
  switch (c.mode) {
    case Cursor::Mode::Empty:
      return false;
    case Cursor::Mode::Seq: {
      const auto& items = c.src.list().items;
      if (c.pos >= items.size()) return false;
      out = items[c.pos++];
      return true;
    }
    case Cursor::Mode::DictKeys: {
      const auto& items = c.src.dict().items;
      if (c.pos >= items.size()) return false;
      out = items[c.pos++].first;
      return true;
    }
    case Cursor::Mode::Str: {
      std::string_view s = c.src.str();
      if (c.pos >= s.size()) return false;
      std::size_t start = c.pos;
      next_cp(s, c.pos);
      out = Value::substr(c.src, start, c.pos - start);
      if (out.is_safe()) out = Value::string(out.str());  // iterating a Markup yields plain str
      return true;
    }
    case Cursor::Mode::Iter:
      return static_cast<IterObj*>(c.src.obj())->next(*this, out);
  }
  return false;
}

std::vector<Value> Interp::to_vector(const Value& v) {
  if (v.is_seq()) {
    step(v.list().items.size());
    return v.list().items;
  }
  std::vector<Value> out;
  Cursor c = iter(v);
  Value item;
  while (next(c, item)) {
    step();
    out.push_back(item);
  }
  charge_alloc(out.size() * sizeof(Value));
  return out;
}

std::int64_t Interp::loop_length(LoopObj& l) {
  if (l.length >= 0) return l.length;
  if (has_len(l.iterable) && !l.iterable.is(Kind::Loop)) {
    l.length = static_cast<std::int64_t>(py_len(l.iterable));
    return l.length;
  }
  std::vector<Value> rest;
  Value item;
  while (next(l.cursor, item)) {
    step();
    rest.push_back(item);
  }
  std::int64_t n = static_cast<std::int64_t>(rest.size()) + l.index0 + 1 + (l.after.is(Kind::Missing) ? 0 : 1);
  l.cursor = Cursor();
  l.cursor.mode = Cursor::Mode::Seq;
  l.cursor.src = Value::new_list(std::move(rest));
  l.length = n;
  return n;
}

std::int64_t loop_length(Interp* in, LoopObj& loop) {
  if (in != nullptr) return in->loop_length(loop);
  if (loop.length >= 0) return loop.length;
  if (has_len(loop.iterable) && !loop.iterable.is(Kind::Loop)) {
    loop.length = static_cast<std::int64_t>(py_len(loop.iterable));
    return loop.length;
  }
  fail(PyError::Unsupported, "the length of this loop is not known here");
}

}  // namespace openrecipes::rows::template_engine
