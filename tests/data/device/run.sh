#!/usr/bin/env bash
# On the device machine (torch, pyarrow, pytest; no network): the data/ tests with pyarrow, then the plugin against
# slime's own code at 624b824a. Needs build/device/{slime,rows}, which tests/data/device/prepare.sh makes on the CPU
# machine (run's `carry: ["build/device"]` takes them along). Writes everything it prints to $OUT/device.log too.
set -uo pipefail
cd "$(dirname "$0")/../../.."
repo=$PWD
export SLIME_ROOT=$repo/build/device/slime OPENRECIPES_TEST_ROWS=$repo/build/device/rows PYTHONDONTWRITEBYTECODE=1
log=${OUT:-/tmp}/device.log
{
  echo "== machine"; nvidia-smi -L 2>/dev/null | head -1
  python3 -c 'import sys, torch, numpy, pyarrow, pytest; print(sys.version.split()[0], "torch", torch.__version__, "numpy", numpy.__version__, "pyarrow", pyarrow.__version__, "pytest", pytest.__version__)'
  echo "== 1. tests/data (the CI tests) with pyarrow, on rows built on the CPU machine"
  python3 -m pytest -q -rs -p no:cacheprovider tests/data --ignore=tests/data/device; echo "rc=$?"
  echo "== 2. the plugin through slime 624b824a's own code"
  (cd tests/data/device && python3 -m pytest -v -s -p no:cacheprovider test_slime_624b824a.py); echo "rc=$?"
  echo "== 3. slime's contract test file, our plugin as SLIME_CONTRACT_ROLLOUT_FUNCTION_PATH"
  (cd "$SLIME_ROOT/tests" && SLIME_CONTRACT_ROLLOUT_FUNCTION_PATH=pretokenized_sft_rollout.generate_rollout \
     PYTHONPATH="$repo/data:$repo/tests/data/device" \
     python3 -m pytest -v -p placeholders -p no:cacheprovider plugin_contracts/test_plugin_rollout_contracts.py)
  echo "rc=$?"
} 2>&1 | tee "$log"
