// Runtime values of the chat-template engine: Python's object model as Jinja2 templates see it (None, bool, int,
// float, str, list, tuple, dict, Jinja2's Undefined, namespace, macro, loop, iterator, bound method), SPEC §1.2.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace openrecipes::rows::template_engine {

/// What a Value holds. `Missing` is internal: a local slot not yet assigned (Jinja2's `missing`); reading it
/// yields an Undefined.
enum class Kind : std::uint8_t {
  Missing,
  Undefined,
  None,
  Bool,
  Int,
  Float,
  Str,
  List,
  Tuple,
  Dict,
  Namespace,
  Macro,
  Loop,
  Iterator,
  Method,
  Builtin,
  Cycler,
  Joiner,
};

/// Base of every heap object a render creates. The reference count is not atomic: an object is created and
/// dropped inside one render, on one thread; the compiled template (shared across threads) holds none.
struct Object {
  std::uint32_t refs = 1;
  Object() = default;
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;
  virtual ~Object() = default;
};

inline void retain(Object* o) noexcept {
  if (o != nullptr) ++o->refs;
}
inline void release(Object* o) noexcept {
  if (o != nullptr && --o->refs == 0) delete o;
}

/// Intrusive pointer to an Object subclass (non-atomic counts, see Object).
template <class T>
class Rc {
 public:
  Rc() = default;
  /// Adopts a fresh object (refs == 1).
  static Rc adopt(T* p) {
    Rc r;
    r.p_ = p;
    return r;
  }
  /// Shares an existing object.
  static Rc share(T* p) {
    retain(p);
    Rc r;
    r.p_ = p;
    return r;
  }
  Rc(const Rc& o) noexcept : p_(o.p_) { retain(p_); }
  Rc(Rc&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  Rc& operator=(const Rc& o) noexcept {
    retain(o.p_);
    release(p_);
    p_ = o.p_;
    return *this;
  }
  Rc& operator=(Rc&& o) noexcept {
    if (this != &o) {
      release(p_);
      p_ = o.p_;
      o.p_ = nullptr;
    }
    return *this;
  }
  ~Rc() { release(p_); }
  T* get() const { return p_; }
  T* operator->() const { return p_; }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }

 private:
  T* p_ = nullptr;
};

/// Deepest nesting of lists/dicts/iterators a render may build (deeper values could not be printed by Python
/// either, and would make destruction and printing recurse without bound).
constexpr std::uint32_t kMaxValueDepth = 1000;

/// Charges `bytes` of allocation against the current render's budget (TemplateLimits::max_alloc_bytes); throws
/// a limit error when the render has allocated more than its budget in total. No-op outside a render.
void charge_alloc(std::size_t bytes);

/// Fails with LimitExceeded when a string being built would exceed min(max_output_bytes, max_alloc_bytes) (checked
/// while building text whose size is not known in advance: repr, JSON, joins, formatting). No-op outside a render.
void check_text_size(std::size_t bytes);

/// An owned string buffer (UTF-8), allocated in one block with its header.
struct StrObj final : Object {
  std::size_t size;
  char* data() { return reinterpret_cast<char*>(this + 1); }
  static StrObj* create(std::size_t n);
  static void operator delete(void* p) { ::operator delete(p); }

 private:
  explicit StrObj(std::size_t n) : size(n) {}
};

class Value;

/// Jinja2 Undefined details for its error message ("'x' is undefined", "'dict object' has no attribute 'y'",
/// a hint) and the exception it raises when used (UndefinedError, or SecurityError for unsafe attributes).
struct UndefinedInfo final : Object {
  std::string hint;
  std::string obj_type;  // object_type_repr of the object, empty when there is none
  std::string name;      // Python repr of the attribute/variable name or key
  bool name_is_str = true;
  bool security = false;
  std::string message() const;
};

/// What Python type a ListObj stands for besides a plain list/tuple: range(), dict views (keys(), values(),
/// items()), or the named tuple |groupby yields (.grouper, .list).
enum class ListFlavor : std::uint8_t { Plain, Range, DictKeys, DictValues, DictItems, GroupTuple };

/// A heap-held object payload of a list/tuple.
struct ListObj final : Object {
  ~ListObj() override;  // out of line: Value is complete only below (clang instantiates it here otherwise)
  std::vector<Value> items;
  std::uint32_t depth = 1;  // 1 + the deepest nested container among items
  ListFlavor flavor = ListFlavor::Plain;
  std::int64_t range_start = 0, range_stop = 0, range_step = 1;  // Range: printed as range(a, b[, c])
  bool plain() const { return flavor == ListFlavor::Plain || flavor == ListFlavor::GroupTuple; }
};

/// An insertion-ordered dict (Python 3.7+ semantics). Keys compare with Python ==.
struct DictObj final : Object {
  ~DictObj() override;
  std::vector<std::pair<Value, Value>> items;
  std::uint32_t depth = 1;
  /// Index of the item whose key == k, or -1.
  std::ptrdiff_t find(const Value& k) const;
  std::ptrdiff_t find_str(std::string_view k) const;
  void set(Value k, Value v);
};

/// jinja2.utils.Namespace: a mutable attribute bag created by namespace(...).
struct NamespaceObj final : Object {
  ~NamespaceObj() override;
  std::vector<std::pair<std::string, Value>> attrs;
  const Value* get(std::string_view name) const;
  void set(std::string_view name, Value v);
};

/// A Python value as Jinja2 sees it. Strings are UTF-8 views that either borrow bytes owned elsewhere for the
/// whole render (template constants, the caller's JSON variables) or own a StrObj. 24 bytes.
class Value {
 public:
  Value() noexcept : kind_(Kind::Undefined) { u_.i = 0; }
  Value(const Value& o) noexcept : kind_(o.kind_), safe_(o.safe_), len_(o.len_), u_(o.u_), obj_(o.obj_) {
    retain(obj_);
  }
  Value(Value&& o) noexcept : kind_(o.kind_), safe_(o.safe_), len_(o.len_), u_(o.u_), obj_(o.obj_) {
    o.obj_ = nullptr;
    o.kind_ = Kind::Undefined;
  }
  Value& operator=(const Value& o) noexcept {
    retain(o.obj_);
    release(obj_);
    kind_ = o.kind_;
    safe_ = o.safe_;
    len_ = o.len_;
    u_ = o.u_;
    obj_ = o.obj_;
    return *this;
  }
  Value& operator=(Value&& o) noexcept {
    if (this != &o) {
      release(obj_);
      kind_ = o.kind_;
      safe_ = o.safe_;
      len_ = o.len_;
      u_ = o.u_;
      obj_ = o.obj_;
      o.obj_ = nullptr;
      o.kind_ = Kind::Undefined;
    }
    return *this;
  }
  ~Value() { release(obj_); }

  // ---- construction ----
  static Value missing() {
    Value v;
    v.kind_ = Kind::Missing;
    return v;
  }
  /// A plain undefined variable named `name` (borrowed bytes: must outlive the render).
  static Value undefined_name(std::string_view name);
  /// An Undefined with full details (attribute misses, hints, unsafe attributes).
  static Value undefined_info(Rc<UndefinedInfo> info);
  static Value undefined_hint(std::string hint);
  static Value none() {
    Value v;
    v.kind_ = Kind::None;
    return v;
  }
  static Value boolean(bool b) {
    Value v;
    v.kind_ = Kind::Bool;
    v.u_.b = b;
    return v;
  }
  static Value integer(std::int64_t i) {
    Value v;
    v.kind_ = Kind::Int;
    v.u_.i = i;
    return v;
  }
  static Value floating(double f) {
    Value v;
    v.kind_ = Kind::Float;
    v.u_.f = f;
    return v;
  }
  /// A string borrowing `s` (bytes must stay valid for the render).
  static Value borrowed(std::string_view s, bool safe = false);
  /// A string owning a copy of `s`.
  static Value string(std::string_view s, bool safe = false);
  /// The bytes [off, off+len) of string `s`, sharing its storage (no copy).
  static Value substr(const Value& s, std::size_t off, std::size_t len) {
    Value v;
    v.kind_ = Kind::Str;
    v.safe_ = s.safe_;
    v.u_.s = s.u_.s + off;
    v.len_ = static_cast<std::uint32_t>(len);
    v.obj_ = s.obj_;
    retain(v.obj_);
    return v;
  }
  /// A string view `part` that lies inside string `s`'s bytes, sharing its storage.
  static Value view_of(const Value& s, std::string_view part) {
    if (part.empty()) return borrowed(std::string_view(), s.safe_);
    return substr(s, static_cast<std::size_t>(part.data() - s.u_.s), part.size());
  }
  /// A string owning `o` (refs already counted for this value).
  static Value from_strobj(StrObj* o, bool safe = false);
  static Value list(Rc<ListObj> l) { return object(Kind::List, l.get()); }
  static Value tuple(Rc<ListObj> l) { return object(Kind::Tuple, l.get()); }
  static Value dict(Rc<DictObj> d) { return object(Kind::Dict, d.get()); }
  static Value new_list(std::vector<Value> items);
  static Value new_tuple(std::vector<Value> items);
  static Value new_dict();
  /// Any object kind (Namespace, Macro, Loop, Iterator, Method, Cycler, Joiner...): shares `o`.
  static Value object(Kind k, Object* o) {
    Value v;
    v.kind_ = k;
    v.obj_ = o;
    retain(o);
    return v;
  }
  static Value builtin(int id) {
    Value v;
    v.kind_ = Kind::Builtin;
    v.u_.i = id;
    return v;
  }

  /// The same string marked safe (markupsafe.Markup).
  Value as_safe() const {
    Value v = *this;
    v.safe_ = true;
    return v;
  }

  // ---- inspection ----
  Kind kind() const { return kind_; }
  bool is(Kind k) const { return kind_ == k; }
  bool is_undefined() const { return kind_ == Kind::Undefined || kind_ == Kind::Missing; }
  bool is_str() const { return kind_ == Kind::Str; }
  bool is_safe() const { return safe_; }
  bool is_int_like() const { return kind_ == Kind::Int || kind_ == Kind::Bool; }
  bool is_number() const { return kind_ == Kind::Int || kind_ == Kind::Bool || kind_ == Kind::Float; }
  bool is_seq() const { return kind_ == Kind::List || kind_ == Kind::Tuple; }
  bool as_bool() const { return u_.b; }
  std::int64_t as_int() const { return kind_ == Kind::Bool ? (u_.b ? 1 : 0) : u_.i; }
  double as_float() const { return kind_ == Kind::Float ? u_.f : static_cast<double>(as_int()); }
  std::string_view str() const { return {u_.s, len_}; }
  int builtin_id() const { return static_cast<int>(u_.i); }
  ListObj& list() const { return *static_cast<ListObj*>(obj_); }
  DictObj& dict() const { return *static_cast<DictObj*>(obj_); }
  NamespaceObj& ns() const { return *static_cast<NamespaceObj*>(obj_); }
  Object* obj() const { return obj_; }
  /// The UndefinedInfo of an Undefined, or null for a plain undefined name.
  const UndefinedInfo* undefined_info() const {
    return kind_ == Kind::Undefined ? static_cast<const UndefinedInfo*>(obj_) : nullptr;
  }
  /// Name of a plain undefined variable (empty when it has an UndefinedInfo).
  std::string_view undefined_name() const { return {u_.s, len_}; }
  /// Message of the UndefinedError this undefined raises when used.
  std::string undefined_message() const;
  bool undefined_is_security() const {
    const UndefinedInfo* i = undefined_info();
    return i != nullptr && i->security;
  }

 private:
  Kind kind_;
  bool safe_ = false;
  std::uint32_t len_ = 0;
  union {
    bool b;
    std::int64_t i;
    double f;
    const char* s;
  } u_;
  Object* obj_ = nullptr;
};

/// Nesting depth of a value: containers and iterators count their levels, everything else is 0.
std::uint32_t value_depth(const Value& v);
/// Fails with LimitExceeded when `depth` exceeds kMaxValueDepth.
void check_value_depth(std::uint32_t depth);

}  // namespace openrecipes::rows::template_engine
