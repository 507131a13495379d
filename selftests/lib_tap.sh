# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# TAP output and assertions of the klb selftests (sourced by lib.sh, not on
# its own). Every test point is one "ok N - ..." or "not ok N - ..." line;
# the plan "1..N" comes last, from the teardown (lib_kernel.sh _klb_exit),
# since a test does not know its count ahead (loops, skips, bails). A test
# that cannot run at all prints "1..0 # SKIP why" and exits 4 (kselftest's
# skip); one with a failed point exits 1.

_tap_n=0
_tap_fail=0
_tap_done=0

# ---- TAP ------------------------------------------------------------------

# TAP goes to the test's original stdout (fd $_tap_fd), even from inside a
# redirected helper.
exec {_tap_fd}>&1
diag() { local l; while IFS= read -r l; do echo "# $l" >&$_tap_fd; done <<<"$*"; }
ok() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $*" >&$_tap_fd; }
fail() { _tap_n=$((_tap_n + 1)); _tap_fail=$((_tap_fail + 1)); echo "not ok $_tap_n - $*" >&$_tap_fd; }
skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1 # SKIP ${2:-}" >&$_tap_fd; }
# check DESC CMD...: a test point passing when CMD exits 0 (its output on failure)
check() {
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then
		ok "$desc"
	else
		fail "$desc"
		diag "command: $*"
		[ -n "$out" ] && diag "$out"
	fi
}
# check_eq DESC GOT WANT
check_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		fail "$1"
		diag "got:  '$2'"
		diag "want: '$3'"
	fi
}
# check_range DESC GOT MIN MAX (integers, inclusive)
check_range() {
	if [[ "$2" =~ ^[0-9]+$ ]] && [ "$2" -ge "$3" ] && [ "$2" -le "$4" ]; then
		ok "$1"
	else
		fail "$1"
		diag "got '$2', want $3..$4"
	fi
}
# check_memory DESC BYTES MAX: a bound on kernel memory per connection, as
# check_range from 0. Skipped on a KASAN kernel (the debug kernel of
# vmtest-debug): its shadow memory and redzones make every object larger,
# and the bounds are the stock kernel's; the figure is still printed.
check_memory() {
	if grep -qw __asan_load8 /proc/kallsyms 2>/dev/null; then
		skip "$1" "a KASAN kernel: $2 bytes, the bound ($3) is the stock kernel's"
	else
		check_range "$1" "$2" 0 "$3"
	fi
}
skip_all() {
	echo "1..0 # SKIP $*" >&$_tap_fd
	_tap_done=1
	exit $KSFT_SKIP
}
# bail DESC: a failure after which the rest makes no sense (cleanup still runs)
bail() {
	fail "$*"
	exit $KSFT_FAIL
}

# ---- waiting -----------------------------------------------------------------
# Never a bare sleep for something to happen: poll for it, with a bound.

# wait_for DESC CMD...: poll CMD until it succeeds (KLB_WAIT seconds, 60), else bail
wait_for() {
	local desc=$1 end out
	shift
	end=$((SECONDS + ${KLB_WAIT:-60}))
	while :; do
		out=$("$@" 2>&1) && return 0
		[ $SECONDS -ge $end ] && break
		sleep 0.1
	done
	diag "last try: $* -> $out"
	bail "timed out waiting: $desc"
}

# poll_until SECS CMD...: like wait_for, but returns 1 instead of bailing
# (after SECS stretched by KLB_TIME_SCALE: an upper bound only, so a slower
# kernel may take longer, never must)
poll_until() {
	local secs=$1 end
	shift
	end=$((SECONDS + secs * KLB_TIME_SCALE))
	while :; do
		"$@" >/dev/null 2>&1 && return 0
		[ $SECONDS -ge $end ] && return 1
		sleep 0.2
	done
}
