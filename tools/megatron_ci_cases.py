#!/usr/bin/python3
"""Megatron-LM's functional-test training runs as a table of measured peaks (the planner's ground truth at scale).

Usage (standard library and PyYAML only):

    /usr/bin/python3 tools/megatron_ci_cases.py /path/to/Megatron-LM > tests/data/megatron_ci/cases.jsonl

The checkout must be at d98e8a64 (the commit every row was read from; pass --any-commit to read another and say so in
the output's "commit"). For every GPT, MoE and Mixtral test case of tests/functional_tests/test_cases/{gpt,moe,mixtral}/
that a CI recipe (tests/test_utils/recipes/<platform>/*.yaml, GRPO and inference recipes left out) runs on a platform
whose golden values the case has (golden_values_<environment>_<platform>.json for dev_dgx_h100, dev_dgx_a100 and
lts_dgx_a100), one JSON line:

    case         "<family>/<test case>"
    environment  "dev" or "lts" (the container: dev is the newer stack)
    platform     "dgx_h100" or "dgx_a100"
    nodes, gpus_per_node, gpus   from the recipe (spec, overridden in nested products), gpus = nodes x gpus_per_node;
                 a case whose golden values for a platform no product schedules now takes its h100/ recipe's GPUs
    env          ENV_VARS as written
    arguments    MODEL_ARGS rendered to argv words as tests/functional_tests/shell_test_utils/_run_training.sh does
                 (true: the flag alone; "": left out; [a b]: the words inside; a value with a space, '|', '(' or ')':
                 one word), ${VARIABLES} left unexpanded
    steps        the steps the golden values record
    peak_bytes   the largest mem-max-allocated-bytes over those steps: the peak of the rank that writes tensorboard,
                 world_size - 1 (megatron/training/global_vars.py _set_tensorboard_writer), so the last pipeline stage
    peak_step    the step it was first reached at
    iteration_time_s  the median iteration-time after the first three recorded steps (warm-up), null when fewer

Rows are sorted by (case, environment, platform); the output is the same bytes for the same checkout.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys

import yaml

PINNED_COMMIT = "d98e8a64"
FAMILIES = ("gpt", "moe", "mixtral")
TARGETS = (("dev", "dgx_h100"), ("dev", "dgx_a100"), ("lts", "dgx_a100"))
WARMUP_STEPS = 3


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, text=True).stdout


def listed(value):
    """A recipe field that may be a scalar or a list, as a list."""
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def expand_products(spec, products):
    """Every (test_case, environment, platform, nodes, gpus) a recipe's products name, nested overrides applied."""
    out = []

    def walk(base, items):
        for item in items:
            here = dict(base)
            here.update({k: v for k, v in item.items() if k != "products"})
            if "products" in item:
                walk(here, item["products"])
                continue
            for case in listed(here.get("test_case")):
                for env in listed(here.get("environment")):
                    for platform in listed(here.get("platforms")):
                        out.append((case, env, platform, int(here.get("nodes", 1)), int(here.get("gpus", 1)),
                                    here.get("model")))

    walk({k: spec.get(k) for k in ("nodes", "gpus", "platforms", "environment", "model")}, products)
    return out


def recipe_runs(repo):
    """(family, case, environment, platform) -> (nodes, gpus per node) from every training recipe. A case is also keyed
    (family, case, None, <platform folder>) by its first product there: the GPUs of a platform whose golden values the
    case keeps while no product schedules it there now (the h100/ folder's recipes run on dgx_a100 and dgx_h100 alike,
    8 GPUs a node)."""
    runs = {}
    root = os.path.join(repo, "tests/test_utils/recipes")
    for platform_dir in sorted(os.listdir(root)):
        folder = os.path.join(root, platform_dir)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".yaml") or "inference" in name or "grpo" in name:
                continue
            with open(os.path.join(folder, name)) as f:
                recipe = yaml.safe_load(f)
            spec = recipe.get("spec", {})
            for case, env, platform, nodes, gpus, model in expand_products(spec, recipe.get("products", [])):
                if model in FAMILIES:
                    runs.setdefault((model, case, env, platform), (nodes, gpus))
                    runs.setdefault((model, case, None, platform_dir), (nodes, gpus))
    return runs


def render_value(key, value):
    """One MODEL_ARGS entry as argv words, by _run_training.sh's rules (values read as their YAML text)."""
    if value == "":
        return []
    if value in ("true", "True", "TRUE"):
        return [key]
    value = value.strip()
    if re.fullmatch(r"\[[^\]]+\]", value):
        return [key, *value[1:-1].split()]
    return [key, value]  # one word, with or without a space, '|', '(' or ')' (those are quoted whole)


def model_args(config_text):
    config = yaml.load(config_text, Loader=yaml.BaseLoader)
    args = config.get("MODEL_ARGS") or {}
    # A merge key (<<: *anchor) brings the anchor's entries in at its place, as yq's explode does; an entry the mapping
    # sets itself wins.
    merged = []
    for key, value in args.items():
        if key != "<<":
            merged.append((key, value))
            continue
        for source in value if isinstance(value, list) else [value]:
            merged += [(k, v) for k, v in source.items() if k not in args]
    words = []
    for key, value in merged:
        if isinstance(value, list):  # a YAML sequence: yq prints it in flow form, the [..] rule then splits it
            value = "[" + " ".join(value) + "]"
        words += render_value(key, value)
    return words, dict(config.get("ENV_VARS") or {})


def golden(path):
    """The measured numbers of a golden-values file; None when it records no memory (an empty file: two at d98e8a64)."""
    with open(path) as f:
        text = f.read()
    if not text.strip():
        return None
    values = json.loads(text)
    mem = values.get("mem-max-allocated-bytes", {}).get("values", {})
    steps = sorted((int(s), float(v)) for s, v in mem.items() if v not in ("nan", None))
    if not steps:
        return None
    peak_step, peak = max(steps, key=lambda sv: (sv[1], -sv[0]))
    times = values.get("iteration-time", {}).get("values", {})
    timed = [float(v) for s, v in sorted(times.items(), key=lambda sv: int(sv[0])) if v not in ("nan", None)]
    return {
        "steps": len(steps),
        "peak_bytes": int(peak),
        "peak_step": peak_step,
        "iteration_time_s": round(statistics.median(timed[WARMUP_STEPS:]), 5) if len(timed) > WARMUP_STEPS else None,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("megatron", help="a Megatron-LM git checkout")
    parser.add_argument("--any-commit", action="store_true", help="read a checkout at another commit")
    o = parser.parse_args()
    commit = git(o.megatron, "rev-parse", "HEAD").strip()
    if not commit.startswith(PINNED_COMMIT) and not o.any_commit:
        sys.exit(f"{o.megatron} is at {commit[:10]}, not {PINNED_COMMIT} (fix: git checkout {PINNED_COMMIT}, "
                 "or pass --any-commit)")
    runs = recipe_runs(o.megatron)
    rows = []
    for family in FAMILIES:
        folder = os.path.join(o.megatron, "tests/functional_tests/test_cases", family)
        for case in sorted(os.listdir(folder)):
            config = os.path.join(folder, case, "model_config.yaml")
            if not os.path.isfile(config):
                continue
            with open(config) as f:
                words, env = model_args(f.read())
            for environment, platform in TARGETS:
                values = os.path.join(folder, case, f"golden_values_{environment}_{platform}.json")
                run = runs.get((family, case, environment, platform), runs.get((family, case, None, "h100")))
                if run is None or not os.path.isfile(values):
                    continue
                measured = golden(values)
                if measured is None:
                    continue
                nodes, per_node = run
                rows.append({"case": f"{family}/{case}", "environment": environment, "platform": platform,
                             "nodes": nodes, "gpus_per_node": per_node, "gpus": nodes * per_node, "env": env,
                             "arguments": words, **measured, "commit": commit[:10]})
    rows.sort(key=lambda r: (r["case"], r["environment"], r["platform"]))
    for r in rows:
        print(json.dumps(r, sort_keys=False, ensure_ascii=True))


if __name__ == "__main__":
    main()
