# SPDX-License-Identifier: GPL-2.0
#
# klb top-level Makefile.
#   make            build klb.ko, klbctl and the selftests' C helpers
#   make demo       build, boot the test VM, balance real traffic (L4 and
#                   L7), show counters
#   make check      every test: static checks (make lint), unit tests, short
#                   fuzz runs, install/dkms/systemd checks, VM selftests, a
#                   quick benchmark pass (proves the harness, asserts nothing)
#   make lint       checkpatch --strict, sparse, the netlink spec agreement,
#                   the layer arrows (tools/layers.py), one version, the
#                   set-up order (tools/setup_order_test.sh)
#   make DEBUG=1    klb.ko with load-time self-tests and lock checks
#                   (make module-debug builds that into out/debug/)
#   make other-kernels  compile klb.ko against Debian 6.12 headers (downloaded,
#                   not installed), with and without the netns refcount tracker
#   make debug-kernel   build (once, cached in out/debug-kernel/) a kernel
#                   with KASAN, lockdep, kmemleak, failslab, UBSAN
#   make vmtest-debug   the VM selftests on that kernel (hours; not in check)
#   make soak       the long loads check cuts (48 MB bulk, 10000 idle and
#                   5000 slowloris clients; ~25 min, not in check)
#   make bench      the Stingray benchmark matrix against peers (~40-60 min)
#   make install    install-module + install-tools (DESTDIR, PREFIX honoured)
#   make install-module   klb.ko into /lib/modules/KVER/updates, depmod
#   make install-tools    klbctl, man page, bash completion, klb.service,
#                   docs, /etc/klb/klb.conf (if missing); no kernel headers
#   make uninstall  (and uninstall-module, uninstall-tools) undo that
#   make dkms-src   the module's source as dkms wants it, in
#                   /usr/src/klb-VERSION (then: dkms install klb/VERSION)
#   make set-version V=X.Y.Z   the one version, everywhere
#
# KVER: the running kernel when its build tree is installed (a real
# machine), else the newest installed build tree. The test VM targets
# (vmtest, demo, bench, bench-quick, check) build for the kernel the VM
# boots: the newest one with a /boot/vmlinuz (never `uname -r`: the host
# kernel may differ and the development machines have no headers for it).
#
# Set-up order: those five targets first run deps (tools/deps.sh, which may
# install the kernel and its headers), then do their work in a new make
# (their TARGET-run twin): that make looks the kernel up after deps. This
# one looked when it read this file, before deps (nothing, on a fresh
# machine), so it passes on no KVER or KDIR of its own, only ones the user
# gave. tools/setup_order_test.sh (make lint) checks that order against
# fakes: MODULES_ROOT and BOOT_DIR say where kernels are looked for, KLB_DEPS
# what installs the packages.

VERSION := $(shell cat VERSION)
MODULES_ROOT ?= /lib/modules
BOOT_DIR ?= /boot
KLB_DEPS ?= tools/deps.sh
NEWEST_KVER := $(shell ls -1 $(MODULES_ROOT) 2>/dev/null | while read v; do [ -e $(MODULES_ROOT)/$$v/build/Makefile ] && echo $$v; done | sort -V | tail -n1)
VM_KVER := $(shell ls -1 $(MODULES_ROOT) 2>/dev/null | while read v; do [ -e $(MODULES_ROOT)/$$v/build/Makefile ] && [ -e $(BOOT_DIR)/vmlinuz-$$v ] && echo $$v; done | sort -V | tail -n1)
RUNNING_KVER := $(shell uname -r)
KVER ?= $(if $(wildcard $(MODULES_ROOT)/$(RUNNING_KVER)/build/Makefile),$(RUNNING_KVER),$(NEWEST_KVER))
ifeq ($(origin KVER),file)
vmtest-run demo-run bench-run bench-quick-run check-run: KVER = $(VM_KVER)
endif
KDIR ?= $(MODULES_ROOT)/$(KVER)/build

# parallel jobs of make check's host phases (build, lint, fuzz-short)
NPROC ?= $(shell nproc 2>/dev/null || echo 1)
DESTDIR ?=
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/klb
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
SYSTEMDDIR ?= $(PREFIX)/lib/systemd/system
SYSCONFDIR ?= /etc
MODDIR ?= /lib/modules/$(KVER)/updates
DKMSSRC ?= /usr/src/klb-$(VERSION)

export KVER KDIR

# For a make started after deps: this make's KVER and KDIR (looked up
# before deps ran) out of its environment; the user's (command line or
# environment) stay.
NO_STALE_KVER = env $(if $(filter file,$(origin KVER)),-u KVER) \
	$(if $(filter file,$(origin KDIR)),-u KDIR)

.PHONY: all module module-debug klbctl klbctl-check deps unit fuzz fuzz-short \
	vmtest check demo bench bench-quick install clean checkpatch sparse \
	spec-check layers lint version-check install-module install-tools \
	uninstall uninstall-module uninstall-tools dkms-src set-version \
	install-check selftests-progs other-kernels debug-kernel vmtest-debug \
	vmtest-run check-run bench-run bench-quick-run demo-run setup-order \
	soak soak-run lint-kbuild

all: module klbctl selftests-progs

module:
	@test -e "$(KDIR)/Makefile" || { echo "no kernel build tree at '$(KDIR)': run 'make deps' (or set KDIR)"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

klbctl:
	$(MAKE) -C tools/klbctl

# the selftests' C helpers (the VM runs what the host built)
selftests-progs:
	$(MAKE) -C selftests

# Compile check against a Debian kernel that is not installed (downloads
# its headers into out/kernels/; not part of check): OTHER_KVER=6.12.118+deb12
other-kernels:
	tools/build-other-kernels.sh $(OTHER_KVER)
	tools/build-other-kernels.sh --tracker $(OTHER_KVER)

deps:
	$(KLB_DEPS)

unit:
	$(MAKE) -C tools/testing/unit run

# klbctl's host tests, and its bash completion driven as bash would
# (exit 4: bash-completion not installed, skipped).
klbctl-check: klbctl
	$(MAKE) -C tools/klbctl check
	tools/completion/test.sh || [ $$? -eq 4 ]

# every core fuzzes a target of its own
fuzz-short:
	$(MAKE) -j$(NPROC) -C tools/testing/fuzz run-short

fuzz:
	$(MAKE) -C tools/testing/fuzz run-long

# The DEBUG build, apart from the normal one (selftests/debug.sh runs it).
module-debug:
	@test -e "$(KDIR)/Makefile" || { echo "no kernel build tree at '$(KDIR)': run 'make deps' (or set KDIR)"; exit 1; }
	rm -rf out/debug
	mkdir -p out/debug
	cp --parents Kbuild VERSION $$(find kmod include -name '*.[ch]') out/debug/
	$(MAKE) -C $(KDIR) M=$(CURDIR)/out/debug DEBUG=1 modules

# deps first, then the rest in a new make (see the top): each of vmtest,
# check, bench, bench-quick and demo is deps + its TARGET-run.
vmtest: deps
	$(NO_STALE_KVER) $(MAKE) vmtest-run

vmtest-run: all module-debug
	tools/vm/run-selftests-split

# The long loads that make check cuts to what still proves the property:
# bulk.sh's 48 MB transfers, fnat.sh's 100 MB download, l7_memory's 10000
# idle clients, l7_slowloris's 5000 slow ones, l7_hostmap's 4 more services
# of 100,000 names each, adopt's floods of 5000 stray ACKs (about 30 min,
# two boots), restore_scale's 100000 services: they need ~2.5 GB during a
# restore over them (old + new), hence the bigger VMs (KLB_VM_MEM). Not
# part of check.
SOAK_ENV ?= KLB_BULK_MB=48 KLB_FNAT_MB=100 KLB_IDLE_CLIENTS=10000 KLB_SLOW_CLIENTS=5000 \
	KLB_HOSTMAP_SERVICES=4 KLB_ADOPT_FLOOD=5000 KLB_RESTORE_SERVICES=100000 KLB_RESTORE_FRESH=1 KLB_RESTORE_IPVS=1
SOAK_TESTS ?= bulk fnat l7_memory l7_slowloris l7_hostmap adopt restore_scale

soak: deps
	$(NO_STALE_KVER) $(MAKE) soak-run

soak-run: all
	KLB_VM_MEM=$${KLB_VM_MEM:-5G} KLB_VM_TEST_ENV="$(SOAK_ENV) $(KLB_VM_TEST_ENV)" tools/vm/run-selftests-split $(SOAK_TESTS)

# The debug kernel (KASAN, lockdep, kmemleak, fault injection, UBSAN) built
# from linux-source-6.1, cached in out/debug-kernel/ (tools/vm/build-debug-kernel),
# and the VM selftests on it (tools/vm/vmtest-debug): by default its
# standing subset (~3 h), VMTEST_DEBUG_TESTS=all every test (8-12 h),
# VMTEST_DEBUG_TESTS="sched nl_fuzz" some. Not part of check.
debug-kernel:
	$(KLB_DEPS) linux-source-6.1 bc bison flex libelf-dev libssl-dev
	tools/vm/build-debug-kernel >/dev/null

vmtest-debug: debug-kernel
	tools/vm/vmtest-debug $(VMTEST_DEBUG_TESTS)

# Each phase prints its wall time and warns past its share of CI's 90
# minutes (tools/phase); the end prints the budget (tools/check-summary):
# every phase, each VM boot, the ten slowest VM selftests.
check:
	@mkdir -p out && rm -f out/check-phases.txt
	tools/phase deps 600 $(KLB_DEPS)
	$(NO_STALE_KVER) $(MAKE) check-run

check-run:
	tools/phase build 240 $(MAKE) -j$(NPROC) all
	tools/phase lint 180 $(MAKE) -j$(NPROC) --output-sync=target lint
	tools/phase unit 60 $(MAKE) unit
	tools/phase klbctl-check 60 $(MAKE) klbctl-check
	tools/phase install-check 120 $(MAKE) install-check
	tools/phase fuzz-short 120 $(MAKE) fuzz-short
	tools/phase vmtest 2400 $(MAKE) vmtest-run
	tools/phase bench-quick 480 $(MAKE) bench-quick-run
	@tools/check-summary

# Benchmarks (bench/run.sh, Documentation/bench/README.md): one VM boot,
# results in out/bench/NAME/. bench-quick: a few seconds per cell.
bench: deps
	$(NO_STALE_KVER) $(MAKE) bench-run

bench-run:
	$(MAKE) all
	bench/run.sh --no-build $(BENCH_ARGS)

bench-quick: deps
	$(NO_STALE_KVER) $(MAKE) bench-quick-run

bench-quick-run:
	$(MAKE) all
	bench/run.sh --quick --no-build $(BENCH_ARGS)

demo: deps
	$(NO_STALE_KVER) $(MAKE) demo-run

demo-run:
	$(MAKE) all
	tools/vm/demo

sparse:
	tools/sparse.sh

checkpatch:
	tools/checkpatch.sh

# Documentation/netlink/klb.yaml, the uapi header, klbctl's attribute
# table, selftests/klb_nl.py and the kernel's policies and ops agree; the
# spec is valid under the kernel's own schema of its protocol (from Debian's
# linux-doc-6.12: fetched once, ~40 MB, its few schema files kept in
# /var/cache/klb/netlink-schema/, out/netlink-schema/ without root; without
# python3-jsonschema or the package a loud SKIP, the rest still runs). The
# test proves each check can fail.
spec-check:
	python3 tools/spec_check.py
	tools/spec_check_test.sh

# Which layer calls which (from the built objects); fails on a wrong arrow,
# on a cycle between files and on a kmod/ file design.md's map lacks. The
# last three lines prove each check can fail: the hooks put in the core
# would call up into config, l4 and l7; a call back from the lowest l7 file
# to the top one closes a cycle; a map without one file misses it.
layers: module
	python3 tools/layers.py --design Documentation/design.md
	! python3 tools/layers.py --map kmod/l4/hooks.o=core >/dev/null
	! python3 tools/layers.py --assume-call kmod/l7/wq.o=kmod/l7/net.o >/dev/null
	mkdir -p out && sed 's|kmod/l7/wq\.c||' Documentation/design.md >out/design-unmapped.md
	! python3 tools/layers.py --design out/design-unmapped.md >/dev/null

# dkms.conf, the man page and the CHANGELOG carry VERSION.
version-check:
	tools/version_check.sh

# The set-up order (deps before any kernel is looked for) on a scratch
# copy of this Makefile, its tools stubbed: a few seconds, nothing installed.
setup-order:
	tools/setup_order_test.sh

lint: checkpatch spec-check version-check setup-order lint-kbuild

# sparse and layers both run Kbuild in this tree (modpost rewrites its
# files each time): one after the other, also under make -j
lint-kbuild:
	$(MAKE) sparse
	$(MAKE) layers

install: install-module install-tools

# depmod only on this machine: with DESTDIR the image's own depmod (or the
# package's postinst) does it.
install-module: module
	@v=$$(modinfo -F vermagic klb.ko | cut -d' ' -f1); [ "$$v" = "$(KVER)" ] || \
		{ echo "klb.ko is built for $$v, not KVER=$(KVER)"; exit 1; }
	install -D -m 0644 klb.ko $(DESTDIR)$(MODDIR)/klb.ko
	$(if $(DESTDIR),@echo "DESTDIR set: not running depmod",depmod -a $(KVER))

uninstall-module:
	rm -f $(DESTDIR)$(MODDIR)/klb.ko
	$(if $(DESTDIR),,depmod -a $(KVER))

DOCS := README.md CHANGELOG.md Documentation/deploy.md Documentation/design.md \
	Documentation/tuning.md Documentation/sysctl.rst

install-tools: klbctl
	install -D -m 0755 tools/klbctl/klbctl $(DESTDIR)$(SBINDIR)/klbctl
	install -D -m 0644 Documentation/klbctl.8 $(DESTDIR)$(MANDIR)/man8/klbctl.8
	install -D -m 0644 tools/completion/klbctl $(DESTDIR)$(BASHCOMPDIR)/klbctl
	install -d $(DESTDIR)$(SYSTEMDDIR) $(DESTDIR)$(DOCDIR) $(DESTDIR)$(SYSCONFDIR)/klb
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		-e 's|@DOCDIR@|$(DOCDIR)|g' tools/systemd/klb.service.in \
		>$(DESTDIR)$(SYSTEMDDIR)/klb.service
	chmod 0644 $(DESTDIR)$(SYSTEMDDIR)/klb.service
	install -m 0644 $(DOCS) $(DESTDIR)$(DOCDIR)/
	test -e $(DESTDIR)$(SYSCONFDIR)/klb/klb.conf || \
		install -m 0644 tools/systemd/klb.conf $(DESTDIR)$(SYSCONFDIR)/klb/klb.conf

# Leaves $(SYSCONFDIR)/klb/klb.conf: it is the operator's configuration.
uninstall-tools:
	rm -f $(DESTDIR)$(SBINDIR)/klbctl $(DESTDIR)$(MANDIR)/man8/klbctl.8 \
		$(DESTDIR)$(BASHCOMPDIR)/klbctl $(DESTDIR)$(SYSTEMDDIR)/klb.service
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(DOCS)))
	-rmdir $(DESTDIR)$(DOCDIR)

uninstall: uninstall-module uninstall-tools

# What `dkms add` needs: the module's sources, Kbuild, VERSION, dkms.conf.
dkms-src:
	install -d $(DESTDIR)$(DKMSSRC)
	cp --parents Kbuild VERSION dkms.conf $$(find kmod include -name '*.[ch]') \
		$(DESTDIR)$(DKMSSRC)/

# install/uninstall into a DESTDIR, the systemd unit, dkms add/build/install
# (private trees, nothing loaded), the one version.
install-check: all
	tools/install_test.sh

set-version:
	@echo "$(V)" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+$$' || { echo "usage: make set-version V=X.Y.Z"; exit 1; }
	echo $(V) >VERSION
	sed -i 's/^PACKAGE_VERSION=".*"/PACKAGE_VERSION="$(V)"/' dkms.conf
	sed -i 's/^\(\.TH KLBCTL 8\) "[^"]*" "klb [^"]*"/\1 "'"$$(date +%Y-%m-%d)"'" "klb $(V)"/' Documentation/klbctl.8
	@grep -q '^## $(V) ' CHANGELOG.md || echo "now add a '## $(V) - DATE' section to CHANGELOG.md"

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean || true
	$(MAKE) -C tools/klbctl clean
	$(MAKE) -C selftests clean
	-$(MAKE) -C tools/testing/unit clean
	-$(MAKE) -C tools/testing/fuzz clean
	rm -rf out
