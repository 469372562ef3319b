#!/usr/bin/env bash
# Whole `rows build` throughput and peak memory, side by side with the reference pipeline
# (tests/oracles/rows_build_reference.py: Python Jinja2 + Hugging Face tokenizers 0.23.2 + numpy) on the same input
# and thread count, checking both give the same rows_sha256 (SPEC §1; issue 3).
# Input: the 100 real Tulu 3 conversations of ../shared/fixtures/tulu3 repeated COPIES times (default 100: 10,000
# conversations, 22 MB of JSONL). Usage: bench/rows_build.sh [BUILD_DIR]   (env: COPIES, RUNS=3, THREADS="1 2",
# TOKENIZER=qwen3, ROW_LENGTH=8192)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
fixtures="${OPENRECIPES_FIXTURES:-$root/../shared/fixtures}"
copies="${COPIES:-100}"
runs="${RUNS:-3}"
threads="${THREADS:-1 2}"
tok="${TOKENIZER:-qwen3}"
L="${ROW_LENGTH:-8192}"
bin="$build/openrecipes"
[[ -x "$bin" ]] || { echo "build openrecipes first (make build)" >&2; exit 2; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for ((i = 0; i < copies; i++)); do cat "$fixtures/tulu3/sft_sample.jsonl"; done > "$tmp/corpus.jsonl"
echo "input: $(wc -l < "$tmp/corpus.jsonl") conversations, $(du -m "$tmp/corpus.jsonl" | cut -f1) MB JSONL; tokenizer $tok; L=$L"
for n in $threads; do
  for ((r = 0; r < runs; r++)); do
    /usr/bin/time -f "%e %M" -o "$tmp/t.ours.$n.$r" "$bin" rows build --source "$tmp/corpus.jsonl" \
      --tokenizer "$fixtures/tokenizers/$tok" --row-length "$L" --threads "$n" --quiet --json \
      -o "$tmp/rows.parquet" > "$tmp/o.ours.$n.$r"
    RAYON_NUM_THREADS="$n" /usr/bin/time -f "%e %M" -o "$tmp/t.ref.$n.$r" /usr/bin/python3 \
      "$root/tests/oracles/rows_build_reference.py" "$tmp/corpus.jsonl" "$fixtures/tokenizers/$tok" "$L" 0 \
      > "$tmp/o.ref.$n.$r"
  done
done
/usr/bin/python3 - "$tmp" "$runs" "$threads" <<'PY'
import json, statistics, sys
tmp, runs, ths = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
def timing(p):
    wall, kb = open(p).read().split()[-2:]
    return float(wall), int(kb) / 1024
print("| threads | ours s | ours MB/s | ours M tokens/s | ours peak MiB | reference s | ref MB/s | ref peak MiB | speedup | rows_sha256 |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
ok = True
for n in ths:
    ours = [timing(f"{tmp}/t.ours.{n}.{r}") for r in range(runs)]
    ref = [timing(f"{tmp}/t.ref.{n}.{r}") for r in range(runs)]
    o = json.loads(open(f"{tmp}/o.ours.{n}.0").read())
    shas = {json.loads(open(f"{tmp}/o.ours.{n}.{r}").read())["rows_sha256"] for r in range(runs)}
    shas |= {json.loads(open(f"{tmp}/o.ref.{n}.{r}").read())["rows_sha256"] for r in range(runs)}
    same = len(shas) == 1
    ok = ok and same
    so, sr = statistics.median(w for w, _ in ours), statistics.median(w for w, _ in ref)
    mb = o["rendered_bytes"] / 1e6
    print(f"| {n} | {so:.2f} | {mb/so:.1f} | {o['tokens']/so/1e6:.2f} | {max(m for _, m in ours):.0f} | {sr:.2f} | {mb/sr:.1f} "
          f"| {max(m for _, m in ref):.0f} | {sr/so:.1f}x | {'identical' if same else 'DIFFERENT'} |")
print(f"\nwhole-process wall time, median of {runs} runs; MB = rendered text ({mb:.1f} MB), tokens incl. EOS.")
sys.exit(0 if ok else 1)
PY
