#!/usr/bin/env bash
# Issue 28's speed target: every layout of DeepSeek-V3 (../shared/fixtures/configs/DeepSeek-V3/config.json: 61
# layers, 256 experts, MLA) on 256 H200s planned in under 1 s on 2 cores, JSON of every layout written. There is no
# other planner to run beside it (Megatron's theoretical_memory_usage.py estimates one given layout and does not
# search), so the bench times the command alone: the median of RUNS runs (default 5), wall clock.
# Usage: bench/plan.sh [path/to/openrecipes]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/openrecipes}
config=${OPENRECIPES_FIXTURES:-../shared/fixtures}/configs/DeepSeek-V3/config.json
[ -f "$config" ] || { echo "bench/plan.sh: no $config (../shared/fixtures)" >&2; exit 2; }
runs=${RUNS:-5}
times=()
for _ in $(seq "$runs"); do
  start=$(date +%s.%N)
  "$bin" plan --model "$config" --gpu H200 --gpus 256 --json >/tmp/openrecipes-plan-bench.json
  end=$(date +%s.%N)
  times+=("$(echo "$end - $start" | bc)")
done
count=$(grep -c '"tp":' /tmp/openrecipes-plan-bench.json)
median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
echo "DeepSeek-V3 on 256 x H200: $count layouts planned and written as JSON; median of $runs runs: $(printf "%.2f" "$median") s (cores: $(nproc))"
