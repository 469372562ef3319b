#!/usr/bin/env python3
"""A STAND-IN for Megatron-LM's pretrain_gpt.py, used only by the tests of `openrecipes run` and `submit` (CI has no
GPU). It trains nothing. It REPLAYS a real Megatron-LM log (OPENRECIPES_STANDIN_REPLAY, e.g. a bundled recipe's
evidence/train.log):

- the argument dump: the replayed run's resolved arguments, with every argument this process was given on its command
  line (`--micro-batch-size 2` -> micro_batch_size) and world_size / data_parallel_size from torchrun's environment put
  in, printed in Megatron's own format on the first node only (Megatron prints it on rank 0);
- for each iteration 1..train_iters, the replayed run's iteration line (loss, learning rate, grad norm, counters) after
  sleeping the replayed step time x OPENRECIPES_STANDIN_TIME_SCALE (default 0.1), with the timestamp and
  `elapsed time per iteration (ms)` replaced by the time it actually took, on the last node only (Megatron prints
  its step lines on the last rank);
- its working folder, first ("stand-in cwd: <folder>"), which `run` sets to the node's folder;
- OPENRECIPES_STANDIN_DIE_AT=k makes it crash after iteration k (a stack trace and exit status 1), as a run that dies
  mid-way.

- a model of step time and memory by layout, for the tests of `openrecipes tune`: OPENRECIPES_STANDIN_STEP_MS
  ("MBS:MS,..." by --micro-batch-size, e.g. "2:400,4:250,8:180") replaces the replayed step time with that one (before
  the time scale); OPENRECIPES_STANDIN_PEAK_MIB ("MBS:MIB,...") prints Megatron's memory line with that max allocated
  after iteration 1; OPENRECIPES_STANDIN_MEMORY_MIB is the GPU's memory: a micro-batch whose peak is above it dies at
  iteration 1 with PyTorch's out-of-memory error, as a real run does. OPENRECIPES_STANDIN_SWAP_SCALE
  ("ARG:FACTOR,...") scales the step time by FACTOR when the run sets argument ARG to True (a same-math swap that is
  faster or slower).

So the log it prints is a real run's losses at real, measured (scaled-down) step times, in Megatron's line format.
"""
import datetime
import os
import re
import sys
import time

HEADER = "------------------------ arguments ------------------------"
FOOTER = "-------------------- end of arguments ---------------------"
ITERATION = re.compile(r"^ \[([^\]]+)\] iteration\s+(\d+)/\s*(\d+) \|(.*)$")
ELAPSED = re.compile(r"elapsed time per iteration \(ms\): [0-9.]+")


def same_value(printed, given):
    """True when the command-line value is the one the dump prints (1e-5 is 1e-05, as argparse would parse it)."""
    if printed == given:
        return True
    try:
        return float(printed) == float(given)
    except ValueError:
        return False


def main():
    print("stand-in cwd: " + os.getcwd(), flush=True)  # the folder run starts the trainer in (its node's)
    replay = open(os.environ["OPENRECIPES_STANDIN_REPLAY"], encoding="utf-8").read().splitlines()
    scale = float(os.environ.get("OPENRECIPES_STANDIN_TIME_SCALE", "0.1"))
    die_at = int(os.environ.get("OPENRECIPES_STANDIN_DIE_AT", "0"))
    first, last = replay.index(HEADER), replay.index(FOOTER)
    dump = {}
    for line in replay[first + 1:last]:
        m = re.match(r"^  (\S+) \.* ?(.*)$", line)  # a name of 48 characters or more has no dots
        if m:
            dump[m.group(1)] = m.group(2)
    args = sys.argv[1:]
    for i, a in enumerate(args):
        if not a.startswith("--"):
            continue
        key = a[2:].replace("-", "_")
        if key in dump:
            given = args[i + 1] if i + 1 < len(args) and not args[i + 1].startswith("--") else "True"
            if not same_value(dump[key], given):
                dump[key] = given
    world = int(os.environ.get("WORLD_SIZE", "1"))
    dump["world_size"] = str(world)
    replica = 1
    for k in ("tensor_model_parallel_size", "pipeline_model_parallel_size", "context_parallel_size"):
        replica *= int(dump.get(k, "1"))
    dump["data_parallel_size"] = str(world // replica)
    node, nnodes = int(os.environ.get("NODE_RANK", "0")), int(os.environ.get("NNODES", "1"))
    if node == 0:
        print("using world size: {}, data-parallel size: {}".format(world, world // replica), flush=True)
        print(HEADER)
        for k in sorted(dump, key=str.lower):
            print("  {} {} {}".format(k, "." * (48 - len(k)), dump[k]))
        print(FOOTER, flush=True)
    records = {}
    for line in replay:
        m = ITERATION.match(line)
        if m:
            records[int(m.group(2))] = m.group(4)
    train_iters = int(dump["train_iters"])
    mbs = int(dump.get("micro_batch_size", "1"))

    def by_mbs(name):
        table = dict(kv.split(":") for kv in os.environ.get(name, "").split(",") if kv)
        return float(table[str(mbs)]) if str(mbs) in table else None

    model_ms, peak = by_mbs("OPENRECIPES_STANDIN_STEP_MS"), by_mbs("OPENRECIPES_STANDIN_PEAK_MIB")
    limit = float(os.environ.get("OPENRECIPES_STANDIN_MEMORY_MIB", "0"))
    swap_scale = 1.0
    for kv in os.environ.get("OPENRECIPES_STANDIN_SWAP_SCALE", "").split(","):
        if kv and dump.get(kv.split(":")[0]) == "True":
            swap_scale *= float(kv.split(":")[1])
    for it in range(1, train_iters + 1):
        if it not in records:
            sys.exit(f"stand-in: the replayed log has no iteration {it}")
        replayed_ms = float(re.search(r"elapsed time per iteration \(ms\): ([0-9.]+)", records[it]).group(1))
        if model_ms is not None:
            replayed_ms = model_ms
        replayed_ms *= swap_scale
        if it == 1 and peak is not None and limit and peak > limit:
            print("Traceback (most recent call last):\n  File \"pretrain_gpt.py\", line 1, in <module>\n"
                  "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (stand-in: peak %.0f MiB "
                  "above OPENRECIPES_STANDIN_MEMORY_MIB %.0f)" % (peak, limit), file=sys.stderr, flush=True)
            sys.exit(1)
        t0 = time.monotonic()
        time.sleep(replayed_ms / 1000.0 * scale)
        took_ms = (time.monotonic() - t0) * 1000.0
        stamp = datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S.%f")
        rest = ELAPSED.sub(f"elapsed time per iteration (ms): {took_ms:.1f}", records[it])
        if node == nnodes - 1:
            print(f" [{stamp}] iteration {it:8d}/{train_iters:8d} |{rest}", flush=True)
            if it == 1 and peak is not None:
                print("[Rank 0] (after 1 iterations) memory (MB) | allocated: %.2f | max allocated: %.2f | "
                      "reserved: %.2f | max reserved: %.2f" % (peak / 2, peak, peak * 1.1, peak * 1.1), flush=True)
        if it == die_at:
            print("Traceback (most recent call last):\n  File \"pretrain_gpt.py\", line 1, in <module>\n"
                  "RuntimeError: stand-in failure injected after iteration %d (OPENRECIPES_STANDIN_DIE_AT)" % it,
                  file=sys.stderr, flush=True)
            sys.exit(1)


if __name__ == "__main__":
    main()
