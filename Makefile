# The two commands a newcomer needs (README): `make run` runs the main job on the bundled registry,
# `make test` runs the tests. Both install what is missing first (scripts/bootstrap is idempotent).
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: bootstrap configure build run test bench clean
bootstrap:
	@scripts/bootstrap

configure: bootstrap
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null

# The build's progress goes to stderr, so `make run`'s stdout is the program's output alone (the README shows it).
build: configure
	@cmake --build $(BUILD) -j $(JOBS) 1>&2

run: build
	@$(BUILD)/openrecipes build registry

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 900

bench: build
	@bench/run $(BUILD)

clean:
	rm -rf $(BUILD)
