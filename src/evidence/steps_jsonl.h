// Parser for the project's own per-step evidence, steps.jsonl (SPEC §2): one JSON object per line,
// {"step": int, "tokens": int, "time_s": float, "loss": float|null} plus optional "skipped"/"nan" booleans.
#pragma once

#include <string>
#include <string_view>

#include "core/step_record.h"

namespace openrecipes::evidence {

/// Parses steps.jsonl. Empty lines are ignored. Throws InputError (file:line, fix) on invalid JSON, a missing
/// or mistyped field, an unknown field, a field given twice in one object, a positive time_s below 1 ms
/// (kMinStepTimeS), or a step given twice. Records are in file order.
StepLog parse_steps_jsonl(std::string_view text, const std::string& file);

}  // namespace openrecipes::evidence
