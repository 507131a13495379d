#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A client port that comes back opens its connection at once: no lost SYN,
# no one-second retransmission, in every L4 mode, IPv4 and IPv6, while klb
# still holds the port's earlier connections in TIME_WAIT.
#
# The client's ip_local_port_range is narrowed to 16 ports (connect() takes
# the 8 even ones first), and every round makes 24 connections one after
# the other with "Connection: close": the backend closes first, so each
# port is taken again at once, 3 times a round, while klb keeps every
# earlier connection of it in TIME_WAIT (tcp_timeout_time_wait, 120 s):
# the first round of each mode already reuses ports.
# A round passes when every request is answered, no connect took more than
# 500 ms, and the client retransmitted no SYN (TCPSynRetrans).
#
# The backends keep no TIME_WAIT (tcp_max_tw_buckets=0): a backend's own
# TIME_WAIT socket from a connection that reached it through another VIP
# (the client's initial sequence number and timestamp offset depend on the
# address it connects to) may answer the new SYN with an ACK of the old
# connection, costing the client a second with any balancer that keeps the
# client's address (nat, IPVS NAT). That is the backend's; this test is
# about what the balancer itself does with a port that comes back.
#
#   nat, two VIPs on one pool: a port that comes back through the other VIP
#     to the same backend has the reply tuple of its earlier connection
#     (backend -> client:port), which is over and gives way
#   fnat: a port comes back, each with a fresh source port towards the backend
#   nat beside an IPVS NAT service on the same backends (if ip_vs loads):
#     IPVS's TIME_WAIT entries must not claim klb's SYN-ACKs, nor klb's IPVS's
#   dr and tun (direct return): the tuple's own entry gives way
#
# Cost: about 3 min in the emulated VM on a quiet machine (14 rounds of 24
# connections; 20 min with six VMs on the 2 cores).
#
# Its teardown also proves that deleting the namespaces does not hang
# while klb still holds dr routes (IPv6 ones held the bridge:
# "unregister_netdevice: waiting for br0 to become free", for ever, until
# klb dropped its cached dr routes when a device goes; l4/xmit.c).
source "$(dirname "$0")/lib.sh"
klb_test_init "a reused client port opens its connection at once (nat, fnat, dr, tun, v4, v6, beside IPVS)"

VIP4B=10.0.100.2	# tun (on the backends' lo)
VIP4C=10.0.100.3	# the second nat VIP
VIP4I=10.0.100.4	# IPVS (local in the balancer: IPVS needs that)
VIP6B=fd00:100::2
VIP6C=fd00:100::3
N=24

topo_setup
backends_start
for i in 1 2 3; do be "$i" sysctl -qw net.ipv4.tcp_max_tw_buckets=0; done
klb_load
cli sysctl -qw net.ipv4.ip_local_port_range="40000 40015"

# the client's SYN retransmissions (TcpExt TCPSynRetrans): a lost SYN or
# SYN-ACK, where RetransSegs would also count a data segment or FIN
# retransmitted by a busy emulated host
retrans() {
	cli awk '/^TcpExt:/ { if (!h) { for (i = 2; i <= NF; i++) if ($i == "TCPSynRetrans") c = i; h = 1 }
			     else print $c }' /proc/net/netstat
}

# reuse_round WHAT HOST PORT: N connections; every one answered by a
# backend, none slow, no retransmission
reuse_round() {
	local what=$1 r0 out answered slow ports
	r0=$(retrans)
	out=$(cli "$PY" "$SELFTESTS/klb_reuse_client.py" "$2" "$3" $N)
	answered=$(grep -cE '^[0-9]+ [0-9]+ be[0-9]$' <<<"$out")
	slow=$(awk '$1 == "slow" {print $2}' <<<"$out")
	ports=$(awk '$1 == "ports" {print $2}' <<<"$out")
	check_eq "$what: $N of $N answered" "$answered" $N
	check_eq "$what: no connect slower than 500 ms ($ports client ports)" "$slow" 0
	check_eq "$what: the client retransmitted no SYN" "$(($(retrans) - r0))" 0
	[ "$slow" = 0 ] || diag "$(awk '$2 > 500' <<<"$out" | head -5)"
}

# no_drops SVC...: nothing refused
no_drops() {
	local s
	for s in "$@"; do
		check_eq "$s: no drop of any kind" \
			"$(klbctl -j -s service show "$s" | jq '[.[0].stats.drops[]] | add')" 0
	done
}

# pools: "web" and "web6", rr over the three backends (v4, v6)
pools() {
	local i
	cfg pool add web sched rr
	cfg pool add web6 sched rr
	for i in 1 2 3; do
		cfg backend add web "$(be4 "$i"):80"
		cfg backend add web6 "[$(be6 "$i")]:80"
	done
}

pools

# ---- nat: the same ports through two VIPs to the same backends --------------
cfg service add n4a vip $VIP4:80 proto tcp mode nat pool web
cfg service add n4b vip $VIP4C:80 proto tcp mode nat pool web
cfg service add n6a vip "[$VIP6]:80" proto tcp mode nat pool web6
cfg service add n6b vip "[$VIP6C]:80" proto tcp mode nat pool web6
reuse_round "nat v4, VIP a" $VIP4 80
reuse_round "nat v4, VIP b" $VIP4C 80
reuse_round "nat v6, VIP a" $VIP6 80
reuse_round "nat v6, VIP b" $VIP6C 80
tw=$(klbctl -j conn show | jq '[.[] | select(.state == "time_wait")] | length')
check "nat: klb held the earlier connections in TIME_WAIT ($tw entries)" test "$tw" -ge 8
no_drops n4a n4b n6a n6b

# ---- fnat ----------------------------------------------------------------------
cfg service add f4 vip $VIP4:8080 proto tcp mode fnat pool web
cfg service add f6 vip "[$VIP6]:8080" proto tcp mode fnat pool web6
reuse_round "fnat v4" $VIP4 8080
reuse_round "fnat v6" $VIP6 8080
no_drops f4 f6

# ---- beside IPVS: one netns, the same backends and client ports ---------------
if modprobe ip_vs 2>/dev/null && command -v ipvsadm >/dev/null; then
	lb ip addr add $VIP4I/32 dev lo
	check "ipvsadm: NAT service $VIP4I:80, rr over the same backends" lb sh -c "
		ipvsadm -A -t $VIP4I:80 -s rr &&
		ipvsadm -a -t $VIP4I:80 -r $(be4 1):80 -m &&
		ipvsadm -a -t $VIP4I:80 -r $(be4 2):80 -m &&
		ipvsadm -a -t $VIP4I:80 -r $(be4 3):80 -m"
	for r in 1 2; do
		reuse_round "beside IPVS: IPVS, round $r" $VIP4I 80
		reuse_round "beside IPVS: klb nat, round $r" $VIP4 80
	done
	no_drops n4a
	lb ipvsadm -C
	lb ip addr del $VIP4I/32 dev lo
else
	skip "beside IPVS" "no ip_vs module or no ipvsadm in this system"
fi

# ---- dr and tun: the client on the backends' segment -----------------------------
check "flush (nat and fnat done)" klbctl flush
pools
direct_return_setup
vip_on_backends
tun=0
modprobe ipip 2>/dev/null && modprobe ip6_tunnel 2>/dev/null && tun=1
for i in 1 2 3; do
	be "$i" ip addr add $VIP4B/32 dev lo
	be "$i" ip addr add $VIP6B/128 dev lo nodad
	[ $tun = 1 ] || continue
	be "$i" ip link set tunl0 up || bail "tunl0 in be$i"
	be "$i" ip link set ip6tnl0 up || bail "ip6tnl0 in be$i"
	be "$i" sysctl -qw net.ipv4.conf.tunl0.rp_filter=0
done
cfg service add d4 vip $VIP4:80 proto tcp mode dr pool web
cfg service add d6 vip "[$VIP6]:80" proto tcp mode dr pool web6
reuse_round "dr v4" $VIP4 80
reuse_round "dr v6" $VIP6 80
no_drops d4 d6
if [ $tun = 1 ]; then
	cfg service add t4 vip $VIP4B:80 proto tcp mode tun pool web
	cfg service add t6 vip "[$VIP6B]:80" proto tcp mode tun pool web6
	reuse_round "tun v4" $VIP4B 80
	reuse_round "tun v6" $VIP6B 80
	no_drops t4 t6
else
	skip "tun" "no ipip / ip6_tunnel module in this kernel"
fi
