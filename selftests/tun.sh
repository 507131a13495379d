#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Mode tun: klb sends the client's packets to a backend inside IPIP (IPv4)
# or IP6IP6 (IPv6); the backend decapsulates them on its fallback tunnel
# device (tunl0, ip6tnl0), holds the VIP on lo and answers the client
# directly (direct_return_setup), as IPVS's tun backends do:
#   - every backend serves, v4 and v6; replies never pass klb
#   - the tunnel header does not fit a 1500-byte path: klb answers DF
#     packets that would exceed it with ICMP fragmentation-needed (mtu
#     1480) / packet-too-big (1460) to the client, whose 1 MB uploads then
#     arrive intact (sha256), v4 and v6 (drops too_big counted)
#   - an ICMP error to the VIP about a backend's segment goes on to it
#   - dr and tun services on one pool at once
#   - rmmod under traffic
source "$(dirname "$0")/lib.sh"
klb_test_init "mode tun: IPIP and IP6IP6 to backends, PMTU with the tunnel overhead"
for c in sha256sum timeout ss nstat; do
	command -v $c >/dev/null || skip_all "$c not installed"
done
modprobe ipip 2>/dev/null && modprobe ip6_tunnel 2>/dev/null || skip_all "no ipip / ip6_tunnel module"
VIP4B=10.0.100.2

topo_setup
direct_return_setup
vip_on_backends
for i in 1 2 3; do
	be "$i" ip addr add $VIP4B/32 dev lo
	be "$i" ip link set tunl0 up || bail "tunl0 in be$i"
	be "$i" ip link set ip6tnl0 up || bail "ip6tnl0 in be$i"
	be "$i" sysctl -qw net.ipv4.conf.tunl0.rp_filter=0
done
backends_start
klb_load

check "pool web (rr)" klbctl pool add web sched rr
for i in 1 2 3; do klbctl backend add web "$(be4 $i):80" >/dev/null || fail "backend be$i"; done
check "service t4 (tun)" klbctl service add t4 vip $VIP4:80 proto tcp mode tun pool web
r=$(http_n 30 "http://$VIP4/" | tally)
check_eq "tun: every backend answers the VIP" "$r" "$(printf 'be1 10\nbe2 10\nbe3 10')"
check_eq "tun: no reply passed klb (pkts out)" "$(svc_stat t4 pkts_out)" 0
check "tun: backends decapsulated IPIP (tunl0 rx on be1: $(be 1 cat /sys/class/net/tunl0/statistics/rx_packets))" \
	test "$(be 1 cat /sys/class/net/tunl0/statistics/rx_packets)" -gt 0
icmp_reaches_backend "tun: ICMP fragmentation-needed to the VIP goes on to the backend" t4 $VIP4
bridged_replies_pass_by tun t4 "http://$VIP4/"

check "service m4 (dr) on the same pool" klbctl service add m4 vip $VIP4B:80 proto tcp mode dr pool web
r1=$(http_n 6 "http://$VIP4/" | wc -l)
r2=$(http_n 6 "http://$VIP4B/" | wc -l)
check_eq "tun and dr services on one pool both serve" "$r1 $r2" "6 6"

check "pool web6" klbctl pool add web6 sched rr
for i in 1 2 3; do klbctl backend add web6 "[$(be6 $i)]:80" >/dev/null || fail "backend be$i v6"; done
check "service t6 (tun, IPv6)" klbctl service add t6 vip "[$VIP6]:80" proto tcp mode tun pool web6
r=$(http_n 9 "http://[$VIP6]/" | tally)
check_eq "tun IPv6: every backend answers" "$r" "$(printf 'be1 3\nbe2 3\nbe3 3')"
check_eq "tun IPv6: no reply passed klb" "$(svc_stat t6 pkts_out)" 0
icmp_reaches_backend "tun IPv6: ICMPv6 packet-too-big to the VIP goes on to the backend" t6 $VIP6

# ---- path MTU with the tunnel overhead ---------------------------------------------
SUM=$(randfile "$TMPD/f" 1024)
check "pool up: be1:9000" sh -c "ip netns exec $NS_LB $KLBCTL pool add up &&
	ip netns exec $NS_LB $KLBCTL backend add up $(be4 1):9000 &&
	ip netns exec $NS_LB $KLBCTL service add tu vip $VIP4:9000 proto tcp mode tun pool up &&
	ip netns exec $NS_LB $KLBCTL pool add up6 &&
	ip netns exec $NS_LB $KLBCTL backend add up6 [$(be6 1)]:9000 &&
	ip netns exec $NS_LB $KLBCTL service add tu6 vip [$VIP6]:9000 proto tcp mode tun pool up6"
check_eq "tun: 1 MB upload with DF over 1500-byte links, sha256 intact" \
	"$(upload_sha "${NS_BE[1]}" $VIP4 9000 "$TMPD/f")" "$SUM"
check "tun: too-big packets answered with ICMP (drops too_big $(svc_stat tu drops.too_big))" \
	test "$(svc_stat tu drops.too_big)" -ge 1
r=$(cli ip route get $VIP4 | grep -o 'mtu [0-9]*')
check_eq "the client learned the tunnel's MTU for the VIP" "$r" "mtu 1480"
check_eq "tun IPv6: 1 MB upload over 1500-byte links, sha256 intact" \
	"$(upload_sha "${NS_BE[1]}" "[$VIP6]" 9000 "$TMPD/f")" "$SUM"
check "tun IPv6: too-big packets answered with ICMPv6 (drops too_big $(svc_stat tu6 drops.too_big))" \
	test "$(svc_stat tu6 drops.too_big)" -ge 1
r=$(cli ip -6 route get $VIP6 | grep -o 'mtu [0-9]*')
check_eq "the client learned the IP6IP6 tunnel's MTU for the VIP" "$r" "mtu 1460"

# ---- rmmod under traffic ----------------------------------------------------------
rmmod_under_traffic tun t4 "http://$VIP4/" 50
