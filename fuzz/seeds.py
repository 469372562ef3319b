#!/usr/bin/python3
"""Builds each fuzz target's seed corpus (fuzz/README.md) into OUT/<target>/, from ../shared/fixtures (read in place,
never copied into the checkout) and the project's own inputs: the bundled registry's evidence and recipes, the test
data, and tests/fuzz/<target>/ (each target's small seeds and the regression inputs fuzzing found). Large real inputs
are cut to what fuzzing can iterate on: tokenizer.json files are shrunk to their first ~1,000 tokens (with the merges
among them, every other field kept).

usage: fuzz/seeds.py OUT [FIXTURES]   (FIXTURES defaults to ../shared/fixtures beside the checkout)"""
import glob
import json
import os
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    out = sys.argv[1]
    fixtures = sys.argv[2] if len(sys.argv) == 3 else os.path.join(os.path.dirname(ROOT), "shared", "fixtures")
    have_fixtures = os.path.isdir(fixtures)
    seeds = {}

    def add(target, name, data):
        if isinstance(data, str):
            data = data.encode("utf-8")
        seeds.setdefault(target, {})[name] = data

    def add_files(target, pattern, base, limit=1 << 20):
        for path in sorted(glob.glob(os.path.join(base, pattern), recursive=True)):
            if os.path.isfile(path) and os.path.getsize(path) <= limit:
                add(target, os.path.relpath(path, base).replace("/", "_"), open(path, "rb").read())

    registry = os.path.join(ROOT, "registry")
    for log in ("recipes/**/evidence/train.log",):
        for t in ("megatron_log", "bridge_log", "megatron_args"):
            add_files(t, log, registry)
    add_files("megatron_log", "tests/registry/data/**/*.log", ROOT)
    add_files("megatron_memory", "recipes/**/evidence/train.log", registry)
    add_files("megatron_memory", "tests/data/memory/*.log", ROOT)
    add_files("versions", "recipes/**/evidence/env.txt", registry)
    add_files("versions", "recipes/**/evidence/versions.txt", registry)
    add_files("component_output", "recipes/**/evidence/component-tests/*.json", registry)
    add_files("tune_search", "recipes/**/evidence/search.json", registry)
    add_files("scheduler_times", "recipes/**/evidence/times.txt", registry)
    add_files("scheduler_times", "recipes/**/evidence/scontrol.txt", registry)
    for path in sorted(glob.glob(os.path.join(registry, "recipes/**/recipe.yaml"), recursive=True)):
        name = os.path.basename(os.path.dirname(path))
        text = open(path, encoding="utf-8").read().replace(f"id: {name}\n", "id: fuzz\n", 1)
        for t in ("recipe_yaml", "recipe_page"):
            add(t, f"{name}.yaml", text)
    # command_check: each bundled recipe's command, NUL, its run's argument dump (the log holding it).
    for path in sorted(glob.glob(os.path.join(registry, "recipes/**/recipe.yaml"), recursive=True)):
        text = open(path, encoding="utf-8").read()
        log = os.path.join(os.path.dirname(path), "evidence", "train.log")
        if "command: |\n" in text and os.path.isfile(log):
            block = text.split("command: |\n", 1)[1]
            lines = []
            for line in block.splitlines():
                if not line.startswith("  "):
                    break
                lines.append(line[2:])
            add("command_check", os.path.basename(os.path.dirname(path)) + ".txt",
                "\n".join(lines).encode() + b"\0" + open(log, "rb").read())
    # training_command: Megatron-LM's CI runs as commands (tests/data/megatron_ci/cases.jsonl), one of each case.
    seen_cases = set()
    for line in open(os.path.join(ROOT, "tests/data/megatron_ci/cases.jsonl"), encoding="utf-8"):
        run = json.loads(line)
        if run["case"] in seen_cases:
            continue
        seen_cases.add(run["case"])
        words = ['"%s"' % w if "${" in w else "'" + w.replace("'", "'\\''") + "'" for w in run["arguments"]]
        add("training_command", run["case"].replace("/", "_") + ".sh",
            f"torchrun --nproc-per-node {run['gpus_per_node']} --nnodes {run['nodes']} pretrain_gpt.py "
            + " ".join(words) + "\n")
    for path in sorted(glob.glob(os.path.join(ROOT, "tests/run/device/drafts/*.yaml"))):
        name = os.path.splitext(os.path.basename(path))[0]
        add("recipe_yaml", f"draft-{name}.yaml",
            open(path, encoding="utf-8").read().replace(f"id: {name}\n", "id: fuzz\n", 1))

    if have_fixtures:
        for t in ("megatron_log", "megatron_args"):
            add_files(t, "runs/megatron-h200/*.log", fixtures)
            add_files(t, "logs/*.log", fixtures)
        add_files("versions", "runs/megatron-h200/env.txt", fixtures)
        add_files("scheduler_times", "runs/megatron-h200/times.txt", fixtures)
        add_files("golden_values", "golden_values/*.golden.json", fixtures)
        add_files("config_json", "configs/*/config.json", fixtures)
        lines = open(os.path.join(fixtures, "tulu3/sft_sample.jsonl"), "rb").read().splitlines()
        for i, line in enumerate(lines):
            add("jsonl_line", f"tulu3-{i:03d}.json", line)
        for k in (1, 5):
            add("source_jsonl", f"tulu3-first{k}.jsonl", b"\n".join(lines[:k]) + b"\n")
        messages = json.dumps(json.loads(lines[0])["messages"], ensure_ascii=False)
        for path in sorted(glob.glob(os.path.join(fixtures, "tokenizers/**/*.jinja"), recursive=True)):
            add("chat_template", os.path.basename(path), open(path, "rb").read() + b"\0" + messages.encode())
        for name in ("qwen3", "llama3", "deepseek_v3"):
            tok = json.load(open(os.path.join(fixtures, "tokenizers", name, "tokenizer.json"), encoding="utf-8"))
            add("tokenizer_json", f"{name}-mini.json", json.dumps(shrink_tokenizer(tok), ensure_ascii=False))

    for target in sorted(os.listdir(os.path.join(ROOT, "tests", "fuzz"))):
        add_files(target, "*", os.path.join(ROOT, "tests", "fuzz", target))
    for target, files in seeds.items():
        folder = os.path.join(out, target)
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        for name, data in files.items():
            with open(os.path.join(folder, name), "wb") as f:
                f.write(data)
    print(" ".join(f"{t}:{len(f)}" for t, f in sorted(seeds.items())))


def shrink_tokenizer(tok, keep=1000):
    """The tokenizer with its first `keep` vocabulary ids and the merges among them (left, right and result kept)."""
    model = tok["model"]
    vocab = {t: i for t, i in model["vocab"].items() if i < keep}
    merges = []
    for m in model["merges"]:
        left, right = m.split(" ", 1) if isinstance(m, str) else m
        if left in vocab and right in vocab and left + right in vocab:
            merges.append(m)
    model["vocab"], model["merges"] = vocab, merges
    return tok


if __name__ == "__main__":
    main()
