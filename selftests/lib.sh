# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Shared topology and TAP helpers of the klb selftests. Source it, then:
#   klb_test_init "what this test proves"     root? klb.ko? klbctl? -> TAP header
#   topo_setup; backends_start                 namespaces, addresses, nginx
#   klb_load                                   insmod klb.ko
#   ... assertions: ok / fail / check / check_eq ...
# On exit (trap) everything is torn down and checked: processes killed,
# namespaces deleted and gone, `rmmod klb` succeeds, the kernel log written
# since the test began is clean. Those checks are TAP test points too.
#
#                                  VIP 10.0.100.1, fd00:100::1 (on no interface)
#
#  client ns $NS_CLI            balancer ns $NS_LB                 backends $NS_BE1..3
# +----------------+   veth   +-----------------------------+
# | eth0           |----------| cli0            br0 (bridge)|----veth---- eth0 10.0.1.11/24
# | 10.0.0.2/24    |          | 10.0.0.1/24     10.0.1.1/24 |              fd01::11/64
# | 10.0.0.3/24    |          | fd00::1/64      fd01::1/64  |----veth---- eth0 10.0.1.12/24 ..
# | fd00::2/64     |          | ip_forward=1, v6 forwarding |----veth---- eth0 10.0.1.13/24 ..
# | fd00::3/64     |          | klb.ko, klbctl run here     |   nginx :80 answers "beN\n",
# | default via    |          +-----------------------------+   /big/* sized files,
# |   10.0.0.1,    |                                            UDP :5353 answers "beN\n";
# |   fd00::1      |                                            default via 10.0.1.1 /
# +----------------+                                            fd01::1 (replies via klb)
#
# Names of namespaces carry a per-run suffix ($KLB_SUF) so that runs and
# leftovers never collide. Every helper wraps `ip netns exec`.

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

KLB_SRC=${KLB_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
KLB_KO=${KLB_KO:-$KLB_SRC/klb.ko}
KLBCTL=${KLBCTL:-$KLB_SRC/tools/klbctl/klbctl}
SELFTESTS=$KLB_SRC/selftests
PY=${PY:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3

# KLB_TIME_SCALE (a whole number, 1 by default): how much longer than on
# the stock kernel things take where the tests run. make vmtest-debug sets
# it: under KASAN and lockdep in emulation a process start or an
# `ip netns exec` takes seconds, not milliseconds. A test passes the klb
# timeouts it chooses and the times it bounds through tscale, so the two
# stretch together and the test still tells a timeout from a slow client;
# poll_until stretches its own bound.
KLB_TIME_SCALE=${KLB_TIME_SCALE:-1}
[[ "$KLB_TIME_SCALE" =~ ^[1-9][0-9]*$ ]] || {
	echo "lib.sh: KLB_TIME_SCALE must be a whole number >= 1, not '$KLB_TIME_SCALE'" >&2
	exit 1
}
# tscale SECS: SECS (whole or decimal) stretched by KLB_TIME_SCALE
tscale() { awk -v s="$1" -v k="$KLB_TIME_SCALE" 'BEGIN {print s * k}'; }

# KLB_DMESG_BAD, the expected-warning brackets, klb_log_unexpected
source "$(dirname "${BASH_SOURCE[0]}")/kernel_log.sh"
_klb_expect_n=0

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

KLB_SUF=${KLB_SUF:-$$}
NS_CLI=klb-cli-$KLB_SUF
NS_LB=klb-lb-$KLB_SUF
NBE=3
NS_BE=()
for _i in 1 2 3 4 5 6; do NS_BE[_i]=klb-be$_i-$KLB_SUF; done

VIP4=10.0.100.1
VIP6=fd00:100::1
CLI4=10.0.0.2
CLI4B=10.0.0.3
CLI6=fd00::2
CLI6B=fd00::3
LB4=10.0.0.1
LB6=fd00::1
LBBE4=10.0.1.1
LBBE6=fd01::1
be4() { echo "10.0.1.1$1"; }
be6() { echo "fd01::1$1"; }
UDP_PORT=5353

TEST_NAME=$(basename "$0" .sh)
TMPD=$(mktemp -d "/tmp/klb-$TEST_NAME.XXXXXX")
_tap_n=0
_tap_fail=0
_tap_done=0
_ns_made=()
_klb_loaded=0
_marker="klb-selftest: begin $TEST_NAME.$KLB_SUF"

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

# ---- test setup -------------------------------------------------------------

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

# ---- namespaces -------------------------------------------------------------

cli() { ip netns exec "$NS_CLI" "$@"; }
lb() { ip netns exec "$NS_LB" "$@"; }
be() { local n=$1; shift; ip netns exec "${NS_BE[n]}" "$@"; }
# klbctl runs in the balancer namespace: klb's state is per netns.
klbctl() { ip netns exec "$NS_LB" "$KLBCTL" "$@"; }
# cfg WORDS...: a klbctl command that must succeed, as a test point
cfg() { check "klbctl $*" klbctl "$@"; }

# bg NS CMD...: run CMD in namespace NS in the background; its pid (the
# command's own: ip netns exec execs it) in BG_PID
bg() {
	ip netns exec "$1" "${@:2}" &
	BG_PID=$!
}

ns_add() {
	ip netns add "$1" || bail "ip netns add $1"
	_ns_made+=("$1")
	ip -n "$1" link set lo up
}

# topo_setup [NBACKENDS]: the diagram above, with NBACKENDS (default 3)
# backends. Batched (ip -batch): every process start is slow under emulation.
topo_setup() {
	local i ns
	NBE=${1:-3}
	for ns in "$NS_CLI" "$NS_LB" $(for i in $(seq 1 "$NBE"); do echo "${NS_BE[i]}"; done); do
		ns_add "$ns"
	done
	ip -n "$NS_LB" -b - <<-EOF || bail "balancer setup"
		link add br0 type bridge
		addr add $LBBE4/24 dev br0
		addr add $LBBE6/64 dev br0 nodad
		link set br0 up
	EOF
	ip -n "$NS_CLI" -b - <<-EOF || bail "client setup"
		link add eth0 type veth peer name cli0 netns $NS_LB
		addr add $CLI4/24 dev eth0
		addr add $CLI4B/24 dev eth0
		addr add $CLI6/64 dev eth0 nodad
		addr add $CLI6B/64 dev eth0 nodad
		link set eth0 up
		route add default via $LB4
		route add default via $LB6
	EOF
	for i in $(seq 1 "$NBE"); do
		ip -n "${NS_BE[i]}" -b - <<-EOF || bail "backend $i setup"
			link add eth0 type veth peer name be$i netns $NS_LB
			addr add $(be4 "$i")/24 dev eth0
			addr add $(be6 "$i")/64 dev eth0 nodad
			link set eth0 up
			route add default via $LBBE4
			route add default via $LBBE6
		EOF
	done
	{
		echo "addr add $LB4/24 dev cli0"
		echo "addr add $LB6/64 dev cli0 nodad"
		echo "link set cli0 up"
		for i in $(seq 1 "$NBE"); do
			echo "link set be$i master br0"
			echo "link set be$i up"
		done
	} | ip -n "$NS_LB" -b - || bail "balancer ports"
	lb sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
	# Without STP a bridge port forwards at once; still, wait for the links.
	wait_for "balancer reaches be$NBE" lb busybox ping -c1 -W1 "$(be4 "$NBE")"
	wait_for "balancer reaches be$NBE over v6" lb busybox ping -6 -c1 -W1 "$(be6 "$NBE")"
	wait_for "client reaches balancer" cli busybox ping -c1 -W1 $LB4
	wait_for "client reaches balancer over v6" cli busybox ping -6 -c1 -W1 $LB6
}

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

# ---- backends -----------------------------------------------------------------

# nginx_start N: nginx in backend N answering GET / with "beN\n";
# /big/SIZE files are created by mkbig.
nginx_start() {
	local n=$1 d=$TMPD/be$1
	mkdir -p "$d/www/big" "$d/tmp" "$d/log"
	cat >"$d/nginx.conf" <<-EOF
		daemon on;
		master_process on;
		worker_processes 1;
		user root root;
		pid $d/nginx.pid;
		error_log $d/log/error.log warn;
		events { worker_connections 1024; }
		http {
			access_log off;
			client_body_temp_path $d/tmp/body;
			proxy_temp_path $d/tmp/proxy;
			fastcgi_temp_path $d/tmp/fastcgi;
			uwsgi_temp_path $d/tmp/uwsgi;
			scgi_temp_path $d/tmp/scgi;
			keepalive_timeout 30;
			client_header_timeout $(tscale 300)s;
			default_type text/plain;
			server {
				listen 80 reuseport;
				listen [::]:80 ipv6only=on reuseport;
				root $d/www;
				location = / { return 200 "be$n\n"; }
				location = /name { return 200 "be$n\n"; }
				location /big/ { }
			}
		}
	EOF
	be "$n" nginx -q -e "$d/log/error.log" -c "$d/nginx.conf" -p "$d" ||
		{ diag "$(cat "$d/log/error.log" 2>/dev/null)"; bail "nginx in be$n"; }
	[ "${2:-}" = nowait ] || nginx_wait "$n"
}
nginx_wait() {
	wait_for "nginx be$1 ready" lb curl -s --max-time 2 -o /dev/null "http://$(be4 "$1")/"
	wait_for "nginx be$1 ready (v6)" lb curl -s -g --max-time 2 -o /dev/null "http://[$(be6 "$1")]/"
}

# mkbig NAME BYTES: a file served as /big/NAME by every backend
mkbig() {
	local i
	for i in $(seq 1 "$NBE"); do
		mkdir -p "$TMPD/be$i/www/big"
		head -c "$2" /dev/zero >"$TMPD/be$i/www/big/$1"
	done
}

# udp_start N...: UDP server in backends N... answering each datagram with
# "beN\n" (started together: python starts slowly under emulation)
udp_start() {
	local n
	for n in "$@"; do
		bg "${NS_BE[n]}" "$PY" "$SELFTESTS/klb_udp.py" serve --port $UDP_PORT --name "be$n" \
			--pidfile "$TMPD/udp$n.pid" >"$TMPD/udp$n.log" 2>&1
	done
	for n in "$@"; do
		wait_for "udp be$n ready" udp_probe lb "$(be4 "$n")" $UDP_PORT "be$n"
	done
}

# udp_probe NS_HELPER ADDR PORT WANT: one datagram (socat, connected socket:
# an answer from another source address is not received), answer == WANT
udp_probe() {
	local out
	out=$(echo x | "$1" socat -T2 - "UDP:$2:$3" 2>/dev/null)
	[ "$out" = "$4" ]
}

backends_start() {
	local i
	for i in $(seq 1 "$NBE"); do nginx_start "$i" nowait; done
	for i in $(seq 1 "$NBE"); do nginx_wait "$i"; done
}

# ---- traffic -----------------------------------------------------------------

# http_n N URL [CURL_ARGS...]: N sequential requests from the client, each on
# a new TCP connection; prints the bodies (one "beN" per answered request).
http_n() {
	local n=$1 url=$2 urls=() i
	shift 2
	for ((i = 0; i < n; i++)); do urls+=("$url"); done
	cli curl -s -g --max-time 5 --connect-timeout 3 -H 'Connection: close' "$@" "${urls[@]}"
}

# pool_set_refused POOL SAVE DESC MESSAGE_PATTERN WORDS...: `klbctl pool
# set POOL WORDS...` fails with a message matching the pattern, and
# `klbctl save` is still SAVE (the health tests' bad input).
pool_set_refused() {
	local pool=$1 save=$2 desc=$3 pat=$4 out rc
	shift 4
	out=$(klbctl pool set "$pool" "$@" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && grep -qE "$pat" <<<"$out"; then
		ok "$desc: refused ($out)"
	else
		fail "$desc: rc $rc, message '$out' (want /$pat/)"
	fi
	check_eq "$desc: configuration unchanged" "$(klbctl save)" "$save"
}

# tally: "beN count" lines from http_n output on stdin, sorted by name
tally() { sort | uniq -c | awk '{print $2" "$1}'; }

# count_of NAME TALLY: how many requests NAME answered
count_of() { awk -v n="$1" '$1 == n {print $2; f=1} END {if (!f) print 0}' <<<"$2"; }

# ---- klb state ----------------------------------------------------------------
# JSON is read with jq (Debian package jq, in tools/deps.sh).

# svc_stat SVC KEY: one counter of a service (KEY conns, pkts_in, ..., drops.no_backend)
svc_stat() {
	klbctl -j -s service show | jq -r --arg n "$1" ".[] | select(.name == \$n) | .stats.$2"
}
# be_stat POOL ADDR PORT KEY: one counter of a backend
be_stat() {
	klbctl -j -s pool show |
		jq -r --arg n "$1" --arg a "$2" --argjson p "$3" \
			".[] | select(.name == \$n) | .backends[] | select(.addr == \$a and .port == \$p) | .stats.$4"
}
# pool_stat POOL KEY: "ADDR VALUE" per backend of POOL
pool_stat() {
	klbctl -j -s pool show |
		jq -r --arg n "$1" ".[] | select(.name == \$n) | .backends[] | \"\\(.addr) \\(.stats.$2)\""
}
# conn_count [SVC]: entries of `klbctl conn show` (of service SVC)
conn_count() {
	klbctl -j conn show ${1:+service "$1"} | jq -r 'length'
}
# conn_backends [SVC]: the backend address of each connection, one a line
conn_backends() {
	klbctl -j conn show ${1:+service "$1"} | jq -r '.[].backend'
}
# be_name ADDR: "beN" for a backend address (v4 or v6)
be_name() {
	local i
	for i in 1 2 3 4 5 6; do
		[ "$1" = "$(be4 $i)" ] || [ "$1" = "$(be6 $i)" ] && { echo "be$i"; return; }
	done
	echo "?$1"
}

# ---- long-lived connections ---------------------------------------------------
# hold_open ID ADDR PORT: from the client, open a TCP connection and keep it
# idle (bash /dev/tcp) until hold_release ID, which then sends GET / on it
# and prints the answer ("beN") or nothing if the connection is dead.
hold_open() {
	local f=$TMPD/hold$1
	rm -f "$f".*
	cli bash -c '
		exec 3<>"/dev/tcp/$1/$2" || { echo fail >"$3.state"; exit 1; }
		echo open >"$3.state"
		while [ ! -e "$3.go" ]; do sleep 0.1; done
		printf "GET /name HTTP/1.0\r\n\r\n" >&3 2>/dev/null
		timeout "$(cat "$3.go")" cat <&3 >"$3.out" 2>/dev/null
		echo done >"$3.state"' _ "$2" "$3" "$f" &
	wait_for "connection $1 open" grep -q . "$f.state"
	[ "$(cat "$f.state")" = open ] || bail "connection $1 to $2:$3"
}
# hold_release ID [TIMEOUT]: print the answer on connection ID
hold_release() {
	local f=$TMPD/hold$1
	echo "${2:-10}" >"$f.go"
	poll_until $((${2:-10} + 20)) grep -q done "$f.state"
	grep -o '^be[0-9]*' "$f.out" 2>/dev/null
}

# basic_service [SCHED]: pool "web" with the NBE backends (weight 1), service
# "web" on VIP4:80/tcp
basic_service() {
	local i
	check "pool add web sched ${1:-rr}" klbctl pool add web sched "${1:-rr}"
	for i in $(seq 1 "$NBE"); do
		check "backend add web $(be4 "$i"):80" klbctl backend add web "$(be4 "$i"):80"
	done
	check "service add web vip $VIP4:80" klbctl service add web vip $VIP4:80 proto tcp mode nat pool web
}

# ---- forwarding modes -----------------------------------------------------------

# direct_return_setup: the client also sits on the backends' segment (eth1
# on br0, $CLIBR4 / $CLIBR6) and the backends route the client network
# there, so replies skip the balancer's IP layer (dr, tun). Bridged frames
# do not pass IP netfilter hooks (no br_netfilter).
CLIBR4=10.0.1.50
CLIBR6=fd01::50
direct_return_setup() {
	local i
	ip -n "$NS_CLI" -b - <<-EOF || bail "client second link"
		link add eth1 type veth peer name clibr netns $NS_LB
		addr add $CLIBR4/24 dev eth1
		addr add $CLIBR6/64 dev eth1 nodad
		link set eth1 up
	EOF
	ip -n "$NS_LB" -b - <<-EOF || bail "client second link, balancer side"
		link set clibr master br0
		link set clibr up
	EOF
	cli sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.eth1.rp_filter=0
	for i in $(seq 1 "$NBE"); do
		ip -n "${NS_BE[i]}" -b - <<-EOF || bail "backend $i return route"
			route add 10.0.0.0/24 via $CLIBR4
			route add fd00::/64 via $CLIBR6
		EOF
	done
	wait_for "be1 reaches the client directly" be 1 busybox ping -c1 -W1 $CLI4
}

# vip_on_backends: every backend holds both VIPs on lo and, as a dr or tun
# backend must, neither answers ARP for them nor uses them as ARP source.
# bridged_replies_pass_by MODE SVC URL: br_netfilter (built into some
# kernels, the debug kernel's among them; loaded on Kubernetes nodes)
# shows frames that a bridge forwards between its ports to the IP hooks.
# After direct_return_setup the backends' replies are such frames (br0 in
# the balancer's netns): 30 more requests to URL must leave SVC's pkts_out
# as it was, as without br_netfilter. Loads br_netfilter where it is a
# module, and unloads it again so the boot's other tests run without it.
bridged_replies_pass_by() {
	local mode=$1 svc=$2 url=$3 loaded=0 out0 in0 fw0 r
	brnf() { lb test -e /proc/sys/net/bridge/bridge-nf-call-iptables; }
	fwd() { lb nstat -asz IpForwDatagrams | awk '$1 == "IpForwDatagrams" {print $2}'; }
	if ! brnf && modprobe br_netfilter 2>/dev/null; then
		loaded=1
	fi
	if brnf; then
		check "br_netfilter: bridged IPv4 and IPv6 frames pass the IP hooks in the balancer's netns" \
			lb sysctl -qw net.bridge.bridge-nf-call-iptables=1 net.bridge.bridge-nf-call-ip6tables=1
		out0=$(svc_stat "$svc" pkts_out) in0=$(svc_stat "$svc" pkts_in) fw0=$(fwd)
		r=$(http_n 30 "$url" | tally)
		check_eq "br_netfilter, $mode: every backend answers the VIP" "$r" "$(printf 'be1 10\nbe2 10\nbe3 10')"
		check "br_netfilter, $mode: the requests still counted ($in0 -> $(svc_stat "$svc" pkts_in))" \
			test "$(svc_stat "$svc" pkts_in)" -ge $((in0 + 90))
		check_eq "br_netfilter, $mode: the bridged replies passed klb by (pkts out)" \
			"$(svc_stat "$svc" pkts_out)" "$out0"
		check_eq "br_netfilter, $mode: and the balancer forwarded no IP packet" "$(fwd)" "$fw0"
	else
		skip "br_netfilter, $mode: bridged replies pass klb by" "no br_netfilter in this kernel"
	fi
	if [ $loaded = 1 ]; then
		check "rmmod br_netfilter (loaded by this test)" rmmod br_netfilter
	fi
}
vip_on_backends() {
	local i
	for i in $(seq 1 "$NBE"); do
		be "$i" sysctl -qw net.ipv4.conf.all.arp_ignore=1 \
			net.ipv4.conf.all.arp_announce=2 net.ipv4.conf.all.rp_filter=0 \
			net.ipv4.conf.default.rp_filter=0 net.ipv4.conf.lo.rp_filter=0
		ip -n "${NS_BE[i]}" -b - <<-EOF || bail "VIPs on backend $i"
			addr add $VIP4/32 dev lo
			addr add $VIP6/128 dev lo nodad
		EOF
	done
}

# icmp_counter NS: the ICMP errors of the kind klb_icmp.py sends that
# namespace NS received (IPv4 and IPv6 summed)
icmp_counter() {
	ip netns exec "$1" nstat -asz IcmpInDestUnreachs Icmp6InPktTooBigs |
		awk '$1 == "IcmpInDestUnreachs" || $1 == "Icmp6InPktTooBigs" {n += $2} END {print n + 0}'
}

# held_conn SVC VIP PORT: hold a connection to VIP:PORT from the client
# (pid in HELD_PID) until it shows ESTABLISHED; its JSON in HELD
held_conn() {
	cli bash -c 'exec 3<>"/dev/tcp/$1/$2" && sleep 30' _ "$2" "$3" &
	HELD_PID=$!
	poll_until 20 sh -c "ip netns exec $NS_LB $KLBCTL -j conn show service $1 |
		jq -e '[.[] | select(.state == \"established\")] | length > 0'"
	HELD=$(klbctl -j conn show service "$1" | jq -c '[.[] | select(.state == "established")][0]')
}
held_release() {
	kill "$HELD_PID" 2>/dev/null
	wait "$HELD_PID" 2>/dev/null || true
}
# jf KEY: a field of $HELD
jf() { jq -r ".$1" <<<"$HELD"; }

# icmp_reaches_backend DESC SVC VIP [PORT]: hold a connection to VIP:PORT
# (80), then send the VIP an ICMP error quoting a VIP -> client segment of
# it (as a router on the way to the client would): klb must send it on to
# the backend that holds the connection (its ICMP in-counter rises) so that
# the backend's socket learns the path MTU.
icmp_reaches_backend() {
	local desc=$1 svc=$2 vip=$3 port=${4:-80} n before after
	held_conn "$svc" "$vip" "$port"
	n=$(be_name "$(jf backend)")
	n=${n#be}
	before=$(icmp_counter "${NS_BE[n]}")
	cli "$PY" "$SELFTESTS/klb_icmp.py" --to "$vip" --qsrc "$vip" --qsport "$port" \
		--qdst "$(jf client)" --qdport "$(jf client_port)" || diag "klb_icmp.py failed"
	poll_until 10 sh -c "[ \$(ip netns exec ${NS_BE[n]} nstat -asz IcmpInDestUnreachs Icmp6InPktTooBigs |
		awk '{n += \$2} END {print n + 0}') -gt $before ]"
	after=$(icmp_counter "${NS_BE[n]}")
	check "$desc (ICMP errors received by be$n: $before -> $after)" test "$after" -gt "$before"
	held_release
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

# randfile PATH KB: random content; prints its sha256
randfile() {
	head -c "$(($2 * 1024))" /dev/urandom >"$1"
	sha256sum "$1" | cut -d' ' -f1
}

# upload_sha NS_BE ADDR PORT FILE: send FILE from the client to a socat in
# backend NS_BE listening on PORT (reached as ADDR:PORT); prints the
# sha256 of what the backend received (empty on failure)
upload_sha() {
	local bns=$1 addr=$2 port=$3 src=$4 dst=$TMPD/up.$RANDOM pid
	ip netns exec "$bns" socat -u "TCP6-LISTEN:$port,reuseaddr,ipv6only=0" "OPEN:$dst,creat,trunc" &
	pid=$!
	poll_until 10 sh -c "ip netns exec $bns ss -Htln 'sport = :$port' | grep -q ." ||
		diag "socat in $bns does not listen on $port"
	cli timeout 120 socat -u "FILE:$src" "TCP:$addr:$port,connect-timeout=5" 2>/dev/null
	local i
	for i in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	[ -s "$dst" ] && sha256sum "$dst" | cut -d' ' -f1
	rm -f "$dst"
}

# download_sha URL: sha256 of what the client gets from URL (curl -f)
download_sha() {
	cli timeout 300 bash -c 'set -o pipefail; curl -sSgf --max-time 280 "$1" | sha256sum' _ "$1" 2>/dev/null |
		cut -d' ' -f1
}

# ---- teardown -----------------------------------------------------------------

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

# ---- L7 (http and tls service modes) -----------------------------------------
# Backends: nginx_l7_start (nginx that logs every request with its connection
# number, optionally TLS too) and l7be_start (selftests/l7_backend.py: echo,
# bodies, delays, PROXY v2). Clients: curl, wrk, openssl, l7_raw (bytes as
# given over bash /dev/tcp) and selftests/l7_client.py (slow sender, split
# ClientHello).

# l7_require MODE: klb must create a MODE (http, tls) service: a probe in a
# scratch namespace, so that a refusal fails with klb's own message before
# the test builds its topology. The L7 engine is part of klb and needs
# nothing optional of the kernel (kernel TCP sockets only): a klb that
# refuses its own mode ("unknown mode", "Operation not supported" or any
# other answer) fails the test, never skips it. Call after klb_load, before
# topo_setup and before any test point.
l7_require() {
	local mode=$1 ns=klb-l7probe-$KLB_SUF out rc=0
	ns_add "$ns"
	out=$(ip netns exec "$ns" "$KLBCTL" pool add l7probe 2>&1 &&
		ip netns exec "$ns" "$KLBCTL" service add l7probe vip $VIP4:80 proto tcp \
			mode "$mode" pool l7probe 2>&1) || rc=$?
	ip netns exec "$ns" "$KLBCTL" flush >/dev/null 2>&1
	ip netns del "$ns"
	[ $rc -eq 0 ] && return 0
	diag "$out"
	bail "klb refuses its own mode $mode: service add ... mode $mode (probe in a scratch namespace)"
}

# l7_sysctl_bad NAME VALUE: writing VALUE to net.klb.NAME is refused with
# EINVAL and the value stays (two test points)
l7_sysctl_bad() {
	local old out
	old=$(lb sysctl -n "net.klb.$1")
	out=$(lb sysctl -w "net.klb.$1=$2" 2>&1)
	check "sysctl net.klb.$1=$2 refused: Invalid argument ($out)" grep -q "Invalid argument" <<<"$out"
	check_eq "net.klb.$1 unchanged after the refused write" "$(lb sysctl -n "net.klb.$1")" "$old"
}

# l7_sysctl NAME=VALUE...: set net.klb.NAME in the balancer, a test point each
l7_sysctl() {
	local kv
	for kv in "$@"; do
		check "sysctl net.klb.$kv" lb sysctl -qw "net.klb.$kv"
	done
}

# l7_certs NAME...: self-signed EC certificates $TMPD/pki/NAME.{crt,key},
# subject CN=NAME and DNS:NAME
l7_certs() {
	local n
	mkdir -p "$TMPD/pki"
	for n in "$@"; do
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
			-subj "/CN=$n" -addext "subjectAltName=DNS:$n" \
			-keyout "$TMPD/pki/$n.key" -out "$TMPD/pki/$n.crt" >"$TMPD/pki/$n.log" 2>&1 ||
			{ diag "$(cat "$TMPD/pki/$n.log")"; bail "openssl: certificate for $n"; }
	done
}

# nginx_l7_start N [CERT]: nginx in backend N, port 80 (v4 and v6; and 443 with TLS
# certificate CERT from l7_certs). Every path answers "beN\n" with the
# header X-Backend: beN, /xff answers the X-Forwarded-For it got, /big/*
# serves mkbig files. Each request is logged to $TMPD/beN/log/access.log as
#   CONNECTION REQUESTS_ON_IT METHOD URI STATUS host=HOST xff=XFF
# (CONNECTION: nginx's serial number of the TCP connection; one worker, so
# distinct numbers == distinct connections). Does not wait: nginx_l7_wait.
nginx_l7_start() {
	local n=$1 cert=${2:-} d=$TMPD/be$1 tls=
	mkdir -p "$d/www/big" "$d/tmp" "$d/log"
	[ -n "$cert" ] && tls="listen 443 ssl reuseport;
			ssl_certificate $TMPD/pki/$cert.crt;
			ssl_certificate_key $TMPD/pki/$cert.key;
			ssl_protocols TLSv1.2 TLSv1.3;"
	cat >"$d/nginx.conf" <<-EOF
		daemon on;
		master_process on;
		worker_processes 1;
		user root root;
		pid $d/nginx.pid;
		error_log $d/log/error.log warn;
		events { worker_connections 1000; }
		http {
			log_format l7 '\$connection \$connection_requests \$request_method \$request_uri \$status host=\$host xff=\$http_x_forwarded_for';
			access_log $d/log/access.log l7;
			client_body_temp_path $d/tmp/body;
			proxy_temp_path $d/tmp/proxy;
			fastcgi_temp_path $d/tmp/fastcgi;
			uwsgi_temp_path $d/tmp/uwsgi;
			scgi_temp_path $d/tmp/scgi;
			keepalive_timeout 300;
			keepalive_requests 1000000;
			client_header_timeout $(tscale 300)s;
			client_max_body_size 64m;
			default_type text/plain;
			server {
				listen 80 reuseport;
				listen [::]:80 ipv6only=on reuseport;
				$tls
				root $d/www;
				location / { add_header X-Backend be$n always; return 200 "be$n\n"; }
				location = /xff { add_header X-Backend be$n always; return 200 "\$http_x_forwarded_for\n"; }
				location /big/ { add_header X-Backend be$n always; }
			}
		}
	EOF
	: >"$d/log/access.log"
	be "$n" nginx -q -e "$d/log/error.log" -c "$d/nginx.conf" -p "$d" ||
		{ diag "$(cat "$d/log/error.log" 2>/dev/null)"; bail "nginx in be$n"; }
}
# nginx_l7_wait N [tls]: until backend N answers (over TLS too)
nginx_l7_wait() {
	wait_for "nginx be$1 ready" lb curl -s --max-time 2 -o /dev/null "http://$(be4 "$1")/ready"
	[ "${2:-}" = tls ] &&
		wait_for "nginx be$1 ready (tls)" lb curl -sk --max-time 2 -o /dev/null "https://$(be4 "$1")/ready"
	return 0
}
# nginx_log N: path of backend N's access log
nginx_log() { echo "$TMPD/be$1/log/access.log"; }
# nginx_reqs N PATTERN: requests in backend N's log whose line contains PATTERN
nginx_reqs() { awk -v p="$2" 'index($0, p) {n++} END {print n+0}' "$(nginx_log "$1")"; }
# nginx_conns N PATTERN: distinct TCP connections that carried those requests
nginx_conns() { awk -v p="$2" 'index($0, p) {print $1}' "$(nginx_log "$1")" | sort -u | wc -l; }

# l7be_start N [PROXY_PORT]: selftests/l7_backend.py in backend N on port 80
# (and PROXY_PORT, where a PROXY v2 header is required), named "beN",
# logging to $TMPD/py$N.log; waits until it answers. A request for
# .../gate/NAME is answered once gate_open NAME was called.
l7be_start() {
	local n=$1 pp=${2:-}
	: >"$TMPD/py$n.log"
	mkdir -p "$TMPD/gates"
	bg "${NS_BE[n]}" "$PY" "$SELFTESTS/l7_backend.py" serve --name "be$n" --port 80 \
		${pp:+--proxy-port "$pp"} --log "$TMPD/py$n.log" --pidfile "$TMPD/py$n.pid" \
		--gate-dir "$TMPD/gates" >"$TMPD/py$n.out" 2>&1
	wait_for "l7_backend.py be$n ready" lb curl -s --max-time 2 -o /dev/null "http://$(be4 "$n")/ready"
}
# py_log N: path of l7_backend.py's log in backend N
py_log() { echo "$TMPD/py$1.log"; }
# gate_open NAME: l7_backend.py answers its requests for .../gate/NAME
gate_open() { : >"$TMPD/gates/$1"; }

# l7_stat SVC JQ: an L7 counter of service SVC, JQ relative to its "http" or
# "tls" object: .requests, .responses."2xx", .errors.parse, .connections
l7_stat() {
	klbctl -j -s service show |
		jq -r --arg n "$1" ".[] | select(.name == \$n) | (.stats.http // .stats.tls // .http // .tls) | $2"
}
# l7_be_stat POOL ADDR PORT JQ: an L7 counter of one backend
l7_be_stat() {
	klbctl -j -s pool show |
		jq -r --arg n "$1" --arg a "$2" --argjson p "$3" \
			".[] | select(.name == \$n) | .backends[] | select(.addr == \$a and .port == \$p) |
			(.stats.http // .http) | $4"
}

# l7_raw ADDR PORT SECS: from the client, send stdin as is on one new TCP
# connection (bash /dev/tcp), print what comes back, then a last line
# "#closed" if the server ended the connection within SECS seconds (FIN or
# reset), "#open" if not, "#noconnect" if it could not connect.
# With L7_RAW_LIFE=FILE, also write to FILE the whole seconds from connect to
# that end, timed inside the client netns: a timeout check then measures the
# server and not how long ip netns exec and bash took to start on a busy VM.
l7_raw() {
	local f
	f=$(mktemp "$TMPD/raw.XXXXXX")
	cat >"$f"
	cli bash -c '
		exec 3<>"/dev/tcp/$1/$2" 2>/dev/null || { echo "#noconnect"; exit 0; }
		t0=${EPOCHREALTIME/[.,]/}
		cat "$4" >&3 2>/dev/null &
		w=$!
		timeout "$3" cat <&3 2>/dev/null
		r=$?
		t1=${EPOCHREALTIME/[.,]/}
		[ -n "$5" ] && echo $(((t1 - t0) / 1000000)) >"$5"
		echo
		[ $r -eq 124 ] && echo "#open" || echo "#closed"
		kill $w 2>/dev/null
		exec 3>&-' _ "$1" "$2" "$3" "$f" "${L7_RAW_LIFE:-}"
	rm -f "$f"
}
# http_statuses: the status code of each response in l7_raw output, in order
http_statuses() { grep -aoE '^HTTP/1\.[01] [0-9]{3}' | awk '{print $2}' | tr '\n' ' ' | sed 's/ $//'; }

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
