#!/usr/bin/env bash
# On the CPU machine: everything the multi-GPU runs need, so that device time goes to the runs alone.
#   1. tests/run/device/prepare.sh (the fixture rows and their Megatron export, the sparse Megatron-LM d98e8a64
#      checkout, the openrecipes binary and its libraries) into build/device-megatron/ (MEGATRON_MIRROR as there);
#   2. build/device-megatron/multi/: a registry of the bundled tables, the bundled tulu3-ref (the dense pairs'
#      reference, with its evidence), the MoE shape of models/ and every draft of drafts/;
#   3. build/device-megatron/multi/dry-run/<kind>.txt: `openrecipes run --dry-run` of each draft that fits the kind
#      (nvidia-h200-x2: 2 GPUs, -x4: 4, -x8: 8), so the commands are read before any GPU is held.
# Carry build/device-megatron to the device and run tests/run/device/multi/run.sh there.
set -euo pipefail
cd "$(dirname "$0")/../../../.."
tests/run/device/prepare.sh
out=build/device-megatron/multi
reg=$out/registry
rm -rf "$out" && mkdir -p "$reg/recipes/qwen3-0.6b/H200" "$out/dry-run"
cp -r registry/gpus.yaml registry/models registry/rules "$reg/"
cp tests/run/device/multi/models/*.yaml "$reg/models/"
cp -r registry/recipes/qwen3-0.6b/H200/tulu3-ref "$reg/recipes/qwen3-0.6b/H200/"
for f in tests/run/device/multi/drafts/*.yaml; do
  model=$(sed -n 's/^model: //p' "$f")
  mkdir -p "$reg/recipes/$model/H200/$(basename "$f" .yaml)"
  cp "$f" "$reg/recipes/$model/H200/$(basename "$f" .yaml)/recipe.yaml"
done
bin=${OPENRECIPES_BIN:-build/openrecipes}  # this machine's binary (the bundled one needs its lib/ unpacked)
for gpus in 2 4 8; do
  for d in "$reg"/recipes/*/H200/*; do
    [ -f "$d/recipe.yaml" ] && [ "$(sed -n 's/^gpus: //p' "$d/recipe.yaml")" = "$gpus" ] || continue
    "$bin" run "$d" --launcher local --dry-run --var "MEGATRON_LM=$PWD/build/device-megatron/Megatron-LM" \
      --var "SFT_DATA=$PWD/build/device-megatron/rows/rows" -o "/tmp/or-multi-$(basename "$d")"
  done >"$out/dry-run/nvidia-h200-x$gpus.txt"
done
wc -l "$out"/dry-run/*.txt
