# wobble — build, test, benchmark, install.
#
#   make            release build: build/wobble
#   make test       install missing Debian packages, check the layers, build, run every test
#   make layers     check that includes in src/ go one way (scripts/check-layers.sh)
#   make asan       ASan+UBSan build running the whole suite
#   make CC=clang BUILD=build-clang unit cli   the suite built by Clang
#   make fuzz       libFuzzer campaign, FUZZ_SECONDS (1800) per harness, then coverage
#   make fuzz-smoke the crash inputs of tests/fuzz/regress, then FUZZ_SMOKE_SECONDS each
#   make bench      benchmarks (side by side with ../shared/anchors when present)
#   make demo       render examples/photo-grab.yaml to out/demo.mp4
#   make install PREFIX=/usr/local DESTDIR=
#
# Warnings are errors in CI (WERROR=1 is the default).  Floating-point
# contraction is off so results never depend on the optimizer's mood.

PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   ?= build
CC      ?= cc
PKG_CONFIG ?= pkg-config
VERSION := 0.1.0

LIBS_PC := libpng libavformat libavcodec libavfilter libavutil libswscale yaml-0.1 freetype2
WERROR  ?= 1

BASE_CFLAGS := -std=c17 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wno-unused-parameter -ffp-contract=off -fno-fast-math \
	-D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -DWB_VERSION='"$(VERSION)"' \
	-Isrc -MMD -MP
ifeq ($(WERROR),1)
BASE_CFLAGS += -Werror
endif
OPT_CFLAGS ?= -O2 -g
CFLAGS_PC = $(shell $(PKG_CONFIG) --cflags $(LIBS_PC) 2>/dev/null)
LIBS      = $(shell $(PKG_CONFIG) --libs $(LIBS_PC) 2>/dev/null) -lm -lpthread
CRIT_LIBS = $(shell $(PKG_CONFIG) --libs criterion 2>/dev/null || echo -lcriterion)

SRCS     := $(shell find src -name '*.c' | LC_ALL=C sort)
LIB_SRCS := $(filter-out src/main.c,$(SRCS))
TEST_SRCS := $(sort $(wildcard tests/unit/*.c))
BENCH_SRCS := $(sort $(wildcard bench/*.c))

OBJS      = $(LIB_SRCS:%.c=$(BUILD)/%.o)
TEST_OBJS = $(TEST_SRCS:%.c=$(BUILD)/%.o)

.PHONY: all deps layers test unit cli asan bench demo install uninstall clean examples \
	fuzz fuzz-smoke fuzz-bins

all: $(BUILD)/wobble

deps:
	@sh scripts/deps.sh

# Quiet by default; `make V=1` shows the commands.
Q := $(if $(filter 1,$(V)),,@)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(BASE_CFLAGS) $(OPT_CFLAGS) $(CFLAGS_PC) $(EXTRA_CFLAGS) $(TARGET_CFLAGS) -c $< -o $@

# Lane kernels: each *_w8.c / *_w16.c is one width of a kernel body written
# once (see src/core/simd.h) and gets that width's target flags, x86-64 only.
ifneq ($(filter x86_64%,$(shell $(CC) -dumpmachine)),)
$(BUILD)/%_w8.o: TARGET_CFLAGS := -mavx2
$(BUILD)/%_w16.o: TARGET_CFLAGS := -mavx2 -mavx512f -mavx512bw -mavx512dq
endif

$(BUILD)/libwobble.a: $(OBJS)
	@rm -f $@
	$(Q)ar rcs $@ $^

$(BUILD)/wobble: $(BUILD)/src/main.o $(BUILD)/libwobble.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(OPT_CFLAGS) $(EXTRA_CFLAGS) -o $@ $^ $(LIBS) $(EXTRA_LDFLAGS)

$(BUILD)/test_unit: $(TEST_OBJS) $(BUILD)/libwobble.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(OPT_CFLAGS) $(EXTRA_CFLAGS) -o $@ $^ $(CRIT_LIBS) $(LIBS) $(EXTRA_LDFLAGS)

$(BUILD)/bench/%: $(BUILD)/bench/%.o $(BUILD)/libwobble.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(OPT_CFLAGS) $(EXTRA_CFLAGS) -o $@ $^ $(LIBS) $(EXTRA_LDFLAGS)

# Unit tests (Criterion), then the command-line suite against the binary,
# TEST_JOBS at a time each; CLI_TESTS picks CLI tests by "file:function".
TEST_JOBS ?= 2
unit: $(BUILD)/test_unit
	cd tests && $(abspath $(BUILD))/test_unit --jobs $(TEST_JOBS) $(CRITERION_FLAGS)

cli: $(BUILD)/wobble
	WOBBLE=$(abspath $(BUILD)/wobble) sh tests/cli/run.sh --jobs $(TEST_JOBS) $(CLI_TESTS)

# Includes go one way: core < scene, sim, io < render < run < cli < main.c.
layers:
	sh scripts/check-layers.sh

test: deps layers
	$(MAKE) --no-print-directory unit cli

# Sanitizer build in its own tree; the whole suite runs against it.
asan: deps
	$(MAKE) --no-print-directory BUILD=build-asan \
		OPT_CFLAGS="-O1 -g -fno-omit-frame-pointer" \
		EXTRA_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all" \
		EXTRA_LDFLAGS="-fsanitize=address,undefined" \
		WOBBLE_ASAN=1 unit cli

# libFuzzer harnesses (tests/fuzz/fuzz_*.c) call the loaders in-process.
# libFuzzer ships with Clang only, so they build with Clang in their own
# trees: build-fuzz (ASan+UBSan, coverage-guided) and build-fuzz-cov
# (source-based coverage, to report which loader lines the corpus reaches).
# tests/fuzz/run.sh runs them, keeps the growing corpus and any crash in
# build-fuzz/ and prints executions and coverage at the end.
FUZZ_SECONDS ?= 1800
FUZZ_SMOKE_SECONDS ?= 20
FUZZ_JOBS ?= 2
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS = $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzz/%)
# The loaders sit in the bottom layers (core, scene, io; the weight map in
# sim): the harnesses link only those, which spares building the renderer
# (all but fuzz_state, below).
FUZZ_OBJS = $(filter $(BUILD)/src/core/% $(BUILD)/src/scene/% $(BUILD)/src/io/% \
	$(BUILD)/src/sim/weightmap.o,$(OBJS))
FUZZ_MAKE = $(MAKE) --no-print-directory CC=clang OPT_CFLAGS="-O1 -g -fno-omit-frame-pointer"

fuzz-bins: $(FUZZ_BINS)
.SECONDARY: $(FUZZ_SRCS:%.c=$(BUILD)/%.o)

$(BUILD)/libwobble-loaders.a: $(FUZZ_OBJS)
	@rm -f $@
	$(Q)ar rcs $@ $^

$(BUILD)/fuzz/%: $(BUILD)/tests/fuzz/%.o $(BUILD)/libwobble-loaders.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(OPT_CFLAGS) $(EXTRA_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LIBS) $(EXTRA_LDFLAGS)

# The state harness restores a runner (run/snapshot.c), so it links the
# whole library.
$(BUILD)/fuzz/fuzz_state: $(BUILD)/tests/fuzz/fuzz_state.o $(BUILD)/libwobble.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(OPT_CFLAGS) $(EXTRA_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LIBS) $(EXTRA_LDFLAGS)

fuzz: deps
	$(FUZZ_MAKE) BUILD=build-fuzz \
		EXTRA_CFLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" \
		EXTRA_LDFLAGS="-fsanitize=address,undefined" fuzz-bins
	$(FUZZ_MAKE) BUILD=build-fuzz-cov \
		EXTRA_CFLAGS="-fsanitize=fuzzer-no-link -fprofile-instr-generate -fcoverage-mapping" \
		EXTRA_LDFLAGS="-fprofile-instr-generate" fuzz-bins
	sh tests/fuzz/run.sh --seconds $(FUZZ_SECONDS) --jobs $(FUZZ_JOBS) \
		--build build-fuzz --cov-build build-fuzz-cov

fuzz-smoke: deps
	$(FUZZ_MAKE) BUILD=build-fuzz \
		EXTRA_CFLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" \
		EXTRA_LDFLAGS="-fsanitize=address,undefined" fuzz-bins
	sh tests/fuzz/run.sh --seconds $(FUZZ_SMOKE_SECONDS) --jobs $(FUZZ_JOBS) \
		--build build-fuzz

bench: deps $(BUILD)/wobble $(BENCH_SRCS:%.c=$(BUILD)/%)
	sh bench/run.sh $(BUILD)

examples/photo.png: $(BUILD)/wobble
	$(BUILD)/wobble testcard -o $@

demo: deps
	$(MAKE) --no-print-directory $(BUILD)/wobble
	@mkdir -p out
	$(BUILD)/wobble render examples/photo-grab.yaml -o out/demo.mp4
	@echo "demo: out/demo.mp4"

install: $(BUILD)/wobble
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BUILD)/wobble $(DESTDIR)$(PREFIX)/bin/wobble
	install -m 644 man/wobble.1 $(DESTDIR)$(PREFIX)/share/man/man1/wobble.1

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/wobble $(DESTDIR)$(PREFIX)/share/man/man1/wobble.1

clean:
	rm -rf build build-asan build-clang build-fuzz build-fuzz-cov out

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
