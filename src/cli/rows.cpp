// `openrecipes rows build|verify|register|export` (SPEC §1): rebuild the workload rows, check a build against the
// rows_sha256 a recipe or a registered reference build records, register a build as the registry's reference rows
// (registry/reference_rows.h), and export rows to Megatron-LM's indexed dataset.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "core/atomic_output.h"
#include "core/error.h"
#include "core/files.h"
#include "core/protocol.h"
#include "core/sha256.h"
#include "core/text.h"
#include "core/yaml.h"
#include "registry/recipe.h"
#include "registry/reference_rows.h"
#include "registry/rows_register.h"
#include "rows/output/megatron_export.h"
#include "rows/output/rows_hash.h"
#include "rows/output/rows_verify.h"
#include "rows/rows_build.h"

namespace openrecipes::cli {
namespace {
namespace fs = std::filesystem;

struct RowsOptions {
  // build
  std::vector<std::string> sources;
  std::string tokenizer, tokenizer_config, chat_template, output, date = "2026-01-01", dataset_id, dataset_revision;
  std::string compression = "zstd";
  // Numbers are read as text and parsed strictly here: CLI11 would wrap "-1" to 2^64-1 in an unsigned option.
  std::string seed = "0", rows, row_length = std::to_string(protocol::kRowLength), threads;
  bool json = false, quiet = false;
  // verify / export
  std::string rows_file, recipe, build, sha256, format = "megatron", prefix;
  // register
  std::string manifest, registry, id, model;
  std::vector<std::string> prefixes;
  bool replace = false;
};

constexpr std::uint64_t kMaxThreads = 1024;

// A non-negative decimal integer in [min, max] (no sign, no spaces); InputError naming the option otherwise.
std::uint64_t parse_count(const char* option, const std::string& text, std::uint64_t min, std::uint64_t max,
                          const std::string& fix) {
  if (!text.empty() && text[0] == '-')
    throw InputError(option,
                     quote_for_message(text) + " is negative; it must be a whole number from " + std::to_string(min) +
                         " to " + std::to_string(max),
                     fix);
  std::uint64_t v = 0;
  bool ok = !text.empty() && text.size() <= 20;
  for (char c : text) {
    if (c < '0' || c > '9') {
      ok = false;
      break;
    }
    const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) {
      ok = false;
      break;
    }
    v = v * 10 + d;
  }
  if (!ok || v < min || v > max)
    throw InputError(
        option,
        quote_for_message(text) + " is not a whole number from " + std::to_string(min) + " to " + std::to_string(max),
        fix);
  return v;
}

std::optional<std::uint64_t> parse_rows(const std::string& text, const char* what) {
  if (text.empty()) return std::nullopt;
  return parse_count("--rows", text, 1, UINT64_MAX, std::string("leave --rows out to ") + what);
}

unsigned parse_threads(const std::string& text) {
  if (text.empty()) return 0;  // all cores
  return static_cast<unsigned>(parse_count("--threads", text, 1, kMaxThreads,
                                           "give 1 to 1024 threads, or leave --threads out to use all cores"));
}

void print_progress(const rows::RowsBuildProgress& p) {
  double mb = static_cast<double>(p.text_bytes) / 1e6;
  std::fprintf(stderr, "\rrows: %llu/%llu conversations, %llu rows, %.1f MB rendered (%.1f MB/s, %.2f M tokens/s)   ",
               static_cast<unsigned long long>(p.conversations_done),
               static_cast<unsigned long long>(p.conversations_total), static_cast<unsigned long long>(p.rows_written),
               mb, p.seconds > 0 ? mb / p.seconds : 0.0,
               p.seconds > 0 ? static_cast<double>(p.tokens) / p.seconds / 1e6 : 0.0);
  std::fflush(stderr);
}

int run_build(const RowsOptions& o) {
  rows::RowsBuildOptions b;
  for (const auto& s : o.sources) b.sources.emplace_back(s);
  b.tokenizer.dir = o.tokenizer;
  if (!o.tokenizer_config.empty()) b.tokenizer.tokenizer_config = fs::path(o.tokenizer_config);
  if (!o.chat_template.empty()) b.tokenizer.chat_template = fs::path(o.chat_template);
  b.seed = parse_count("--seed", o.seed, 0, UINT64_MAX,
                       "give a non-negative integer seed (numpy's default_rng accepts 0..2^128-1; this tool records "
                       "seeds 0..2^64-1)");
  b.row_length = static_cast<std::uint32_t>(
      parse_count("--row-length", o.row_length, 1, rows::kMaxRowLength,
                  fmt::format("give a row length from 1 to {} tokens (docs/rows-format.md)", rows::kMaxRowLength)));
  b.rows = parse_rows(o.rows, "build all the rows");
  b.threads = parse_threads(o.threads);
  b.today = o.date;
  b.dataset_id = o.dataset_id;
  b.dataset_revision = o.dataset_revision;
  b.output = o.output;
  const auto compression = value_named(rows::kRowsCompressionFlags, o.compression);
  if (!compression)
    throw InputError("--compression", "unknown compression '" + o.compression + "'",
                     "use " + names_listed(rows::kRowsCompressionFlags));
  b.writer.compression = *compression;
  bool tty = !o.quiet && isatty(STDERR_FILENO);
  if (tty) b.progress = print_progress;
  auto r = rows::build_rows(b);
  if (tty) std::fprintf(stderr, "\n");
  for (const auto& w : r.warnings) std::cerr << "openrecipes: warning: " << w << "\n";
  if (o.json) {
    nlohmann::ordered_json stages = nlohmann::ordered_json::object();
    for (const auto& st : r.stages) stages[st.name] = st.seconds;
    std::cout << nlohmann::ordered_json{{"rows_parquet", o.output},
                                        {"manifest", r.manifest_path.string()},
                                        {"rows_written", r.manifest.rows_written},
                                        {"rows_sha256", r.manifest.rows_sha256},
                                        {"chat_template", r.chat_template_origin},
                                        {"chat_template_sha256", r.manifest.chat_template_sha256},
                                        {"strftime_date", r.manifest.strftime_date},
                                        {"conversations", r.manifest.conversations},
                                        {"conversations_tokenized", r.stats.conversations_done},
                                        {"tokens", r.stats.tokens},
                                        {"tokens_dropped", r.manifest.tokens_dropped},
                                        {"rendered_bytes", r.stats.text_bytes},
                                        {"seconds", r.stats.seconds},
                                        {"stages", stages}}
                     .dump(2)
              << "\n";
  } else {
    std::cout << fmt::format("{}: {} rows of {} tokens from {} of {} conversations ({} tokens dropped)\n", o.output,
                             r.manifest.rows_written, r.manifest.row_length, r.stats.conversations_done,
                             r.manifest.conversations, r.manifest.tokens_dropped);
    std::cout << fmt::format("rows_sha256 {}\nmanifest    {}\n", r.manifest.rows_sha256, r.manifest_path.string());
    // Which template and date rendered the rows: two templates (or dates) give other rows, so the summary says.
    std::cout << fmt::format("template    {} (sha256 {}), strftime_now date {}\n",
                             terminal_safe(r.chat_template_origin, true), r.manifest.chat_template_sha256,
                             r.manifest.strftime_date);
    double mb = static_cast<double>(r.stats.text_bytes) / 1e6;
    std::cout << fmt::format("{:.1f} s: {:.1f} MB rendered ({:.1f} MB/s), {:.2f} M tokens/s\n", r.stats.seconds, mb,
                             mb / r.stats.seconds, static_cast<double>(r.stats.tokens) / r.stats.seconds / 1e6);
  }
  return 0;
}

// A recipe folder or its recipe.yaml; a rows build folder or its rows.yaml.
fs::path folder_of(const std::string& given, std::initializer_list<const char*> files) {
  fs::path p(given);
  if (!p.has_filename()) p = p.parent_path();
  for (const char* f : files)
    if (p.filename() == f) return p.parent_path();
  return p;
}

int run_verify(const RowsOptions& o) {
  std::uint64_t count = parse_rows(o.rows, "verify against a recipe with --recipe").value_or(0);
  const unsigned threads = parse_threads(o.threads);
  std::string sha = o.sha256;
  std::uint32_t row_length = 0;
  if (!o.recipe.empty() + !o.build.empty() + (count || !sha.empty()) > 1)
    throw InputError("rows verify", "give one of --recipe, --build, or --rows with --sha256");
  if (!o.recipe.empty()) {
    auto recipe = registry::load_recipe(folder_of(o.recipe, {"recipe.yaml"}));
    if (recipe.workload.rows_sha256.empty())
      throw InputError(recipe.file.string(),
                       "the recipe ran a non-standard workload and records no rows to verify (workload.rows)",
                       "record the rows the run trained on as workload.rows: {count, sha256} (docs/recipe-format.md)");
    count = static_cast<std::uint64_t>(recipe.workload.rows_count);
    sha = recipe.workload.rows_sha256;
    row_length = static_cast<std::uint32_t>(recipe.workload.row_length);
  } else if (!o.build.empty()) {
    const auto b = registry::load_reference_rows(folder_of(o.build, {"rows.yaml", registry::kReferenceManifestName}));
    count = b.manifest.rows_written;
    sha = b.manifest.rows_sha256;
    row_length = b.manifest.row_length;
  } else if (!count || sha.empty()) {
    throw InputError("rows verify", "nothing to verify against",
                     "give --recipe recipe.yaml, --build registry/rows/<id>, or --rows R --sha256 HEX");
  }
  auto v = rows::verify_rows_file(o.rows_file, count, sha, row_length, threads);
  std::cout << v.message << "\n";
  return v.match ? 0 : 1;
}

int run_register(const RowsOptions& o, bool id_given) {
  registry::RowsRegistration q;
  q.manifest = o.manifest;
  if (id_given) q.id = o.id;
  q.model = o.model;
  q.replace = o.replace;
  for (const auto& p : o.prefixes)
    q.prefixes.push_back(parse_count("--prefix", p, 1, UINT64_MAX, "give a row count, e.g. --prefix 2560"));
  q.threads = parse_threads(o.threads);
  const fs::path root(o.registry.empty() ? bundled_path("registry") : o.registry);
  const auto r = registry::register_rows_build(root, q);
  std::cout << fmt::format("{} rows build {}: {} rows of {} tokens, rows_sha256 {}\n  {}\n", r.status, r.id,
                           r.manifest.rows_written, r.manifest.row_length, r.manifest.rows_sha256,
                           r.rows_yaml.string());
  if (!r.model_file.empty())
    std::cout << fmt::format("  {}: rows_build: {}{}\n", r.model_file.string(), r.id,
                             r.replaced ? fmt::format(" (replaced '{}')", *r.replaced) : std::string());
  else
    std::cout << fmt::format("name it in registry/models/<model>.yaml as rows_build: {} (or give --model)\n", r.id);
  return 0;
}

int run_export(const RowsOptions& o) {
  if (o.format != "megatron") throw InputError("--format", "unknown export format '" + o.format + "'", "use megatron");
  auto r = rows::export_megatron(o.rows_file, o.prefix, parse_rows(o.rows, "export all the rows"));
  std::cout << fmt::format("{}.bin / {}.idx: {} sequences, rows_sha256 {}\n", o.prefix, o.prefix, r.rows,
                           r.rows_sha256);
  return 0;
}

const bool registered_rows = register_command(
    {"rows", "Build the workload rows, verify them, register a reference build, or export them", [](CLI::App& app) {
       auto o = std::make_shared<RowsOptions>();
       app.require_subcommand(1);
       auto* build =
           app.add_subcommand("build", "Render, tokenize, permute, join and cut the rows (docs/rows-format.md)");
       build->add_option("--source", o->sources, "Source parquet shards or JSONL files")->required();
       build->add_option("--tokenizer", o->tokenizer, "Folder with tokenizer.json (and tokenizer_config.json)")
           ->required();
       build->add_option("--tokenizer-config", o->tokenizer_config, "tokenizer_config.json, when not in the folder");
       build->add_option("--chat-template", o->chat_template,
                         "Chat template file (default: the folder's or the config's)");
       build->add_option("--seed", o->seed, "numpy default_rng seed of the permutation")->capture_default_str();
       build->add_option("--row-length", o->row_length, "Tokens per row")->capture_default_str();
       build->add_option("--rows", o->rows, "Stop after this many rows, at least 1 (tokenizes only what they need)");
       build->add_option("--threads", o->threads, "Worker threads, 1..1024 (default: all cores)");
       build->add_option("--date", o->date, "The date strftime_now() gives templates")->capture_default_str();
       build->add_option("--dataset-id", o->dataset_id, "Dataset id for the manifest, e.g. allenai/tulu-3-sft-mixture");
       build->add_option("--dataset-revision", o->dataset_revision, "Dataset revision for the manifest");
       build->add_option("--compression", o->compression, names_listed(rows::kRowsCompressionFlags))
           ->capture_default_str();
       build->add_option("-o,--output", o->output, "rows.parquet to write (the manifest goes beside it)")->required();
       build->add_flag("--json", o->json, "Machine-readable summary");
       build->add_flag("--quiet", o->quiet, "No progress display");
       auto* verify = app.add_subcommand("verify", "Check the first R rows of a build against a recorded rows_sha256");
       verify->add_option("rows_parquet", o->rows_file, "rows.parquet")->required();
       verify->add_option("--recipe", o->recipe, "recipe.yaml whose workload.rows to check against");
       verify->add_option("--build", o->build,
                          "A registered reference rows build (registry/rows/<id>) to check against");
       verify->add_option("--rows", o->rows, "R, with --sha256");
       verify->add_option("--sha256", o->sha256, "Expected rows_sha256 of the first R rows");
       verify->add_option("--threads", o->threads, "Reader threads");
       auto* reg = app.add_subcommand(
           "register", "Record a rows build as a reference rows build of the registry (registry/rows/<id>/)");
       reg->add_option("manifest", o->manifest, "The build's rows.manifest.json (its rows.parquet beside it)")
           ->required();
       reg->add_option("--registry", o->registry, "Registry folder (default: the bundled registry)");
       reg->add_option("--id", o->id, "The build's id (default: <dataset>-l<L>-seed<seed>-r<rows>-tok<sha8>)");
       reg->add_option("--model", o->model, "Name it as this model's rows_build (registry/models/<model>.yaml)");
       reg->add_flag("--replace", o->replace, "With --model: replace the rows build the model already names");
       reg->add_option("--prefix", o->prefixes,
                       "Also record the digest of the first R rows (default: the protocol's run lengths x 128)");
       reg->add_option("--threads", o->threads, "Reader threads");
       auto* exp = app.add_subcommand("export", "Export rows to another engine's format");
       exp->add_option("rows_parquet", o->rows_file, "rows.parquet")->required();
       exp->add_option("--format", o->format, "megatron (Megatron-LM .bin/.idx indexed dataset)")
           ->capture_default_str();
       exp->add_option("-o,--output", o->prefix, "Output prefix (writes PREFIX.bin and PREFIX.idx)")->required();
       exp->add_option("--rows", o->rows, "Export only the first R rows");
       return [o, build, verify, reg, exp]() -> int {
         if (build->parsed()) return run_build(*o);
         if (verify->parsed()) return run_verify(*o);
         if (reg->parsed()) return run_register(*o, reg->count("--id") > 0);
         if (exp->parsed()) return run_export(*o);
         return 2;
       };
     }});

}  // namespace
}  // namespace openrecipes::cli
