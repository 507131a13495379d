#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# http mode: the Host a backend sees (issue 22, item 6). An absolute-form
# request (GET http://a.example/p HTTP/1.1) is routed by the authority of
# its target, which wins over the Host field (RFC 9112 section 3.2.2); the
# backend must then see that authority as Host, never the client's other
# Host, which may name a host another rule (or another backend's virtual
# host) is for. Backend: l7_backend.py in be1 and be2 (JSON echo of the
# head it got).
#   service web VIP4:80 pool pa (be1); rule host b.example -> pb (be2)
#   origin-form, Host b.example                -> be2, Host b.example
#   absolute-form a.example, Host b.example    -> be1, Host a.example
#   absolute-form b.example:80, Host a.example -> be2, Host b.example:80
#   absolute-form, HTTP/1.0 without Host       -> Host from the target
#   pipelined mix on one connection            -> each one its own Host
# Fails if klb refuses its own http mode (l7_require: never a skip).
source "$(dirname "$0")/lib.sh"
klb_test_init "http mode: absolute-form requests reach the backend with Host = their authority"

klb_load
l7_require http

topo_setup 2
l7be_start 1
l7be_start 2
B1=$(be4 1) B2=$(be4 2)

cfg pool add pa
cfg backend add pa $B1:80
cfg pool add pb
cfg backend add pb $B2:80
cfg service add web vip $VIP4:80 proto tcp mode http pool pa
cfg rule add web host b.example pool pb

# one request on its own connection: "backend host-values" of the echo
ask() {
	printf '%s' "$1" | l7_raw $VIP4 80 5 |
		sed -n '/^{/p' | jq -r '"\(.name) \(.headers.host | join(","))"' 2>/dev/null
}

check_eq "origin-form, Host b.example: routed by Host, Host kept" \
	"$(ask $'GET /o HTTP/1.1\r\nHost: b.example\r\nConnection: close\r\n\r\n')" "be2 b.example"
check_eq "absolute-form http://a.example with Host b.example: be1 sees Host a.example" \
	"$(ask $'GET http://a.example/abs HTTP/1.1\r\nHost: b.example\r\nConnection: close\r\n\r\n')" "be1 a.example"
check_eq "absolute-form http://b.example:80 with Host a.example: be2 sees Host b.example:80" \
	"$(ask $'GET http://b.example:80/abs HTTP/1.1\r\nHost: a.example\r\nConnection: close\r\n\r\n')" "be2 b.example:80"
check_eq "absolute-form with the same Host: one Host, unchanged" \
	"$(ask $'GET http://b.example/abs HTTP/1.1\r\nHost: b.example\r\nConnection: close\r\n\r\n')" "be2 b.example"
check_eq "absolute-form HTTP/1.0 without Host: the authority is added" \
	"$(ask $'GET https://b.example/abs10 HTTP/1.0\r\n\r\n')" "be2 b.example"

# curl sends absolute-form through a proxy: the VIP as an HTTP proxy
r=$(cli curl -s --max-time 10 -x "http://$VIP4:80" -H 'Host: b.example' http://a.example/curl |
	jq -r '"\(.name) \(.headers.host | join(",")) \(.target)"' 2>/dev/null)
check_eq "curl through the VIP as a proxy (absolute-form, -H Host: b.example)" \
	"$r" "be1 a.example http://a.example/curl"
r=$(cli curl -s --max-time 10 --request-target http://b.example/rt -H 'Host: a.example' "http://$VIP4/" |
	jq -r '"\(.name) \(.headers.host | join(","))"' 2>/dev/null)
check_eq "curl --request-target http://b.example/rt with Host a.example" "$r" "be2 b.example"

# pipelined on one client connection: each request its own Host
out=$(printf '%s' $'GET http://a.example/p1 HTTP/1.1\r\nHost: b.example\r\n\r\n' \
	$'GET /p2 HTTP/1.1\r\nHost: b.example\r\n\r\n' \
	$'GET http://b.example/p3 HTTP/1.1\r\nHost: a.example\r\nConnection: close\r\n\r\n' |
	l7_raw $VIP4 80 8)
check_eq "pipelined absolute/origin/absolute: three 200s" "$(http_statuses <<<"$out")" "200 200 200"
check_eq "pipelined: each backend saw the Host it was routed by" \
	"$(sed -n '/^{/p' <<<"$out" | jq -r '"\(.name):\(.headers.host | join(","))"' | tr '\n' ' ')" \
	"be1:a.example be2:b.example be2:b.example "
check_eq "counters: 10 requests, all 2xx" \
	"$(l7_stat web .requests) $(l7_stat web '.responses."2xx"')" "10 10"
