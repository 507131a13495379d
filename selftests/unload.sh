#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rmmod klb with services configured and traffic flowing:
#   - wrk (TCP, new connections) + UDP datagrams + an idle held connection
#     through v4 and v6 services, then rmmod: it must succeed quickly, the
#     kernel must not crash or warn, nothing may leak ("klb: leaked")
#   - insmod again: empty configuration, configure, traffic works
#   - a second netns with its own configuration deleted while loaded, then
#     rmmod under traffic again
source "$(dirname "$0")/lib.sh"
klb_test_init "rmmod under traffic"
command -v wrk >/dev/null || skip_all "wrk not installed"

topo_setup
backends_start
udp_start 1 2 3

configure() {
	basic_service rr
	klbctl pool add web6 sched wrr && klbctl pool add u sched rr || fail "pools"
	for i in 1 2 3; do
		klbctl backend add web6 "[$(be6 $i)]:80" weight $i &&
			klbctl backend add u "$(be4 $i):$UDP_PORT" || fail "backends"
	done
	check "services web6 and u" sh -c "ip netns exec $NS_LB $KLBCTL service add web6 vip [$VIP6]:80 proto tcp mode nat pool web6 &&
		ip netns exec $NS_LB $KLBCTL service add u vip $VIP4:$UDP_PORT proto udp mode nat pool u"
}
traffic_start() {
	# keep-alive connections, and a new connection for every request
	bg "$NS_CLI" wrk -t 1 -c 4 -d 300s --timeout 2s "http://$VIP4/" >"$TMPD/wrk4.out" 2>&1
	tpids=($BG_PID)
	bg "$NS_CLI" wrk -t 1 -c 4 -d 300s --timeout 2s -H "Connection: close" "http://$VIP4/" >"$TMPD/wrk4c.out" 2>&1
	tpids+=($BG_PID)
	bg "$NS_CLI" wrk -t 1 -c 4 -d 300s --timeout 2s "http://[$VIP6]/" >"$TMPD/wrk6.out" 2>&1
	tpids+=($BG_PID)
	bg "$NS_CLI" bash -c "while :; do echo x | socat -T1 - UDP:$VIP4:$UDP_PORT >/dev/null 2>&1; done"
	tpids+=($BG_PID)
}
traffic_stop() {
	# SIGINT: wrk stops and prints its statistics
	kill -INT "${tpids[@]}" 2>/dev/null
	kill "${tpids[3]}" 2>/dev/null
	wait "${tpids[@]}" 2>/dev/null
}
flowing() { [ "$(svc_stat web conns)" -ge 40 ] && [ "$(svc_stat web6 conns)" -ge 4 ] && [ "$(svc_stat u conns)" -ge 3 ]; }
# unload_under_traffic WHAT
unload_under_traffic() {
	local t0 ok_=0
	if poll_until 90 flowing; then
		ok "$1: traffic flowing (web $(svc_stat web conns), web6 $(svc_stat web6 conns), u $(svc_stat u conns) conns)"
	else
		fail "$1: traffic flowing"
		diag "web $(svc_stat web conns) web6 $(svc_stat web6 conns) u $(svc_stat u conns)"
	fi
	diag "$(klbctl conn show | wc -l) connections in the table"
	t0=$SECONDS
	if klb_unload; then
		_klb_loaded=0
		ok "$1: rmmod klb under traffic succeeded in $((SECONDS - t0))s"
	else
		fail "$1: rmmod klb under traffic"
	fi
	sleep 2
	traffic_stop
	# leftovers would show in /proc/modules or the kernel log (checked at exit)
	check "$1: klb is gone" sh -c '! grep -q "^klb " /proc/modules'
}

klb_load
configure
hold_open 1 $VIP4 80
traffic_start
unload_under_traffic "first unload"
hold_release 1 2 >/dev/null

klb_load
check_eq "reloaded: empty configuration" "$(klbctl save | grep -cvE '^(#|$|hash-seed set )')" 0
configure
r=$(http_n 9 "http://$VIP4/" | tally)
check_eq "reloaded: traffic balanced again" "$(echo $r)" "be1 3 be2 3 be3 3"

# another netns with its own configuration, deleted while klb is loaded
ns_add "klb-x-$KLB_SUF"
ip netns exec "klb-x-$KLB_SUF" "$KLBCTL" pool add p &&
	ip netns exec "klb-x-$KLB_SUF" "$KLBCTL" backend add p 10.9.0.2:80 &&
	ip netns exec "klb-x-$KLB_SUF" "$KLBCTL" service add s vip 10.9.9.9:80 proto tcp mode nat pool p
check "configuration in a second netns" test $? -eq 0
check "delete that netns while klb is loaded" ip netns del "klb-x-$KLB_SUF"

traffic_start
unload_under_traffic "second unload"
check "wrk ran (v4)" grep -q "requests in" "$TMPD/wrk4.out"
diag "$(grep -hE 'requests in|Socket errors|Non-2xx' "$TMPD"/wrk*.out)"
