// Tests for src/registry/references: the pair's one reference recipe, reference chains and cycles, and
// verification passed down a chain. Registries are built in memory; the expected ids and sentences are worked out
// by hand from the rules in references.h.
#include "registry/references.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace openrecipes::registry {
namespace {

using ::testing::ElementsAre;

struct Fake {
  Registry reg;
  RecipesById by_id;

  void add(const std::string& id, std::optional<std::string> reference, const std::string& date = "2026-01-01",
           const std::string& model = "qwen3-0.6b") {
    RecipeEntry e;
    e.id = id;
    Recipe r;
    r.id = id;
    r.model = model;
    r.gpu = "H200";
    r.workload.key = "tulu3-sft";
    r.date = date;
    r.reference = std::move(reference);
    e.recipe = std::move(r);
    reg.recipes.push_back(std::move(e));
  }
  void add_unreadable(const std::string& id) {
    RecipeEntry e;
    e.id = id;
    e.load_error = "recipe.yaml: line 3: bad";
    reg.recipes.push_back(std::move(e));
  }
  const Recipe& recipe(const std::string& id) const { return *by_id.at(id)->recipe; }
  void index() {
    by_id.clear();
    for (const auto& e : reg.recipes) by_id[e.id] = &e;
  }
};

TEST(References, the_pair_reference_is_the_root_most_recipes_are_tuned_from_then_the_earliest_then_the_smallest_id) {
  Fake f;
  f.add("a", std::nullopt, "2026-03-01");
  f.add("b", std::nullopt, "2026-02-01");
  f.add("c", "a");
  f.add("d", "c");  // d → c → a: a has two recipes tuned from it, b none
  f.index();
  auto chosen = choose_pair_references(f.reg, f.by_id);
  EXPECT_EQ(chosen.at(pair_key(f.recipe("a"))), "a");

  Fake g;  // no recipe tuned from either: the earlier date wins, then the smaller id
  g.add("a", std::nullopt, "2026-03-01");
  g.add("b", std::nullopt, "2026-02-01");
  g.add("c", std::nullopt, "2026-02-01");
  g.index();
  EXPECT_EQ(choose_pair_references(g.reg, g.by_id).at(pair_key(g.recipe("a"))), "b");
}

TEST(References, a_recipe_resolves_to_the_reference_it_names_and_a_root_to_whether_it_is_the_pairs_reference) {
  Fake f;
  f.add("a", std::nullopt, "2026-01-01");
  f.add("b", std::nullopt, "2026-02-01");
  f.add("c", "a");
  f.index();
  auto chosen = choose_pair_references(f.reg, f.by_id);
  EXPECT_EQ(resolve_reference(f.recipe("c"), f.by_id, chosen).reference, &f.recipe("a"));
  EXPECT_TRUE(resolve_reference(f.recipe("a"), f.by_id, chosen).is_reference);
  auto second = resolve_reference(f.recipe("b"), f.by_id, chosen);
  EXPECT_FALSE(second.is_reference);
  ASSERT_TRUE(second.problem);
  EXPECT_EQ(second.problem->text(),
            "reference: the pair already has the reference recipe 'a'; a second reference would rank "
            "without any check");
  EXPECT_EQ(second.problem->fix, "set `reference: a` and pass both checks against it");
}

TEST(References, a_cycle_is_named_in_order_and_a_missing_or_unreadable_reference_is_named) {
  Fake f;
  f.add("x", "y");
  f.add("y", "z");
  f.add("z", "y");
  f.add("m", "nowhere");
  f.add("u", "broken");
  f.add_unreadable("broken");
  f.index();
  std::map<std::string, std::string> none;
  auto text = [&](const char* id) { return resolve_reference(f.recipe(id), f.by_id, none).problem.value().text(); };
  EXPECT_EQ(text("x"), "reference: the references form a cycle: x → y → z → y");
  EXPECT_EQ(text("m"), "reference: 'nowhere' does not exist in the registry");
  EXPECT_EQ(text("u"), "reference: 'broken' cannot be read: recipe.yaml: line 3: bad");
}

TEST(References, a_recipe_is_verified_only_when_its_chain_is_and_the_break_is_named) {
  Fake f;
  f.add("root", std::nullopt);
  f.add("mid", "root");
  f.add("leaf", "mid");
  f.add("ok-root", std::nullopt, "2026-01-01", "other-model");
  f.add("ok-leaf", "ok-root", "2026-01-01", "other-model");
  f.index();
  std::vector<RecipeResult> results;
  for (const auto& e : f.reg.recipes) {
    RecipeResult r;
    r.id = e.id;
    r.entry = &e;
    if (e.id == "root")
      r.reasons = {{Stage::measurement, "measurement.window", "step 7 is missing", ""},
                   {Stage::rows, "rows.reference-build", "not verified", ""}};
    results.push_back(r);
  }
  require_verified_references(results);
  EXPECT_FALSE(results[0].verified);
  auto texts = [](const RecipeResult& r) {
    std::vector<std::string> out;
    for (const auto& x : r.reasons) out.push_back(x.text());
    return out;
  };
  EXPECT_THAT(texts(results[1]), ElementsAre("reference: 'root' is not verified (measurement: step 7 is missing)"));
  EXPECT_THAT(texts(results[2]), ElementsAre("reference: 'mid' is not verified (it is tuned from 'root', which is "
                                             "not verified: measurement: step 7 is missing)"));
  EXPECT_TRUE(results[3].verified);
  EXPECT_TRUE(results[4].verified);
}

// a → b → c → b: b and c form a cycle (each already carries the cycle's reason), a is tuned from it. Whatever the
// order of the results, b and c keep their own reason alone and a is told its reference is not verified.
TEST(References, a_cycles_members_take_no_reason_from_each_other_in_any_order) {
  Fake f;
  f.add("a", "b");
  f.add("b", "c");
  f.add("c", "b");
  f.index();
  const Reason cycle{Stage::reference, "reference.cycle", "the references form a cycle", ""};
  std::vector<std::size_t> order{0, 1, 2};
  do {
    std::vector<RecipeResult> results;
    for (std::size_t i : order) {
      RecipeResult r;
      r.id = f.reg.recipes[i].id;
      r.entry = &f.reg.recipes[i];
      if (r.id != "a") r.reasons = {cycle};
      results.push_back(r);
    }
    require_verified_references(results);
    for (const auto& r : results) {
      SCOPED_TRACE(fmt::format("{} in the order {}", r.id, fmt::join(order, ",")));
      std::vector<std::string> texts;
      for (const auto& x : r.reasons) texts.push_back(x.text());
      if (r.id == "a")
        EXPECT_THAT(texts, ElementsAre("reference: 'b' is not verified (reference: the references form a cycle)"));
      else
        EXPECT_THAT(texts, ElementsAre("reference: the references form a cycle"));
      EXPECT_FALSE(r.verified);
    }
  } while (std::next_permutation(order.begin(), order.end()));
}

}  // namespace
}  // namespace openrecipes::registry
