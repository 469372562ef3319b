// Component tests (SPEC §4.2): rules, records and the runner's raw output (checks/component_check.h).
#include "checks/component_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "checks/embedded_runner.h"
#include "checks/stack.h"
#include "core/error.h"
#include "core/json_limits.h"
#include "core/sha256.h"
#include "core/text.h"
#include "core/yaml.h"

namespace openrecipes::checks {
namespace {

const char* const kRawFix = "give the raw output openrecipes component-test wrote, unchanged";
constexpr double kInf = std::numeric_limits<double>::infinity();

// A number field of the raw output: a JSON number, or (where `inf_ok`) the string "inf" the runner writes for x / 0.
double number(const nlohmann::json& j, const char* key, const std::string& file, bool inf_ok = false) {
  const auto& v = j.at(key);
  if (inf_ok && v.is_string() && v.get<std::string>() == "inf") return kInf;
  if (!v.is_number()) throw InputError(file, fmt::format("{} is not a number", key), kRawFix);
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < 0) throw InputError(file, fmt::format("{} is negative or not finite", key), kRawFix);
  return x;
}

std::string text(const nlohmann::json& j, const char* key, const std::string& file, std::size_t max = 4000) {
  const auto& v = j.at(key);
  if (!v.is_string() || v.get<std::string>().size() > max)
    throw InputError(file, fmt::format("{} is not a string of at most {} bytes", key, max), kRawFix);
  return v.get<std::string>();
}

std::vector<std::string> strings(const nlohmann::json& j, const std::string& file) {
  std::vector<std::string> out;
  if (!j.is_array()) throw InputError(file, "a list of names is not a list", kRawFix);
  for (const auto& s : j) {
    if (!s.is_string()) throw InputError(file, "a list of names holds a non-string", kRawFix);
    out.push_back(s.get<std::string>());
  }
  return out;
}

std::string show_shape(const std::map<std::string, std::int64_t>& s) {
  std::string out;
  for (const auto& [k, v] : s) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", k, v);
  return out;
}

// A number in a message, at the precision a record holds.
std::string show(double x) { return fmt::format("{:.6g}", x); }

bool same_to_print(double a, double b) { return recorded_error(a) == recorded_error(b); }

}  // namespace

ComponentRules ComponentRules::load(const std::filesystem::path& path) {
  ComponentRules out;
  out.file = path.string();
  const auto root = load_yaml_file(path);
  root.reject_unknown_keys({"version", "precision", "accepted_runners", "swaps"});
  root.require("version").as_int(1, 1);
  out.precision_ = root.require("precision").as_string(16);
  if (root["accepted_runners"].defined())
    for (const auto& r : root["accepted_runners"].items()) {
      const std::string sha = r.as_string(64);
      if (!is_sha256_hex(sha)) throw InputError(r.where(), "expected 64 lowercase hex digits (a runner's sha256)");
      out.accepted_runners_.push_back(sha);
    }
  for (const auto& s : root.require("swaps").items()) {
    s.reject_unknown_keys({"names", "unit", "layers", "needs", "why", "compares", "bound", "source"});
    ComponentRule rule;
    rule.where = s.where();
    for (const auto& n : s.require("names").items()) rule.names.push_back(n.as_string(200));
    if (rule.names.empty()) throw InputError(s["names"].where(), "a rule names at least one argument");
    rule.unit = s.require("unit").as_string(16);
    if (rule.unit != "model" && rule.unit != "none")
      throw InputError(s["unit"].where(), "expected model (the runner builds it) or none (it cannot)");
    if (rule.unit == "model") rule.layers = s.require("layers").as_int(1, 64);
    if (rule.unit == "none") rule.why = s.require("why").as_string(1000);
    if (s["needs"].defined())
      for (const auto& n : s["needs"].items()) rule.needs.push_back(n.as_string(200));
    rule.compares = s.require("compares").as_string(1000);
    rule.source = s.require("source").as_string(2000);
    if (rule.compares.empty() || rule.source.empty())
      throw InputError(s.where(), "every rule says what it compares and the source of its bound");
    rule.bound = s.require("bound").as_double(0, 1);
    for (const auto& n : rule.names)
      if (!out.by_name_.emplace(n, out.rules_.size()).second)
        throw InputError(s["names"].where(), n + " is listed by two rules", "list each argument in one rule");
    out.rules_.push_back(std::move(rule));
  }
  return out;
}

const ComponentRule* ComponentRules::find(std::string_view argument) const {
  auto it = by_name_.find(argument);
  return it == by_name_.end() ? nullptr : &rules_[it->second];
}

std::string_view builtin_runner() { return runner_file("component_test.py"); }

const std::string& builtin_runner_sha256() {
  static const std::string sha = sha256_hex(builtin_runner());
  return sha;
}

ComponentOutput parse_component_output(std::string_view json, const std::string& file) {
  if (json.size() > (std::size_t{16} << 20))
    throw InputError(file, "over 16 MiB: not a component test's raw output", kRawFix);
  const auto j = parse_json_strict(json, file, kRawFix);
  try {
    ComponentOutput o;
    o.file = file;
    if (!j.is_object() || j.value("format", "") != "openrecipes-component-test")
      throw InputError(file, "not a component test's raw output (format is not openrecipes-component-test)", kRawFix);
    if (j.at("format_version") != 1)
      throw InputError(file, "format_version is not 1", "run the component test again with this openrecipes");
    o.runner_sha256 = text(j, "runner_sha256", file, 64);
    o.recipe = text(j, "recipe", file, 400);
    o.reference = text(j, "reference", file, 400);
    o.test = text(j, "test", file, 200);
    o.compares = text(j, "compares", file);
    o.precision = text(j, "precision", file, 16);
    o.gpu = text(j, "gpu", file, 200);
    o.verdict = text(j, "verdict", file, 16);
    if (o.verdict != "passed" && o.verdict != "failed" && o.verdict != "no effect")
      throw InputError(file, "verdict is not passed, failed or no effect", kRawFix);
    o.worst_tensor = text(j, "worst_tensor", file, 1000);
    if (!j.at("swap").is_array()) throw InputError(file, "swap is not a list", kRawFix);
    for (const auto& s : j.at("swap")) {
      if (!s.is_object()) throw InputError(file, "a swap entry is not an object", kRawFix);
      SwappedArgument a{text(s, "argument", file, 200), text(s, "reference", file), text(s, "recipe", file)};
      if (a.reference == a.recipe)
        throw InputError(file, "swap " + a.argument + " has the same value in both settings", kRawFix);
      for (const auto& b : o.swap)
        if (b.argument == a.argument) throw InputError(file, "swap lists " + a.argument + " twice", kRawFix);
      o.swap.push_back(std::move(a));
    }
    o.bound = number(j, "bound", file);
    o.worst_error = number(j, "worst_error", file, true);
    o.repeat_max_abs_diff = number(j, "repeat_max_abs_diff", file);
    for (const auto& [k, v] : j.at("shape").items()) {
      if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
        throw InputError(file, "shape." + k + " is not a whole number", kRawFix);
      o.shape[k] = v.get<std::int64_t>();
    }
    if (!j.at("seed").is_number_integer()) throw InputError(file, "seed is not a whole number", kRawFix);
    o.seed = j.at("seed").get<std::int64_t>();
    if (!j.contains("deterministic_algorithms") || !j.at("deterministic_algorithms").is_boolean())
      throw InputError(file, "deterministic_algorithms is not true or false", kRawFix);
    o.deterministic = j.at("deterministic_algorithms").get<bool>();
    for (const auto& [k, v] : j.at("versions").items()) {
      if (!v.is_string()) throw InputError(file, "versions." + k + " is not a string", kRawFix);
      o.versions[k] = v.get<std::string>();
    }
    const auto& e = j.at("effect");
    if (!e.at("changed").is_boolean()) throw InputError(file, "effect.changed is not true or false", kRawFix);
    o.changed = e.at("changed").get<bool>();
    o.modules_differ = e.at("modules").at("differ").get<std::int64_t>();
    o.code_differ = e.at("code").at("differ").get<std::int64_t>();
    o.modules_reference_only = strings(e.at("modules").at("reference_only"), file);
    o.modules_recipe_only = strings(e.at("modules").at("recipe_only"), file);
    o.code_reference_only = strings(e.at("code").at("reference_only"), file);
    o.code_recipe_only = strings(e.at("code").at("recipe_only"), file);
    if (o.changed != (o.modules_differ > 0 || o.code_differ > 0))
      throw InputError(file, "effect.changed disagrees with the differences it counts", kRawFix);
    if (o.changed && o.modules_reference_only.empty() && o.modules_recipe_only.empty() &&
        o.code_reference_only.empty() && o.code_recipe_only.empty())
      throw InputError(file, "effect.changed is true, and it lists no module or function only one setting has",
                       kRawFix);
    const auto& ts = j.at("tensors");
    if (!ts.is_array() || ts.empty() || ts.size() > kMaxComponentTensors)
      throw InputError(file, fmt::format("tensors is not a list of 1 to {} compared tensors", kMaxComponentTensors),
                       kRawFix);
    bool output = false, gradient = false;
    std::set<std::string> names;
    for (const auto& t : ts) {
      ComponentTensor x;
      x.name = text(t, "name", file, 1000);
      x.kind = text(t, "kind", file, 16);
      if (x.kind != "output" && x.kind != "gradient")
        throw InputError(file, "tensor " + x.name + ": kind is not output or gradient", kRawFix);
      output |= x.kind == "output";
      gradient |= x.kind == "gradient";
      if (!names.insert(x.name).second) throw InputError(file, "tensor " + x.name + " is listed twice", kRawFix);
      for (const auto& d : t.at("shape")) {
        if (!d.is_number_integer() || d.get<std::int64_t>() < 0 || d.get<std::int64_t>() > (std::int64_t{1} << 40))
          throw InputError(file, "tensor " + x.name + ": a dimension is not a whole number 0..2^40", kRawFix);
        x.shape.push_back(d.get<std::int64_t>());
      }
      x.dtype = text(t, "dtype", file, 32);
      x.max_abs_error = number(t, "max_abs_error", file, true);  // "inf": a non-finite value in either setting
      x.reference_max_abs = number(t, "reference_max_abs", file, true);
      x.error = number(t, "error", file, true);
      o.tensors.push_back(std::move(x));
    }
    if (!output) throw InputError(file, "no output tensor was compared (the loss)", kRawFix);
    if (!gradient) throw InputError(file, "no gradient was compared", kRawFix);
    if (!names.count(o.worst_tensor)) throw InputError(file, "worst_tensor is not one of its tensors", kRawFix);
    return o;
  } catch (const nlohmann::json::exception& e) {
    throw InputError(file, "a field is missing or of another type: " + json_error_text(e.what()), kRawFix);
  }
}

std::string training_precision(const std::map<std::string, std::string>& dump) {
  auto is = [&](const char* k, const char* v) { return dump.count(k) && dump.at(k) == v; };
  if (dump.count("fp8") && dump.at("fp8") != "None") return "fp8";
  if (is("bf16", "True")) return "bf16";
  if (is("fp16", "True")) return "fp16";
  if (dump.count("bf16") || dump.count("fp16")) return "fp32";
  return {};
}

double recorded_error(double worst_error) {
  const double x = std::min(worst_error, kMaxRecordedError);
  return parse_double(fmt::format("{:.6g}", x)).value_or(x);
}

double tensor_error(const ComponentTensor& t) {
  if (!std::isfinite(t.max_abs_error) || !std::isfinite(t.reference_max_abs)) return kInf;  // a NaN or inf fails
  if (t.reference_max_abs == 0) return t.max_abs_error == 0 ? 0 : kInf;
  return t.max_abs_error / t.reference_max_abs;
}

ComponentVerdict recompute_verdict(const ComponentOutput& o, double bound) {
  ComponentVerdict v;
  for (const auto& t : o.tensors) {
    const double e = tensor_error(t);
    if (v.worst_tensor.empty() || e > v.worst_error) v.worst_error = e, v.worst_tensor = t.name;
  }
  v.verdict = !o.changed ? "no effect" : v.worst_error <= bound ? "passed" : "failed";
  return v;
}

std::string component_test_problem(const ComponentTest& test, const LayerShape& model_shape) {
  if (!test.evidence_problem.empty()) return test.evidence_problem;
  if (!test.passed) return "its component test did not pass";
  if (!(test.worst_error <= test.bound))
    return fmt::format("its component test's worst error {} exceeds its bound {}", format_double(test.worst_error),
                       format_double(test.bound));
  if (model_shape.empty()) return "the model file records no layer shape to compare the component test with";
  if (test.shape != model_shape) {
    std::string diff;
    for (const auto& [k, v] : model_shape) {
      auto it = test.shape.find(k);
      if (it == test.shape.end())
        diff += fmt::format(" {} missing (model {});", k, v);
      else if (it->second != v)
        diff += fmt::format(" {} {} (model {});", k, it->second, v);
    }
    for (const auto& [k, v] : test.shape)
      if (!model_shape.count(k)) diff += fmt::format(" {} {} (not a field of the model's shape);", k, v);
    if (!diff.empty()) diff.pop_back();
    return "its component test ran at another layer shape:" + diff;
  }
  return {};
}

std::vector<std::string> check_component_evidence(const ComponentTest& t, const ComponentContext& c) {
  std::vector<std::string> problems;
  if (t.output.empty()) return {"its component test has no raw output (the record's output: is missing)"};
  if (!t.raw) return {"its component test's raw output " + t.output + " was not read"};
  const ComponentOutput& o = *t.raw;
  const std::string& f = t.output;
  // The rule: the test's swap must be one, and its bound the rule's.
  const ComponentRule* rule = c.rules ? c.rules->find(t.swap) : nullptr;
  if (!rule) return {fmt::format("{} is not a swap registry/rules/component_tests.yaml lists", t.swap)};
  if (o.test != t.swap) problems.push_back(fmt::format("its raw output {} is of test {}, not {}", f, o.test, t.swap));
  if (t.bound != rule->bound || o.bound != rule->bound)
    problems.push_back(fmt::format("its bound {} (raw output {}) is not the rule's {} ({})", show(t.bound),
                                   show(o.bound), show(rule->bound), rule->where));
  if (o.runner_sha256 != builtin_runner_sha256() &&
      std::find(c.rules->accepted_runners().begin(), c.rules->accepted_runners().end(), o.runner_sha256) ==
          c.rules->accepted_runners().end())
    problems.push_back(fmt::format(
        "its raw output {} was written by a runner this registry does not accept (sha256 {}; this openrecipes' is {})",
        f, o.runner_sha256.substr(0, 12), builtin_runner_sha256().substr(0, 12)));
  // Recomputed from the per-tensor errors.
  const auto v = recompute_verdict(o, rule->bound);
  if (!same_to_print(v.worst_error, t.worst_error) || !same_to_print(v.worst_error, o.worst_error))
    problems.push_back(fmt::format("its worst_error {} disagrees with its raw output {}, whose tensors give {} ({})",
                                   show(t.worst_error), f, show(v.worst_error), v.worst_tensor));
  if (v.verdict == "no effect")
    problems.push_back(fmt::format(
        "its component test shows no effect: both settings built the same modules and ran the same code ({}), so "
        "the swap changed nothing that was tested",
        f));
  else if (t.passed != (v.verdict == "passed") || o.verdict != v.verdict)
    problems.push_back(
        fmt::format("it says passed: {}, and its raw output {} gives {} (worst error {} against bound {})",
                    t.passed ? "true" : "false", f, v.verdict, show(v.worst_error), show(rule->bound)));
  if (t.compares != o.compares || o.compares != rule->compares)
    problems.push_back(
        fmt::format("what it says it compares, or its raw output {} says, is not the rule's ({})", f, rule->where));
  if (!o.deterministic) problems.push_back(fmt::format("its raw output {} ran without deterministic kernels", f));
  if (o.repeat_max_abs_diff != 0)
    problems.push_back(fmt::format(
        "the same setting run twice differed by {} (raw output {}): the comparison would measure run-to-run noise",
        show(o.repeat_max_abs_diff), f));
  // The swap: every argument the runner swapped, with both values, as the two runs' argument dumps show them; each
  // one of the rule's.
  if (o.swap.empty()) problems.push_back(fmt::format("its raw output {} swapped no argument", f));
  for (const auto& s : o.swap) {
    if (rule->names.end() == std::find(rule->names.begin(), rule->names.end(), s.argument)) {
      problems.push_back(
          fmt::format("its raw output {} swapped {}, which is not one of this test's arguments", f, s.argument));
      continue;
    }
    if (!c.recipe_args || !c.reference_args) continue;
    auto value = [&](const std::map<std::string, std::string>& dump) {
      auto it = dump.find(s.argument);
      return it == dump.end() ? std::string("(absent)") : it->second;
    };
    const std::string ref = value(*c.reference_args), rec = value(*c.recipe_args);
    if (ref != s.reference || rec != s.recipe)
      problems.push_back(fmt::format(
          "its raw output {} tested {} = {} (reference) vs {} (recipe), but the runs' argument dumps show {} vs {}", f,
          s.argument, s.reference, s.recipe, ref, rec));
  }
  // The shape: the model's layer shape, at the recipe's row length and micro-batch.
  std::string shape_diff;
  for (const auto& [k, want] : c.model_shape) {
    auto it = o.shape.find(k);
    if (it == o.shape.end() || it->second != want)
      shape_diff +=
          fmt::format("; {} {} (model {})", k, it == o.shape.end() ? "missing" : std::to_string(it->second), want);
  }
  auto field = [&](const char* k) { return o.shape.count(k) ? o.shape.at(k) : -1; };
  if (field("num_layers") != rule->layers)
    shape_diff += fmt::format("; num_layers {} (the rule builds {})", field("num_layers"), rule->layers);
  if (c.vocab_size && field("vocab_size") < *c.vocab_size)
    shape_diff += fmt::format("; vocab_size {} (the model's {})", field("vocab_size"), *c.vocab_size);
  if (field("seq_length") != c.row_length)
    shape_diff += fmt::format("; seq_length {} (the recipe's row length {})", field("seq_length"), c.row_length);
  if (c.micro_batch && field("micro_batch_size") != *c.micro_batch)
    shape_diff +=
        fmt::format("; micro_batch_size {} (the recipe's micro-batch {})", field("micro_batch_size"), *c.micro_batch);
  if (!shape_diff.empty())
    problems.push_back(fmt::format("its raw output {} ran at another shape: {} (it ran at {})", f, shape_diff.substr(2),
                                   show_shape(o.shape)));
  if (o.precision != c.rules->precision())
    problems.push_back(fmt::format("its raw output {} ran in {}, and the bounds of component_tests.yaml are for {}", f,
                                   o.precision, c.rules->precision()));
  if (!c.recipe_precision.empty() && c.recipe_precision != o.precision)
    problems.push_back(
        fmt::format("the recipe trains in {}, and its raw output {} ran in {}", c.recipe_precision, f, o.precision));
  if (c.seed && o.seed != *c.seed)
    problems.push_back(fmt::format("its raw output {} ran from seed {}, and the recipe's is {}", f, o.seed, *c.seed));
  // The stack and the GPU the recipe publishes.
  auto version = [&](const char* k) { return o.versions.count(k) ? o.versions.at(k) : std::string("unknown"); };
  if (!c.torch_version.empty() && version("torch") != c.torch_version)
    problems.push_back(fmt::format("its raw output {} ran torch {}, and the recipe's stack says {}", f,
                                   version("torch"), c.torch_version));
  if (!c.transformer_engine.empty() && version("transformer_engine") != c.transformer_engine)
    problems.push_back(fmt::format("its raw output {} ran Transformer Engine {}, and the recipe's stack says {}", f,
                                   version("transformer_engine"), c.transformer_engine));
  if (!c.megatron_commit.empty() && !commits_agree(version("megatron_lm_commit"), c.megatron_commit))
    problems.push_back(fmt::format("its raw output {} ran Megatron-LM {}, and the recipe's stack pins {}", f,
                                   version("megatron_lm_commit").empty() ? "(none)" : version("megatron_lm_commit"),
                                   c.megatron_commit));
  if (!c.gpu_names.empty() && std::find(c.gpu_names.begin(), c.gpu_names.end(), o.gpu) == c.gpu_names.end())
    problems.push_back(fmt::format("its raw output {} ran on {}, not a GPU of the recipe's type {}", f,
                                   quote_for_message(o.gpu), c.gpu_type));
  return problems;
}

}  // namespace openrecipes::checks
