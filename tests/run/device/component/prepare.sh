#!/usr/bin/env bash
# On the CPU machine: everything the component-test device run needs, so that device time goes to the GPU.
#   1. tests/run/device/prepare.sh (the fixture rows and their Megatron export, the sparse Megatron-LM d98e8a64
#      checkout, the openrecipes binary and its libraries) into build/device-megatron/ (MEGATRON_MIRROR as there);
#   2. build/device-megatron/component/registry/: the bundled tables and models, the MoE shape of
#      tests/run/device/multi/models/, the bundled tulu3-ref (with its evidence) and the multi-GPU MoE reference
#      moe-ep2 as references, and the drafts of drafts/;
#   3. build/device-megatron/component/dry-run.txt: `openrecipes component-test --dry-run` of each draft, so the tests
#      are read before any GPU is held.
# Carry build/device-megatron to the device and run tests/run/device/component/run.sh there; submit what it returns
# with tests/run/device/component/submit.sh (here: submit needs no GPU).
set -euo pipefail
cd "$(dirname "$0")/../../../.."
tests/run/device/prepare.sh
out=build/device-megatron/component
reg=$out/registry
rm -rf "$out" && mkdir -p "$reg/recipes/qwen3-0.6b/H200" "$reg/recipes/qwen3-30b-a3b-12l/H200"
cp -r registry/gpus.yaml registry/models registry/rules "$reg/"
cp tests/run/device/multi/models/*.yaml "$reg/models/"
cp -r registry/recipes/qwen3-0.6b/H200/tulu3-ref "$reg/recipes/qwen3-0.6b/H200/"
mkdir -p "$reg/recipes/qwen3-30b-a3b-12l/H200/moe-ep2"
cp tests/run/device/multi/drafts/moe-ep2.yaml "$reg/recipes/qwen3-30b-a3b-12l/H200/moe-ep2/recipe.yaml"
for f in tests/run/device/component/drafts/*.yaml; do
  model=$(sed -n 's/^model: //p' "$f")
  mkdir -p "$reg/recipes/$model/H200/$(basename "$f" .yaml)"
  cp "$f" "$reg/recipes/$model/H200/$(basename "$f" .yaml)/recipe.yaml"
done
bin=${OPENRECIPES_BIN:-build/openrecipes}
for d in "$reg"/recipes/*/H200/*; do
  grep -q "^reference: null" "$d/recipe.yaml" && continue
  "$bin" component-test "$d" --dry-run --var "MEGATRON_LM=$PWD/build/device-megatron/Megatron-LM" \
    --var "SFT_DATA=$PWD/build/device-megatron/rows/rows" -o "/tmp/or-ct-$(basename "$d")"
done >"$out/dry-run.txt"
cat "$out/dry-run.txt"
