#!/usr/bin/env bash
# Makes registry/rules/options/megatron-lm.json, Megatron-LM's own argument table (tools/framework_options.py), from
# the parser of Megatron-LM d98e8a64. Megatron imports torch, so the parser is built on the device machine:
#   here:   MEGATRON_MIRROR=<git dir of NVIDIA/Megatron-LM> tests/run/device/options.sh prepare
#   device: tests/run/device/options.sh run      (carry build/device-options; writes $OUT/megatron-lm.json)
# then copy the file to registry/rules/options/megatron-lm.json.
set -euo pipefail
cd "$(dirname "$0")/../../.."
d=$PWD/build/device-options
commit=d98e8a64ddf34856e74b24714e3bedb2f5a39553
case "${1:-}" in
  prepare)
    mirror=${MEGATRON_MIRROR:?set MEGATRON_MIRROR to a git directory of NVIDIA/Megatron-LM that holds $commit}
    rm -rf "$d" && mkdir -p "$d"
    git init -q "$d/Megatron-LM"
    git -C "$d/Megatron-LM" fetch -q --depth 1 "file://$mirror" "$commit"
    git -C "$d/Megatron-LM" sparse-checkout set --no-cone /megatron/
    git -C "$d/Megatron-LM" -c advice.detachedHead=false checkout -q FETCH_HEAD
    [ "$(git -C "$d/Megatron-LM" rev-parse HEAD)" = "$commit" ]
    du -sh "$d" ;;
  run)
    export PYTHONDONTWRITEBYTECODE=1
    out=${OUT:-/tmp}
    python3 tools/framework_options.py megatron-lm "$d/Megatron-LM" > "$out/megatron-lm.json"
    python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); print(t["commit"], len(t["options"]), "options")' \
      "$out/megatron-lm.json" ;;
  *) echo "usage: options.sh prepare|run" >&2; exit 2 ;;
esac
