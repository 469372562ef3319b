// Temp-file guards and the signal handler that removes guarded files on SIGINT/SIGTERM/SIGHUP (DESIGN.md "Output").
#include "rows/temp_file_guard.h"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstring>
#include <mutex>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

namespace openrecipes::rows {
namespace {

constexpr std::size_t kPathMax = 4096;
struct Slot {
  std::atomic<bool> used{false};
  char path[kPathMax];
};
std::array<Slot, TempFileGuard::kMaxGuardedFiles> g_slots;
std::mutex g_slots_mutex;  // guards slot allocation (not the signal handler, which only reads)
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction g_previous[3];
std::once_flag g_install_once;

extern "C" void remove_guarded_files(int sig) {
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
  if (s.size() >= kPathMax) throw std::length_error("TempFileGuard: path too long: " + s);
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

std::filesystem::path temp_path_for(const std::filesystem::path& final_path) {
  std::filesystem::path dir = final_path.has_parent_path() ? final_path.parent_path() : std::filesystem::path(".");
  std::random_device rd;
  return dir / fmt::format(".{}.{:08x}.tmp", final_path.filename().string(), rd());
}

}  // namespace openrecipes::rows
