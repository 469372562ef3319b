#!/usr/bin/env bash
# On the CPU machine, before tests/run/device/run.sh goes to the device (run's `carry: ["build/device-megatron"]`):
# makes build/device-megatron/ (git-ignored) with
#   rows/         the fixture rows: `openrecipes rows build` of ../shared/fixtures/tulu3/sft_sample.jsonl with the
#                 Qwen3 tokenizer at L = 512, seed 0 (81 rows), and its Megatron export rows.bin / rows.idx
#                 (Megatron --data-path prefix: build/device-megatron/rows/rows)
#   Megatron-LM/  a git checkout of Megatron-LM at d98e8a64 (depth 1), sparse: only what pretrain_gpt.py needs
#                 (megatron/, pretrain_gpt.py, gpt_builders.py, model_provider.py), from a local git mirror:
#                 MEGATRON_MIRROR, a git directory
#   drafts/       a registry holding the draft recipes of tests/run/device/drafts/ (what run.sh runs)
#   bin/, lib/    the openrecipes binary (OPENRECIPES_BIN, default build/openrecipes) and the libraries it links, as
#                 scripts/device-bundle packs them; run.sh unpacks lib/libs.tar.xz on the device
# Re-running it deletes build/device-megatron/ first (evidence-run1/ with it).
# The whole folder has to stay under the device's 64 MiB carry limit (with the rest of the working tree).
set -euo pipefail
cd "$(dirname "$0")/../../.."
repo=$PWD
mirror=${MEGATRON_MIRROR:?set MEGATRON_MIRROR to a git directory of NVIDIA/Megatron-LM that holds commit d98e8a64}
commit=d98e8a64ddf34856e74b24714e3bedb2f5a39553
bin=${OPENRECIPES_BIN:-$repo/build/openrecipes}
fx=${OPENRECIPES_FIXTURES:-$(dirname "$repo")/shared/fixtures}
out=$repo/build/device-megatron

[ -x "$bin" ] || { echo "prepare.sh: no openrecipes binary at $bin (set OPENRECIPES_BIN)" >&2; exit 1; }
[ -d "$fx" ] || { echo "prepare.sh: no fixtures at $fx (set OPENRECIPES_FIXTURES)" >&2; exit 1; }

rm -rf "$out" && mkdir -p "$out/rows" "$out/bin" "$out/lib"

# 1. rows
"$bin" rows build --source "$fx/tulu3/sft_sample.jsonl" --tokenizer "$fx/tokenizers/qwen3" --row-length 512 \
  --seed 0 --quiet -o "$out/rows/rows.parquet"
"$bin" rows export "$out/rows/rows.parquet" --format megatron -o "$out/rows/rows"

# 2. Megatron-LM: a git checkout of that one commit (so the run's own probe reads its commit with git rev-parse),
#    sparse: what pretrain_gpt.py imports (the megatron package and the two top-level modules)
git init -q "$out/Megatron-LM"
git -C "$out/Megatron-LM" fetch -q --depth 1 "file://$mirror" "$commit"
git -C "$out/Megatron-LM" sparse-checkout set --no-cone /megatron/ /pretrain_gpt.py /gpt_builders.py /model_provider.py
git -C "$out/Megatron-LM" -c advice.detachedHead=false checkout -q FETCH_HEAD
[ "$(git -C "$out/Megatron-LM" rev-parse HEAD)" = "$commit" ]

# 2b. the draft recipes the device runs (tests/run/device/drafts/*.yaml), in a registry of their own with the bundled
#     tables; each draft folder gets the bundled ref recipe's evidence as placeholders. (That was needed when the
#     bundled tulu3 runs were made; `run` now reads a recipe as a draft and ignores evidence and claims. The drafts
#     and placeholders are kept as they were, so that they are byte for byte what those runs ran.)
mkdir -p "$out/drafts"
cp -r registry/gpus.yaml registry/models registry/rules "$out/drafts/"
for f in tests/run/device/drafts/*.yaml; do
  d=$out/drafts/recipes/qwen3-0.6b/H200/$(basename "$f" .yaml)
  mkdir -p "$d"
  cp "$f" "$d/recipe.yaml"
  cp -r registry/recipes/qwen3-0.6b/H200/ref/evidence "$d/"
done

# 3. the binary and the libraries outside glibc's own set (scripts/device-bundle)
scripts/device-bundle "$out" "$bin"
[ "$(basename "$bin")" = openrecipes ] || mv "$out/bin/$(basename "$bin")" "$out/bin/openrecipes"

du -sh "$out"/*; du -sh "$out"
