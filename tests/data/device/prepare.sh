#!/usr/bin/env bash
# On the CPU machine, before tests/data/device/run.sh goes to the device: slime's tree at 624b824a (the package and
# its plugin-contract tests, from a local mirror: SLIME_MIRROR, a git directory) and the fixture rows, into
# build/device/ (git-ignored; about 2.5 MB).
set -euo pipefail
cd "$(dirname "$0")/../../.."
mirror=${SLIME_MIRROR:?set SLIME_MIRROR to a git directory of THUDM/slime that holds commit 624b824a}
rm -rf build/device && mkdir -p build/device/slime
git -C "$mirror" archive 624b824a898ab0ec1fcb4d373004c7f3852bf515 slime tests/plugin_contracts | tar -x -C build/device/slime
OPENRECIPES_BIN=${OPENRECIPES_BIN:-$PWD/build/openrecipes} /usr/bin/python3 tests/data/rows_fixture.py build/device/rows
du -sh build/device
