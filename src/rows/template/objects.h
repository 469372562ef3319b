// Runtime objects behind the non-data value kinds: function activations (local variables), macros, Jinja2's
// LoopContext, lazy iterators (filters that return generators in Jinja2), bound methods, cycler and joiner.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rows/template/ast.h"
#include "rows/template/value.h"

namespace openrecipes::rows::template_engine {

class Interp;

/// The local variables of one running function (root, macro call, call block, loop filter, block). `parent` is
/// the activation the function was defined in (Python closures), null for root and blocks.
struct Activation final : Object {
  Rc<Activation> parent;
  std::vector<Value> slots;
};

/// jinja2.runtime.Macro: a macro or call-block body with the activation it closes over.
struct MacroObj final : Object {
  const MacroDef* def = nullptr;
  Rc<Activation> closure;
  bool is_caller = false;  // call-block body: repr "<Macro anonymous>"
};

/// A lazy Python iterator (a generator of map/select/reject..., reversed(list), dict.items()...). next() yields
/// the next item or returns false at the end; it may evaluate template code (filters, tests).
struct IterObj : Object {
  const char* py_type = "generator";
  std::uint32_t depth = 1;  // 1 + the depth of what it iterates (bounded by kMaxValueDepth)
  virtual bool next(Interp& in, Value& out) = 0;
};

/// A position in an iteration over a value (Python's iter()): lists, tuples and dicts by live index, strings by
/// byte offset, lazy iterators through IterObj::next().
struct Cursor {
  enum class Mode : std::uint8_t { Empty, Seq, DictKeys, Str, Iter } mode = Mode::Empty;
  Value src;
  std::size_t pos = 0;
};

/// jinja2.runtime.LoopContext.
struct LoopObj final : Object {
  Value iterable;  // what the loop iterates (for len())
  Cursor cursor;   // items not yet consumed
  std::int64_t index0 = -1;
  std::int64_t length = -1;         // -1: not known yet
  Value after = Value::missing();   // peeked next item
  Value before = Value::missing();  // previous item
  Value current = Value::missing();
  Value last_changed = Value::missing();
  std::int64_t depth0 = 0;
  const ForStmt* recursive = nullptr;  // set for `for ... recursive` loops: loop(x) renders again
  Rc<Activation> recurse_parent;
};

/// A bound method of a value (str.upper, dict.items, loop.cycle...). `id` is a MethodId.
struct MethodObj final : Object {
  Value self;
  int id = 0;
  std::string name;
};

/// jinja2.utils.Cycler and Joiner.
struct CyclerObj final : Object {
  std::vector<Value> items;
  std::size_t pos = 0;
};
struct JoinerObj final : Object {
  Value sep;
  bool used = false;
};

/// loop.length (may consume a lazy iterator into a list); defined by the interpreter.
std::int64_t loop_length(Interp* in, LoopObj& loop);

}  // namespace openrecipes::rows::template_engine
