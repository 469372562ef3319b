#!/usr/bin/python3
"""Megatron-Bridge's published training throughput as a table: every row of docs/performance-summary.md and
docs/performance-summary-archive.md at a Megatron-Bridge commit, one JSON object a line.

Usage (a Megatron-Bridge git checkout or bare mirror, the commit, the output):
  /usr/bin/python3 tools/bridge_performance_rows.py /path/to/Megatron-Bridge 067f987 \
      > tests/data/step_time/bridge_rows.jsonl

Standard library only; the files are read with `git show COMMIT:PATH`. Each row keeps where it came from (file and
line), its container release ("26.08"), task ("pre-training", "SFT", "LoRA"), model as written and the note in its
name's parentheses ("w/o MTP", "tokendrop"), system ("DGX-H100"), GPUs, precision, GBS, MBS, sequence length, FSDP,
TP, PP, CP, VP, EP, GA (null where the table has no column or says n/a), tokens/s/GPU and model TFLOP/s/GPU. A cell
"a (b)" holds two runs: the row is written twice, `variant` "listed" with the first values and "parenthesised" with
the values in parentheses where a cell has them (the page: "different quantization granularities", or another
layout), the other cells shared.
"""

import json
import re
import subprocess
import sys

FILES = ("docs/performance-summary.md", "docs/performance-summary-archive.md")
COLUMNS = {  # header cell -> field
    "System": "system", "Model": "model", "#-GPUs": "gpus", "Precision": "precision", "GBS": "gbs", "MBS": "mbs",
    "Sequence Length": "seq_length", "FSDP": "fsdp", "TP": "tp", "PP": "pp", "CP": "cp", "VP": "vp", "EP": "ep",
    "GA": "ga", "Tokens / sec / GPU": "tokens_per_s_per_gpu", "Model TFLOP / sec / GPU": "model_tflops_per_gpu",
}
NUMBERS = ("gpus", "gbs", "mbs", "seq_length", "fsdp", "tp", "pp", "cp", "vp", "ep", "ga", "tokens_per_s_per_gpu",
           "model_tflops_per_gpu")
TASKS = {"Pre-Training Performance": "pre-training", "SFT Performance": "SFT", "LoRA Performance": "LoRA"}


def cells(line):
    """A table line's cells, footnote marks ("661[^gpt-oss-note]") removed."""
    return [re.sub(r"\[\^[^\]]*\]", "", c).strip() for c in line.strip().strip("|").split("|")]


def split_alternate(cell):
    """'a (b)' -> ('a', 'b'); 'a' -> ('a', None)."""
    m = re.fullmatch(r"(.*?)\s*\(([^()]*)\)", cell)
    return (m.group(1).strip(), m.group(2).strip()) if m else (cell, None)


def number(field, text, where):
    if text in ("n/a", ""):
        return None
    try:
        return int(text.replace(",", ""))
    except ValueError:
        raise SystemExit(f"{where}: {field} is {text!r}, not a whole number")


def rows_of(path, text):
    container = task = model = system = None
    header = None
    for n, line in enumerate(text.splitlines(), 1):
        if m := re.match(r"^## (\S+) NeMo Container", line):
            container, task, header = m.group(1), None, None
        elif line.startswith("### "):
            task, header = TASKS.get(line[4:].strip(), line[4:].strip()), None
        elif m := re.match(r"^#### Model: (.+)$", line):
            model, system, header = m.group(1).strip(), None, None
        elif m := re.match(r"^#### System: (.+)$", line):
            system, model, header = m.group(1).strip(), None, None
        elif line.startswith("| ") and header is None:
            header = [COLUMNS[c] for c in cells(line)]
        elif line.startswith("|--") or line.startswith("| --"):
            continue
        elif line.startswith("|") and header:
            where = f"{path}:{n}"
            values = cells(line)
            if len(values) != len(header):
                raise SystemExit(f"{where}: {len(values)} cells under a header of {len(header)}")
            pairs = dict(zip(header, (split_alternate(v) for v in values)))
            # A model's name may carry a note in parentheses: that is not a second run.
            name, note = pairs.pop("model", (model, None))
            variants = ["listed"] + (["parenthesised"] if any(b is not None for _, b in pairs.values()) else [])
            for variant in variants:
                row = {"source": f"Megatron-Bridge {path}", "line": n, "container": container, "task": task,
                       "model": name, "model_note": note, "system": system, "variant": variant}
                for field in COLUMNS.values():
                    if field in ("model", "system") and field not in pairs:
                        continue
                    a, b = pairs.get(field, (None, None))
                    v = b if variant == "parenthesised" and b is not None else a
                    row[field] = number(field, v, where) if field in NUMBERS and v is not None else v
                if row["system"] is None:
                    raise SystemExit(f"{where}: a row without its system")
                yield row
        elif not line.startswith("|"):
            header = None if line.strip() == "" and header is None else header
            if line.strip() and not line.startswith("|"):
                header = None


def main():
    repo, commit = sys.argv[1], sys.argv[2]
    for path in FILES:
        text = subprocess.run(["git", "-C", repo, "show", f"{commit}:{path}"], capture_output=True, text=True,
                              check=True).stdout
        for row in rows_of(path, text):
            row["commit"] = commit
            print(json.dumps(row))


if __name__ == "__main__":
    main()
