# SPDX-License-Identifier: GPL-2.0
#
# This Makefile builds and installs; the tests and checks are
# selftests/Makefile's, read at the end of this one (make check, check-host,
# check-debug, check-fresh, style, gen-check, sparse, unit, vm-test,
# check-fleet, bench, ... : its head says what each does), run from here
# with the same variables.
#
# make               module (kmod/ringsteer.ko) and ringctl (userspace/ringctl)
# make demo          deps, build, boot a VM, show the module at work
# make deps          install the Debian packages the project needs (root)
# make gen           regenerate the netlink code and ringctl's enum words
#                    from kmod/uapi/ringsteer.yaml
# make install       ringctl, ringsteer-backend, man page, bash completion, systemd units under
#                    $(DESTDIR)$(PREFIX), module via modules_install; make uninstall
# make dkms-install  module source to /usr/src/ringsteer-VERSION, dkms add/build/install
# make modules-trixie  the module for Debian 13's kernels (trixie's 6.12 and
#                    trixie-backports' 7.x), built in a cached Debian 13 root
# make deb          Debian packages ringsteer-dkms and ringsteer with
#                    dpkg-buildpackage -b in build/deb/ (a copy of the tree),
#                    then lintian on them (no error, no warning); DIST=trixie
#                    or bookworm: for that release, in build/deb-DIST/ (built
#                    in a new root of it when this machine runs the other)
#
# KVER picks the target kernel (an entry of /lib/modules with its build tree),
# KDIR its build tree.

PREFIX ?= /usr/local
DESTDIR ?=
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DOCDIR ?= $(PREFIX)/share/doc/ringsteer
SYSCONFDIR ?= /etc
# Debian's packages put units in /lib/systemd/system; systemd also reads
# /usr/local/lib/systemd/system, where a PREFIX=/usr/local install goes.
UNITDIR ?= $(if $(filter /usr,$(PREFIX)),/lib/systemd/system,$(PREFIX)/lib/systemd/system)
# The release, written once (kmod/uapi/ringsteer_version.h).
PKG_VERSION := $(shell sed -n 's/^\#define RINGSTEER_VERSION "\(.*\)"$$/\1/p' kmod/uapi/ringsteer_version.h)
SRC := $(CURDIR)
# Relative, so "make build/unit/test_ring" names the same target.
BUILD := build
# The VM's scenarios find the test programs of this BUILD (selftests/vm/run.sh).
export RS_BINDIR := $(abspath $(BUILD))/selftests

# Target kernels are Debian's: the newest 6.1 and 6.12 of MODULES_DIR
# whose build tree (MODULES_DIR/K/build, package linux-headers-K) is
# there: a host may keep a newer kernel's modules without its headers, as
# one with Debian 13's 6.12 beside Debian 12's does, and nothing builds
# for that one. The host's running kernel is deliberately not the default.
# (The VM boots a kernel from /boot and /lib/modules: MODULES_DIR moves
# only this choice, for selftests/vm/empty-kernel-check.sh.)
MODULES_DIR ?= /lib/modules
KVERS_ALL := $(shell ls $(MODULES_DIR) 2>/dev/null | grep -E '^6\.(1\.0-[0-9]+|12\.[0-9]+\+[a-z0-9]+)-amd64$$' | sort -V)
KVERS_BUILT := $(foreach k,$(KVERS_ALL),$(if $(wildcard $(MODULES_DIR)/$(k)/build/Makefile),$(k)))
KVER_61 := $(lastword $(filter 6.1.0-%,$(KVERS_BUILT)))
KVER_612 := $(lastword $(filter 6.12.%,$(KVERS_BUILT)))
KVER ?= $(lastword $(KVERS_BUILT))
KDIR ?= $(if $(KVER),$(MODULES_DIR)/$(KVER)/build)
TEST_KVERS := $(strip $(KVER_61) $(KVER_612))
# The newest of a series when it lacks its build tree: named, with its
# package, by every goal that builds for a kernel.
KVERS_NOHDRS := $(filter-out $(KVERS_BUILT),$(lastword $(filter 6.1.0-%,$(KVERS_ALL))) \
	$(lastword $(filter 6.12.%,$(KVERS_ALL))))
headers_hint = $(foreach k,$(1),$(k) in $(MODULES_DIR) has no build tree: install linux-headers-$(k) to build for it)

# Debian 13's kernels, trixie's 6.12 and trixie-backports' 7.x, need gcc-14
# and glibc 2.38 or later to build for: from a Debian 12 host their builds,
# sparse and dkms run chrooted in a cached Debian 13 root (in_root_of), and
# run.sh boots their unpacked images from the same cache. Empty until
# selftests/vm/trixie-root.sh has made the root (make modules-trixie does).
TRIXIE_ROOT_SH := selftests/vm/trixie-root.sh
TRIXIE_KVERS = $(shell bash $(TRIXIE_ROOT_SH) --kvers)
RINGSTEER_CACHE ?= /var/cache/ringsteer
# in_root_of KVER: the command prefix that builds for KVER, none for a
# kernel whose build tree is installed here.
in_root_of = $(if $(wildcard $(MODULES_DIR)/$(1)/build/Makefile),,$(if $(filter $(1),$(TRIXIE_KVERS)),bash selftests/vm/in-root.sh))

# The list above is read before any recipe runs: on a new machine `make demo`
# and `make check` see no kernel until their deps has installed one, so their
# real work is a second make (demo-vm, check-kernels). Every goal that needs
# a kernel stops here with a hint rather than go on with an empty name
# (selftests/Makefile's goals too: this runs before that file is read).
NEEDS_KVER := modules-all vm-test demo-vm check-kernels check-host-kernels bench bench-check check-fleet
NEEDS_KDIR := all module sparse install
GOALS := $(or $(MAKECMDGOALS),all)
NOHDRS_SAID := $(if $(KVERS_NOHDRS), ($(call headers_hint,$(KVERS_NOHDRS))))
ifeq ($(KVER),)
ifneq ($(filter $(NEEDS_KVER),$(GOALS)),)
$(error no Debian target kernel with its build tree in $(MODULES_DIR)$(NOHDRS_SAID): run 'make deps' as root, or set KVER=)
endif
endif
ifeq ($(KDIR),)
ifneq ($(filter $(NEEDS_KDIR),$(GOALS)),)
$(error no target kernel build tree$(NOHDRS_SAID): run 'make deps' as root, or set KDIR=)
endif
else ifeq ($(wildcard $(KDIR)/Makefile),)
ifneq ($(filter $(NEEDS_KDIR),$(GOALS)),)
ifeq ($(filter $(KVER),$(TRIXIE_KVERS)),)
$(error no build tree for $(KVER) at $(KDIR): install linux-headers-$(KVER), or set KDIR=)
endif
endif
endif
ifneq ($(filter $(NEEDS_KVER) $(NEEDS_KDIR),$(GOALS)),)
$(foreach h,$(KVERS_NOHDRS),$(info note: $(call headers_hint,$(h)); the targets: $(TEST_KVERS)))
endif

ifeq ($(V),1)
Q :=
quiet = @true
else
Q := @
quiet = @printf '  %-8s %s\n'
MAKEFLAGS += --no-print-directory
endif
# phase N TEXT: the progress line of one phase of `make demo` (3 phases) or
# `make check` (check.sh prints its phases after the first).
phase = @printf '==> [%s/%s] %s\n' '$(1)' '$(PHASES)' '$(2)'

CC ?= cc
CFLAGS ?= -O2 -g
# Only the layers' headers are on the path: a command's header is found
# next to it, so a file of userspace/lib/ that included one would not build.
override CFLAGS += -std=gnu11 -Wall -Wextra -Werror -I$(SRC)/kmod/uapi -I$(SRC)/kmod -I$(SRC)/userspace/lib
LDLIBS := -lmnl -lsodium -lcurl -ljson-c -lm

# Code shared with the kernel (the ring and slot placement's table) is
# compiled from kmod/ as is.
SHARED_SRCS := kmod/ring.c kmod/ring_fingerprint.c kmod/slots.c kmod/chain_hdr.c
# ringctl: one command a file in userspace/ (ringctl.c holds main()), the
# three families of files in their wings (userspace/health/, fleet/,
# simulate/), over the layers in userspace/lib/, which never include or
# call a command (make layers-check). The unit tests link everything but
# main().
CMD_SRCS := $(filter-out userspace/ringctl.c userspace/lib/%,$(wildcard userspace/*.c userspace/*/*.c))
LIB_SRCS := $(wildcard userspace/lib/*.c userspace/lib/generated/*.c)
# Shared objects get their own directory: a userspace file may share a name
# with a kernel one.
SHARED_OBJS := $(patsubst kmod/%.c,$(BUILD)/user/kmod/%.o,$(SHARED_SRCS))
CMD_OBJS := $(patsubst userspace/%.c,$(BUILD)/user/%.o,$(CMD_SRCS))
LIB_OBJS := $(patsubst userspace/%.c,$(BUILD)/user/%.o,$(LIB_SRCS))
USER_OBJS := $(BUILD)/user/ringctl.o $(CMD_OBJS) $(LIB_OBJS)
USER_HDRS := $(wildcard userspace/*.h userspace/*/*.h userspace/lib/generated/*.h kmod/*.h kmod/uapi/*.h selftests/*.h selftests/fuzz/*.h)
# The netlink uapi enums and the kernel's policies and ops table are
# generated from the YNL spec by the kernel's own ynl-gen-c.py, taken from
# Debian's linux-source-6.12 at build time, and checked in (as in-tree
# families do).
YNL_TARBALL := /usr/src/linux-source-6.12.tar.xz
YNL := $(BUILD)/ynl
YNL_SPEC := kmod/uapi/ringsteer.yaml
YNL_GEN_FILES := kmod/uapi/ringsteer_genl.h kmod/generated/netlink-gen.c kmod/generated/netlink-gen.h \
	userspace/lib/generated/enums-gen.c userspace/lib/generated/enums-gen.h
# The generators are ours, one folder (tools/ynl/): what completes the
# kernel's ynl-gen-c.py, ringctl's enum words, the fuzzer's request shapes.
YNL_TOOLS := tools/ynl
# The generated files are checkpatch --strict clean as they come.
KERNEL_SRCS := Kbuild kmod/Kbuild $(filter-out %.mod.c,$(wildcard kmod/*.c kmod/*.h kmod/generated/*.c kmod/generated/*.h kmod/uapi/*.h))

.PHONY: all module ringctl deps demo demo-vm install clean modules-all modules-trixie
.PHONY: install-files uninstall dkms-source dkms-install gen deb

all: module ringctl

deps:
	$(if $(PHASES),$(call phase,1,packages (first run: 1.5 to 15 min, see README)))
	$(Q)bash .ci/deps.sh

module:
	$(Q)test -d "$(KDIR)" || { echo "no kernel build tree at $(KDIR): run 'make deps' or set KDIR" >&2; exit 1; }
	$(Q)$(MAKE) -C $(KDIR) M=$(SRC) W=1 modules

# One shadow tree per target kernel so both builds coexist (kbuild writes
# objects next to the sources). build/kernel/debug/ is built against the
# debug kernel's tree, DEBUG_KDIR (selftests/vm/build-debug-kernel.sh).
KDIR_debug = $(DEBUG_KDIR)
# make's own, not the compiler's: a make -j in a Debian 13 root whose
# module build runs in another root (in-root.sh) cannot reach the
# jobserver's fifo there and says so ("jobserver unavailable: using -j1").
MAKE_OWN_WARNING := ^make\(\[[0-9]*\]\)\{0,1\}: warning:
kdir_of = $(or $(KDIR_$(1)),$(MODULES_DIR)/$(1)/build)
$(BUILD)/kernel/%/kmod/ringsteer.ko: $(KERNEL_SRCS)
	$(Q)test -e $(call kdir_of,$*)/Makefile || test -n "$(call in_root_of,$*)" || \
		{ echo "no build tree for $* at $(call kdir_of,$*): install linux-headers-$*" >&2; exit 1; }
	$(quiet) KBUILD $*
	$(Q)mkdir -p $(BUILD)/kernel/$*
	$(Q)cp -p --parents $(KERNEL_SRCS) $(BUILD)/kernel/$*/
	$(Q)$(call in_root_of,$*) $(MAKE) -C $(call kdir_of,$*) M=$(SRC)/$(BUILD)/kernel/$* W=1 modules \
		>$(BUILD)/kernel/$*/build.log 2>&1 || { cat $(BUILD)/kernel/$*/build.log; exit 1; }
	$(Q)if grep 'warning:' $(BUILD)/kernel/$*/build.log | grep -qv "$(MAKE_OWN_WARNING)"; then \
		grep -B2 -A4 'warning:' $(BUILD)/kernel/$*/build.log; echo "warnings building for $*" >&2; exit 1; fi

modules-all: $(foreach k,$(TEST_KVERS),$(BUILD)/kernel/$(k)/kmod/ringsteer.ko)

# The root first: the sub-make reads TRIXIE_KVERS from it.
modules-trixie:
	$(Q)bash $(TRIXIE_ROOT_SH) >/dev/null
	$(Q)$(MAKE) modules-all TEST_KVERS="$$(echo $$(bash $(TRIXIE_ROOT_SH) --kvers))"

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

# make deps installs it (selftests/Makefile has the same rule for the
# source its checks extract checkpatch and the kselftest harness from).
$(YNL_TARBALL):
	@echo "$@ missing: run 'make deps'" >&2; exit 1

$(YNL)/.stamp: $(YNL_TARBALL)
	$(quiet) EXTRACT $(notdir $<)
	$(Q)rm -rf $(YNL) && mkdir -p $(YNL)
	$(Q)tar -xJf $< -C $(YNL) --strip-components=1 \
		linux-source-6.12/tools/net/ynl \
		linux-source-6.12/Documentation/netlink/genetlink.yaml \
		linux-source-6.12/Documentation/netlink/genetlink-c.yaml \
		linux-source-6.12/Documentation/netlink/genetlink-legacy.yaml
	$(Q)touch $@

# ynl-gen-c.py names the spec in its output relative to the tree holding a
# MAINTAINERS file, and validates it against the schema two directories
# above it: stage such a tree, so the output says kmod/uapi/ringsteer.yaml.
# All outputs go to $(YNL)/out, mirroring their place in the repository.
$(YNL)/out/.stamp: $(YNL)/.stamp $(YNL_SPEC) $(YNL_TOOLS)/ynl-nested-subsets.py $(YNL_TOOLS)/enum-gen.py
	$(quiet) YNL-GEN $(YNL_SPEC)
	$(Q)rm -rf $(YNL)/tree $(YNL)/out
	$(Q)mkdir -p $(YNL)/tree/kmod/uapi $(YNL)/out/kmod/uapi $(YNL)/out/kmod/generated
	$(Q)touch $(YNL)/tree/MAINTAINERS
	$(Q)cp $(YNL)/Documentation/netlink/genetlink-legacy.yaml $(YNL)/tree/kmod/
	$(Q)cp $(YNL_SPEC) $(YNL)/tree/$(YNL_SPEC)
	$(Q)gen() { python3 $(YNL)/tools/net/ynl/ynl-gen-c.py --spec $(YNL)/tree/$(YNL_SPEC) "$$@"; } && \
		gen --mode uapi --header -o $(YNL)/out/kmod/uapi/ringsteer_genl.h && \
		gen --mode kernel --source -o $(YNL)/out/kmod/generated/netlink-gen.c && \
		gen --mode kernel --header -o $(YNL)/out/kmod/generated/netlink-gen.h
	$(Q)python3 $(YNL_TOOLS)/ynl-nested-subsets.py $(YNL_SPEC) \
		$(YNL)/out/kmod/generated/netlink-gen.c $(YNL)/out/kmod/generated/netlink-gen.h
	$(Q)python3 $(YNL_TOOLS)/enum-gen.py $(YNL_SPEC) $(YNL)/out
	$(Q)touch $@

gen: $(YNL)/out/.stamp
	$(Q)for f in $(YNL_GEN_FILES); do cmp -s $(YNL)/out/$$f $$f || { cp $(YNL)/out/$$f $$f; echo "  GEN      $$f"; }; done

demo: PHASES := 3
demo: deps
	$(call phase,2,building the module and ringctl (first run: about 1 min))
	$(Q)$(MAKE) demo-vm PHASES=$(PHASES)

demo-vm: $(BUILD)/kernel/$(KVER)/kmod/ringsteer.ko selftest-bins
	$(if $(PHASES),$(call phase,3,booting $(KVER) under QEMU and running the demo (1 to 4 min)))
	$(Q)bash selftests/vm/run.sh -k '$(KVER)' -m '$(BUILD)/kernel/$(KVER)/kmod/ringsteer.ko' -- \
		bash selftests/vm/demo.sh

install: all install-files
	$(MAKE) -C $(KDIR) M=$(SRC) INSTALL_MOD_PATH=$(DESTDIR) modules_install

# Everything but the module, which modules_install or dkms provides. The
# configuration directory is private: the file holds the SipHash key.
install-files: ringctl
	install -D -m 0755 userspace/ringctl $(DESTDIR)$(SBINDIR)/ringctl
	install -D -m 0755 dist/ringsteer-backend $(DESTDIR)$(SBINDIR)/ringsteer-backend
	install -D -m 0644 userspace/ringctl.8 $(DESTDIR)$(MANDIR)/man8/ringctl.8
	install -D -m 0644 dist/ringsteer-backend.8 $(DESTDIR)$(MANDIR)/man8/ringsteer-backend.8
	install -D -m 0644 dist/bash-completion/ringctl $(DESTDIR)$(BASHCOMPDIR)/ringctl
	install -D -m 0644 -t $(DESTDIR)$(DOCDIR)/examples/bird dist/bird/lb.conf dist/bird/router.md
	install -d $(DESTDIR)$(UNITDIR)
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		dist/systemd/ringsteer.service.in >$(DESTDIR)$(UNITDIR)/ringsteer.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/ringsteer.service
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		dist/systemd/ringsteer-health.service.in >$(DESTDIR)$(UNITDIR)/ringsteer-health.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/ringsteer-health.service
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		dist/systemd/ringsteer-sync.service.in >$(DESTDIR)$(UNITDIR)/ringsteer-sync.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/ringsteer-sync.service
	install -D -m 0644 dist/fleet.conf $(DESTDIR)$(DOCDIR)/examples/fleet.conf
	install -D -m 0644 -t $(DESTDIR)$(DOCDIR)/examples dist/examples/ringsteer.conf dist/examples/health.conf
	install -d -m 0700 $(DESTDIR)$(SYSCONFDIR)/ringsteer

# The configuration directory stays if it holds a configuration. Kernels
# before 6.2 install external modules in extra/, later ones in updates/.
uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/ringctl $(DESTDIR)$(SBINDIR)/ringsteer-backend \
		$(DESTDIR)$(MANDIR)/man8/ringctl.8 $(DESTDIR)$(MANDIR)/man8/ringsteer-backend.8 \
		$(DESTDIR)$(BASHCOMPDIR)/ringctl $(DESTDIR)$(UNITDIR)/ringsteer.service \
		$(DESTDIR)$(UNITDIR)/ringsteer-health.service $(DESTDIR)$(UNITDIR)/ringsteer-sync.service \
		$(DESTDIR)$(DOCDIR)/examples/fleet.conf \
		$(DESTDIR)$(DOCDIR)/examples/ringsteer.conf $(DESTDIR)$(DOCDIR)/examples/health.conf \
		$(DESTDIR)$(DOCDIR)/examples/bird/lb.conf $(DESTDIR)$(DOCDIR)/examples/bird/router.md \
		$(DESTDIR)/lib/modules/$(KVER)/updates/kmod/ringsteer.ko* \
		$(DESTDIR)/lib/modules/$(KVER)/extra/kmod/ringsteer.ko*
	rmdir $(DESTDIR)$(SYSCONFDIR)/ringsteer 2>/dev/null || true
	rmdir $(DESTDIR)$(DOCDIR)/examples/bird $(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(DOCDIR) 2>/dev/null || true

DKMS_SRC = $(DESTDIR)/usr/src/ringsteer-$(PKG_VERSION)

# Only what kbuild needs: dkms builds from a copy of this directory. Its
# dkms.conf gets the release, as dh_dkms -V does for the Debian package.
dkms-source:
	rm -rf $(DKMS_SRC)
	install -d $(DKMS_SRC)
	cp -p --parents $(KERNEL_SRCS) $(DKMS_SRC)/
	sed 's/#MODULE_VERSION#/$(PKG_VERSION)/' dkms.conf >$(DKMS_SRC)/dkms.conf

# A reinstall of the same version replaces the old one; install builds, for
# the running kernel unless DKMS_KVERS names others. The dkms check runs this
# inside a temporary directory through DESTDIR and DKMS (dkms --dkmstree ...).
DKMS ?= dkms
DKMS_KVERS ?=
dkms-install: dkms-source
	$(DKMS) remove ringsteer/$(PKG_VERSION) --all >/dev/null 2>&1 || true
	$(DKMS) add ringsteer/$(PKG_VERSION)
	$(DKMS) install ringsteer/$(PKG_VERSION) $(addprefix -k ,$(DKMS_KVERS))

# DEB_RELEASE builds the tree as another release (dist/build-deb.sh).
# DIST given (make deb DIST=trixie) builds for that release.
DEB_DIST := $(if $(filter command line,$(origin DIST)),$(DIST))
DEB_OUT ?= $(BUILD)/deb$(if $(DEB_DIST),-$(DEB_DIST))
DEB_RELEASE ?=
deb:
	$(Q)bash dist/build-deb.sh $(if $(DEB_RELEASE),--release $(DEB_RELEASE)) \
		$(if $(DEB_DIST),--dist $(DEB_DIST)) $(DEB_OUT)

clean:
	$(Q)test ! -d "$(KDIR)" || $(MAKE) -C $(KDIR) M=$(SRC) clean >/dev/null
	$(Q)rm -rf $(BUILD) userspace/ringctl

# The tests and checks, with this file's variables and rules (no sub-make:
# every goal and variable given here reaches them as it is).
include selftests/Makefile
