// Bounded reads, atomic writes and contained paths (DESIGN.md "Untrusted input", "Output").
#include "core/files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "core/error.h"

namespace openrecipes {
namespace fs = std::filesystem;

std::string read_file(const fs::path& path, std::uint64_t max_bytes, std::size_t spare_capacity) {
  std::error_code ec;
  auto st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw InputError(path.string(), "file not found", "check the path");
  if (!fs::is_regular_file(st))
    throw InputError(path.string(), "not a regular file", "point at a file, not a folder or device");
  auto size = fs::file_size(path, ec);
  if (ec) throw InputError(path.string(), "cannot read the file size: " + ec.message());
  if (size > max_bytes)
    throw InputError(path.string(), fmt::format("file is {} bytes, over the limit of {} bytes", size, max_bytes),
                     "split the file or trim it to what the step needs");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string(), std::string("cannot open: ") + std::strerror(errno));
  std::string data;
  data.reserve(size + spare_capacity);
  data.resize(size);
  in.read(data.data(), static_cast<std::streamsize>(size));
  if (static_cast<std::uint64_t>(in.gcount()) != size)
    throw InputError(path.string(), "short read (file changed while reading?)", "read it again");
  return data;
}

fs::path resolve_inside(const fs::path& base, const std::string& relative, const std::string& field) {
  const std::string fix = "give a path relative to the recipe's folder, inside it (e.g. evidence/train.log)";
  if (relative.empty()) throw InputError(field, "empty path", fix);
  if (relative.find('\0') != std::string::npos) throw InputError(field, "path contains a NUL byte", fix);
  fs::path rel(relative);
  if (rel.is_absolute()) throw InputError(field, "absolute path '" + relative + "' is not allowed", fix);
  for (const auto& part : rel)
    if (part == "..") throw InputError(field, "path '" + relative + "' leaves the recipe's folder", fix);
  std::error_code ec;
  fs::path canon_base = fs::weakly_canonical(base, ec);
  if (ec) throw InputError(base.string(), "cannot resolve folder: " + ec.message());
  fs::path canon = fs::weakly_canonical(canon_base / rel, ec);
  if (ec) throw InputError(field, "cannot resolve path '" + relative + "': " + ec.message(), fix);
  auto [b, c] = std::mismatch(canon_base.begin(), canon_base.end(), canon.begin(), canon.end());
  if (b != canon_base.end())
    throw InputError(field, "path '" + relative + "' resolves to " + canon.string() + ", outside the recipe's folder",
                     fix);
  return canon;
}

fs::path without_trailing_separator(const fs::path& path) {
  return path.filename().empty() && path.has_parent_path() ? path.parent_path() : path;
}

}  // namespace openrecipes
