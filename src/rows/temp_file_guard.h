// Removal of half-written output files on failure (DESIGN.md "Output": an interrupted run never leaves a half
// file behind): a guard deletes its temp file when destroyed without release(), and a SIGINT/SIGTERM/SIGHUP
// handler deletes every guarded file before the signal takes its course.
#pragma once

#include <filesystem>
#include <string>

namespace openrecipes::rows {

/// Guards one temp file. While the guard lives (and is not released), the file is removed if the process is
/// stopped by SIGINT, SIGTERM or SIGHUP, and removed by the destructor. release() hands the file over (after it
/// was renamed into place). At most kMaxGuardedFiles guards live at once (std::length_error beyond).
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
  explicit TempFileGuard(const std::filesystem::path& path);
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

/// A fresh temp path next to `final_path`: `<folder>/.<name>.<8 random hex>.tmp`.
std::filesystem::path temp_path_for(const std::filesystem::path& final_path);

}  // namespace openrecipes::rows
