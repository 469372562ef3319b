// `openrecipes build -o site/` (SPEC §5; docs/site.md): the whole static site of a leaderboard, written into a staging
// folder beside the target and swapped in at the end, so an interrupted or failed build leaves the previous site as it
// was. The site needs no server to read (relative links only) and holds:
//   index.html, rates.html, models/<model>.html, recipes/<model>/<gpu>/<name>.html   (site/pages.h)
//   recipes/<model>/<gpu>/<name>/<evidence path>   each shown recipe's evidence and patches, byte for byte
//   data/recipes.json, data/recipes.csv, data/leaderboard.json   the exports and the whole board
//   data/build.json   when it was built, each recipe's fingerprint and the changelog (site_state): the next build of
//                     the same folder reads it to say what is new, changed or gone
//   assets/style.css, assets/site.js
//   .openrecipes-site   a marker: only a folder holding it (or an empty or missing one) is ever replaced
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "registry/registry.h"

namespace openrecipes::site {

/// The marker file's name; site_writer replaces only a folder that holds it, is empty, or does not exist.
inline constexpr const char* kSiteMarker = ".openrecipes-site";

/// data/build.json's format tag, and how many builds with changes its changelog keeps.
inline constexpr const char* kStateFormat = "openrecipes-site-state/1";
inline constexpr std::size_t kMaxChangelog = 20;

/// The site's state after building `board` at `when` ("YYYY-MM-DD HH:MM UTC"): {"format", "built_at", "recipes": {id:
/// sha256 of the recipe's board entry}, "changes": [{"built_at", "first", "new", "changed", "removed"}, ...]}, newest
/// first, at most kMaxChangelog. `previous` is the state of the build this one replaces (null: none, so every recipe
/// is new and the entry says "first"); a build that changes nothing adds no entry. A recipe "changed" when anything of
/// its computed entry differs (a number, a check, its evidence).
nlohmann::json site_state(const nlohmann::json& board, const nlohmann::json& previous, const std::string& when);

/// The board as published: without `include_unverified`, only verified recipes (SPEC §5: the published site lists
/// verified recipes only), so unranked entries and unreadable recipes are dropped (each pair keeps the dropped ones'
/// ids and reasons as "unverified", which the model page names with their reasons); with it, the board as it is.
nlohmann::json published_board(nlohmann::json board, bool include_unverified);

/// Writes the site of `board` (leaderboard_json of `reg`, already published_board'ed) to `target`: everything goes
/// into `<parent>/.<name>.site-<pid>-<random>.tmp`, which then atomically replaces `target` (renameat2
/// RENAME_EXCHANGE when it exists, rename otherwise) and the old site is removed. SIGINT, SIGTERM and SIGHUP while
/// it writes stop it: the staging folder is removed and the signal then takes its course; held back during the swap.
/// Staging folders of earlier builds whose process is gone (SIGKILL) are removed first. Every page shows when it was
/// built ($SOURCE_DATE_EPOCH when set, else now) and the index the changelog (site_state, from the replaced site's
/// data/build.json): byte-identical output for the same board, build time and previous state. Throws InputError when
/// `target` exists but is not a folder, or is a non-empty folder without kSiteMarker (nothing is touched then), or when
/// a file cannot be written (the staging folder is removed). `after_each_file` runs after each file is written (tests
/// use it). The board is taken by value (the pages need it with the build's time and changelog added, and a caller that
/// no longer needs it moves it in: at 10,000 recipes a copy is hundreds of MiB).
void write_site(nlohmann::json board, const registry::Registry& reg, const std::filesystem::path& target,
                const std::function<void()>& after_each_file = {});

}  // namespace openrecipes::site
