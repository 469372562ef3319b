#!/usr/bin/env python3
"""Generate a synthetic OpenRecipes registry for a speed benchmark of the site build.

What it writes (under OUT_DIR, which must not exist or must be empty):

  gpus.yaml                 the first --gpus of H100, H200, B200 (rates, peaks and device names as in gpus.yaml)
  rules/arguments.yaml      copied byte for byte from the bundled registry (registry/rules/arguments.yaml)
  models/bench-NNN.yaml     --models dense Qwen3-shaped models of varied size; N and its breakdown are the
                            config arithmetic of the config fields the file records, so `build` recounts them equal
  recipes/<model>/<gpu>/<id>/recipe.yaml + evidence/{train.log, times.txt, env.txt}
                            --recipes recipes spread evenly over the models x GPU types pairs; each pair has one
                            reference recipe ('ref', reference: null) and the others are tuned from it

Why: `openrecipes build -o site/` recomputes every recipe from its evidence (log parsing, the measurement, both
checks against the reference, claims, ranking). The bundled registry has 3 recipes, too few to time that; this
script gives up to the tool's limit of 10,000 recipes, each with its OWN evidence, all of which must come out
verified and ranked, so the benchmark times the full path of a verified recipe.

Each recipe is a synthetic Megatron-LM run on Megatron's mock data (a declared non-standard workload, one key per
model, so no rows verification is needed): a 20-step log with --log-interval 1 in the exact training_log line
format of registry/recipes/qwen3-0.6b/H200/ref/evidence/train.log, with a short argument dump (the
`megatron-args` evidence reads it from the same file), launcher times and a versions dump. A recipe differs from
its reference only in arguments the rules class as structural or bookkeeping (micro-batch size and the eval
micro-batch size that follows it, recompute settings, TP/DP sizes, sequence parallel, distributed optimizer,
gradient-reduce overlap), so its configuration check is eligible; its step times follow from a speed factor of
that configuration; its loss curve is the reference's within a fraction of a percent (never byte-identical), so
the convergence check passes. The claims in recipe.yaml (score, CV, GPU-hours, both checks with the convergence
numbers) are computed here with the formulas of SPEC §2-§4 from the very values written to the log.

Usage:
  python3 bench/site/generate_registry.py OUT_DIR [--models 100] [--gpus 3] [--recipes 10000] [--seed 1]

Standard library only; the same arguments give byte-identical files.
"""

import argparse
import datetime
import math
import os
import random
import shutil
import sys
import time
from pathlib import Path

# --------------------------------------------------------------------------------------------------- constants

STEPS = 20                   # steps per run (SPEC §2): the measured run is its own convergence arm
WINDOW = range(5, 20)        # measured window W = steps 5..19
MAX_RECIPES = 10000          # `openrecipes build` refuses a registry of more
MEGATRON_COMMIT = "d98e8a64ddf34856e74b24714e3bedb2f5a39553"
STACK = {"pytorch": "2.11.0+cu130", "cuda": "13.0", "nccl": "2.28.9", "python": "3.12.3"}

# GPU types in registry/gpus.yaml's shape (SPEC §3: AWS on-demand us-east-1, instance price / 8, dense BF16 peak).
GPU_TYPES = [
    ("H100", {
        "name": "NVIDIA H100 80GB", "device": "NVIDIA H100 80GB HBM3", "instance": "AWS p5.48xlarge", "instance_dollars_per_hour": "55.04",
        "dollars_per_gpu_hour": "6.88", "dense_bf16_tflops": "989",
        "price_source": "https://aws.amazon.com/ec2/pricing/on-demand/ (p5.48xlarge, us-east-1)",
        "peak_source": "https://www.nvidia.com/en-us/data-center/h100/ (H100 SXM, BF16 1,979 TFLOPS with sparsity)",
        "base_mfu": (0.18, 0.36)}),
    ("H200", {
        "name": "NVIDIA H200 141GB", "device": "NVIDIA H200", "instance": "AWS p5en.48xlarge", "instance_dollars_per_hour": "63.296",
        "dollars_per_gpu_hour": "7.912", "dense_bf16_tflops": "989",
        "price_source": "https://aws.amazon.com/ec2/pricing/on-demand/ (p5en.48xlarge, us-east-1)",
        "peak_source": "https://www.nvidia.com/en-us/data-center/h200/ (H200 SXM, BF16 1,979 TFLOPS with sparsity)",
        "base_mfu": (0.20, 0.38)}),
    ("B200", {
        "name": "NVIDIA B200 180GB", "device": "NVIDIA B200", "instance": "AWS p6-b200.48xlarge", "instance_dollars_per_hour": "113.9328",
        "dollars_per_gpu_hour": "14.2416", "dense_bf16_tflops": "2250",
        "price_source": "https://aws.amazon.com/ec2/pricing/on-demand/ (p6-b200.48xlarge, us-east-1)",
        "peak_source": "https://www.nvidia.com/en-us/data-center/hgx/ (HGX B200, BF16 4.5 PFLOPS with sparsity per GPU)",
        "base_mfu": (0.15, 0.32)}),
]

AUTHORS = ["openrecipes", "bench-alice", "bench-bob", "tuner-carol", "perf-dave", "mfu-erin", "kernels-frank",
           "layout-grace"]

# Structural knobs and the speed factor each gives (a synthetic model of throughput, nothing more).
MBS_SPEED = {1: 1.0, 2: 1.32, 4: 1.5, 8: 1.58}
TP_SPEED = {1: 1.0, 2: 0.93, 4: 0.86}
RECOMPUTE = {  # name -> (granularity, method, num_layers, modules, speed)
    "norc": ("None", "None", "None", "['core_attn']", 1.0),
    "sel": ("selective", "None", "None", "['core_attn']", 0.94),
    "sel-mlp": ("selective", "None", "None", "['core_attn', 'mlp']", 0.88),
    "full-u1": ("full", "uniform", "1", "['core_attn']", 0.76),
    "full-b2": ("full", "block", "2", "['core_attn']", 0.9),
}

# --------------------------------------------------------------------------------------------------- helpers


def write(path, text):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def rng_for(seed, *parts):
    """A private, deterministic stream per (seed, parts): str seeds hash with SHA-512 whatever PYTHONHASHSEED is."""
    return random.Random(":".join([str(seed)] + [str(p) for p in parts]))


def dump_line(name, value):
    """One line of Megatron's argument dump: '  {name} {'.' * (48 - len(name))} {value}'."""
    return "  {} {} {}".format(name, "." * (48 - len(name)), value)


def stamp_text(us):
    """Unix microseconds as Megatron's '[YYYY-MM-DD HH:MM:SS.ffffff]' (UTC)."""
    d = datetime.datetime(1970, 1, 1) + datetime.timedelta(microseconds=us)
    return d.strftime("%Y-%m-%d %H:%M:%S.%f")


def unix_ns_text(ns):
    return "{}.{:09d}".format(ns // 10**9, ns % 10**9)


def megatron_lr(args, k):
    """Megatron's OptimizerParamScheduler.get_lr at iteration k (constant, linear, cosine; iteration warmup)."""
    max_lr, min_lr = float(args["lr"]), float(args["min_lr"])
    decay = float(args["train_iters"])
    warmup = float(args["lr_warmup_iters"])
    init = float(args["lr_warmup_init"])
    if warmup > 0 and k <= warmup:
        return init + (max_lr - init) * k / warmup
    style = args["lr_decay_style"]
    if style == "constant":
        return max_lr
    if k > decay:
        return min_lr
    r = (k - warmup) / (decay - warmup)
    coeff = 1.0 - r if style == "linear" else 0.5 * (math.cos(math.pi * r) + 1.0)
    return min_lr + coeff * (max_lr - min_lr)


def measure(times_s, tokens_per_step, gpus):
    """SPEC §2: score = sum T / (n_GPU sum t) over W; CV = population std / mean of t over W."""
    w = [times_s[s] for s in WINDOW]
    total = sum(w)
    score = tokens_per_step * len(w) / (gpus * total)
    mean = total / len(w)
    cv = math.sqrt(sum((t - mean) ** 2 for t in w) / len(w)) / mean
    return score, cv


def convergence(cur, ref):
    """SPEC §4.3 (Megatron-Bridge validate_convergence, pipeline thresholds): (passed, r, final_rel, failures)."""
    skip = int(math.floor(len(cur) * 0.20))
    cur, ref = cur[skip:], ref[skip:]
    n = len(cur)
    mc, mr = sum(cur) / n, sum(ref) / n
    sxy = sum((a - mc) * (b - mr) for a, b in zip(cur, ref))
    sxx = sum((a - mc) ** 2 for a in cur)
    syy = sum((b - mr) ** 2 for b in ref)
    r = max(-1.0, min(1.0, sxy / math.sqrt(sxx) / math.sqrt(syy)))
    failures = 0
    for a, b in zip(cur, ref):
        tol = 0.10 if b > 2.0 else 0.05 if b > 0.5 else 0.02
        if abs(a - b) / abs(b) > tol:
            failures += 1
    final = abs(cur[-1] - ref[-1]) / abs(ref[-1])
    res = [a - b for a, b in zip(cur, ref)]
    mres = sum(res) / n
    sd = math.sqrt(sum((x - mres) ** 2 for x in res) / n)
    outliers = sum(1 for x in res if abs(x - mres) > 3 * sd)
    passed = r >= 0.95 and failures / n <= 0.10 and final <= 0.05 and outliers / n <= 0.10
    return passed, r, final, failures


# --------------------------------------------------------------------------------------------------- models


def make_model(seed, i):
    g = rng_for(seed, "model", i)
    H = g.choice([1024, 1536, 2048, 2560, 3072, 4096, 5120])
    heads = H // 128
    kv = g.choice([k for k in (4, 8) if heads % k == 0])
    L = g.randint(16, 48)
    ffn = int(round(H * g.choice([2.75, 3.0, 3.5, 4.0]) / 256)) * 256
    V = g.choice([32000, 128256, 151936])
    tie = H <= 2048 and g.random() < 0.7
    attn = L * (H * heads * 128 + 2 * H * kv * 128 + heads * 128 * H)
    mlp = L * 3 * H * ffn
    out = V * H
    n = attn + mlp + out
    row_length = g.choice([2048, 4096, 8192])
    global_batch = g.choice([32, 64, 128])
    lr, min_lr = g.choice([(1e-05, 1e-06), (2e-05, 2e-06), (5e-06, 5e-07), (3e-05, 3e-06)])
    m = {
        "id": "bench-{:03d}".format(i), "index": i, "H": H, "heads": heads, "kv": kv, "L": L, "ffn": ffn, "V": V,
        "tie": tie, "attn": attn, "mlp": mlp, "out": out, "n": n, "row_length": row_length,
        "global_batch": global_batch, "lr": lr, "min_lr": min_lr, "warmup": g.choice([0, 0, 2]),
        "decay_style": g.choice(["cosine", "cosine", "linear"]),
        "loss_floor": g.uniform(0.55, 1.1),  # how far the 20-step curve drops below ln V
    }
    m["name"] = "Bench-{:03d} ({:.2f}B)".format(i, n / 1e9)
    m["workload_key"] = "megatron-mock-seq{}-gbs{}".format(row_length, global_batch)
    return m


def model_yaml(m):
    H, L = m["H"], m["L"]
    per_layer_attn = m["attn"] // L
    per_layer_mlp = m["mlp"] // L
    counting = (
        "{L} layers x (attention: q {H}x{q} + k {H}x{k} + v {H}x{k} + o {q}x{H} = {pa:,}; MLP: gate, up, down "
        "3 x {H}x{f} = {pm:,}) = {la:,}; plus the output projection {V}x{H} = {out:,}{tied}; the input embedding "
        "lookup and the norms are left out (SPEC 3). N = {n:,}."
    ).format(L=L, H=H, q=m["heads"] * 128, k=m["kv"] * 128, pa=per_layer_attn, f=m["ffn"], pm=per_layer_mlp,
             la=m["attn"] + m["mlp"], V=m["V"], out=m["out"], n=m["n"],
             tied=" (tied to the input embedding, counted once as the output projection)" if m["tie"] else "")
    return (
        "# A synthetic dense Qwen3-shaped model for the site-build benchmark (bench/site/generate_registry.py).\n"
        "# The runs train a randomly initialised GPT of this shape on Megatron mock data, so N is counted from\n"
        "# the config fields below, not from a checkpoint.\n"
        "name: \"{name}\"\n"
        "family: qwen3\n"
        "checkpoint:\n"
        "  id: openrecipes-bench/{id}\n"
        "  revision: null   # shape only: the runs load no weights\n"
        "active_params:\n"
        "  n: {n}\n"
        "  counted_from: config\n"
        "  counting: \"{counting}\"\n"
        "  breakdown:\n"
        "    attention: {attn}\n"
        "    dense_mlp: {mlp}\n"
        "    output_projection: {out}\n"
        "config:\n"
        "  model_type: qwen3\n"
        "  architectures: [Qwen3ForCausalLM]\n"
        "  hidden_size: {H}\n"
        "  intermediate_size: {ffn}\n"
        "  num_hidden_layers: {L}\n"
        "  num_attention_heads: {heads}\n"
        "  num_key_value_heads: {kv}\n"
        "  head_dim: 128\n"
        "  vocab_size: {V}\n"
        "  tie_word_embeddings: {tie}\n"
        "  attention_bias: false\n"
        "layer_shape:\n"
        "  hidden_size: {H}\n"
        "  ffn_hidden_size: {ffn}\n"
        "  num_attention_heads: {heads}\n"
        "  num_query_groups: {kv}\n"
        "  kv_channels: 128\n"
        "notes: \"Synthetic benchmark model; recipes of this shape on Megatron-LM need --qk-layernorm, --swiglu,\n"
        "  --normalization RMSNorm, --group-query-attention --num-query-groups {kv} and --kv-channels 128.\"\n"
    ).format(name=m["name"], id=m["id"], n=m["n"], counting=counting, attn=m["attn"], mlp=m["mlp"], out=m["out"],
             H=H, ffn=m["ffn"], L=L, heads=m["heads"], kv=m["kv"], V=m["V"], tie="true" if m["tie"] else "false")


def base_arguments(m):
    """The argument dump entries every run of model m shares (its shape, data, optimizer and schedule)."""
    return {
        "_is_global_batch_size_explicitly_specified": "True",
        "accumulate_allreduce_grads_in_fp32": "True",
        "adam_beta1": "0.9", "adam_beta2": "0.999", "adam_eps": "1e-08",
        "add_bias_linear": "False", "add_position_embedding": "True", "add_qkv_bias": "False",
        "apply_rope_fusion": "False", "attention_backend": "AttnBackend.auto", "attention_dropout": "0.0",
        "bf16": "True", "clip_grad": "1.0", "consumed_train_samples": "0",
        "context_parallel_size": "1", "distributed_backend": "nccl",
        "encoder_num_layers": str(m["L"]), "encoder_seq_length": str(m["row_length"]),
        "eval_interval": "100000", "eval_iters": "0",
        "expert_model_parallel_size": "1", "expert_tensor_parallel_size": "1",
        "ffn_hidden_size": str(m["ffn"]), "fp16": "False",
        "global_batch_size": str(m["global_batch"]), "gradient_accumulation_fusion": "False",
        "group_query_attention": "True", "hidden_dropout": "0.0", "hidden_size": str(m["H"]),
        "init_method_std": "0.02", "kv_channels": "128", "log_interval": "1",
        "lr": repr(m["lr"]), "lr_decay_iters": "None", "lr_decay_style": m["decay_style"],
        "lr_warmup_fraction": "None", "lr_warmup_init": "0.0", "lr_warmup_iters": str(m["warmup"]),
        "masked_softmax_fusion": "False", "max_position_embeddings": "40960", "min_lr": repr(m["min_lr"]),
        "mock_data": "True", "no_persist_layer_norm": "True", "layernorm_epsilon": "1e-06", "normalization": "RMSNorm",
        "num_attention_heads": str(m["heads"]), "num_layers": str(m["L"]), "num_query_groups": str(m["kv"]),
        "optimizer": "adam", "overlap_param_gather": "False", "padded_vocab_size": str(m["V"]),
        "pipeline_model_parallel_size": "1", "position_embedding_type": "rope", "qk_layernorm": "True",
        "rampup_batch_size": "None", "rank": "0", "rotary_base": "1000000", "seed": "1234",
        "seq_length": str(m["row_length"]), "swiglu": "True", "tokenizer_type": "NullTokenizer",
        "train_iters": str(STEPS), "transformer_impl": "local",
        "untie_embeddings_and_output_weights": "False" if m["tie"] else "True",
        "virtual_pipeline_model_parallel_size": "None", "vocab_size": str(m["V"]), "weight_decay": "0.1",
    }


# --------------------------------------------------------------------------------------------------- recipes


def config_choices(m):
    """Every structural configuration (gpus, tp, mbs, recompute, distopt, overlap) valid for model m."""
    B = m["global_batch"]
    out = []
    for gpus in (1, 2, 4, 8):
        for tp in (1, 2, 4):
            if tp > gpus or gpus % tp or m["kv"] % tp:
                continue
            dp = gpus // tp
            for mbs in (1, 2, 4, 8):
                if B % (dp * mbs):
                    continue
                for rc in RECOMPUTE:
                    for distopt in ((False, True) if dp > 1 else (False,)):
                        for overlap in ((False, True) if dp > 1 else (False,)):
                            out.append((gpus, tp, dp, mbs, rc, distopt, overlap))
    return out


def speed_of(cfg):
    gpus, tp, dp, mbs, rc, distopt, overlap = cfg
    s = MBS_SPEED[mbs] * TP_SPEED[tp] * RECOMPUTE[rc][4] * (1 - 0.025 * math.log2(dp))
    if distopt:
        s *= 1.02
    if overlap:
        s *= 1.03
    return s


def recipe_id(j, cfg):
    gpus, tp, dp, mbs, rc, distopt, overlap = cfg
    # e.g. v07-t2d4m2-full-u1-zo: TP 2, DP 4, micro-batch 2, full uniform recompute, distributed optimizer (z),
    # gradient-reduce overlap (o); at most 21 characters, the width of the leaderboard's recipe column.
    flags = ("z" if distopt else "") + ("o" if overlap else "")
    return "v{:02d}-t{}d{}m{}-{}{}".format(j, tp, dp, mbs, rc, "-" + flags if flags else "")


def run_arguments(base, cfg):
    gpus, tp, dp, mbs, rc, distopt, overlap = cfg
    gran, method, layers, modules, _ = RECOMPUTE[rc]
    a = dict(base)
    a.update({
        "world_size": str(gpus), "tensor_model_parallel_size": str(tp), "data_parallel_size": str(dp),
        "sequence_parallel": "True" if tp > 1 else "False",
        "micro_batch_size": str(mbs), "eval_micro_batch_size": str(mbs),
        "recompute_granularity": gran, "recompute_method": method, "recompute_num_layers": layers,
        "recompute_modules": modules,
        "use_distributed_optimizer": "True" if distopt else "False",
        "overlap_grad_reduce": "True" if overlap else "False",
    })
    return a


def training_log(m, gpu_key, args, cfg, elapsed_100us, losses, grad_norms, start_us, jitter_us):
    """The run's stdout in Megatron-LM's format; returns (text, last stamp in us)."""
    gpus, tp, dp, mbs, rc, distopt, overlap = cfg
    B = m["global_batch"]
    lines = [
        "> PyTorch version ................ {}".format(STACK["pytorch"]),
        "> Megatron-Core version .......... 0.20.0",
        "> Transformer Engine version ... 0.0.0",
        "using world size: {}, data-parallel size: {}, context-parallel size: 1, hierarchical context-parallel "
        "sizes: None, tensor-model-parallel size: {}, pipeline-model-parallel size: 1".format(gpus, dp, tp),
        "accumulate and all-reduce gradients in fp32 for bfloat16 data type.",
        "using torch.bfloat16 for parameters ...",
        "------------------------ arguments ------------------------",
    ]
    lines.extend(dump_line(k, args[k]) for k in sorted(args))
    lines.append("-------------------- end of arguments ---------------------")
    lines.append("INFO:megatron.core.num_microbatches_calculator:setting number of microbatches to constant {}"
                 .format(B // (dp * mbs)))
    lines.append("> initializing torch distributed ...")
    lines.append("> setting random seeds to 1234 ...")
    lines.append(" > number of parameters on (tensor, pipeline) model parallel rank (0, 0): {}"
                 .format(m["n"] // tp))
    lines.append("[after dataloaders are built] datetime: {} ".format(stamp_text(start_us - 150000)))
    lines.append("training ...")
    lines.append("[before the start of training step] datetime: {} ".format(stamp_text(start_us)))
    tokens = B * m["row_length"]
    peak_flops_tokens = 6.0 * m["n"] * tokens / gpus / 1e12
    t = start_us
    for k in range(1, STEPS + 1):
        e = elapsed_100us[k - 1]
        t += e * 100 + jitter_us[k - 1]
        lr = megatron_lr(args, k)
        ms = e / 10.0
        lines.append(
            " [{}] iteration {:8d}/{:8d} | consumed samples: {:12d} | elapsed time per iteration (ms): {:.1f} | "
            "throughput per GPU (TFLOP/s/GPU): {:.1f} | learning rate: {:.6E} | global batch size: {:5d} | "
            "lm loss: {} | loss scale: 1.0 | grad norm: {:.3f} | number of skipped iterations: {:3d} | "
            "number of nan iterations: {:3d} |".format(
                stamp_text(t), k, STEPS, k * B, ms, peak_flops_tokens / (ms / 1000.0), lr, B, losses[k - 1],
                grad_norms[k - 1], 0, 0))
        if k == 1:
            lines.append("[Rank 0] (after 1 iterations) memory (MB) | allocated: {:.2f} | max allocated: {:.2f}"
                         .format(m["n"] * 16 / tp / 2**20, m["n"] * 20 / tp / 2**20))
    lines.append("[after training is done] datetime: {} ".format(stamp_text(t + 400)))
    return "\n".join(lines) + "\n", t


def env_txt(gpu_name):
    return (
        "megatron_lm_commit: {commit}\n"
        "GPU 0: {gpu} (UUID: GPU-00000000-0000-0000-0000-000000000000)\n"
        "python {python}\n"
        "torch {pytorch}\n"
        "cuda {cuda}\n"
        "nccl {nccl}\n"
        "numpy                   2.5.2\n"
        "nvidia-nccl-cu13        {nccl}\n"
        "torch                   2.11.0\n"
        "transformers            5.17.0\n"
        "triton                  3.6.0\n"
    ).format(commit=MEGATRON_COMMIT, gpu=gpu_name, **STACK)


def command_text(m, cfg):
    gpus, tp, dp, mbs, rc, distopt, overlap = cfg
    gran, method, layers, modules, _ = RECOMPUTE[rc]
    extra = []
    if tp > 1:
        extra.append("--tensor-model-parallel-size {} --sequence-parallel".format(tp))
    if gran == "selective":
        extra.append("--recompute-granularity selective --recompute-modules {}".format(
            modules.strip("[]").replace("'", "").replace(",", "")))
    elif gran == "full":
        extra.append("--recompute-granularity full --recompute-method {} --recompute-num-layers {}".format(
            method, layers))
    if distopt:
        extra.append("--use-distributed-optimizer")
    if overlap:
        extra.append("--overlap-grad-reduce")
    sched = "--lr {} --min-lr {} --lr-decay-style {}".format(repr(m["lr"]), repr(m["min_lr"]), m["decay_style"])
    if m["warmup"]:
        sched += " --lr-warmup-iters {}".format(m["warmup"])
    return (
        "  torchrun --nproc-per-node {gpus} $MEGATRON_LM/pretrain_gpt.py \\\n"
        "    --num-layers {L} --hidden-size {H} --ffn-hidden-size {ffn} --num-attention-heads {heads} \\\n"
        "    --group-query-attention --num-query-groups {kv} --kv-channels 128 --qk-layernorm --swiglu \\\n"
        "    --normalization RMSNorm --norm-epsilon 1e-6 --position-embedding-type rope --rotary-base 1000000 \\\n"
        "    --max-position-embeddings 40960 --disable-bias-linear --vocab-size {V}{untie} \\\n"
        "    --tokenizer-type NullTokenizer --mock-data --seq-length {S} \\\n"
        "    --micro-batch-size {mbs} --global-batch-size {B} --train-iters {steps} --log-interval 1 \\\n"
        "    {sched} --weight-decay 0.1 --clip-grad 1.0 --bf16 \\\n"
        "    --attention-dropout 0 --hidden-dropout 0 --transformer-impl local \\\n"
        "{extra}"
        "    --no-rope-fusion --no-gradient-accumulation-fusion --no-masked-softmax-fusion --no-persist-layer-norm \\\n"
        "    --eval-iters 0 --eval-interval 100000\n"
    ).format(gpus=gpus, L=m["L"], H=m["H"], ffn=m["ffn"], heads=m["heads"], kv=m["kv"], V=m["V"],
             untie="" if m["tie"] else " --untie-embeddings-and-output-weights", S=m["row_length"], mbs=mbs,
             B=m["global_batch"], steps=STEPS, sched=sched, extra="    {} \\\n".format(" ".join(extra)) if extra else "")


def recipe_yaml(m, gpu_key, rid, cfg, date, author, reference, claims):
    gpus, tp, dp, mbs, rc, distopt, overlap = cfg
    if reference is None:
        conv = "{verdict: pass}   # a reference recipe passes both checks trivially"
    else:
        conv = "{{verdict: pass, correlation: {:.4f}, final_loss_rel_diff: {:.7f}, pointwise_failures: {}}}".format(
            claims["correlation"], claims["final"], claims["failures"])
    return (
        "# A synthetic Megatron-LM run for the site-build benchmark (bench/site/generate_registry.py): evidence/\n"
        "# holds its generated log, launch times and environment dump. Megatron mock data: a non-standard\n"
        "# workload, so this recipe ranks only inside its own pair.\n"
        "id: {rid}\n"
        "model: {model}\n"
        "gpu: {gpu}\n"
        "gpus: {gpus}\n"
        "author:\n"
        "  github: {author}\n"
        "date: {date}\n"
        "reference: {reference}\n"
        "workload:\n"
        "  kind: non-standard\n"
        "  key: {key}\n"
        "  description: \"Megatron-LM mock data (--mock-data, NullTokenizer, seed 1234): synthetic rows of {L:,} "
        "tokens, {B} rows per step. Not the protocol's Tulu 3 workload.\"\n"
        "  row_length: {L}\n"
        "  global_batch: {B}\n"
        "steps_per_run: {steps}\n"
        "evidence:\n"
        "  log: {{path: evidence/train.log, format: megatron}}\n"
        "  arguments: {{path: evidence/train.log, format: megatron-args}}\n"
        "  versions: {{path: evidence/env.txt, format: versions}}\n"
        "  times: {{path: evidence/times.txt, format: launcher, run: {rid}}}\n"
        "command: |\n"
        "{command}"
        "layout: {{tp: {tp}, pp: 1, cp: 1, ep: 1, etp: 1, dp: {dp}, micro_batch: {mbs}}}\n"
        "stack:\n"
        "  framework: {{name: megatron-lm, commit: {commit}}}\n"
        "  transformer_engine: none\n"
        "  pytorch: {pytorch}\n"
        "  cuda: \"{cuda}\"\n"
        "  nccl: {nccl}\n"
        "  gpus_per_node: {gpus}\n"
        "  network: {network}\n"
        "claims:\n"
        "  tokens_per_s_per_gpu: {score:.2f}\n"
        "  cv: {cv:.5f}\n"
        "  gpu_hours: {gpu_hours:.6f}\n"
        "  configuration: eligible\n"
        "  convergence: {conv}\n"
    ).format(rid=rid, model=m["id"], gpu=gpu_key, gpus=gpus, author=author, date=date,
             reference="null" if reference is None else reference, key=m["workload_key"], L=m["row_length"],
             B=m["global_batch"], steps=STEPS, command=command_text(m, cfg), tp=tp, dp=dp, mbs=mbs,
             commit=MEGATRON_COMMIT, network="none (one GPU)" if gpus == 1 else "NVLink (one node)",
             score=claims["score"], cv=claims["cv"], gpu_hours=claims["gpu_hours"], conv=conv, **STACK)


def reference_losses(g, m):
    """The reference run's 20 losses: from about ln V down by a model-specific amount, with step noise."""
    l0 = math.log(m["V"]) + g.uniform(0.05, 0.35)
    drop = m["loss_floor"] * g.uniform(0.9, 1.1)
    tau = g.uniform(4.0, 7.0)
    return [l0 - drop * (1 - math.exp(-k / tau)) + g.gauss(0, 0.01) for k in range(STEPS)]


def printed(x):
    return "{:.6E}".format(x)


def write_pair(out, seed, m, gpu_key, gpu, count, stats):
    g = rng_for(seed, "pair", m["id"], gpu_key)
    peak = float(gpu["dense_bf16_tflops"]) * 1e12
    tokens = m["global_batch"] * m["row_length"]
    choices = config_choices(m)
    ref_cfg = g.choice([c for c in choices if c[3] == 1 and c[4] == "sel" and not c[5] and not c[6]])
    others = [c for c in choices if c != ref_cfg]
    g.shuffle(others)
    if len(others) < count - 1:
        raise SystemExit("model {} has only {} configurations for {} recipes per pair".format(
            m["id"], len(others) + 1, count))
    cfgs = [ref_cfg] + others[:count - 1]
    base = base_arguments(m)
    base_mfu = g.uniform(*gpu["base_mfu"])
    ref_speed = speed_of(ref_cfg)
    ref_loss_text = [printed(x) for x in reference_losses(g, m)]
    ref_loss = [float(x) for x in ref_loss_text]
    day0 = datetime.date(2026, 9, 1) + datetime.timedelta(days=g.randint(0, 30))
    pair_dir = out / "recipes" / m["id"] / gpu_key
    for j, cfg in enumerate(cfgs):
        gpus = cfg[0]
        is_ref = j == 0
        rid = "ref" if is_ref else recipe_id(j, cfg)
        rg = rng_for(seed, "recipe", m["id"], gpu_key, rid)
        # Step times: the configuration's speed, a run-to-run factor, warm-up steps and per-step noise.
        mfu = min(0.8, base_mfu * speed_of(cfg) / ref_speed * (1.0 if is_ref else rg.uniform(0.93, 1.07)))
        mean_s = tokens / gpus / (mfu * peak / (6.0 * m["n"]))
        noise = rg.uniform(0.01, 0.07)
        elapsed = []
        for k in range(STEPS):
            f = rg.uniform(1.4, 2.6) if k == 0 else rg.uniform(1.0, 1.15) if k < 3 else 1 + rg.gauss(0, noise)
            elapsed.append(max(20, int(round(mean_s * max(f, 0.5) * 10000))))  # units of 0.1 ms, >= 2 ms
        times_s = [float("{:.1f}".format(e / 10.0)) / 1000.0 for e in elapsed]
        score, cv = measure(times_s, tokens, gpus)
        # Losses: the reference's, each within a fraction of a percent, re-drawn until the check passes.
        if is_ref:
            loss_text = ref_loss_text
            conv = None
        else:
            for _ in range(100):
                offset = rg.uniform(-0.002, 0.002)
                loss_text = [printed(x * (1 + offset + rg.uniform(-0.0015, 0.0015))) for x in ref_loss]
                conv = convergence([float(x) for x in loss_text], ref_loss)
                if conv[0] and loss_text != ref_loss_text:
                    break
            else:
                raise SystemExit("could not draw a passing loss curve for {}/{}/{}".format(m["id"], gpu_key, rid))
        grad_norms = [rg.uniform(1.0, 8.0) for _ in range(STEPS)]
        # Clock: the recipes of a pair ran one after another on day0 + j hours; stamps follow the step times.
        launch_ns = int(datetime.datetime(day0.year, day0.month, day0.day, 8, 0, 0,
                                          tzinfo=datetime.timezone.utc).timestamp()) * 10**9
        launch_ns += j * 3600 * 10**9 + rg.randint(0, 1200 * 10**6) * 1000
        startup_us = rg.randint(15 * 10**6, 60 * 10**6)
        start_us = launch_ns // 1000 + startup_us
        jitter = [rg.randint(-300, 300) for _ in range(STEPS)]
        args = run_arguments(base, cfg)
        log, last_us = training_log(m, gpu_key, args, cfg, elapsed, loss_text, grad_norms, start_us, jitter)
        end_ns = (last_us + rg.randint(1 * 10**6, 4 * 10**6)) * 1000 + rg.randint(0, 999)
        gpu_hours = gpus * (float(unix_ns_text(end_ns)) - float(unix_ns_text(launch_ns))) / 3600.0
        claims = {"score": score, "cv": cv, "gpu_hours": gpu_hours}
        if conv:
            claims.update(correlation=conv[1], final=conv[2], failures=conv[3])
        date = datetime.datetime.fromtimestamp(launch_ns // 10**9, datetime.timezone.utc).date().isoformat()
        author = AUTHORS[0] if is_ref else rg.choice(AUTHORS)
        rdir = pair_dir / rid
        (rdir / "evidence").mkdir(parents=True)
        write(rdir / "recipe.yaml",
            recipe_yaml(m, gpu_key, rid, cfg, date, author, None if is_ref else "ref", claims))
        write(rdir / "evidence" / "train.log", log)
        write(rdir / "evidence" / "times.txt",
            "{} rc=0 start={} end={}\n".format(rid, unix_ns_text(launch_ns), unix_ns_text(end_ns)))
        write(rdir / "evidence" / "env.txt", env_txt(gpu["device"]))
        stats["recipes"] += 1
        stats["bytes"] += len(log)


def gpus_yaml(selected):
    out = ["# GPU types (SPEC §3) for the site-build benchmark registry, as in registry/gpus.yaml: AWS EC2",
           "# on-demand, us-east-1, instance price / 8 GPUs, read 2026-09-18. Peaks are dense (no sparsity) BF16.",
           "version: 1", "gpus:"]
    for key, g in selected:
        out.append("  {}:".format(key))
        for field in ("name", "instance", "instance_dollars_per_hour", "dollars_per_gpu_hour", "dense_bf16_tflops",
                      "price_source", "peak_source"):
            v = g[field]
            out.append("    {}: {}".format(field, '"{}"'.format(v) if field.endswith("source") else v))
        out.append("    price_date: 2026-09-18")
        out.append('    device_names: ["{}"]'.format(g["device"]))
    return "\n".join(out) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out_dir", metavar="OUT_DIR", help="folder to write the registry into (must not exist or be empty)")
    p.add_argument("--models", type=int, default=100, help="number of models (default 100)")
    p.add_argument("--gpus", type=int, default=3, help="number of GPU types, 1-3: H100, H200, B200 (default 3)")
    p.add_argument("--recipes", type=int, default=10000,
                   help="recipes in all, spread evenly over the models x GPU types pairs (default 10000, the most "
                        "`openrecipes build` reads)")
    p.add_argument("--seed", type=int, default=1, help="seed of every random choice (default 1)")
    a = p.parse_args(argv)
    if a.models < 1:
        p.error("--models must be at least 1")
    if not 1 <= a.gpus <= len(GPU_TYPES):
        p.error("--gpus must be 1 to {} (H100, H200, B200)".format(len(GPU_TYPES)))
    pairs = a.models * a.gpus
    if a.recipes < pairs:
        p.error("--recipes ({}) must be at least models x gpus ({}): each pair needs its reference recipe"
                .format(a.recipes, pairs))
    if a.recipes > MAX_RECIPES:
        p.error("--recipes must be at most {:,}: `openrecipes build` refuses a larger registry".format(MAX_RECIPES))
    out = Path(a.out_dir)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        p.error("{} exists and is not an empty folder; give a new one".format(out))

    rules = Path(__file__).resolve().parents[2] / "registry" / "rules" / "arguments.yaml"
    if not rules.is_file():
        sys.exit("error: {} not found (the script copies the bundled registry's argument rules)".format(rules))

    t0 = time.monotonic()
    selected = GPU_TYPES[:a.gpus]
    out.mkdir(parents=True, exist_ok=True)
    (out / "models").mkdir()
    (out / "rules").mkdir()
    (out / "recipes").mkdir()
    shutil.copyfile(rules, out / "rules" / "arguments.yaml")
    write(out / "gpus.yaml", gpus_yaml(selected))
    models = [make_model(a.seed, i) for i in range(a.models)]
    for m in models:
        write(out / "models" / (m["id"] + ".yaml"), model_yaml(m))
    base, extra = divmod(a.recipes, pairs)
    stats = {"recipes": 0, "bytes": 0}
    pair_index = 0
    for m in models:
        for gpu_key, gpu in selected:
            count = base + (1 if pair_index < extra else 0)
            write_pair(out, a.seed, m, gpu_key, gpu, count, stats)
            pair_index += 1
    print("{}: {} models x {} GPU types = {} pairs, {} recipes ({} per pair), {:.1f} MB of logs, in {:.1f} s".format(
        out, a.models, a.gpus, pairs, stats["recipes"],
        "{}".format(base) if not extra else "{}-{}".format(base, base + 1),
        stats["bytes"] / 1e6, time.monotonic() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
