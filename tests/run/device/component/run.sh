#!/usr/bin/env bash
# On the device machine (one H200; torch; no Transformer Engine or apex; no network): `openrecipes
# component-test` of each draft of build/device-megatron/component/registry (tests/run/device/component/prepare.sh made
# it; carry build/device-megatron), then `openrecipes run --launcher local` of tulu3-cefusion, the recipe to submit.
# TESTS (default: every draft with a reference) and RUNS (default: tulu3-cefusion; "none" for none) pick what runs.
# Writes to $OUT: ct-<draft>/ (raw outputs and the runner's logs), run-<name>/ (the run directory), device.log, all
# packed into component-runs.tar.gz.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
source tests/run/device/device-env.sh
out=${OUT:-/tmp/device-component-out}; mkdir -p "$out"
openrecipes=$d/bin/openrecipes
reg=$d/component/registry
vars=(--var "MEGATRON_LM=$d/Megatron-LM" --var "SFT_DATA=$d/rows/rows")
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  for name in ${TESTS:-tulu3-cefusion tulu3-swiglu-unfused moe-ep2-allgather moe-ep2-groupedgemm}; do
    dir=$(ls -d "$reg"/recipes/*/H200/"$name")
    echo "== openrecipes component-test $name"
    start=$(date +%s)
    timeout "${TEST_TIMEOUT:-300}" "$openrecipes" component-test "$dir" "${vars[@]}" -o "$out/ct-$name"
    echo "rc=$? ($(( $(date +%s) - start )) s)"
  done
  for name in ${RUNS:-tulu3-cefusion}; do
    [ "$name" = none ] && continue
    echo "== openrecipes run $name"
    start=$(date +%s)
    timeout "${TRAIN_TIMEOUT:-400}" "$openrecipes" run "$reg/recipes/qwen3-0.6b/H200/$name" --launcher local \
      "${vars[@]}" -o "$out/run-$name" | grep -v " iteration "
    echo "rc=${PIPESTATUS[0]} ($(( $(date +%s) - start )) s)"
    grep -E " iteration +(1|5|19|20)/" "$out/run-$name/nodes/0/train.log" | cut -c1-200
  done
} 2>&1 | tee "$out/device.log"
# The device returns a few files from $OUT, not deep folders: everything in one archive.
(cd "$out" && shopt -s nullglob && tar -czf component-runs.tar.gz device.log ct-* run-* && rm -rf ct-* run-*)
ls -la "$out"
