// Hugging Face chat templates: a sandboxed Jinja2 interpreter that renders exactly what transformers'
// apply_chat_template(messages, tokenize=False) renders (SPEC §1.2; docs/chat-templates.md lists the subset).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/error.h"

namespace openrecipes::rows {

/// Sandbox bounds for compiling and rendering one template. Defaults fit real chat templates with room to spare;
/// every bound, when hit, raises a TemplateError naming it.
struct TemplateLimits {
  std::size_t max_output_bytes = 64u << 20;  ///< bytes of rendered text (also any one captured block/macro)
  std::uint64_t max_steps = 50'000'000;      ///< evaluation steps: nodes evaluated, loop iterations, items
                                             ///< processed by filters/methods, 64-byte units of string work
  std::size_t max_depth = 256;               ///< macro/call nesting at render time; expression and statement
                                             ///< nesting in the source at compile time
  std::size_t max_source_bytes = 1u << 20;   ///< template source size accepted by compile()
  std::size_t max_alloc_bytes = 512u << 20;  ///< total bytes of strings/lists/dicts a render may allocate
};

/// Per-render options.
struct RenderOptions {
  std::string today = "2026-01-01";  ///< the date strftime_now() formats, YYYY-MM-DD, at 00:00:00 (SPEC §1.2)
  TemplateLimits limits;
};

/// A template that cannot be compiled or rendered: syntax errors (with line and column), errors Jinja2 would
/// raise at render time (undefined attributes, type errors, SecurityError in the sandbox), raise_exception()
/// called by the template, or a sandbox limit. what() is "<name>:<line>[:<col>]: <message> (fix: ...)".
class TemplateError : public InputError {
 public:
  enum class Kind {
    syntax,      ///< TemplateSyntaxError / TemplateAssertionError at compile time
    runtime,     ///< an error Jinja2 raises while rendering (UndefinedError, TypeError, ...)
    security,    ///< jinja2.sandbox.SecurityError
    raised,      ///< the template called raise_exception(message)
    limit,       ///< a TemplateLimits bound was hit
    unsupported  ///< valid Jinja2 this engine does not implement (docs/chat-templates.md)
  };
  TemplateError(Kind kind, std::string where, std::string message, std::string fix = {});
  Kind kind() const noexcept { return kind_; }
  /// The message alone, e.g. raise_exception's argument, or "'foo' is undefined".
  const std::string& message() const noexcept { return problem(); }

 private:
  Kind kind_;
};

namespace template_engine {
struct Program;
}

/// A compiled chat template (parsed once, rendered many times; immutable and safe to share across threads).
class ChatTemplate {
 public:
  /// Parses `source` (Jinja2 syntax with trim_blocks, lstrip_blocks, loopcontrols and transformers' generation
  /// tag). `name` labels errors (e.g. the file it came from). Throws TemplateError (Kind::syntax, naming `name`
  /// and the line/column) for a syntax error, a source over limits.max_source_bytes, or nesting deeper than
  /// limits.max_depth.
  static ChatTemplate compile(std::string_view source, std::string name, const TemplateLimits& limits = {});

  /// Renders with `variables` (a JSON object: key -> value; JSON null is Python None; a key that is absent is
  /// undefined), the way transformers calls template.render(**variables). nlohmann::json sorts object keys;
  /// pass nlohmann::ordered_json to keep the caller's key order (it shows in tojson and dict iteration, as in
  /// Python). Thread-safe. Throws TemplateError: Kind::raised for raise_exception() (message() is its argument),
  /// Kind::limit for a limit (the message names it), Kind::runtime/security for errors Jinja2 raises.
  std::string render(const nlohmann::json& variables, const RenderOptions& options = {}) const;
  std::string render(const nlohmann::ordered_json& variables, const RenderOptions& options = {}) const;

  const std::string& name() const;

 private:
  explicit ChatTemplate(std::shared_ptr<const template_engine::Program> program);
  std::shared_ptr<const template_engine::Program> program_;
};

}  // namespace openrecipes::rows
