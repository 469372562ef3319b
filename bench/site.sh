#!/usr/bin/env bash
# The site build at scale (issue 10): a generated registry of RECIPES recipes (default 10,000: 100 models x 3 GPU
# types, bench/site/generate_registry.py, every recipe verified, each with its own evidence) built three ways,
# side by side: `build` alone (recompute, check and rank, the text table: the baseline every site build includes),
# `build -o site` into a new folder, and `build -o site` again over the existing site (the staged swap). Prints the
# median wall time and peak RSS of RUNS runs each, the site's size, and checks that two new sites built at one build
# time are byte-identical.
# Usage: bench/site.sh [BUILD_DIR]   (env: RECIPES=10000, MODELS=100, RUNS=3, TMPDIR for where the site is written)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
recipes="${RECIPES:-10000}"
models="${MODELS:-100}"
runs="${RUNS:-3}"
bin="$build/openrecipes"
[[ -x "$bin" ]] || { echo "build openrecipes first (make build)" >&2; exit 2; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
/usr/bin/time -f "%e %M" -o "$tmp/t.gen" python3 "$root/bench/site/generate_registry.py" "$tmp/registry" \
  --models "$models" --gpus 3 --recipes "$recipes" > /dev/null
echo "registry: $recipes recipes, $models models x 3 GPU types, $(du -sm "$tmp/registry" | cut -f1) MB" \
     "(generated in $(cut -d' ' -f1 "$tmp/t.gen") s); $(nproc) cores"
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
for ((r = 0; r < runs; r++)); do
  /usr/bin/time -f "%e %M" -o "$tmp/t.build.$r" "$bin" build "$tmp/registry" --strict > /dev/null
  rm -rf "$tmp/site"
  /usr/bin/time -f "%e %M" -o "$tmp/t.new.$r" "$bin" build "$tmp/registry" -o "$tmp/site" > /dev/null 2>&1
  /usr/bin/time -f "%e %M" -o "$tmp/t.swap.$r" "$bin" build "$tmp/registry" -o "$tmp/site" > /dev/null 2>&1
done
# Determinism, like with like: two new sites of the same registry at one build time (SOURCE_DATE_EPOCH) must be the same
# bytes. (A site built over a previous one differs from a new one by design: its changelog records the earlier builds.)
SOURCE_DATE_EPOCH=1764763200 "$bin" build "$tmp/registry" -o "$tmp/fresh1" > /dev/null 2>&1
SOURCE_DATE_EPOCH=1764763200 "$bin" build "$tmp/registry" -o "$tmp/fresh2" > /dev/null 2>&1
diff -r "$tmp/fresh1" "$tmp/fresh2" > /dev/null && identical=yes || identical=NO
printf '| %-52s | %9s | %9s |\n' "command" "wall (s)" "peak RSS"
printf '| %-52s | %9s | %9s |\n' "---" "---:" "---:"
for k in build new swap; do
  case $k in
    build) label="build registry (recompute, check, rank; no site)" ;;
    new) label="build registry -o site (a new site)" ;;
    swap) label="build registry -o site (over the previous site)" ;;
  esac
  wall=$(cat "$tmp"/t.$k.* | cut -d' ' -f1 | median)
  rss=$(cat "$tmp"/t.$k.* | cut -d' ' -f2 | median)
  printf '| %-52s | %9s | %6d MiB |\n' "$label" "$wall" "$((rss / 1024))"
done
echo "site: $(find "$tmp/site" -type f | wc -l) files, $(du -sm "$tmp/site" | cut -f1) MB" \
     "($(find "$tmp/site" -name '*.html' | wc -l) pages); two builds byte-identical: $identical"
[[ $identical == yes ]]
