#!/usr/bin/env python3
"""Fits the step-time model's constants (issue 42; docs/step-time-model.md) and prints its accuracy tables.

    /usr/bin/python3 tools/fit_step_time.py build            # rewrites src/layout/step_time_fit.h, prints the tables
    /usr/bin/python3 tools/fit_step_time.py build --check    # exit 1 when the committed header is not the fit's

The rows are tests/data/step_time/fit_rows.jsonl (tools/step_time_rows.py: Megatron-Bridge's published throughput and
Megatron-LM's CI iteration times); build/step_time_basis gives each row's terms at unit constants (layout/
step_time.h). The constants minimise the squared relative error of the predicted step, Σ w (Σ_k c_k basis_k / measured
- 1)², over c ≥ 0 (scipy's bounded least squares: c ≥ 0, and c ≥ 1 for the terms at a
peak rate: GEMMs and attention cannot beat their peak, nor TP, CP and PP traffic between nodes the network), each row weighted 1 / sqrt(rows of its model) so that the CI's
many runs of one small shape do not outweigh the published large models. Rows the reader refuses are listed, not
fitted.

Accuracy, per (source, GPU type): rows, mean absolute percentage error of the step time and, for every group of three
or more layouts of one (model, GPU count, global batch, precision), Spearman's rank correlation of predicted and
measured step time and whether the predicted fastest layout is within 5% of the measured fastest. Printed twice: fitted
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
from scipy.optimize import lsq_linear
from scipy.stats import spearmanr

ROOT = Path(__file__).resolve().parent.parent
ROWS = ROOT / "tests/data/step_time/fit_rows.jsonl"
HEADER = ROOT / "src/layout/step_time_fit.h"
TERMS = ["gemm_bf16", "gemm_fp8", "gemm_small", "attention", "memory_bound", "nvlink", "network", "expert_parallel",
         "data_parallel",
         "collectives", "layer_overhead", "local_overhead", "moe_overhead", "step_overhead"]
# Work at a peak rate cannot run faster than the peak, nor TP, CP and PP traffic between nodes faster than the network:
# those constants are at least 1. Inside a node Transformer Engine overlaps TP's collectives with the GEMMs (Bridge's
# recipes turn it on), CP's ring with attention and PP's sends with other micro-batches; EP and DP traffic hide behind
# other work too: those are at least 0.
AT_LEAST_ONE = {"gemm_bf16", "gemm_fp8", "attention", "network"}


def load(build):
    basis = subprocess.run([str(Path(build) / "step_time_basis"), str(ROWS), str(ROOT / "registry/gpus.yaml")],
                           check=True, capture_output=True, text=True).stdout
    rows = {json.loads(line)["id"]: json.loads(line) for line in ROWS.read_text().splitlines()}
    used, refused = [], []
    for line in basis.splitlines():
        b = json.loads(line)
        (refused if "refused" in b else used).append({**rows[b["id"]], **b})
    return used, refused


def fit(rows):
    per_model = Counter(r["model"] for r in rows)
    a = np.array([[x / r["step_time_s"] for x in r["basis"]] for r in rows])
    w = np.array([1 / math.sqrt(per_model[r["model"]]) for r in rows])
    lower = [1.0 if t in AT_LEAST_ONE else 0.0 for t in TERMS]
    return lsq_linear(a * w[:, None], w, bounds=(lower, np.inf), method="bvls", tol=1e-12).x


def predict(c, r):
    return float(np.dot(c, r["basis"]))


def table(rows, predicted):
    """Markdown rows per (source, GPU): rows, MAPE, layout groups, median Spearman, best within 5%."""
    by = defaultdict(list)
    for r in rows:
        by[(r["source"], r["gpu"])].append(r)
    out = ["| source | GPU | rows | MAPE | layout groups (≥3) | Spearman (median) | best within 5% |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    total_err = []
    for (source, gpu), rs in sorted(by.items()):
        errs = [abs(predicted[r["id"]] / r["step_time_s"] - 1) for r in rs]
        total_err += errs
        groups = defaultdict(list)
        for r in rs:
            groups[(r["model"], r["gpus"], r["global_batch"], r["precision"], r["row_length"])].append(r)
        rhos, best = [], 0
        big = [g for g in groups.values() if len({x["layout"] for x in g}) >= 3]
        for g in big:
            rho = spearmanr([predicted[x["id"]] for x in g], [x["step_time_s"] for x in g]).correlation
            rhos.append(rho)
            chosen = min(g, key=lambda x: predicted[x["id"]])
            best += chosen["step_time_s"] <= 1.05 * min(x["step_time_s"] for x in g)
        rho_text = f"{float(np.median(rhos)):.2f}" if rhos else "–"
        best_text = f"{best} of {len(big)}" if big else "–"
        out.append(f"| {source} | {gpu} | {len(rs)} | {100 * np.mean(errs):.1f}% | {len(big)} | {rho_text} | "
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
        setting = [r for r in rows if c[k] * r["basis"][k] >= 0.1 * predict(c, r)]
        models = sorted({r["model"] for r in setting})
        rows_word = "row" if len(setting) == 1 else "rows"
        where = f"{len(setting)} {rows_word}: {', '.join(models)}" if setting else "no row"
        lines.append(f"    {c[k]:.6g},  // {name} ({where})")
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
