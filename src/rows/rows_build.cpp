// The rows build pipeline (SPEC §1): render and tokenize in parallel, join and cut in permutation order.
#include "rows/rows_build.h"

#include <atomic>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <span>

#include <fmt/format.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include "core/atomic_output.h"
#include "core/calendar.h"
#include "core/core_budget.h"
#include "core/error.h"
#include "core/files.h"
#include "core/text.h"
#include "core/version.h"
#include "rows/output/rows_hash.h"
#include "rows/pack/permutation.h"
#include "rows/pack/stream_cutter.h"
#include "rows/source/source_reader.h"

namespace openrecipes::rows {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// Where conversation `index` comes from, for messages.
std::string locate(const SourceSet& set, std::uint64_t index) {
  for (const auto& s : set.shards())
    if (index >= s.first_index && index < s.first_index + s.conversations)
      return fmt::format("{} row {}", s.name, index - s.first_index);
  return "?";
}

// Refuses, before any work, outputs that would destroy an input or could never be written: rows.parquet or its
// manifest being one of the sources (same file by any path or link), or a folder.
void check_outputs(const RowsBuildOptions& o) {
  const fs::path manifest = manifest_path_for(o.output);
  for (const fs::path& out : {o.output, manifest}) {
    std::error_code ec;
    if (fs::is_directory(fs::symlink_status(out, ec)))
      throw InputError(out.string(), "is a folder, so the build cannot write its output there",
                       "remove or rename that folder, or choose another -o path");
    for (const auto& src : o.sources) {
      std::error_code eq;
      if (fs::equivalent(src, out, eq))
        throw InputError(out.string(), "is the source file " + src.string() + "; the build would overwrite its input",
                         "write the rows to another path with -o");
    }
  }
}

}  // namespace

namespace {

// Every option checked before any work (SPEC §1 inputs): the row length, the row count, the sources, the outputs
// and the strftime date.
void check_options(const RowsBuildOptions& o) {
  if (o.row_length == 0 || o.row_length > kMaxRowLength)
    throw InputError("--row-length", fmt::format("{} is outside 1..{}", o.row_length, kMaxRowLength),
                     fmt::format("give a row length from 1 to {} tokens (docs/rows-format.md)", kMaxRowLength));
  if (o.rows && *o.rows == 0)
    throw InputError("--rows", "the row count must be at least 1", "leave --rows out to build all the rows");
  if (o.sources.empty())
    throw InputError("--source", "no source files", "give the dataset's parquet shards or JSONL files");
  check_outputs(o);
  if (!is_calendar_date(o.today))
    throw InputError("--date", quote_for_message(o.today) + " is not a calendar date YYYY-MM-DD",
                     "give the date strftime_now() should return, e.g. 2026-01-01");
}

// The conversations of one round, held in memory: all of them, or the slice order[next, next + take) read in one
// pass over the sources. `slot` maps an order position (minus next) to its arena index; empty when all are held.
struct Round {
  ConversationArena held;
  std::vector<std::int64_t> slot;
  std::size_t arena_index(std::uint64_t pos, std::uint64_t index, std::uint64_t begin) const {
    return slot.empty() ? index : static_cast<std::size_t>(slot[pos - begin]);
  }
};

Round load_round(const SourceSet& set, const std::vector<std::uint32_t>& order, std::uint64_t next,
                 std::uint64_t take) {
  Round round;
  const std::uint64_t n = set.size();
  if (take == n) {
    round.held = set.load_all();
    return round;
  }
  std::vector<std::int64_t> wanted(n, -1);
  for (std::uint64_t k = 0; k < take; ++k) wanted[order[next + k]] = static_cast<std::int64_t>(k);
  round.slot.assign(take, -1);
  set.read_each([&](std::uint64_t index, ConversationView conv) {
    if (wanted[index] < 0) return;
    round.slot[static_cast<std::size_t>(wanted[index])] = static_cast<std::int64_t>(round.held.size());
    round.held.append(conv);
  });
  return round;
}

// Renders and tokenizes order[begin, end) in parallel (SPEC §1.2–1.3) and feeds the ids to `cutter` in
// permutation order (steps 5–6), `on_chunk(bytes)` after each chunk; stops early once the cutter is done.
void tokenize_round(tbb::task_arena& arena, unsigned threads, CoreBudget& budget, const TokenizerBundle& bundle,
                    const SourceSet& set, const RenderOptions& render_options, const std::vector<std::uint32_t>& order,
                    const Round& round, std::uint64_t begin, std::uint64_t end, StreamCutter& cutter,
                    const std::function<void(std::uint64_t)>& on_chunk) {
  std::uint64_t cursor = begin;
  std::atomic<bool> stop{false};
  struct Chunk {
    std::uint64_t first = 0, count = 0;
    std::vector<std::vector<std::int32_t>> ids;
    std::uint64_t bytes = 0;
  };
  constexpr std::uint64_t kChunk = 32;
  auto next_chunk = [&](tbb::flow_control& fc) -> std::shared_ptr<Chunk> {
    if (cursor >= end || stop.load()) {
      fc.stop();
      return nullptr;
    }
    auto c = std::make_shared<Chunk>();
    c->first = cursor;
    c->count = std::min(kChunk, end - cursor);
    cursor += c->count;
    return c;
  };
  auto encode_chunk = [&](std::shared_ptr<Chunk> c) {
    CoreBudget::Permit core(&budget);
    c->ids.resize(c->count);
    for (std::uint64_t j = 0; j < c->count; ++j) {
      const std::uint64_t pos = c->first + j;
      const std::uint64_t index = order[pos];
      std::string text;
      try {
        text = bundle.render(round.held[round.arena_index(pos, index, begin)], render_options);
      } catch (const TemplateError& e) {
        // Re-worded, not nested: e.what() already carries "(fix: ...)", so take its parts.
        std::string fix = "fix or drop this conversation, or use a template that accepts it";
        if (!e.fix().empty()) fix = e.fix() + "; or " + fix;
        throw InputError(fmt::format("conversation {} ({})", index, locate(set, index)),
                         "the chat template failed: " + e.where() + ": " + e.problem(), fix);
      }
      c->bytes += text.size();
      try {
        bundle.tokenizer().encode(text, c->ids[j]);
      } catch (const InputError& e) {
        throw InputError(fmt::format("conversation {} ({})", index, locate(set, index)),
                         "cannot tokenize its rendered text: " + e.problem(), e.fix());
      }
    }
    return c;
  };
  auto cut_chunk = [&](std::shared_ptr<Chunk> c) {  // holds no permit: it feeds the writer and must not wait on it
    if (cutter.done()) return;
    for (const auto& ids : c->ids)
      if (!cutter.add(ids)) {
        stop = true;
        break;
      }
    on_chunk(c->bytes);
  };
  arena.execute([&] {
    tbb::parallel_pipeline(
        static_cast<std::size_t>(threads) * 4,
        tbb::make_filter<void, std::shared_ptr<Chunk>>(tbb::filter_mode::serial_in_order, next_chunk) &
            tbb::make_filter<std::shared_ptr<Chunk>, std::shared_ptr<Chunk>>(tbb::filter_mode::parallel, encode_chunk) &
            tbb::make_filter<std::shared_ptr<Chunk>, void>(tbb::filter_mode::serial_in_order, cut_chunk));
  });
}

// The manifest of a finished build (SPEC §1.7).
RowsManifest manifest_of(const RowsBuildOptions& o, const SourceSet& set, const TokenizerBundle& bundle,
                         const StreamCutter& cutter, const RowsWriteResult& written) {
  RowsManifest m;
  m.dataset_id = o.dataset_id;
  m.dataset_revision = o.dataset_revision;
  for (const auto& s : set.shards()) m.sources.push_back({s.name, s.sha256, s.bytes, s.conversations});
  m.tokenizer_json_sha256 = bundle.tokenizer_json_sha256;
  m.tokenizer_config_sha256 = bundle.tokenizer_config_sha256;
  m.chat_template_sha256 = bundle.chat_template_sha256;
  m.eos_token = bundle.eos_token;
  m.eos_id = bundle.eos_id;
  m.strftime_date = o.today;
  m.seed = o.seed;
  m.row_length = o.row_length;
  m.conversations = set.size();
  m.rows_requested = o.rows;
  m.rows_written = written.rows;
  m.tokens_dropped = cutter.dropped();
  m.rows_sha256 = written.rows_sha256;
  m.tool_version = kToolVersion;
  return m;
}

}  // namespace

RowsBuildResult build_rows(const RowsBuildOptions& o) {
  const auto t0 = Clock::now();
  check_options(o);
  RowsBuildResult result;
  auto stage_start = t0;
  // Adds the time since the last call to stage `name` (summed when a stage runs several times).
  auto stage = [&](const char* name) {
    const auto now = Clock::now();
    const double s = std::chrono::duration<double>(now - stage_start).count();
    stage_start = now;
    for (auto& st : result.stages)
      if (st.name == name) {
        st.seconds += s;
        return;
      }
    result.stages.push_back({name, s});
  };
  const unsigned threads = o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  // With more than one thread, the tokenizer loads, and the sources are hashed, beside the reading of the sources
  // (each a serial step of its own); the tokenizer's errors still come first.
  const auto side = threads > 1 ? std::launch::async : std::launch::deferred;
  auto bundle_loading = std::async(side, [&] { return TokenizerBundle::load(o.tokenizer); });
  std::optional<SourceSet> sources;
  std::future<void> hashing;
  std::vector<std::uint32_t> order;
  std::uint64_t n = 0;
  Round round;
  // Which conversations a round holds in memory, from position `next` of the order: all the rest, or (with R rows)
  // enough for the rows still missing at 64 tokens per conversation or more (a whole-source pass per round only
  // decodes).
  auto round_size = [&](std::uint64_t next, std::uint64_t rows_written) {
    std::uint64_t take = n - next;
    if (o.rows) {
      const std::uint64_t missing_tokens = (*o.rows - rows_written) * o.row_length;
      take = std::min<std::uint64_t>(take, std::max<std::uint64_t>(4096, missing_tokens / 64 + 1));
    }
    return take;
  };
  std::uint64_t take = 0;
  try {
    sources.emplace(SourceSet::open(o.sources, threads));  // SPEC §1.1
    stage("sources");
    hashing = std::async(side, [&] { sources->compute_sha256(); });
    n = sources->size();
    if (n == 0) throw InputError(o.sources.front().string(), "the sources hold no conversations");
    order = numpy_permutation(n, o.seed);  // SPEC §1.4
    stage("permutation");
    take = round_size(0, 0);
    round = load_round(*sources, order, 0, take);
    stage("read");
  } catch (...) {
    bundle_loading.get();  // a tokenizer error is reported first
    throw;
  }
  const TokenizerBundle bundle = bundle_loading.get();
  result.warnings = bundle.warnings;
  result.chat_template_origin = bundle.chat_template_origin;
  stage("tokenizer");
  const SourceSet& set = *sources;

  RenderOptions render_options;
  render_options.today = o.today;
  // The tokenizer workers and the writer's DuckDB threads (threads each) share `threads` cores.
  CoreBudget budget(threads);
  RowsWriterOptions wopt = o.writer;
  wopt.threads = threads;
  wopt.budget = &budget;
  RowsParquetWriter writer(o.output, o.row_length, wopt);  // SPEC §1.7
  StreamCutter cutter(
      o.row_length, bundle.eos_id, [&](std::span<const std::int32_t> row) { writer.append_row(row); }, o.rows);

  std::uint64_t text_bytes = 0;
  auto last_report = Clock::now();
  RowsBuildProgress progress;
  progress.conversations_total = n;
  auto report = [&](bool force) {
    if (!o.progress) return;
    auto now = Clock::now();
    if (!force && now - last_report < std::chrono::milliseconds(250)) return;
    last_report = now;
    progress.conversations_done = cutter.conversations();
    progress.rows_written = writer.rows();
    progress.tokens = cutter.tokens();
    progress.text_bytes = text_bytes;
    progress.seconds = std::chrono::duration<double>(now - t0).count();
    o.progress(progress);
  };

  tbb::task_arena arena(static_cast<int>(threads));
  for (std::uint64_t next = 0;;) {  // `next`: position in `order` of the round's first conversation
    tokenize_round(arena, threads, budget, bundle, set, render_options, order, round, next, next + take, cutter,
                   [&](std::uint64_t bytes) {
                     text_bytes += bytes;
                     report(false);
                   });
    next += take;
    stage("tokenize");
    if (next >= n || cutter.done()) break;
    round = Round{};
    take = round_size(next, writer.rows());
    round = load_round(set, order, next, take);
    stage("read");
  }
  cutter.finish();
  report(true);
  if (o.rows && writer.rows() < *o.rows)
    throw InputError(o.sources.front().string(),
                     fmt::format("the {} conversations give {} tokens, {} rows of {}; {} rows were asked for", n,
                                 cutter.tokens(), writer.rows(), o.row_length, *o.rows),
                     "ask for fewer rows or a shorter row length");
  if (writer.rows() == 0)
    throw InputError(o.sources.front().string(),
                     fmt::format("the source gives {} tokens, fewer than one row of {}", cutter.tokens(), o.row_length),
                     "use a shorter --row-length or more source data");
  result.written = writer.finish();
  stage("write");
  hashing.get();
  stage("sha256");
  result.manifest = manifest_of(o, set, bundle, cutter, result.written);
  result.manifest_path = manifest_path_for(o.output);
  // Both files are renamed together, or neither (signals held meanwhile): rows.parquet never sits beside the
  // manifest of another build, and a failed build leaves an existing pair as it was (SPEC §1.8).
  TempFileGuard manifest_guard(temp_path_for(result.manifest_path), manifest_to_json(result.manifest));
  const Replacement pair[] = {{writer.temp_path(), o.output}, {manifest_guard.path(), result.manifest_path}};
  commit_replacements(pair);
  writer.committed();
  manifest_guard.release();
  stage("commit");
  result.stats = progress;
  result.stats.conversations_done = cutter.conversations();
  result.stats.rows_written = result.written.rows;
  result.stats.tokens = cutter.tokens();
  result.stats.text_bytes = text_bytes;
  result.stats.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return result;
}

}  // namespace openrecipes::rows
