#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Makefile's set-up order. On a fresh machine the kernel the VM boots,
# and its headers, come with deps (tools/deps.sh), so the targets that run
# deps first (demo, check, vmtest, bench, bench-quick) must look for a
# kernel only after it: a KVER or KDIR decided when make read the Makefile
# is empty there ("no kernel build tree at '/lib/modules//build'"), or an
# older kernel than the one deps just installed.
#
# Runs a copy of the Makefile in a scratch project whose every tool is a
# stub that logs what it was given, with MODULES_ROOT and BOOT_DIR at
# scratch directories and KLB_DEPS at a stub that "installs" kernel 9.9.9-new
# there (a build tree and a vmlinuz). Checks, for each of those targets:
# deps ran first, make succeeded, every kernel build went to 9.9.9-new's
# tree and every tool after deps was given KVER=9.9.9-new; from an empty
# modules root, and from one that already has 9.9.8-old. Also that a KVER
# given on the command line still wins, and that `make all` neither runs
# deps nor forgets the running/newest rule.
# No root, no network, installs nothing; a few seconds.
# TAP output, then "N passed, M failed"; exit status 1 if any test failed.
#   tools/setup_order_test.sh [MAKEFILE]   (default: this project's)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
makefile=$(realpath "${1:-$top/Makefile}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }

# Run from make lint, this would inherit the calling make's KVER, KDIR,
# MAKEFLAGS (its -s, -j and jobserver): the scratch makes must see none.
unset KVER KDIR MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES MAKE_TERMOUT MAKE_TERMERR
new=9.9.9-new
old=9.9.8-old

# The stub of every script the Makefile runs: one log line, its name and
# the KVER and KDIR it was given.
stub='#!/bin/bash
echo "$(basename "$0") KVER=${KVER-} KDIR=${KDIR-} $*" >>"$STUB_LOG"'
# A kernel build tree: logs where kbuild ran and for which M=.
kbuild='modules clean:
	@echo "kbuild $(CURDIR) M=$(M)" >>"$(STUB_LOG)"'
# A sub-directory's Makefile (klbctl, selftests, unit, fuzz).
submake='stub:
	@echo "make -C $(notdir $(CURDIR))" >>"$(STUB_LOG)"
.DEFAULT:
	@echo "make -C $(notdir $(CURDIR)) $@" >>"$(STUB_LOG)"'

# project DIR: a scratch copy of the project, its tools stubs
project() {
	local d=$1 f
	mkdir -p "$d"/{bin,kmod,include,bench,tools/vm,tools/completion}
	cp "$makefile" "$d/Makefile"
	cp "$top/VERSION" "$d/VERSION"
	: >"$d/Kbuild"
	: >"$d/kmod/main.c"
	: >"$d/include/klb.h"
	for f in tools/klbctl selftests tools/testing/unit tools/testing/fuzz; do
		mkdir -p "$d/$f"
		echo "$submake" >"$d/$f/Makefile"
	done
	for f in bin/python3 bench/run.sh tools/vm/demo tools/vm/run-selftests-split \
		tools/checkpatch.sh tools/sparse.sh tools/spec_check_test.sh \
		tools/version_check.sh tools/install_test.sh tools/completion/test.sh \
		tools/setup_order_test.sh tools/check-summary; do
		echo "$stub" >"$d/$f"
		chmod +x "$d/$f"
	done
	# tools/phase only times its command: the real one
	cp "$top/tools/phase" "$d/tools/phase"
	# make layers proves each check of tools/layers.py can fail (`!
	# python3 ... --map`, `--assume-call`, a design.md without a file)
	echo 'case "$*" in *--map*|*--assume-call*|*design-unmapped*) exit 1 ;; esac' >>"$d/bin/python3"
	mkdir -p "$d/Documentation"
	: >"$d/Documentation/design.md"
	# deps: "installs" kernel $new (as linux-image-amd64 and
	# linux-headers-amd64 would)
	cat >"$d/fake-deps" <<-EOF
		#!/bin/bash
		echo "deps KVER=\${KVER-} KDIR=\${KDIR-}" >>"\$STUB_LOG"
		mkdir -p "\$MODULES_ROOT/$new/build" "\$BOOT_DIR"
		cp "$tmp/kbuild.mk" "\$MODULES_ROOT/$new/build/Makefile"
		: >"\$BOOT_DIR/vmlinuz-$new"
	EOF
	chmod +x "$d/fake-deps"
}
echo "$kbuild" >"$tmp/kbuild.mk"

# kernel DIR VER: an installed kernel (build tree and vmlinuz) in run DIR's roots
kernel() {
	mkdir -p "$1/modules/$2/build" "$1/boot"
	cp "$tmp/kbuild.mk" "$1/modules/$2/build/Makefile"
	: >"$1/boot/vmlinuz-$2"
}

# setup NAME: a fresh scratch project and empty kernel roots in $tmp/NAME
setup() {
	local d=$tmp/$1
	rm -rf "$d"
	project "$d/src"
	mkdir -p "$d/modules" "$d/boot"
	: >"$d/log"
}
# run NAME [MAKE ARGS]: make in NAME's project, with its roots and fake
# deps; output in $tmp/NAME/out, the stubs' log in $tmp/NAME/log, make's
# exit status in $rc
run() {
	local d=$tmp/$1
	shift
	(cd "$d/src" && PATH="$d/src/bin:$PATH" STUB_LOG="$d/log" \
		MODULES_ROOT="$d/modules" BOOT_DIR="$d/boot" KLB_DEPS="$d/src/fake-deps" \
		timeout 60 make --no-print-directory "$@") >"$d/out" 2>&1
	rc=$?
}

# expect NAME WHAT KVER [DEPS]: make of run NAME succeeded, deps ran first
# (or, DEPS=nodeps, not at all), every kbuild ran in KVER's tree and every
# stub after deps was given KVER and its KDIR.
expect() {
	local d=$tmp/$1 what=$2 v=$3 deps=${4:-deps} bad
	local kdir=$d/modules/$v/build
	bad=$(
		[ "$rc" -eq 0 ] || echo "make failed (exit $rc)"
		if [ "$deps" = deps ]; then
			head -n1 "$d/log" | grep -q '^deps ' || echo "deps did not run first"
		elif grep -q '^deps ' "$d/log"; then
			echo "deps ran"
		fi
		grep -q '^kbuild ' "$d/log" || echo "no kernel build"
		grep '^kbuild ' "$d/log" | grep -v "^kbuild $kdir M=" | sed 's/^/wrong tree: /'
		sed 1d "$d/log" | grep ' KVER=' | grep -v " KVER=$v KDIR=$kdir\( \|$\)" |
			sed 's/^/wrong kernel: /'
	)
	if [ -z "$bad" ]; then
		ok "$what"
	else
		not_ok "$what"
		{ echo "$bad"; echo "stubs' log:"; cat "$d/log"; echo "make's output:"; tail -n 20 "$d/out"; } |
			sed 's/^/# /'
	fi
}

# Does this Makefile look for kernels in MODULES_ROOT at all? (If not,
# nothing below could be checked: it would use the machine's.)
setup probe
kernel "$tmp/probe" $old
run probe -n all
if grep -q -- "-C $tmp/probe/modules/$old/build" "$tmp/probe/out"; then
	ok "the Makefile looks for kernels in MODULES_ROOT"
else
	not_ok "the Makefile looks for kernels in MODULES_ROOT (make -n all did not build in it)"
	sed 's/^/# /' "$tmp/probe/out" | head -n 20
	echo "$((n - failed)) passed, $failed failed"
	exit 1
fi

for goal in demo vmtest bench-quick bench check; do
	setup "$goal-fresh"
	run "$goal-fresh" "$goal"
	expect "$goal-fresh" "make $goal, empty modules root: deps first, then $new" $new
	setup "$goal-old"
	kernel "$tmp/$goal-old" $old
	run "$goal-old" "$goal"
	expect "$goal-old" "make $goal, $old installed: deps first, then $new" $new
done

# The user's choice is kept through the new make.
setup user
kernel "$tmp/user" $old
run user demo KVER=$old
expect user "make demo KVER=$old: deps first, then $old" $old

# Plain make: no deps; the newest build tree when the running kernel has
# none (the running kernel's never exists here).
setup plain
kernel "$tmp/plain" $old
run plain all
expect plain "make all: no deps, the installed $old" $old nodeps

echo "$((n - failed)) passed, $failed failed"
[ $failed -eq 0 ]
