// Fuzz target: a stranger's recipe.yaml through the whole main job into the site (registry -> evaluate -> board ->
// pages; site/pages.h): the recipe beside the bundled ref recipe, every page rendered with unverified recipes shown.
// Beyond crashes, a finding is any <script element in a page other than the site's own script.
#include "fuzz_registry.h"
#include "fuzz_support.h"
#include "registry/evaluate.h"
#include "registry/leaderboard.h"
#include "registry/registry.h"
#include "site/leaderboard_report.h"
#include "site/pages.h"
#include "site/site_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  const auto dir = fuzz::registry_with_recipe(fuzz::text(data, size));
  fuzz::expect_input_error_or_success([&] {
    auto reg = registry::load_registry(fuzz::registry_root());
    auto results = registry::evaluate_registry(reg, {});
    auto pairs = registry::build_pairs(reg, results, true);
    auto board = site::published_board(site::leaderboard_json(reg, pairs), true);
    for (const auto& page : site::site_pages(board)) {
      for (std::size_t at = page.bytes.find("<script"); at != std::string::npos;
           at = page.bytes.find("<script", at + 1)) {
        const std::string_view rest = std::string_view(page.bytes).substr(at);
        const std::size_t close = rest.find('>');
        const std::string_view tag = rest.substr(0, close);
        if (tag.find(" src=\"") != 7 || tag.find("assets/site.js\" defer") == std::string_view::npos ||
            tag.substr(1).find_first_of("<'") != std::string_view::npos)
          fuzz::finding(page.path + " holds a script element the site did not write: " + std::string(tag));
      }
    }
  });
  return 0;
}
