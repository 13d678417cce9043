# Front door: `make demo` builds Release and runs the demo; `make test` builds with
# AddressSanitizer + UndefinedBehaviorSanitizer and runs every test. Both install missing
# Debian packages first (scripts/install-deps.sh).
JOBS ?= $(shell nproc)
BUILD ?= build
TEST_BUILD ?= build-asan

.PHONY: all deps demo build test bench install format clean

all: build

deps:
	@bash scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	./$(BUILD)/ctorch demo

test: deps
	cmake -S . -B $(TEST_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCT_SANITIZE=ON -DCT_WERROR=ON
	cmake --build $(TEST_BUILD) -j $(JOBS)
	cd $(TEST_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --output-on-failure -j $(JOBS)

bench: build
	@for b in $(BUILD)/bench_*; do echo "== $$b"; ./$$b; done

install: build
	cmake --install $(BUILD) --prefix $(or $(PREFIX),/usr/local)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(TEST_BUILD)
