#!/usr/bin/env python3
"""Fits the step-time model's constants (issue 42; docs/step-time-model.md) and prints its accuracy tables.

    /usr/bin/python3 tools/fit_step_time.py build            # rewrites src/layout/step_time_fit.h, prints the tables
    /usr/bin/python3 tools/fit_step_time.py build --check    # exit 1 when the committed header is not the fit's

The rows are tests/data/step_time/fit_rows.jsonl (tools/step_time_rows.py: Megatron-Bridge's published throughput,
Megatron-LM's CI iteration times and the registry's runs); build/step_time_basis gives each row's terms at unit constants
(layout/step_time.h), stage by stage. The prediction is max(Σ device terms, Σ host terms) + Σ once terms, each term its
constant × its basis and each lane's sum that of its longest pipeline stage: the host launches kernels and collectives
ahead of the GPU, so a large model's launches hide behind its GPU work and a small model waits on its host. A term whose basis is work at a datasheet rate (GEMMs and attention at the
peak, bytes over HBM, traffic over the network, EP's and DP's traffic over their links) is pinned at 1, not fitted:
fitted freely, those constants traded against the overheads and a model left out was predicted worse. The others
(small GEMMs' shortfall, NVLink traffic's exposed share, the overheads) minimise the squared relative error of the
predicted step, Σ w (predicted / measured - 1)², over c ≥ 0 (scipy: the linear fit of the sum of every term with
lsq_linear, then least_squares from there), each row weighted 1 / sqrt(rows of its model) so that the CI's many runs
of one small shape do not outweigh the published large models. Rows the reader refuses are listed, not fitted.

Accuracy, per (source, GPU type): rows, mean absolute percentage error of the step time and, for every group of three
or more layouts of one (model, GPU count, global batch, precision), Spearman's rank correlation of predicted and
measured step time (0 for a group whose predictions all tie: no ranking) and whether the predicted fastest layout is
within 5% of the measured fastest. Printed twice: fitted
on every row (in sample), and leave-one-model-out (each model predicted by constants fitted without it: what a model
nobody measured gets). The interval `plan` prints, prediction / (1 + e) to prediction × (1 + e), takes e as the 90th
percentile of the leave-one-model-out ratios (the larger of predicted / measured and measured / predicted, less 1).
"""

import argparse
import json
import math
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
from scipy.optimize import least_squares, lsq_linear
from scipy.stats import spearmanr

ROOT = Path(__file__).resolve().parent.parent
ROWS = ROOT / "tests/data/step_time/fit_rows.jsonl"
HEADER = ROOT / "src/layout/step_time_fit.h"
TERMS = ["gemm_bf16", "gemm_fp8", "gemm_small", "attention", "memory_bound", "nvlink", "network", "expert_parallel",
         "data_parallel",
         "collectives", "layer_overhead", "local_overhead", "moe_overhead", "step_overhead"]
# Terms at a datasheet rate: pinned at 1 (the module's docstring says why).
PINNED = {"gemm_bf16", "gemm_fp8", "attention", "memory_bound", "network", "expert_parallel", "data_parallel"}
# The lanes (layout::step_time_lane): the host's kernel launches and collective calls run ahead of the GPU, so a step
# takes the longer of the two lanes, and then what runs once a step.
HOST = [TERMS.index(t) for t in ("collectives", "layer_overhead", "local_overhead", "moe_overhead")]
ONCE = [TERMS.index(t) for t in ("data_parallel", "step_overhead")]
DEVICE = [k for k in range(len(TERMS)) if k not in HOST + ONCE]


def load(build):
    basis = subprocess.run([str(Path(build) / "step_time_basis"), str(ROWS), str(ROOT / "registry/gpus.yaml")],
                           check=True, capture_output=True, text=True).stdout
    rows = {json.loads(line)["id"]: json.loads(line) for line in ROWS.read_text().splitlines()}
    used, refused = [], []
    for line in basis.splitlines():
        b = json.loads(line)
        (refused if "refused" in b else used).append({**rows[b["id"]], **b})
    return used, refused


def stage_array(rows):
    """The rows' stage bases (layout::step_time_stage_bases) as one array, rows × stages × terms: a row of fewer stages
    repeats its first, which leaves each lane's longest stage as it is."""
    n = max(len(r["stages"]) for r in rows)
    out = np.empty((len(rows), n, len(TERMS)))
    for i, r in enumerate(rows):
        st = np.array(r["stages"])
        out[i, :len(st)] = st
        out[i, len(st):] = st[0]
    return out


def predicted_steps(c, stages):
    """max(the longest stage's Σ device terms, the longest stage's Σ host terms) + the longest stage's Σ once terms, for
    each row of `stages` (rows × stages × terms; layout::step_time_basis and predict_step_time)."""
    device = (stages[:, :, DEVICE] @ c[DEVICE]).max(axis=1)
    host = (stages[:, :, HOST] @ c[HOST]).max(axis=1)
    once = (stages[:, :, ONCE] @ c[ONCE]).max(axis=1)
    return np.maximum(device, host) + once


def assembled(c, r):
    """Row r's terms as layout::step_time_basis assembles them at constants c: each lane's from its longest stage."""
    st = np.array(r["stages"])
    out = np.empty(len(TERMS))
    for lane in (DEVICE, HOST, ONCE):
        out[lane] = st[int(np.argmax(st[:, lane] @ c[lane])), lane]
    return out


def fit(rows):
    per_model = Counter(r["model"] for r in rows)
    stages = stage_array(rows)
    basis = stages.max(axis=1)  # each term's largest stage: the linear start's basis
    measured = np.array([r["step_time_s"] for r in rows])
    w = np.array([1 / math.sqrt(per_model[r["model"]]) for r in rows])
    pinned = np.array([t in PINNED for t in TERMS])

    def constants(free):
        c = np.ones(len(TERMS))
        c[~pinned] = free
        return c

    # Start from the fit of the sum of every term (linear), then take the longer lane (piecewise linear).
    a = basis / measured[:, None] * w[:, None]
    start = lsq_linear(a[:, ~pinned], w - a[:, pinned].sum(axis=1), bounds=(0, np.inf), method="bvls", tol=1e-12).x
    free = least_squares(lambda x: w * (predicted_steps(constants(x), stages) / measured - 1), start + 1e-3,
                         bounds=(0, np.inf), ftol=1e-14, xtol=1e-14, gtol=1e-14).x
    free[free < 1e-9] = 0  # at the bound: the solver stops a hair above it (1e-18), which is no term at all
    return constants(free)


def predict(c, r):
    return float(predicted_steps(c, stage_array([r]))[0])


def sets_pace(c, r, k):
    """Whether term k counts in row r's prediction: a once term always, a lane's term when its lane is the longer."""
    if k in ONCE:
        return True
    b = assembled(c, r)
    device, host = b[DEVICE] @ c[DEVICE], b[HOST] @ c[HOST]
    return (k in HOST) == (host > device)


def table(rows, predicted):
    """Markdown rows per (source, GPU): rows, MAPE, layout groups, median Spearman, best within 5%, and the scatter of
    repeated runs: each row against the median of the rows of its exact setup (model, GPU count, global batch,
    precision, row length, layout), mean absolute percentage. No model of the setup alone gets below that."""
    by = defaultdict(list)
    for r in rows:
        by[(r["source"], r["gpu"])].append(r)
    out = ["| source | GPU | rows | MAPE | same-setup scatter | layout groups (≥3) | Spearman (median) | best within 5% |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    total_err = []
    for (source, gpu), rs in sorted(by.items()):
        errs = [abs(predicted[r["id"]] / r["step_time_s"] - 1) for r in rs]
        total_err += errs
        groups, setups = defaultdict(list), defaultdict(list)
        for r in rs:
            groups[(r["model"], r["gpus"], r["global_batch"], r["precision"], r["row_length"])].append(r)
            setups[(r["model"], r["gpus"], r["global_batch"], r["precision"], r["row_length"], r["layout"])].append(
                r["step_time_s"])
        scatter = np.mean([abs(float(np.median(setups[(r["model"], r["gpus"], r["global_batch"], r["precision"],
                                                       r["row_length"], r["layout"])])) / r["step_time_s"] - 1)
                           for r in rs])
        rhos, best = [], 0
        big = [g for g in groups.values() if len({x["layout"] for x in g}) >= 3]
        for g in big:
            guesses = [predicted[x["id"]] for x in g]
            rho = spearmanr(guesses, [x["step_time_s"] for x in g]).correlation if len(set(guesses)) > 1 else 0.0
            rhos.append(rho)
            chosen = min(g, key=lambda x: predicted[x["id"]])
            best += chosen["step_time_s"] <= 1.05 * min(x["step_time_s"] for x in g)
        rho_text = f"{float(np.median(rhos)):.2f}" if rhos else "–"
        best_text = f"{best} of {len(big)}" if big else "–"
        out.append(f"| {source} | {gpu} | {len(rs)} | {100 * np.mean(errs):.1f}% | {100 * scatter:.1f}% | {len(big)} | {rho_text} | "
                   f"{best_text} |")
    return "\n".join(out), total_err


def header(c, rows, error90, lomo_mape):
    lines = ["// Written by tools/fit_step_time.py: do not edit by hand; refit instead (docs/step-time-model.md).",
             f"// Fitted on {len(rows)} rows of tests/data/step_time/fit_rows.jsonl: "
             + ", ".join(f"{n} {k}" for k, n in sorted(Counter(r["source"] for r in rows).items())) + ".",
             "// Each constant multiplies its term (layout::StepTimeTerm); the rows named beside it are those where",
             "// that term is at least 10% of the predicted step (the rows that set it).",
             "#pragma once", "", "#include <array>", "", '#include "layout/step_time.h"', "",
             "namespace openrecipes::layout::fit {", "",
             "inline constexpr std::array<double, kStepTimeTerms> kStepTimeConstants = {"]
    for k, name in enumerate(TERMS):
        setting = [r for r in rows if c[k] * assembled(c, r)[k] >= 0.1 * predict(c, r) and sets_pace(c, r, k)]
        models = sorted({r["model"] for r in setting})
        rows_word = "row" if len(setting) == 1 else "rows"
        where = f"{len(setting)} {rows_word}: {', '.join(models)}" if setting else "no row"
        lines.append(f"    {c[k]:.6g},  // {name} (pinned: at its datasheet rate)" if name in PINNED else
                     f"    {c[k]:.6g},  // {name} ({where})")
    lines += ["};", f"// plan's interval: prediction / (1 + e) to prediction × (1 + e) held 90% of the rows of models left out"
              f" of the fit (their mean error {100 * lomo_mape:.1f}%).", f"inline constexpr double kStepTimeError90 = {error90:.4f};", "",
              "}  // namespace openrecipes::layout::fit", ""]
    # Laid out as the project's .clang-format lays out C++ (scripts/check-format holds every file to it).
    return subprocess.run(["clang-format", "--style=file", f"--assume-filename={HEADER}"], input="\n".join(lines),
                          check=True, capture_output=True, text=True, cwd=ROOT).stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    rows, refused = load(args.build)
    c = fit(rows)
    in_sample = {r["id"]: predict(c, r) for r in rows}
    left_out = {}
    for model in sorted({r["model"] for r in rows}):
        rest = [r for r in rows if r["model"] != model]
        cm = fit(rest)
        for r in rows:
            if r["model"] == model:
                left_out[r["id"]] = predict(cm, r)
    text_in, _ = table(rows, in_sample)
    text_out, errs = table(rows, left_out)
    # The interval [prediction / (1 + e), prediction × (1 + e)] held 90% of the left-out rows' measured steps.
    ratios = [max(left_out[r["id"]] / r["step_time_s"], r["step_time_s"] / left_out[r["id"]]) - 1 for r in rows]
    error90 = float(np.percentile(ratios, 90))
    new = header(c, rows, error90, float(np.mean(errs)))
    if args.check:  # to 1e-4 relative: another compiler may round the last digits of the basis differently
        def numbers(text):
            body = text[text.index("kStepTimeConstants"):]
            return [float(x) for x in re.findall(r"^\s+([0-9.eE+-]+),", body, re.M)] + \
                [float(re.search(r"kStepTimeError90 = ([0-9.]+);", body).group(1))]
        old, fresh = numbers(HEADER.read_text()), numbers(new)
        if len(old) != len(fresh) or any(abs(a - b) > 1e-4 * max(1.0, abs(b)) for a, b in zip(old, fresh)):
            print(f"{HEADER} is not the fit of {ROWS}: run tools/fit_step_time.py {args.build}", file=sys.stderr)
            return 1
        return 0
    HEADER.write_text(new)
    print("Fitted on every row:\n\n" + text_in + "\n\nLeave one model out:\n\n" + text_out)
    print(f"\n{len(refused)} rows refused by the reader:", file=sys.stderr)
    for r in refused:
        print(f"  {r['refused'][:160]}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
