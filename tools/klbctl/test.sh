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
t 0 'netlink API version 1' -V
t 0 'klbctl pool add' pool help
t 0 'klbctl backend add' backend help
t 0 'klbctl service add' service help
t 0 'klbctl rule add SERVICE' rule help
t 0 'klbctl rule add SERVICE' help rule
t 0 'OBJECT := { pool | backend | service | rule |' help
t 0 'klbctl' conn help
t 0 'klbctl restore' restore help
t 1 'Usage'
t 1 'Object "frob" is unknown, try "klbctl help".' frob
t 1 'Command "frob" is unknown, try "klbctl pool help".' pool frob
one_line 'unknown command'
t 1 'Command "s" is ambiguous' pool s
t 1 'Option "-x" is unknown' -x pool show
t 1 'missing command' backend
t 1 'missing command' rule
t 1 'Command "frob" is unknown, try "klbctl rule help".' rule frob

export KLBCTL_DUMP_REQUEST=1

# req ARGS... : the request dump of klbctl ARGS, in $tmp/req
req() { "$K" "$@" >"$tmp/req" 2>&1; }
# has 'desc' 'line'... : these lines appear in $tmp/req in this order
# (leading blanks ignored, other lines may come in between; "request X"
# stands for "request X len N")
has() {
	local desc=$1 want
	shift
	want=$(printf '%s\n' "$@")
	if python3 -c '
import sys
got = [l.strip() for l in open(sys.argv[1])]
want = [l.strip() for l in sys.argv[2].splitlines()]
i = 0
for l in got:
    if i < len(want) and (l == want[i] or (want[i].startswith("request ") and l.startswith(want[i] + " len "))):
        i += 1
sys.exit(0 if i == len(want) else 1)
' "$tmp/req" "$want"; then
		ok "$desc"
	else
		not_ok "$desc"
		sed 's/^/# /' "$tmp/req"
	fi
}

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
t 0 'maxconn 7' backend set web 10.0.1.1:80 maxconn 7
t 0 'maxconn 0' backend add web 10.0.1.1:80 maxconn 0
t 0 'maxconn 1000000' backend add web 10.0.1.1:80 maxconn 1000000
t 0 'request backend_del' backend del web 10.0.1.1:80
t 0 'proto 6' service add www vip 10.0.0.100:80 proto tcp mode nat pool web
t 0 'mode 0' service add www vip '[fd00::100]:53' proto udp pool web
t 0 'pool "other"' service set www pool other
t 0 'request service_del' service del www
t 0 'request conn_get dump' conn show service www
t 0 'request persist_get dump' conn show persist
t 0 'name "www"' conn show persist service www
t 0 'request flush' flush

# L7 modes and the PROXY protocol
t 0 'mode 1' service add www vip 10.0.0.100:80 proto tcp mode http pool web
t 0 'mode 2' service add tl vip 10.0.0.100:443 proto tcp mode tls pool web
req service add www vip 10.0.0.100:80 proto tcp mode http pool web proxy-protocol v2
has 'service add mode http proxy-protocol v2' 'request service_new' 'mode 1' 'pool "web"' 'proxy_protocol 2'
req service add www vip 10.0.0.100:80 proto tcp mode http pool web
if grep -q proxy_protocol "$tmp/req"; then not_ok 'no proxy-protocol: attribute not sent'; else ok 'no proxy-protocol: attribute not sent'; fi
req service set www proxy-protocol none
has 'service set proxy-protocol none' 'request service_set' 'name "www"' 'proxy_protocol 0'
if grep -q 'pool' "$tmp/req"; then not_ok 'service set proxy-protocol: no pool sent'; else ok 'service set proxy-protocol: no pool sent'; fi
req service set www pool other proxy-protocol v2
has 'service set pool and proxy-protocol' 'request service_set' 'pool "other"' 'proxy_protocol 2'

# rules
req rule add www host a.example.com path /api header X-Env=blue method GET pool api
has 'rule add: every http matcher' 'request rule_new' 'rule {' 'service "www"' 'host "a.example.com"' \
	'path "/api"' 'header_name "X-Env"' 'header_value "blue"' 'method "GET"' 'pool "api"' '}'
req rule add tl sni '*.example.com' pool api
has 'rule add: sni' 'request rule_new' 'service "tl"' 'sni "*.example.com"' 'pool "api"'
req rule add www pool api
has 'rule add: no matcher matches all' 'request rule_new' 'service "www"' 'pool "api"'
req rule add www header 'X-A=b=c d' pool api
has 'rule add: header value keeps "=" and blanks' 'header_name "X-A"' 'header_value "b=c d"'
req rule add www header 'X-Empty=' pool api
has 'rule add: empty header value' 'header_name "X-Empty"' 'header_value ""'
req rule del www 3
has 'rule del' 'request rule_del' 'rule {' 'service "www"' 'index 3' '}'
req rule show www
has 'rule show: a filtered dump' 'request rule_get dump' 'rule {' 'service "www"' '}'
t 0 'index 4294967295' rule del www 4294967295
t 0 'request rule_new' ru a www pool api
t 1 'Object "r" is ambiguous' r a www pool api

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
t 1 'invalid maxconn "-1": expected 0..1000000 (0: no cap)' backend set web 10.0.0.1:80 maxconn -1
t 1 'invalid maxconn "1000001"' backend set web 10.0.0.1:80 maxconn 1000001
t 1 'invalid maxconn "4294967296"' backend add web 10.0.0.1:80 maxconn 4294967296
t 1 'missing value after "maxconn"' backend set web 10.0.0.1:80 maxconn
t 1 'unexpected argument' backend del web 10.0.0.1:80 weight 1
t 1 'missing "pool POOL"' service add www vip 10.0.0.100:80 proto tcp mode nat
t 1 'missing "vip ADDR:PORT"' service add www proto tcp pool web
t 1 'missing "proto PROTO"' service add www vip 10.0.0.100:80 pool web
t 1 'nothing to change: expected "pool POOL" or "proxy-protocol PP"' service set www
t 1 'unknown argument "vip"' service set www vip 1.2.3.4:5
t 1 'unknown argument "mode"' service set www mode http
t 1 'missing value after "proxy-protocol"' service set www proxy-protocol
t 1 'missing SERVICE' rule add
t 1 'missing "pool POOL"' rule add www host a.example.com
one_line 'rule without pool'
t 1 'missing "pool POOL"' rule add www
t 1 'invalid header "X-Env": expected NAME=VALUE' rule add www header X-Env pool api
t 1 'unknown argument "cookie"' rule add www cookie a=b pool api
t 1 'unknown argument "www"' rule add www www pool api
t 1 'missing value after "host"' rule add www pool api host
t 1 '"host" given twice' rule add www host a host b pool api
t 1 '"pool" given twice' rule add www pool a pool b
t 1 'invalid index "x"' rule del www x
t 1 'invalid index "-1"' rule del www -1
t 1 'invalid index "4294967296"' rule del www 4294967296
t 1 'missing rule INDEX' rule del www
t 1 'missing SERVICE' rule del
t 1 'unexpected argument "2"' rule del www 1 2
t 1 'missing SERVICE' rule show
t 1 'unexpected argument "x"' rule show www x
t 1 'missing service NAME' conn show service
t 1 'missing service NAME' conn show persist service
t 1 'unknown argument "frob"' conn show persist frob x
t 1 'unexpected argument' save now
t 1 'unexpected argument' flush all

# Words the CLI maps to numbers: an unknown one is a usage error (exit 1: nothing was sent).
t 1 'Error: unknown scheduler "foo"; expected one of rr wrr lc wlc sh mh p2c' pool add web sched foo
one_line 'unknown scheduler'
t 1 'unknown state "bogus"' backend set web 10.0.0.1:80 state bogus
t 1 'unknown protocol "sctp"' service add www vip 10.0.0.100:80 proto sctp pool web
t 1 'unknown mode "dsr"' service add www vip 10.0.0.100:80 proto tcp mode dsr pool web
t 1 'unknown proxy protocol "v1"; expected one of v2 none' service add www vip 10.0.0.100:80 proto tcp mode http pool web proxy-protocol v1
one_line 'unknown proxy protocol'
t 1 'unknown proxy protocol "v1"' service set www proxy-protocol v1
t 1 'unknown proxy protocol "2"' service set www proxy-protocol 2

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

# rules and proxy-protocol in a file: rules go into their service, in order
cat >"$tmp/l7.conf" <<'EOF'
pool add web
pool add api
service add www vip 10.0.0.100:80 proto tcp mode http pool web
rule add www host "a.example.com" path /api pool api
service add tl vip 10.0.0.100:443 proto tcp mode tls pool web
rule add tl sni *.example.com pool api
rule add www header "X-UA=Mozilla 5.0 \"x\" \\" method "#M" pool web   # quoted words
service set www proxy-protocol v2
EOF
req restore -f "$tmp/l7.conf"
has 'restore: rules in their service, in order, quotes undone' 'request restore_stage' 'config {' \
	'service {' 'name "www"' 'mode 1' 'pool "web"' 'proxy_protocol 2' 'rules {' \
	'rule {' 'host "a.example.com"' 'path "/api"' 'pool "api"' '}' \
	'rule {' 'header_name "X-UA"' 'header_value "Mozilla 5.0 "x" \"' 'method "#M"' 'pool "web"' '}' \
	'}' '}' 'service {' 'name "tl"' 'mode 2' 'rules {' 'rule {' 'sni "*.example.com"' 'pool "api"'
if [ "$(grep -c 'rule {' "$tmp/req")" = 3 ]; then ok 'restore: three rules'; else not_ok 'restore: three rules'; fi
# a restore is a transaction: BEGIN, STAGEs of at most 48 KiB of config
# (pools before services), one COMMIT
req restore -f "$tmp/good.conf"
has 'restore: begin, stage, commit' 'request restore_begin' 'request restore_stage' 'txn 0' \
	'config {' 'pool {' 'service {' 'request restore_commit' 'txn 0'
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "pool add p%d\nbackend add p%d 10.1.%d.%d:80\n", i, i, i / 250, i % 250 + 1
	for (i = 0; i < 3000; i++) printf "service add s%d vip 10.2.%d.%d:80 proto tcp mode nat pool p%d\n", i, i / 250, i % 250 + 1, i }' >"$tmp/big.conf"
req restore -f "$tmp/big.conf"
stages=$(grep -c '^request restore_stage ' "$tmp/req")
maxlen=$(sed -n 's/^request restore_stage len \([0-9]*\)$/\1/p' "$tmp/req" | sort -n | tail -n1)
if [ "$(grep -c '^request restore_begin ' "$tmp/req")" = 1 ] && [ "$(grep -c '^request restore_commit ' "$tmp/req")" = 1 ] &&
   [ "$stages" -ge 3 ] && [ "$maxlen" -le $((56 * 1024)) ] &&
   [ "$(grep -c 'pool {' "$tmp/req")" = 3000 ] && [ "$(grep -c 'service {' "$tmp/req")" = 3000 ]; then
	ok "restore of 3000 services: one begin, $stages stages of at most $maxlen bytes, one commit"
else
	not_ok "restore of 3000 services split into stages (got $stages stages, largest $maxlen bytes)"
fi
if awk '/service \{/ { s = 1 } /pool \{/ && s { bad = 1 } END { exit bad }' "$tmp/req"; then
	ok 'restore: every pool is staged before the first service'
else
	not_ok 'restore: every pool is staged before the first service'
fi
printf 'pool add web\nservice add www vip 10.0.0.100:80 proto tcp mode nat pool web\n' >"$tmp/nat.conf"
req restore -f "$tmp/nat.conf"
if grep -q 'rules\|proxy_protocol' "$tmp/req"; then not_ok 'restore: no rules nest without rules'; else ok 'restore: no rules nest without rules'; fi

bad() { # bad RC 'message' LINES...
	local want=$1 pat=$2
	shift 2
	printf '%s\n' "$@" >"$tmp/bad.conf"
	t "$want" "Error: $tmp/bad.conf:$pat" restore -f "$tmp/bad.conf"
	if grep -q request "$tmp/out"; then not_ok 'broken file: nothing sent'; fi
}
bad 1 '2: pool "nope" is not defined above' 'pool add web' 'backend add nope 1.2.3.4:80'
bad 1 '3: missing port' '' 'pool add web' 'backend add web 1.2.3.4'
bad 1 '1: unknown scheduler "xx"' 'pool add web sched xx'
bad 1 '1: "pool del" is not allowed' 'pool del web'
bad 1 '1: unknown object "frob"' 'frob add x'
bad 1 '1: missing command' 'pool'
bad 1 '2: backend 1.2.3.4:80 is not defined above' 'pool add web' 'backend set web 1.2.3.4:80 weight 3'
bad 1 '1: service "www" is not defined above' 'service set www pool web'
bad 1 '2: invalid weight' 'pool add web' 'backend add web 1.2.3.4:80 weight 99999999999'
bad 1 '2: service "www" is not defined above' 'pool add web' 'rule add www pool web'
bad 1 '3: "rule del" is not allowed in a restore file (only add)' 'pool add web' \
	'service add www vip 10.0.0.1:80 proto tcp mode http pool web' 'rule del www 0'
bad 1 '3: "rule set" is not allowed' 'pool add web' \
	'service add www vip 10.0.0.1:80 proto tcp mode http pool web' 'rule set www 0'
bad 1 '3: invalid header "X"' 'pool add web' \
	'service add www vip 10.0.0.1:80 proto tcp mode http pool web' 'rule add www header X pool web'
bad 1 '3: missing "pool POOL"' 'pool add web' \
	'service add www vip 10.0.0.1:80 proto tcp mode http pool web' 'rule add www host a'
bad 1 '2: unterminated quote' 'pool add web' 'pool add "w eb'
bad 1 '2: unknown proxy protocol "v1"' 'pool add web' \
	'service add www vip 10.0.0.1:80 proto tcp mode http pool web proxy-protocol v1'
bad 1 '1: unknown object "frob" (pool, backend, service or rule)' 'frob add x'
t 1 'cannot open' restore -f /nonexistent
t 1 'unexpected argument' restore -x

# ------------------------------------------- stats, zero, backend show
req stats
has 'stats: one STATS_GET' 'request stats_get'
req stats zero
has 'stats zero: everything' 'request zero'
req stats zero service web
has 'stats zero service web' 'request zero' 'service {' 'name "web"'
req pool zero web
has 'pool zero web' 'request zero' 'pool {' 'name "web"'
req backend show web
has 'backend show web: the pool' 'request pool_get dump' 'pool {' 'name "web"'
t 1 'missing POOL' backend show
t 1 'missing NAME' stats zero service
t 1 'unknown argument "frob"' stats zero frob x
t 1 'Command "frob" is unknown, try "klbctl stats help".' stats frob
t 0 'klbctl stats metrics' stats help

# ------------------------------------------------------ -b, -n, -p
printf 'pool add a sched rr\n# a comment\n\nbackend add a "10.0.0.1:80" weight 2  # and here\n' >"$tmp/batch"
req -b "$tmp/batch"
has '-b: each line a command, quotes and comments as restore' 'request pool_new' 'name "a"' \
	'request backend_new' 'address4 10.0.0.1' 'weight 2'
req -b - <"$tmp/batch"
has '-b -: standard input' 'request pool_new' 'request backend_new'
printf 'pool add a\npool add b sched foo\npool add c\n' >"$tmp/batch"
t 1 "$tmp/batch:2: unknown scheduler \"foo\"" -b "$tmp/batch"
if grep -q 'name "c"' "$tmp/out"; then not_ok '-b stops at the first error'; else ok '-b stops at the first error'; fi
t 1 'cannot open' -b /nonexistent
t 1 'Batch mode takes no command' -b "$tmp/batch" pool show
t 1 'needs an argument' -b
t 1 'needs an argument' -n
t 1 'cannot open network namespace "klb-no-such-ns"' -n klb-no-such-ns pool show
t 1 'invalid network namespace name' -n ../x pool show
t 0 'Usage' -p help
t 1 'Option "-pq" is unknown' -pq help

# ------------------------------------------------- one version
v=$(cat ../../VERSION)
t 0 "klbctl $v " -V
if [ -f ../../klb.ko ] && command -v modinfo >/dev/null; then
	mv=$(modinfo -F version ../../klb.ko)
	if [ "$mv" = "$v" ]; then ok "modinfo klb.ko says $v too"; else not_ok "modinfo klb.ko says '$mv', klbctl $v"; fi
fi

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
	if ./test_print pretty | python3 -m json.tool >/dev/null 2>&1 &&
		[ "$(./test_print pretty | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)))')" = \
		  "$(./test_print json | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)))')" ] &&
		[ "$(./test_print pretty | wc -l)" -gt 10 ] &&
		./test_print pretty | grep -q '^        "u64": 18446744073709551615,$'; then
		ok 'pretty JSON (-p): the same document, indented'
	else
		not_ok 'pretty JSON (-p): the same document, indented'
		./test_print pretty | sed 's/^/# /'
	fi
	if [ "$(./test_print text)" = "$(printf 's=q"b\\\\n\nt\tc\001 u64=18446744073709551615 [1 2 x=- b=true]\n')" ]; then
		ok 'text output'
	else
		not_ok 'text output'
		./test_print text | sed 's/^/# /'
	fi
fi

# ------------------------------------------------------ monitor's lines
if [ -x ./test_event ]; then
	TZ=UTC ./test_event >"$tmp/ev.txt"
	cat >"$tmp/ev.want" <<'EOF'
[2026-12-05T12:00:00.123456] pool new web sched mh
[2026-12-05T12:00:00.123456] backend state web 10.0.1.1:80 weight 2 state drain reason operator
[2026-12-05T12:00:00.123456] backend health six [fd00::1]:8080 weight 1 state up reason "http check: \"status\" 503"
[2026-12-05T12:00:00.123456] service new www pool web
[2026-12-05T12:00:00.123456] config flush pools 2 services 1 backends 3
[2026-12-05T12:00:00.123456] pool unknown(200) web
EOF
	if cmp -s "$tmp/ev.txt" "$tmp/ev.want"; then
		ok 'monitor text: one line per event, filtered, config always'
	else
		not_ok 'monitor text: one line per event, filtered, config always'
		diff "$tmp/ev.want" "$tmp/ev.txt" | sed 's/^/# /'
	fi
	if TZ=UTC ./test_event json | python3 -c '
import json, sys
lines = sys.stdin.read().splitlines()
ev = [json.loads(l) for l in lines]
assert len(ev) == 6, len(ev)
assert all(e["time"] == "2026-12-05T12:00:00.123456" and e["time_ns"] == 1796472000123456789 for e in ev)
assert ev[0] == dict(ev[0], object="pool", action="new", pool="web", sched="mh")
assert ev[1]["backend"] == {"addr": "10.0.1.1", "port": 80, "weight": 2, "state": "drain"}
assert ev[1]["action"] == "state" and ev[1]["reason"] == "operator"
assert ev[2]["backend"]["addr"] == "fd00::1" and ev[2]["reason"] == "http check: \"status\" 503"
assert ev[3] == dict(ev[3], object="service", action="new", service="www", pool="web")
assert (ev[4]["pools"], ev[4]["services"], ev[4]["backends"]) == (2, 1, 3)
assert ev[5]["action"] == "unknown(200)"
'; then ok 'monitor -j: one JSON object per line, fields'; else not_ok 'monitor -j: one JSON object per line, fields'; fi
fi
t 1 'unknown filter "frob"; expected one of all pool backend service' monitor frob
t 1 'unexpected argument "x"' monitor pool x
t 0 'klbctl [-j] monitor' monitor help

echo "1..$n"
[ "$failed" = 0 ]
