#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Mode dr (direct routing): klb only sends the client's frames on to a
# backend's MAC address; the backend holds the VIP on lo (arp_ignore=1,
# arp_announce=2) and answers the client itself, from the VIP, over the
# backends' segment (the client also sits on it: direct_return_setup), so
# replies never pass klb:
#   - every backend serves, v4 and v6, TCP and UDP; the client talks to
#     the VIP only; the service counts packets in one direction only
#   - klb's TCP state follows the client alone: a held connection is
#     ESTABLISHED after the client's first ACK, FIN_WAIT after its FIN
#   - a backend behind a gateway cannot be reached by MAC: the packets are
#     dropped and counted (drops no_route), nothing goes astray
#   - an ICMP error about the backend's VIP -> client segments, sent to
#     the VIP, is sent on to that backend (PMTU towards the client)
#   - rmmod under traffic
source "$(dirname "$0")/lib.sh"
klb_test_init "mode dr: direct routing, replies straight from backends, one-way state"
command -v nstat >/dev/null || skip_all "nstat not installed"

topo_setup
direct_return_setup
vip_on_backends
backends_start
klb_load

check "pool web (rr)" klbctl pool add web sched rr
for i in 1 2 3; do klbctl backend add web "$(be4 $i):80" >/dev/null || fail "backend be$i"; done
check "service d4 (dr)" klbctl service add d4 vip $VIP4:80 proto tcp mode dr pool web
r=$(http_n 30 "http://$VIP4/" | tally)
check_eq "dr: every backend answers the VIP" "$r" "$(printf 'be1 10\nbe2 10\nbe3 10')"
check_eq "dr: 30 connections scheduled" "$(svc_stat d4 conns)" 30
check "dr: packets counted towards the backends ($(svc_stat d4 pkts_in))" test "$(svc_stat d4 pkts_in)" -ge 90
check_eq "dr: no reply passed klb (pkts out)" "$(svc_stat d4 pkts_out)" 0
check_eq "dr: backends' replies bypass the balancer (it forwarded no IP packet)" \
	"$(lb nstat -asz IpForwDatagrams | awk '$1 == "IpForwDatagrams" {print $2}')" 0
r=$(cli curl -s -o /dev/null -w '%{remote_ip}' --max-time 5 "http://$VIP4/")
check_eq "the client's peer is the VIP" "$r" "$VIP4"

hold_open 1 $VIP4 80
st=$(klbctl -j conn show service d4 | jq -r '[.[] | select(.state == "established")] | length')
check "a held connection is ESTABLISHED from the client's packets alone" test "$st" -ge 1
r=$(hold_release 1 5)
check "the held connection answers ($r)" grep -qx 'be[123]' <<<"$r"
r=$(klbctl -j conn show service d4 | jq -r '[.[].state] | unique | join(",")')
if [[ $r == *syn_sent* ]]; then
	fail "finished connections wait in fin_wait (client FIN seen), never syn_sent: $r"
else
	ok "finished connections wait in fin_wait (client FIN seen), never syn_sent: $r"
fi

icmp_reaches_backend "dr: ICMP fragmentation-needed to the VIP goes on to the backend" d4 $VIP4

# ---- br_netfilter ------------------------------------------------------------
bridged_replies_pass_by dr d4 "http://$VIP4/"

# ---- IPv6, UDP --------------------------------------------------------------
check "pool web6" klbctl pool add web6 sched rr
for i in 1 2 3; do klbctl backend add web6 "[$(be6 $i)]:80" >/dev/null || fail "backend be$i v6"; done
check "service d6 (dr, IPv6)" klbctl service add d6 vip "[$VIP6]:80" proto tcp mode dr pool web6
r=$(http_n 9 "http://[$VIP6]/" | tally)
check_eq "dr IPv6: every backend answers" "$r" "$(printf 'be1 3\nbe2 3\nbe3 3')"
check_eq "dr IPv6: no reply passed klb" "$(svc_stat d6 pkts_out)" 0
icmp_reaches_backend "dr IPv6: ICMPv6 packet-too-big to the VIP goes on to the backend" d6 $VIP6

# A dr backend's UDP server must answer from the VIP: it binds to it (an
# unbound one would answer from the address routing picks). socat gives
# the other side -t (0.5 s by default) once its own side is done: the
# server's child after the one datagram, the client after its stdin. A
# shell's start takes longer on the debug kernel, where every answer was
# lost ("echo: I/O error"; the client gone first), so both wait longer.
for i in 1 2 3; do
	bg "${NS_BE[i]}" socat -t "$(tscale 2)" "UDP4-RECVFROM:5354,bind=$VIP4,reuseaddr,fork" "SYSTEM:echo be$i"
done
for i in 1 2 3; do
	wait_for "be$i's UDP server" be "$i" sh -c "ss -Hunl 'sport = :5354' | grep -q ."
done
check "pool u" klbctl pool add u sched rr
for i in 1 2 3; do klbctl backend add u "$(be4 $i):5354" >/dev/null || fail "udp backend $i"; done
check "service du (dr, UDP)" klbctl service add du vip $VIP4:5354 proto udp mode dr pool u
got=0
for i in 1 2 3 4 5 6; do
	# (each answer forks a shell on the backend: seconds on a debug kernel)
	out=$(echo x | cli socat -T"$(tscale 2)" -t "$(tscale 2)" - "UDP:$VIP4:5354,sourceport=$((21000 + i))" 2>/dev/null)
	[[ $out =~ ^be[123]$ ]] && got=$((got + 1))
done
check_eq "dr UDP: each flow answered from the VIP" "$got" 6
[ "$got" = 6 ] || diag "du: pkts_in $(svc_stat du pkts_in) pkts_out $(svc_stat du pkts_out) drops $(klbctl -j -s service show | jq -c '.[] | select(.name == "du") | .stats.drops')
$(klbctl conn show service du)"

# ---- a backend that is not on a link -------------------------------------------
lb ip route add 10.9.9.0/24 via "$(be4 2)"
check "pool far (a backend behind a gateway)" sh -c "ip netns exec $NS_LB $KLBCTL pool add far &&
	ip netns exec $NS_LB $KLBCTL backend add far 10.9.9.9:80 &&
	ip netns exec $NS_LB $KLBCTL service add d9 vip $VIP4:82 proto tcp mode dr pool far"
r=$(cli curl -s --max-time 3 --connect-timeout 2 "http://$VIP4:82/")
check_eq "dr to a backend behind a gateway: no answer" "$r" ""
check "dr to a backend behind a gateway: drops no_route ($(svc_stat d9 drops.no_route))" \
	test "$(svc_stat d9 drops.no_route)" -ge 1

# ---- rmmod under traffic ----------------------------------------------------------
rmmod_under_traffic dr d4 "http://$VIP4/" 45
