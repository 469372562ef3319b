#!/usr/bin/python3
# Oracle for src/rows/pack/permutation (SPEC §1.4): numpy's own SeedSequence, PCG64 and Generator.permutation.
# Usage: numpy_permutation.py perm N:SEED...   -> one JSON line per case: sha256 of the permutation as
#                                                  little-endian uint32, length, first and last 3 elements
#        numpy_permutation.py raw SEED K       -> SeedSequence pool/state words, PCG64 state, K raw 64-bit draws
import hashlib
import json
import sys

import numpy as np


def perm(n, seed):
    p = np.random.default_rng(seed).permutation(n)
    assert p.dtype == np.int64
    return {
        "n": n,
        "seed": str(seed),
        "sha256": hashlib.sha256(p.astype("<u4").tobytes()).hexdigest(),
        "head": [int(v) for v in p[:3]],
        "tail": [int(v) for v in p[-3:]] if n else [],
        "numpy": np.__version__,
    }


def raw(seed, k):
    ss = np.random.SeedSequence(seed)
    bg = np.random.PCG64(ss)
    st = bg.state["state"]
    out = {
        "pool": [int(v) for v in ss.pool],
        "state32": [int(v) for v in ss.generate_state(8, np.uint32)],
        "state64": [str(int(v)) for v in ss.generate_state(4, np.uint64)],
        "pcg_state": [str(st["state"] >> 64), str(st["state"] & (2**64 - 1)),
                      str(st["inc"] >> 64), str(st["inc"] & (2**64 - 1))],
        "raw64": [str(int(v)) for v in bg.random_raw(k)],
    }
    return out


def main():
    mode = sys.argv[1]
    if mode == "perm":
        for arg in sys.argv[2:]:
            n, seed = arg.split(":")
            print(json.dumps(perm(int(n), int(seed))))
    elif mode == "raw":
        print(json.dumps(raw(int(sys.argv[2]), int(sys.argv[3]))))
    else:
        sys.exit("unknown mode " + mode)


if __name__ == "__main__":
    main()
