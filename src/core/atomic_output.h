// Atomic output, written once for every stage (DESIGN.md "Output": an interrupted run never leaves a half file
// behind): temp names next to the output, a guard that deletes its temp file when destroyed without release(),
// a SIGINT/SIGTERM/SIGHUP handler that deletes every guarded file before the signal takes its course, the
// all-or-none commit of several files, and write_file_atomic built on them.
#pragma once

#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>

namespace openrecipes {

/// Guards one temp file. While the guard lives (and is not released), the file is removed if the process is
/// stopped by SIGINT, SIGTERM or SIGHUP, and removed by the destructor. release() hands the file over (after it
/// was renamed into place). At most kMaxGuardedFiles guards live at once (std::length_error beyond: a bug, not bad
/// input); a path of kMaxPathBytes or more is an InputError naming it.
///
/// Signals: the first guard installs handlers for SIGINT, SIGTERM and SIGHUP (except one the process ignores, such
/// as SIGHUP under nohup) that unlink() the guarded paths (async-signal-safe), put back the handler that was there
/// before, and raise the signal again, so the process then ends (or runs its own handler) as it would have. A
/// program that installs its own handlers for these signals should do so before the first guard, or they replace
/// this cleanup. Nothing can remove files on SIGKILL or power loss: temp files are named
/// `.<final name>.<random>.tmp` next to the output so they are easy to spot.
class TempFileGuard {
 public:
  static constexpr int kMaxGuardedFiles = 64;
  static constexpr std::size_t kMaxPathBytes = 4096;
  /// Guards `path`, a file the caller is about to create (or another library creates, e.g. DuckDB's COPY).
  explicit TempFileGuard(const std::filesystem::path& path);
  /// Creates `path` (which must not exist: O_EXCL, mode 0644), guards it, writes `content` and fsyncs it. Throws
  /// InputError naming the path when it cannot be created (nothing is removed: the file is not ours) or written
  /// (the partial file is removed).
  TempFileGuard(const std::filesystem::path& path, std::string_view content);
  ~TempFileGuard();
  TempFileGuard(const TempFileGuard&) = delete;
  TempFileGuard& operator=(const TempFileGuard&) = delete;
  const std::filesystem::path& path() const { return path_; }
  /// Stops guarding (the file stays). Idempotent.
  void release();
  /// Removes the file now and stops guarding. Idempotent.
  void remove();

 private:
  std::filesystem::path path_;
  int slot_ = -1;
};

/// One finished temp file and the path it replaces (in the same folder).
struct Replacement {
  std::filesystem::path temp, target;
};

/// Renames each finished temp file onto its target, all of them or none: the files of one output (rows.parquet
/// and its manifest, PREFIX.bin and PREFIX.idx) never end up from two different runs.
///  1. Before anything is touched, every target must not be a folder (InputError naming it and the fix) and
///     every temp file must exist.
///  2. SIGINT, SIGTERM and SIGHUP are held back (blocked in this thread; in any other thread the TempFileGuard
///     handler defers them) until all renames are done or undone; a held signal then takes its course.
///  3. Each existing target is first hard-linked to a backup (`.<name>.<random>.tmp`); when a later rename fails,
///     the earlier targets get their backups back (or are removed when there was none), so the old files stay.
/// Throws InputError naming the target that could not be replaced ("nothing was replaced"). The temp files stay
/// with their guards on failure. `after_first_rename` runs after the first rename, signals held (tests use it
/// to deliver a signal at the worst moment).
void commit_replacements(std::span<const Replacement> items, const std::function<void()>& after_first_rename = {});

/// A fresh temp path next to `final_path`: `<folder>/.<name>.<8 random hex>.tmp`.
std::filesystem::path temp_path_for(const std::filesystem::path& final_path);

/// Writes `content` to `path` atomically: a guarded temp file in the same folder (temp_path_for), fsync, rename. An
/// interrupted run leaves either the old file or the new one, never half a file. Throws InputError when the folder
/// cannot be written or `path` is a folder (with its path and a fix; nothing is written then).
void write_file_atomic(const std::filesystem::path& path, std::string_view content);

}  // namespace openrecipes
