#!/usr/bin/env bash
# Tokenizer speed, side by side with Hugging Face tokenizers 0.23.2 (SPEC §1.3; issue 3 target: >= 3x at
# 1 and 2 threads, ids identical). For each fixture tokenizer, encodes the golden rendered Tulu-3 conversations
# repeated REPEAT times (about 20 MB of text by default) with our tokenizer (tokenizer_bench: a thread pool over
# the texts) and with the oracle (encodeBatch, RAYON_NUM_THREADS=N: its own Rust pool), RUNS timed runs each,
# encoding only. Checks the ids' SHA-256 is identical and prints medians.
# Usage: bench/tokenizer.sh [BUILD_DIR]   (env: REPEAT=110 RUNS=3 THREADS="1 2" TOKENIZERS="qwen3 llama3 deepseek_v3")
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
fixtures="${OPENRECIPES_FIXTURES:-$root/../shared/fixtures}"
modules="$root/third_party/oracles/node_modules"
repeat="${REPEAT:-110}"
runs="${RUNS:-3}"
threads="${THREADS:-1 2}"
tokenizers="${TOKENIZERS:-qwen3 llama3 deepseek_v3}"
bench="$build/tokenizer_bench"
[[ -x "$bench" ]] || { echo "build tokenizer_bench first: cmake --build $build --target tokenizer_bench" >&2; exit 2; }
golden_of() { case "$1" in qwen3) echo qwen3;; llama3) echo llama3_1_instruct;; deepseek_v3) echo deepseek_v3;; esac; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for tk in $tokenizers; do
  json="$fixtures/tokenizers/$tk/tokenizer.json"
  golden="$fixtures/golden/tulu3_first100/$(golden_of "$tk").jsonl"
  for n in $threads; do
    "$bench" "$json" "$golden" "$repeat" "$n" "$runs" > "$tmp/ours.$tk.$n"
    RAYON_NUM_THREADS="$n" TOKENIZERS_PARALLELISM=true node "$root/tests/oracles/tokenize_bench.js" \
      "$modules" "$json" "$golden" "$repeat" "$runs" > "$tmp/hf.$tk.$n"
  done
done
/usr/bin/python3 - "$tmp" "$tokenizers" "$threads" <<'PY'
import json, statistics, sys, os
tmp, tks, ths = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
def load(p): return [json.loads(l) for l in open(p) if l.strip()]
print("| tokenizer | threads | MB | ours MB/s | ours tokens/s | HF MB/s | HF tokens/s | speedup | ids |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
ok = True
for tk in tks:
    for n in ths:
        a, b = load(f"{tmp}/ours.{tk}.{n}"), load(f"{tmp}/hf.{tk}.{n}")
        sa, sb = statistics.median(r["seconds"] for r in a), statistics.median(r["seconds"] for r in b)
        same = {r["ids_sha256"] for r in a} == {r["ids_sha256"] for r in b} and len({r["ids_sha256"] for r in a}) == 1
        ok = ok and same
        mb = a[0]["bytes"] / 1e6
        print(f"| {tk} | {n} | {mb:.1f} | {mb/sa:.1f} | {a[0]['tokens']/sa:,.0f} | {mb/sb:.2f} | {b[0]['tokens']/sb:,.0f} "
              f"| {sb/sa:.1f}x | {'identical' if same else 'DIFFERENT'} |")
print(f"\nmedians of {len(a)} runs each; encoding time only (tokenizer load excluded).")
sys.exit(0 if ok else 1)
PY
