#!/usr/bin/env python3
"""On the device (one H200; torch, torchrun, g++; no network): the planner's ground truth.

Runs every line of configs.txt as a real Megatron-LM d98e8a64 pretrain_gpt.py (--transformer-impl local, Megatron's
mock data, 3 iterations with Megatron's own memory report after each: --log-memory-interval 1) and keeps each run's
whole output, whose "[Rank 0] (after N iterations) memory (MB) | ... | max allocated: X" lines are the measured peak
and whose "Theoretical memory footprints" line is Megatron's own estimate. Runs share the GPU: a run starts while the
GiB booked for the running ones (configs.txt's second column) stays under BUDGET_GIB. torch's max allocated is per
process, so a neighbour does not change a run's peak.

Needs build/device-megatron/Megatron-LM (tests/run/device/prepare.sh; carry build/device-megatron). Writes
$OUT/memory-runs.tar.gz: logs/<name>.log, one per run, and runs.tsv (name, exit status, wall seconds).
"""
import os
import shlex
import subprocess
import sys
import tarfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
MEGATRON = ROOT / "build/device-megatron/Megatron-LM"
HERE = Path(__file__).resolve().parent
BUDGET_GIB = float(os.environ.get("BUDGET_GIB", "128"))
RUN_TIMEOUT = float(os.environ.get("RUN_TIMEOUT", "300"))

COMMON = (
    "--bf16 --lr 1e-5 --min-lr 1e-6 --lr-decay-style cosine --weight-decay 0.1 --clip-grad 1.0 "
    "--attention-dropout 0 --hidden-dropout 0 --transformer-impl local "
    "--no-rope-fusion --no-gradient-accumulation-fusion --no-masked-softmax-fusion --no-persist-layer-norm "
    "--mock-data --tokenizer-type NullTokenizer --vocab-size 151936 --max-position-embeddings 40960 "
    "--position-embedding-type rope --rotary-base 1000000 --normalization RMSNorm --norm-epsilon 1e-6 "
    "--qk-layernorm --swiglu --disable-bias-linear --group-query-attention --kv-channels 128 "
    "--train-iters 3 --log-interval 1 --log-memory-interval 1 --eval-iters 0 --eval-interval 100000"
)
SHAPES = {
    "q": "--hidden-size 1024 --ffn-hidden-size 3072 --num-attention-heads 16 --num-query-groups 8",
    "dq": "--hidden-size 2048 --ffn-hidden-size 6144 --num-attention-heads 32 --num-query-groups 4 "
    "--untie-embeddings-and-output-weights",
    "moe": "--hidden-size 2048 --ffn-hidden-size 6144 --num-attention-heads 32 --num-query-groups 4 "
    "--untie-embeddings-and-output-weights --num-experts 128 --moe-router-topk 8 --moe-ffn-hidden-size 768 "
    "--moe-token-dispatcher-type alltoall --moe-router-load-balancing-type aux_loss --moe-aux-loss-coeff 1e-3",
}


def read_configs():
    out = []
    for line in (HERE / "configs.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, gib, shape, *flags = line.split()
        mbs = int(flags[flags.index("--micro-batch-size") + 1])
        out.append((name, float(gib), shape, flags + ["--global-batch-size", str(2 * mbs)]))
    return out


def main():
    out = Path(os.environ.get("OUT", "/tmp/memory-out"))
    logs = out / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    # Megatron compiles its dataset helpers on first use; once here, so that parallel runs do not race on it.
    subprocess.run(["make", "-C", str(MEGATRON / "megatron/core/datasets")], check=True)
    env = dict(os.environ, OMP_NUM_THREADS="2", PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1",
               CUDA_DEVICE_MAX_CONNECTIONS="1")
    queue = read_configs()
    only = os.environ.get("ONLY")
    if only:
        queue = [c for c in queue if c[0] in only.split(",")]
    running = {}  # name -> (process, gib, start, log file)
    done = []
    port = 29500
    start_all = time.time()
    while queue or running:
        booked = sum(r[1] for r in running.values())
        while queue and (not running or booked + queue[0][1] <= BUDGET_GIB):
            name, gib, shape, flags = queue.pop(0)
            port += 1
            cmd = ["torchrun", "--nproc-per-node", "1", "--master-port", str(port), str(MEGATRON / "pretrain_gpt.py")]
            cmd += shlex.split(SHAPES[shape]) + shlex.split(COMMON) + flags
            f = open(logs / f"{name}.log", "w")
            f.write("# " + " ".join(shlex.quote(c) for c in cmd) + "\n")
            f.flush()
            p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, env=env, cwd=str(MEGATRON))
            running[name] = (p, gib, time.time(), f)
            booked += gib
            print(f"start {name} ({gib} GiB booked, {booked} in all)", flush=True)
        time.sleep(2)
        for name, (p, gib, t0, f) in list(running.items()):
            rc = p.poll()
            if rc is None and time.time() - t0 > RUN_TIMEOUT:
                p.kill()
                rc = p.wait()
            if rc is not None:
                f.close()
                del running[name]
                done.append((name, rc, time.time() - t0))
                print(f"done {name} rc={rc} {time.time() - t0:.0f} s", flush=True)
    (out / "runs.tsv").write_text("".join(f"{n}\t{rc}\t{s:.1f}\n" for n, rc, s in done))
    print(f"all done in {time.time() - start_all:.0f} s", flush=True)
    with tarfile.open(out / "memory-runs.tar.gz", "w:gz") as t:
        t.add(logs, arcname="logs")
        t.add(out / "runs.tsv", arcname="runs.tsv")
    for p in logs.iterdir():
        p.unlink()
    logs.rmdir()


if __name__ == "__main__":
    sys.exit(main())
