// The sections of a recipe's page (SPEC §5), each a view templates/recipe.mustache renders in its own section:
// Reproduce, the evidence, How it was found, the configuration and convergence checks, the charts and step table,
// and the component tests. Internals of site/recipe_page.h, in site::parts; each reads one entry `e` of the
// leaderboard JSON (leaderboard_json's shape) and throws nlohmann::json exceptions on JSON of another shape. `id` is
// the recipe's id and `root` its page's root_of, for links to the site's copies of its evidence (evidence_href).
#pragma once

#include <initializer_list>
#include <string>

#include <nlohmann/json.hpp>

namespace openrecipes::site::parts {

/// The Reproduce box (registry/reproduce.h via the entry's "reproduce"): the recipe's folder, the data-prep commands,
/// the run line and each variable with what it must point at (the site writer adds the recipe.yaml's text:
/// site/pages.h RecipeText); false when the entry has none.
/// recipe_reproduce.cpp.
nlohmann::json reproduce_view(const nlohmann::json& e);

/// What the recipe's evidence covers, one item {name, present, text} per piece (step log, argument dump, versions,
/// device, scheduler times, launched command), from the entry's evidence_coverage. recipe_evidence.cpp.
nlohmann::json evidence_items(const nlohmann::json& e);

/// Each file of `files` (the entry's "evidence" or "patches": objects with a "file" relative to the recipe) as the
/// named `fields` of it and "href", the link to the site's copy where there is one. recipe_evidence.cpp.
nlohmann::json linked_files(const nlohmann::json& files, std::initializer_list<const char*> fields,
                            const std::string& id, const std::string& root);

/// How it was found: the search `openrecipes tune` ran (evidence/search.json), its budget and every trial in the
/// order run, scores as "23,232.7 ±2.1%"; false when the recipe was not found by a search. recipe_search.cpp.
nlohmann::json search_view(const nlohmann::json& e, const std::string& id, const std::string& root);

/// The configuration check against the reference (verdict, each changed argument, problems), or false when the
/// entry has none (a reference, or no argument dump). recipe_checks.cpp.
nlohmann::json configuration_check_view(const nlohmann::json& checks);

/// The convergence check against the reference arm (verdict, correlation to 6 decimals, final-loss difference,
/// pointwise failures, outliers), or false when the entry has none. recipe_checks.cpp.
nlohmann::json convergence_check_view(const nlohmann::json& checks);

/// The step-time chart (SVG): each record's step time at its last step, the measurement window shaded.
/// recipe_charts.cpp.
std::string step_time_chart(const nlohmann::json& e);

/// The loss chart (SVG): the reference arm dashed and the recipe arm solid, the steps the convergence check compares
/// shaded with the pointwise tolerance around the reference (checks::pointwise_tolerance). recipe_charts.cpp.
std::string loss_chart(const nlohmann::json& e);

/// One row per logged record of the measured run: its steps ("12" or "12–15"), step time and tokens as cells, loss,
/// and whether it lies inside the measurement window. recipe_charts.cpp.
nlohmann::json step_table(const nlohmann::json& e);

/// The component tests (checks/component_check.h) as the table lists them, each with its raw output where the entry
/// records one: swapped arguments, run shape, versions, effect, and per tensor the error, largest first.
/// recipe_component_tests.cpp.
nlohmann::json component_tests_view(const nlohmann::json& e, const std::string& id, const std::string& root);

}  // namespace openrecipes::site::parts
