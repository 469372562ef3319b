// Errors raised inside the template engine before they get a template name and line: which Python/Jinja2
// exception the same situation raises in Jinja2, and its message (upstream behaviour: jinja2.exceptions).
#pragma once

#include <cstdint>
#include <string>

namespace openrecipes::rows::template_engine {

/// The Python exception class Jinja2 (or the Python operation under it) raises for the same situation.
enum class PyError {
  TemplateSyntaxError,
  TemplateAssertionError,
  UndefinedError,
  TypeError,
  ValueError,
  SecurityError,
  TemplateRuntimeError,
  TemplateError,  // raise_exception()
  OverflowError,
  ZeroDivisionError,
  IndexError,
  KeyError,
  FilterArgumentError,
  AttributeError,
  RuntimeError,
  LimitExceeded,  // a TemplateLimits bound (no Python counterpart)
  Unsupported,    // valid Jinja2 that this engine does not implement
};

const char* py_error_name(PyError e);

/// Thrown by the engine's internals; the renderer adds the template name and line and turns it into a
/// TemplateError.
struct Failure {
  PyError type;
  std::string message;
  std::uint32_t line = 0;  // 0 = not known yet
  std::uint32_t col = 0;
};

[[noreturn]] void fail(PyError type, std::string message);

}  // namespace openrecipes::rows::template_engine
