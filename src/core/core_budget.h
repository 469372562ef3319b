// A budget of cores shared by the threads of two pools that work on one job, so that `--threads N` keeps about N
// cores busy: the rows build's tokenizer workers and its parquet writer's DuckDB threads (SPEC §1 build, any
// thread count; DESIGN.md "Output is deterministic": the budget changes only timing, never bytes).
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace openrecipes {

/// N permits, one per busy thread. Producers (the tokenizer workers) call acquire(); consumers (DuckDB's threads,
/// which must never wait on it) call take() when they start on work, which may go over N, and release() when done.
/// acquire() waits while N or more permits are out, unless a consumer is starving (between starving_begin() and
/// starving_end(): it waits for what producers make, so holding them back could only stall the job), and at most
/// `patience` in any case (a consumer may hold a permit while blocked inside DuckDB: going over the budget beats a
/// deadlock). Thread-safe.
class CoreBudget {
 public:
  explicit CoreBudget(unsigned cores, std::chrono::milliseconds patience = std::chrono::milliseconds(500))
      : cores_(cores ? cores : 1), patience_(patience) {}
  CoreBudget(const CoreBudget&) = delete;
  CoreBudget& operator=(const CoreBudget&) = delete;

  void acquire() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, patience_, [&] { return in_use_ < cores_ || starving_ > 0; });
    ++in_use_;
  }
  void starving_begin() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++starving_;
    }
    cv_.notify_all();
  }
  void starving_end() {
    std::lock_guard<std::mutex> lock(mu_);
    --starving_;
  }
  void take() {
    std::lock_guard<std::mutex> lock(mu_);
    ++in_use_;
  }
  void release() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      --in_use_;
    }
    cv_.notify_one();
  }
  unsigned cores() const { return cores_; }

  /// Holds one permit (acquire) for a scope.
  class Permit {
   public:
    explicit Permit(CoreBudget* b) : b_(b) {
      if (b_) b_->acquire();
    }
    ~Permit() {
      if (b_) b_->release();
    }
    Permit(const Permit&) = delete;
    Permit& operator=(const Permit&) = delete;

   private:
    CoreBudget* b_;
  };

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  unsigned cores_;
  unsigned in_use_ = 0;
  unsigned starving_ = 0;
  std::chrono::milliseconds patience_;
};

}  // namespace openrecipes
