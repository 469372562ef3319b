// Megatron-LM memory lines (see megatron_memory.h): the measured peak ("max allocated") and Megatron's own estimate.
#include "evidence/megatron_memory.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"
#include "core/text.h"

namespace openrecipes::evidence {
namespace {

// The number after `key` ("max allocated: ") up to the next '|' or the line's end; nullopt when `key` is absent.
std::optional<std::string_view> field(std::string_view line, std::string_view key) {
  const auto p = line.find(key);
  if (p == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(p + key.size());
  return trim(rest.substr(0, rest.find('|')));
}

double number(std::string_view text, std::string_view what, const std::string& where) {
  auto v = parse_double(text);
  if (!v || !(*v >= 0))
    throw InputError(where, fmt::format("the memory line's {} is not a size in MB: {}", what, quote_for_message(text)),
                     "give the unedited log");
  return *v;
}

}  // namespace

std::optional<MemoryReport> parse_megatron_memory(std::string_view text, const std::string& file) {
  MemoryReport r;
  const auto lines = lines_of(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    const std::string where = fmt::format("{}:{}", file, i + 1);
    if (auto t = field(line, "Theoretical memory footprints:"); t) {
      if (auto total = field(line, "total="); total) {
        std::string_view v = *total;
        if (v.size() > 3 && v.substr(v.size() - 3) == " MB") v.remove_suffix(3);
        r.theoretical_mib = number(v, "total", where);
      }
      continue;
    }
    if (line.find("memory (MB) |") == std::string_view::npos) continue;
    const auto peak = field(line, "| max allocated:");
    const auto alloc = field(line, "| allocated:");
    const auto reserved = field(line, "| max reserved:");
    if (!peak || !alloc || !reserved)
      throw InputError(where,
                       "a memory line without allocated, max allocated and max reserved: " + quote_for_message(line),
                       "give the unedited log");
    const double m = number(*peak, "max allocated", where);
    const double a = number(*alloc, "allocated", where);
    const double x = number(*reserved, "max reserved", where);
    if (m > x)
      throw InputError(where, fmt::format("max allocated {} MB is above max reserved {} MB", m, x),
                       "the caching allocator reserves every byte it allocates; give the unedited log");
    ++r.lines;
    if (m >= r.max_allocated_mib) {
      r.max_allocated_mib = m;
      r.allocated_mib = a;
    }
    r.max_reserved_mib = std::max(r.max_reserved_mib, x);
  }
  if (r.lines == 0) return std::nullopt;
  return r;
}

}  // namespace openrecipes::evidence
