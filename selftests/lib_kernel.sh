# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The kernel side of a test (sourced by lib.sh, not on its own): its start
# (klb_test_init), loading and unloading klb.ko, warnings made on purpose,
# and the teardown that every test ends with: processes killed, namespaces
# deleted and checked gone, `rmmod klb`, kmemleak asked about klb, and the
# kernel log since the test began checked clean, each a TAP test point.

# KLB_DMESG_BAD, the expected-warning brackets, klb_log_unexpected
source "$(dirname "${BASH_SOURCE[0]}")/kernel_log.sh"
# expect_warning's count: its brackets' tags are unique in the log
_klb_expect_n=0
# 1 while the klb.ko that this test loaded (klb_load) is in: the teardown
# then unloads it, as a test point
_klb_loaded=0
# written to the kernel log at the start: the log check reads from there
_marker="klb-selftest: begin $TEST_NAME.$KLB_SUF"

# ---- test setup -------------------------------------------------------------

# klb_test_init DESC: the TAP header; skips the whole test (exit 4) where it
# cannot run (not root, klb.ko or klbctl not built, a tool missing, a klb
# that a previous test left loaded and that cannot be unloaded); then marks
# the kernel log and sets the trap that tears down and checks at exit.
klb_test_init() {
	echo "TAP version 13"
	diag "$TEST_NAME: $*"
	[ "$(id -u)" -eq 0 ] || skip_all "must be root"
	[ -f "$KLB_KO" ] || skip_all "$KLB_KO not built (make)"
	[ -x "$KLBCTL" ] || skip_all "$KLBCTL not built (make)"
	local c
	for c in ip curl nginx "$PY" jq socat insmod rmmod modinfo modprobe; do
		command -v "$c" >/dev/null || skip_all "$c not installed"
	done
	kmemleak_clear
	if grep -q "^klb " /proc/modules; then
		diag "klb was already loaded (a previous test left it): unloading"
		rmmod klb 2>/dev/null || skip_all "klb is loaded and cannot be unloaded"
	fi
	echo "$_marker" >/dev/kmsg 2>/dev/null
	trap _klb_exit EXIT
	trap 'exit 1' INT TERM
}

# klb_load [PARAM=VALUE...]: insmod klb.ko (bails if it fails); the
# teardown unloads it
klb_load() {
	local out
	# No modprobe of dependencies first: klb.ko loads nf_defrag_ipv4/6
	# itself (kmod/compat.c, selftests/insmod.sh).
	if ! out=$(insmod "$KLB_KO" "$@" 2>&1); then
		diag "$out"
		bail "insmod klb.ko"
	fi
	_klb_loaded=1
}

# klb_unload: rmmod, retrying briefly (RCU callbacks, lingering sockets)
klb_unload() {
	local i out first=
	for i in $(seq 1 50); do
		grep -q "^klb " /proc/modules || return 0
		if out=$(rmmod klb 2>&1); then
			[ -n "$first" ] && diag "rmmod klb needed $i tries; the first said: $first"
			return 0
		fi
		[ -n "$first" ] || first="$out ($(grep '^klb ' /proc/modules))"
		sleep 0.2
	done
	diag "rmmod: $out"
	diag "$(grep '^klb ' /proc/modules)"
	return 1
}

# rmmod_under_traffic WHAT SVC URL MIN: a client loop of new connections to
# URL; once SVC has more than MIN connections in the table, rmmod klb: it
# must succeed (the teardown then checks the kernel log and leaks)
rmmod_under_traffic() {
	local what=$1 svc=$2 url=$3 min=$4 tp
	bg "$NS_CLI" bash -c "while :; do curl -sg --max-time 2 -o /dev/null '$url'; done"
	tp=$BG_PID
	poll_until 30 sh -c "[ \$(ip netns exec $NS_LB $KLBCTL -j conn show service $svc | jq length) -gt $min ]" ||
		diag "fewer than $min connections of $svc before rmmod"
	if klb_unload; then
		_klb_loaded=0
		ok "rmmod klb under $what traffic"
	else
		fail "rmmod klb under $what traffic"
	fi
	kill "$tp" 2>/dev/null
	wait "$tp" 2>/dev/null || true
}

# rmmod_within SECS DESC [WHAT]: unload klb (retrying while it is busy),
# as two test points: that it unloaded (DESC), and that "WHAT took at most
# N s" (WHAT defaults to rmmod). SECS, a whole number, is the bound on the
# stock kernel; N is SECS stretched by KLB_TIME_SCALE, as poll_until's.
rmmod_within() {
	local secs desc=$2 what=${3:-rmmod} s0=$SECONDS unloaded=0 out=
	secs=$(tscale "$1")
	while :; do
		grep -q '^klb ' /proc/modules || { unloaded=1; break; }
		out=$(timeout 30 rmmod klb 2>&1) && { unloaded=1; break; }
		[ $((SECONDS - s0)) -ge "$secs" ] && break
		sleep 0.2
	done
	if [ $unloaded = 1 ]; then
		ok "$desc"
		_klb_loaded=0
	else
		fail "$desc ($out)"
	fi
	check_range "$what took at most $secs s" $((SECONDS - s0)) 0 "$secs"
}

# ---- warnings made on purpose ---------------------------------------------------

# expect_warning FILE CMD...: run CMD with panic_on_warn off, and write to
# FILE what the kernel logged meanwhile; the log checks skip it, so the
# caller must check FILE itself, and keep CMD short (any warning of those
# seconds, expected or not, is skipped).
expect_warning() {
	local file=$1 pow rc=0 tag
	shift
	_klb_expect_n=$((_klb_expect_n + 1))
	tag="$TEST_NAME.$KLB_SUF.$_klb_expect_n"
	pow=$(sysctl -n kernel.panic_on_warn)
	echo "$KLB_KMSG_EXPECT_BEGIN $tag" >/dev/kmsg
	sysctl -qw kernel.panic_on_warn=0
	"$@" || rc=$?
	sysctl -qw kernel.panic_on_warn="$pow"
	echo "$KLB_KMSG_EXPECT_END $tag" >/dev/kmsg
	dmesg | sed -n "/$KLB_KMSG_EXPECT_BEGIN $tag\$/,/$KLB_KMSG_EXPECT_END $tag\$/p" >"$file"
	return $rc
}

# ---- kmemleak ---------------------------------------------------------------------

KLB_KMEMLEAK=/sys/kernel/debug/kmemleak

# kmemleak_clear: forget the suspects found so far (not this test's).
kmemleak_clear() {
	[ -w "$KLB_KMEMLEAK" ] && echo clear >"$KLB_KMEMLEAK" 2>/dev/null
	return 0
}

# kmemleak_check: after rmmod klb, scan twice (an object is a suspect only
# once it is 5 s old and no scan found a pointer to it) and print the
# reports. Those that involve klb fail the test: a klb function in the
# allocation's stack, or an address the kernel no longer resolves (klb's
# code is gone once it is unloaded). Others (the kernel's own) are shown.
# Nothing to do where kmemleak is off or absent (Debian's kernel).
kmemleak_check() {
	local rep ours
	[ -w "$KLB_KMEMLEAK" ] || return 0
	echo scan >"$KLB_KMEMLEAK" 2>/dev/null || return 0
	sleep 5
	echo scan >"$KLB_KMEMLEAK" 2>/dev/null
	rep=$(cat "$KLB_KMEMLEAK" 2>/dev/null)
	kmemleak_clear
	if [ -z "$rep" ]; then
		ok "kmemleak: no leak"
		return 0
	fi
	ours=$(awk '/^unreferenced object/ {if (o) print b; b = ""; o = 0}
		{b = b $0 "\n"}
		/\[klb\]|klb_|\[<ffffffff[a-f0-9]+>\] 0xffffffff/ {o = 1}
		END {if (o) print b}' <<<"$rep")
	if [ -z "$ours" ]; then
		ok "kmemleak: no leak of klb"
		diag "kmemleak reports of the kernel's own (not counted):"
		diag "$(head -40 <<<"$rep")"
	else
		fail "kmemleak: no leak of klb"
		diag "$(head -80 <<<"$ours")"
	fi
}

# ---- teardown -----------------------------------------------------------------

# _kill_ns_pids: every process left in the test's namespaces (servers,
# held connections, client loops): TERM, then KILL what is still there, so
# that the namespaces really go (one lives on while a process is in it)
_kill_ns_pids() {
	local ns pids
	for ns in "${_ns_made[@]}"; do
		pids=$(ip netns pids "$ns" 2>/dev/null)
		[ -n "$pids" ] && kill $pids 2>/dev/null
	done
	sleep 0.2
	for ns in "${_ns_made[@]}"; do
		pids=$(ip netns pids "$ns" 2>/dev/null)
		[ -n "$pids" ] && kill -9 $pids 2>/dev/null
	done
}

# _klb_exit: the EXIT trap (klb_test_init). After skip_all nothing was set
# up, so nothing is checked; else the teardown's test points, then the TAP
# plan, and the exit status: 0 (KSFT_PASS) only if no test point failed
# and the test itself exited 0.
_klb_exit() {
	local rc=$? ns left log bad
	trap - EXIT
	[ $_tap_done -eq 1 ] && exit $rc
	jobs -p | xargs -r kill 2>/dev/null
	_kill_ns_pids
	wait 2>/dev/null
	if [ ${#_ns_made[@]} -gt 0 ]; then
		for ns in "${_ns_made[@]}"; do ip netns del "$ns" 2>/dev/null; done
		left=$(ip netns list | grep -E -- "-$KLB_SUF( |$)")
		if [ -z "$left" ]; then
			ok "teardown: every namespace deleted"
		else
			fail "teardown: namespaces left: $left"
		fi
	fi
	if [ $_klb_loaded -eq 1 ]; then
		if klb_unload; then
			ok "rmmod klb"
		else
			fail "rmmod klb"
		fi
	fi
	grep -q "^klb " /proc/modules || kmemleak_check
	log=$(dmesg 2>/dev/null | sed -n "/$_marker/,\$p" | klb_log_unexpected)
	bad=$(grep -E -A25 "$KLB_DMESG_BAD" <<<"$log" | head -60)
	if [ -z "$bad" ]; then
		ok "kernel log clean"
	else
		fail "kernel log clean"
		diag "$bad"
	fi
	rm -rf "$TMPD"
	echo "1..$_tap_n" >&$_tap_fd
	[ $_tap_fail -eq 0 ] && [ $rc -eq 0 ] && exit $KSFT_PASS
	exit $KSFT_FAIL
}
