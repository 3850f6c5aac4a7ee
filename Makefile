# SPDX-License-Identifier: GPL-2.0
#
# make               module (kmod/ringsteer.ko) and ringctl (userspace/ringctl)
# make check         deps, builds for both kernels, style, sparse, host and VM tests
# make demo          build, boot a VM, show the module at work
# make deps          install the Debian packages the project needs (root)
# make style         checkpatch --strict on the kernel sources
# make sparse        sparse (C=2) on the kernel sources
# make unit          host unit tests (KTAP)
# make vm-test       VM selftests on KVER (default: newest target kernel)
# make bench-ring    ring lookup/build benchmark
# make bench         datapath benchmark against IPVS and nftables (BENCH_KVERS)
# make install       ringctl and man page under $(DESTDIR)$(PREFIX), module via modules_install
#
# KVER picks the target kernel (an entry of /lib/modules), KDIR its build tree.

PREFIX ?= /usr/local
DESTDIR ?=
SRC := $(CURDIR)
# Relative, so "make build/unit/test_ring" names the same target.
BUILD := build

# Target kernels are Debian's: the newest installed 6.1 and 6.12. The host's
# running kernel is deliberately not the default.
KVERS_ALL := $(shell ls /lib/modules 2>/dev/null | grep -E '^6\.(1\.0-[0-9]+|12\.[0-9]+\+[a-z0-9]+)-amd64$$' | sort -V)
KVER_61 := $(lastword $(filter 6.1.0-%,$(KVERS_ALL)))
KVER_612 := $(lastword $(filter 6.12.%,$(KVERS_ALL)))
KVER ?= $(lastword $(KVERS_ALL))
KDIR ?= /lib/modules/$(KVER)/build
TEST_KVERS := $(KVER_61) $(KVER_612)

ifeq ($(V),1)
Q :=
quiet = @true
else
Q := @
quiet = @printf '  %-8s %s\n'
MAKEFLAGS += --no-print-directory
endif

CC ?= cc
CFLAGS ?= -O2 -g
override CFLAGS += -std=gnu11 -Wall -Wextra -Werror -I$(SRC)/kmod/uapi -I$(SRC)/kmod -I$(SRC)/userspace
LDLIBS := -lmnl -lsodium -lm

# Code shared with the kernel (the ring) is compiled from kmod/ as is.
SHARED_SRCS := $(wildcard kmod/ring.c kmod/ring_selftest.c)
USER_SRCS := $(wildcard userspace/*.c)
USER_LIB_SRCS := $(filter-out userspace/ringctl.c,$(USER_SRCS))
# Shared objects get their own directory: a userspace file may share a name
# with a kernel one.
SHARED_OBJS := $(patsubst kmod/%.c,$(BUILD)/user/kmod/%.o,$(SHARED_SRCS))
USER_OBJS := $(patsubst userspace/%.c,$(BUILD)/user/%.o,$(USER_SRCS))
USER_LIB_OBJS := $(patsubst userspace/%.c,$(BUILD)/user/%.o,$(USER_LIB_SRCS))
USER_HDRS := $(wildcard userspace/*.h kmod/*.h kmod/uapi/*.h)

UNIT_SRCS := $(wildcard selftests/unit/test_*.c)
UNIT_BINS := $(patsubst selftests/unit/%.c,$(BUILD)/unit/%,$(UNIT_SRCS))
VM_C_SRCS := $(wildcard selftests/*.c)
VM_C_BINS := $(patsubst selftests/%.c,$(BUILD)/selftests/%,$(VM_C_SRCS))

KSRC_TARBALL := /usr/src/linux-source-6.1.tar.xz
KSRC := $(BUILD)/ksrc
CHECKPATCH := $(KSRC)/scripts/checkpatch.pl
KSFT := $(KSRC)/tools/testing/selftests
KERNEL_SRCS := Kbuild kmod/Kbuild $(filter-out %.mod.c,$(wildcard kmod/*.c kmod/*.h kmod/uapi/*.h))

.PHONY: all module ringctl deps check demo style sparse unit vm-test bench-ring bench \
	install clean modules-all selftest-bins

all: module ringctl

deps:
	$(Q)bash .ci/deps.sh

module:
	$(Q)test -d "$(KDIR)" || { echo "no kernel build tree at $(KDIR): run 'make deps' or set KDIR" >&2; exit 1; }
	$(Q)$(MAKE) -C $(KDIR) M=$(SRC) W=1 modules

# One shadow tree per target kernel so both builds coexist (kbuild writes
# objects next to the sources).
$(BUILD)/kernel/%/kmod/ringsteer.ko: $(KERNEL_SRCS)
	$(quiet) KBUILD $*
	$(Q)mkdir -p $(BUILD)/kernel/$*
	$(Q)cp -p --parents $(KERNEL_SRCS) $(BUILD)/kernel/$*/
	$(Q)$(MAKE) -C /lib/modules/$*/build M=$(SRC)/$(BUILD)/kernel/$* W=1 modules \
		>$(BUILD)/kernel/$*/build.log 2>&1 || { cat $(BUILD)/kernel/$*/build.log; exit 1; }
	$(Q)if grep -q 'warning:' $(BUILD)/kernel/$*/build.log; then \
		grep -B2 -A4 'warning:' $(BUILD)/kernel/$*/build.log; echo "warnings building for $*" >&2; exit 1; fi

modules-all: $(foreach k,$(TEST_KVERS),$(BUILD)/kernel/$(k)/kmod/ringsteer.ko)

$(BUILD)/user/kmod/%.o: kmod/%.c $(USER_HDRS)
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/user/%.o: userspace/%.c $(USER_HDRS)
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

userspace/ringctl: $(USER_OBJS) $(SHARED_OBJS)
	$(quiet) LD $@
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

ringctl: userspace/ringctl

# checkpatch and the kselftest harness come from Debian's linux-source-6.1 at
# build time; they are never committed.
$(KSRC)/.stamp: $(KSRC_TARBALL)
	$(quiet) EXTRACT $(notdir $<)
	$(Q)mkdir -p $(KSRC)
	$(Q)tar -xJf $< -C $(KSRC) --strip-components=1 \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch \
		linux-source-6.1/tools/testing/selftests/kselftest_harness.h \
		linux-source-6.1/tools/testing/selftests/kselftest.h
	$(Q)touch $@

$(KSRC_TARBALL):
	@echo "$@ missing: run 'make deps'" >&2; exit 1

$(BUILD)/unit/%: selftests/unit/%.c $(KSRC)/.stamp $(USER_LIB_OBJS) $(SHARED_OBJS) $(USER_HDRS)
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -I$(KSFT) -o $@ $< $(USER_LIB_OBJS) $(SHARED_OBJS) $(LDLIBS)

$(BUILD)/selftests/%: selftests/%.c $(USER_LIB_OBJS) $(SHARED_OBJS) $(USER_HDRS)
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(USER_LIB_OBJS) $(SHARED_OBJS) $(LDLIBS)

selftest-bins: $(VM_C_BINS) userspace/ringctl

unit: $(UNIT_BINS)
	$(Q)rc=0; for t in $(UNIT_BINS); do $$t || rc=1; done; exit $$rc

style: $(KSRC)/.stamp
	$(Q)perl $(CHECKPATCH) --no-tree --strict --quiet --show-types \
		--ignore SPDX_LICENSE_TAG,FILE_PATH_CHANGES -f $(filter-out %Kbuild,$(KERNEL_SRCS))
	@echo "checkpatch --strict: clean"

sparse:
	$(Q)mkdir -p $(BUILD)
	$(Q)$(MAKE) -C $(KDIR) M=$(SRC) C=2 CHECK=sparse modules 2>&1 | tee $(BUILD)/sparse.log; \
		! grep -E '(warning|error):' $(BUILD)/sparse.log

vm-test: modules-all selftest-bins
	$(Q)bash selftests/vm/run.sh -k $(KVER) -m $(BUILD)/kernel/$(KVER)/kmod/ringsteer.ko -- \
		bash selftests/vm/ktap-run.sh

check: deps
	$(Q)bash selftests/vm/check.sh $(TEST_KVERS)

demo: deps modules-all selftest-bins
	$(Q)bash selftests/vm/run.sh -k $(KVER) -m $(BUILD)/kernel/$(KVER)/kmod/ringsteer.ko -- \
		bash selftests/vm/demo.sh

$(BUILD)/bench/bench_ring: selftests/bench/bench_ring.c $(SHARED_OBJS) $(USER_HDRS)
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -O3 -o $@ $< $(SHARED_OBJS) $(LDLIBS)

bench-ring: $(BUILD)/bench/bench_ring
	$(Q)$<

$(BUILD)/bench/tcp_cps: selftests/bench/tcp_cps.c
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

# One VM boot per kernel of BENCH_KVERS (default: the 6.12 target only);
# BENCH_ENV passes BENCH_* settings (datapath.sh) into the guest, e.g.
# BENCH_ENV="BENCH_ROUNDS=1 BENCH_FLOWS=2000 BENCH_SCALE=10,1000" for a
# quick look (lists take commas here).
BENCH_KVERS ?= $(KVER_612)
BENCH_ENV ?=
BENCH_TIMEOUT ?= 14400
BENCH_PY ?= /usr/bin/python3
bench: SHELL := /bin/bash
bench: $(foreach k,$(BENCH_KVERS),$(BUILD)/kernel/$(k)/kmod/ringsteer.ko) \
		userspace/ringctl $(BUILD)/bench/tcp_cps
	$(Q)for k in $(BENCH_KVERS); do \
		echo "BENCH env host_load $$(cut -d' ' -f1-3 /proc/loadavg) on $$(nproc) CPUs" >$(BUILD)/bench/raw-$$k.txt; \
		bash selftests/vm/run.sh -t $(BENCH_TIMEOUT) -k $$k -m $(BUILD)/kernel/$$k/kmod/ringsteer.ko \
			$(foreach e,$(BENCH_ENV),-e $(e)) -- bash selftests/bench/datapath.sh \
			| tee -a $(BUILD)/bench/raw-$$k.txt; \
		test $${PIPESTATUS[0]} = 0 || exit 1; \
		$(BENCH_PY) selftests/bench/report.py $(BUILD)/bench/raw-$$k.txt $(BUILD)/bench/$$k || exit 1; \
	done

install: all
	install -D -m 0755 userspace/ringctl $(DESTDIR)$(PREFIX)/sbin/ringctl
	test ! -f userspace/ringctl.8 || install -D -m 0644 userspace/ringctl.8 $(DESTDIR)$(PREFIX)/share/man/man8/ringctl.8
	$(MAKE) -C $(KDIR) M=$(SRC) INSTALL_MOD_PATH=$(DESTDIR) modules_install

clean:
	$(Q)test ! -d "$(KDIR)" || $(MAKE) -C $(KDIR) M=$(SRC) clean >/dev/null
	$(Q)rm -rf $(BUILD) userspace/ringctl
