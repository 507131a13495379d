# SPDX-License-Identifier: GPL-2.0
#
# klb top-level Makefile.
#   make            build klb.ko and klbctl
#   make demo       build, boot the test VM, balance real traffic, show counters
#   make check      every test: unit tests, short fuzz runs, VM selftests,
#                   a quick benchmark pass (proves the harness, asserts nothing)
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

.PHONY: all module klbctl klbctl-check deps unit fuzz fuzz-short vmtest check demo \
	bench bench-quick install clean checkpatch sparse

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

vmtest: all
	tools/vm/run-selftests

check: deps
	$(MAKE) all
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
	$(MAKE) -C $(KDIR) M=$(CURDIR) C=2 CF="-D__CHECK_ENDIAN__" modules

checkpatch:
	tools/checkpatch.sh

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
