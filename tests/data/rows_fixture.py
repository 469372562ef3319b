"""The real rows the tests of data/ read: `openrecipes rows build` of ../shared/fixtures/tulu3/sft_sample.jsonl (100
real Tulu 3 conversations) with the Qwen3 tokenizer at L = 512, 81 rows, plus its Megatron export with the same stem
(rows.bin / rows.idx beside rows.manifest.json), and a second build with seed 1 (other rows: the "tampered build").

Built once per test run into a temp folder with the binary $OPENRECIPES_BIN (CTest sets it), or taken ready-made from
$OPENRECIPES_TEST_ROWS (the device machine has no openrecipes binary: tests/data/device/run.sh carries a folder
built here). Tests skip when neither is there or ../shared/fixtures is missing (set OPENRECIPES_FIXTURES); under CI=true
they fail instead, since a skip there would hide a lost check.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "data"))

ROW_LENGTH, ROWS = 512, 81  # 81 full rows of 512 tokens in the fixture's stream (223 tokens dropped)

_built = None


def fixtures_dir():
    d = os.environ.get("OPENRECIPES_FIXTURES") or os.path.join(os.path.dirname(REPO), "shared", "fixtures")
    return d if os.path.isdir(d) else None


def binary():
    b = os.environ.get("OPENRECIPES_BIN") or os.path.join(REPO, "build", "openrecipes")
    return b if os.access(b, os.X_OK) else None


def run_cli(*args):
    """Runs the openrecipes binary (argument vector, no shell): (exit code, stdout, stderr)."""
    p = subprocess.run([binary(), *args], capture_output=True, text=True, check=False)
    return p.returncode, p.stdout, p.stderr


def build_into(root):
    """Builds the two rows sets into root/seed0 and root/seed1 (each rows.parquet, rows.manifest.json, rows.bin,
    rows.idx). Raises when a command fails."""
    fx = fixtures_dir()
    for seed in (0, 1):
        d = os.path.join(root, f"seed{seed}")
        os.makedirs(d)
        for args in (["rows", "build", "--source", os.path.join(fx, "tulu3", "sft_sample.jsonl"), "--tokenizer",
                      os.path.join(fx, "tokenizers", "qwen3"), "--row-length", str(ROW_LENGTH), "--seed", str(seed),
                      "--quiet", "-o", os.path.join(d, "rows.parquet")],
                     ["rows", "export", os.path.join(d, "rows.parquet"), "--format", "megatron", "-o",
                      os.path.join(d, "rows")]):
            rc, out, err = run_cli(*args)
            if rc != 0:
                raise RuntimeError(f"openrecipes {' '.join(args)} failed ({rc}): {err}")


def skip_or_fail(why):
    """Skips the calling test, or fails it under CI=true (what CI services set)."""
    if os.environ.get("CI") == "true":
        raise AssertionError(why + ", which CI=true requires")
    raise unittest.SkipTest(why)


def built_rows():
    """The folder holding seed0/ and seed1/; skips the test when the rows cannot be had (fails under CI=true)."""
    global _built
    ready = os.environ.get("OPENRECIPES_TEST_ROWS")
    if ready:
        return ready
    if fixtures_dir() is None:
        skip_or_fail("needs ../shared/fixtures (set OPENRECIPES_FIXTURES to point elsewhere)")
    if binary() is None:
        skip_or_fail("needs the openrecipes binary (set OPENRECIPES_BIN) or OPENRECIPES_TEST_ROWS")
    if _built is None:
        root = tempfile.mkdtemp(prefix="openrecipes-data-test-")
        try:
            build_into(root)
        except BaseException:
            shutil.rmtree(root, ignore_errors=True)
            raise
        _built = root
    return _built


def cleanup():
    global _built
    if _built is not None:
        shutil.rmtree(_built, ignore_errors=True)
        _built = None


if __name__ == "__main__":  # prepare a folder for the device: rows_fixture.py OUT_DIR
    build_into(sys.argv[1])
