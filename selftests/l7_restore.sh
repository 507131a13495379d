#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# http mode across `klbctl restore` (issue 22, item 9): a restore that
# replaces a service (here: the same address under another name; a service
# that stays keeps its listener, restore_hitless.sh) opens the new listener
# next to the old one (SO_REUSEPORT) and closes the old. Client connections that the old
# service accepted but that had not sent a request yet, and connections
# still waiting in the old listener's accept queue, belong to nobody's
# exchange: they must be served by the new service, not closed or reset.
#   20 client connections opened (nothing sent), restore, then a GET on
#     each: 20 answers of 200
#   4 clients opening connections in a loop while 6 restores run (each
#     replacing the service: the two names in turn), with
#     net.ipv4.tcp_migrate_req=1: every request answered 200, no reset,
#     no empty reply
# Backend: l7_backend.py in be1.
# Fails if klb refuses its own http mode (l7_require: never a skip).
source "$(dirname "$0")/lib.sh"
klb_test_init "http mode: connections opened before or during a restore are served"

klb_load
l7_require http

topo_setup 1
l7be_start 1
B1=$(be4 1)
# A connection still in the handshake (SYN received) when the old
# listener closes is the kernel's to move (Documentation/security.md):
# with tcp_migrate_req (per netns, 5.14+) it goes to the new listener and
# klb serves it; without it the kernel resets it, as for any listener that
# closes (a CI run once saw 1 such reset in 945 loop requests). The
# operator's setting for hitless restores of replaced services; the loop
# below asserts klb's part of it.
lb sysctl -qw net.ipv4.tcp_migrate_req=1 || bail "net.ipv4.tcp_migrate_req"

cfg pool add pa
cfg backend add pa $B1:80
cfg service add web vip $VIP4:80 proto tcp mode http pool pa
# the idle connections below must outlive the first request's head timeout
l7_sysctl http_header_timeout=120
klbctl save >"$TMPD/a.conf"
# the same service under another name: a restore replaces it
sed 's/^service add web /service add web2 /' "$TMPD/a.conf" >"$TMPD/b.conf"
check "the second file names the service web2" grep -q '^service add web2 ' "$TMPD/b.conf"
active() { klbctl -j -s service show | jq -r '.[] | select(.name == "web") | .stats.active_conns'; }
check "the configuration saved" test -s "$TMPD/a.conf"

# ---- connections accepted by the old service, no request yet ----------------------
cli "$PY" - "$VIP4" 20 "$TMPD/go" >"$TMPD/idle.out" 2>&1 <<-'PYEOF' &
	import http.client, os, socket, sys, time
	vip, n, go = sys.argv[1], int(sys.argv[2]), sys.argv[3]
	conns = []
	for i in range(n):
	    c = http.client.HTTPConnection(vip, 80, timeout=10)
	    c.connect()
	    conns.append(c)
	print("open", n, flush=True)
	while not os.path.exists(go):
	    time.sleep(0.05)
	for i, c in enumerate(conns):
	    try:
	        c.request("GET", "/idle/%d" % i)
	        print(c.getresponse().status, flush=True)
	    except Exception as e:
	        print("000", type(e).__name__, flush=True)
PYEOF
ipid=$!
poll_until 30 grep -q '^open' "$TMPD/idle.out" || diag "the idle connections did not open"
poll_until 20 eval '[ "$(active)" -ge 20 ]' ||
	diag "the service has $(active) connections open"
check "restore replacing the service with 20 connections accepted and idle" klbctl restore -f "$TMPD/b.conf"
touch "$TMPD/go"
wait $ipid
diag "idle connections after the restore: $(grep -v open "$TMPD/idle.out" | sort | uniq -c | tr '\n' ' ')"
check_eq "20 connections opened before the restore: each answered 200 after it" \
	"$(grep -c '^200$' "$TMPD/idle.out")" 20

check "restore the first file (the service web again)" klbctl restore -f "$TMPD/a.conf"

# ---- new connections while restores run -------------------------------------------------
rm -f "$TMPD/go"
cli "$PY" - "$VIP4" 4 "$TMPD/go" >"$TMPD/loop.out" 2>&1 <<-'PYEOF' &
	import http.client, os, sys, threading
	vip, nthr, stop = sys.argv[1], int(sys.argv[2]), sys.argv[3]
	lock = threading.Lock()
	res = {}
	def run(t):
	    i = 0
	    while not os.path.exists(stop):
	        c = http.client.HTTPConnection(vip, 80, timeout=10)
	        try:
	            c.request("GET", "/loop/%d/%d" % (t, i))
	            k = str(c.getresponse().status)
	        except Exception as e:
	            k = type(e).__name__
	        c.close()
	        with lock:
	            res[k] = res.get(k, 0) + 1
	        i += 1
	th = [threading.Thread(target=run, args=(t,)) for t in range(nthr)]
	for t in th:
	    t.start()
	for t in th:
	    t.join()
	for k, v in sorted(res.items()):
	    print(k, v)
PYEOF
lpid=$!
q0=$(l7_stat web .requests)
poll_until 30 eval '[ $(( $(l7_stat web .requests) - q0 )) -ge 20 ]' || diag "the client loop is slow to start"
fails=0
for i in 1 2 3 4 5 6; do
	f=$TMPD/a.conf
	[ $((i % 2)) = 1 ] && f=$TMPD/b.conf
	klbctl restore -f "$f" || fails=$((fails + 1))
	sleep 0.3
done
check_eq "6 restores under a connection loop" $fails 0
touch "$TMPD/go"
wait $lpid
diag "loop results: $(tr '\n' ' ' <"$TMPD/loop.out")"
# where a failure came from (a 503 is klb's: no backend, or maxconn)
diag "http counters: $(klbctl -j -s service show | jq -c '[.[] | {name, http: (.stats.http // .http)}]')"
check "the loop made requests" grep -q '^200 ' "$TMPD/loop.out"
check_eq "every request of the loop answered 200 (no reset, no empty reply)" \
	"$(grep -v '^200 ' "$TMPD/loop.out" | tr '\n' ' ')" ""
