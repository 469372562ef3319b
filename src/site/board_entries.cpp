// Each recipe of a pair once (site/board_entries.h).
#include "site/board_entries.h"

#include <set>

namespace openrecipes::site {

std::vector<BoardEntry> pair_entries(const nlohmann::json& pair) {
  std::vector<BoardEntry> out;
  std::set<std::string> ranked;
  for (const auto& e : pair.at("ranked")) {
    ranked.insert(e.at("id").get<std::string>());
    out.push_back({&e, e.at("verified").get<bool>() ? "verified" : "preview"});
  }
  for (const auto& e : pair.at("unranked"))
    if (!ranked.count(e.at("id").get<std::string>())) out.push_back({&e, "unranked"});
  return out;
}

}  // namespace openrecipes::site
