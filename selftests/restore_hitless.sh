#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `klbctl restore` applies the difference (issue 21): what stays keeps its
# kernel objects, so its connections, persistence and counters go on.
# Held across restores of (1) the same file and (2) a file with a backend
# added, a weight changed and an unrelated service removed, then a refused
# restore (a service naming a missing pool):
#   - 3 keep-alive TCP connections through a nat service (rr: one per
#     backend) and 1 through an fnat service: after each restore each
#     sends a request and gets the answer from the backend it had before
#   - a UDP flow (same source port each time): the same backend answers
#   - an http (L7) keep-alive connection: a request after each restore is
#     answered 200 on the same connection
#   - service and backend counters only grow (a recreated object would
#     start again at 0); `klbctl save` is the restored file byte for byte
# Then a restore without the fnat service ends its held connection as a
# service del does (design.md: its connections are removed): the entry is
# gone and the connection gets no answer; the others go on.
# Backends: l7_backend.py (no idle timeout) on port 8000, UDP on 5353.
source "$(dirname "$0")/lib.sh"
klb_test_init "restore applies the difference: connections, flows and counters of what stays go on"

klb_load
l7_require http

topo_setup
for i in 1 2 3; do
	bg "${NS_BE[i]}" "$PY" "$SELFTESTS/l7_backend.py" serve --name "be$i" --port 8000 \
		--log "$TMPD/py$i.log" --pidfile "$TMPD/py$i.pid" >"$TMPD/py$i.out" 2>&1
done
udp_start 1 2 3
for i in 1 2 3; do
	wait_for "l7_backend.py be$i ready" lb curl -s --max-time 2 -o /dev/null "http://$(be4 $i):8000/ready"
done
# the http client idles between the restores
l7_sysctl http_keepalive_timeout=300 http_header_timeout=300 udp_timeout=600

B1=$(be4 1) B2=$(be4 2) B3=$(be4 3)
cfg() { klbctl "$@" || fail "klbctl $*"; }
cfg pool add web sched rr
cfg backend add web $B1:8000
cfg backend add web $B2:8000
cfg backend add web $B3:8000
cfg pool add dns sched rr
cfg backend add dns $B1:$UDP_PORT
cfg backend add dns $B2:$UDP_PORT
cfg backend add dns $B3:$UDP_PORT
cfg pool add l7 sched rr
cfg backend add l7 $B1:8000
cfg backend add l7 $B2:8000
cfg pool add other
cfg backend add other $B3:8000
cfg service add web vip $VIP4:80 proto tcp mode nat pool web
cfg service add fweb vip $VIP4:81 proto tcp mode fnat pool web
cfg service add dns vip $VIP4:53 proto udp mode nat pool dns
cfg service add l7 vip $VIP4:8080 proto tcp mode http pool l7
cfg service add other vip $VIP4:82 proto tcp mode nat pool other
klbctl save >"$TMPD/a.conf"
# (2): be3 joins pool l7, be2 of web weighs 3, service other goes
sed -e "s/^backend add web $B2:8000 weight 1\$/backend add web $B2:8000 weight 3/" \
	-e "/^backend add l7 $B2:8000/a backend add l7 $B3:8000 weight 1" \
	-e '/^service add other /d' "$TMPD/a.conf" >"$TMPD/b.conf"
diag "$(diff "$TMPD/a.conf" "$TMPD/b.conf")"
check_eq "the second file differs in three lines" \
	"$(diff "$TMPD/a.conf" "$TMPD/b.conf" | grep -c '^[<>]')" 4

# ---- what is held across the restores ------------------------------------------
# One client holds every TCP connection; round K (after $TMPD/go.K) sends
# a request on each and prints "K LABEL STATUS BACKEND LOCAL_PORT", or
# "K LABEL error WHY" (then that connection is dropped).
cli "$PY" - "$VIP4" "$TMPD/go" >"$TMPD/held.out" 2>&1 <<-'PYEOF' &
	import os, socket, sys, time
	vip, go = sys.argv[1], sys.argv[2]
	conns = [(l, socket.create_connection((vip, p), timeout=30))
	         for l, p in (("n1", 80), ("n2", 80), ("n3", 80), ("f1", 81),
	                      ("h1", 8080))]
	def ask(s):
	    s.sendall(b"GET /name HTTP/1.1\r\nHost: web\r\n\r\n")
	    data = b""
	    while b"\r\n\r\n" not in data:
	        b = s.recv(4096)
	        if not b:
	            raise EOFError("closed")
	        data += b
	    head, body = data.split(b"\r\n\r\n", 1)
	    hdr = {}
	    for l in head.split(b"\r\n")[1:]:
	        k, _, v = l.partition(b":")
	        hdr[k.strip().lower()] = v.strip().decode()
	    n = int(hdr.get(b"content-length", "0"))
	    while len(body) < n:
	        b = s.recv(4096)
	        if not b:
	            raise EOFError("closed in body")
	        body += b
	    return head.split(b" ")[1].decode(), hdr.get(b"x-backend", "-")
	for k in range(1, 6):
	    while k > 1 and not os.path.exists("%s.%d" % (go, k)):
	        time.sleep(0.05)
	    for l, s in list(conns):
	        try:
	            s.settimeout(8 if k == 5 else 30)
	            st, be = ask(s)
	            print(k, l, st, be, s.getsockname()[1], flush=True)
	        except Exception as e:
	            print(k, l, "error", type(e).__name__, flush=True)
	            conns.remove((l, s))
	    print(k, "done", flush=True)
PYEOF
hpid=$!
poll_until 90 grep -q '^1 done' "$TMPD/held.out"
# round K: "LABEL STATUS BACKEND PORT" lines; the http connection's backend
# is left out (http mode balances each request)
round() {
	awk -v k="$1" '$1 == k && $2 != "done" {print $2, $3, ($2 == "h1" ? "-" : $4), $5}' "$TMPD/held.out"
}
r1=$(round 1)
diag "$r1"
check_eq "the held connections: first requests answered" "$(awk '{print $2}' <<<"$r1" | tr '\n' ' ')" "200 200 200 200 200 "
check_eq "3 nat connections, one per backend" \
	"$(awk '/^n/ {print $3}' <<<"$r1" | sort | tr '\n' ' ')" "be1 be2 be3 "
# held_map SVC: "CLIENT_PORT BACKEND STATE" of each connection of SVC
held_map() {
	klbctl -j conn show | jq -r --arg s "$1" '.[] | select(.service == $s) | "\(.client_port) \(.backend) \(.state)"' | sort
}
check_eq "4 L4 connections listed" "$(klbctl -j conn show | jq '[.[] | select(.proto == "tcp")] | length')" 4

udp() { echo x | cli socat -T3 - "UDP:$VIP4:53,sourceport=40053,reuseaddr" 2>/dev/null; }
udp_be=$(udp)
check "the UDP flow is answered ($udp_be)" test -n "$udp_be"

# counters: "svc NAME - KEY VALUE" per service counter, "be POOL ADDR:PORT
# KEY VALUE" per backend counter
counters() {
	klbctl -j -s service show | jq -r '.[] | "svc \(.name) - conns \(.stats.conns)",
		"svc \(.name) - pkts_in \(.stats.pkts_in)"'
	klbctl -j -s pool show | jq -r '.[] | .name as $p | .backends[] |
		"be \($p) \(.addr):\(.port) conns \(.stats.conns)",
		"be \($p) \(.addr):\(.port) pkts_in \(.stats.pkts_in)"'
}
# grown DESC BEFORE AFTER: every counter of BEFORE is in AFTER, not smaller
grown() {
	local bad
	bad=$(awk 'NR == FNR {v[$1" "$2" "$3" "$4] = $5; next}
		($1" "$2" "$3" "$4) in v && $5 + 0 < v[$1" "$2" "$3" "$4] + 0 {
			print $0 " (was " v[$1" "$2" "$3" "$4] ")" }
		' <(echo "$2") <(echo "$3"))
	if [ -z "$bad" ] && [ "$(echo "$3" | grep -c .)" -gt 20 ]; then
		ok "$1: $(echo "$2" | grep -c .) counters, none went back"
	else
		fail "$1: counters went back"
		diag "$bad"
	fi
}
c0=$(counters)
check_range "service web counted the 3 held connections" \
	"$(awk '$1 == "svc" && $2 == "web" && $4 == "conns" {print $5}' <<<"$c0")" 3 3

# after_restore N DESC: what must hold after restore number N
after_restore() {
	local n=$1 desc=$2 c
	diag "$desc: at ${SECONDS}s"
	touch "$TMPD/go.$n"
	poll_until 90 grep -q "^$n done" "$TMPD/held.out"
	check_eq "$desc: every held TCP connection answered by its backend (same connection)" \
		"$(round "$n")" "$r1"
	check_eq "$desc: the UDP flow goes to the same backend" "$(udp)" "$udp_be"
	c=$(counters)
	grown "$desc: counters" "$c0" "$c"
	c0=$c
}

check "restore (1): the same file" klbctl restore -f "$TMPD/a.conf"
check "restore (1): save is the file" cmp "$TMPD/a.conf" <(klbctl save)
after_restore 2 "restore (1)"

check "restore (2): backend added, weight changed, service removed" klbctl restore -f "$TMPD/b.conf"
check "restore (2): save is the file" cmp "$TMPD/b.conf" <(klbctl save)
check_eq "restore (2): be2 of web weighs 3" \
	"$(klbctl -j pool show | jq -r ".[] | select(.name == \"web\") | .backends[] | select(.addr == \"$B2\") | .weight")" 3
after_restore 3 "restore (2)"

out=$(printf '%s\nservice add bad vip %s:83 proto tcp mode nat pool missing\n' \
	"$(cat "$TMPD/b.conf")" $VIP4 | klbctl restore 2>&1)
rc=$?
check_eq "refused restore: exit 2 ($out)" "$rc" 2
check "refused restore: the message names the missing pool" grep -q "pool missing does not exist" <<<"$out"
check "refused restore: the configuration is unchanged" cmp "$TMPD/b.conf" <(klbctl save)
after_restore 4 "refused restore"

# the service a connection uses goes: it ends as a service del ends it
grep -v '^service add fweb ' "$TMPD/b.conf" >"$TMPD/c.conf"
check "restore (3): without the fnat service" klbctl restore -f "$TMPD/c.conf"
check_eq "restore (3): its connection is removed" "$(held_map fweb | grep -c .)" 0
touch "$TMPD/go.5"
poll_until 90 grep -q "^5 done" "$TMPD/held.out"
check_eq "restore (3): its held connection gets no answer" \
	"$(awk '$1 == 5 && $2 == "f1" {print $3}' "$TMPD/held.out")" error
check_eq "restore (3): the others are answered by their backends" \
	"$(round 5 | grep -v '^f1 ')" "$(grep -v '^f1 ' <<<"$r1")"
check_eq "restore (3): the nat service keeps its counters" \
	"$(svc_stat web conns)" "$(awk '$1 == "svc" && $2 == "web" && $4 == "conns" {print $5}' <<<"$c0")"
check_eq "restore (3): the UDP flow still goes to the same backend" "$(udp)" "$udp_be"

wait $hpid
check "flush" klbctl flush
