#!/usr/bin/env bash
# Issue 43's speed target: `build registry -o site/` with every model of the bundled registry planned for its page
# (registry/starting_points.h: every GPU type of registry/gpus.yaml x 6 GPU counts a model) in under 15 s on 2 cores: the median of RUNS builds
# (default 5), wall clock, each into a fresh folder. Beside it, once, the way without best_layouts: one `openrecipes
# plan` a model, GPU type and count (what a user would type for each starting point), summed.
# Usage: bench/model_pages.sh [path/to/openrecipes]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/openrecipes}
runs=${RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
times=()
for i in $(seq "$runs"); do
  start=$(date +%s.%N)
  "$bin" build registry -o "$work/site$i" >/dev/null 2>&1
  end=$(date +%s.%N)
  times+=("$(echo "$end - $start" | bc)")
done
models=$(ls registry/models/*.yaml | wc -l)
gpu_types=$(sed -n 's/^  \([A-Za-z0-9][A-Za-z0-9_.-]*\):$/\1/p' registry/gpus.yaml)
types=$(echo "$gpu_types" | wc -w)
median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
echo "build registry -o site/ ($models models, $types GPU types x 6 counts each planned): median of $runs: $(printf "%.2f" "$median") s (cores: $(nproc))"
start=$(date +%s.%N)
for m in registry/models/*.yaml; do
  for gpu in $gpu_types; do
    for g in 8 16 32 64 128 256; do
      "$bin" plan --model "$(basename "$m" .yaml)" --gpu "$gpu" --gpus "$g" --top 1 >/dev/null || true  # 1: none fits
    done
  done
done
end=$(date +%s.%N)
echo "one plan a model, GPU type and count ($((models * types * 6)) runs), once: $(printf "%.2f" "$(echo "$end - $start" | bc)") s"
