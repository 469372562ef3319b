// Fuzz target: a recipe.yaml (docs/recipe-format.md; registry/recipe.h), loaded whole (every field checked, evidence
// paths resolved) and as a draft, in a folder registry/recipes/qwen3-0.6b/H200/fuzz/ holding the bundled ref recipe's
// evidence (so paths such as evidence/train.log exist).
#include "fuzz_registry.h"
#include "fuzz_support.h"
#include "registry/recipe.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  const auto dir = fuzz::registry_with_recipe(fuzz::text(data, size));
  for (auto mode : {registry::RecipeLoad::full, registry::RecipeLoad::draft})
    fuzz::expect_input_error_or_success([&] { registry::load_recipe(dir, mode); });
  return 0;
}
