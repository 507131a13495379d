#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every scheduler, with real TCP connections from the client through the VIP
# (one pool "web" of be1..be3, one service; `pool set web sched S` between
# phases):
#   rr   60 sequential connections -> exactly 20/20/20
#   wrr  weights 1 2 3, 60 connections -> 10/20/30 (+-2)
#   lc   connections held open one after the other -> one per backend, and a
#        4th..6th again one per backend; short requests all answered
#   wlc  weights 1 2 3, 6 connections held open -> 1/2/3
#   sh   one client address -> always the same backend; a second client
#        address -> one backend too (maybe another)
#   mh   same as sh (Maglev of the source), with weights 1 2 3
#   p2c  60 short connections -> every backend used, none starved
source "$(dirname "$0")/lib.sh"
klb_test_init "schedulers on real TCP connections"

topo_setup
backends_start
# Held connections download this at 10 KB/s. It must not fit in the
# socket buffers (the client's autotunes to several MB): else nginx sends
# it all at once, and its 30 s keep-alive timeout ends a "held" connection
# while a slow (emulated, shared) VM is still opening the others.
mkbig slow 40000000
klb_load
basic_service rr

total_of() { awk '{s+=$2} END {print s+0}' <<<"$1"; }
weights() {
	local i w
	for i in 1 2 3; do
		w=$(eval echo "\${$i}")
		klbctl backend set web "$(be4 $i):80" weight "$w" || fail "backend set weight $w"
	done
}
# phase SCHED N [CURL_ARGS]: set the scheduler, N requests, print the tally
phase() {
	local s=$1 n=$2
	shift 2
	http_n "$n" "http://$VIP4/" "$@" | tally
}
# hold_n N: open N more slow downloads one by one, each counted in the
# service's active_conns before the next starts
hold_n() {
	local i have=$(svc_stat web active_conns)
	for i in $(seq 1 "$1"); do
		bg "$NS_CLI" curl -s --limit-rate 10k -o /dev/null "http://$VIP4/big/slow"
		hold_pids+=($BG_PID)
		have=$((have + 1))
		poll_until 30 _active_ge "$have" || diag "connection $i not counted in active_conns"
	done
}
_active_ge() { [ "$(svc_stat web active_conns)" -ge "$1" ]; }
hold_pids=()
release_all() {
	kill "${hold_pids[@]}" 2>/dev/null
	wait "${hold_pids[@]}" 2>/dev/null
	hold_pids=()
	poll_until 30 eval '[ "$(svc_stat web active_conns)" -eq 0 ]' ||
		diag "active_conns of web still $(svc_stat web active_conns)"
}
# active per backend: "be1 N be2 N be3 N"
active_spread() {
	pool_stat web active_conns | while read -r a v; do echo "$(be_name "$a") $v"; done | sort | tr '\n' ' ' | sed 's/ $//'
}

# rr -------------------------------------------------------------------------
r=$(phase rr 60)
check_eq "rr: 60 answered" "$(total_of "$r")" 60
check_eq "rr: exactly 20/20/20" "$(echo $r)" "be1 20 be2 20 be3 20"

# wrr ------------------------------------------------------------------------
check "pool set web sched wrr" klbctl pool set web sched wrr
weights 1 2 3
r=$(phase wrr 60)
check_eq "wrr 1:2:3: 60 answered" "$(total_of "$r")" 60
check_range "wrr 1:2:3: be1 ~10" "$(count_of be1 "$r")" 8 12
check_range "wrr 1:2:3: be2 ~20" "$(count_of be2 "$r")" 18 22
check_range "wrr 1:2:3: be3 ~30" "$(count_of be3 "$r")" 28 32
diag "wrr: $(echo $r)"
weights 0 1 1
r=$(phase wrr 20)
check_eq "wrr weight 0: be1 gets nothing" "$(count_of be1 "$r")" 0
check_eq "wrr 0:1:1: 10/10" "$(count_of be2 "$r") $(count_of be3 "$r")" "10 10"
weights 1 1 1

# lc -------------------------------------------------------------------------
check "pool set web sched lc" klbctl pool set web sched lc
hold_n 3
check_eq "lc: 3 connections held open, one per backend" "$(active_spread)" "be1 1 be2 1 be3 1"
hold_n 3
check_eq "lc: 6 held open, two per backend" "$(active_spread)" "be1 2 be2 2 be3 2"
release_all
r=$(phase lc 30)
check_eq "lc: 30 short requests answered" "$(total_of "$r")" 30
diag "lc short requests: $(echo $r)"

# wlc ------------------------------------------------------------------------
check "pool set web sched wlc" klbctl pool set web sched wlc
weights 1 2 3
hold_n 6
check_eq "wlc 1:2:3: 6 held open -> 1/2/3" "$(active_spread)" "be1 1 be2 2 be3 3"
release_all
r=$(phase wlc 30)
check_eq "wlc: 30 short requests answered" "$(total_of "$r")" 30
diag "wlc short requests: $(echo $r)"
weights 1 1 1

# sh, mh ---------------------------------------------------------------------
for s in sh mh; do
	check "pool set web sched $s" klbctl pool set web sched $s
	[ $s = mh ] && weights 1 2 3
	r=$(phase $s 30)
	check_eq "$s: 30 answered from $CLI4" "$(total_of "$r")" 30
	check_eq "$s: client $CLI4 always on one backend" "$(wc -l <<<"$r")" 1
	diag "$s from $CLI4: $(echo $r)"
	r2=$(phase $s 30 --interface $CLI4B)
	check_eq "$s: 30 answered from $CLI4B" "$(total_of "$r2")" 30
	check_eq "$s: client $CLI4B always on one backend" "$(wc -l <<<"$r2")" 1
	diag "$s from $CLI4B: $(echo $r2)"
	r3=$(phase $s 10)
	check_eq "$s: $CLI4 still on the same backend" "$(awk '{print $1}' <<<"$r3")" "$(awk '{print $1}' <<<"$r")"
	weights 1 1 1
done

# p2c ------------------------------------------------------------------------
check "pool set web sched p2c" klbctl pool set web sched p2c
r=$(phase p2c 60)
check_eq "p2c: 60 answered" "$(total_of "$r")" 60
for i in 1 2 3; do
	check_range "p2c: be$i used (not starved)" "$(count_of be$i "$r")" 5 60
done
diag "p2c: $(echo $r)"

# counters agree with the tallies ----------------------------------------------
conns=$(svc_stat web conns)
sum=$(pool_stat web conns | awk '{s+=$2} END {print s+0}')
check_eq "service conns == sum of backend conns" "$sum" "$conns"
check "klbctl flush" klbctl flush
