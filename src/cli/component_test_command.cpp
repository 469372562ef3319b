// `openrecipes component-test <recipe> [--reference DIR] [--swap NAME ...] [--var NAME=VALUE ...] [--rules FILE]
// [--dry-run] -o DIR` (SPEC §4.2): runs the component test of every same-math swap the recipe changes against its
// reference, on this machine's GPU, with the runner compiled into openrecipes (data/component_test.py), and leaves
// each test's raw output in DIR/<swap>.json for `openrecipes submit --component-tests DIR` (and in
// DIR/component-tests.yaml the records submit will write from them).
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "checks/component_check.h"
#include "cli/command.h"
#include "core/atomic_output.h"
#include "core/error.h"
#include "core/files.h"
#include "core/subprocess.h"
#include "core/text.h"
#include "registry/model.h"
#include "registry/recipe.h"
#include "run/component_plan.h"
#include "run/run_plan.h"

namespace openrecipes::cli {
namespace {
namespace fs = std::filesystem;

struct Options {
  run::ComponentTestRequest request;
  std::string reference, rules, out;
  bool dry_run = false;
};

// The layer shape of the recipe's model, from its registry's models/ (empty when the registry has no such file).
checks::LayerShape model_layer_shape(const run::ComponentPlan& p) {
  const fs::path models = p.rules_file.parent_path().parent_path() / "models";
  const std::string model = p.recipe_id.substr(0, p.recipe_id.find('/'));
  std::error_code ec;
  if (!fs::is_regular_file(models / (model + ".yaml"), ec)) return {};
  return registry::load_models(models).at(model).layer_shape;
}

void print_plan(const run::ComponentPlan& p, const std::vector<std::string>& runner) {
  std::cout << fmt::format("component tests of {} against its reference {} ({})\n", p.recipe_id, p.reference_id,
                           p.rules_file.string());
  if (p.tests.empty() && p.cannot.empty())
    std::cout << "  the two commands set no same-math swap differently: nothing to test\n";
  for (const auto& t : p.tests) {
    std::cout << fmt::format("  test {}: swaps {}; {}; bound {}{}\n    compares {}\n", t.id, fmt::join(t.changed, ", "),
                             counted(t.rule.layers, "layer"), format_double(t.rule.bound),
                             t.rule.needs.empty() ? "" : fmt::format("; needs {}", fmt::join(t.rule.needs, ", ")),
                             t.rule.compares);
  }
  for (const auto& c : p.cannot) std::cout << "  cannot test " << c << "\n";
  std::cout << "  runner  " << run::display_command(runner) << "\n  PYTHONPATH ";
  for (std::size_t i = 0; i < p.pythonpath.size(); ++i) std::cout << (i ? ":" : "") << p.pythonpath[i];
  std::cout << "\n  writes  " << p.out_dir.string() << "/{plan.json, runner/component_test.py, <swap>.json, "
            << "<swap>.<setting>.log}\n";
}

int component_test(Options& o) {
  if (!o.reference.empty()) o.request.reference = o.reference;
  if (!o.rules.empty()) o.request.rules = o.rules;
  o.request.out_dir = o.out;
  const run::ComponentPlan plan = run::plan_component_tests(o.request);
  const fs::path runner_file = plan.out_dir / "runner" / "component_test.py";
  const fs::path plan_file = plan.out_dir / "plan.json";
  const std::vector<std::string> runner = {plan.python, runner_file.string(), "run", plan_file.string()};
  if (o.dry_run) {
    print_plan(plan, runner);
    return 0;
  }
  for (const auto& c : plan.cannot) std::cout << "component test " << c << "\n";
  if (plan.tests.empty()) {
    if (plan.cannot.empty())
      std::cout << fmt::format("{}: the command sets no same-math swap differently from {}: nothing to test\n",
                               plan.recipe_id, plan.reference_id);
    return plan.cannot.empty() ? 0 : static_cast<int>(ExitCode::check_failed);
  }
  fs::create_directories(plan.out_dir / "runner");
  // The runner this openrecipes was built with, written out: the raw outputs name its sha256, which build checks.
  write_file_atomic(runner_file, std::string(checks::builtin_runner()));
  write_file_atomic(plan_file, run::component_plan_json(plan));
  std::string path;
  for (const auto& d : plan.pythonpath) path += (path.empty() ? "" : ":") + d;
  if (const char* inherited = std::getenv("PYTHONPATH"); inherited && *inherited) path += std::string(":") + inherited;
  StreamOptions so;
  so.env = {{"PYTHONPATH", path}, {"PYTHONUNBUFFERED", "1"}, {"PYTHONDONTWRITEBYTECODE", "1"}};
  so.on_output = [](std::string_view s) { std::cout << s << std::flush; };
  const int rc = run_process_streaming(runner, so);

  // What the runner left, read back as build reads it; the records submit will write, for the reader.
  bool all_passed = plan.cannot.empty() && rc == 0;
  std::vector<checks::ComponentTest> records;
  const auto model_shape = model_layer_shape(plan);
  std::cout << "\n";
  for (const auto& t : plan.tests) {
    const fs::path raw_file = plan.out_dir / (t.id + ".json");
    std::error_code ec;
    if (!fs::is_regular_file(raw_file, ec)) {
      std::cout << fmt::format("  {:<28} no raw output (see the runner's messages above)\n", t.id);
      all_passed = false;
      continue;
    }
    std::optional<checks::ComponentOutput> read;
    try {
      read = checks::parse_component_output(read_file(raw_file, std::size_t{16} << 20), raw_file.string());
    } catch (const InputError& e) {
      std::cout << fmt::format("  {:<28} its raw output does not read: {}\n", t.id, e.problem());
      all_passed = false;
      continue;
    }
    const auto& raw = *read;
    const auto v = checks::recompute_verdict(raw, t.rule.bound);
    all_passed &= v.verdict == "passed";
    records.push_back(run::component_record(raw, model_shape, "evidence/component-tests/" + t.id + ".json"));
    std::cout << fmt::format("  {:<28} {:<9} worst error {:.4g} ({}), bound {}\n  {:<28} {}\n", t.id, v.verdict,
                             v.worst_error, v.worst_tensor, format_double(t.rule.bound), "", raw_file.string());
  }
  if (!records.empty())
    write_file_atomic(
        plan.out_dir / "component-tests.yaml",
        "# The records openrecipes submit --component-tests writes from the raw outputs beside this file.\n" +
            registry::component_tests_yaml(records));
  if (all_passed)
    std::cout << fmt::format("  next: openrecipes submit <run dir> --component-tests {} ...\n", plan.out_dir.string());
  return all_passed ? 0 : static_cast<int>(ExitCode::check_failed);
}

const bool registered_component_test = register_command(
    {"component-test",
     "Run the component test of each same-math swap a recipe makes, on this machine's GPU (docs/component-tests.md)",
     [](CLI::App& app) {
       auto o = std::make_shared<Options>();
       app.add_option("recipe", o->request.recipe, "the recipe's folder or recipe.yaml (a draft is enough)")
           ->required();
       app.add_option("--reference", o->reference, "its reference's folder (default: the registry's recipe it names)");
       app.add_option("--swap", o->request.swaps, "only the test of this argument (as the argument dump names it)");
       app.add_option("--var", o->request.vars,
                      "NAME=VALUE for a variable of the command, as openrecipes run takes them (MEGATRON_LM: the "
                      "Megatron-LM checkout the runner imports; PYTHON: the interpreter)");
       app.add_option("--rules", o->rules, "component_tests.yaml (default: the recipe's registry's)");
       app.add_flag("--dry-run", o->dry_run, "print the tests, the runner's command and what it writes, and stop");
       app.add_option("-o,--out", o->out, "DIR, a new folder for the raw outputs")->required();
       app.footer(
           "Exit codes: 0 every test passed (or there is nothing to test); 1 a test failed, showed no effect or could "
           "not run here; 2 bad input (nothing was run).");
       return [o]() { return component_test(*o); };
     }});

}  // namespace
}  // namespace openrecipes::cli
