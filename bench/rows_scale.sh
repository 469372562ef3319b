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
#   reference    for N in REF_THREADS, REF_RUNS times, one of two reference pipelines (REFERENCE):
#                hf      bench/hf_stack_rows.py with N workers, the Hugging Face stack as users run it
#                        (transformers' apply_chat_template in a process pool, tokenizers' encode_batch_fast with
#                        RAYON_NUM_THREADS=N, numpy's permutation, pyarrow's writer); where Python has them
#                oracle  tests/oracles/rows_build_reference.py (Python Jinja2, tokenizers 0.23.2 through its Node
#                        binding with RAYON_NUM_THREADS=N, numpy); what scripts/bootstrap installs here
#                auto (the default) takes hf where it can, else oracle; none runs neither
# Every rows_sha256 must be the same (exit 1 otherwise). Prints a markdown table.
# Usage: bench/rows_scale.sh [BUILD_DIR]   (env: COPIES=2000 THREADS="1 2" RUNS=3 REFERENCE=auto
#        REF_THREADS=$THREADS REF_RUNS=1 TOKENIZER=qwen3 ROW_LENGTH=8192 WORK=<temp folder>
#        OPENRECIPES_FIXTURES=../shared/fixtures)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
fixtures="${OPENRECIPES_FIXTURES:-$root/../shared/fixtures}"
copies="${COPIES:-2000}"
threads="${THREADS:-1 2}"
runs="${RUNS:-3}"
reference="${REFERENCE:-auto}"
ref_threads="${REF_THREADS:-$threads}"
ref_runs="${REF_RUNS:-1}"
tok="${TOKENIZER:-qwen3}"
L="${ROW_LENGTH:-8192}"
bin="$build/openrecipes"
encode="$build/tokenizer_bench"
[[ -x "$bin" && -x "$encode" ]] || { echo "build openrecipes and tokenizer_bench first (make build)" >&2; exit 2; }
golden_of() { case "$1" in qwen3) echo qwen3;; llama3) echo llama3_1_instruct;; deepseek_v3) echo deepseek_v3;; esac; }
if [[ "$reference" == auto ]]; then
  if python3 -c 'import transformers, tokenizers, numpy, pyarrow' 2>/dev/null; then reference=hf
  elif [[ -f "$root/third_party/oracles/node_modules/tokenizers/package.json" ]]; then reference=oracle
  else reference=none; fi
fi
case "$reference" in
  hf) ref_cmd=(python3 "$root/bench/hf_stack_rows.py") ;;
  oracle) ref_cmd=(/usr/bin/python3 "$root/tests/oracles/rows_build_reference.py") ;;
  none) ref_cmd=() ;;
  *) echo "REFERENCE is hf, oracle, none or auto" >&2; exit 2 ;;
esac
work="${WORK:-$(mktemp -d)}"
mkdir -p "$work"
rm -f "$work"/ours.* "$work"/encode.* "$work"/ref.*
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
  "L = $L; $(nproc) cores; reference: $reference"

# The thread counts take turns (1 2 1 2 ...), so a machine whose speed drifts slows them alike.
for ((r = 0; r < runs; r++)); do
  for n in $threads; do
    pin_to "$n"
    timed "$work/ours.$n.$r" "${pin[@]}" "$bin" rows build --source "$corpus" \
      --tokenizer "$fixtures/tokenizers/$tok" --row-length "$L" --threads "$n" --quiet --json -o "$work/rows.parquet"
    "${pin[@]}" "$encode" "$fixtures/tokenizers/$tok/tokenizer.json" \
      "$fixtures/golden/tulu3_first100/$(golden_of "$tok").jsonl" "$copies" "$n" 1 >> "$work/encode.$n"
  done
done
if [[ $reference != none ]]; then
  for n in $ref_threads; do
    pin_to "$n"
    for ((r = 0; r < ref_runs; r++)); do
      args=("$corpus" "$fixtures/tokenizers/$tok" "$L" 0)
      [[ $reference == hf ]] && args+=("$n" "$work/reference.parquet")
      RAYON_NUM_THREADS=$n timed "$work/ref.$n.$r" "${pin[@]}" "${ref_cmd[@]}" "${args[@]}"
    done
  done
fi

python3 - "$work" "$runs" "$threads" "$reference" "$ref_threads" "$ref_runs" <<'PY'
import json, statistics, sys
work, runs, ths, reference, ref_ths, ref_runs = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4], \
    sys.argv[5].split(), int(sys.argv[6])
ran_ref = reference != "none"
def timing(p):
    wall, kib = open(p + ".time").read().split()
    return float(wall), int(kib) / 1024
def load(p): return json.loads(open(p + ".out").read())
shas, mb = set(), None
rows = []
mb = load(f"{work}/ours.{ths[0]}.0")["rendered_bytes"] / 1e6
for n in sorted(set(ths) | (set(ref_ths) if ran_ref else set()), key=int):
    cells = ["", "", "", "", ""]
    stages = ""
    if n in ths:
        ours = [timing(f"{work}/ours.{n}.{r}") for r in range(runs)]
        outs = [load(f"{work}/ours.{n}.{r}") for r in range(runs)]
        shas |= {o["rows_sha256"] for o in outs}
        walls = [w for w, _ in ours]
        so = statistics.median(walls)
        mid = outs[walls.index(sorted(walls)[len(walls) // 2])]
        enc = [json.loads(l) for l in open(f"{work}/encode.{n}") if l.strip()]
        se = statistics.median(e["seconds"] for e in enc)
        cells = [f"{so:.2f}", f"{mb / so:.1f}", f"{max(m for _, m in ours):,.0f}", f"{mb / se:.1f}",
                 f"{se / so * 100:.0f}%"]
        stages = ", ".join(f"{k} {v:.2f}" for k, v in mid["stages"].items() if v >= 0.005)
    ref_cells = ["", "", "", ""]
    if ran_ref and n in ref_ths:
        h = [timing(f"{work}/ref.{n}.{r}") for r in range(ref_runs)]
        shas |= {load(f"{work}/ref.{n}.{r}")["rows_sha256"] for r in range(ref_runs)}
        sh = statistics.median(w for w, _ in h)
        ref_cells = [f"{sh:.1f}", f"{mb / sh:.1f}", f"{max(m for _, m in h):,.0f}",
                     f"{sh / float(cells[0]):.1f}x" if cells[0] else ""]
    rows.append(f"| {n} | " + " | ".join(cells + ref_cells) + f" | {stages} |")
name = {"hf": "HF stack", "oracle": "reference"}.get(reference, "reference")
print("| threads | ours s | ours MB/s | ours peak MiB | encode-only MB/s | ours / encode-only | "
      f"{name} s | {name} MB/s "
      f"| {name} peak MiB | speedup | stages (ours, median run) |")
print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
print("\n".join(rows))
print(f"\n{mb:.0f} MB rendered; whole-process wall time, median of {runs} ({reference}: {ref_runs}); "
      "encode-only: median of "
      f"{runs}, encoding alone; each N pinned to N cores. rows_sha256: {', '.join(sorted(shas))}"
      + (" (all equal)" if len(shas) == 1 else " DIFFERENT"))
sys.exit(0 if len(shas) == 1 else 1)
PY
