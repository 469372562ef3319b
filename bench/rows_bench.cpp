// Benchmark of the rows data pieces (SPEC §1.1, §1.4, §1.7-1.8): numpy-compatible permutation side by side with
// numpy itself, rows.parquet write and read+hash throughput, Megatron export, and source parquet loading.
// Usage: rows_bench [--rows N] [--threads T] [--dir FOLDER]   (defaults: 2048 rows of 8192, 2 threads, /tmp)
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/subprocess.h"
#include "db/duckdb_session.h"
#include "rows/output/megatron_export.h"
#include "rows/output/rows_hash.h"
#include "rows/output/rows_verify.h"
#include "rows/output/rows_writer.h"
#include "rows/pack/permutation.h"
#include "rows/source/source_reader.h"

namespace fs = std::filesystem;
using namespace openrecipes::rows;

namespace {

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Runs argv (no shell, core/subprocess) and returns its stdout (empty when it cannot start); stderr is dropped.
std::string capture(const std::vector<std::string>& argv) {
  try {
    return openrecipes::run_process(argv).out;
  } catch (const openrecipes::InputError&) {
    return {};  // the program is missing: the caller prints what it could not compare
  }
}

fs::path fixtures() {
  if (const char* e = std::getenv("OPENRECIPES_FIXTURES"); e && *e) return e;
  // ../shared/fixtures next to the checkout; __FILE__ is bench/rows_bench.cpp (CMake passes absolute paths).
  return fs::path(__FILE__).parent_path().parent_path().parent_path() / "shared" / "fixtures";
}

// Real token ids (Qwen3 golden ids of the Tulu 3 fixture), or an empty vector without fixtures.
std::vector<std::int32_t> real_token_pool() {
  std::vector<std::int32_t> pool;
  std::ifstream in(fixtures() / "golden" / "tulu3_first100" / "qwen3.jsonl");
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line);
    for (auto& id : j["input_ids"]) pool.push_back(id.get<std::int32_t>());
  }
  return pool;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t n_rows = 2048;
  unsigned threads = 2;
  fs::path dir = fs::temp_directory_path();
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--rows")
      n_rows = std::stoull(argv[i + 1]);
    else if (a == "--threads")
      threads = static_cast<unsigned>(std::stoul(argv[i + 1]));
    else if (a == "--dir")
      dir = argv[i + 1];
  }
  const std::uint32_t L = 8192;
  fs::path work = dir / fmt::format("rows_bench_{}", getpid());
  fs::create_directories(work);

  // 1. Permutation, ours vs numpy (best of 5 each).
  const std::uint64_t n = 939343;
  double best = 1e9;
  std::vector<std::uint32_t> perm;
  for (int rep = 0; rep < 5; ++rep) {
    double t0 = now_s();
    perm = numpy_permutation(n, 0);
    best = std::min(best, now_s() - t0);
  }
  std::string numpy_ms = capture({"/usr/bin/python3", "-c",
                                  "import timeit, numpy as np\n"
                                  "t = min(timeit.repeat(lambda: np.random.default_rng(0).permutation(939343), "
                                  "number=1, repeat=5))\n"
                                  "print(f'{t * 1e3:.1f} ms (numpy {np.__version__})')"});
  if (!numpy_ms.empty() && numpy_ms.back() == '\n') numpy_ms.pop_back();
  fmt::print("permutation(939343), best of 5:  ours {:.1f} ms   numpy {}\n", best * 1e3,
             numpy_ms.empty() ? "(no /usr/bin/python3 with numpy)" : numpy_ms);

  // Row data: real token ids sampled one by one (realistic unigram statistics, no long repeats).
  std::vector<std::int32_t> pool = real_token_pool();
  const bool real = !pool.empty();
  if (!real)
    for (std::int32_t i = 0; i < 151643; ++i) pool.push_back(i);
  std::mt19937_64 rng(42);
  std::vector<std::int32_t> data(static_cast<std::size_t>(n_rows) * L);
  for (auto& v : data) v = pool[rng() % pool.size()];
  const double mb = static_cast<double>(data.size()) * 4 / 1e6;
  fmt::print("rows: {} x {} int32 = {:.1f} MB ({}), DuckDB threads {}\n", n_rows, L, mb,
             real ? "ids sampled from the Qwen3 golden ids of fixtures/tulu3" : "uniform ids, no fixtures", threads);

  // rows_sha256 alone, in memory (the writer and verify pay this on top of parquet).
  {
    double t0 = now_s();
    RowsHasher h(L);
    h.add_rows(data);
    std::string hex = h.hex();
    double t = now_s() - t0;
    fmt::print("rows_sha256 in memory: {:.0f} MB/s ({})\n", mb / t, hex.substr(0, 12));
  }

  // 2. Write rows.parquet, 3. read + hash it back, for each compression and parquet version.
  struct Config {
    RowsCompression c;
    RowsParquetVersion v;
    const char* name;
  };
  for (const auto& cfg : {Config{RowsCompression::zstd, RowsParquetVersion::v1, "zstd v1"},
                          Config{RowsCompression::snappy, RowsParquetVersion::v1, "snappy v1"},
                          Config{RowsCompression::zstd, RowsParquetVersion::v2, "zstd v2"},
                          Config{RowsCompression::snappy, RowsParquetVersion::v2, "snappy v2"}}) {
    fs::path p = work / fmt::format("rows_{}.parquet", cfg.name[0] == 'z' ? "zstd" : "snappy");
    RowsWriterOptions options;
    options.compression = cfg.c;
    options.parquet_version = cfg.v;
    options.threads = threads;
    double t0 = now_s();
    RowsParquetWriter w(p, L, options);
    for (std::uint64_t r = 0; r < n_rows; ++r) w.append_row(std::span<const std::int32_t>(data.data() + r * L, L));
    auto res = w.commit();
    double tw = now_s() - t0;
    t0 = now_s();
    auto d = hash_rows_file(p, std::nullopt, L, threads);
    double tr = now_s() - t0;
    fmt::print(
        "rows.parquet {:9}: write {:6.1f} MB/s ({:.2f} s), read + hash {:6.1f} MB/s ({:.2f} s), file {:.0f}% of raw, "
        "sha {}\n",
        cfg.name, mb / tw, tw, mb / tr, tr, 100.0 * res.file_bytes / (mb * 1e6),
        d.sha256 == res.rows_sha256 ? "= writer's" : "!= writer's (BUG)");
  }

  // 4. Megatron export from the zstd rows file.
  {
    double t0 = now_s();
    auto res = export_megatron(work / "rows_zstd.parquet", work / "megatron");
    double t = now_s() - t0;
    fmt::print("megatron export (parquet -> .bin/.idx): {:7.1f} MB/s  ({:.2f} s, {} rows)\n", mb / t, t, res.rows);
  }

  // 5. Source loading: the Tulu 3 fixture repeated 400 times into one parquet shard (or, without fixtures, as
  // many synthetic two-message conversations), read into the arena.
  {
    fs::path jsonl = fixtures() / "tulu3" / "sft_sample.jsonl";
    const bool have_fixture = fs::exists(jsonl);
    fs::path shard = work / "train-00000-of-00001.parquet";
    {
      openrecipes::db::DuckDbSession db(threads);
      if (have_fixture)
        db.query(
            fmt::format("CREATE TABLE t AS SELECT messages FROM read_json({}, columns={{messages: "
                        "'STRUCT(content VARCHAR, role VARCHAR)[]'}})",
                        openrecipes::db::sql_literal(jsonl.string())));
      else
        db.query(
            "CREATE TABLE t AS SELECT [{'content': repeat(md5(i::VARCHAR), 12), 'role': 'user'}, "
            "{'content': repeat(md5((i + 1)::VARCHAR), 40), 'role': 'assistant'}] AS messages FROM range(100) r(i)");
      db.query("CREATE TABLE big AS SELECT t.messages FROM t, range(400)");
      db.query(fmt::format("COPY big TO {} (FORMAT parquet)", openrecipes::db::sql_literal(shard.string())));
    }
    double t0 = now_s();
    auto set = SourceSet::open({shard}, threads);
    auto arena = set.load_all();
    double t = now_s() - t0;
    fmt::print(
        "source load ({}, parquet -> arena): {} conversations, {:.1f} MB text, {:.1f} MB/s of text ({:.2f} s); "
        "arena {:.1f} MB\n",
        have_fixture ? "fixtures/tulu3 x 400" : "synthetic", arena.size(), arena.text_bytes() / 1e6,
        arena.text_bytes() / 1e6 / t, t, arena.memory_bytes() / 1e6);
  }
  fs::remove_all(work);
  return 0;
}
