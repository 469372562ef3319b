#!/usr/bin/env bash
# make install's rule (cmake --install, as `make install PREFIX=...` runs it) into a scratch prefix: the binary lands in
# PREFIX/bin and runs there on its own, away from the build tree, the main job included.
# Usage: tests/install_test.sh BUILD_DIR REGISTRY
set -euo pipefail
build="$1" registry="$2"
prefix="$(mktemp -d)"
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
test -x "$prefix/bin/openrecipes" || { echo "no $prefix/bin/openrecipes after cmake --install"; exit 1; }
# It links the libduckdb installed beside it, not the build tree's.
# (ldd's output is kept first: `ldd | grep -q` fails under pipefail when grep stops reading early.)
libs="$(ldd "$prefix/bin/openrecipes")"
grep -q "libduckdb.so => $prefix/bin/../lib[^ ]*/openrecipes/libduckdb.so" <<<"$libs" ||
  { echo "the installed binary does not link its own libduckdb:"; echo "$libs"; exit 1; }
cd "$prefix"  # nowhere near the checkout
"$prefix/bin/openrecipes" --version
out="$("$prefix/bin/openrecipes" build "$registry")"
grep -q "Qwen3-0.6B · H200" <<<"$out" || { echo "the installed binary's build printed no board:"; echo "$out"; exit 1; }
echo "installed and ran: $prefix/bin/openrecipes"
