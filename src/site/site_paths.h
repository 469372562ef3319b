// Where each page and each copied evidence file lives on the site (docs/site.md), and how a path is written in a link:
// the one home of the site's paths, shared by the pages (site/pages.h) and the writer that copies evidence.
#pragma once

#include <string>

namespace openrecipes::site {

/// The prefix from a page at `path` ('/'-separated, relative to the site's root) back to the root: one "../" per
/// '/' ("" for "index.html", "../" for "models/x.html").
std::string root_of(const std::string& path);

/// The page path of model `model` (its key in the board's "models"): "models/<model>.html".
std::string model_page_path(const std::string& model);

/// The page path of a recipe id "<model>/<gpu>/<name>": "recipes/<model>/<gpu>/<name>.html"; its evidence is copied
/// under "recipes/<model>/<gpu>/<name>/" with the relative path the recipe gives.
std::string recipe_page_path(const std::string& id);

/// Where the site keeps a copy of evidence file `relative` (as the recipe writes it) of recipe `id`:
/// "recipes/<id>/<relative, normalised>", with ".txt" appended unless the name ends in an inert text extension
/// (.log .txt .jsonl .json .yaml .yml .csv .patch .diff .out .err), so that a stranger's "evidence.html" or ".svg" is
/// never served or opened as an active document. Empty when `relative` leaves its folder or names none.
std::string evidence_site_path(const std::string& id, const std::string& relative);

/// `path` ('/'-separated) with every byte of each segment other than A-Z a-z 0-9 - . _ ~ percent-encoded, so a
/// file name with '#', '?', '%' or a space still links to itself.
std::string url_path(const std::string& path);

}  // namespace openrecipes::site
