# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make            build everything into build/
# make test       install missing packages, mount bpffs, build, run all tests
#                 (the kernel matrix last)
# make test-kernels  the kernel matrix alone: Debian's 6.1, 6.12 and newest
#                 kernels under QEMU, tests/kernels/ inside each
# make test-kernels-soak  a million frames through zero-copy on the newest
# make bench      benchmarks (not tests): tables and JSON in build/bench/
# make fuzz       each fuzz target for FUZZ_SECONDS (300), then the 1M-frame
#                 BPF-vs-userspace parser differential (scripts/fuzz.sh)
# make install    PREFIX=/usr/local, DESTDIR honoured (scripts/install.sh)
# make deb        Debian packages xrx and libxrx-dev (debian/) in build/deb/
# make V=1        show the commands
#
# Sources are discovered, not listed: user/lib/{gro,sink,afxdp}/*.c is
# libxrx (three layers, see docs/architecture.md), user/util/*.c the
# frame builder the tools, tests and benchmarks share, user/tools/*.c
# are programs, tests/unit/test_*.c and tests/bpf/test_*.c are test
# binaries, tests/integration/test_*.sh are integration tests,
# tests/helpers/*.c are programs the integration tests drive. Nothing
# that is installed builds from tests/.

.DELETE_ON_ERROR:
.SUFFIXES:

BUILD     ?= build
CC        ?= gcc
CLANG     ?= clang
BPFTOOL   ?= bpftool
SANITIZE  ?=

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
PKGS      := libbpf libxdp libpcap libzstd
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

CFLAGS   ?= -O2 -g
XCFLAGS  := -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter \
	    -D_GNU_SOURCE -Iinclude -I$(BUILD)
# Every object and program records the headers it included (NAME.d next to
# it), so a header change rebuilds exactly what uses it.
DEPFLAGS  = -MMD -MP -MF $@.d
# The library's own headers ("gro/gro.h", "afxdp/afxdp.h") are
# visible to the library and to the tests that test its parts, not to the
# tools and examples, which use include/xrx/ only.
LIB_INC  := -Iuser/lib
ifeq ($(SANITIZE),1)
XCFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer \
	    -fno-sanitize-recover=undefined -DXRX_DEBUG=1
LDSAN    := -fsanitize=address,undefined
endif
# clang's -Wextra also flags positional initialisers that leave trailing
# members zero (gcc does not); the code relies on that C rule on purpose.
ifneq ($(findstring clang,$(notdir $(CC))),)
XCFLAGS  += -Wno-missing-field-initializers
endif
BPF_CFLAGS := -target bpf -O2 -g -Wall -Werror -D__bpf__ -Iinclude \
	      -I/usr/include/$(MULTIARCH)

BPF_SRCS   := $(wildcard bpf/*.bpf.c)
# xrx_rx is built a second time with XRX_RX_HW_META: the device-bound
# variant that reads the NIC's VLAN tag and hash; and a third time with
# XRX_RX_COMPAT, for kernels without bpf_cast_to_kern_ctx() (Debian 12's
# 6.1). bpf/xrx_rx.bpf.c says why.
XRX_RX_VARIANTS := xrx_rx_hw xrx_rx_compat
# A fourth, without metadata, only for xdp-loader to chain behind libxdp's
# dispatcher on kernels that refuse the others there (no skeleton).
BPF_OBJS   := $(patsubst bpf/%.bpf.c,$(BUILD)/%.bpf.o,$(BPF_SRCS)) \
	      $(patsubst %,$(BUILD)/%.bpf.o,$(XRX_RX_VARIANTS)) \
	      $(BUILD)/xrx_rx_chain.bpf.o
BPF_SKELS  := $(patsubst bpf/%.bpf.c,$(BUILD)/%.skel.h,$(BPF_SRCS)) \
	      $(patsubst %,$(BUILD)/%.skel.h,$(XRX_RX_VARIANTS))
# BPF objects are not built with $(DEPFLAGS) (clang -target bpf): they
# depend on every shared header.
HDRS       := $(wildcard include/xrx/*.h)

# libxrx in three layers, each using only the ones above it:
#   gro/    header-only copy and the GRO engine; needs libc only
#   sink/   null, pcap, tun; uses the engine's packets and checksums
#   afxdp/  xrx_rx attach, UMEM, AF_XDP sockets, workers; uses both
# and under all three user/lib/*.c: the options table (opts.c), libc only.
# libxrx-gro.a is the engine alone: the DPDK test and the GRO benchmark
# link it without libbpf, libxdp or libpcap, which keeps the direction
# honest. libxrx.a is all three.
BASE_OBJS  := $(patsubst user/lib/%.c,$(BUILD)/obj/lib/%.o,$(wildcard user/lib/*.c))
GRO_OBJS   := $(patsubst user/lib/%.c,$(BUILD)/obj/lib/%.o,$(wildcard user/lib/gro/*.c))
SINK_OBJS  := $(patsubst user/lib/%.c,$(BUILD)/obj/lib/%.o,$(wildcard user/lib/sink/*.c))
AFXDP_OBJS := $(patsubst user/lib/%.c,$(BUILD)/obj/lib/%.o,$(wildcard user/lib/afxdp/*.c))
LIB_OBJS   := $(BASE_OBJS) $(GRO_OBJS) $(SINK_OBJS) $(AFXDP_OBJS)
LIBXRX     := $(BUILD)/libxrx.a
# The shared build: only what include/xrx/ marks XRX_API is exported,
# each under the version user/lib/libxrx.map gives it.
LIBXRXSO   := $(BUILD)/libxrx.so.0
LIBXRX_MAP := user/lib/libxrx.map
LIBXRXGRO  := $(BUILD)/libxrx-gro.a

TOOL_SRCS  := $(wildcard user/tools/*.c)
TOOLS      := $(patsubst user/tools/%.c,$(BUILD)/%,$(TOOL_SRCS))

# user/util: code the tools share with the tests and benchmarks (the frame
# builder) and the command-line tables every program uses (cli.h), as
# xdp-tools keeps lib/util. Not part of libxrx, not
# installed; included as "util/frames.h".
UTIL_OBJS  := $(patsubst user/util/%.c,$(BUILD)/obj/util/%.o,$(wildcard user/util/*.c))
LIBXRXUTIL := $(BUILD)/libxrxutil.a
UTIL_INC   := -Iuser

# Control plane: user/ctl/*.c is libxrxctl (config, state file, offloads
# over netlink, logging), shared by xrxd (user/xrxd/*.c), xrxctl
# (user/xrxctl/*.c) and the unit tests.
CTL_PKGS   := libmnl libsystemd
CTL_CFLAGS  = -Iuser/ctl $(shell pkg-config --cflags $(CTL_PKGS) 2>/dev/null)
CTL_LIBS    = $(shell pkg-config --libs $(CTL_PKGS) 2>/dev/null)
CTL_HDRS   := $(wildcard user/ctl/*.h)
CTL_OBJS   := $(patsubst user/ctl/%.c,$(BUILD)/obj/ctl/%.o,$(wildcard user/ctl/*.c))
LIBXRXCTL  := $(BUILD)/libxrxctl.a
CTL_PROGS  := $(BUILD)/xrxd $(BUILD)/xrxctl

UNIT_SRCS  := $(wildcard tests/unit/test_*.c)
BPFT_SRCS  := $(wildcard tests/bpf/test_*.c)
HELP_SRCS  := $(wildcard tests/helpers/*.c)
TEST_BINS  := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS)) \
	      $(patsubst tests/bpf/%.c,$(BUILD)/tests/%,$(BPFT_SRCS))
HELPERS    := $(patsubst tests/helpers/%.c,$(BUILD)/tests/%,$(HELP_SRCS))

BENCH_SRCS := $(filter-out %.bpf.c,$(wildcard scripts/bench/*.c))
BENCHES    := $(patsubst scripts/bench/%.c,$(BUILD)/bench/%,$(BENCH_SRCS))

all: $(BPF_OBJS) $(BPF_SKELS) $(LIBXRX) $(LIBXRXSO) $(LIBXRXGRO) $(LIBXRXUTIL) $(TOOLS) $(TEST_BINS) $(HELPERS)

# The dependency files of everything built so far.
-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
# Those written before the frame builder moved from tests/common to
# user/util name its old sources; this lets such a build folder rebuild.
tests/common/%: ;

$(BUILD)/%.bpf.o: bpf/%.bpf.c $(HDRS) | $(BUILD)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/xrx_rx_hw.bpf.o: bpf/xrx_rx.bpf.c $(HDRS) | $(BUILD)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DXRX_RX_HW_META -c $< -o $@

$(BUILD)/xrx_rx_compat.bpf.o: bpf/xrx_rx.bpf.c $(HDRS) | $(BUILD)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DXRX_RX_COMPAT -c $< -o $@

$(BUILD)/xrx_rx_chain.bpf.o: bpf/xrx_rx.bpf.c $(HDRS) | $(BUILD)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DXRX_RX_COMPAT -DXRX_RX_NO_META -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst .,_,$(basename $(basename $(notdir $<)))) > $@

# The skeleton is generated: prog.c must not compile before it exists.
$(BUILD)/obj/lib/%.o: user/lib/%.c | $(BPF_SKELS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(XCFLAGS) $(LIB_INC) $(DEPFLAGS) $(PKG_CFLAGS) -fPIC -fvisibility=hidden -c $< -o $@

# The engine compiles without libbpf's, libxdp's or libpcap's headers.
$(BASE_OBJS) $(GRO_OBJS): PKG_CFLAGS =

$(LIBXRX): $(LIB_OBJS) | $(BUILD)
	$(call msg,AR,$@)
	$(Q)rm -f $@
	$(Q)ar rcs $@ $^

$(LIBXRXSO): $(LIB_OBJS) $(LIBXRX_MAP) | $(BUILD)
	$(call msg,LD,$@)
	$(Q)$(CC) -shared -Wl,-soname,libxrx.so.0 -Wl,--version-script=$(LIBXRX_MAP) \
		-Wl,--no-undefined $(LIB_OBJS) -o $@ $(PKG_LIBS) -lpthread $(LDSAN)

$(LIBXRXGRO): $(BASE_OBJS) $(GRO_OBJS) | $(BUILD)
	$(call msg,AR,$@)
	$(Q)rm -f $@
	$(Q)ar rcs $@ $^

# The fuzz build keeps the frame builder out of the coverage the fuzzer
# steers by (UTIL_CFLAGS, see fuzz-build).
$(BUILD)/obj/util/%.o: user/util/%.c | $(BUILD)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(XCFLAGS) $(UTIL_INC) $(DEPFLAGS) $(UTIL_CFLAGS) -c $< -o $@

$(LIBXRXUTIL): $(UTIL_OBJS) | $(BUILD)
	$(call msg,AR,$@)
	$(Q)rm -f $@
	$(Q)ar rcs $@ $^

$(BUILD)/%: user/tools/%.c $(LIBXRX) $(LIBXRXUTIL)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(XCFLAGS) $(DEPFLAGS) $(UTIL_INC) $(PKG_CFLAGS) $< -o $@ $(LIBXRXUTIL) $(LIBXRX) $(PKG_LIBS) -lpthread $(LDSAN)

$(BUILD)/tests/%: tests/unit/%.c $(LIBXRX) $(LIBXRXCTL) $(LIBXRXUTIL)
	$(call msg,TEST,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(XCFLAGS) $(DEPFLAGS) -Itests $(UTIL_INC) $(LIB_INC) $(PKG_CFLAGS) $(CTL_CFLAGS) $< -o $@ $(LIBXRXUTIL) $(LIBXRXCTL) $(LIBXRX) $(PKG_LIBS) $(CTL_LIBS) -lcmocka -lz -lpthread -lm $(LDSAN)

$(BUILD)/tests/%: tests/bpf/%.c $(LIBXRX) $(BPF_SKELS) $(LIBXRXUTIL)
	$(call msg,TEST,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(XCFLAGS) $(DEPFLAGS) -Itests $(UTIL_INC) $(LIB_INC) $(PKG_CFLAGS) $< -o $@ $(LIBXRXUTIL) $(LIBXRX) $(PKG_LIBS) -lcmocka -lpthread -lm $(LDSAN)

$(BUILD)/tests/%: tests/helpers/%.c $(LIBXRX) $(BPF_SKELS) $(LIBXRXUTIL)
	$(call msg,HELPER,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(XCFLAGS) $(DEPFLAGS) -Itests $(UTIL_INC) $(LIB_INC) $(PKG_CFLAGS) $< -o $@ $(LIBXRXUTIL) $(LIBXRX) $(PKG_LIBS) -lpthread $(LDSAN)

# Test-only BPF programs (tests/bpf/*.bpf.c) and their skeletons, for the
# BPF tests that hold a shared parser's BPF build against userspace.
TEST_BPF_SKELS := $(patsubst tests/bpf/%.bpf.c,$(BUILD)/tests/%.skel.h,$(wildcard tests/bpf/*.bpf.c))

$(BUILD)/tests/%.bpf.o: tests/bpf/%.bpf.c $(HDRS) $(wildcard tests/bpf/*.h)
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -Itests -c $< -o $@

$(BUILD)/tests/%.skel.h: $(BUILD)/tests/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst .,_,$(basename $(basename $(notdir $<)))) > $@

.SECONDARY: $(TEST_BPF_SKELS:.skel.h=.bpf.o)

$(BUILD)/tests/test_parse_diff $(BUILD)/tests/test_parse_diff_compat: $(TEST_BPF_SKELS)
$(BUILD)/tests/test_parse_diff $(BUILD)/tests/test_parse_diff_compat: XCFLAGS += -I$(BUILD)/tests

# Examples of the library API (examples/*.c), one program each.
EXAMPLES := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c))
all: $(EXAMPLES)

$(BUILD)/examples/%: examples/%.c $(LIBXRX)
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(XCFLAGS) $(DEPFLAGS) $(PKG_CFLAGS) $< -o $@ $(LIBXRX) $(PKG_LIBS) -lpthread $(LDSAN)

all: $(LIBXRXCTL) $(CTL_PROGS)

$(BUILD)/obj/ctl/%.o: user/ctl/%.c | $(BUILD)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(XCFLAGS) $(DEPFLAGS) $(CTL_CFLAGS) -c $< -o $@

$(LIBXRXCTL): $(CTL_OBJS) | $(BUILD)
	$(call msg,AR,$@)
	$(Q)rm -f $@
	$(Q)ar rcs $@ $^

$(CTL_PROGS): $(BUILD)/%: $(LIBXRXCTL) $(LIBXRX) $(LIBXRXUTIL)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(XCFLAGS) $(DEPFLAGS) $(UTIL_INC) $(PKG_CFLAGS) $(CTL_CFLAGS) $(wildcard user/$*/*.c) -o $@ $(LIBXRXCTL) $(LIBXRX) $(LIBXRXUTIL) $(PKG_LIBS) $(CTL_LIBS) -lpthread $(LDSAN)
$(BUILD)/xrxd: $(wildcard user/xrxd/*.c user/xrxd/*.h)

# xrxd with the tests' own sink kinds (tests/sinks/*.c, each registering
# itself): a kind added by a file and a registration is one xrx.conf takes.
all: $(BUILD)/tests/xrxd-sinks
$(BUILD)/tests/xrxd-sinks: $(wildcard user/xrxd/*.c user/xrxd/*.h tests/sinks/*.c) $(LIBXRXCTL) $(LIBXRX) $(LIBXRXUTIL)
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(XCFLAGS) $(UTIL_INC) $(PKG_CFLAGS) $(CTL_CFLAGS) $(wildcard user/xrxd/*.c tests/sinks/*.c) -o $@ $(LIBXRXCTL) $(LIBXRX) $(LIBXRXUTIL) $(PKG_LIBS) $(CTL_LIBS) -lpthread $(LDSAN)
$(BUILD)/xrxctl: $(wildcard user/xrxctl/*.c user/xrxctl/*.h)

# Tests linked with DPDK (tests/dpdk/test_*.c): librte_gro as a second
# opinion on GRO. Built when pkg-config finds libdpdk (scripts/deps.sh
# installs it).
DPDK_CFLAGS := $(shell pkg-config --cflags libdpdk 2>/dev/null)
DPDK_LIBS   := $(shell pkg-config --libs libdpdk 2>/dev/null)
ifneq ($(DPDK_CFLAGS),)
DPDK_TESTS  := $(patsubst tests/dpdk/%.c,$(BUILD)/tests/%,$(wildcard tests/dpdk/test_*.c))
all: $(DPDK_TESTS)
endif

# Linked with the engine alone (libxrx-gro.a): no libbpf, libxdp, libpcap.
$(BUILD)/tests/%: tests/dpdk/%.c $(LIBXRXGRO) $(LIBXRXUTIL)
	$(call msg,TEST,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(XCFLAGS) $(DEPFLAGS) -Itests $(UTIL_INC) $(DPDK_CFLAGS) $< -o $@ $(LIBXRXUTIL) $(LIBXRXGRO) $(DPDK_LIBS) -lcmocka -lpthread -lm $(LDSAN)

# The GRO benchmark turns the engine's fast path off through its private
# switch (--no-fast).
$(BUILD)/bench/gro_bench: $(wildcard scripts/bench/gro*.h)
$(BUILD)/bench/gro_bench: BENCH_CFLAGS += $(LIB_INC)

# The flow-table flooding benchmark reads the table's mask and switches
# the bucket bound off (its "before" rows) through the engine's private
# header.
$(BUILD)/bench/flood_bench: BENCH_CFLAGS += $(LIB_INC)

# Benchmark-only BPF programs (scripts/bench/*.bpf.c) and their skeletons:
# the trivial XSKMAP redirect xdp_bench holds xrx_rx against.
BENCH_BPF := $(patsubst scripts/bench/%.bpf.c,$(BUILD)/bench/%.skel.h,$(wildcard scripts/bench/*.bpf.c))

$(BUILD)/bench/%.bpf.o: scripts/bench/%.bpf.c $(HDRS)
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# xrx_rx cut after each stage, and whole with xrx_meta written every run
# of a test-run loop (XRX_RX_BENCH in bpf/xrx_rx.bpf.c): xdp_bench loads
# them by path, and from another build's directory with -B.
XDP_BENCH_CUTS := parse:1 rules:2 nohash:3 full:4
XDP_BENCH_OBJS := $(foreach c,$(XDP_BENCH_CUTS),$(BUILD)/bench/xrx_rx_b_$(word 1,$(subst :, ,$(c))).bpf.o)

$(BUILD)/bench/xrx_rx_b_%.bpf.o: bpf/xrx_rx.bpf.c $(HDRS)
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DXRX_RX_BENCH=$(word 2,$(subst :, ,$(filter $*:%,$(XDP_BENCH_CUTS)))) -c $< -o $@

$(BUILD)/bench/xdp_bench: $(BENCH_BPF) $(XDP_BENCH_OBJS) $(BUILD)/xrx_rx.bpf.o
$(BUILD)/bench/xdp_bench: BENCH_CFLAGS += -I$(BUILD)/bench

# scripts/bench/bench.h: the clock and the median every benchmark uses.
$(BENCHES): scripts/bench/bench.h

# The benchmarks build their trains with user/util's frame builder.
$(BUILD)/bench/%: scripts/bench/%.c $(LIBXRX) $(BPF_SKELS) $(LIBXRXUTIL)
	$(call msg,BENCH,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(XCFLAGS) $(DEPFLAGS) $(UTIL_INC) $(PKG_CFLAGS) $(BENCH_CFLAGS) $< -o $@ $(LIBXRXUTIL) $(LIBXRX) $(PKG_LIBS) $(BENCH_LIBS) -lpthread -lm

# Hardening variants, each in a build folder of its own so that build/
# is never clobbered:
#
#   build-san/   SANITIZE=1 (ASan + UBSan, XRX_DEBUG): the unit and BPF test
#                binaries and the libraries they link.
#   build-fuzz/  libxrx, libxrxctl and the libFuzzer targets
#                tests/fuzz/fuzz_*.c, all built by clang with
#                -fsanitize=fuzzer,address,undefined.
#
# `make test` builds both and runs the sanitizer binaries in the same
# tests/run.sh pass as the plain ones (reported as NAME-san, one summary
# line), so CI, which runs exactly `make test`, covers them; the fuzz
# targets get a short smoke run (tests/integration/test_fuzz_smoke.sh).
# The DPDK tests stay out of the sanitizer pass: DPDK's EAL under ASan
# spends over a minute in its own memory setup and tests no xrx code the
# unit tests do not.
#
# `make fuzz` runs every target for FUZZ_SECONDS (default 300) and the
# BPF-vs-userspace parser differential on 1M frames (scripts/fuzz.sh).
SAN_BUILD    ?= build-san
FUZZ_BUILD   ?= build-fuzz
FUZZ_SECONDS ?= 300
FUZZ_SRCS    := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS    := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
		-fno-omit-frame-pointer

# xrx-replay's pcap reader is fuzzed in place: fuzz_replay.c includes it.
$(BUILD)/fuzz/%: tests/fuzz/%.c $(LIBXRX) $(LIBXRXCTL) $(LIBXRXUTIL) tests/fuzz/coverage-ignore.txt $(TOOL_SRCS)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(XCFLAGS) $(DEPFLAGS) -Itests $(UTIL_INC) $(LIB_INC) $(PKG_CFLAGS) $(CTL_CFLAGS) -fsanitize=fuzzer -fsanitize-coverage-ignorelist=tests/fuzz/coverage-ignore.txt $< -o $@ $(LIBXRXUTIL) $(LIBXRXCTL) $(LIBXRX) $(PKG_LIBS) $(CTL_LIBS) -lz -lpthread -lm

fuzz-bins: $(FUZZ_BINS)
san-bins: $(TEST_BINS)

san-build:
	$(Q)$(MAKE) --no-print-directory BUILD=$(SAN_BUILD) SANITIZE=1 san-bins

# Without libFuzzer's runtime (libclang-rt-14-dev) nothing is built and
# the smoke test reports a skip that says so.
fuzz-build:
	$(Q)if echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' | \
	    $(CLANG) -x c -fsanitize=fuzzer - -o /dev/null 2>/dev/null; then \
		$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(CLANG) \
			CFLAGS="-O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN)" \
			UTIL_CFLAGS=-fsanitize-coverage-ignorelist=tests/fuzz/coverage-ignore.txt \
			fuzz-bins; \
	else \
		echo "fuzz: $(CLANG) cannot link -fsanitize=fuzzer; install libclang-rt-14-dev (scripts/deps.sh) to build the fuzz targets"; \
	fi

fuzz: deps
	$(Q)scripts/bpffs.sh
	$(Q)$(MAKE) --no-print-directory all fuzz-build
	$(Q)FUZZ_BUILD=$(FUZZ_BUILD) scripts/fuzz.sh -t $(FUZZ_SECONDS)

$(BUILD):
	$(Q)mkdir -p $@

deps:
	$(Q)scripts/deps.sh

# The test command of the README. Packages first (pkg-config must see them
# before the sub-make expands PKG_*), then bpffs, then the build.
test: deps
	$(Q)scripts/bpffs.sh
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(MAKE) --no-print-directory san-build fuzz-build
	$(Q)SAN_BUILD=$(SAN_BUILD) FUZZ_BUILD=$(FUZZ_BUILD) tests/run.sh

# The kernel matrix alone (make test runs it too, last): each kernel of
# tests/kernels/kernels.list under QEMU, scripts/kernels/run.sh says how.
test-kernels: deps
	$(Q)scripts/bpffs.sh
	$(Q)$(MAKE) --no-print-directory all
	$(Q)scripts/kernels/run.sh --build $(BUILD)

# The zero-copy soak: the newest kernel's live test with a million frames
# through zero-copy (make test sends 100000), every UMEM frame accounted.
test-kernels-soak: deps
	$(Q)scripts/bpffs.sh
	$(Q)$(MAKE) --no-print-directory all
	$(Q)XRX_GUEST_ZC_FRAMES=1000000 XRX_GUEST_TESTS=live scripts/kernels/run.sh --build $(BUILD) newest

bench: deps
	$(Q)scripts/deps.sh --bench
	$(Q)scripts/bpffs.sh
	$(Q)$(MAKE) --no-print-directory all benches
	$(Q)scripts/bench/run.sh

benches: BENCH_CFLAGS = $(shell pkg-config --cflags libdpdk 2>/dev/null)
benches: BENCH_LIBS = $(shell pkg-config --libs libdpdk 2>/dev/null)
benches: $(BENCHES)

clean:
	$(Q)rm -rf $(BUILD) $(SAN_BUILD) $(FUZZ_BUILD)

format:
	$(Q)clang-format -i $(wildcard bpf/*.c include/xrx/*.h user/*/*.c user/*/*.h tests/*/*.c tests/*/*.h)

.PHONY: all deps test test-kernels test-kernels-soak bench benches clean format \
	san-build san-bins fuzz fuzz-build fuzz-bins

# The newcomer's path: pictures, plots, a demo, and an installation.
#
#   make docs        docs/architecture.{svg,png} from docs/architecture.dot
#                    (graphviz; both are committed, so reading needs no tool)
#   make bench-plot  PNGs in build/bench/ from build/bench/*.json (gnuplot)
#   make demo        ~10 s of iperf3 through xrxd between two namespaces
#   make install     PREFIX (/usr/local), DESTDIR honoured; see
#   make uninstall   scripts/install.sh for every directory variable
#   make deb         Debian packages xrx and libxrx-dev in build/deb/
#                    (apt install ./build/deb/xrx_*.deb)
PREFIX  ?= /usr/local
INSTALL_VARS = PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" BUILD="$(BUILD)" \
	$(foreach v,BINDIR SBINDIR LIBDIR INCLUDEDIR MANDIR DOCDIR BPFDIR UNITDIR PKGCONFIGDIR SYSCONFDIR,$(if $($(v)),$(v)="$($(v))"))

# What make install installs, and no more: the Debian package build
# compiles this target, not the tests.
programs: $(TOOLS) $(CTL_PROGS) $(BPF_OBJS) $(LIBXRX)

install: programs
	$(Q)$(INSTALL_VARS) scripts/install.sh install

uninstall:
	$(Q)$(INSTALL_VARS) scripts/install.sh uninstall

# The Debian packages xrx and libxrx-dev (debian/), built by
# dpkg-buildpackage from scratch in a copy of the tree, into DEBDIR.
DEBDIR ?= $(BUILD)/deb
deb:
	$(Q)scripts/deb.sh "$(DEBDIR)"

# The SVG carries the hash of its source, so a test can tell a stale
# picture without graphviz.
docs: docs/architecture.svg docs/architecture.png

docs/architecture.svg: docs/architecture.dot
	$(call msg,DOT,$@)
	$(Q)command -v dot >/dev/null || { echo "docs: dot missing; apt-get install graphviz" >&2; exit 1; }
	$(Q)dot -Tsvg $< | sed '/^<svg/i <!-- source: $(notdir $<) sha256 '"$$(sha256sum $< | cut -d' ' -f1)"' -->' >$@

docs/architecture.png: docs/architecture.dot
	$(call msg,DOT,$@)
	$(Q)command -v dot >/dev/null || { echo "docs: dot missing; apt-get install graphviz" >&2; exit 1; }
	$(Q)dot -Tpng -Gdpi=96 $< -o $@

bench-plot:
	$(Q)scripts/bench/plot.sh $(BUILD)/bench

demo: deps
	$(Q)scripts/bpffs.sh
	$(Q)$(MAKE) --no-print-directory all
	$(Q)scripts/demo.sh

.PHONY: programs install uninstall deb docs bench-plot demo
