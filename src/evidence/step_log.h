// One entry point for per-step evidence: picks the parser by the format a recipe names (SPEC §2).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/step_record.h"

namespace openrecipes::evidence {

/// Formats `read_step_log` understands: megatron, megatron-bridge, slime, miles, steps-jsonl.
const std::vector<std::string>& step_log_formats();

/// Reads `path` (bounded to 64 MiB) with the parser for `format`. `log_interval` (Megatron's
/// --log-interval, from the argument dump when known) sizes Megatron's logging intervals. `display_name` is
/// how messages and the result name the file (default: the path), e.g. the path relative to a recipe.
/// Throws InputError for an unknown format (listing the known ones) and whatever the parser throws.
StepLog read_step_log(const std::filesystem::path& path, const std::string& format,
                      std::optional<std::int64_t> log_interval = std::nullopt,
                      const std::string& display_name = {});

}  // namespace openrecipes::evidence
