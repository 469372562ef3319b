// Temp-file guards, the signal handler that removes guarded files on SIGINT/SIGTERM/SIGHUP, the all-or-none commit
// and the atomic write of one file (DESIGN.md "Output").
#include "core/atomic_output.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include <array>
#include <atomic>
#include <cstring>
#include <mutex>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

#include "core/error.h"
#include "core/text.h"

namespace openrecipes {
namespace {

constexpr std::size_t kPathMax = TempFileGuard::kMaxPathBytes;
struct Slot {
  std::atomic<bool> used{false};
  char path[kPathMax];
};
std::array<Slot, TempFileGuard::kMaxGuardedFiles> g_slots;
std::mutex g_slots_mutex;  // guards slot allocation (not the signal handler, which only reads)
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction g_previous[3];
std::once_flag g_install_once;
// While commit_replacements() renames a set of files, a signal caught on any thread is only recorded here and
// handled (cleanup, then the signal's own course) once the set is complete or rolled back.
std::atomic<bool> g_committing{false};
volatile sig_atomic_t g_deferred_signal = 0;

extern "C" void remove_guarded_files(int sig) {
  if (g_committing.load(std::memory_order_acquire)) {
    g_deferred_signal = sig;
    return;
  }
  for (auto& s : g_slots)
    if (s.used.load(std::memory_order_acquire)) ::unlink(s.path);
  for (int i = 0; i < 3; ++i)
    if (kSignals[i] == sig) sigaction(sig, &g_previous[i], nullptr);
  raise(sig);  // delivered once this handler returns, under the previous disposition
}

void install_handlers() {
  for (int i = 0; i < 3; ++i) {
    // A signal the process ignores (SIGHUP under nohup) stays ignored: the run goes on, so must its files.
    if (sigaction(kSignals[i], nullptr, &g_previous[i]) != 0 || g_previous[i].sa_handler == SIG_IGN) continue;
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = remove_guarded_files;
    sigemptyset(&sa.sa_mask);
    for (int s : kSignals) sigaddset(&sa.sa_mask, s);
    sigaction(kSignals[i], &sa, nullptr);
  }
}

}  // namespace

TempFileGuard::TempFileGuard(const std::filesystem::path& path) : path_(path) {
  const std::string s = path.string();
  if (s.size() >= kMaxPathBytes)
    throw InputError(quote_for_message(s),
                     fmt::format("the path is {} bytes, over the limit of {}", s.size(), kMaxPathBytes - 1),
                     "choose a shorter output path");
  std::call_once(g_install_once, install_handlers);
  std::lock_guard<std::mutex> lock(g_slots_mutex);
  for (int i = 0; i < kMaxGuardedFiles; ++i) {
    if (!g_slots[i].used.load(std::memory_order_relaxed)) {
      std::memcpy(g_slots[i].path, s.c_str(), s.size() + 1);
      g_slots[i].used.store(true, std::memory_order_release);
      slot_ = i;
      return;
    }
  }
  throw std::length_error("TempFileGuard: more than 64 temp files at once");
}

TempFileGuard::TempFileGuard(const std::filesystem::path& path, std::string_view content) : TempFileGuard(path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int e = errno;
    release();  // not ours: an existing file stays
    throw InputError(path.string(), std::string("cannot write: ") + std::strerror(e),
                     "check that the folder exists and is writable");
  }
  const char* p = content.data();
  std::size_t left = content.size();
  int e = 0;
  while (left > 0 && e == 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno != EINTR) e = errno;
      continue;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (e == 0 && ::fsync(fd) != 0) e = errno;
  if (::close(fd) != 0 && e == 0) e = errno;
  if (e != 0) {
    remove();  // a constructor that throws runs no destructor
    throw InputError(path.string(), std::string("write failed: ") + std::strerror(e), "free disk space");
  }
}

TempFileGuard::~TempFileGuard() { remove(); }

void TempFileGuard::release() {
  if (slot_ < 0) return;
  std::lock_guard<std::mutex> lock(g_slots_mutex);
  g_slots[slot_].used.store(false, std::memory_order_release);
  slot_ = -1;
}

void TempFileGuard::remove() {
  if (slot_ < 0) return;
  ::unlink(path_.c_str());
  release();
}

namespace {

// Holds SIGINT/SIGTERM/SIGHUP back for one commit: blocked in this thread, deferred by the handler elsewhere.
class HeldSignals {
 public:
  HeldSignals() {
    std::call_once(g_install_once, install_handlers);
    sigset_t set;
    sigemptyset(&set);
    for (int s : kSignals) sigaddset(&set, s);
    pthread_sigmask(SIG_BLOCK, &set, &old_);
    g_committing.store(true, std::memory_order_release);
  }
  ~HeldSignals() {
    g_committing.store(false, std::memory_order_release);
    if (int sig = g_deferred_signal; sig != 0) {
      g_deferred_signal = 0;
      remove_guarded_files(sig);  // cleanup, previous disposition back, raise: pending until unblocked below
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  HeldSignals(const HeldSignals&) = delete;
  HeldSignals& operator=(const HeldSignals&) = delete;

 private:
  sigset_t old_;
};

void sync_folder(const std::filesystem::path& file) {
  std::filesystem::path dir = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

void commit_replacements(std::span<const Replacement> items, const std::function<void()>& after_first_rename) {
  const std::string fix_folder = "remove or rename that folder, or choose another output path";
  for (const auto& r : items) {
    struct stat st;
    if (::lstat(r.target.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      throw InputError(r.target.string(), "is a folder, so the output cannot replace it; nothing was written",
                       fix_folder);
    if (::lstat(r.temp.c_str(), &st) != 0)
      throw InputError(r.target.string(), "the finished temp file " + r.temp.string() + " disappeared",
                       "run again; do not clean the output folder while a run writes to it");
  }
  HeldSignals held;
  std::vector<std::filesystem::path> backups(items.size());
  std::vector<bool> had_target(items.size(), false);
  auto drop_backups = [&] {
    for (const auto& b : backups)
      if (!b.empty()) ::unlink(b.c_str());
  };
  // Backups first: a hard link keeps the old file reachable without copying it.
  for (std::size_t i = 0; i < items.size(); ++i) {
    struct stat st;
    if (::lstat(items[i].target.c_str(), &st) != 0) continue;
    had_target[i] = true;
    std::filesystem::path b = temp_path_for(items[i].target);
    if (::link(items[i].target.c_str(), b.c_str()) == 0) backups[i] = b;
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (::rename(items[i].temp.c_str(), items[i].target.c_str()) != 0) {
      const int e = errno;
      // Undo the renames already done: old file back from its backup, or no file where there was none.
      for (std::size_t j = 0; j < i; ++j) {
        if (!backups[j].empty()) {
          if (::rename(backups[j].c_str(), items[j].target.c_str()) == 0) backups[j].clear();
        } else if (!had_target[j]) {
          ::unlink(items[j].target.c_str());
        } else {
          ::unlink(items[j].target.c_str());  // no backup possible: better no file than a mismatched pair
        }
      }
      drop_backups();
      throw InputError(items[i].target.string(),
                       std::string("cannot replace the file: ") + std::strerror(e) + "; nothing was replaced",
                       "check that the folder is writable and the path is not a folder");
    }
    if (i == 0 && after_first_rename) after_first_rename();
  }
  drop_backups();
  for (const auto& r : items) sync_folder(r.target);
}

std::filesystem::path temp_path_for(const std::filesystem::path& final_path) {
  std::filesystem::path dir = final_path.has_parent_path() ? final_path.parent_path() : std::filesystem::path(".");
  std::random_device rd;
  return dir / fmt::format(".{}.{:08x}.tmp", final_path.filename().string(), rd());
}

void write_file_atomic(const std::filesystem::path& path, std::string_view content) {
  std::error_code ec;
  if (std::filesystem::is_directory(std::filesystem::symlink_status(path, ec)))
    throw InputError(path.string(), "is a folder, so the file cannot replace it; nothing was written",
                     "remove or rename that folder, or choose another output path");
  TempFileGuard guard(temp_path_for(path), content);  // removes the temp file on an error or a signal
  if (::rename(guard.path().c_str(), path.c_str()) != 0) {
    int e = errno;
    throw InputError(path.string(), std::string("cannot replace the file: ") + std::strerror(e),
                     "check that the folder is writable and the path is not a folder");
  }
  guard.release();
}

}  // namespace openrecipes
