// Helpers shared by the fuzz targets (fuzz/README.md): what counts as a finding, and scratch folders.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "core/error.h"

namespace openrecipes::fuzz {

/// The input as text.
inline std::string_view text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Runs `fn`. Bad input must end in an InputError (exit 2 in the CLI), which is expected; anything else (another
/// exception: a bug, exit 3) is a finding and aborts, as do the sanitizers' reports, crashes and hangs.
template <typename F>
void expect_input_error_or_success(F&& fn) {
  try {
    fn();
  } catch (const InputError&) {
  }
}

/// A scratch folder of this process, emptied for each input (under $TMPDIR, else /tmp).
inline const std::filesystem::path& scratch() {
  static const std::filesystem::path dir = [] {
    const char* t = std::getenv("TMPDIR");
    auto d = std::filesystem::path(t && *t ? t : "/tmp") / ("openrecipes-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

/// Writes `bytes` to `path` (its folder created).
inline void write_file(const std::filesystem::path& path, std::string_view bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// A fatal finding that no sanitizer would report (a broken invariant): prints it and aborts.
[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz finding: %s\n", what.c_str());
  std::abort();
}

}  // namespace openrecipes::fuzz
