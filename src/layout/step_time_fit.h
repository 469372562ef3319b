// Written by tools/fit_step_time.py: do not edit by hand; refit instead (docs/step-time-model.md).
// Fitted on 241 rows of tests/data/step_time/fit_rows.jsonl: 43 bridge, 191 megatron-ci, 7 registry.
// Each constant multiplies its term (layout::StepTimeTerm); the rows named beside it are those where
// that term is at least 10% of the predicted step (the rows that set it).
#pragma once

#include <array>

#include "layout/step_time.h"

namespace openrecipes::layout::fit {

inline constexpr std::array<double, kStepTimeTerms> kStepTimeConstants = {
    1,         // gemm_bf16 (pinned: at its datasheet rate)
    1,         // gemm_fp8 (pinned: at its datasheet rate)
    3.09559,   // gemm_small (71 rows: GPT 12x512, GPT 32x4096, GPT 6x512, GPT OSS 120B, LLAMA3.1_405B, LLAMA3_70B,
               // LLAMA3_8B, Qwen3_235B_a22B, Qwen3_30B_a3B, qwen3-0.6b)
    1,         // attention (pinned: at its datasheet rate)
    1,         // memory_bound (pinned: at its datasheet rate)
    0.759156,  // nvlink (10 rows: LLAMA3.1_405B, LLAMA3_70B)
    1,         // network (pinned: at its datasheet rate)
    1,         // expert_parallel (pinned: at its datasheet rate)
    1,         // data_parallel (pinned: at its datasheet rate)
    0.93578,   // collectives (102 rows: GPT 12x512, GPT 12x512 MoE 4, GPT 12x512 MoE 8, GPT 4x512)
    5.72227,   // layer_overhead (170 rows: GPT 12x512, GPT 12x512 MoE 4, GPT 12x512 MoE 8, GPT 4x512, GPT 4x512 MoE 4,
               // GPT 6x512, Qwen3_235B_a22B, Qwen3_30B_a3B, qwen3-0.6b)
    0,         // local_overhead (no row)
    3.17214,   // moe_overhead (48 rows: GPT 12x512 MoE 4, GPT 12x512 MoE 8, GPT 4x512 MoE 4, Qwen3_235B_a22B,
               // Qwen3_30B_a3B)
    0.024413,  // step_overhead (106 rows: GPT 12x512, GPT 12x512 MoE 8, GPT 4x512, GPT 4x512 MoE 4, GPT 6x512)
};
// plan's interval: prediction / (1 + e) to prediction × (1 + e) held 90% of the rows of models left out of the fit
// (their mean error 28.1%).
inline constexpr double kStepTimeError90 = 0.6986;

}  // namespace openrecipes::layout::fit
