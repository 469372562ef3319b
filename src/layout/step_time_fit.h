// Written by tools/fit_step_time.py: do not edit by hand; refit instead (docs/step-time-model.md).
// Fitted on 104 rows of tests/data/step_time/fit_rows.jsonl: 29 bridge, 68 megatron-ci, 7 registry.
// Each constant multiplies its term (layout::StepTimeTerm); the rows named beside it are those where
// that term is at least 10% of the predicted step (the rows that set it).
#pragma once

#include <array>

#include "layout/step_time.h"

namespace openrecipes::layout::fit {

inline constexpr std::array<double, kStepTimeTerms> kStepTimeConstants = {
    1.55266,    // gemm_bf16 (20 rows: GPT 32x4096, GPT OSS 120B, LLAMA3_70B, qwen3-0.6b)
    1,          // gemm_fp8 (8 rows: LLAMA3_70B, LLAMA3_8B)
    0.0915343,  // gemm_small (no row)
    1.89612,    // attention (12 rows: GPT 32x4096, LLAMA3_70B, LLAMA3_8B, Qwen3_30B_a3B)
    1.6434,     // memory_bound (46 rows: GPT 12x512, GPT 32x4096, GPT OSS 120B, LLAMA3_70B, LLAMA3_8B, Qwen3_30B_a3B,
                // qwen3-0.6b)
    0,          // nvlink (no row)
    1,          // network (no row)
    0.246865,   // expert_parallel (4 rows: GPT OSS 120B, Qwen3_30B_a3B)
    1.31049,    // data_parallel (4 rows: GPT OSS 120B)
    1.25063,    // collectives (41 rows: GPT 12x512, GPT 12x512 MoE 4, GPT 12x512 MoE 8, GPT 4x512, LLAMA3_70B)
    3.26624,    // layer_overhead (99 rows: GPT 12x512, GPT 12x512 MoE 4, GPT 12x512 MoE 8, GPT 32x4096, GPT 4x512, GPT
                // 4x512 MoE 4, GPT OSS 120B, LLAMA3_70B, LLAMA3_8B, Qwen3_30B_a3B, qwen3-0.6b)
    0.206999,   // local_overhead (no row)
    2.03427,    // moe_overhead (32 rows: GPT 12x512 MoE 4, GPT 12x512 MoE 8, GPT 4x512 MoE 4, GPT OSS 120B,
                // Qwen3_30B_a3B)
    0.0404906,  // step_overhead (62 rows: GPT 12x512, GPT 12x512 MoE 4, GPT 12x512 MoE 8, GPT 4x512, GPT 4x512 MoE 4,
                // qwen3-0.6b)
};
// plan's interval: prediction / (1 + e) to prediction × (1 + e) held 90% of the rows of models left out of the fit
// (their mean error 43.2%).
inline constexpr double kStepTimeError90 = 1.0539;

}  // namespace openrecipes::layout::fit
