"""Shared pieces of the tests of `openrecipes run` and `submit` (tests/run/test_*.py): a scratch copy of the bundled
registry (stand-in runs never enter the bundled one), the stand-in trainer (tests/run/standin/: torchrun and
Megatron-LM's pretrain_gpt.py replaying a bundled recipe's real log; see their docstrings), and the binary.

The replayed log is the bundled recipe mbs2's own evidence/train.log (a real Megatron-LM run on one H200), so a
stand-in run of mbs2 has mbs2's losses at measured, scaled-down step times.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
RECIPES = os.path.join("recipes", "qwen3-0.6b", "H200")
ITERATION = re.compile(r"^ \[([^\]]+)\] iteration\s+(\d+)/\s*(\d+) \|.*elapsed time per iteration \(ms\): ([0-9.]+) "
                       r"\|.*lm loss: ([0-9.E+-]+) \|")


def binary():
    b = os.environ.get("OPENRECIPES_BIN") or os.path.join(REPO, "build", "openrecipes")
    if not os.access(b, os.X_OK):
        raise unittest.SkipTest("no openrecipes binary (set OPENRECIPES_BIN)")
    return b


def sha256_file(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def iterations(path):
    """{iteration: (elapsed ms, loss)} of a Megatron log."""
    out = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = ITERATION.match(line.rstrip("\n"))
            if m:
                out[int(m.group(2))] = (float(m.group(4)), float(m.group(5)))
    return out


BUNDLED_COMMIT = "d98e8a64ddf34856e74b24714e3bedb2f5a39553"  # the Megatron-LM commit the bundled recipes pin


def git_checkout(folder):
    """Makes `folder` a git checkout of one commit (its files as they are) and returns the commit: `run` checks that a
    checkout is at the commit its recipe pins, so a stand-in checkout is a real one of its own commit."""
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.com", GIT_AUTHOR_DATE="2026-01-01T00:00:00Z",
               GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "stand-in"]):
        subprocess.run(["git", "-C", folder, *args], check=True, env=env, capture_output=True)
    return subprocess.run(["git", "-C", folder, "rev-parse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()


class Scratch:
    """A temp folder with a copy of the bundled registry, the stand-in Megatron-LM checkout (a git checkout of its own
    commit, self.commit, which the scratch copy of mbs2 pins in its recipe and shows in its versions evidence, so that
    the recipe the tests run is at its checkout's commit) and an environment whose PATH starts with the stand-in
    torchrun."""

    def __init__(self, scale="0.2"):
        self.root = tempfile.mkdtemp(prefix="openrecipes-run-test-")
        self.registry = os.path.join(self.root, "registry")
        shutil.copytree(os.path.join(REPO, "registry"), self.registry)
        self.megatron = os.path.join(self.root, "megatron")
        shutil.copytree(os.path.join(HERE, "standin", "megatron"), self.megatron)
        self.commit = git_checkout(self.megatron)
        self.pin("mbs2")
        self.env = dict(os.environ)
        self.env["PATH"] = os.path.join(HERE, "standin", "bin") + os.pathsep + self.env.get("PATH", "")
        self.env["OPENRECIPES_STANDIN_REPLAY"] = self.recipe("mbs2", "evidence", "train.log")
        self.env["OPENRECIPES_STANDIN_TIME_SCALE"] = scale
        self.env.pop("OPENRECIPES_STANDIN_DIE_AT", None)

    def recipe(self, name, *more):
        return os.path.join(self.registry, RECIPES, name, *more)

    def pin(self, name, commit=None):
        """Makes recipe `name` of the scratch registry pin `commit` (default: the stand-in checkout's) wherever it pins
        the bundled Megatron-LM commit, in its recipe.yaml and in its versions evidence."""
        for rel in ("recipe.yaml", os.path.join("evidence", "env.txt")):
            path = self.recipe(name, rel)
            if os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text.replace(BUNDLED_COMMIT, commit or self.commit))

    def run(self, *args, env=None):
        """openrecipes with `args` (argument vector, no shell), in the scratch folder: (exit code, stdout, stderr)."""
        p = subprocess.run([binary(), *args], capture_output=True, text=True, cwd=self.root, env=env or self.env,
                           timeout=600, check=False)
        return p.returncode, p.stdout, p.stderr

    def cleanup(self):
        shutil.rmtree(self.root, ignore_errors=True)


def read_run(run_dir):
    with open(os.path.join(run_dir, "run.json"), encoding="utf-8") as f:
        return json.load(f)


def score_by_hand(log_path, first=5, last=19, tokens_per_step=32 * 2048, gpus=1):
    """SPEC §2 by hand: tokens over steps 5-19 (1-based iterations 6-20) / (GPUs x the sum of their step times)."""
    it = iterations(log_path)
    steps = [it[s + 1][0] / 1000.0 for s in range(first, last + 1)]
    return tokens_per_step * len(steps) / (gpus * sum(steps))


def read(path):
    """A text file's whole content."""
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def rehash(run_dir):
    """Recomputes run.json's sha256 and size of every listed file, as anyone can after editing the folder (run.json is
    a manifest, not a signature): what submit must still refuse is then up to its other checks."""
    path = os.path.join(run_dir, "run.json")
    with open(path, encoding="utf-8") as f:
        record = json.load(f)
    for entry in record["files"]:
        full = os.path.join(run_dir, entry["path"])
        entry["sha256"] = sha256_file(full)
        entry["bytes"] = os.path.getsize(full)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(record, f, indent=2)


def edit_json(path, change):
    """Loads a JSON file, applies change(obj) and writes it back."""
    with open(path, encoding="utf-8") as f:
        obj = json.load(f)
    change(obj)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2)
