// ChatTemplate: compile (bounded source -> tokens -> nodes -> resolved slots) and render (caller's JSON variables
// -> Interp under TemplateLimits), turning engine failures into TemplateError with the template name and line.
#include "rows/template/chat_template.h"

#include <algorithm>
#include <utility>

#include "rows/template/ast.h"
#include "rows/template/failure.h"
#include "rows/template/interp.h"
#include "rows/template/lexer.h"
#include "rows/template/parser.h"
#include "rows/template/render_budget.h"
#include "rows/template/resolve.h"
#include "rows/template/unicode.h"

namespace openrecipes::rows {

using namespace template_engine;

TemplateError::TemplateError(Kind kind, std::string where, std::string message, std::string fix)
    : InputError(std::move(where), std::move(message), std::move(fix)), kind_(kind) {}

namespace template_engine {

const char* py_error_name(PyError e) {
  switch (e) {
    case PyError::TemplateSyntaxError:
      return "TemplateSyntaxError";
    case PyError::TemplateAssertionError:
      return "TemplateAssertionError";
    case PyError::UndefinedError:
      return "UndefinedError";
    case PyError::TypeError:
      return "TypeError";
    case PyError::ValueError:
      return "ValueError";
    case PyError::SecurityError:
      return "SecurityError";
    case PyError::TemplateRuntimeError:
      return "TemplateRuntimeError";
    case PyError::TemplateError:
      return "TemplateError";
    case PyError::OverflowError:
      return "OverflowError";
    case PyError::ZeroDivisionError:
      return "ZeroDivisionError";
    case PyError::IndexError:
      return "IndexError";
    case PyError::KeyError:
      return "KeyError";
    case PyError::FilterArgumentError:
      return "FilterArgumentError";
    case PyError::AttributeError:
      return "AttributeError";
    case PyError::RuntimeError:
      return "RuntimeError";
    case PyError::LimitExceeded:
      return "LimitExceeded";
    case PyError::Unsupported:
      return "Unsupported";
  }
  return "Error";
}

void fail(PyError type, std::string message) { throw Failure{type, std::move(message), 0, 0}; }

namespace {

template <class Json>
class JsonVars final : public VarSource {
 public:
  explicit JsonVars(const Json& vars) : vars_(vars) {}
  bool lookup(std::string_view name, Value& out) override {
    auto it = vars_.find(std::string(name));
    if (it == vars_.end()) return false;
    out = value_from_json(*it);
    return true;
  }

 private:
  const Json& vars_;
};

}  // namespace

namespace {
thread_local std::uint32_t tl_json_depth = 0;
struct JsonDepth {
  JsonDepth() {
    if (++tl_json_depth > kMaxValueDepth) {
      --tl_json_depth;
      fail(PyError::LimitExceeded, "the variables nest deeper than " + std::to_string(kMaxValueDepth) + " levels");
    }
  }
  ~JsonDepth() { --tl_json_depth; }
  JsonDepth(const JsonDepth&) = delete;
  JsonDepth& operator=(const JsonDepth&) = delete;
};
}  // namespace

template <class Json>
Value value_from_json(const Json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null:
      return Value::none();
    case nlohmann::json::value_t::boolean:
      return Value::boolean(j.template get<bool>());
    case nlohmann::json::value_t::number_integer:
      return Value::integer(j.template get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned: {
      auto u = j.template get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(INT64_MAX))
        fail(PyError::Unsupported, "integer " + std::to_string(u) + " in the variables does not fit in 64 bits");
      return Value::integer(static_cast<std::int64_t>(u));
    }
    case nlohmann::json::value_t::number_float:
      return Value::floating(j.template get<double>());
    case nlohmann::json::value_t::string: {
      const std::string& s = j.template get_ref<const std::string&>();
      if (s.size() > 0xFFFFFFFFu) fail(PyError::LimitExceeded, "a string in the variables is larger than 4 GiB");
      return Value::borrowed(s);
    }
    case nlohmann::json::value_t::array: {
      JsonDepth guard;
      std::vector<Value> items;
      items.reserve(j.size());
      for (const auto& x : j) items.push_back(value_from_json(x));
      return Value::new_list(std::move(items));
    }
    case nlohmann::json::value_t::object: {
      JsonDepth guard;
      Value d = Value::new_dict();
      auto& dict = d.dict();
      dict.items.reserve(j.size());
      charge_alloc(j.size() * 2 * sizeof(Value));
      std::uint32_t depth = 1;
      for (auto it = j.begin(); it != j.end(); ++it) {
        Value v = value_from_json(it.value());
        depth = std::max(depth, value_depth(v) + 1);
        dict.items.emplace_back(Value::borrowed(it.key()), std::move(v));
      }
      check_value_depth(depth);
      dict.depth = depth;
      return d;
    }
    default:
      fail(PyError::Unsupported, "binary JSON values are not supported");
  }
}

template Value value_from_json<nlohmann::json>(const nlohmann::json&);
template Value value_from_json<nlohmann::ordered_json>(const nlohmann::ordered_json&);

}  // namespace template_engine

namespace {

TemplateError to_template_error(const Failure& f, const std::string& name) {
  using K = TemplateError::Kind;
  std::string where = name;
  if (f.line > 0) {
    where += ":" + std::to_string(f.line);
    if (f.type == PyError::TemplateSyntaxError || f.type == PyError::TemplateAssertionError)
      where += ":" + std::to_string(f.col);
  }
  switch (f.type) {
    case PyError::TemplateSyntaxError:
    case PyError::TemplateAssertionError:
      return TemplateError(K::syntax, where, std::string(py_error_name(f.type)) + ": " + f.message,
                           "fix the template's Jinja2 syntax");
    case PyError::TemplateError:
      return TemplateError(
          K::raised, where, f.message,
          "the chat template rejected this conversation (raise_exception); check its roles and fields");
    case PyError::LimitExceeded:
      return TemplateError(K::limit, where, f.message,
                           "the template or its input is too large or loops without end; check it, or raise the limit");
    case PyError::Unsupported:
      return TemplateError(K::unsupported, where, "unsupported: " + f.message,
                           "see docs/chat-templates.md for the Jinja2 subset this engine implements");
    case PyError::SecurityError:
      return TemplateError(K::security, where, std::string("SecurityError: ") + f.message,
                           "the sandbox forbids this operation; the template must not modify or inspect objects");
    default:
      return TemplateError(K::runtime, where, std::string(py_error_name(f.type)) + ": " + f.message,
                           "the template fails on these variables in Jinja2 too; check the messages' fields");
  }
}

bool valid_date(const std::string& d) {
  if (d.size() != 10 || d[4] != '-' || d[7] != '-') return false;
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (d[i] < '0' || d[i] > '9') return false;
  int m = (d[5] - '0') * 10 + (d[6] - '0');
  int day = (d[8] - '0') * 10 + (d[9] - '0');
  int y = std::stoi(d.substr(0, 4));
  static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || day < 1) return false;
  int maxd = mdays[m - 1] + ((m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)) ? 1 : 0);
  return day <= maxd && y >= 1;
}

template <class Json>
std::string render_impl(const Program& p, const Json& variables, const RenderOptions& options) {
  if (!variables.is_object())
    throw TemplateError(TemplateError::Kind::runtime, p.name, "the render variables must be a JSON object",
                        "pass {\"messages\": [...], ...}");
  if (!valid_date(options.today))
    throw TemplateError(TemplateError::Kind::runtime, p.name,
                        "RenderOptions::today is " + options.today + ", not a date YYYY-MM-DD",
                        "pass the build date as YYYY-MM-DD");
  RenderBudget budget;
  budget.limit = options.limits.max_alloc_bytes;
  budget.text_limit = std::min(options.limits.max_alloc_bytes, options.limits.max_output_bytes);
  RenderBudgetScope scope(&budget);
  try {
    JsonVars<Json> vars(variables);
    Interp in(p, options, vars);
    return in.run();
  } catch (const Failure& f) {
    throw to_template_error(f, p.name);
  }
}

}  // namespace

ChatTemplate::ChatTemplate(std::shared_ptr<const Program> program) : program_(std::move(program)) {}

ChatTemplate ChatTemplate::compile(std::string_view source, std::string name, const TemplateLimits& limits) {
  if (source.size() > limits.max_source_bytes)
    throw TemplateError(TemplateError::Kind::limit, name,
                        "template source is " + std::to_string(source.size()) + " bytes, over max_source_bytes (" +
                            std::to_string(limits.max_source_bytes) + ")",
                        "chat templates are a few KiB; check that this file is a chat template");
  if (!valid_utf8(source))
    throw TemplateError(TemplateError::Kind::syntax, name, "template source is not valid UTF-8",
                        "save the template as UTF-8");
  try {
    auto prog = std::make_shared<Program>();
    prog->name = name;
    prog->body = parse_template(tokenize(source), limits.max_depth);
    resolve_program(*prog);
    return ChatTemplate(std::move(prog));
  } catch (const Failure& f) {
    throw to_template_error(f, name);
  }
}

std::string ChatTemplate::render(const nlohmann::json& variables, const RenderOptions& options) const {
  return render_impl(*program_, variables, options);
}

std::string ChatTemplate::render(const nlohmann::ordered_json& variables, const RenderOptions& options) const {
  return render_impl(*program_, variables, options);
}

const std::string& ChatTemplate::name() const { return program_->name; }

}  // namespace openrecipes::rows
