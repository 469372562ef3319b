#!/usr/bin/env bash
# On the device machine (H200s; torch, torchrun, pybind11, g++; no network): `openrecipes tune` of the bundled
# tulu3-ref (real Megatron-LM d98e8a64, --transformer-impl local, the fixture rows at L = 512, 32 rows a step) on GPUS
# GPUs (default 1) within BUDGET minutes (default 8: one device command runs at most 10), then `openrecipes submit`
# of its winner against tulu3-ref into a copy of the bundled registry, as NAME (default tulu3-tuned). Needs
# build/device-megatron from tests/run/device/prepare.sh (carry it).
#
# The work runs from /work/main (the checkout is copied there when it is elsewhere), so the paths the trials record
# are the CPU machine's own: the tune folder that comes back (build/device-tune, unpacked in place) can be submitted
# there again, with `submit --search`. Writes $OUT/device.log and $OUT/device-tune.tar.gz (the tune folder and the
# submitted recipe).
set -uo pipefail
src=$(cd "$(dirname "$0")/../../.." && pwd)
root=/work/main
if [ "$src" != "$root" ]; then mkdir -p "$root" && cp -a "$src/." "$root/"; fi
cd "$root"
source tests/run/device/device-env.sh
out=${OUT:-/tmp/device-tune-out}
mkdir -p "$out"
openrecipes=$d/bin/openrecipes
tune_dir=$root/build/device-tune
reg=$root/build/device-tune-registry
rm -rf "$tune_dir" "$reg" && cp -r registry "$reg"
start=$reg/recipes/qwen3-0.6b/H200/tulu3-ref
{
  echo "== openrecipes tune (started $(date -u +%T))"
  "$openrecipes" tune "$start" --gpus "${GPUS:-1}" --launcher local --budget "${BUDGET:-8}" \
    --var "MEGATRON_LM=$d/Megatron-LM" --var "SFT_DATA=$d/rows/rows" -o "$tune_dir"
  echo "rc=$? (ended $(date -u +%T))"
  if [ -f "$tune_dir/winner/run.json" ]; then
    echo "== openrecipes submit"
    "$openrecipes" submit "$tune_dir/winner" --reference "$start" --author openrecipes --registry "$reg" \
      --name "${NAME:-tulu3-tuned}"
    echo "rc=$?"
  fi
} 2>&1 | tee "$out/device.log"
tar -C "$root/build" -czf "$out/device-tune.tar.gz" device-tune $(cd "$root/build" && ls -d "device-tune-registry/recipes/qwen3-0.6b/H200/${NAME:-tulu3-tuned}" 2>/dev/null)
