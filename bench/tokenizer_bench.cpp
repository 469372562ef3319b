// Tokenizer speed bench (SPEC §1.3; issue 3: >= 3x tokenizers 0.23.2 at 1 and 2 threads): encodes the
// golden rendered conversations, repeated, on a pool of N threads; bench/tokenizer.sh runs the oracle side.
// Usage: tokenizer_bench TOKENIZER_JSON GOLDEN_JSONL REPEAT THREADS RUNS
// Prints one JSON line per timed run: {"seconds", "bytes", "tokens", "ids_sha256"} (encoding only; load excluded;
// ids_sha256 = SHA-256 of all ids as little-endian int32 in corpus order, compared with the oracle's).
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/sha256.h"
#include "rows/tokenizer/tokenizer.h"

int main(int argc, char** argv) {
  if (argc != 6) {
    std::cerr << "usage: tokenizer_bench TOKENIZER_JSON GOLDEN_JSONL REPEAT THREADS RUNS\n";
    return 2;
  }
  const int repeat = std::atoi(argv[3]), threads = std::atoi(argv[4]), runs = std::atoi(argv[5]);
  std::vector<std::string> texts;
  {
    std::ifstream in(argv[2]);
    std::string line;
    while (std::getline(in, line))
      if (!line.empty()) texts.push_back(nlohmann::json::parse(line)["rendered"].get<std::string>());
  }
  std::vector<const std::string*> corpus;
  std::size_t bytes = 0;
  for (int r = 0; r < repeat; ++r)
    for (const auto& t : texts) {
      corpus.push_back(&t);
      bytes += t.size();
    }
  try {
    const auto tk = openrecipes::rows::Tokenizer::load(argv[1]);
    for (int run = 0; run < runs; ++run) {
      std::vector<std::vector<std::int32_t>> ids(corpus.size());
      std::atomic<std::size_t> next{0};
      auto worker = [&] {
        for (std::size_t i; (i = next.fetch_add(1)) < corpus.size();) tk.encode(*corpus[i], ids[i]);
      };
      const auto t0 = std::chrono::steady_clock::now();
      std::vector<std::thread> pool;
      for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
      worker();
      for (auto& th : pool) th.join();
      const auto t1 = std::chrono::steady_clock::now();
      openrecipes::Sha256 h;
      std::size_t tokens = 0;
      static_assert(std::endian::native == std::endian::little, "ids are hashed as little-endian int32");
      for (const auto& v : ids) {
        tokens += v.size();
        h.update(v.data(), v.size() * sizeof(std::int32_t));
      }
      nlohmann::json out = {{"seconds", std::chrono::duration<double>(t1 - t0).count()},
                            {"bytes", bytes},
                            {"tokens", tokens},
                            {"ids_sha256", h.hex()}};
      std::cout << out.dump() << std::endl;
    }
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  return 0;
}
