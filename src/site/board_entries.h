// The recipes of one pair of the leaderboard JSON, each once, with its status: the one walk the exports and the
// pages share. With --include-unverified a measured recipe that is not verified is ranked for a preview and also
// listed under the pair's "unranked" (for its reasons); here it appears once, as "preview".
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace openrecipes::site {

struct BoardEntry {
  const nlohmann::json* entry;  ///< the entry in the pair's "ranked" or "unranked" list
  const char* status;           ///< "verified" (ranked, verified), "preview" (ranked, not verified), "unranked"
};

/// The pair's ranked entries by rank, then its unranked ones that are not also ranked, in the JSON's order.
/// Throws nlohmann::json exceptions on a pair of another shape.
std::vector<BoardEntry> pair_entries(const nlohmann::json& pair);

}  // namespace openrecipes::site
