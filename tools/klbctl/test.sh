#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klbctl userspace tests: no klb module needed. Checks the grammar, exit
# statuses, error messages and the netlink requests built
# (KLBCTL_DUMP_REQUEST=1 prints a request instead of sending it), restore
# parsing, and that the JSON writer emits valid JSON (test_print).
# TAP output; exit status 1 if any test failed.
set -u
cd "$(dirname "$0")"
K=./klbctl
n=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }

# t RC 'stderr-or-stdout pattern' ARGS... : run klbctl, check status and output.
t() {
	local want=$1 pat=$2 rc
	shift 2
	"$K" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" != "$want" ]; then
		not_ok "klbctl $* -> $rc, want $want"
		sed 's/^/# /' "$tmp/err"
	elif [ -n "$pat" ] && ! grep -qF -- "$pat" "$tmp/out" "$tmp/err"; then
		not_ok "klbctl $* -> no \"$pat\" in output"
		sed 's/^/# /' "$tmp/out" "$tmp/err"
	else
		ok "klbctl $* -> $rc"
	fi
}

# Every error is exactly one line.
one_line() {
	if [ "$(wc -l <"$tmp/err")" -le 1 ]; then ok "$1: one line"; else not_ok "$1: one line"; fi
}

# -------------------------------------------------- help, words, options
t 0 'Usage: klbctl' help
t 0 'Usage: klbctl' --help
t 0 'Usage: klbctl' -h
t 0 'klbctl 1' -V
t 0 'klbctl pool add' pool help
t 0 'klbctl backend add' backend help
t 0 'klbctl service add' service help
t 0 'klbctl' conn help
t 0 'klbctl restore' restore help
t 1 'Usage'
t 1 'Object "frob" is unknown, try "klbctl help".' frob
t 1 'Command "frob" is unknown, try "klbctl pool help".' pool frob
one_line 'unknown command'
t 1 'Command "s" is ambiguous' pool s
t 1 'Option "-x" is unknown' -x pool show
t 1 'missing command' backend

export KLBCTL_DUMP_REQUEST=1

# ------------------------------------------------------------ requests
t 0 'sched 1' pool add web
t 0 'sched 5' pool add web sched mh
t 0 'request pool_set' pool set web sched p2c
t 0 'request pool_del' pool del web
t 0 'request pool_new' p a web
t 0 "request pool_get dump len 20" pool show
t 0 'request pool_get dump len' pool show web
t 0 'weight 1' backend add web 10.0.1.1:80
t 0 'address6 fd00::1' backend add web '[fd00::1]:8080' weight 3 state drain
t 0 'weight 4294967295' backend add web 10.0.1.1:80 weight 4294967295
t 0 'port 0' backend add web 10.0.1.1:0
t 0 'weight 70000' backend add web 10.0.1.1:80 weight 70000
t 0 'state 2' backend set web 10.0.1.1:80 state down
t 0 'request backend_del' backend del web 10.0.1.1:80
t 0 'proto 6' service add www vip 10.0.0.100:80 proto tcp mode nat pool web
t 0 'mode 0' service add www vip '[fd00::100]:53' proto udp pool web
t 0 'pool "other"' service set www pool other
t 0 'request service_del' service del www
t 0 'request conn_get dump' conn show service www
t 0 'request flush' flush
long=$(printf 'x%.0s' $(seq 100))
t 0 "name \"$long\"" pool add "$long"

# ---------------------------------------------------------- usage errors
t 1 'missing pool NAME' pool add
one_line 'missing name'
t 1 'nothing to change' pool set web
t 1 'unknown argument "schedx"' pool add web schedx rr
t 1 'missing value after "sched"' pool add web sched
t 1 'missing backend ADDR:PORT' backend add web
t 1 'must be written as [ADDR]:PORT' backend add web fd00::1:80
t 1 'missing port' backend add web 10.0.0.1
t 1 'invalid IPv4 address' backend add web 10.1:80
t 1 'invalid IPv4 address' backend add web localhost:80
t 1 'invalid port' backend add web 10.0.0.1:65536
t 1 'invalid port' backend add web 10.0.0.1:http
t 1 'expected [IPV6]:PORT' backend add web '[::1]80'
t 1 'invalid weight' backend add web 10.0.0.1:80 weight 4294967296
t 1 'invalid weight' backend add web 10.0.0.1:80 weight -1
t 1 'invalid weight' backend add web 10.0.0.1:80 weight 0x10
t 1 'invalid weight' backend add web 10.0.0.1:80 weight ' 1'
t 1 'missing value after "weight"' backend add web 10.0.0.1:80 weight
t 1 'nothing to change' backend set web 10.0.0.1:80
t 1 'unexpected argument' backend del web 10.0.0.1:80 weight 1
t 1 'missing "pool POOL"' service add www vip 10.0.0.100:80 proto tcp mode nat
t 1 'missing "vip ADDR:PORT"' service add www proto tcp pool web
t 1 'missing "proto PROTO"' service add www vip 10.0.0.100:80 pool web
t 1 'nothing to change' service set www
t 1 'unknown argument "vip"' service set www vip 1.2.3.4:5
t 1 'missing service NAME' conn show service
t 1 'unexpected argument' save now
t 1 'unexpected argument' flush all

# Words the CLI maps to numbers: an unknown one is refused (exit 2).
t 2 'Error: unknown scheduler "foo"; expected one of rr wrr lc wlc sh mh p2c' pool add web sched foo
one_line 'unknown scheduler'
t 2 'unknown state "bogus"' backend set web 10.0.0.1:80 state bogus
t 2 'unknown protocol "sctp"' service add www vip 10.0.0.100:80 proto sctp pool web
t 2 'unknown mode "dr"' service add www vip 10.0.0.100:80 proto tcp mode dr pool web

# --------------------------------------------------------------- restore
cat >"$tmp/good.conf" <<'EOF'
# a comment
pool add web sched wrr
backend add web 10.0.1.1:80 weight 1
backend add web 10.0.1.2:80 weight 2 state drain   # trailing comment

pool add six sched mh
backend add six [fd00::1]:80 weight 3
backend set six [fd00::1]:80 state down
pool set six sched p2c
service add www vip 10.0.0.100:80 proto tcp mode nat pool web
service add www6 vip [fd00::100]:80 proto udp mode nat pool six
service set www6 pool web
EOF
t 0 'request restore' restore -f "$tmp/good.conf"
"$K" restore -f "$tmp/good.conf" >"$tmp/req"
if grep -q 'sched 6' "$tmp/req" && grep -q 'state 2' "$tmp/req" &&
   [ "$(grep -c 'backend {' "$tmp/req")" = 3 ] && [ "$(grep -c 'service {' "$tmp/req")" = 2 ] &&
   [ "$(grep -c 'pool "web"' "$tmp/req")" = 2 ]; then
	ok 'restore request holds the merged config'
else
	not_ok 'restore request holds the merged config'
	sed 's/^/# /' "$tmp/req"
fi
if "$K" restore <"$tmp/good.conf" | cmp -s - "$tmp/req"; then
	ok 'restore from stdin = restore -f'
else
	not_ok 'restore from stdin = restore -f'
fi
t 0 'config {' restore -f /dev/null

bad() { # bad RC 'message' LINES...
	local want=$1 pat=$2
	shift 2
	printf '%s\n' "$@" >"$tmp/bad.conf"
	t "$want" "Error: $tmp/bad.conf:$pat" restore -f "$tmp/bad.conf"
	if grep -q request "$tmp/out"; then not_ok 'broken file: nothing sent'; fi
}
bad 1 '2: pool "nope" is not defined above' 'pool add web' 'backend add nope 1.2.3.4:80'
bad 1 '3: missing port' '' 'pool add web' 'backend add web 1.2.3.4'
bad 2 '1: unknown scheduler "xx"' 'pool add web sched xx'
bad 1 '1: "pool del" is not allowed' 'pool del web'
bad 1 '1: unknown object "frob"' 'frob add x'
bad 1 '1: missing command' 'pool'
bad 1 '2: backend 1.2.3.4:80 is not defined above' 'pool add web' 'backend set web 1.2.3.4:80 weight 3'
bad 1 '1: service "www" is not defined above' 'service set www pool web'
bad 1 '2: invalid weight' 'pool add web' 'backend add web 1.2.3.4:80 weight 99999999999'
t 1 'cannot open' restore -f /nonexistent
t 1 'unexpected argument' restore -x

unset KLBCTL_DUMP_REQUEST

# ------------------------------------------------------ no module loaded
if ! grep -qw klb /proc/net/genetlink 2>/dev/null &&
   ! [ -d /sys/module/klb ]; then
	t 2 'Error: klb module not loaded (generic netlink family "klb" not found)' pool show
	one_line 'module not loaded'
	t 2 'klb module not loaded' -j service show
	if [ -s "$tmp/out" ]; then not_ok 'no JSON on error'; else ok 'no JSON on error'; fi
	t 2 'klb module not loaded' flush
	t 2 'klb module not loaded' restore -f "$tmp/good.conf"
fi

# ------------------------------------------------------------ JSON writer
if [ -x ./test_print ]; then
	if ./test_print json | python3 -m json.tool >/dev/null 2>"$tmp/err"; then
		ok 'JSON writer output is valid JSON'
	else
		not_ok 'JSON writer output is valid JSON'
		sed 's/^/# /' "$tmp/err"
	fi
	if ./test_print json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d[0]["s"] == "q\"b\\\\n\nt\tc\x01", d[0]["s"]
assert d[0]["u64"] == 18446744073709551615
assert d[0]["arr"] == [1, 2, {"x": None, "b": True}]
assert d[1] == {} and d[2]["empty"] == []
'; then ok 'JSON writer values round trip'; else not_ok 'JSON writer values round trip'; fi
	if [ "$(./test_print text)" = "$(printf 's=q"b\\\\n\nt\tc\001 u64=18446744073709551615 [1 2 x=- b=true]\n')" ]; then
		ok 'text output'
	else
		not_ok 'text output'
		./test_print text | sed 's/^/# /'
	fi
fi

echo "1..$n"
[ "$failed" = 0 ]
