#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Per-backend maxconn, L4 and L7, and L7 sessions in `klbctl conn show`.
#
#   client ---- balancer ----+---- be1 nginx        pool l4 (rr): be1 maxconn 1, be2
#                            +---- be2 nginx        service l4  VIP:80  nat
#                            +---- be3 l7_backend   pool py: be3 maxconn 1
#                                                   service web VIP:81  http
#
#   L4: three held connections: be1 gets 1 (its cap), be2 the other 2;
#       be2 capped at 2 too: a fourth is dropped, counted in
#       drops.maxconn; be1's closes: the next connection goes to be1.
#   L7: four requests to a backend with maxconn 1 at once: one is served,
#       three wait in the queue, each served in arrival order (the
#       backend's log), all 200 within http_queue_timeout; conn show lists
#       the L7 sessions (text and JSON), one of them queued. Queue of 1:
#       the third concurrent request gets 503 at once; queue timeout 1 s
#       behind a request be3 holds: 503; both counted in drops.maxconn.
#       be3 holds its answers until the test opens a gate (l7be_start),
#       so no step depends on the VM's speed.
#   save | restore keeps maxconn, a restore that changes it applies it
#   (to a backend that stays); bad maxconn and http_queue_timeout=0
#       are refused with a message, the configuration unchanged.
source "$(dirname "$0")/lib.sh"
klb_test_init "backend maxconn: L4 cap and drops, L7 queue, L7 sessions in conn show"

klb_load
l7_require http

topo_setup 3
nginx_start 1 nowait
nginx_start 2 nowait
nginx_wait 1
nginx_wait 2
l7be_start 3
B1=$(be4 1) B2=$(be4 2) B3=$(be4 3)

active_of() {
	klbctl -j backend show "$1" |
		jq -r --arg a "$2" '.[] | select(.addr == $a) | .active'
}
# active_is POOL ADDR N: for poll_until, which runs it again each time
active_is() { [ "$(active_of "$1" "$2")" = "$3" ]; }
# phase NAME: how long the test took so far, to see where the time goes
phase() { diag "$1 done at ${SECONDS}s"; }

cfg pool add l4 sched rr
cfg backend add l4 $B1:80 maxconn 1
cfg backend add l4 $B2:80
cfg service add l4 vip $VIP4:80 proto tcp mode nat pool l4
cfg pool add py
cfg backend add py $B3:80 maxconn 1
cfg service add web vip $VIP4:81 proto tcp mode http pool py

check_eq "backend show: maxconn and the active count" \
	"$(klbctl backend show l4 | head -1)" "	backend $B1:80 weight 1 state up maxconn 1 active 0"
check_eq "backend show -j: maxconn" \
	"$(klbctl -j backend show l4 | jq -c '[.[] | .maxconn]')" "[1,null]"

phase setup
# ---- L4 ----------------------------------------------------------------------
# rr: connection 1 to be1, 2 to be2, 3 to be1 which is full: be2
for i in 1 2 3; do hold_open $i $VIP4 80; done
cb=$(conn_backends l4)
t=$(sort <<<"$cb" | uniq -c | awk '{print $2"="$1}' | tr '\n' ' ')
check_eq "three held connections: be1 at its cap of 1, be2 the rest ($t)" \
	"$(grep -c "^$B1\$" <<<"$cb") $(grep -c "^$B2\$" <<<"$cb")" "1 2"
phase "L4 held"

cfg backend set l4 $B2:80 maxconn 2
# (active is shown for a capped backend only)
check_eq "active: be1 1, be2 2" "$(active_of l4 $B1) $(active_of l4 $B2)" "1 2"
d0=$(svc_stat l4 drops.maxconn)
r=$(cli curl -s --max-time 2 "http://$VIP4/" || true)
check_eq "both at their cap: a new connection gets nothing" "$r" ""
d1=$(svc_stat l4 drops.maxconn)
check "drops.maxconn counted ($d0 -> $d1)" test "$d1" -gt "$d0"
check_eq "drops.maxconn in the text stats too" \
	"$(klbctl -s service show l4 | grep -o "maxconn $d1")" "maxconn $d1"

phase "L4 drop"
check_eq "held connection 1 was be1's" "$(hold_release 1)" be1
poll_until 20 active_is l4 $B1 0
check_eq "be1 active 0 once it closed" "$(active_of l4 $B1)" 0
check_eq "the freed slot is used again: be1" "$(cli curl -s --max-time 5 "http://$VIP4/")" be1
r=""
for i in 2 3; do r="$r$(hold_release $i) "; done
check_eq "the others answered by their backends" "$r" "be2 be2 "

phase L4
# ---- save and restore ----------------------------------------------------------
SAVE=$(klbctl save)
check "save has maxconn" grep -q "^backend add l4 $B1:80 weight 1 maxconn 1\$" <<<"$SAVE"
check "save | restore" bash -c "ip netns exec $NS_LB $KLBCTL save | ip netns exec $NS_LB $KLBCTL restore"
check_eq "save | restore round-trips" "$(klbctl save)" "$SAVE"
# restore applies a file in place: a backend that stays must take the
# file's maxconn, not keep its own (7509f11)
sed "s/^\(backend add l4 $B1:80 weight 1\) maxconn 1\$/\1 maxconn 4/" <<<"$SAVE" >"$TMPD/mc4"
check_eq "the edited file differs in one line" "$(diff <(echo "$SAVE") "$TMPD/mc4" | grep -c '^>')" 1
check "restore of it" bash -c "ip netns exec $NS_LB $KLBCTL restore <$TMPD/mc4"
check "be1 stays and takes maxconn 4" grep -q "^backend add l4 $B1:80 weight 1 maxconn 4\$" <<<"$(klbctl save)"
check_eq "save is the file" "$(klbctl save)" "$(cat "$TMPD/mc4")"
echo "$SAVE" >"$TMPD/mc1"
check "restore of the first save" bash -c "ip netns exec $NS_LB $KLBCTL restore <$TMPD/mc1"
check_eq "be1 back at maxconn 1" "$(klbctl save)" "$SAVE"

# ---- bad input -------------------------------------------------------------------
refused() {
	local desc=$1 pat=$2 out rc
	shift 2
	out=$(klbctl "$@" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && grep -qE "$pat" <<<"$out"; then
		ok "$desc: refused ($out)"
	else
		fail "$desc: rc $rc, message '$out' (want /$pat/)"
	fi
	check_eq "$desc: configuration unchanged" "$(klbctl save)" "$SAVE"
}
refused "maxconn -1" 'invalid maxconn "-1": expected 0\.\.1000000' backend set l4 $B1:80 maxconn -1
refused "maxconn 1000001" 'invalid maxconn "1000001"' backend set l4 $B1:80 maxconn 1000001
refused "maxconn 99999999999" 'invalid maxconn' backend add l4 $B3:80 maxconn 99999999999
refused "maxconn without a value" 'missing value after "maxconn"' backend set l4 $B1:80 maxconn
out=$(lb sysctl -w net.klb.http_queue_timeout=0 2>&1)
check "http_queue_timeout=0 refused ($out)" grep -q "Invalid argument" <<<"$out"
check_eq "http_queue_timeout unchanged" "$(lb sysctl -n net.klb.http_queue_timeout)" 5

phase "save, restore, bad input"
# ---- L7: the queue ------------------------------------------------------------------
# Requests for /gate/NAME are held by be3 until gate_open NAME: each step
# waits for an event (a log line, a state in conn show, an answer), never
# for a time, so a slow VM changes only how long it takes.
# req_at ID PATH: a request at once in the background; status and the time
# it ended to $TMPD/q.ID
req_at() {
	cli bash -c 'curl -s --max-time "$3" -o /dev/null -w "%{http_code}" "$1" >"$2.tmp";
		echo " $(date +%s.%N)" >>"$2.tmp"; mv "$2.tmp" "$2"' _ \
		"http://$VIP4:81$2" "$TMPD/q.$1" "$(tscale 150)" &
}
# queued_is N: conn show lists N queued sessions of web
queued_is() {
	klbctl -j conn show service web |
		jq -e --argjson n "$1" '[.[] | select(.state == "queued")] | length == $n'
}
# reached PATH: lines of be3's log for requests to PATH (0: never reached)
reached() { grep -cE "^req [0-9]+ GET $1\$" "$(py_log 3)"; }
status_of() { awk '{print $1}' "$TMPD/q.$1"; }
ended_at() { awk '{print $2}' "$TMPD/q.$1"; }

# The queue and response timeouts are long enough for a request held
# through every step (gated requests wait for their answer), the clients'
# (req_at) longer still.
l7_sysctl http_queue_max=3 http_queue_timeout="$(tscale 120)" http_response_timeout="$(tscale 120)"
rm -f "$TMPD"/q.*
req_at 1 /gate/q1
poll_until 60 grep -q "^req .* /gate/q1\$" "$(py_log 3)"
# One at a time, each seen queued before the next: the arrival order is known.
for i in 2 3 4; do
	req_at $i /gate/q$i
	poll_until 60 queued_is $((i - 1))
done
check "conn show: three requests queued behind the first" queued_is 3
CJ=$(klbctl -j conn show service web)
CT=$(klbctl conn show service web)
diag "$CT"
check_eq "conn show -j: 4 L7 sessions, 1 relaying and 3 queued" \
	"$(jq -r '[.[] | .state] | sort | join(" ")' <<<"$CJ")" "queued queued queued relaying"
check_eq "conn show -j: fields of an L7 session" \
	"$(jq -r '[.[0] | keys_unsorted[]] | join(" ")' <<<"$CJ")" \
	"service mode client client_port vip vip_port backend backend_port state age bytes_in bytes_out"
check_eq "conn show -j: the relaying one is on be3, from the client" \
	"$(jq -r '.[] | select(.state == "relaying") | "\(.client) \(.backend):\(.backend_port) \(.bytes_in > 0)"' <<<"$CJ")" "$CLI4 $B3:80 true"
check_eq "conn show -j: the queued ones have no backend" \
	"$(jq -r '[.[] | select(.state == "queued") | .backend] | unique | join(",")' <<<"$CJ")" ""
check "conn show: a queued line in text" \
	grep -qE "^http 10\.0\.0\.2:[0-9]+ -> 10\.0\.100\.1:81 -> none queued age [0-9]+s in 0 out 0 service web\$" <<<"$CT"
check "conn show: the relaying line in text" \
	grep -qE "^http 10\.0\.0\.2:[0-9]+ -> 10\.0\.100\.1:81 -> 10\.0\.1\.13:80 relaying age [0-9]+s in [1-9][0-9]* out [0-9]+ service web\$" <<<"$CT"
check_eq "maxconn 1: only the first reached be3" "$(reached /gate/q1) $(reached '/gate/q[234]')" "1 0"
# Release them one by one: each answered, then the next in line reaches
# be3, and only that one (the one in service holds the slot).
seen=""
for i in 1 2 3; do
	gate_open q$i
	poll_until 60 test -e "$TMPD/q.$i"
	poll_until 60 grep -q "^req .* /gate/q$((i + 1))\$" "$(py_log 3)"
	seen="$seen$(reached '/gate/q[1-4]') "
done
gate_open q4
poll_until 60 test -e "$TMPD/q.4"
check_eq "after each answer one more request reached be3" "$seen" "2 3 4 "
check_eq "all four answered 200" "$(for i in 1 2 3 4; do status_of $i; done | tr '\n' ' ')" "200 200 200 200 "
check_eq "served in arrival order" \
	"$(grep -oE '^req [0-9]+ GET /gate/q[0-9]$' "$(py_log 3)" | grep -o 'q[0-9]$' | tr '\n' ' ')" "q1 q2 q3 q4 "
check_eq "and answered in that order" \
	"$(for i in 1 2 3 4; do echo "$(ended_at $i) q$i"; done | sort -n | awk '{print $2}' | tr '\n' ' ')" "q1 q2 q3 q4 "
check_eq "drops.maxconn of web: none yet" "$(svc_stat web drops.maxconn)" 0

phase "L7 queue order"
# queue full: one served, one queued, the third 503 at once
l7_sysctl http_queue_max=1
rm -f "$TMPD"/q.*
req_at 1 /gate/f1
poll_until 60 grep -q "^req .* /gate/f1\$" "$(py_log 3)"
req_at 2 /f2
check "conn show: one request queued" poll_until 60 queued_is 1
req_at 3 /f3
poll_until 60 test -e "$TMPD/q.3"
check_eq "queue full: 503 at once" "$(status_of 3)" 503
check "the first still held, the queued one not answered" test ! -e "$TMPD/q.1" -a ! -e "$TMPD/q.2"
gate_open f1
for i in 1 2; do poll_until 60 test -e "$TMPD/q.$i"; done
check_eq "the served and the queued one: 200" "$(status_of 1) $(status_of 2)" "200 200"
check_eq "f3 never reached the backend" "$(reached /f3)" 0
check_eq "drops.maxconn of web: 1" "$(svc_stat web drops.maxconn)" 1

phase "L7 queue full"
# queue timeout: 1 s behind a request held until the 503 came
l7_sysctl http_queue_max=3 http_queue_timeout=1
rm -f "$TMPD"/q.*
req_at 1 /gate/t1
poll_until 60 grep -q "^req .* /gate/t1\$" "$(py_log 3)"
req_at 2 /t2
poll_until 60 test -e "$TMPD/q.2"
check_eq "queue timeout: 503 for the waiting one" "$(status_of 2)" 503
check "the slow one still held then" test ! -e "$TMPD/q.1"
gate_open t1
poll_until 60 test -e "$TMPD/q.1"
check_eq "and 200 for the slow one" "$(status_of 1)" 200
check "the 503 came before the slow answer" \
	awk -v a="$(ended_at 2)" -v b="$(ended_at 1)" 'BEGIN {exit !(a < b)}'
check_eq "drops.maxconn of web: 2" "$(svc_stat web drops.maxconn)" 2
check_eq "t2 never reached the backend" "$(reached /t2)" 0
check_eq "be3 active 0 at the end" "$(active_of py $B3)" 0
phase "L7 queue timeout"
