#!/usr/bin/env bash
# On the CPU machine, before bench/device/run.sh goes to the device (run's `carry: ["build/device-rows"]`): makes
# build/device-rows/ (git-ignored) with bin/openrecipes and bin/tokenizer_bench and the libraries they link
# (scripts/device-bundle), and fixtures/ holding what bench/rows_scale.sh reads: the Tulu 3 sample, the Qwen3
# tokenizer folder and its golden renders (from ../shared/fixtures, or OPENRECIPES_FIXTURES).
set -euo pipefail
cd "$(dirname "$0")/../.."
fx=${OPENRECIPES_FIXTURES:-$(dirname "$PWD")/shared/fixtures}
out=$PWD/build/device-rows
[ -d "$fx" ] || { echo "prepare.sh: no fixtures at $fx (set OPENRECIPES_FIXTURES)" >&2; exit 1; }
cmake --build build --target openrecipes tokenizer_bench >/dev/null
rm -rf "$out" && mkdir -p "$out/fixtures/tulu3" "$out/fixtures/tokenizers" "$out/fixtures/golden/tulu3_first100"
scripts/device-bundle "$out" build/openrecipes build/tokenizer_bench
cp "$fx/tulu3/sft_sample.jsonl" "$out/fixtures/tulu3/"
cp -r "$fx/tokenizers/qwen3" "$out/fixtures/tokenizers/"
cp "$fx/golden/tulu3_first100/qwen3.jsonl" "$out/fixtures/golden/tulu3_first100/"
du -sh "$out"
