#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klbctl output with real traffic (conn show, -s counters), on the selftests'
# topology (selftests/lib.sh). In the test VM:
#   tools/vm/run -- tools/klbctl/test-vm-traffic.sh
TEST_NAME=klbctl-traffic
# shellcheck source=../../selftests/lib.sh
. "$(dirname "$0")/../../selftests/lib.sh"

klb_test_init "klbctl conn show and counters with live connections"
topo_setup
backends_start
klb_load
basic_service wrr

out=$(http_n 6 "http://$VIP4/name")
check_eq "6 answers through the VIP" 6 "$(grep -c '^be' <<<"$out")"
hold_open 1 "$VIP4" 80

text=$(klbctl conn show)
diag "$text"
if grep -qE "^tcp $CLI4:[0-9]+ -> $VIP4:80 -> 10\.0\.1\.1[1-3]:80 ESTABLISHED expires [0-9]+s service web$" <<<"$text"; then
	ok "conn show: an ESTABLISHED line"
else
	fail "conn show: an ESTABLISHED line"
fi
json=$(klbctl -j conn show service web)
if $PY -c '
import json, sys
d = json.loads(sys.argv[1])
keys = {"service", "proto", "client", "client_port", "vip", "vip_port", "backend", "backend_port", "state", "expires"}
assert d and all(set(c) == keys for c in d), d
assert all(type(c[k]) is int for c in d for k in ("client_port", "vip_port", "backend_port", "expires"))
assert "established" in [c["state"] for c in d]
assert all(c["vip"] == sys.argv[2] and c["proto"] == "tcp" for c in d)
' "$json" "$VIP4"; then ok "conn show -j: shape and values"; else fail "conn show -j: shape and values"; diag "$json"; fi

check_eq "service conns" 7 "$(svc_stat web conns)"
check_eq "service active_conns" 1 "$(svc_stat web active_conns)"
sum=$(klbctl -j -s pool show web | jq '[.[0].backends[].stats.conns] | add')
check_eq "backend conns add up to the service's" 7 "$sum"
diag "$(klbctl -s pool show)"
diag "$(klbctl -s service show)"
if klbctl -s service show | grep -qE '^	conns 7 active 1 pkts in [1-9][0-9]* out [1-9][0-9]* bytes in [1-9][0-9]* out [1-9][0-9]*$'; then
	ok "service show -s: counters line"
else
	fail "service show -s: counters line"
fi

check_eq "answer on the held connection" 1 "$(hold_release 1 | grep -c '^be')"
check "flush" klbctl flush
