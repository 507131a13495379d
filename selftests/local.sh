#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Locally originated connections: a client running in the balancer
# namespace itself connects to the VIP (klb's LOCAL_OUT path, and replies
# un-NATed on LOCAL_IN). The VIP is not a local address; the balancer gets a
# route to it (10.0.100.0/24 and fd00:100::/64 dev br0) so that connect()
# has a route; klb rewrites the destination to a backend before it leaves.
#   - 30 requests from the balancer ns, rr 10/10/10, answered
#   - the same over IPv6
#   - client traffic from the client ns at the same time still works
#   - UDP from the balancer ns
source "$(dirname "$0")/lib.sh"
klb_test_init "locally originated connections to the VIP"

topo_setup
backends_start
udp_start 1
klb_load
basic_service rr
check "pool add web6 sched rr" klbctl pool add web6 sched rr
for i in 1 2 3; do klbctl backend add web6 "[$(be6 $i)]:80" || fail "backend add web6 $i"; done
check "service add web6" klbctl service add web6 vip "[$VIP6]:80" proto tcp mode nat pool web6
check "pool add u" klbctl pool add u sched rr
check "backend add u" klbctl backend add u "$(be4 1):$UDP_PORT"
check "service add u" klbctl service add u vip $VIP4:$UDP_PORT proto udp mode nat pool u
lb ip route add 10.0.100.0/24 dev br0 || fail "route to the VIP in the balancer"
lb ip -6 route add fd00:100::/64 dev br0 || fail "v6 route to the VIP in the balancer"

# lb_n N URL [ARGS]: N requests from the balancer namespace
lb_n() {
	local n=$1 url=$2 urls=() i
	shift 2
	for ((i = 0; i < n; i++)); do urls+=("$url"); done
	lb curl -s -g --max-time 5 --connect-timeout 3 -H 'Connection: close' "$@" "${urls[@]}"
}

out=$(lb curl -s --max-time 5 -w ' %{remote_ip}' "http://$VIP4/")
case "$out" in
be[123]*" $VIP4") ok "local request answered, peer is the VIP ($out)" ;;
*) fail "local request answered, peer is the VIP"; diag "got '$out'" ;;
esac
r=$(lb_n 30 "http://$VIP4/" | tally)
check_eq "30 local requests, rr 10/10/10" "$(echo $r)" "be1 10 be2 10 be3 10"
r=$(lb_n 15 "http://[$VIP6]/" | tally)
check_eq "15 local IPv6 requests, rr 5/5/5" "$(echo $r)" "be1 5 be2 5 be3 5"
check_eq "service conns counts local connections (31)" "$(svc_stat web conns)" 31
r=$(http_n 9 "http://$VIP4/" | tally)
check_eq "client ns still served: 9 requests 3/3/3" "$(echo $r)" "be1 3 be2 3 be3 3"
check "local UDP datagram answered from the VIP" udp_probe lb $VIP4 $UDP_PORT be1
if poll_until 30 eval '[ "$(svc_stat web active_conns)" = 0 ]'; then
	ok "active_conns back to 0"
else
	fail "active_conns back to 0 ($(svc_stat web active_conns))"
fi
