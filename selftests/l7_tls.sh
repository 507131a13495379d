#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tls mode (L7): klb reads the ClientHello on the VIP, picks the pool by
# SNI and relays the bytes unchanged (TLS ends at the backend). Backends:
# nginx with TLS in be1..be3, each with its own self-signed certificate
# made now with openssl (CN a.example.com, b.example.com,
# default.example.com) answering "beN".
#
#   service tls  VIP4:443  default pool tdef (be3), rules:
#     0 sni a.example.com -> ta (be1)      1 sni *.b.example.com -> tb (be2)
#
# Checks: SNI steering seen by curl (body) and openssl s_client (the
# backend's certificate): exact, wildcard, case-insensitive, TLS 1.2 and
# 1.3; no SNI or no matching rule -> default pool; a ClientHello sent in
# several TCP segments, and fragmented over several TLS records, still
# steered; malformed hellos (random bytes, a bad hello, plain HTTP) ->
# closed without an answer, nothing relayed, errors.parse counted; a
# silent or stalled client closed after tls_hello_timeout (errors.timeout);
# tls counters; rmmod with a relayed connection open.
# Fails if klb refuses its own tls mode (l7_require: never a skip).
source "$(dirname "$0")/lib.sh"
klb_test_init "tls mode: SNI steering, split and malformed ClientHello, counters, unload"
for c in openssl timeout; do
	command -v $c >/dev/null || skip_all "$c not installed"
done

klb_load
l7_require tls

topo_setup 3
l7_certs a.example.com b.example.com default.example.com
nginx_l7_start 1 a.example.com
nginx_l7_start 2 b.example.com
nginx_l7_start 3 default.example.com
for i in 1 2 3; do nginx_l7_wait $i tls; done
B1=$(be4 1) B2=$(be4 2) B3=$(be4 3)

delta() { echo $(($2 - $1)); }
refused() {
	local desc=$1
	shift
	if "$@" >/dev/null 2>&1; then fail "$desc"; diag "command succeeded: $*"; else ok "$desc"; fi
}

cfg pool add ta
cfg pool add tb
cfg pool add tdef
cfg backend add ta $B1:443
cfg backend add tb $B2:443
cfg backend add tdef $B3:443
cfg service add tls vip $VIP4:443 proto tcp mode tls pool tdef
cfg rule add tls sni a.example.com pool ta
cfg rule add tls sni '*.b.example.com' pool tb
refused "rule add: a host matcher on a tls service is refused" klbctl rule add tls host a.example.com pool ta
refused "rule add: a path matcher on a tls service is refused" klbctl rule add tls path /x pool ta
check_eq "rule show -j" "$(klbctl -j rule show tls | jq -c '[.[] | [.index, .sni, .pool, .host]]')" \
	'[[0,"a.example.com","ta",null],[1,"*.b.example.com","tb",null]]'
# HT: tls_hello_timeout, 3 s stretched by KLB_TIME_SCALE (lib.sh) like the
# times that bound it below
HT=$(tscale 3)
l7_sysctl tls_hello_timeout=$HT

c0=$(l7_stat tls .connections)
# every client connection made below appends a line to $TMPD/nconn (the
# helpers run in $(...) subshells: a shell variable would not count)
: >"$TMPD/nconn"
counted() { echo x >>"$TMPD/nconn"; }
# curl_sni NAME: body of https://NAME/ through the VIP (SNI NAME)
curl_sni() {
	counted
	cli curl -sk --max-time 15 --resolve "$1:443:$VIP4" "${@:2}" "https://$1/"
}
# cert_cn ARGS...: the CN of the certificate the server shows to s_client ARGS
cert_cn() {
	counted
	cli timeout 15 openssl s_client -connect $VIP4:443 "$@" </dev/null 2>/dev/null |
		openssl x509 -noout -subject -nameopt RFC2253 2>/dev/null | sed -n 's/^subject=CN=//p'
}
# py_tls ARGS...: l7_client.py tls, "body cn"
py_tls() {
	counted
	cli "$PY" "$SELFTESTS/l7_client.py" tls --addr $VIP4 --timeout 15 "$@" 2>"$TMPD/pytls.err" |
		jq -r '"\(.body) \(.cn)"' 2>/dev/null
	[ -s "$TMPD/pytls.err" ] && diag "$(tail -n3 "$TMPD/pytls.err")"
}

check_eq "sni a.example.com -> be1 (curl)" "$(curl_sni a.example.com)" be1
check_eq "sni a.example.com -> be1's certificate (s_client)" "$(cert_cn -servername a.example.com)" a.example.com
check_eq "sni x.b.example.com -> be2 (wildcard)" "$(curl_sni x.b.example.com)" be2
check_eq "sni x.b.example.com -> be2's certificate" "$(cert_cn -servername x.b.example.com)" b.example.com
check_eq "sni y.x.b.example.com -> be2 (wildcard, two labels)" "$(curl_sni y.x.b.example.com)" be2
check_eq "sni b.example.com: the wildcard does not match it -> default" "$(curl_sni b.example.com)" be3
check_eq "sni other.example.org: no rule -> default" "$(curl_sni other.example.org)" be3
check_eq "sni A.Example.COM: case-insensitive -> be1" "$(py_tls --sni A.Example.COM)" "be1 a.example.com"
check_eq "TLS 1.2 client, sni a.example.com -> be1" "$(curl_sni a.example.com --tls-max 1.2)" be1
check_eq "TLS 1.3 client, sni a.example.com -> be1" "$(curl_sni a.example.com --tlsv1.3)" be1
check_eq "no SNI (s_client -noservername) -> default's certificate" "$(cert_cn -noservername)" default.example.com
counted
check_eq "no SNI (curl to the address) -> be3" "$(cli curl -sk --max-time 15 "https://$VIP4/")" be3
check_eq "ClientHello in 6 TCP segments, 150 ms apart -> be1" \
	"$(py_tls --sni a.example.com --pieces 6 --delay-ms 150)" "be1 a.example.com"
check_eq "ClientHello over 3 TLS records in 4 segments -> be2" \
	"$(py_tls --sni z.b.example.com --pieces 4 --records 3 --delay-ms 100)" "be2 b.example.com"
check_eq "ClientHello, first segment 1 byte, no SNI -> be3" \
	"$(py_tls --pieces 3 --delay-ms 100)" "be3 default.example.com"

nconn=$(wc -l <"$TMPD/nconn")
check_eq "counters: tls.connections grew by $nconn" "$(delta "$c0" "$(l7_stat tls .connections)")" "$nconn"
poll_until 10 eval '[ "$(l7_be_stat ta $B1 443 ".requests // .connections")" = 6 ]'
check_eq "counters: backend be1 (pool ta) counted its 6 connections" \
	"$(l7_be_stat ta $B1 443 '.requests // .connections')" 6

# ---- malformed ClientHellos ------------------------------------------------------
p0=$(l7_stat tls .errors.parse)
t0=$(l7_stat tls .errors.timeout)
logs0=$(cat "$(nginx_log 1)" "$(nginx_log 2)" "$(nginx_log 3)" | wc -l)
# random bytes in an application-data record
out=$({ printf '\x17\x03\x03\x01\xfb'; head -c 507 /dev/urandom; } | l7_raw $VIP4 443 "$(tscale 8)")
check_eq "random bytes: closed, nothing answered" "$(tr -d '\n' <<<"$out")" "#closed"
# a ClientHello record whose session id length is 255 (max 32), random rest
out=$({ printf '\x16\x03\x01\x00\x52\x01\x00\x00\x4e\x03\x03'; head -c 32 /dev/urandom
	printf '\xff'; head -c 43 /dev/urandom; } | l7_raw $VIP4 443 "$(tscale 8)")
check_eq "ClientHello with a bad session id length: closed, nothing answered" "$(tr -d '\n' <<<"$out")" "#closed"
# plain HTTP to the TLS port
out=$(printf 'GET / HTTP/1.1\r\nHost: a.example.com\r\n\r\n' | l7_raw $VIP4 443 "$(tscale 8)")
check_eq "plain HTTP: closed, nothing answered" "$(tr -d '\n' <<<"$out")" "#closed"
check_eq "counters: errors.parse grew by 3" "$(delta "$p0" "$(l7_stat tls .errors.parse)")" 3
# a client that sends nothing, and one that stalls inside the hello
# (tls_hello_timeout is HT s; the lifetime is timed from connect to close
# inside the client netns, so a slow 'ip netns exec' on a busy VM does not count)
out=$(L7_RAW_LIFE="$TMPD/life" l7_raw $VIP4 443 "$(tscale 12)" </dev/null)
check_eq "silent client: closed by tls_hello_timeout" "$(tr -d '\n' <<<"$out")" "#closed"
check_range "silent client: connection lived $((HT - 1))..$(tscale 8) s" "$(cat "$TMPD/life")" $((HT - 1)) "$(tscale 8)"
out=$(printf '\x16\x03\x01\x02\x00\x01\x00' | L7_RAW_LIFE="$TMPD/life" l7_raw $VIP4 443 "$(tscale 12)")
check_eq "stalled ClientHello: closed by tls_hello_timeout" "$(tr -d '\n' <<<"$out")" "#closed"
check_range "stalled ClientHello: connection lived $((HT - 1))..$(tscale 8) s" "$(cat "$TMPD/life")" $((HT - 1)) "$(tscale 8)"
check_eq "counters: errors.timeout grew by 2" "$(delta "$t0" "$(l7_stat tls .errors.timeout)")" 2
check_eq "nothing of it reached a backend (nginx logs)" \
	"$(cat "$(nginx_log 1)" "$(nginx_log 2)" "$(nginx_log 3)" | wc -l)" "$logs0"
check_eq "and the service still steers: sni a.example.com -> be1" "$(curl_sni a.example.com)" be1

# ---- unload with a relayed connection open --------------------------------------------
c0=$(l7_stat tls .connections)
bg "$NS_CLI" bash -c 'exec timeout 120 openssl s_client -quiet -connect "$1:443" -servername a.example.com < <(sleep 120)' \
	_ $VIP4 >"$TMPD/hold.out" 2>&1
hpid=$BG_PID
if poll_until 30 eval '[ "$(l7_stat tls .connections)" -gt "$c0" ]'; then
	ok "a long-lived relayed connection is open"
else
	fail "a long-lived relayed connection is open"
fi
check "the relayed client is still connected" kill -0 $hpid
rmmod_within 20 "rmmod klb with a relayed connection open"
if poll_until 15 eval '! kill -0 $hpid 2>/dev/null'; then
	ok "the relayed client saw its connection end"
else
	fail "the relayed client saw its connection end (s_client still running)"
	kill $hpid 2>/dev/null
fi
