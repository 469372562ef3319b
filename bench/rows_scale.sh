#!/usr/bin/env bash
# Whole `rows build` at scale, beside encoding alone and beside the Hugging Face stack (SPEC §1; issue 13).
# Input: the 100 real Tulu 3 conversations of ../shared/fixtures/tulu3 repeated COPIES times, generated here and never
# committed: COPIES=2000 (the default) is 200,000 conversations, 445 MB of JSONL, 355 MB rendered with Qwen3;
# COPIES=9600 is the full-scale input, 960,000 conversations, 2.1 GB of JSONL, 1.71 GB rendered (the whole Tulu 3
# mixture is 939,343 conversations; about 1.7 GB if they render as long as the sample's).
# For each N in THREADS, pinned to N cores with taskset, RUNS times each (medians; peak RSS the largest):
#   ours         openrecipes rows build --threads N, the whole process (JSONL in, rows.parquet + manifest out)
#   encode-only  tokenizer_bench on the same rendered text (the golden renders repeated COPIES times), N threads,
#                encoding alone (tokenizer load and everything else excluded)
#   HF stack     bench/hf_stack_rows.py with N workers (transformers' apply_chat_template in a process pool,
#                tokenizers' encode_batch_fast with RAYON_NUM_THREADS=N, numpy's permutation, pyarrow's writer),
#                for N in HF_THREADS, where Python has transformers and tokenizers (HF=auto), always (HF=1) or never
#                (HF=0)
# Every rows_sha256 must be the same (exit 1 otherwise). Prints a markdown table.
# Usage: bench/rows_scale.sh [BUILD_DIR]   (env: COPIES=2000 THREADS="1 2" RUNS=3 HF=auto HF_THREADS=$THREADS
#        HF_RUNS=1 TOKENIZER=qwen3 ROW_LENGTH=8192 WORK=<temp folder> OPENRECIPES_FIXTURES=../shared/fixtures)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
fixtures="${OPENRECIPES_FIXTURES:-$root/../shared/fixtures}"
copies="${COPIES:-2000}"
threads="${THREADS:-1 2}"
runs="${RUNS:-3}"
hf="${HF:-auto}"
hf_threads="${HF_THREADS:-$threads}"
hf_runs="${HF_RUNS:-1}"
tok="${TOKENIZER:-qwen3}"
L="${ROW_LENGTH:-8192}"
bin="$build/openrecipes"
encode="$build/tokenizer_bench"
[[ -x "$bin" && -x "$encode" ]] || { echo "build openrecipes and tokenizer_bench first (make build)" >&2; exit 2; }
golden_of() { case "$1" in qwen3) echo qwen3;; llama3) echo llama3_1_instruct;; deepseek_v3) echo deepseek_v3;; esac; }
if [[ "$hf" == auto ]]; then
  python3 -c 'import transformers, tokenizers, numpy, pyarrow' 2>/dev/null && hf=1 || hf=0
fi
work="${WORK:-$(mktemp -d)}"
mkdir -p "$work"
[[ -n "${WORK:-}" ]] || trap 'rm -rf "$work"' EXIT

# Whole-process wall time and peak RSS of a command (its stdout to $1.out): "$1.time" holds "seconds maxrss_kib".
timed() {
  local out="$1"; shift
  python3 - "$out" "$@" <<'PY'
import resource, subprocess, sys, time
out, cmd = sys.argv[1], sys.argv[2:]
t = time.perf_counter()
with open(out + ".out", "wb") as f:
    code = subprocess.run(cmd, stdout=f).returncode
wall = time.perf_counter() - t
open(out + ".time", "w").write(f"{wall} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}\n")
sys.exit(code)
PY
}
# The command prefix that pins a program to the first $1 cores (taskset), or none where taskset is missing.
pin_to() { pin=(); if command -v taskset >/dev/null; then pin=(taskset -c "0-$(($1 - 1))"); fi; }

corpus="$work/corpus.jsonl"
if [[ ! -s "$corpus" || "$(wc -l < "$corpus")" -ne $((copies * 100)) ]]; then
  for ((i = 0; i < 100 && i < copies; i++)); do cat "$fixtures/tulu3/sft_sample.jsonl"; done > "$work/block.jsonl"
  { for ((i = 0; i + 100 <= copies; i += 100)); do cat "$work/block.jsonl"; done
    for ((i = copies / 100 * 100; i < copies; i++)); do cat "$fixtures/tulu3/sft_sample.jsonl"; done; } > "$corpus"
  rm -f "$work/block.jsonl"
fi
echo "input: $(wc -l < "$corpus") conversations, $(($(stat -c %s "$corpus") / 1000000)) MB of JSONL; tokenizer $tok;" \
  "L = $L; $(nproc) cores; HF stack: $([[ $hf == 1 ]] && echo yes || echo 'not run (no transformers here)')"

for n in $threads; do
  pin_to "$n"
  for ((r = 0; r < runs; r++)); do
    timed "$work/ours.$n.$r" "${pin[@]}" "$bin" rows build --source "$corpus" \
      --tokenizer "$fixtures/tokenizers/$tok" --row-length "$L" --threads "$n" --quiet --json -o "$work/rows.parquet"
  done
  "${pin[@]}" "$encode" "$fixtures/tokenizers/$tok/tokenizer.json" \
    "$fixtures/golden/tulu3_first100/$(golden_of "$tok").jsonl" "$copies" "$n" "$runs" > "$work/encode.$n"
done
if [[ $hf == 1 ]]; then
  for n in $hf_threads; do
    pin_to "$n"
    for ((r = 0; r < hf_runs; r++)); do
      timed "$work/hf.$n.$r" "${pin[@]}" python3 "$root/bench/hf_stack_rows.py" "$corpus" \
        "$fixtures/tokenizers/$tok" "$L" 0 "$n" "$work/hf.parquet"
    done
  done
fi

python3 - "$work" "$runs" "$threads" "$hf" "$hf_threads" "$hf_runs" <<'PY'
import json, statistics, sys
work, runs, ths, hf, hf_ths, hf_runs = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4] == "1", \
    sys.argv[5].split(), int(sys.argv[6])
def timing(p):
    wall, kib = open(p + ".time").read().split()
    return float(wall), int(kib) / 1024
def load(p): return json.loads(open(p + ".out").read())
shas, mb = set(), None
rows = []
for n in sorted(set(ths) | (set(hf_ths) if hf else set()), key=int):
    cells = ["", "", "", "", ""]
    stages = ""
    if n in ths:
        ours = [timing(f"{work}/ours.{n}.{r}") for r in range(runs)]
        outs = [load(f"{work}/ours.{n}.{r}") for r in range(runs)]
        shas |= {o["rows_sha256"] for o in outs}
        mb = outs[0]["rendered_bytes"] / 1e6
        walls = [w for w, _ in ours]
        so = statistics.median(walls)
        mid = outs[walls.index(sorted(walls)[len(walls) // 2])]
        enc = [json.loads(l) for l in open(f"{work}/encode.{n}") if l.strip()]
        se = statistics.median(e["seconds"] for e in enc)
        cells = [f"{so:.2f}", f"{mb / so:.1f}", f"{max(m for _, m in ours):,.0f}", f"{mb / se:.1f}",
                 f"{se / so * 100:.0f}%"]
        stages = ", ".join(f"{k} {v:.2f}" for k, v in mid["stages"].items() if v >= 0.005)
    hf_cells = ["", "", "", ""]
    if hf and n in hf_ths:
        h = [timing(f"{work}/hf.{n}.{r}") for r in range(hf_runs)]
        ho = [load(f"{work}/hf.{n}.{r}") for r in range(hf_runs)]
        shas |= {o["rows_sha256"] for o in ho}
        mb = ho[0]["rendered_bytes"] / 1e6
        sh = statistics.median(w for w, _ in h)
        hf_cells = [f"{sh:.1f}", f"{mb / sh:.1f}", f"{max(m for _, m in h):,.0f}",
                    f"{sh / float(cells[0]):.1f}x" if cells[0] else ""]
    rows.append(f"| {n} | " + " | ".join(cells + hf_cells) + f" | {stages} |")
print("| threads | ours s | ours MB/s | ours peak MiB | encode-only MB/s | ours / encode-only | HF stack s | HF MB/s "
      "| HF peak MiB | ours vs HF | stages (ours, median run) |")
print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
print("\n".join(rows))
print(f"\n{mb:.0f} MB rendered; whole-process wall time, median of {runs} (HF stack: {hf_runs}); encode-only: median of "
      f"{runs}, encoding alone; each N pinned to N cores. rows_sha256: {', '.join(sorted(shas))}"
      + (" (all equal)" if len(shas) == 1 else " DIFFERENT"))
sys.exit(0 if len(shas) == 1 else 1)
PY
