#!/usr/bin/env python3
"""A STAND-IN for slime's train.py, used only by the tests of `openrecipes run`'s Ray launch mode (CI has no slime,
Ray or GPU). It trains nothing: it prints what a slime driver started by `ray job submit` would see (its arguments,
PYTHONPATH, RAY_DEDUP_LOGS) and imports the rollout function named by --rollout-function-path the way slime's
load_function does (module path, then attribute), so the test shows that data/ reached the job's PYTHONPATH.
"""
import importlib
import os
import sys


def main():
    args = sys.argv[1:]
    print("[standin slime] argv:", " ".join(args), flush=True)
    print("[standin slime] PYTHONPATH=" + os.environ.get("PYTHONPATH", ""), flush=True)
    print("[standin slime] RAY_DEDUP_LOGS=" + os.environ.get("RAY_DEDUP_LOGS", "(unset)"), flush=True)
    if "--rollout-function-path" in args:
        path = args[args.index("--rollout-function-path") + 1]
        module, _, name = path.rpartition(".")
        fn = getattr(importlib.import_module(module), name)
        print(f"[standin slime] import {path} as generate_rollout function: {fn.__module__}.{fn.__name__}", flush=True)


if __name__ == "__main__":
    main()
