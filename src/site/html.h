// HTML rendering of the site (docs/site.md): the pages live in template files (src/site/templates/*.mustache,
// embedded in the binary at build time) rendered by kainjow mustache (Debian libkainjow-mustache-dev), which
// HTML-escapes every {{variable}} by default (& < > " '). Templates use {{{raw}}} only for markup the tool
// itself wrote (an SVG chart, a rendered page body). Views are JSON objects, so a page is a function of the
// JSON `build --json` writes.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/utf8.h"

namespace openrecipes::site {

using openrecipes::inert_text;  // core/utf8.h: bidi controls written visibly

/// `text` escaped for HTML or SVG text and double-quoted attributes: & < > " ' as entities (mustache's own
/// escape), after inert_text and with every C0 control but the line break and the tab, DEL and every C1 control
/// written visibly ("\u001B").
std::string html_text(std::string_view text);

/// Renders template `name` (e.g. "index" for templates/index.mustache) with `view`: objects and arrays become
/// mustache contexts and lists, strings pass through inert_text and show their controls visibly as html_text does
/// (and are HTML-escaped by {{ }}), numbers are
/// written as format_double writes them, true/false drive sections, null is false. Throws std::logic_error when
/// the template is unknown or does not parse (a bug in the tool, never the input's fault).
std::string render_template(std::string_view name, const nlohmann::json& view);

}  // namespace openrecipes::site
