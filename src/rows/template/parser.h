// Jinja2's parser (jinja2/parser.py grammar and error messages) with loopcontrols and transformers'
// {% generation %} tag: tokens -> the node tree in ast.h, with nesting bounded by TemplateLimits::max_depth.
#pragma once

#include <cstddef>
#include <vector>

#include "rows/template/ast.h"
#include "rows/template/lexer.h"

namespace openrecipes::rows::template_engine {

/// Parses `tokens` into a template body. Throws Failure(TemplateSyntaxError, line, col) for invalid syntax
/// (Jinja2's messages), and for expressions or blocks nested deeper than `max_depth`.
Body parse_template(std::vector<Token> tokens, std::size_t max_depth);

}  // namespace openrecipes::rows::template_engine
