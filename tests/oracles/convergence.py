#!/usr/bin/env python3
"""Independent oracle for the convergence check (SPEC §4.3), written from the rule's description with numpy:
reads JSON lines {"cur": [...], "ref": [...]} (the 20 per-step losses of each arm) on stdin and prints one JSON
line per case: passed, r, final, pointwise, outliers, failed (upstream test names)."""
import json
import sys

import numpy as np


def check(cur, ref):
    cur = np.asarray(cur, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    skip = int(len(cur) * 0.20)
    cur, ref = cur[skip:], ref[skip:]
    failed = []
    r = float(np.corrcoef(cur, ref)[0, 1])
    if not (r >= 0.95):
        failed.append("correlation")
    tol = np.where(ref > 2.0, 0.10, np.where(ref > 0.5, 0.05, 0.02))
    rel = np.where(ref != 0, np.abs(cur - ref) / np.where(ref != 0, np.abs(ref), 1.0), np.abs(cur))
    pointwise = int(np.sum(rel > tol))
    if pointwise / len(cur) > 0.10:
        failed.append("point_wise_tolerance")
    final = float(abs(cur[-1] - ref[-1]) / abs(ref[-1])) if ref[-1] != 0 else float(abs(cur[-1]))
    if final > 0.05:
        failed.append("final_loss")
    res = cur - ref
    outliers = int(np.sum(np.abs(res - res.mean()) > 3.0 * res.std()))
    if outliers / len(cur) > 0.10:
        failed.append("outliers")
    return {"passed": not failed, "r": r, "final": final, "pointwise": pointwise, "outliers": outliers,
            "failed": failed, "points": int(len(cur))}


for line in sys.stdin:
    if line.strip():
        case = json.loads(line)
        print(json.dumps(check(case["cur"], case["ref"])))
