// Value construction, owned string buffers, dict/namespace storage, Undefined messages, and the per-render
// allocation budget (TemplateLimits::max_alloc_bytes).
#include "rows/template/value.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "rows/template/failure.h"
#include "rows/template/objects.h"
#include "rows/template/render_budget.h"

namespace openrecipes::rows::template_engine {

ListObj::~ListObj() = default;
DictObj::~DictObj() = default;
NamespaceObj::~NamespaceObj() = default;

namespace {
thread_local RenderBudget* tl_budget = nullptr;
}

RenderBudgetScope::RenderBudgetScope(RenderBudget* budget) : previous_(tl_budget) { tl_budget = budget; }
RenderBudgetScope::~RenderBudgetScope() { tl_budget = previous_; }

void charge_alloc(std::size_t bytes) {
  RenderBudget* b = tl_budget;
  if (b == nullptr) return;
  b->used += bytes;
  if (b->used > b->limit)
    fail(PyError::LimitExceeded, "the template allocated more than max_alloc_bytes (" + std::to_string(b->limit) +
                                     " bytes) of strings, lists and dicts");
}

void check_text_size(std::size_t bytes) {
  RenderBudget* b = tl_budget;
  if (b != nullptr && bytes > b->text_limit)
    fail(PyError::LimitExceeded, "a string of more than " + std::to_string(b->text_limit) +
                                     " bytes would be built (the smaller of max_output_bytes and max_alloc_bytes)");
}

StrObj* StrObj::create(std::size_t n) {
  charge_alloc(n + sizeof(StrObj));
  void* mem = ::operator new(sizeof(StrObj) + n + 1);
  auto* o = new (mem) StrObj(n);
  o->data()[n] = '\0';
  return o;
}

std::string UndefinedInfo::message() const {
  if (!hint.empty()) return hint;
  if (obj_type.empty()) return name + " is undefined";
  if (!name_is_str) return obj_type + " has no element " + name;
  // f"{object_type_repr(obj)!r} has no attribute {name!r}"
  return "'" + obj_type + "' has no attribute " + name;
}

Value Value::undefined_name(std::string_view name) {
  Value v;
  v.kind_ = Kind::Undefined;
  v.u_.s = name.data();
  v.len_ = static_cast<std::uint32_t>(name.size());
  return v;
}

Value Value::undefined_info(Rc<UndefinedInfo> info) {
  Value v;
  v.kind_ = Kind::Undefined;
  v.u_.s = nullptr;
  v.len_ = 0;
  v.obj_ = info.get();
  retain(v.obj_);
  return v;
}

Value Value::undefined_hint(std::string hint) {
  auto info = Rc<UndefinedInfo>::adopt(new UndefinedInfo());
  info->hint = std::move(hint);
  return undefined_info(std::move(info));
}

std::string Value::undefined_message() const {
  if (const UndefinedInfo* i = undefined_info()) return i->message();
  std::string n(undefined_name());
  // repr of a plain identifier
  return "'" + n + "' is undefined";
}

Value Value::borrowed(std::string_view s, bool safe) {
  Value v;
  v.kind_ = Kind::Str;
  v.safe_ = safe;
  v.u_.s = s.data();
  v.len_ = static_cast<std::uint32_t>(s.size());
  return v;
}

Value Value::string(std::string_view s, bool safe) {
  if (s.empty()) return borrowed(std::string_view(), safe);
  StrObj* o = StrObj::create(s.size());
  std::memcpy(o->data(), s.data(), s.size());
  return from_strobj(o, safe);
}

Value Value::from_strobj(StrObj* o, bool safe) {
  Value v;
  v.kind_ = Kind::Str;
  v.safe_ = safe;
  v.u_.s = o->data();
  v.len_ = static_cast<std::uint32_t>(o->size);
  v.obj_ = o;  // adopts the reference
  return v;
}

std::uint32_t value_depth(const Value& v) {
  switch (v.kind()) {
    case Kind::List:
    case Kind::Tuple:
      return v.list().depth;
    case Kind::Dict:
      return v.dict().depth;
    case Kind::Iterator:
      return static_cast<const IterObj*>(v.obj())->depth;
    default:
      return 0;
  }
}

void check_value_depth(std::uint32_t depth) {
  if (depth > kMaxValueDepth)
    fail(PyError::LimitExceeded, "values nested deeper than " + std::to_string(kMaxValueDepth) + " levels");
}

namespace {
std::uint32_t items_depth(const std::vector<Value>& items) {
  std::uint32_t d = 0;
  for (const auto& x : items) {
    Kind k = x.kind();
    if (k == Kind::List || k == Kind::Tuple || k == Kind::Dict || k == Kind::Iterator) d = std::max(d, value_depth(x));
  }
  check_value_depth(d + 1);
  return d + 1;
}
}  // namespace

Value Value::new_list(std::vector<Value> items) {
  charge_alloc(items.size() * sizeof(Value) + sizeof(ListObj));
  auto l = Rc<ListObj>::adopt(new ListObj());
  l->depth = items_depth(items);
  l->items = std::move(items);
  return list(std::move(l));
}

Value Value::new_tuple(std::vector<Value> items) {
  charge_alloc(items.size() * sizeof(Value) + sizeof(ListObj));
  auto l = Rc<ListObj>::adopt(new ListObj());
  l->depth = items_depth(items);
  l->items = std::move(items);
  return tuple(std::move(l));
}

Value Value::new_dict() {
  charge_alloc(sizeof(DictObj));
  return dict(Rc<DictObj>::adopt(new DictObj()));
}

const Value* NamespaceObj::get(std::string_view name) const {
  for (const auto& kv : attrs)
    if (kv.first == name) return &kv.second;
  return nullptr;
}

void NamespaceObj::set(std::string_view name, Value v) {
  for (auto& kv : attrs)
    if (kv.first == name) {
      kv.second = std::move(v);
      return;
    }
  charge_alloc(name.size() + sizeof(Value) + 32);
  attrs.emplace_back(std::string(name), std::move(v));
}

std::ptrdiff_t DictObj::find_str(std::string_view k) const {
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Value& key = items[i].first;
    if (key.is_str() && key.str() == k) return static_cast<std::ptrdiff_t>(i);
  }
  return -1;
}

}  // namespace openrecipes::rows::template_engine
