// One entry point for per-step evidence: picks the parser by the format a recipe names (SPEC §2).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/step_record.h"

namespace openrecipes::evidence {

/// The shortest positive step time any parser accepts, in seconds: no optimizer step of a model we publish
/// trains in under 1 ms, and a smaller value (a subnormal such as 1e-320) would make tokens/s infinite. Parsers
/// throw InputError for 0 < t < this; zero, negative and non-finite times are left to the measurement, which
/// names the step ("step time 0 s; it must be positive").
constexpr double kMinStepTimeS = 0.001;

/// Formats `read_step_log` understands: megatron, megatron-bridge, slime, miles, steps-jsonl.
const std::vector<std::string>& step_log_formats();

/// Throws InputError naming `where` ("unknown evidence format 'F'", listing the known ones) unless `format` is one
/// of step_log_formats().
void require_step_log_format(const std::string& format, const std::string& where);

/// What a step time t_i is for each log format (PROTOCOL.md scores ΣT_i / (n_GPU × Σt_i), so the definition of
/// t_i is part of every score): "'<field>': <definition>", e.g. for slime "'perf/step_time' = train_wait + train:
/// ...". `time_field` is the name the log used (StepLog::time_field); empty gives the format's current name.
/// Sources: Megatron-LM training.py's 'interval-time' timer; slime actor.py's train_wait/train timers
/// (notes/slime.md §2.3), renamed from perf/total_train_time on 2025-10-30. Throws InputError for an unknown
/// format.
std::string step_time_definition(const std::string& format, const std::string& time_field = {});

/// Parses the text of a log already read (bounded by the caller) with the parser for `format`; `file` names it in
/// messages. Throws as read_step_log.
StepLog parse_step_log(std::string_view text, const std::string& format, std::optional<std::int64_t> log_interval,
                       const std::string& file);

/// Reads `path` (bounded to 64 MiB) with the parser for `format`. `log_interval` (Megatron's
/// --log-interval, from the argument dump when known) sizes Megatron's logging intervals. `display_name` is
/// how messages and the result name the file (default: the path), e.g. the path relative to a recipe.
/// Throws InputError for an unknown format (listing the known ones) and whatever the parser throws.
StepLog read_step_log(const std::filesystem::path& path, const std::string& format,
                      std::optional<std::int64_t> log_interval = std::nullopt, const std::string& display_name = {});

}  // namespace openrecipes::evidence
