#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the klb selftests (all of selftests/Makefile's TEST_PROGS, or the ones
# named: "sched", "sched.sh", "selftests/sched.sh") one after the other and
# print kselftest-style TAP, each test's own TAP indented as "# " lines.
# After each test: klb must be unloaded and the kernel log written during the
# test must be clean, else the test counts as failed. Ends with the line
#   N passed, N failed, N skipped
# Exit 0 only if nothing failed. Needs root and a kernel that loads modules
# (tools/vm/run-selftests boots one).
#
# KLB_TEST_QUEUE=DIR: the tests are a queue shared with other runs (other
# VM boots, tools/vm/run-selftests-split): a test runs here only if this
# run claims it first, by creating DIR/TEST (mkdir is atomic, also over
# 9p). Every run is given the same list, longest first, so each boot takes
# the next test when it is free and the boots end together. The TAP plan
# then comes at the end: how many this run took is known only then.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export KLB_SRC=${KLB_SRC:-$(dirname "$here")}
# bulk.sh alone takes up to ~10 min when two emulated boots share the cores
per_test_timeout=${KLB_TEST_TIMEOUT:-1200}
# KLB_DMESG_BAD, klb_log_unexpected
source "$here/kernel_log.sh"

if [ $# -gt 0 ]; then
	tests=()
	for t in "$@"; do
		t=$(basename "$t")
		tests+=("${t%.sh}.sh")
	done
else
	tests=()
	read -ra tests < <(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$here/Makefile" |
		sed -n 's/^TEST_PROGS[[:space:]]*:*=[[:space:]]*//p')
fi

echo "TAP version 13"
if [ ${#tests[@]} -eq 0 ]; then
	echo "1..0 # no tests found in $here/Makefile"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
queue=${KLB_TEST_QUEUE:-}
[ -n "$queue" ] || echo "1..${#tests[@]}"
pass=0 failed=0 skipped=0 n=0
start_all=$SECONDS
for t in "${tests[@]}"; do
	if [ -n "$queue" ]; then
		mkdir "$queue/$t" 2>/dev/null || continue
	fi
	n=$((n + 1))
	echo "# selftests: klb: $t"
	if [ ! -x "$here/$t" ]; then
		echo "not ok $n selftests: klb: $t # no such test"
		failed=$((failed + 1))
		continue
	fi
	marker="klb-run_all: begin $t $$.$n"
	echo "$marker" >/dev/kmsg 2>/dev/null
	t0=$SECONDS
	timeout -k 10 "$per_test_timeout" "$here/$t" 2>&1 | sed -u 's/^/# /'
	rc=${PIPESTATUS[0]}
	secs=$((SECONDS - t0))
	why=
	[ $rc -eq 124 ] || [ $rc -eq 137 ] && why="timeout after ${per_test_timeout}s"
	if grep -q "^klb " /proc/modules; then
		why="${why:+$why; }klb still loaded after the test"
		rmmod klb 2>/dev/null || why="$why (and rmmod fails)"
		[ $rc -eq 4 ] && rc=1
	fi
	# without what a test bracketed as expected (lib.sh: expect_warning)
	log=$(dmesg | sed -n "/$marker/,\$p" | klb_log_unexpected)
	if grep -E -q "$KLB_DMESG_BAD" <<<"$log"; then
		why="${why:+$why; }kernel log dirty"
		grep -E -A25 "$KLB_DMESG_BAD" <<<"$log" | head -60 | sed 's/^/# dmesg: /'
		[ $rc -eq 4 ] && rc=1
	fi
	if [ $rc -eq 0 ] && [ -z "$why" ]; then
		echo "ok $n selftests: klb: $t # ${secs}s"
		pass=$((pass + 1))
	elif [ $rc -eq 4 ] && [ -z "$why" ]; then
		echo "ok $n selftests: klb: $t # SKIP"
		skipped=$((skipped + 1))
	else
		echo "not ok $n selftests: klb: $t # exit=$rc${why:+ $why} ${secs}s"
		failed=$((failed + 1))
	fi
done
[ -z "$queue" ] || echo "1..$n"
echo "# total time $((SECONDS - start_all))s"
echo "$pass passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
