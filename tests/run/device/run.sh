#!/usr/bin/env bash
# On the device machine (one H200; torch, torchrun, pybind11, g++; no network): `openrecipes run --launcher local` of the
# draft recipes (tests/run/device/drafts/: Qwen3-0.6B shape, real Megatron-LM d98e8a64 with --transformer-impl local,
# on the fixture rows that `rows build` + `rows export --format megatron` made), then `openrecipes submit` of each run:
# tulu3-ref as the reference of a new pair (--reference none), tulu3-mbs16 against it. Needs build/device-megatron
# from tests/run/device/prepare.sh (carry it). Writes to $OUT: run-<name>/ (each run directory), submitted/ (the
# recipes submit wrote, with their evidence) and device.log, all packed into device-runs.tar.gz.
set -uo pipefail
cd "$(dirname "$0")/../../.."
source tests/run/device/device-env.sh
out=${OUT:-/tmp/device-megatron-out}; mkdir -p "$out"
openrecipes=$d/bin/openrecipes  # its RPATH finds lib/ (prepare.sh)
drafts=$d/drafts/recipes/qwen3-0.6b/H200
target=$d/submitted-registry
mkdir -p "$target" && cp -r "$d/drafts/gpus.yaml" "$d/drafts/models" "$d/drafts/rules" "$target/"
{
  for name in ${RECIPES:-tulu3-ref tulu3-mbs16}; do
    echo "== openrecipes run $name"
    timeout "${TRAIN_TIMEOUT:-400}" "$openrecipes" run "$drafts/$name" --launcher local \
      --var "MEGATRON_LM=$d/Megatron-LM" --var "SFT_DATA=$d/rows/rows" -o "$out/run-$name" | grep -v " iteration "
    echo "rc=${PIPESTATUS[0]}"
    grep -E " iteration +(1|5|19|20)/" "$out/run-$name/nodes/0/train.log" | cut -c1-200
  done
  echo "== openrecipes submit"
  "$openrecipes" submit "$out/run-tulu3-ref" --reference none --author openrecipes --registry "$target" --name tulu3-ref
  echo "rc=$?"
  "$openrecipes" submit "$out/run-tulu3-mbs16" --reference "$target/recipes/qwen3-0.6b/H200/tulu3-ref" \
    --author openrecipes --registry "$target" --name tulu3-mbs16
  echo "rc=$?"
  "$openrecipes" build "$target"
  cp -r "$target/recipes/qwen3-0.6b/H200" "$out/submitted"
} 2>&1 | tee "$out/device.log"
# The device returns a few files from $OUT, not deep folders: everything in one archive.
tar -C "$out" -czf "$out/device-runs.tar.gz" device.log run-tulu3-ref run-tulu3-mbs16 submitted &&
  rm -rf "$out/run-tulu3-ref" "$out/run-tulu3-mbs16" "$out/submitted"
