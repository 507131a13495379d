#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klbctl against the real module, end to end (needs root and a kernel that
# loads modules, i.e. the test VM):
#   tools/vm/run -- tools/klbctl/test-vm.sh
# Every command, JSON validity and shape, save -> flush -> restore round
# trip, refusals (exit 2 + message, configuration unchanged), extack
# offsets mapped to attributes and restore lines, http and tls services
# with their rules, big pools split over several dump messages. TAP
# output; exit status 1 if any test failed.
set -u
cd "$(dirname "$0")/../.."
K=tools/klbctl/klbctl
KO=${KLB_KO:-klb.ko}
n=0
failed=0
tmp=$(mktemp -d)
ns=klbctl-test-$$

cleanup() {
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
	[ -n "${loaded:-}" ] && rmmod klb 2>/dev/null
}
trap cleanup EXIT

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }

# Everything runs in a fresh namespace: klb state is per netns.
k() { ip netns exec "$ns" "$K" "$@"; }

# t RC 'pattern' ARGS...: status and a fixed string in stdout+stderr.
t() {
	local want=$1 pat=$2 rc
	shift 2
	k "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" != "$want" ]; then
		not_ok "klbctl $* -> $rc, want $want"
		sed 's/^/# /' "$tmp/out" "$tmp/err"
	elif [ -n "$pat" ] && ! grep -qF -- "$pat" "$tmp/out" "$tmp/err"; then
		not_ok "klbctl $* -> no \"$pat\""
		sed 's/^/# /' "$tmp/out" "$tmp/err"
	else
		ok "klbctl $* -> $rc $(head -c 150 "$tmp/err")"
	fi
}

# refused 'pattern' ARGS...: exit 2 with a one-line message, nothing changed.
refused() {
	local before after
	before=$(k save)
	t 2 "$@"
	[ "$(wc -l <"$tmp/err")" = 1 ] || not_ok "  one line of error"
	after=$(k save)
	if [ "$before" = "$after" ]; then ok "  configuration unchanged"; else not_ok "  configuration unchanged"; fi
}

json_check() { # json_check 'python assertions on d' ARGS...
	local code=$1
	shift
	if k "$@" >"$tmp/json" && python3 -c "
import json, sys
d = json.load(open('$tmp/json'))
$code
" 2>"$tmp/err"; then
		ok "klbctl $*: valid JSON of the right shape"
	else
		not_ok "klbctl $*: valid JSON of the right shape"
		sed 's/^/# /' "$tmp/json" "$tmp/err"
	fi
}

ip netns add "$ns"
ip -n "$ns" link set lo up

if ! [ -d /sys/module/klb ]; then
	t 2 'Error: klb module not loaded (generic netlink family "klb" not found)' pool show
	# insmod does not load what klb needs (nf_defrag_*): modprobe does.
	deps=$(modinfo -F depends "$KO" | tr , ' ')
	[ -z "$deps" ] || modprobe -a $deps
	insmod "$KO" || { echo "Bail out! insmod $KO failed"; exit 1; }
	loaded=1
fi

# --------------------------------------------------------------- commands
t 0 '' flush
t 0 '' pool add web
t 0 '' pool add six sched mh
t 0 '' pool add empty sched p2c
t 0 '' backend add web 10.0.1.1:80
t 0 '' backend add web 10.0.1.2:80 weight 2
t 0 '' backend add web 10.0.1.3:80 weight 3 state drain
t 0 '' backend add six '[fd00::1]:80' weight 5
t 0 '' backend add six '[fd00::2]:8080'
t 0 '' backend set web 10.0.1.2:80 weight 0
t 0 '' backend set web 10.0.1.2:80 state down
t 0 '' backend set web 10.0.1.2:80 weight 7 state up
t 0 '' pool set web sched lc
t 0 '' service add www vip 10.0.0.100:80 proto tcp mode nat pool web
t 0 '' service add dns vip 10.0.0.100:53 proto udp mode nat pool web
t 0 '' service add www6 vip '[fd00::100]:80' proto tcp pool six
t 0 '' service set dns pool web
t 0 'pool web sched lc' pool show
t 0 'backend 10.0.1.2:80 weight 7 state up' pool show web
t 0 'backend [fd00::1]:80 weight 5 state up' pool show six
t 0 'conns 0 active 0 pkts in 0 out 0 bytes in 0 out 0' -s pool show web
t 0 'service www tcp 10.0.0.100:80 mode nat pool web' service show
t 0 'service www6 tcp [fd00::100]:80 mode nat pool six' service show www6
t 0 'drops no_backend 0 table_full 0 bad_packet 0' -s service show www
t 0 '' conn show
t 0 '' conn show service www
t 0 '' p sh

# ------------------------------------------------------------------- JSON
json_check '
assert [p["name"] for p in d] == ["web", "six", "empty"], d
w = d[0]
assert w["sched"] == "lc" and len(w["backends"]) == 3
b = w["backends"][2]
assert set(b) == {"addr", "port", "weight", "state", "stats"}, b
assert b == dict(b, addr="10.0.1.3", port=80, weight=3, state="drain")
assert set(b["stats"]) == {"conns", "active_conns", "pkts_in", "pkts_out", "bytes_in", "bytes_out"}
assert all(type(v) is int for v in b["stats"].values())
assert d[1]["backends"][0]["addr"] == "fd00::1"
assert d[2]["backends"] == []' -j -s pool show
json_check '
assert "stats" not in d[0]["backends"][0]' -j pool show
json_check '
s = {x["name"]: x for x in d}
w = s["www"]
assert set(w) == {"name", "proto", "vip", "port", "mode", "pool", "stats"}, w
assert w == dict(w, proto="tcp", vip="10.0.0.100", port=80, mode="nat", pool="web")
assert set(w["stats"]) == {"conns", "active_conns", "pkts_in", "pkts_out", "bytes_in", "bytes_out", "drops"}
assert set(w["stats"]["drops"]) == {"no_backend", "table_full", "bad_packet"}
assert s["www6"]["vip"] == "fd00::100" and s["dns"]["proto"] == "udp"' -j -s service show
json_check '
assert "stats" not in d[0]' -j service show
json_check 'assert d == []' -j conn show
json_check 'assert len(d) == 1 and d[0]["name"] == "six"' -j pool show six

# ------------------------------------------------------ save and restore
k save >"$tmp/s1"
cat >"$tmp/expect" <<'EOF'
pool add web sched lc
backend add web 10.0.1.1:80 weight 1
backend add web 10.0.1.2:80 weight 7
backend add web 10.0.1.3:80 weight 3 state drain
pool add six sched mh
backend add six [fd00::1]:80 weight 5
backend add six [fd00::2]:8080 weight 1
pool add empty sched p2c
service add www vip 10.0.0.100:80 proto tcp mode nat pool web
service add dns vip 10.0.0.100:53 proto udp mode nat pool web
service add www6 vip [fd00::100]:80 proto tcp mode nat pool six
EOF
if cmp -s "$tmp/s1" "$tmp/expect"; then ok 'save prints the configuration'; else
	not_ok 'save prints the configuration'; diff "$tmp/expect" "$tmp/s1" | sed 's/^/# /'; fi
t 0 '' flush
if [ -z "$(k save)" ]; then ok 'flush empties everything'; else not_ok 'flush empties everything'; fi
t 0 '' restore -f "$tmp/s1"
k save >"$tmp/s2"
if cmp -s "$tmp/s1" "$tmp/s2"; then ok 'save -> flush -> restore -> save is byte-identical'; else
	not_ok 'save -> flush -> restore -> save is byte-identical'; diff "$tmp/s1" "$tmp/s2" | sed 's/^/# /'; fi
k restore <"$tmp/s1" && k save | cmp -s - "$tmp/s1" && ok 'restore from stdin' || not_ok 'restore from stdin'

# ---------------------------------------------------------------- refusals
long=abcdefghijklmnopqrstuvwxyz0123456789
refused 'Error: ' backend add web 10.0.1.9:80 weight 65536
refused 'Error: ' backend add web 10.0.1.9:80 weight 4294967295
refused 'Error: ' backend add web 10.0.1.9:0
refused 'Error: ' pool add "$long"
refused 'Error: ' pool add 'bad name'
refused 'Error: ' pool add web
refused 'Error: ' backend add web 10.0.1.1:80
refused 'Error: ' backend add nopool 10.0.1.1:80
refused 'Error: ' backend set web 10.9.9.9:80 weight 2
refused 'Error: ' backend del web 10.9.9.9:80
refused 'Error: ' service add www vip 10.0.0.101:80 proto tcp mode nat pool web
refused 'Error: ' service add x vip 10.0.0.100:80 proto tcp mode nat pool web
refused 'Error: ' service add x vip 10.0.0.102:80 proto tcp mode nat pool nopool
refused 'Error: ' service add x vip 10.0.0.102:80 proto tcp mode nat pool six
refused 'Error: ' service add x vip 10.0.0.102:0 proto tcp mode nat pool web
refused 'Error: ' backend add web '[fd00::9]:80'
refused 'Error: ' service set www pool nopool
refused 'Error: ' service del nosvc
refused 'Error: ' pool del web
refused 'Error: ' pool del nopool
refused 'Error: ' pool show nopool
refused 'Error: ' service show nosvc
refused 'Error: ' conn show service nosvc
refused 'Error: unknown scheduler "foo"' pool add p2 sched foo

# Unprivileged callers: every change is refused.
if command -v setpriv >/dev/null; then
	before=$(k save)
	ip netns exec "$ns" setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all --bounding-set=-all "$K" pool add evil >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = 2 ] && grep -q 'Operation not permitted' "$tmp/err" &&
	   [ "$before" = "$(k save)" ]; then
		ok "unprivileged pool add -> 2 $(cat "$tmp/err")"
	else
		not_ok "unprivileged pool add -> $rc $(cat "$tmp/err")"
	fi
fi

# restore: a file the kernel refuses changes nothing and names the line.
cp "$tmp/s1" "$tmp/bad1"
sed -i 's/^backend add six \[fd00::2\]:8080 weight 1$/backend add six [fd00::2]:8080 weight 70000/' "$tmp/bad1"
refused "$tmp/bad1:7: " restore -f "$tmp/bad1"
printf 'pool add a\npool add a\n' >"$tmp/bad2"
refused 'Error: ' restore -f "$tmp/bad2"
printf 'pool add a\nservice add s vip 10.0.0.1:80 proto tcp mode nat pool b\n' >"$tmp/bad3"
refused 'Error: ' restore -f "$tmp/bad3"
printf 'pool add a\nbackend add a [fd00::1]:80\nservice add s vip 10.0.0.1:80 proto tcp mode nat pool a\n' >"$tmp/bad4"
refused 'Error: ' restore -f "$tmp/bad4"
printf 'pool add a\nbackend add a 10.0.0.1:80 weight x\n' >"$tmp/bad5"
before=$(k save)
t 1 "$tmp/bad5:2: invalid weight" restore -f "$tmp/bad5"
[ "$before" = "$(k save)" ] && ok '  configuration unchanged' || not_ok '  configuration unchanged'

# --------------------------------------------- http and tls services, rules
# The configuration is $tmp/s1 here (the refusals changed nothing).
t 0 '' pool add api
t 0 '' backend add api 10.0.2.1:8080
t 0 '' service add h vip 10.0.0.110:80 proto tcp mode http pool web proxy-protocol v2
# An L7 service connects to its backends itself: any address family.
t 0 '' service add t vip 10.0.0.110:443 proto tcp mode tls pool six
t 0 '' rule add h host a.example.com path /api pool api
t 0 '' rule add h method DELETE pool web
t 0 '' rule add h header 'X-Env=blue green' method GET pool six
t 0 '' rule add h pool api
# Stored normalized: lowercase, without the trailing dot.
t 0 '' rule add t sni '*.Example.COM.' pool api
t 0 '1: method DELETE pool web' rule show h
t 0 '' rule del h 1
k rule show h >"$tmp/rules"
cat >"$tmp/expect" <<'EOF'
0: host a.example.com path /api pool api
1: header "X-Env=blue green" method GET pool six
2: pool api
EOF
if cmp -s "$tmp/rules" "$tmp/expect"; then ok 'rule del: later rules move up'; else
	not_ok 'rule del: later rules move up'; diff "$tmp/expect" "$tmp/rules" | sed 's/^/# /'; fi
t 0 '0: sni *.example.com pool api' rule show t
k rule show www >"$tmp/out" 2>&1 && [ ! -s "$tmp/out" ] && ok 'rule show of a nat service: nothing' ||
	not_ok 'rule show of a nat service: nothing'
t 0 'service h tcp 10.0.0.110:80 mode http pool web proxy-protocol v2 rules 3' service show h
t 0 'service t tcp 10.0.0.110:443 mode tls pool six rules 1' service show t
t 0 '' service set h proxy-protocol none
t 0 'service h tcp 10.0.0.110:80 mode http pool web rules 3' service show h
t 0 '' service set h pool web proxy-protocol v2
t 0 'http requests 0 1xx 0 2xx 0 3xx 0 4xx 0 5xx 0' -s service show h
t 0 'http errors connect 0 timeout 0 reset 0 parse 0 no_backend 0 limit 0' -s service show h
t 0 'tls connections 0 errors connect 0' -s service show t
json_check '
assert d == [{"index": 0, "host": "a.example.com", "path": "/api", "pool": "api"},
             {"index": 1, "header": "X-Env=blue green", "method": "GET", "pool": "six"},
             {"index": 2, "pool": "api"}], d' -j rule show h
json_check 'assert d == [{"index": 0, "sni": "*.example.com", "pool": "api"}], d' -j rule show t
json_check '
s = {x["name"]: x for x in d}
assert s["h"]["mode"] == "http" and s["h"]["proxy_protocol"] == "v2" and s["h"]["rules"] == 3, s["h"]
assert s["t"]["mode"] == "tls" and "proxy_protocol" not in s["t"] and s["t"]["rules"] == 1, s["t"]
assert s["www"]["mode"] == "nat" and "rules" not in s["www"] and "proxy_protocol" not in s["www"]
assert "stats" not in s["h"]' -j service show
json_check '
s = {x["name"]: x for x in d}
err = {"connect", "timeout", "reset", "parse", "no_backend", "limit"}
h = s["h"]["stats"]["http"]
assert set(h) == {"requests", "responses", "errors"}, h
assert set(h["responses"]) == {"1xx", "2xx", "3xx", "4xx", "5xx"} and set(h["errors"]) == err
assert all(type(v) is int for v in list(h["responses"].values()) + list(h["errors"].values()))
t = s["t"]["stats"]["tls"]
assert set(t) == {"connections", "errors"} and set(t["errors"]) == err, t
assert "http" not in s["t"]["stats"] and "tls" not in s["h"]["stats"]
assert "http" not in s["www"]["stats"] and "tls" not in s["www"]["stats"]' -j -s service show
json_check '
for p in d:
    for b in p["backends"]:
        h = b["stats"]["http"]
        assert set(h) == {"requests", "responses", "errors"}, h
        assert set(h["responses"]) == {"1xx", "2xx", "3xx", "4xx", "5xx"}
        assert set(h["errors"]) == {"connect", "timeout", "reset", "parse", "no_backend", "limit"}' -j -s pool show

# refusals
refused 'service www is not an http or tls service' rule add www pool api
refused 'host needs an http service' rule add t host a.example.com pool api
refused 'sni needs a tls service' rule add h sni a.example.com pool api
refused 'pool api is used by rule 0 of service h' pool del api
refused 'pool six is used by service' pool del six
refused 'rule 3 does not exist' rule del h 3
refused 'pool nope does not exist' rule add h pool nope
refused 'service nosvc does not exist' rule add nosvc pool api
refused 'service nosvc does not exist' rule del nosvc 0
refused 'service nosvc does not exist' rule show nosvc
refused 'header name must be a token' rule add h header 'X Env=1' pool api
refused 'path must start with /' rule add h path api pool api
refused 'host must be a hostname' rule add h host 'a..example.com' pool api
refused 'sni must be a hostname' rule add t sni 'a b' pool api
refused 'Error: ' rule add h host "$(printf 'a%.0s' $(seq 254))" pool api
refused 'mode http needs proto tcp' service add u vip 10.0.0.111:80 proto udp mode http pool web
refused 'mode tls needs proto tcp' service add u vip 10.0.0.111:80 proto udp mode tls pool web
refused 'proxy protocol needs mode http' service add n vip 10.0.0.111:80 proto tcp mode nat pool web proxy-protocol v2
refused 'proxy protocol needs mode http' service add n vip 10.0.0.111:443 proto tcp mode tls pool web proxy-protocol v2
refused 'proxy protocol needs mode http' service set t proxy-protocol v2
refused 'proxy protocol needs mode http' service set www proxy-protocol v2
refused 'address, port and protocol already used by service h' service add h2 vip 10.0.0.110:80 proto tcp mode http pool web

# save and restore carry the rules, in order, and the PROXY protocol
k save >"$tmp/l7s1"
python3 - "$tmp/s1" "$tmp/expect" <<'EOF'
import sys
lines = open(sys.argv[1]).read().splitlines()
svc = next(i for i, l in enumerate(lines) if l.startswith("service add"))
lines[svc:svc] = ["pool add api sched wrr", "backend add api 10.0.2.1:8080 weight 1"]
lines += [
    "service add h vip 10.0.0.110:80 proto tcp mode http pool web proxy-protocol v2",
    "rule add h host a.example.com path /api pool api",
    'rule add h header "X-Env=blue green" method GET pool six',
    "rule add h pool api",
    "service add t vip 10.0.0.110:443 proto tcp mode tls pool six",
    "rule add t sni *.example.com pool api",
]
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
EOF
if cmp -s "$tmp/l7s1" "$tmp/expect"; then ok 'save prints services with their rules'; else
	not_ok 'save prints services with their rules'; diff "$tmp/expect" "$tmp/l7s1" | sed 's/^/# /'; fi
t 0 '' flush
t 0 '' restore -f "$tmp/l7s1"
k save >"$tmp/l7s2"
if cmp -s "$tmp/l7s1" "$tmp/l7s2"; then ok 'rules: save -> flush -> restore -> save is byte-identical'; else
	not_ok 'rules: save -> flush -> restore -> save is byte-identical'; diff "$tmp/l7s1" "$tmp/l7s2" | sed 's/^/# /'; fi
# restore over a running L7 configuration (listeners on the same VIPs)
t 0 '' restore -f "$tmp/l7s1"
k save | cmp -s - "$tmp/l7s1" && ok 'restore over itself' || not_ok 'restore over itself'

# restore refusals name the line of the rule
printf 'pool add a\nservice add s vip 10.0.0.1:80 proto tcp mode http pool a\nrule add s pool a\nrule add s sni x.example.com pool a\n' >"$tmp/bad6"
refused "$tmp/bad6:4: " restore -f "$tmp/bad6"
printf 'pool add a\nservice add s vip 10.0.0.1:80 proto tcp mode http pool a\nrule add s pool b\n' >"$tmp/bad7"
refused "$tmp/bad7:3: service s: rule 0: pool b does not exist" restore -f "$tmp/bad7"
printf 'pool add a\nservice add s vip 10.0.0.1:80 proto tcp mode nat pool a\nrule add s pool a\n' >"$tmp/bad8"
refused 'Error: ' restore -f "$tmp/bad8"
printf 'pool add a\nservice add s vip 10.0.0.1:80 proto udp mode http pool a\n' >"$tmp/bad9"
refused "$tmp/bad9:2: " restore -f "$tmp/bad9"

# KLB_RULES_MAX rules per service
{
	echo "pool add a"
	echo "service add s vip 10.0.0.1:80 proto tcp mode http pool a"
	for i in $(seq 0 255); do echo "rule add s path /p$i pool a"; done
} >"$tmp/max"
t 0 '' restore -f "$tmp/max"
json_check 'assert len(d) == 256 and d[255] == {"index": 255, "path": "/p255", "pool": "a"}' -j rule show s
refused 'service s has the maximum of 256 rules' rule add s pool a
echo "rule add s pool a" >>"$tmp/max"
refused 'too many rules (max 256)' restore -f "$tmp/max"
t 0 '' rule del s 0
t 0 '0: path /p1 pool a' rule show s
t 0 '' restore -f "$tmp/l7s1"

# ------------------------------------------- big pools, split dump messages
{
	echo "pool add big sched mh"
	for i in $(seq 0 1499); do
		echo "backend add big 10.$((i / 250 + 1)).$((i % 250)).1:$((1000 + i)) weight $((i % 7))"
	done
	echo "service add bigsvc vip 10.0.0.200:80 proto tcp mode nat pool big"
} >"$tmp/big"
t 0 '' restore -f "$tmp/big"
k save >"$tmp/big2"
if cmp -s "$tmp/big" "$tmp/big2"; then ok 'restore and save of 1500 backends round trip'; else
	not_ok 'restore and save of 1500 backends round trip'; diff "$tmp/big" "$tmp/big2" | head | sed 's/^/# /'; fi
json_check 'assert len(d[0]["backends"]) == 1500' -j -s pool show
json_check 'assert len(d[0]["backends"]) == 1500' -j pool show big
t 0 '' flush

echo "1..$n"
[ "$failed" = 0 ]
