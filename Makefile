# SPDX-License-Identifier: GPL-2.0
#
# klb top-level Makefile.
#   make            build klb.ko and klbctl
#   make demo       build, boot the test VM, balance real traffic, show counters
#   make check      every test: static checks (make lint), unit tests, short
#                   fuzz runs, VM selftests, a quick benchmark pass (proves
#                   the harness, asserts nothing)
#   make lint       checkpatch --strict, sparse, the netlink spec agreement
#                   and the layer arrows (tools/layers.py)
#   make DEBUG=1    klb.ko with load-time self-tests and lock checks
#                   (make module-debug builds that into out/debug/)
#   make bench      the Stingray benchmark matrix against peers (~40-60 min)
#   make install    install klb.ko (modules_install) and klbctl
#
# KDIR defaults to the newest Debian kernel build tree installed, which is
# the kernel the test VM boots (never `uname -r`: the host kernel may differ).

KVER ?= $(shell ls -1 /lib/modules 2>/dev/null | while read v; do [ -e /lib/modules/$$v/build/Makefile ] && echo $$v; done | sort -V | tail -n1)
KDIR ?= /lib/modules/$(KVER)/build
PREFIX ?= /usr/local
DESTDIR ?=

export KVER KDIR

.PHONY: all module module-debug klbctl klbctl-check deps unit fuzz fuzz-short \
	vmtest check demo bench bench-quick install clean checkpatch sparse \
	spec-check layers lint

all: module klbctl

module:
	@test -e "$(KDIR)/Makefile" || { echo "no kernel build tree at '$(KDIR)': run 'make deps' (or set KDIR)"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

klbctl:
	$(MAKE) -C tools/klbctl

deps:
	tools/deps.sh

unit:
	$(MAKE) -C tools/testing/unit run

klbctl-check: klbctl
	$(MAKE) -C tools/klbctl check

fuzz-short:
	$(MAKE) -C tools/testing/fuzz run-short

fuzz:
	$(MAKE) -C tools/testing/fuzz run-long

# The DEBUG build, apart from the normal one (selftests/debug.sh runs it).
module-debug:
	@test -e "$(KDIR)/Makefile" || { echo "no kernel build tree at '$(KDIR)': run 'make deps' (or set KDIR)"; exit 1; }
	rm -rf out/debug
	mkdir -p out/debug
	cp --parents Kbuild $$(find kmod include -name '*.[ch]') out/debug/
	$(MAKE) -C $(KDIR) M=$(CURDIR)/out/debug DEBUG=1 modules

vmtest: all module-debug
	tools/vm/run-selftests

check: deps
	$(MAKE) all
	$(MAKE) lint
	$(MAKE) unit
	$(MAKE) klbctl-check
	$(MAKE) fuzz-short
	$(MAKE) vmtest
	$(MAKE) bench-quick

# Benchmarks (bench/run.sh, Documentation/bench/README.md): one VM boot,
# results in out/bench/NAME/. bench-quick: a few seconds per cell.
bench: deps
	$(MAKE) all
	bench/run.sh --no-build $(BENCH_ARGS)

bench-quick: deps
	$(MAKE) all
	bench/run.sh --quick --no-build $(BENCH_ARGS)

demo: deps
	$(MAKE) all
	tools/vm/demo

sparse:
	tools/sparse.sh

checkpatch:
	tools/checkpatch.sh

# Documentation/netlink/klb.yaml, the uapi header, klbctl's attribute
# table, selftests/klb_nl.py and the kernel's policies and ops agree.
spec-check:
	python3 tools/spec_check.py
	tools/spec_check_test.sh

# Which layer calls which (from the built objects); fails on a wrong arrow.
# The second line proves the check can fail: the hooks put in the core
# would call up into config, l4 and l7.
layers: module
	python3 tools/layers.py
	! python3 tools/layers.py --map kmod/l4/hooks.o=core >/dev/null

lint: checkpatch sparse spec-check layers

install: all
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install
	install -D -m 0755 tools/klbctl/klbctl $(DESTDIR)$(PREFIX)/sbin/klbctl
	install -D -m 0644 Documentation/klbctl.8 $(DESTDIR)$(PREFIX)/share/man/man8/klbctl.8
	depmod -a $(KVER) || true

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean || true
	$(MAKE) -C tools/klbctl clean
	-$(MAKE) -C tools/testing/unit clean
	-$(MAKE) -C tools/testing/fuzz clean
	rm -rf out
