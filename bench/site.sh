#!/usr/bin/env bash
# The site build at scale (issue 10): a generated registry of RECIPES recipes (default 10,000: 100 models x 3 GPU
# types, bench/site/generate_registry.py, every recipe verified, each with its own evidence) built three ways,
# side by side: `build` alone (recompute, check and rank, the text table: the baseline every site build includes),
# `build -o site` into a new folder, and `build -o site` again over the existing site (the staged swap). Prints the
# median wall time and peak RSS of RUNS runs each, the site's size, and checks that two new sites built at one build
# time are byte-identical.
# BASELINE=<another openrecipes binary> (an earlier commit's build) runs the same three commands with it too, each run
# alternating with this build's, and prints its rows beside: on a file system whose speed drifts from run to run (this
# machine's ext4 discards freed blocks), only a side-by-side run compares.
# Usage: bench/site.sh [BUILD_DIR]   (env: RECIPES=10000, MODELS=100, RUNS=3, TMPDIR for where the site is written,
#        BASELINE)
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
# The three commands with binary $1, their times into $tmp/t.$2<kind>.<run>.
three() {
  /usr/bin/time -f "%e %M" -o "$tmp/t.$2build.$r" "$1" build "$tmp/registry" --strict > /dev/null
  rm -rf "$tmp/site"
  /usr/bin/time -f "%e %M" -o "$tmp/t.$2new.$r" "$1" build "$tmp/registry" -o "$tmp/site" > /dev/null 2>&1
  /usr/bin/time -f "%e %M" -o "$tmp/t.$2swap.$r" "$1" build "$tmp/registry" -o "$tmp/site" > /dev/null 2>&1
}
baseline="${BASELINE:-}"
[[ -z "$baseline" || -x "$baseline" ]] || { echo "BASELINE=$baseline is not an executable" >&2; exit 2; }
for ((r = 0; r < runs; r++)); do
  three "$bin" ""
  if [[ -n "$baseline" ]]; then
    three "$baseline" "base-"
    base_files=$(find "$tmp/site" -type f | wc -l) base_mb=$(du -sm "$tmp/site" | cut -f1)
    three "$bin" "again-"  # the site below is this build's
  fi
done
# Determinism, like with like: two new sites of the same registry at one build time (SOURCE_DATE_EPOCH) must be the same
# bytes. (A site built over a previous one differs from a new one by design: its changelog records the earlier builds.)
SOURCE_DATE_EPOCH=1764763200 "$bin" build "$tmp/registry" -o "$tmp/fresh1" > /dev/null 2>&1
SOURCE_DATE_EPOCH=1764763200 "$bin" build "$tmp/registry" -o "$tmp/fresh2" > /dev/null 2>&1
diff -r "$tmp/fresh1" "$tmp/fresh2" > /dev/null && identical=yes || identical=NO
printf '| %-62s | %9s | %9s |\n' "command" "wall (s)" "peak RSS"
printf '| %-62s | %9s | %9s |\n' "---" "---:" "---:"
for k in build new swap; do
  case $k in
    build) label="build registry (recompute, check, rank; no site)" ;;
    new) label="build registry -o site (a new site)" ;;
    swap) label="build registry -o site (over the previous site)" ;;
  esac
  for who in "" "base-"; do
    ls "$tmp"/t.$who$k.* > /dev/null 2>&1 || continue
    # This build's runs, the ones before and after each baseline run when there is one.
    files=("$tmp"/t.$who$k.*)
    [[ -z "$who" && -n "$baseline" ]] && files+=("$tmp"/t.again-$k.*)
    wall=$(cat "${files[@]}" | cut -d' ' -f1 | median)
    rss=$(cat "${files[@]}" | cut -d' ' -f2 | median)
    printf '| %-62s | %9s | %6d MiB |\n' "${label}${who:+, BASELINE}" "$wall" "$((rss / 1024))"
  done
done
echo "site: $(find "$tmp/site" -type f | wc -l) files, $(du -sm "$tmp/site" | cut -f1) MB" \
     "($(find "$tmp/site" -name '*.html' | wc -l) pages); two builds byte-identical: $identical"
[[ -z "$baseline" ]] || echo "BASELINE's site: $base_files files, $base_mb MB"
[[ $identical == yes ]]
