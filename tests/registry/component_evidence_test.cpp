// Component tests read from evidence (SPEC §4.2), on the bundled tulu3-cefusion: a real Megatron-LM run on
// one H200 with one same-math swap (the native fused cross-entropy) and the raw output of its component test, run by
// `openrecipes component-test` on the same machine. It verifies as bundled; each way its record or raw output can be
// changed (a tampered worst error, a wrong shape, a wrong swap, no effect, a missing raw output, another bound) makes
// it ineligible with the reason.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/files.h"
#include "registry/scratch_registry.h"

namespace openrecipes::registry {
namespace {
namespace fs = std::filesystem;
using namespace scratch;  // Scratch, build, gives_reason, has_reason, reasons_of

const char* const kRaw = "evidence/component-tests/cross_entropy_loss_fusion.json";
const char* const kSwap =
    "configuration check: ineligible: cross_entropy_loss_fusion changed from False to True — "
    "same-math swap, but ";

struct CefusionScratch : Scratch {
  CefusionScratch() : Scratch({"tulu3-ref", "tulu3-cefusion"}) {}
  fs::path raw() const { return recipe("tulu3-cefusion") / kRaw; }
  nlohmann::json raw_json() const { return nlohmann::json::parse(read(raw())); }
  void write_raw(const nlohmann::json& j) const { write(raw(), j.dump(1)); }
};

TEST(BundledComponentTest, the_bundled_recipe_with_a_swap_verifies_from_its_raw_output) {
  CefusionScratch s;
  auto b = build(s.root);
  const auto& r = b.get("tulu3-cefusion");
  EXPECT_TRUE(r.verified) << reasons_of(r);
  ASSERT_EQ(r.component_tests.size(), 1u);
  const auto& t = r.component_tests[0];
  EXPECT_EQ(t.evidence_problem, "");
  ASSERT_TRUE(t.raw);
  // The raw output as the device wrote it: the one swap, both values as the argument dumps print them, the model's
  // layer shape at L 512 and micro-batch 4, the code path the fused kernel takes.
  ASSERT_EQ(t.raw->swap.size(), 1u);
  EXPECT_EQ(t.raw->swap[0].argument, "cross_entropy_loss_fusion");
  EXPECT_EQ(t.raw->swap[0].reference, "False");
  EXPECT_EQ(t.raw->swap[0].recipe, "True");
  EXPECT_EQ(t.raw->shape.at("hidden_size"), 1024);
  EXPECT_EQ(t.raw->shape.at("seq_length"), 512);
  EXPECT_EQ(t.raw->shape.at("micro_batch_size"), 4);
  EXPECT_TRUE(t.raw->changed);
  bool fused = false;
  for (const auto& c : t.raw->code_recipe_only) fused |= c.find("fused_cross_entropy.py") != std::string::npos;
  EXPECT_TRUE(fused);
  EXPECT_EQ(t.raw->repeat_max_abs_diff, 0.0);  // the same setting twice: the same numbers
  // The worst error by hand: the largest max_abs_error / reference_max_abs over the raw output's 19 tensors (none has
  // a zero reference), in the tensor the device run printed.
  ASSERT_EQ(t.raw->tensors.size(), 19u);
  double by_hand = 0;
  for (const auto& x : t.raw->tensors) {
    ASSERT_GT(x.reference_max_abs, 0) << x.name;
    by_hand = std::max(by_hand, x.max_abs_error / x.reference_max_abs);
  }
  const auto v = checks::recompute_verdict(*t.raw, 0.016);
  EXPECT_DOUBLE_EQ(v.worst_error, by_hand);
  EXPECT_EQ(v.worst_tensor, "grad:module.decoder.layers.1.input_layernorm.weight");
  EXPECT_NEAR(v.worst_error, 0.00666667, 1e-8);
  EXPECT_EQ(v.verdict, "passed");
  ASSERT_TRUE(r.configuration);
  EXPECT_TRUE(r.configuration->eligible);
}

TEST(BundledComponentTest, a_tampered_worst_error_in_the_record_is_caught) {
  CefusionScratch s;
  s.replace(s.recipe("tulu3-cefusion") / "recipe.yaml", "worst_error: 0.00666667", "worst_error: 0.001");
  auto b = build(s.root);
  const auto& r = b.get("tulu3-cefusion");
  EXPECT_FALSE(r.verified);
  EXPECT_TRUE(gives_reason(r, std::string(kSwap) + "its worst_error 0.001 disagrees with its raw output " + kRaw +
                                  ", whose tensors give 0.00666667"));
}

TEST(BundledComponentTest, a_raw_output_edited_to_pass_is_recomputed) {
  CefusionScratch s;
  auto j = s.raw_json();
  // The worst tensor's error grown past the bound, its own `error` and the summary left as they were.
  for (auto& t : j["tensors"])
    if (t["name"] == j["worst_tensor"]) t["max_abs_error"] = t["reference_max_abs"].get<double>() * 0.05;
  s.write_raw(j);
  auto b = build(s.root);
  const auto& r = b.get("tulu3-cefusion");
  EXPECT_FALSE(r.verified);
  EXPECT_TRUE(gives_reason(r, "whose tensors give 0.05"));
  EXPECT_TRUE(gives_reason(r, "gives failed (worst error 0.05 against bound 0.016)"));
}

TEST(BundledComponentTest, a_raw_output_at_another_shape_or_of_another_swap_is_caught) {
  CefusionScratch s;
  auto j = s.raw_json();
  j["shape"]["hidden_size"] = 4096;
  j["shape"]["seq_length"] = 8192;
  s.write_raw(j);
  auto b = build(s.root);
  EXPECT_TRUE(
      has_reason(b.get("tulu3-cefusion"),
                 "ran at another shape: hidden_size 4096 (model 1024); seq_length 8192 (the recipe's row length "
                 "512)"))
      << reasons_of(b.get("tulu3-cefusion"));

  j = s.raw_json();
  j["shape"]["hidden_size"] = 1024;
  j["shape"]["seq_length"] = 512;
  j["swap"][0]["argument"] = "cross_entropy_fusion_impl";  // of the same rule, but not what the runs changed
  j["swap"][0]["reference"] = "te";
  j["swap"][0]["recipe"] = "native";
  s.write_raw(j);
  b = build(s.root);
  EXPECT_TRUE(
      gives_reason(b.get("tulu3-cefusion"),
                   "tested cross_entropy_fusion_impl = te (reference) vs native (recipe), but the runs' argument "
                   "dumps show native vs native"));
  // Its record names cross_entropy_loss_fusion, but the raw output no longer swapped it.
  EXPECT_FALSE(b.get("tulu3-cefusion").verified);
}

TEST(BundledComponentTest, no_effect_never_counts) {
  CefusionScratch s;
  auto j = s.raw_json();
  j["effect"]["changed"] = false;
  j["effect"]["code"]["differ"] = 0;
  j["effect"]["code"]["reference_only"] = nlohmann::json::array();
  j["effect"]["code"]["recipe_only"] = nlohmann::json::array();
  s.write_raw(j);
  auto b = build(s.root);
  EXPECT_FALSE(b.get("tulu3-cefusion").verified);
  EXPECT_TRUE(gives_reason(b.get("tulu3-cefusion"), std::string(kSwap) + "its component test shows no effect"));
}

TEST(BundledComponentTest, a_missing_or_unreadable_raw_output_or_another_bound_is_caught) {
  {
    CefusionScratch s;
    fs::remove(s.raw());
    auto b = build(s.root);
    EXPECT_FALSE(b.get("tulu3-cefusion").verified);
    EXPECT_TRUE(gives_reason(b.get("tulu3-cefusion"), std::string(kSwap) + "its component test's raw output " + kRaw +
                                                          " does not read: file not found"));
  }
  {
    CefusionScratch s;  // a record typed without its raw output
    s.replace(s.recipe("tulu3-cefusion") / "recipe.yaml",
              "    output: evidence/component-tests/cross_entropy_loss_fusion.json\n", "");
    auto b = build(s.root);
    EXPECT_TRUE(
        has_reason(b.get("tulu3-cefusion"),
                   std::string(kSwap) + "its component test has no raw output (the record's output: is missing)"))
        << reasons_of(b.get("tulu3-cefusion"));
  }
  {
    CefusionScratch s;  // a looser bound typed in the record
    s.replace(s.recipe("tulu3-cefusion") / "recipe.yaml", "bound: 0.016", "bound: 0.5");
    auto b = build(s.root);
    EXPECT_TRUE(gives_reason(b.get("tulu3-cefusion"), "its bound 0.5 (raw output 0.016) is not the rule's 0.016"));
  }
  {
    CefusionScratch s;  // no record at all
    const std::string y = s.read(s.recipe("tulu3-cefusion") / "recipe.yaml");
    s.write(s.recipe("tulu3-cefusion") / "recipe.yaml",
            y.substr(0, y.find("component_tests:")) + y.substr(y.find("claims:")));
    auto b = build(s.root);
    EXPECT_TRUE(gives_reason(b.get("tulu3-cefusion"), std::string(kSwap) + "no component test records this swap"));
  }
}

TEST(BundledComponentTest, a_record_of_a_swap_the_recipe_does_not_make_or_a_second_record_is_refused) {
  {
    CefusionScratch s;  // a second record, of an argument the recipe does not change, beside the real one
    const fs::path y = s.recipe("tulu3-cefusion") / "recipe.yaml";
    std::string text = s.read(y);
    const auto begin = text.find("  - swap: cross_entropy_loss_fusion");
    const auto end = text.find("claims:");
    std::string extra = text.substr(begin, end - begin);
    extra.replace(extra.find("swap: cross_entropy_loss_fusion"), 31, "swap: bias_swiglu_fusion");
    extra.replace(extra.find("output: "), std::string("output: ").size(), "output: evidence/");
    text.insert(end, extra);
    s.write(y, text);
    auto b = build(s.root);
    EXPECT_FALSE(b.get("tulu3-cefusion").verified);
    EXPECT_TRUE(gives_reason(b.get("tulu3-cefusion"),
                             "the recipe makes no same-math swap of bias_swiglu_fusion against its reference"));
  }
  {
    CefusionScratch s;  // the same record twice: the recipe does not load
    const fs::path y = s.recipe("tulu3-cefusion") / "recipe.yaml";
    std::string text = s.read(y);
    const auto begin = text.find("  - swap: cross_entropy_loss_fusion");
    const auto end = text.find("claims:");
    text.insert(end, text.substr(begin, end - begin));
    s.write(y, text);
    const auto reg = load_registry(s.root);
    bool refused = false;
    for (const auto& e : reg.recipes)
      if (e.id == "qwen3-0.6b/H200/tulu3-cefusion")
        refused =
            !e.recipe && e.load_error.find("a second component test of cross_entropy_loss_fusion") != std::string::npos;
    EXPECT_TRUE(refused);
  }
}

}  // namespace
}  // namespace openrecipes::registry
