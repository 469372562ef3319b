#!/usr/bin/env bash
# The multi-GPU runs, on a device kind with several H200s (nvidia-h200-x2, -x4 or -x8; torch, torchrun; no network),
# after tests/run/device/multi/prepare.sh here (carry build/device-megatron). For each recipe of RECIPES (default: every
# draft whose GPU count fits this machine, the MoE reference moe-ep2 first):
#   1. relayout check: `openrecipes relayout <reference> --gpus G [--tp --pp --ep]` must print the draft's command
#      (word for word, but for --sequence-parallel, which a dense draft adds and relayout adds to MoE at TP > 1); a
#      difference stops that recipe (tests/run/test_device_drafts.py checks the same on the CPU machine);
#   2. `openrecipes run --launcher local` (evidence captured by the tool), then `openrecipes submit` against its
#      reference (moe-ep2 with --reference none) into a registry of its own, and `openrecipes build` of it;
#   3. once per machine: the layout relayout rejects (tulu3-mbs16 on 4 GPUs: DP 4 x micro-batch 16 does not divide
#      the global batch of 32), started with torchrun directly, its exit status and last lines recorded.
# $OUT gets multi-runs.tar.gz: device.log, run-<name>/ and submitted/ (the recipes submit wrote, with evidence).
set -uo pipefail
cd "$(dirname "$0")/../../../.."
source tests/run/device/device-env.sh
out=${OUT:-/tmp/device-multi-out}; mkdir -p "$out"
bin=$d/bin/openrecipes
reg=$d/multi/registry
target=$d/multi/submitted-registry
gpus_here=$(nvidia-smi -L | wc -l)
mkdir -p "$target/recipes/qwen3-0.6b/H200"
[ -f "$target/gpus.yaml" ] || { cp -r "$reg/gpus.yaml" "$reg/models" "$reg/rules" "$target/" &&
  cp -r "$reg/recipes/qwen3-0.6b/H200/tulu3-ref" "$target/recipes/qwen3-0.6b/H200/"; }
field() { sed -n "s/^$1: //p" "$2"; }
layout() { sed -n 's/^layout: {\(.*\)}/\1/p' "$1" | tr -d ' ' | tr ',' '\n' | sed -n "s/^$2://p"; }
words() { sed -n '/^command: |/,/^[a-z_]*:/p' "$1" | sed '1d;$d' | tr -d '\\' | tr -s ' \n' '\n\n' | sed '/^$/d'; }
default=$(for f in "$reg"/recipes/*/H200/*/recipe.yaml; do
  [ "$(field gpus "$f")" -le "$gpus_here" ] && [ "$(field id "$f")" != tulu3-ref ] && echo "$(field id "$f")"
done | sort | sed '/^moe-ep2$/d')
{
  echo "== $gpus_here GPUs: $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | tr -s ' ')"
  for name in ${RECIPES:-moe-ep2 $default}; do
    f=$(ls "$reg"/recipes/*/H200/"$name"/recipe.yaml) || continue
    model=$(field model "$f") ref=$(field reference "$f")
    echo "== $name ($model, $(field gpus "$f") GPUs, reference $ref)"
    if [ "$ref" != null ]; then
      args=(--gpus "$(field gpus "$f")")
      for p in tp pp ep; do [ "$(layout "$f" $p)" = 1 ] || args+=(--$p "$(layout "$f" $p)"); done
      "$bin" relayout "$target/recipes/$model/H200/$ref" "${args[@]}" >"$out/relayout-$name.txt"
      echo "relayout ${args[*]}: rc=$?"
      predicted=$(sed '1,/^$/d' "$out/relayout-$name.txt" | tr -d '\\' | tr -s ' \n' '\n\n' | sed '/^$/d' |
        grep -vx -- --sequence-parallel)
      if [ "$predicted" = "$(words "$f" | grep -vx -- --sequence-parallel)" ]; then
        echo "relayout predicted the command"
      else
        echo "relayout's command differs:"; diff <(echo "$predicted") <(words "$f"); continue
      fi
    fi
    timeout "${TRAIN_TIMEOUT:-500}" "$bin" run "$(dirname "$f")" --launcher local \
      --var "MEGATRON_LM=$d/Megatron-LM" --var "SFT_DATA=$d/rows/rows" -o "$out/run-$name" | grep -v " iteration "
    echo "run rc=${PIPESTATUS[0]}"
    grep -E " iteration +(1|5|19|20)/" "$out/run-$name/nodes/0/train.log" | cut -c1-220
    refarg=(--reference none)
    [ "$ref" != null ] && refarg=(--reference "$target/recipes/$model/H200/$ref")
    "$bin" submit "$out/run-$name" "${refarg[@]}" --author openrecipes --registry "$target" --name "$name"
    echo "submit rc=$?"
  done
  if [ "$gpus_here" -ge 4 ] && [ -z "${RECIPES:-}" ]; then
    echo "== rejected layout: tulu3-mbs16 on 4 GPUs"
    "$bin" relayout registry/recipes/qwen3-0.6b/H200/tulu3-mbs16 --gpus 4; echo "relayout rc=$?"
    cmd=$(words registry/recipes/qwen3-0.6b/H200/tulu3-mbs16/recipe.yaml | sed "s|\$MEGATRON_LM|$d/Megatron-LM|;s|\$SFT_DATA|$d/rows/rows|")
    mapfile -t argv <<<"$cmd"
    argv[2]=4  # torchrun --nproc-per-node 4
    timeout 300 "${argv[@]}" >"$out/rejected-tulu3-mbs16-4gpu.log" 2>&1
    echo "torchrun rc=$?"; grep -m3 -E "AssertionError|Error" "$out/rejected-tulu3-mbs16-4gpu.log" | cut -c1-300
  fi
  "$bin" build "$target"
  mkdir -p "$out/submitted" && cp -r "$target/recipes" "$target/models" "$out/submitted/"
} 2>&1 | tee -a "$out/device.log"
tar -C "$out" -czf "$out/multi-runs.tar.gz" --exclude multi-runs.tar.gz . 2>/dev/null
find "$out" -mindepth 1 -maxdepth 1 ! -name multi-runs.tar.gz -exec rm -rf {} +
