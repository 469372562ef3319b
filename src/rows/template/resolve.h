// Name resolution of a parsed template, as Jinja2's compiler does it (jinja2/idtracking.py + compiler.py frames):
// every variable becomes a slot of a function activation with Jinja2's frame load rules; also resolves filter and
// test names and reports the compile-time errors Jinja2 raises (unknown filter outside an if, assigning `loop`,
// break outside a loop, misplaced caller argument).
#pragma once

#include "rows/template/ast.h"

namespace openrecipes::rows::template_engine {

/// Resolves `prog.body` in place and fills prog.root_fn / prog.root_frame. Throws Failure(TemplateAssertionError
/// or TemplateSyntaxError) with the node's line for Jinja2's compile-time errors.
void resolve_program(Program& prog);

/// Marks the expressions Jinja2's compiler may fold into constants (nodes.*.as_const): literals combined by
/// operators, subscripts, and filters/tests that do not take the context. Returns e->foldable (fold.cpp).
bool mark_foldable(Expr* e);

/// Builtin filter and test ids (-1 when the name is unknown); defined with the builtins.
int filter_id(const std::string& name);
int test_id(const std::string& name);

}  // namespace openrecipes::rows::template_engine
