#!/usr/bin/python3
"""Writes registry/models/<id>.yaml for every text model of ../shared/fixtures/configs that Megatron-LM trains
(issue 43), from its config.json and what is known of it (the table below).

    /usr/bin/python3 tools/model_files.py build/openrecipes ../shared/fixtures/configs registry/models

Each file holds: the checkpoint id (its revision where the fixture's SOURCE.txt gives one; none does, so none is
pinned), N counted from config.json by `openrecipes params --config` with its breakdown by class and the arithmetic in
words (`counted_from: config`: no fixture holds the safetensors headers of these checkpoints), config.json's fields
(all but quantization_config and vision_config, which N never reads), the layer shape in Megatron-LM's argument
names, the tokenizer family and chat template, and notes: the slime scripts/models/<file>.sh at 624b824a that gives
its MODEL_ARGS (or that there is none), the objective conventions of its family, and which of its attention kinds the
planner models exactly and which it bounds. tests/data/test_model_files.py holds every N to tools/active_params.py on
the same config.json, and the files to this script's output.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import yaml

SLIME = "slime 624b824a"
DROPPED = ("quantization_config", "vision_config")

# Tokenizers and chat templates by family: the tokenizer's kind and vocabulary, and the turn markers of the template.
QWEN = ("Qwen byte-level BPE (Qwen2Tokenizer)", "ChatML: <|im_start|>role ... <|im_end|>, with <think> blocks")
QWEN_INSTRUCT = ("Qwen byte-level BPE (Qwen2Tokenizer)",
                 "ChatML: <|im_start|>role ... <|im_end|> (an Instruct checkpoint: no thinking blocks)")
QWEN35 = ("Qwen byte-level BPE", "ChatML: <|im_start|>role ... <|im_end|>, with <think> blocks")
DEEPSEEK = ("DeepSeek byte-level BPE (LlamaTokenizerFast class)",
            "DeepSeek: <|begin_of_sentence|>, <|User|> ... <|Assistant|> ... <|end_of_sentence|> (the tokenizer "
            "writes the bars as U+FF5C and the underscores as U+2581)")
KIMI = ("Kimi tiktoken BPE (TikTokenTokenizer)",
        "Kimi: <|im_system|> / <|im_user|> / <|im_assistant|> ... <|im_middle|> ... <|im_end|>")
GLM = ("GLM byte-level BPE (PreTrainedTokenizerFast)",
       "GLM: [gMASK]<sop>, <|system|> / <|user|> / <|assistant|>, with <think> blocks")
GPT_OSS = ("o200k_harmony (tiktoken BPE)",
           "harmony: <|start|>role<|channel|>...<|message|> ... <|end|> (analysis and final channels)")
LLAMA = ("Llama 3 tiktoken BPE (PreTrainedTokenizerFast)",
         "Llama 3: <|begin_of_text|>, <|start_header_id|>role<|end_header_id|> ... <|eot_id|>")

# Attention kinds: what the planner (memory and step time) does with each.
FULL = "full causal attention with grouped queries: modelled exactly (memory and step time)"
MLA = ("multi-latent attention (MLA): modelled exactly (queries and keys at heads × (nope + rope) channels, values at "
       "heads × v channels; the latent down- and up-projections as GEMMs)")
LINEAR = ("gated DeltaNet linear attention in 3 of every 4 layers, gated full attention in the 4th: bounded (every "
          "layer sized and timed as full attention, an upper bound on memory and step time)")
SLIDING = ("sliding-window attention (128 tokens) in every other layer, with attention sinks: bounded (timed and "
           "sized as full causal attention, an upper bound)")
INDEXER = ("the sparse-attention indexer (DeepSeek Sparse Attention) over MLA: bounded (attention timed and sized as "
           "full causal MLA, an upper bound; the indexer's weights are counted in N)")
AUX_ZERO = ("Objective: the family's convention is --moe-aux-loss-coeff 0 (Megatron computes the load-balancing loss "
            "per micro-batch, so with it on the rows per micro-batch would be part of the objective).")
AUX_ZERO_DENSE = ("Objective: the family's convention is --moe-aux-loss-coeff 0, Megatron-LM's default, which this dense "
                  "model keeps.")
SAME_SHAPE = (" slime has no Qwen3.6 script; {} is Qwen3.5's for the same layer sizes (layers, hidden, heads, groups, "
              "experts): check its rope settings against this config.json.")

# id: (name, family, checkpoint, fixture folder, slime's model script or None, tokenizer, attention kinds, extra note)
MODELS = {
    "qwen3-8b": ("Qwen3-8B", "qwen3", "Qwen/Qwen3-8B", "Qwen3-8B", "qwen3-8B.sh", QWEN, [FULL], None),
    "qwen3-32b": ("Qwen3-32B", "qwen3", "Qwen/Qwen3-32B", "Qwen3-32B", "qwen3-32B.sh", QWEN, [FULL], None),
    "qwen3-30b-a3b": ("Qwen3-30B-A3B", "qwen3", "Qwen/Qwen3-30B-A3B", "Qwen3-30B-A3B", "qwen3-30B-A3B.sh", QWEN,
                      [FULL], None),
    "qwen3-235b-a22b": ("Qwen3-235B-A22B", "qwen3", "Qwen/Qwen3-235B-A22B", "Qwen3-235B-A22B",
                        "qwen3-235B-A22B.sh", QWEN, [FULL], None),
    "qwen3-next-80b-a3b": ("Qwen3-Next-80B-A3B", "qwen3-next", "Qwen/Qwen3-Next-80B-A3B-Instruct",
                           "Qwen3-Next-80B-A3B", "qwen3-next-80B-A3B.sh", QWEN_INSTRUCT, [LINEAR], None),
    "qwen3.5-27b": ("Qwen3.5-27B", "qwen3.5", "Qwen/Qwen3.5-27B", "Qwen3.5-27B", "qwen3.5-27B.sh", QWEN35, [LINEAR],
                    AUX_ZERO_DENSE),
    "qwen3.5-35b-a3b": ("Qwen3.5-35B-A3B", "qwen3.5", "Qwen/Qwen3.5-35B-A3B", "Qwen3.5-35B-A3B",
                        "qwen3.5-35B-A3B.sh", QWEN35, [LINEAR], AUX_ZERO),
    "qwen3.5-122b-a10b": ("Qwen3.5-122B-A10B", "qwen3.5", "Qwen/Qwen3.5-122B-A10B", "Qwen3.5-122B-A10B-FP8", None,
                          QWEN35, [LINEAR], AUX_ZERO + " The fixture's config.json is the FP8 release's (Qwen/Qwen3.5-"
                          "122B-A10B-FP8), whose architecture fields are the BF16 model's."),
    "qwen3.5-397b-a17b": ("Qwen3.5-397B-A17B", "qwen3.5", "Qwen/Qwen3.5-397B-A17B", "Qwen3.5-397B-A17B", None, QWEN35,
                          [LINEAR], AUX_ZERO),
    "qwen3.6-27b": ("Qwen3.6-27B", "qwen3.6", "Qwen/Qwen3.6-27B", "Qwen3.6-27B-NVFP4", "qwen3.5-27B.sh", QWEN35,
                    [LINEAR], AUX_ZERO_DENSE + SAME_SHAPE.format("qwen3.5-27B.sh") + " The fixture's config.json is "
                    "NVIDIA's NVFP4 re-quantisation's (nvidia/Qwen3.6-27B-"
                    "NVFP4), whose architecture fields are the base model's."),
    "qwen3.6-35b-a3b": ("Qwen3.6-35B-A3B", "qwen3.6", "Qwen/Qwen3.6-35B-A3B", "Qwen3.6-35B-A3B", "qwen3.5-35B-A3B.sh",
                        QWEN35, [LINEAR], AUX_ZERO + SAME_SHAPE.format("qwen3.5-35B-A3B.sh")),
    "deepseek-v3": ("DeepSeek-V3", "deepseek-v3", "deepseek-ai/DeepSeek-V3", "DeepSeek-V3", "deepseek-v3.sh",
                    DEEPSEEK, [MLA], "Its one multi-token-prediction layer is left out of N and of the planner."),
    "deepseek-r1": ("DeepSeek-R1", "deepseek-v3", "deepseek-ai/DeepSeek-R1", "DeepSeek-R1", "deepseek-v3.sh",
                    DEEPSEEK, [MLA], "DeepSeek-V3's architecture (its config.json's shape fields are V3's); its one "
                    "multi-token-prediction layer is left out of N and of the planner."),
    "deepseek-v3.2": ("DeepSeek-V3.2", "deepseek-v3.2", "deepseek-ai/DeepSeek-V3.2", "DeepSeek-V3.2", None, DEEPSEEK,
                      [INDEXER], "deepseek-v3.sh gives V3's arguments without the sparse-attention indexer's."),
    "kimi-k2-instruct": ("Kimi-K2-Instruct", "kimi-k2", "moonshotai/Kimi-K2-Instruct", "Kimi-K2-Instruct",
                         "kimi-k2.sh", KIMI, [MLA], "Trained with the MuonClip optimizer; the planner counts Adam's "
                         "state (Megatron-LM's default), which is what a Megatron-LM fine-tune of it runs."),
    "glm-4.5-air": ("GLM-4.5-Air", "glm4.5", "zai-org/GLM-4.5-Air", "GLM-4.5-Air", "glm4.5-106B-A12B.sh", GLM, [FULL],
                    "The fixture's config is transformers' printed Glm4MoeConfig, not a copied config.json (its "
                    "SOURCE.txt)."),
    "glm-5": ("GLM-5", "glm5", "zai-org/GLM-5", "GLM-5", "glm5-744B-A40B.sh", GLM, [INDEXER], None),
    "gpt-oss-20b": ("gpt-oss-20b", "gpt-oss", "openai/gpt-oss-20b", "gpt-oss-20b", None, GPT_OSS, [SLIDING],
                    "The checkpoint's experts are MXFP4; N counts parameters, not bytes."),
    "gpt-oss-120b": ("gpt-oss-120b", "gpt-oss", "openai/gpt-oss-120b", "gpt-oss-120b", None, GPT_OSS, [SLIDING],
                     "The checkpoint's experts are MXFP4; N counts parameters, not bytes."),
    "llama-3.1-8b": ("Llama-3.1-8B", "llama3.1", "meta-llama/Llama-3.1-8B", "Llama-3.1-8B", "llama3.1-8B-Instruct.sh",
                     LLAMA, [FULL], None),
    "llama-3.1-70b": ("Llama-3.1-70B", "llama3.1", "meta-llama/Llama-3.1-70B", "Llama-3.1-70B", None, LLAMA, [FULL],
                      None),
    "llama-3.1-405b": ("Llama-3.1-405B", "llama3.1", "meta-llama/Llama-3.1-405B", "Llama-3.1-405B", None, LLAMA, [FULL],
                       None),
}


def text_fields(config):
    """The text model's fields: text_config's for a multimodal config (Qwen3.5/3.6), else the config's own."""
    return config.get("text_config", config)


# kv_channels where the model's slime script sets another than its config's query-key head size (Kimi-K2's MLA).
KV_CHANNELS = {"kimi-k2-instruct": 64}  # slime 624b824a scripts/models/kimi-k2.sh: --kv-channels 64


def layer_shape(model_id, config):
    """The layer shape in the names the component-test runner writes (docs/models-format.md, "The layer shape"):
    Megatron-LM's TransformerConfig as a slime script builds it, without num_layers (the runner cuts the model)."""
    t = text_fields(config)
    mla = "kv_lora_rank" in t
    shape = {"hidden_size": t["hidden_size"],
             "ffn_hidden_size": t.get("intermediate_size") or t["moe_intermediate_size"],
             "num_attention_heads": t["num_attention_heads"],
             "num_query_groups": t.get("num_key_value_heads") or t["num_attention_heads"],
             "kv_channels": KV_CHANNELS.get(model_id) or (t["qk_nope_head_dim"] if mla else t.get("head_dim")) or
             t["hidden_size"] // t["num_attention_heads"]}
    experts = t.get("n_routed_experts") or t.get("num_experts") or t.get("num_local_experts")
    if experts:
        shape["num_experts"] = experts
        shape["moe_ffn_hidden_size"] = t.get("moe_intermediate_size") or t["intermediate_size"]
        shape["top_k"] = t["num_experts_per_tok"]
    return shape


def counting(report):
    """N's arithmetic in words, from `openrecipes params --config --json`."""
    parts, left = [], []
    for name, c in report["classes"].items():
        if c["counted"] and c["active"] > 0:
            if c["active"] != c["params"]:
                parts.append(f"{name} {c['params']:,} at top-{report['top_k']} of {report['num_experts']} experts = "
                             f"{c['active']:,}")
            else:
                parts.append(f"{name} {c['active']:,}")
        elif not c["counted"] and c["params"] > 0:
            left.append(f"{name} ({c['params']:,}: {c['reason']})")
    text = (f"From config.json's arithmetic (openrecipes params --config): {' + '.join(parts)}; N = {report['N']:,}."
            f" Left out: {'; '.join(left) if left else 'nothing counted'}; norms and biases.")
    mtp = [int(m.group(1)) for n in report.get("notes", []) if (m := re.match(r"(\d+) MTP layer", n))]
    if mtp:
        text += f" Left out too: {mtp[0]} multi-token-prediction layer{'s' if mtp[0] != 1 else ''}."
    return text


def model_args(script):
    """Where MODEL_ARGS come from: slime's model script at the pinned commit, or None."""
    return f"{SLIME} scripts/models/{script}" if script else None


def notes(name, script, attention, extra):
    out = [f"MODEL_ARGS: {model_args(script)}." if script else
           f"MODEL_ARGS: {SLIME} has no scripts/models file for {name}; write them from config.json (the layer shape "
           "above)."]
    out.append("Attention: " + "; ".join(attention) + ".")
    if extra:
        out.append(extra)
    return " ".join(out)


def model_file(binary, fixtures, model_id, entry):
    name, family, checkpoint, folder, script, tokenizer, attention, extra = entry
    config_path = Path(fixtures) / folder / "config.json"
    config = json.loads(config_path.read_text())
    report = json.loads(subprocess.run([binary, "params", "--config", str(config_path), "--json"], check=True,
                                       capture_output=True, text=True).stdout)
    source = dict(line.split(": ", 1) for line in (Path(fixtures) / folder / "SOURCE.txt").read_text().splitlines()
                  if ": " in line and not line.startswith(" "))
    where = "".join(f"\n#   {k} {source[k]}" for k in ("repo", "path", "commit") if k in source) or \
        " its SOURCE.txt says where it comes from"
    body = {
        "name": name,
        "family": family,
        "checkpoint": {"id": checkpoint, "revision": None},
        "active_params": {
            "n": report["N"],
            "counted_from": "config",
            "counting": counting(report),
            "breakdown": {k: c["active"] for k, c in report["classes"].items() if c["counted"] and c["active"] > 0},
        },
        "config": {k: v for k, v in config.items() if k not in DROPPED},
        "layer_shape": layer_shape(model_id, config),
        "tokenizer": {"family": f"{tokenizer[0]}; config.json's vocab_size {text_fields(config)['vocab_size']:,}",
                      "chat_template": tokenizer[1]},
        "model_args": model_args(script),
        "notes": notes(name, script, attention, extra),
    }
    header = (f"# {name}: written by tools/model_files.py (edit its table and re-run it, not this file) from the\n"
              f"# config.json of ../shared/fixtures/configs/{folder}:{where}.\n"
              f"# The checkpoint revision is not pinned: that source gives none.\n")
    return header + yaml.safe_dump(body, sort_keys=False, allow_unicode=True, width=118)


def main():
    if len(sys.argv) != 4:
        print("usage: tools/model_files.py <openrecipes binary> <fixtures/configs> <registry/models>", file=sys.stderr)
        return 2
    binary, fixtures, out = sys.argv[1:]
    for model_id, entry in MODELS.items():
        Path(out, model_id + ".yaml").write_text(model_file(binary, fixtures, model_id, entry), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
