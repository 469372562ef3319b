# The two commands a newcomer needs (README): `make run` runs the main job on the bundled registry,
# `make test` runs the tests. Each installs what its own step needs first (scripts/bootstrap run|test|asan, idempotent):
# `make run` configures without the tests and compiles the openrecipes binary alone.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

ASAN_BUILD ?= build-asan
PREFIX ?= /usr/local
FUZZ_SECONDS ?= 60

.PHONY: bootstrap configure build build-binary run install test bench clean build-asan test-asan fuzz
bootstrap:
	@scripts/bootstrap test

configure: bootstrap
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPENRECIPES_TESTS=ON $(CMAKE_FLAGS) >/dev/null

# The build's progress goes to stderr, so `make run`'s stdout is the program's output alone (the README shows it).
build: configure
	@cmake --build $(BUILD) -j $(JOBS) 1>&2

# The main job's build: its own packages, no test targets (no GoogleTest, node, chromium, Slurm or clang needed).
build-binary:
	@scripts/bootstrap run
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPENRECIPES_TESTS=OFF $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target openrecipes 1>&2

run: build-binary
	@$(BUILD)/openrecipes build registry

# The binary on PATH (PREFIX/bin, PREFIX /usr/local unless given), so the printed commands work as printed.
install: build-binary
	@cmake --install $(BUILD) --prefix $(PREFIX)

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 900

# The sanitizer build (clang: ASan + UBSan without recovery, libFuzzer's coverage), its whole test suite, and the fuzz
# targets of fuzz/ for FUZZ_SECONDS each (fuzz/README.md).
build-asan:
	@scripts/bootstrap asan
	@cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DOPENRECIPES_SANITIZE=ON -DOPENRECIPES_FUZZ=ON -DOPENRECIPES_UNITY=OFF $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS) 1>&2

test-asan: build-asan
	@scripts/test-asan $(ASAN_BUILD) $(JOBS)

fuzz: build-asan
	@FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz/run $(ASAN_BUILD)

bench: build
	@bench/run $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
