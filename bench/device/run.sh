#!/usr/bin/env bash
# On the device machine (16 cores; transformers, tokenizers, numpy and pyarrow installed; no network): the rows-build
# benchmark of bench/rows_scale.sh with the programs and fixtures bench/device/prepare.sh packed into build/device-rows.
# STEPS (default "scale full"): scale = COPIES=2000 at THREADS (default "1 4 16") beside the HF stack at HF_THREADS
# (default "4 16"); full = COPIES=9600, the full-scale input, at FULL_THREADS (default 16), ours and encode-only;
# hf1 = the HF stack alone with 1 worker on the COPIES=2000 input. Tables and logs go to $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
d=$PWD/build/device-rows
out=${OUT:-/tmp/device-rows-out}; mkdir -p "$out"
python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$d/lib/libs.tar.xz" "$d/lib"
export OPENRECIPES_FIXTURES=$d/fixtures PYTHONUNBUFFERED=1
work=/tmp/rows-bench; mkdir -p "$work"
{
  echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)," \
    "$(free -g | awk '/Mem:/{print $2}') GiB"
  python3 -c 'import transformers as t, tokenizers as k, numpy as n, pyarrow as p
print("transformers", t.__version__, "tokenizers", k.__version__, "numpy", n.__version__, "pyarrow", p.__version__)'
  for step in ${STEPS:-scale full}; do
    echo "== $step"
    case "$step" in
      scale) COPIES=2000 THREADS="${THREADS:-1 4 16}" RUNS=${RUNS:-3} REFERENCE=hf REF_THREADS="${HF_THREADS:-4 16}" \
               WORK=$work/2000 bench/rows_scale.sh "$d/bin" ;;
      full) COPIES=9600 THREADS="${FULL_THREADS:-16}" RUNS=1 REFERENCE=none WORK=$work/9600 \
              bench/rows_scale.sh "$d/bin" ;;
      hf1) COPIES=2000 THREADS=16 RUNS=1 REFERENCE=hf REF_THREADS=1 WORK=$work/2000 bench/rows_scale.sh "$d/bin" ;;
    esac
    echo "rc=$?"
  done
} 2>&1 | tee "$out/device-rows.log"
