// The leaderboard as people and machines read it (SPEC §5): a terminal table per pair with the unranked
// recipes and their reasons, and the whole computed leaderboard as JSON (sorted keys, deterministic bytes).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "registry/leaderboard.h"

namespace openrecipes::site {

/// The human table: per pair, rank, recipe, tokens/s/GPU, CV, GPUs, MFU, $/1M tokens, GPU-hours, author,
/// date, framework, checks; then "not ranked:" with every reason; last, "recipes that could not be read:" with
/// theirs. Every field from a registry is shown through core terminal_safe (controls as visible escapes). Plain text,
/// no colours.
std::string leaderboard_text(const registry::Registry& reg, const std::vector<registry::Pair>& pairs);

/// Everything computed, for machines: GPU types, pairs, ranked entries with their numbers, checks, stack and
/// layout, and unranked entries with reasons; recipes that could not be read under "unreadable". Every string
/// is made terminal-safe (terminal_safe without C0, which the JSON encoder escapes itself).
nlohmann::json leaderboard_json(const registry::Registry& reg, const std::vector<registry::Pair>& pairs);

}  // namespace openrecipes::site
