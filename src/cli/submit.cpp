// `openrecipes submit <run-dir> --reference <recipe> --author <handle> [--registry R] [--name NAME]
// [--component-tests DIR ...] [--search TUNE_DIR]`: a run that
// `openrecipes run` captured becomes a recipe of the registry, checked by every stage of `build` (SPEC §5).
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>

#include "cli/command.h"
#include "core/error.h"
#include "core/text.h"
#include "run/submit.h"

namespace openrecipes::cli {
namespace {

int submit(run::SubmitRequest& q, const std::string& registry) {
  q.registry = registry.empty() ? bundled_path("registry") : registry;
  const auto r = run::submit_run(q);
  const auto& e = r.evaluation;
  std::cout << fmt::format("submitted {}\n  into {}\n", r.id, r.dir.string());
  if (e.throughput)
    std::cout << fmt::format("  {} tokens/s/GPU · CV {:.3f} over steps {}",
                             with_thousands(e.throughput->tokens_per_s_per_gpu, 1), e.throughput->cv,
                             e.window ? e.window->str() : std::string("?"));
  if (e.gpu_hours) std::cout << fmt::format(" · {:.4f} GPU-hours", *e.gpu_hours);
  if (e.dollars_per_million_tokens) std::cout << fmt::format(" · ${:.3f}/M tokens", *e.dollars_per_million_tokens);
  if (e.mfu) std::cout << fmt::format(" · MFU {:.1f}%", *e.mfu * 100);
  std::cout << "\n";
  if (e.configuration)
    std::cout << fmt::format("  configuration: {} ({} changed argument{})\n",
                             e.configuration->eligible ? "eligible" : "ineligible", e.configuration->changes.size(),
                             e.configuration->changes.size() == 1 ? "" : "s");
  for (const auto& t : e.component_tests)
    std::cout << fmt::format("  component test {}: {} (worst error {:.4g}, bound {}){}\n", t.swap,
                             t.raw ? checks::recompute_verdict(*t.raw, t.bound).verdict : std::string("no raw output"),
                             t.worst_error, format_double(t.bound),
                             t.evidence_problem.empty() ? "" : " — " + t.evidence_problem);
  if (e.convergence)
    std::cout << fmt::format(
        "  convergence: {} (correlation {:.4f}, final loss difference {:.3g}, {} pointwise "
        "failures)\n",
        e.convergence->passed ? "pass" : "fail", e.convergence->correlation, e.convergence->final_loss_rel_diff,
        e.convergence->pointwise_failures);
  if (e.verified) {
    std::cout << "verified: it ranks in its pair (openrecipes build " << q.registry.string() << ")\n";
    return 0;
  }
  std::cout << "not verified: the recipe is written in " << r.dir.string() << " all the same (openrecipes check recipe "
            << r.dir.string() << " checks it again after a fix; rm -r it to withdraw it):\n";
  for (const auto& reason : e.reasons) std::cout << "  - " << reason.text_with_fix() << "\n";
  return static_cast<int>(ExitCode::check_failed);
}

const bool registered_submit = register_command(
    {"submit", "Turn a captured run into a recipe of the registry and check it as build does", [](CLI::App& app) {
       auto q = std::make_shared<run::SubmitRequest>();
       auto registry = std::make_shared<std::string>();
       app.add_option("run_dir", q->run_dir, "the run directory openrecipes run left")->required();
       app.add_option("--reference", q->reference,
                      "the recipe it was tuned from (folder or recipe.yaml), or none: the reference of a new pair")
           ->required();
       app.add_option("--author", q->author, "your GitHub handle")->required();
       app.add_option("--registry", *registry, "the registry to write into (default: the bundled one)");
       app.add_option("--component-tests", q->component_tests,
                      "DIR that openrecipes component-test wrote: its raw outputs become the recipe's component-test "
                      "evidence (one per same-math swap; repeatable)");
       app.add_option("--search", q->search,
                      "TUNE_DIR that openrecipes tune wrote, when the run is its winner: its tune.json becomes the "
                      "recipe's evidence/search.json, shown on its page");
       app.add_option("--name", q->name, "the new recipe's folder name (default <recipe>-<author>-<log hash>)");
       app.footer(
           "Exit codes: 0 the recipe is verified; 1 it was written but is not verified (each reason printed); 2 bad "
           "input: the run failed, is incomplete or was edited after capture, and nothing was written.");
       return [q, registry]() {
         try {
           return submit(*q, *registry);
         } catch (const std::filesystem::filesystem_error& e) {
           throw InputError(e.path1().string(), e.code().message(),
                            "give a registry folder you can write (--registry)");
         }
       };
     }});

}  // namespace
}  // namespace openrecipes::cli
