#!/usr/bin/env python3
"""The component-test runner of `openrecipes component-test` (SPEC §4.2), for the training image.

For each same-math swap of a plan (written by `openrecipes component-test`), it builds the recipe's Megatron-LM model
cut to a few layers on one GPU twice from one seed, once with the reference's setting of the swap and once with the
recipe's, and writes the raw output `build` reads as the recipe's evidence:

  python3 component_test.py run PLAN.json

`run` checks what each test needs, then starts one process per setting (`variant`), so that whatever a setting does
to the process (a JIT fuser turned off, a kernel library loaded) stays in that process:

  1. the reference setting: builds the model, runs forward and backward twice on the same random tokens (the second
     run measures the run-to-run difference), then once more with the code path traced; saves the weights, the
     inputs, the per-token loss and every gradient;
  2. the recipe's setting: builds the model, loads the reference build's weights (the two settings must build the
     same parameters), runs the same passes, and compares: per tensor the largest absolute difference and the
     reference's largest magnitude. It writes <output_dir>/<test>.json.

A test whose two builds have the same module types and trace the same code is `no effect`, never `passed`.

Exit status: 0 every test ran (its verdict is in its file), 3 a test cannot run here (it needs something this machine
lacks, or the two commands do not differ in its arguments), 1 a test failed to build or run, 2 a bad plan.
Needs Python 3.10+, torch, and Megatron-LM on PYTHONPATH (the plan's megatron_dir is put first on sys.path).
"""

import argparse
import hashlib
import importlib.util
import json
import math
import os
import socket
import subprocess
import sys
import time

FORMAT = "openrecipes-component-test"
FORMAT_VERSION = 1
PLAN_VERSION = 1
METRIC = "per tensor: max|recipe - reference| / max|reference|; worst over the loss and every gradient"
# Model fields the raw output states as the component's shape, from the TransformerConfig the runner built.
SHAPE_FIELDS = [
    ("hidden_size", "hidden_size"),
    ("ffn_hidden_size", "ffn_hidden_size"),
    ("num_attention_heads", "num_attention_heads"),
    ("num_query_groups", "num_query_groups"),
    ("kv_channels", "kv_channels"),
    ("num_layers", "num_layers"),
    ("num_experts", "num_moe_experts"),
    ("moe_ffn_hidden_size", "moe_ffn_hidden_size"),
    ("top_k", "moe_router_topk"),
]
MOE_FIELDS = {"num_experts", "moe_ffn_hidden_size", "top_k"}  # stated only for a model with experts
MAX_LISTED = 40  # code-path and module differences listed in the raw output (all are counted)


class RunnerError(Exception):
    """A test that cannot run or failed to build; `status` is the exit status it maps to."""

    def __init__(self, message, status=1):
        super().__init__(message)
        self.status = status


def runner_sha256():
    """sha256 of this file: the raw output names the runner that produced it."""
    with open(os.path.abspath(__file__), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def missing_needs(needs, find=importlib.util.find_spec):
    """The items of `needs` ("module" or "a|b": either) that nothing importable satisfies, in order."""
    missing = []
    for item in needs:
        found = False
        for name in item.split("|"):
            try:
                found = found or find(name.strip()) is not None
            except (ImportError, ValueError):
                pass
        if not found:
            missing.append(item)
    return missing


def load_plan(path):
    """The plan `openrecipes component-test` wrote, checked. Raises RunnerError(status 2)."""
    try:
        with open(path, encoding="utf-8") as f:
            plan = json.load(f)
    except (OSError, ValueError) as e:
        raise RunnerError(f"{path}: not a plan openrecipes component-test wrote ({e})", 2)
    if not isinstance(plan, dict) or plan.get("format_version") != PLAN_VERSION:
        raise RunnerError(f"{path}: format_version is not {PLAN_VERSION}; write the plan again", 2)
    for key in ("megatron_dir", "framework", "recipe", "reference", "recipe_argv", "reference_argv", "output_dir",
                "tests"):
        if key not in plan:
            raise RunnerError(f"{path}: no '{key}'; write the plan again with openrecipes component-test", 2)
    for t in plan["tests"]:
        for key in ("id", "arguments", "layers", "needs", "compares", "bound"):
            if key not in t:
                raise RunnerError(f"{path}: a test without '{key}'", 2)
    return plan


# ---------------------------------------------------------------------------------------------------- comparison


def tensor_error(reference, recipe):
    """Errors of one tensor pair (torch tensors of one shape): the largest absolute difference, the reference's largest
    magnitude, and their ratio (0 when both are 0; inf when only the difference is not). Computed in float64."""
    if tuple(reference.shape) != tuple(recipe.shape):
        raise RunnerError(f"the two settings give tensors of shapes {list(reference.shape)} and {list(recipe.shape)}")
    a = reference.detach().double()
    b = recipe.detach().double()
    diff = (b - a).abs().max().item() if a.numel() else 0.0
    ref_max = a.abs().max().item() if a.numel() else 0.0
    if not (math.isfinite(diff) and math.isfinite(ref_max)):  # a NaN or inf in either setting fails, written as inf
        return {"max_abs_error": diff if math.isfinite(diff) else math.inf,
                "reference_max_abs": ref_max if math.isfinite(ref_max) else math.inf, "error": math.inf}
    return {"max_abs_error": diff, "reference_max_abs": ref_max, "error": relative(diff, ref_max)}


def relative(diff, ref_max):
    """diff / ref_max, 0 for 0 / 0 and inf for x / 0 (the C++ build recomputes it with the same rule)."""
    if ref_max == 0:
        return 0.0 if diff == 0 else math.inf
    return diff / ref_max


def compare(reference, recipe):
    """Rows of the per-tensor comparison of two {name: (kind, tensor)} maps with the same names. A name one side lacks,
    or a gradient only one side has, is an error (the two settings did not build the same parameters)."""
    if set(reference) != set(recipe):
        only_ref = sorted(set(reference) - set(recipe))[:5]
        only_rec = sorted(set(recipe) - set(reference))[:5]
        raise RunnerError(f"the two settings compute different tensors (reference only: {only_ref}; recipe only: "
                          f"{only_rec})")
    rows = []
    for name in sorted(reference, key=lambda n: (reference[n][0] != "output", n)):
        kind, a = reference[name]
        _, b = recipe[name]
        row = {"name": name, "kind": kind, "shape": list(a.shape), "dtype": str(a.dtype).replace("torch.", "")}
        row.update(tensor_error(a, b))
        rows.append(row)
    return rows


def verdict(changed, worst, bound):
    """no effect / passed / failed, as SPEC §4.2 decides it."""
    if not changed:
        return "no effect"
    return "passed" if worst <= bound else "failed"


def effect(reference_signature, recipe_signature):
    """Whether the swap changed anything: module types (name -> type) or the traced code path differ."""
    out = {"changed": False}
    for key in ("modules", "code"):
        a, b = set(reference_signature[key]), set(recipe_signature[key])
        out[key] = {
            "reference_count": len(a),
            "recipe_count": len(b),
            "reference_only": sorted(a - b)[:MAX_LISTED],
            "recipe_only": sorted(b - a)[:MAX_LISTED],
            "differ": len(a ^ b),
        }
        out["changed"] = out["changed"] or a != b
    return out


class CodeTracer:
    """Records every Python function and builtin called on this thread while active ("file:qualname" with paths
    shortened to the package, and "builtin:name"): the code path of a forward and backward."""

    def __init__(self, roots):
        self.roots = sorted({os.path.abspath(r) + os.sep for r in roots if r}, key=len, reverse=True)
        self.seen = set()

    def _short(self, path):
        if "torchinductor" in path:  # code torch.compile generated: its file name is a hash of the graph
            return "<torch.compile generated>"
        for r in self.roots:
            if path.startswith(r):
                return path[len(r):]
        return path

    def _profile(self, frame, event, arg):
        if event == "call":
            code = frame.f_code
            self.seen.add(f"{self._short(code.co_filename)}:{getattr(code, 'co_qualname', code.co_name)}")
        elif event == "c_call":
            self.seen.add("builtin:" + (getattr(arg, "__qualname__", None) or getattr(arg, "__name__", repr(arg))))

    def __enter__(self):
        sys.setprofile(self._profile)
        return self

    def __exit__(self, *exc):
        sys.setprofile(None)
        return False


# ---------------------------------------------------------------------------------------------------- Megatron-LM


def _module_roots():
    roots = [p for p in sys.path if p and os.path.isdir(p)]
    return roots


def parse_megatron(argv, framework, layers):
    """Megatron-LM's own parse and validation of `argv` (the words after the training script), on one GPU: every
    parallel size 1, `layers` layers, one micro-batch a step, no checkpoint loaded or saved."""
    from megatron.training.arguments import parse_args, validate_args

    saved = sys.argv
    sys.argv = ["pretrain_gpt.py"] + list(argv)
    try:
        args = parse_args(None, ignore_unknown_args=framework != "megatron-lm")
    finally:
        sys.argv = saved
    one_gpu = {
        "tensor_model_parallel_size": 1, "pipeline_model_parallel_size": 1, "context_parallel_size": 1,
        "expert_model_parallel_size": 1, "expert_tensor_parallel_size": 1, "sequence_parallel": False,
        "num_layers_per_virtual_pipeline_stage": None, "num_virtual_stages_per_pipeline_rank": None,
        "decoder_first_pipeline_num_layers": None, "decoder_last_pipeline_num_layers": None,
        "pipeline_model_parallel_layout": None, "tp_comm_overlap": False, "overlap_grad_reduce": False,
        "overlap_param_gather": False, "use_distributed_optimizer": False, "load": None, "save": None,
        "pretrained_checkpoint": None, "num_layers": layers, "global_batch_size": None, "rampup_batch_size": None,
        "mtp_num_layers": None,
    }
    for k, v in one_gpu.items():
        if hasattr(args, k):
            setattr(args, k, v)
    args.global_batch_size = args.micro_batch_size
    validate_args(args, {"tokenizer_type": "GPT2BPETokenizer"})
    return args


def init_megatron(args):
    """Global args, torch.distributed on one GPU and Megatron's parallel state (no dataset helpers compiled)."""
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    if "MASTER_PORT" not in os.environ:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            os.environ["MASTER_PORT"] = str(s.getsockname()[1])
    from megatron.training import initialize
    from megatron.training.global_vars import set_global_variables

    if getattr(args, "padded_vocab_size", None) is None and args.vocab_size is not None:
        from megatron.core.tokenizers.utils.build_tokenizer import vocab_size_with_padding

        args.padded_vocab_size = vocab_size_with_padding(args.vocab_size, args, logging_enabled=False)
    set_global_variables(args, build_tokenizer=getattr(args, "padded_vocab_size", None) is None)
    initialize._compile_dependencies = lambda: None  # the dataset index helpers: no dataset is read
    initialize.initialize_megatron()


def build_model(args):
    """The GPT model the recipe's pretrain_gpt.py would build, on the GPU, wrapped for its precision."""
    import torch
    from megatron.core import tensor_parallel

    from gpt_builders import gpt_builder
    from model_provider import model_provider

    torch.manual_seed(args.seed)
    tensor_parallel.model_parallel_cuda_manual_seed(args.seed)
    model = model_provider(gpt_builder, pre_process=True, post_process=True)
    model.cuda(torch.cuda.current_device())
    inner = model
    if args.fp16 or args.bf16:
        from megatron.core.transformer.module import Float16Module

        model = Float16Module(inner.config, inner)
    return model, inner


def make_inputs(args, seed):
    """Random tokens and labels [micro_batch, seq_length], positions, and the causal mask, from `seed`."""
    import torch

    g = torch.Generator().manual_seed(seed)
    b, s = args.micro_batch_size, args.seq_length
    vocab = args.vocab_size or args.padded_vocab_size
    tokens = torch.randint(0, vocab, (b, s), generator=g)
    labels = torch.randint(0, vocab, (b, s), generator=g)
    return {"tokens": tokens, "labels": labels}


def forward_backward(model, args, inputs):
    """One forward and backward: the per-token loss [b, s] and every parameter's gradient, by name."""
    import torch
    from megatron.core import tensor_parallel

    dev = torch.cuda.current_device()
    tokens = inputs["tokens"].to(dev)
    labels = inputs["labels"].to(dev)
    b, s = tokens.shape
    positions = torch.arange(s, device=dev).unsqueeze(0).expand(b, s)
    mask = (torch.tril(torch.ones((s, s), device=dev)) < 0.5).view(1, 1, s, s)
    for p in model.parameters():
        p.grad = None
    torch.manual_seed(args.seed)
    tensor_parallel.model_parallel_cuda_manual_seed(args.seed)
    loss = model(tokens, positions, mask, labels=labels)
    loss.float().mean().backward()
    torch.cuda.synchronize()
    out = {"loss": ("output", loss.detach().clone())}
    for name, p in model.named_parameters():
        if p.grad is not None:
            out["grad:" + name] = ("gradient", p.grad.detach().clone())
        elif getattr(p, "main_grad", None) is not None:
            out["grad:" + name] = ("gradient", p.main_grad.detach().clone())
    return out


def signature(model, args, inputs):
    """Module types by name, and the code path of one traced forward and backward."""
    modules = [f"{name or '(model)'}: {type(m).__module__}.{type(m).__qualname__}" for name, m in model.named_modules()]
    with CodeTracer(_module_roots()) as tracer:
        forward_backward(model, args, inputs)
    return {"modules": modules, "code": sorted(tracer.seen)}


def versions(megatron_dir):
    import torch

    out = {"python": sys.version.split()[0], "torch": torch.__version__, "cuda": torch.version.cuda or "none"}
    try:
        import transformer_engine

        out["transformer_engine"] = getattr(transformer_engine, "__version__", "unknown")
    except ImportError:
        out["transformer_engine"] = "none"
    try:
        commit = subprocess.run(["git", "-C", megatron_dir, "rev-parse", "HEAD"], capture_output=True, text=True,
                                timeout=30)
        out["megatron_lm_commit"] = commit.stdout.strip() if commit.returncode == 0 else "unknown"
    except (OSError, subprocess.SubprocessError):
        out["megatron_lm_commit"] = "unknown"
    return out


def shape_of(config, args):
    out = {}
    moe = getattr(config, "num_moe_experts", None) is not None
    for key, attr in SHAPE_FIELDS:
        v = getattr(config, attr, None)
        if v is not None and (moe or key not in MOE_FIELDS):
            out[key] = int(v)
    out["seq_length"] = int(args.seq_length)
    out["micro_batch_size"] = int(args.micro_batch_size)
    out["vocab_size"] = int(args.padded_vocab_size)
    return out


def precision_of(args):
    return "fp8" if getattr(args, "fp8", None) else "bf16" if args.bf16 else "fp16" if args.fp16 else "fp32"


def run_variant(plan, test, setting, work):
    """One setting of one test, in its own process (see the module's doc)."""
    # One process on one GPU, whatever launcher started the runner; cuBLAS with a fixed workspace, so that its
    # kernels are deterministic (set before CUDA starts).
    os.environ.update({"RANK": "0", "WORLD_SIZE": "1", "LOCAL_RANK": "0", "CUBLAS_WORKSPACE_CONFIG": ":4096:8"})
    import torch

    # Deterministic kernels (scatter-add, index-add and the like in their deterministic form): the same setting run
    # twice must give the same numbers, or the comparison measures run-to-run noise (an MoE's routing turns a
    # rounding difference into whole tokens sent to another expert). Only the order of reductions changes, not what
    # is computed; an op without a deterministic form still runs (warn_only), and the repeat shows its noise.
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.backends.cudnn.deterministic = True
    sys.path.insert(0, plan["megatron_dir"])
    recipe_args = parse_megatron(plan["recipe_argv"], plan["framework"], test["layers"])
    reference_args = parse_megatron(plan["reference_argv"], plan["framework"], test["layers"])
    swap = []
    for name in test["arguments"]:
        if not hasattr(recipe_args, name) or not hasattr(reference_args, name):
            continue
        a, b = getattr(reference_args, name), getattr(recipe_args, name)
        if str(a) != str(b):
            swap.append({"argument": name, "reference": str(a), "recipe": str(b)})
        if setting == "reference":
            setattr(recipe_args, name, a)
    args = recipe_args
    init_megatron(args)
    model, inner = build_model(args)
    ref_file = os.path.join(work, "reference.pt")
    if setting == "reference":
        inputs = make_inputs(args, args.seed)
        first = forward_backward(model, args, inputs)
        second = forward_backward(model, args, inputs)
        repeat = max(tensor_error(first[n][1], second[n][1])["max_abs_error"] for n in first)
        sig = signature(model, args, inputs)
        torch.save({"weights": {k: v.detach().cpu() if torch.is_tensor(v) else v for k, v in inner.state_dict().items()},
                    "inputs": inputs, "tensors": {k: (kind, t.cpu()) for k, (kind, t) in first.items()},
                    "signature": sig, "repeat": repeat, "swap": swap}, ref_file)
        return
    ref = torch.load(ref_file, weights_only=False)
    state = inner.state_dict()
    if set(state) != set(ref["weights"]) or any(tuple(state[k].shape) != tuple(ref["weights"][k].shape)
                                                for k in state if torch.is_tensor(state[k])):
        raise RunnerError("the two settings build different parameters (names or shapes), so the recipe's build "
                          "cannot take the reference's weights; this swap needs a weight mapping the runner lacks")
    inner.load_state_dict(ref["weights"], strict=True)
    mine = forward_backward(model, args, ref["inputs"])
    sig = signature(model, args, ref["inputs"])
    dev = torch.cuda.current_device()
    rows = compare({k: (kind, t.to(dev)) for k, (kind, t) in ref["tensors"].items()}, mine)
    worst = max(rows, key=lambda r: r["error"])
    eff = effect(ref["signature"], sig)
    raw = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "runner_sha256": runner_sha256(),
        "recipe": plan["recipe"],
        "reference": plan["reference"],
        "test": test["id"],
        "swap": swap,
        "compares": test["compares"],
        "bound": test["bound"],
        "metric": METRIC,
        "shape": shape_of(inner.config, args),
        "precision": precision_of(args),
        "seed": int(args.seed),
        "versions": versions(plan["megatron_dir"]),
        "gpu": torch.cuda.get_device_name(dev),
        "effect": eff,
        "deterministic_algorithms": True,
        "repeat_max_abs_diff": ref["repeat"],
        "tensors": rows,
        "worst_error": worst["error"],
        "worst_tensor": worst["name"],
        "verdict": verdict(eff["changed"], worst["error"], test["bound"]),
    }
    write_json(os.path.join(plan["output_dir"], test["id"] + ".json"), raw)


def write_json(path, value):
    """Writes `value` whole or not at all (a temp file renamed into place). Non-finite numbers as strings."""

    def finite(x):
        if isinstance(x, float) and not math.isfinite(x):
            return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
        if isinstance(x, dict):
            return {k: finite(v) for k, v in x.items()}
        if isinstance(x, list):
            return [finite(v) for v in x]
        return x

    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(finite(value), f, indent=1, sort_keys=False)
        f.write("\n")
    os.replace(tmp, path)


# ---------------------------------------------------------------------------------------------------- orchestration


def run(plan_file):
    plan = load_plan(plan_file)
    status = 0
    for test in plan["tests"]:
        tid = test["id"]
        missing = missing_needs(test["needs"])
        if missing:
            print(f"component test {tid}: cannot run here: needs {', '.join(missing)} (not importable by "
                  f"{sys.executable})", flush=True)
            status = max(status, 3)
            continue
        work = os.path.join(plan["output_dir"], ".work-" + tid)
        os.makedirs(work, exist_ok=True)
        failed = False
        for setting in ("reference", "recipe"):
            log = os.path.join(plan["output_dir"], f"{tid}.{setting}.log")
            start = time.time()
            with open(log, "w", encoding="utf-8") as out:
                rc = subprocess.run([sys.executable, os.path.abspath(__file__), "variant", plan_file, "--test", tid,
                                     "--setting", setting, "--work", work], stdout=out, stderr=subprocess.STDOUT).returncode
            if rc != 0:
                tail = _tail(log)
                print(f"component test {tid}: the {setting} setting failed (exit {rc}; log {log}):\n{tail}", flush=True)
                status = max(status, 3 if rc == 3 else 1)
                failed = True
                break
            print(f"component test {tid}: {setting} setting done in {time.time() - start:.1f} s", flush=True)
        for f in os.listdir(work):
            os.remove(os.path.join(work, f))
        os.rmdir(work)
        if failed:
            continue
        with open(os.path.join(plan["output_dir"], tid + ".json"), encoding="utf-8") as f:
            raw = json.load(f)
        if not raw["swap"]:
            os.remove(os.path.join(plan["output_dir"], tid + ".json"))
            print(f"component test {tid}: cannot run here: the two commands resolve {', '.join(test['arguments'])} "
                  "to the same values, so there is no swap to test", flush=True)
            status = max(status, 3)
            continue
        print(f"component test {tid}: {raw['verdict']} (worst error {raw['worst_error']:.4g} in "
              f"{raw['worst_tensor']}, bound {raw['bound']:g})", flush=True)
    return status


def _tail(path, lines=15):
    with open(path, encoding="utf-8", errors="replace") as f:
        return "".join(f.readlines()[-lines:])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="mode", required=True)
    r = sub.add_parser("run", help="run every test of a plan")
    r.add_argument("plan")
    v = sub.add_parser("variant", help="one setting of one test (started by run)")
    v.add_argument("plan")
    v.add_argument("--test", required=True)
    v.add_argument("--setting", choices=["reference", "recipe"], required=True)
    v.add_argument("--work", required=True)
    a = p.parse_args(argv)
    try:
        if a.mode == "run":
            return run(a.plan)
        plan = load_plan(a.plan)
        tests = [t for t in plan["tests"] if t["id"] == a.test]
        if not tests:
            raise RunnerError(f"{a.plan}: no test {a.test}", 2)
        try:
            run_variant(plan, tests[0], a.setting, a.work)
        except ImportError as e:
            raise RunnerError(f"needs {e.name or e} (ImportError: {e})", 3)
        return 0
    except RunnerError as e:
        print(f"component_test.py: error: {e}", file=sys.stderr, flush=True)
        return e.status


if __name__ == "__main__":
    sys.exit(main())
