// A recipe's evidence on its page: what it covers, and the files and patches the site keeps a copy of
// (site/recipe_sections.h).
#include "site/recipe_sections.h"

#include <utility>

#include "site/page_parts.h"

namespace openrecipes::site::parts {

using nlohmann::json;

namespace {

// One piece of evidence as evidence_coverage records it under `key`: a text (present when not empty, and shown between
// `yes` and `yes_after`) or a flag (present when true); the sentence shown is `yes`… when present, else `no`.
struct Piece {
  const char* name;
  const char* key;
  bool is_text;
  const char* yes;
  const char* yes_after;
  const char* no;
};

constexpr Piece kPieces[] = {
    {"step log", "log", true, "the measured run's per-step lines (", "), from which the score and CV are recomputed",
     "no log could be read"},
    {"argument dump", "arguments", false,
     "the run's resolved arguments: the configuration check and the command are checked against them", "",
     "none: the recipe can be checked neither against its reference nor as one"},
    {"versions", "versions", false, "the software versions the run saw (the stack check)", "",
     "none: the stack reads not pinned"},
    {"device", "device", true, "the GPU the run ran on: ", "", "no GPU named (or several): the GPU type is unchecked"},
    {"scheduler times", "times", true, "admission and finish times (", "), from which GPU-hours are computed",
     "none: GPU-hours cannot be computed"},
    {"launched command", "launch", false,
     "the command as the run started it, every variable expanded (evidence/launch.json)", "",
     "not kept: the published command is checked against the argument dump alone"},
};

}  // namespace

json evidence_items(const json& e) {
  const json& c = e.contains("evidence_coverage") ? e["evidence_coverage"] : json::object();
  json out = json::array();
  for (const Piece& p : kPieces) {
    const std::string text = str(c, p.key);
    const bool present = p.is_text ? !text.empty() : c.contains(p.key) && c[p.key].is_boolean() && c[p.key].get<bool>();
    out.push_back({{"name", p.name}, {"present", present}, {"text", present ? p.yes + text + p.yes_after : p.no}});
  }
  return out;
}

json linked_files(const json& files, std::initializer_list<const char*> fields, const std::string& id,
                  const std::string& root) {
  json out = json::array();
  for (const auto& f : files) {
    json row = {{"href", evidence_href(id, root, f["file"].get<std::string>())}};
    for (const char* k : fields) row[k] = f[k];
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace openrecipes::site::parts
