#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Passive health and slow start (Documentation/health.md), no probe:
#   bad input    passive-fall 101, passive-eject 50ms, slowstart 2h
#                (klbctl, and raw through klb_nl.py): refused, `klbctl save`
#                unchanged
#   L4 reset     nat pool of three nginx, passive-fall 3 passive-eject 3s;
#                be2 resets every SYN (nft reject): after 3 failures it is
#                ejected (klbctl monitor tells it), the client loop sees at
#                most 3 (+1 in flight) failures, then only be1/be3; the
#                ejection ends; 3 more failures eject it for twice as long
#   active       with an active tcp check (rise 2), the reset rule gone: the
#                check ends a 60s ejection early
#   L7 connect   an http service whose pool has a closed port: connect
#                failures eject it, the client never sees them (retried)
#   L7 5xx       passive-5xx on: a backend answering 500 is ejected; off:
#                5xx do not count
#   slow start   wrr, slowstart 20s: be2 set down then up starts at a small
#                weight (weight_now), grows, and its share of new
#                connections in the first seconds is well under a third,
#                a third after the ramp
#   unload       rmmod with ejections and a ramp pending (lib.sh checks the
#                log and that nothing leaked)
source "$(dirname "$0")/lib.sh"
klb_test_init "passive health (L4 resets, L7 connect failures and 5xx), slow start, bad input"

for c in jq nft; do
	command -v $c >/dev/null || skip_all "$c not installed"
done

topo_setup
backends_start
klb_load
basic_service rr

# ---- bad input -----------------------------------------------------------------
save0=$(klbctl save)
bad() { pool_set_refused web "$save0" "$@"; }
bad "passive-fall 101" "passive-fall must be 0..100" passive-fall 101
bad "passive-eject 50ms" "passive-eject must be 100ms" passive-eject 50ms
bad "slowstart 2h" "not a duration" slowstart 2h
bad "passive-5xx maybe" 'unknown passive-5xx "maybe"' passive-5xx maybe

nl_send() { lb "$PY" "$SELFTESTS/klb_nl.py" send CMD_POOL_SET "$1" 2>&1; }
out=$(nl_send 'pool(name("web"), u32("POOL_A_PASSIVE_EJECT_MS", 50))')
diag "raw eject 50ms: $out"
check "raw netlink: eject 50ms refused by the kernel's policy" grep -qE "errno E(INVAL|RANGE)" <<<"$out"
out=$(nl_send 'pool(name("web"), u8("POOL_A_PASSIVE_FALL", 101))')
check "raw netlink: fall 101 refused" grep -qE "errno E(INVAL|RANGE)" <<<"$out"
out=$(nl_send 'pool(name("web"), u32("POOL_A_SLOWSTART_MS", 3600001))')
check "raw netlink: slowstart over an hour refused" grep -qE "errno E(INVAL|RANGE)" <<<"$out"
out=$(nl_send 'pool(name("web"), nest("POOL_A_BACKEND", [u32("BACKEND_A_EJECTIONS", 1)]))')
check "raw netlink: output-only attribute refused with its message" grep -q "output only" <<<"$out"
check_eq "raw netlink: configuration unchanged" "$(klbctl save)" "$save0"

# ---- L4: a backend that resets every connection ----------------------------------
mon_log=$TMPD/monitor.log
bg "$NS_LB" "$KLBCTL" -j monitor backend >"$mon_log" 2>&1
sleep 1
# 30s: long enough that the steps below fit in it on a busy emulated VM
# (stretched by the time scale: on the debug kernel with five VMs on the
# cores they took longer, and be2 was back before they ran)
E=$(tscale 30)
E_MS=$((E * 1000))
check "passive-fall 3 passive-eject ${E}s" klbctl pool set web passive-fall 3 passive-eject "${E}s"
check "save has passive health" grep -q "^pool add web sched rr passive-fall 3 passive-eject ${E_MS}ms passive-5xx off$" <<<"$(klbctl save)"
save1=$(klbctl save)
check "restore of the saved file" bash -c "ip netns exec $NS_LB $KLBCTL restore <<<\"\$1\"" _ "$save1"
check_eq "save after restore is the same" "$(klbctl save)" "$save1"

be_json() {	# N: backend N's object in pool web
	klbctl -j pool show web | jq -c --arg a "$(be4 "$1")" '.[0].backends[] | select(.addr == $a)'
}
check "nft: be2 resets every SYN to :80" be 2 nft 'add table inet pr; add chain inet pr in { type filter hook input priority 0; }; add rule inet pr in tcp dport 80 reject with tcp reset'
# One curl, one connection after the other: rr sends every third to be2
# until it is ejected. Status 000: the connection was reset. The table
# without be2 is published by the health work, a moment after the third
# failure: one more request may reach be2 meanwhile.
codes_of() {	# N: the status of N new connections to the VIP, one a line
	local urls=() i
	for ((i = 0; i < $1; i++)); do urls+=("http://$VIP4/"); done
	cli curl -s -o /dev/null -w '%{http_code}\n' --max-time 3 -H 'Connection: close' "${urls[@]}"
}
out=$(codes_of 15)
nfail=$(grep -c '^000$' <<<"$out")
diag "15 requests: $(echo $(tally <<<"$out"))"
check_range "at most fall (+1 in flight) requests failed before the ejection" "$nfail" 3 4
j=$(be_json 2)
diag "be2: $j"
check_range "be2 ejected (ms left)" "$(jq -r '.ejected_ms // 0' <<<"$j")" 1 "$E_MS"
check_eq "be2: one ejection" "$(jq -r .ejections <<<"$j")" 1
check_range "be2: its failures counted" "$(jq -r .passive_fail <<<"$j")" 3 4
r=$(http_n 6 "http://$VIP4/" | tally)
check_eq "while ejected: only be1 and be3 answer" "$(echo $r)" "be1 3 be3 3"
poll_until 45 eval '[ "$(be_json 2 | jq -r .ejected_ms)" = null ]'
check_eq "the ejection ended by itself" "$(be_json 2 | jq -r .ejected_ms)" null
# The health work republishes the table just after it tells the end.
poll_until 20 grep -q '"reason":"passive: ejection over"' "$mon_log"
sleep 1
out=$(codes_of 12)
check_range "failing again: ejected after fall more failures" "$(grep -c '^000$' <<<"$out")" 3 4
j=$(be_json 2)
diag "be2: $j"
check_eq "be2: two ejections in a row" "$(jq -r .ejections <<<"$j")" 2
check_range "the second ejection is twice as long (ms left)" "$(jq -r '.ejected_ms // 0' <<<"$j")" $((E_MS + 1)) $((2 * E_MS))

# klbctl monitor told the ejections and their end, with the reason.
sleep 1
ev=$(jq -c 'select(.object == "backend" and (.reason | startswith("passive")))' "$mon_log" 2>/dev/null)
diag "monitor: $ev"
check "monitor: the ejection with its reason" grep -q '"reason":"passive: 3 resets to a SYN in a row, ejected for '"$E_MS"'ms"' <<<"$ev"
check "monitor: the ejection's end" grep -q '"reason":"passive: ejection over"' <<<"$ev"
check_eq "monitor: pool named" "$(jq -r '.pool' <<<"$ev" | sort -u)" web

# ---- an active check ends an ejection early ------------------------------------------
check "passive-fall 0: passive health off" klbctl pool set web passive-fall 0
check_eq "passive off ends the ejection" "$(be_json 2 | jq -r .ejected_ms)" null
# (60 s and the 20 s bound below stretch together: the bound stays under
# the ejection, so only the active check can pass it)
E2=$(tscale 60)
check "passive-fall 3 passive-eject ${E2}s, check tcp rise 2" klbctl pool set web passive-fall 3 passive-eject "${E2}s" check tcp interval 500ms timeout 500ms rise 2 fall 100
codes_of 12 >/dev/null
check_range "ejected again by resets" "$(be_json 2 | jq -r '.ejected_ms // 0')" 1 $((E2 * 4000))
check "nft: the reset rule removed" be 2 nft delete table inet pr
t0=$(date +%s)
poll_until 30 eval '[ "$(be_json 2 | jq -r .ejected_ms)" = null ]'
check_range "the active check ended a ${E2}s+ ejection within seconds" "$(($(date +%s) - t0))" 0 "$(tscale 20)"
r=$(http_n 9 "http://$VIP4/" | tally)
check_eq "be2 serves again" "$(echo $r)" "be1 3 be2 3 be3 3"
check "passive-fall 0, check none" klbctl pool set web passive-fall 0 check none
check_eq "passive off: no passive figures" "$(be_json 2 | jq -r .ejections)" null

# ---- L7: connect failures and 5xx -------------------------------------------------
check "pool l7 with be1:80, be2:80 and be3:81 (closed)" klbctl pool add l7 sched rr passive-fall 2 passive-eject "${E}s"
for b in "$(be4 1):80" "$(be4 2):80" "$(be4 3):81"; do
	check "backend add l7 $b" klbctl backend add l7 "$b"
done
check "service add l7 mode http" klbctl service add l7 vip $VIP4:8080 proto tcp mode http pool l7
out=$(http_n 12 "http://$VIP4:8080/")
check_eq "the client never saw the connect failures (retried)" "$(wc -l <<<"$out")" 12
l7_be() { klbctl -j pool show l7 | jq -c --arg a "$(be4 "$1")" '.[0].backends[] | select(.addr == $a)'; }
check_range "be3:81 ejected for its connect failures" "$(l7_be 3 | jq -r '.ejected_ms // 0')" 1 "$E_MS"
check_eq "be1 not ejected" "$(l7_be 1 | jq -r '.ejected_ms')" null

bg "${NS_BE[1]}" "$PY" "$SELFTESTS/l7_backend.py" serve --name py1 --port 8081 \
	--log "$TMPD/py1.log" --pidfile "$TMPD/py1.pid" >"$TMPD/py1.out" 2>&1
wait_for "python backend ready" lb curl -s --max-time 3 -o /dev/null "http://$(be4 1):8081/ready"
check "pool err: be1:8081 (python) and be2:80, passive-fall 2, 5xx off" klbctl pool add err sched rr passive-fall 2 passive-eject "${E}s"
check "backend add err be1:8081" klbctl backend add err "$(be4 1):8081"
check "backend add err be2:80" klbctl backend add err "$(be4 2):80"
check "service add err mode http" klbctl service add err vip $VIP4:8081 proto tcp mode http pool err
err_be() { klbctl -j pool show err | jq -r --arg a "$(be4 1)" '.[0].backends[] | select(.addr == $a) | .ejected_ms'; }
# nginx answers 404 for /status/500; the python backend 500.
codes=$(for i in $(seq 1 6); do cli curl -s -o /dev/null -w '%{http_code}\n' --max-time 3 "http://$VIP4:8081/status/500"; done | sort | uniq -c | awk '{print $2" "$1}')
check_eq "5xx off: both keep answering" "$(echo $codes)" "404 3 500 3"
check_eq "5xx off: be1 not ejected" "$(err_be)" null
check "passive-5xx on" klbctl pool set err passive-5xx on
codes=$(for i in $(seq 1 8); do cli curl -s -o /dev/null -w '%{http_code}\n' --max-time 3 "http://$VIP4:8081/status/500"; done | tr '\n' ' ')
diag "5xx on: $codes"
check_range "5xx on: be1 ejected" "$(err_be | sed 's/null/0/')" 1 "$E_MS"
check_eq "5xx on: after the ejection only nginx answers" "$(for i in 1 2 3; do cli curl -s -o /dev/null -w '%{http_code} ' --max-time 3 "http://$VIP4:8081/status/500"; done)" "404 404 404 "

# ---- slow start -----------------------------------------------------------------------
check "service del l7, err; pool del l7, err" bash -c "ip netns exec $NS_LB $KLBCTL service del l7 && ip netns exec $NS_LB $KLBCTL service del err && ip netns exec $NS_LB $KLBCTL pool del l7 && ip netns exec $NS_LB $KLBCTL pool del err"
check "wrr, weights 10, slowstart 20s" klbctl pool set web sched wrr slowstart 20s
for i in 1 2 3; do klbctl backend set web "$(be4 "$i"):80" weight 10; done
check "be2 down" klbctl backend set web "$(be4 2):80" state down
ss_log=$TMPD/ss.log
# A new connection after the other, from one process (a curl each would
# be too slow in the emulated VM to see the shares): "NS BODY" a line.
bg "$NS_CLI" "$PY" -c '
import socket, sys, time
while True:
    t = time.time_ns()
    try:
        s = socket.create_connection((sys.argv[1], 80), timeout=2)
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while True:
            d = s.recv(4096)
            if not d:
                break
            data += d
        s.close()
        body = data.split(b"\r\n\r\n", 1)[1].decode().strip() or "FAIL"
    except (OSError, IndexError):
        body = "FAIL"
    print(t, body, flush=True)
' $VIP4 >"$ss_log" 2>&1
loop_pid=$!
poll_until 20 eval '[ "$(wc -l <"$ss_log")" -ge 5 ]'
t0=$(date +%s%N)
check "be2 up: it ramps" klbctl backend set web "$(be4 2):80" state up
w0=$(be_json 2 | jq -r '.weight_now // 10')
sleep 6
w1=$(be_json 2 | jq -r '.weight_now // 10')
sleep 18
w2=$(be_json 2 | jq -r '.weight_now // 10')
t_end=$(date +%s%N)
sleep 3
kill "$loop_pid" 2>/dev/null
wait "$loop_pid" 2>/dev/null
diag "be2 weight_now: $w0 at once, $w1 at ~6s, $w2 at $(((t_end - t0) / 1000000))ms"
check_range "starts at a small weight" "$w0" 1 3
check_range "grows" "$w1" $((w0 + 1)) 9
check_eq "reaches its weight (weight_now gone)" "$w2" 10
share() {	# FROM_S TO_S: be2's share (percent) of answers in that window after t0
	awk -v t0="$t0" -v a="$1" -v b="$2" '$1 >= t0 + a * 1e9 && $1 < t0 + b * 1e9 && $2 != "FAIL" {n++; if ($2 == "be2") k++} END {print n ? int(100 * k / n) : -1, n + 0}' "$ss_log"
}
# The ramp: 1/20 of the weight at once, all of it 20s later.
s1=$(share 0 5) s2=$(share 23 60)
diag "be2's share: ${s1% *}% of ${s1#* } in the first 5s, ${s2% *}% of ${s2#* } after the ramp"
check_range "first 5s: be2 gets well under a third" "${s1% *}" 0 20
check_range "enough answers to tell (first 5s)" "${s1#* }" 10 100000
check_range "after the ramp: about a third" "${s2% *}" 25 42
check_eq "no request failed during the ramp" "$(grep -c FAIL "$ss_log")" 0
check "save has slowstart" grep -q "^pool add web sched wrr slowstart 20000ms$" <<<"$(klbctl save)"

# ---- unload with an ejection and a ramp pending ------------------------------------------
check "passive-fall 1 passive-eject 1h, slowstart 1h" klbctl pool set web passive-fall 1 passive-eject 3600s slowstart 3600s
check "nft: be3 resets" be 3 nft 'add table inet pr; add chain inet pr in { type filter hook input priority 0; }; add rule inet pr in tcp dport 80 reject with tcp reset'
http_n 6 "http://$VIP4/" >/dev/null
check "be1 down and up: a ramp of an hour" bash -c "ip netns exec $NS_LB $KLBCTL backend set web $(be4 1):80 state down && ip netns exec $NS_LB $KLBCTL backend set web $(be4 1):80 state up"
check_range "be3 ejected for an hour" "$(be_json 3 | jq -r '.ejected_ms // 0')" 1 3600000
rmmod_within 30 "rmmod with an ejection and a ramp pending"
