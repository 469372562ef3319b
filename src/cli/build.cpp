// `openrecipes build [registry]`: the main job (SPEC §5). Validates every recipe, recomputes everything from
// its evidence, runs both checks against its reference, and prints the ranked leaderboard per pair.
#include <iostream>

#include "cli/command.h"
#include "core/error.h"
#include "core/files.h"
#include "registry/evaluate.h"
#include "registry/leaderboard.h"
#include "site/leaderboard_report.h"
#include "site/model_starting_points.h"
#include "site/site_writer.h"

namespace openrecipes::cli {
namespace {

struct BuildOptions {
  std::string registry = "registry";
  std::string site_out;
  bool json = false;
  bool include_unverified = false;
  bool strict = false;
  std::vector<std::string> checkpoints;
};

const bool registered_build = register_command(
    {"build", "Recompute and rank every recipe of a registry (the main job)", [](CLI::App& app) {
       auto o = std::make_shared<BuildOptions>();
       auto* registry_option =
           app.add_option("registry", o->registry,
                          "Registry folder (gpus.yaml, models/, rules/, recipes/); default: the bundled one")
               ->capture_default_str();
       app.add_flag("--json", o->json, "Write the whole computed leaderboard as JSON to stdout");
       app.add_option("-o,--output", o->site_out,
                      "Also write the site (pages, charts, exports, evidence) to this folder, swapped in whole at the "
                      "end; only a new, empty or earlier site folder is replaced");
       app.add_flag("--include-unverified", o->include_unverified,
                    "Rank recipes that measured but are not verified too, marked [UNVERIFIED] (a submitter's preview)");
       app.add_flag("--strict", o->strict, "Exit 1 when any recipe is not verified (for CI of submissions)");
       app.add_option("--checkpoint", o->checkpoints,
                      "MODEL=PATH: recount MODEL's N from the safetensors headers at PATH (repeatable)");
       auto* site_option = app.get_option("--output");
       return [o, registry_option, site_option]() -> int {
         if (site_option->count() > 0 && o->site_out.empty())
           throw InputError("-o", "an empty folder name", "give the site's folder, e.g. -o site/");
         if (registry_option->count() == 0) o->registry = bundled_path(o->registry);
         auto reg = registry::load_registry(o->registry);
         std::map<std::string, std::filesystem::path> checkpoints;
         for (const auto& c : o->checkpoints) {
           auto eq = c.find('=');
           if (eq == std::string::npos || eq == 0 || eq + 1 == c.size())
             throw InputError("--checkpoint " + c, "expected MODEL=PATH",
                              "e.g. --checkpoint qwen3-0.6b=/ckpt/Qwen3-0.6B");
           if (!reg.models.count(c.substr(0, eq)))
             throw InputError("--checkpoint " + c, "no model '" + c.substr(0, eq) + "' in the registry");
           checkpoints[c.substr(0, eq)] = c.substr(eq + 1);
         }
         auto results = registry::evaluate_registry(reg, checkpoints);
         auto pairs = registry::build_pairs(reg, results, o->include_unverified);
         auto json = site::leaderboard_json(reg, pairs);
         if (o->json)
           std::cout << json.dump(2) << "\n";
         else
           std::cout << site::leaderboard_text(reg, pairs);
         std::cout.flush();
         if (!o->site_out.empty()) {
           site::add_starting_points(json, reg);  // predictions for the model pages, never ranked
           site::write_site(site::published_board(std::move(json), o->include_unverified), reg, o->site_out);
           std::cerr << "openrecipes: wrote the site to " << o->site_out << " (open index.html, or: openrecipes serve "
                     << o->site_out << ")\n";
         }
         bool all_verified = true;
         for (const auto& r : results) all_verified &= r.verified;
         return o->strict && !all_verified ? 1 : 0;
       };
     }});

}  // namespace
}  // namespace openrecipes::cli
