#!/usr/bin/env python3
"""The step-time model's measured rows, one table (issue 42): every measurement it is fitted and checked on, each with
the Megatron-LM command that ran it, its GPUs and precision, and its measured step time.

    /usr/bin/python3 tools/step_time_rows.py build/openrecipes > tests/data/step_time/fit_rows.jsonl

Reads (all in the project):
  tests/data/step_time/bridge_rows.jsonl   Megatron-Bridge 067f987's published throughput (bridge_performance_rows.py)
  tests/data/step_time/bridge_models.json  the Megatron arguments of each model Bridge measured
  tests/data/megatron_ci/cases.jsonl        Megatron-LM d98e8a64's CI runs (megatron_ci_cases.py)
  registry/recipes/*/*/*/                    the registry's own runs: each recipe's evidence log, measured with
                                             `openrecipes measure` (its mean step time over the protocol's window)

A Bridge row's step takes GBS x sequence length / (tokens/s/GPU x GPUs) seconds; its command is the model's arguments
and the row's layout with what Bridge's performance recipes set: Transformer Engine, BF16 with FP8 GEMMs where the row
says FP8 (any recipe: FP8, FP8-CS, FP8-MX, MXFP8), sequence parallelism with TP, the distributed optimizer with its
overlaps, gradients reduced in BF16 (--grad-reduce-in-bf16), no recomputation; the pipeline split's flags the model's recipes set (bridge_models.json's pipeline_split:
the embedding and the loss counted as layers for Llama 3.1 405B and Qwen3-235B-A22B). A CI run's step is its median iteration time after warm-up; a registry run's is its mean over the measured window, and its
setup is read from its recipe as `plan --from` reads it (the row names the recipe instead of a command). Kept out, each with its
reason on stderr: GPU types gpus.yaml does not hold (GB200, GB300, B300), a
precision Bridge does not state (its 25.09 tables) or that is not BF16/FP8 (NVFP4), FSDP, LoRA, multi-token
prediction, and models the planner does not model (no entry in bridge_models.json).

Each output row: id, source ("bridge", "megatron-ci" or "registry"), model, gpu, gpus, gpus_per_node, precision ("bf16" or
"fp8"), step_time_s, command (a shell command line; a registry row gives `recipe`, its folder, instead), tokenizer_vocab (the runs that read GPT-2's BPE files, else
null), and where it came from (file, line or case).
"""

import json
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SYSTEMS = {"DGX-H100": "H100", "DGX-B200": "B200"}
CI_PLATFORMS = {"dgx_h100": "H100", "dgx_a100": "A100"}  # DGX A100 80GB: its 7B run peaks at 56 GiB
FP8 = {"FP8", "FP8-CS", "FP8-MX", "MXFP8"}
GPT2_VOCAB = 50257


def command(arguments):
    return "python pretrain_gpt.py " + " ".join(
        f'"{a}"' if "${" in a else shlex.quote(a) for a in arguments)


def bridge_rows(models, skipped):
    for line in (ROOT / "tests/data/step_time/bridge_rows.jsonl").read_text().splitlines():
        r = json.loads(line)
        where = f"{r['source'].split()[-1]}:{r['line']} {r['model']} {r['system']} ({r['variant']})"
        reason = None
        if r["system"] not in SYSTEMS:
            reason = f"{r['system']} is not a GPU type of gpus.yaml"
        elif r["precision"] is None:
            reason = "the table does not state the precision"
        elif r["precision"] not in FP8 and r["precision"] != "BF16":
            reason = f"{r['precision']} is not modelled"
        elif r["fsdp"]:
            reason = "FSDP is not modelled"
        elif r["task"] != "pre-training" and r["task"] != "SFT":
            reason = f"{r['task']} is not modelled"
        elif r["model_note"] and "MTP" in r["model_note"] and "w/o" not in r["model_note"]:
            reason = "multi-token prediction is not modelled"
        elif models.get(r["model"], {}).get("mtp_layers") and "w/o MTP" not in (r["model_note"] or ""):
            reason = "multi-token prediction is not modelled (its recipes keep the checkpoint's MTP layer)"
        elif r["model"] not in models:
            reason = "the planner does not model its layers"
        if reason:
            skipped.append(f"{where}: {reason}")
            continue
        tp, pp, cp, ep, vp = r["tp"], r["pp"], r["cp"], r["ep"] or 1, r["vp"]
        args = list(models[r["model"]]["arguments"]) + [
            "--tensor-model-parallel-size", str(tp), "--pipeline-model-parallel-size", str(pp),
            "--context-parallel-size", str(cp), "--micro-batch-size", str(r["mbs"]),
            "--global-batch-size", str(r["gbs"]), "--seq-length", str(r["seq_length"]),
            "--max-position-embeddings", str(r["seq_length"]), "--transformer-impl", "transformer_engine",
            "--bf16", "--use-distributed-optimizer", "--overlap-grad-reduce", "--overlap-param-gather",
            "--attention-dropout", "0", "--hidden-dropout", "0", "--cross-entropy-loss-fusion",
            # perf_recipes/_common.py line 74 (_benchmark_common, which every performance recipe calls):
            # ddp.grad_reduce_in_fp32 = False, Megatron-LM's --grad-reduce-in-bf16.
            "--grad-reduce-in-bf16"]
        if ep > 1:
            args += ["--expert-model-parallel-size", str(ep), "--expert-tensor-parallel-size", "1"]
        if tp > 1:
            args += ["--sequence-parallel"]
        if vp and vp > 1:
            args += ["--num-virtual-stages-per-pipeline-rank", str(vp)]
        args += models[r["model"]].get("pipeline_split", [])  # the embedding and loss counted, as its recipes set
        step = r["gbs"] * r["seq_length"] / (r["tokens_per_s_per_gpu"] * r["gpus"])
        yield {"id": f"bridge {where}", "source": "bridge", "model": r["model"], "gpu": SYSTEMS[r["system"]],
               "gpus": r["gpus"], "gpus_per_node": 8, "precision": "fp8" if r["precision"] in FP8 else "bf16",
               "step_time_s": round(step, 6), "command": command(args), "tokenizer_vocab": None,
               "from": f"Megatron-Bridge {r['commit']} {r['source'].split()[-1]} line {r['line']}"}


def arg(args, name):
    return args[args.index(name) + 1] if name in args else "?"


def ci_rows(skipped):
    """A CI run's model is its shape (layers x hidden, experts): many cases train one shape."""
    for line in (ROOT / "tests/data/megatron_ci/cases.jsonl").read_text().splitlines():
        r = json.loads(line)
        where = f"{r['case']} {r['environment']}_{r['platform']}"
        if r["iteration_time_s"] is None:
            continue  # too few steps recorded to leave out the warm-up
        if r["platform"] not in CI_PLATFORMS:
            skipped.append(f"{where}: {r['platform']} is not a GPU type of gpus.yaml")
            continue
        args = r["arguments"]
        bpe = "--vocab-file" in args and "--vocab-size" not in args
        model = "GPT {}x{}{}".format(arg(args, "--num-layers"), arg(args, "--hidden-size"),
                                     f" MoE {arg(args, '--num-experts')}" if "--num-experts" in args else "")
        yield {"id": f"megatron-ci {where}", "source": "megatron-ci", "model": model,
               "gpu": CI_PLATFORMS[r["platform"]], "gpus": r["gpus"], "gpus_per_node": r["gpus_per_node"],
               "precision": "fp8" if "--fp8-format" in args else "bf16", "step_time_s": r["iteration_time_s"],
               "command": command(args), "tokenizer_vocab": GPT2_VOCAB if bpe else None,
               "from": f"Megatron-LM {r['commit']} CI {r['case']} ({r['environment']}, {r['platform']})"}


def registry_rows(openrecipes):
    for log in sorted((ROOT / "registry/recipes").glob("*/*/*/evidence/train.log")):
        recipe = log.parent.parent
        gpu = recipe.parent.name
        m = json.loads(subprocess.run([openrecipes, "measure", "--json", str(log)], check=True, capture_output=True,
                                      text=True).stdout)
        rel = recipe.relative_to(ROOT).as_posix()
        yield {"id": f"registry {rel}", "source": "registry", "model": recipe.parent.parent.name, "gpu": gpu,
               "gpus": m["gpus"], "gpus_per_node": 8, "precision": "bf16",
               "step_time_s": round(m["mean_step_time_s"], 6), "recipe": rel, "tokenizer_vocab": None,
               "from": f"{rel}/evidence/train.log (openrecipes measure)"}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: step_time_rows.py path/to/openrecipes")
    models = {k: v for k, v in json.loads((ROOT / "tests/data/step_time/bridge_models.json").read_text()).items()
              if not k.startswith("_")}
    skipped = []
    for row in list(bridge_rows(models, skipped)) + list(ci_rows(skipped)) + list(registry_rows(sys.argv[1])):
        print(json.dumps(row))
    for s in skipped:
        print(f"kept out: {s}", file=sys.stderr)


if __name__ == "__main__":
    main()
