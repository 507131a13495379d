#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# http mode Upgrade (WebSocket) and tls mode PROXY protocol v2.
#
#   service web  VIP4:80   mode http, default pool py (be2: l7_backend.py),
#                          rule path /ws/ -> ws (be1:8765: a WebSocket echo
#                          server, selftests/l7_ws.py, Python websockets)
#   service tpp  VIP4:443  mode tls, pool tpp (be3:8443: haproxy with
#                          "accept-proxy ssl", answering the client address
#                          and port it learned), proxy-protocol v2
#
# Checks: a real WebSocket client through klb: messages of 5 B .. 200 KiB
# echoed both ways, one at a time and all at once, clean close (1000);
# the backend saw the client in X-Forwarded-For and a clean close; the
# backend's byte counters grew by at least the messages, the 101 counted
# as 1xx, the session and the backend's active count end with the tunnel;
# bytes the backend sent right behind its 101 reach the client. An
# upgrade the backend answers 400: the client gets the 400, its
# connection stays HTTP (a pipelined request after it is answered, on
# another backend connection: one offered an upgrade is not parked).
# Upgrade is forwarded only with Connection: upgrade on an HTTP/1.1 GET
# without a body; a 101 to a request that did not ask, and a 2xx to
# CONNECT, give 502 (errors.parse). tls + PROXY v2: haproxy reports the
# client's own address and port; proxy-protocol none breaks it (haproxy
# wants the header), v2 again mends it; save/restore round-trips; PROXY
# protocol on an L4 mode refused with its message, configuration intact.
source "$(dirname "$0")/lib.sh"
klb_test_init "http Upgrade (WebSocket tunnel) and PROXY v2 for tls"
for c in haproxy openssl timeout; do
	command -v $c >/dev/null || skip_all "$c not installed"
done
"$PY" -c 'import websockets' 2>/dev/null || skip_all "python3-websockets not installed"

klb_load
l7_require http

topo_setup 3
B1=$(be4 1) B2=$(be4 2) B3=$(be4 3)

# be1: the WebSocket echo server
: >"$TMPD/ws.log"
bg "${NS_BE[1]}" "$PY" "$SELFTESTS/l7_ws.py" serve --port 8765 --log "$TMPD/ws.log" \
	--pidfile "$TMPD/ws.pid"
# be2: l7_backend.py
l7be_start 2
# be3: haproxy, PROXY v2 then TLS, answers "ADDR PORT" of the client it learned
l7_certs pp.example.com
cat "$TMPD/pki/pp.example.com.crt" "$TMPD/pki/pp.example.com.key" >"$TMPD/pki/pp.pem"
cat >"$TMPD/haproxy.cfg" <<-EOF
	global
		maxconn 200
	defaults
		mode http
		timeout connect 5s
		timeout client 30s
		timeout server 30s
	frontend pp
		bind 0.0.0.0:8443 accept-proxy ssl crt $TMPD/pki/pp.pem
		http-request return status 200 content-type text/plain lf-string "%[src] %[src_port]\n"
EOF
be 3 haproxy -D -f "$TMPD/haproxy.cfg" -p "$TMPD/haproxy.pid" >"$TMPD/haproxy.out" 2>&1 ||
	{ diag "$(cat "$TMPD/haproxy.out")"; bail "haproxy in be3"; }
wait_for "ws server in be1 listens" be 1 sh -c "ss -Htln 'sport = :8765' | grep -q ."
wait_for "haproxy in be3 listens" be 3 sh -c "ss -Htln 'sport = :8443' | grep -q ."

delta() { echo $(($2 - $1)); }

cfg pool add ws
cfg pool add py
cfg pool add tpp
cfg backend add ws $B1:8765
cfg backend add py $B2:80
cfg backend add tpp $B3:8443
cfg service add web vip $VIP4:80 proto tcp mode http pool py
cfg rule add web path /ws/ pool ws
cfg service add tpp vip $VIP4:443 proto tcp mode tls pool tpp proxy-protocol v2

# be_stat POOL JQ: a counter of the first backend of POOL (.stats)
be_stat() { klbctl -j -s pool show | jq -r --arg n "$1" ".[] | select(.name == \$n) | .backends[0].stats | $2"; }
svc_stat() { klbctl -j -s service show | jq -r --arg n "$1" ".[] | select(.name == \$n) | .stats | $2"; }

diag "at ${SECONDS}s"
# ---- WebSocket through klb ------------------------------------------------------------
SIZES=5,1000,70000,200000
total=$((2 * (5 + 1000 + 70000 + 200000)))	# each message twice (one by one, then a burst)
bi0=$(be_stat ws .bytes_in) bo0=$(be_stat ws .bytes_out)
x0=$(l7_stat web '.responses."1xx"')
# (the debug kernel's python took the whole 60 s: its bounds follow the scale)
out=$(cli timeout "$(tscale 60)" "$PY" "$SELFTESTS/l7_ws.py" client --url "ws://$VIP4/ws/chat" \
	--sizes $SIZES --timeout "$(tscale 20)" 2>"$TMPD/wsc.err")
rc=$?
[ $rc -eq 0 ] || diag "$(tail -n5 "$TMPD/wsc.err")"
check_eq "websocket: 4 messages (5 B .. 200 KiB) echoed one by one" "$(jq -c .echoed <<<"$out")" "[true,true,true,true]"
check_eq "websocket: the same 4 at once, echoed in order" "$(jq -r .burst <<<"$out")" true
check_eq "websocket: the 101 reached the client with Upgrade: websocket" "$(jq -r .upgrade <<<"$out")" websocket
check_eq "websocket: clean close (1000), client exit 0" "$(jq -r .close_code <<<"$out") $rc" "1000 0"
poll_until 10 grep -q '^close' "$TMPD/ws.log"
check_eq "websocket server: saw /ws/chat with the client in X-Forwarded-For, closed 1000" \
	"$(tr '\n' ' ' <"$TMPD/ws.log")" "open /ws/chat $CLI4 close 1000 "
poll_until 10 eval '[ "$(svc_stat web .active_conns)" = 0 ]'
check_eq "websocket: the session ended with the tunnel (service active 0)" "$(svc_stat web .active_conns)" 0
check_eq "websocket: the backend is no longer counted busy (active 0)" "$(be_stat ws .active_conns)" 0
bi=$(delta "$bi0" "$(be_stat ws .bytes_in)") bo=$(delta "$bo0" "$(be_stat ws .bytes_out)")
check_range "websocket: backend bytes in grew by the messages and framing ($bi)" "$bi" $total $((total + 8192))
check_range "websocket: backend bytes out grew by the echoes and framing ($bo)" "$bo" $total $((total + 8192))
check_eq "websocket: the 101 counted as a 1xx response" "$(delta "$x0" "$(l7_stat web '.responses."1xx"')")" 1

diag "at ${SECONDS}s"
# ---- what is forwarded, what is not ---------------------------------------------------
# py_raw REQUEST...: send the requests (\r\n added per line) on one connection
py_raw() { printf '%b' "$@" | l7_raw $VIP4 80 "${RAW_SECS:-$(tscale 3)}"; }
UPG='Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n'

out=$(py_raw "GET /py/status/400 HTTP/1.1\r\nHost: a\r\n$UPG\r\n" "GET /py/after HTTP/1.1\r\nHost: a\r\n\r\n")
check_eq "upgrade answered 400: the client gets 400, then its next request 200" "$(http_statuses <<<"$out")" "400 200"
check_eq "upgrade answered 400: the client connection stays open (HTTP goes on)" "$(tail -n1 <<<"$out")" "#open"
j1=$(grep -a '^{' <<<"$out" | sed -n 1p) j2=$(grep -a '^{' <<<"$out" | sed -n 2p)
check_eq "upgrade request: the backend got Upgrade: websocket and Connection: Upgrade" \
	"$(jq -c '[.headers.upgrade, .headers.connection]' <<<"$j1")" '[["websocket"],["Upgrade"]]'
check "upgrade answered 400: the next request went on another backend connection (not parked)" \
	test "$(jq -r .conn <<<"$j1")" != "$(jq -r .conn <<<"$j2")"

out=$(py_raw "GET /py/echo HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\n\r\n")
check_eq "Upgrade without Connection: upgrade: not forwarded" "$(grep -a '^{' <<<"$out" | jq -c '.headers.upgrade')" null
out=$(py_raw "GET /py/echo HTTP/1.0\r\n$UPG\r\n")
check_eq "HTTP/1.0 upgrade: not forwarded" "$(grep -a '^{' <<<"$out" | jq -c '.headers.upgrade')" null
out=$(py_raw "POST /py/echo HTTP/1.1\r\nHost: a\r\n${UPG}Content-Length: 3\r\n\r\nabc")
check_eq "POST upgrade with a body: 200, Upgrade not forwarded" \
	"$(http_statuses <<<"$out") $(grep -a '^{' <<<"$out" | jq -c '.headers.upgrade')" "200 null"

p0=$(l7_stat web .errors.parse)
out=$(py_raw "GET /py/switch101 HTTP/1.1\r\nHost: a\r\n\r\n")
check_eq "101 to a request that did not ask to upgrade: 502" "$(http_statuses <<<"$out")" 502
out=$(py_raw "GET /py/switch101 HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\n\r\n")
check_eq "101 to Upgrade without Connection: upgrade: 502" "$(http_statuses <<<"$out")" 502
out=$(py_raw "CONNECT $B2:80 HTTP/1.1\r\nHost: $B2:80\r\n\r\n")
check_eq "CONNECT (the backend says 200): 502, no tunnel" "$(http_statuses <<<"$out")" 502
check_eq "counters: errors.parse grew by 3" "$(delta "$p0" "$(l7_stat web .errors.parse)")" 3
# (the backend closes right after its bytes: klb passes the close on)
out=$(RAW_SECS=$(tscale 10) py_raw "GET /py/switch101 HTTP/1.1\r\nHost: a\r\n$UPG\r\n")
check_eq "101 to an upgrade request: relayed, with the bytes behind it, then closed" \
	"$(http_statuses <<<"$out") $(grep -ac '^raw bytes' <<<"$out") $(tail -n1 <<<"$out")" "101 1 #closed"

diag "at ${SECONDS}s"
# ---- tls with PROXY protocol v2 --------------------------------------------------------
# tls_pp PORT: what haproxy behind tpp answers a client connecting from CLI4:PORT
tls_pp() {
	cli curl -sk --max-time 10 --local-port "$1" --resolve "pp.example.com:443:$VIP4" \
		https://pp.example.com/ 2>/dev/null
}
check_eq "tls + PROXY v2: haproxy learned the client's address and port" "$(tls_pp 40001)" "$CLI4 40001"
check_eq "tls + PROXY v2: again from another port" "$(tls_pp 40002)" "$CLI4 40002"
cfg service set tpp proxy-protocol none
check_eq "tls, proxy-protocol none: no header, haproxy refuses the hello (nothing answered)" "$(tls_pp 40003)" ""
cfg service set tpp proxy-protocol v2
check_eq "tls, proxy-protocol v2 again: answered" "$(tls_pp 40004)" "$CLI4 40004"
check "save: proxy-protocol v2 on the tls service line" \
	sh -c "ip netns exec $NS_LB $KLBCTL save | grep -q 'service add tpp .*mode tls.* proxy-protocol v2'"
saved=$(klbctl save)
klbctl save >"$TMPD/saved.conf"
check "restore -f of the saved configuration" klbctl restore -f "$TMPD/saved.conf"
check_eq "save | restore round-trips exactly" "$(klbctl save)" "$saved"
check_eq "tls + PROXY v2 after the restore" "$(tls_pp 40005)" "$CLI4 40005"

# bad input: PROXY protocol on an L4 mode, refused with a message, nothing changed
out=$(klbctl service add d vip 10.0.100.9:80 proto tcp mode dr pool py proxy-protocol v2 2>&1)
rc=$?
check_eq "proxy-protocol v2 on mode dr: refused (exit 2)" "$rc" 2
check "proxy-protocol v2 on mode dr: the message names the modes ($out)" grep -q "proxy protocol needs mode http or tls" <<<"$out"
check_eq "proxy-protocol v2 on mode dr: configuration unchanged" "$(klbctl save)" "$saved"
diag "at ${SECONDS}s"
