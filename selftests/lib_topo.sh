# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The selftests' network (sourced by lib.sh, not on its own): namespaces,
# veths, the balancer's bridge, the addresses, and the variants that the
# forwarding modes need (direct_return_setup, vip_on_backends).
#
#                                  VIP 10.0.100.1, fd00:100::1 (on no interface)
#
#  client ns $NS_CLI            balancer ns $NS_LB                 backends $NS_BE1..3
# +----------------+   veth   +-----------------------------+
# | eth0           |----------| cli0            br0 (bridge)|----veth---- eth0 10.0.1.11/24
# | 10.0.0.2/24    |          | 10.0.0.1/24     10.0.1.1/24 |              fd01::11/64
# | 10.0.0.3/24    |          | fd00::1/64      fd01::1/64  |----veth---- eth0 10.0.1.12/24 ..
# | fd00::2/64     |          | ip_forward=1, v6 forwarding |----veth---- eth0 10.0.1.13/24 ..
# | fd00::3/64     |          | klb.ko, klbctl run here     |   nginx :80 answers "beN\n",
# | default via    |          +-----------------------------+   /big/* sized files,
# |   10.0.0.1,    |                                            UDP :5353 answers "beN\n";
# |   fd00::1      |                                            default via 10.0.1.1 /
# +----------------+                                            fd01::1 (replies via klb)
#
# Names of namespaces carry a per-run suffix ($KLB_SUF) so that runs and
# leftovers never collide. Every helper wraps `ip netns exec`.

NS_CLI=klb-cli-$KLB_SUF
NS_LB=klb-lb-$KLB_SUF
NBE=3
NS_BE=()
for _i in 1 2 3 4 5 6; do NS_BE[_i]=klb-be$_i-$KLB_SUF; done
# the namespaces this test made (ns_add): the teardown deletes them
_ns_made=()

VIP4=10.0.100.1
VIP6=fd00:100::1
CLI4=10.0.0.2
CLI4B=10.0.0.3
CLI6=fd00::2
CLI6B=fd00::3
LB4=10.0.0.1
LB6=fd00::1
LBBE4=10.0.1.1
LBBE6=fd01::1
# be4 N, be6 N: backend N's addresses
be4() { echo "10.0.1.1$1"; }
be6() { echo "fd01::1$1"; }
UDP_PORT=5353

# ---- namespaces -------------------------------------------------------------

# cli, lb, be N: CMD... in the client's, the balancer's, backend N's namespace
cli() { ip netns exec "$NS_CLI" "$@"; }
lb() { ip netns exec "$NS_LB" "$@"; }
be() { local n=$1; shift; ip netns exec "${NS_BE[n]}" "$@"; }

# bg NS CMD...: run CMD in namespace NS in the background; its pid (the
# command's own: ip netns exec execs it) in BG_PID
bg() {
	ip netns exec "$1" "${@:2}" &
	BG_PID=$!
}

# ns_add NAME: a namespace with lo up, remembered so that the teardown
# (lib_kernel.sh) deletes it and checks that it is gone
ns_add() {
	ip netns add "$1" || bail "ip netns add $1"
	_ns_made+=("$1")
	ip -n "$1" link set lo up
}

# topo_setup [NBACKENDS]: the diagram above, with NBACKENDS (default 3)
# backends. Batched (ip -batch): every process start is slow under emulation.
topo_setup() {
	local i ns
	NBE=${1:-3}
	for ns in "$NS_CLI" "$NS_LB" $(for i in $(seq 1 "$NBE"); do echo "${NS_BE[i]}"; done); do
		ns_add "$ns"
	done
	ip -n "$NS_LB" -b - <<-EOF || bail "balancer setup"
		link add br0 type bridge
		addr add $LBBE4/24 dev br0
		addr add $LBBE6/64 dev br0 nodad
		link set br0 up
	EOF
	ip -n "$NS_CLI" -b - <<-EOF || bail "client setup"
		link add eth0 type veth peer name cli0 netns $NS_LB
		addr add $CLI4/24 dev eth0
		addr add $CLI4B/24 dev eth0
		addr add $CLI6/64 dev eth0 nodad
		addr add $CLI6B/64 dev eth0 nodad
		link set eth0 up
		route add default via $LB4
		route add default via $LB6
	EOF
	for i in $(seq 1 "$NBE"); do
		ip -n "${NS_BE[i]}" -b - <<-EOF || bail "backend $i setup"
			link add eth0 type veth peer name be$i netns $NS_LB
			addr add $(be4 "$i")/24 dev eth0
			addr add $(be6 "$i")/64 dev eth0 nodad
			link set eth0 up
			route add default via $LBBE4
			route add default via $LBBE6
		EOF
	done
	{
		echo "addr add $LB4/24 dev cli0"
		echo "addr add $LB6/64 dev cli0 nodad"
		echo "link set cli0 up"
		for i in $(seq 1 "$NBE"); do
			echo "link set be$i master br0"
			echo "link set be$i up"
		done
	} | ip -n "$NS_LB" -b - || bail "balancer ports"
	lb sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
	# Without STP a bridge port forwards at once; still, wait for the links.
	wait_for "balancer reaches be$NBE" lb busybox ping -c1 -W1 "$(be4 "$NBE")"
	wait_for "balancer reaches be$NBE over v6" lb busybox ping -6 -c1 -W1 "$(be6 "$NBE")"
	wait_for "client reaches balancer" cli busybox ping -c1 -W1 $LB4
	wait_for "client reaches balancer over v6" cli busybox ping -6 -c1 -W1 $LB6
}

# ---- forwarding modes -----------------------------------------------------------

# direct_return_setup: the client also sits on the backends' segment (eth1
# on br0, $CLIBR4 / $CLIBR6) and the backends route the client network
# there, so replies skip the balancer's IP layer (dr, tun). Bridged frames
# do not pass IP netfilter hooks (no br_netfilter).
CLIBR4=10.0.1.50
CLIBR6=fd01::50
direct_return_setup() {
	local i
	ip -n "$NS_CLI" -b - <<-EOF || bail "client second link"
		link add eth1 type veth peer name clibr netns $NS_LB
		addr add $CLIBR4/24 dev eth1
		addr add $CLIBR6/64 dev eth1 nodad
		link set eth1 up
	EOF
	ip -n "$NS_LB" -b - <<-EOF || bail "client second link, balancer side"
		link set clibr master br0
		link set clibr up
	EOF
	cli sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.eth1.rp_filter=0
	for i in $(seq 1 "$NBE"); do
		ip -n "${NS_BE[i]}" -b - <<-EOF || bail "backend $i return route"
			route add 10.0.0.0/24 via $CLIBR4
			route add fd00::/64 via $CLIBR6
		EOF
	done
	wait_for "be1 reaches the client directly" be 1 busybox ping -c1 -W1 $CLI4
}

# vip_on_backends: every backend holds both VIPs on lo and, as a dr or tun
# backend must, neither answers ARP for them nor uses them as ARP source.
vip_on_backends() {
	local i
	for i in $(seq 1 "$NBE"); do
		be "$i" sysctl -qw net.ipv4.conf.all.arp_ignore=1 \
			net.ipv4.conf.all.arp_announce=2 net.ipv4.conf.all.rp_filter=0 \
			net.ipv4.conf.default.rp_filter=0 net.ipv4.conf.lo.rp_filter=0
		ip -n "${NS_BE[i]}" -b - <<-EOF || bail "VIPs on backend $i"
			addr add $VIP4/32 dev lo
			addr add $VIP6/128 dev lo nodad
		EOF
	done
}

# bridged_replies_pass_by MODE SVC URL: br_netfilter (built into some
# kernels, the debug kernel's among them; loaded on Kubernetes nodes)
# shows frames that a bridge forwards between its ports to the IP hooks.
# After direct_return_setup the backends' replies are such frames (br0 in
# the balancer's netns): 30 more requests to URL must leave SVC's pkts_out
# as it was, as without br_netfilter. Loads br_netfilter where it is a
# module, and unloads it again so the boot's other tests run without it.
bridged_replies_pass_by() {
	local mode=$1 svc=$2 url=$3 loaded=0 out0 in0 fw0 r
	brnf() { lb test -e /proc/sys/net/bridge/bridge-nf-call-iptables; }
	fwd() { lb nstat -asz IpForwDatagrams | awk '$1 == "IpForwDatagrams" {print $2}'; }
	if ! brnf && modprobe br_netfilter 2>/dev/null; then
		loaded=1
	fi
	if brnf; then
		check "br_netfilter: bridged IPv4 and IPv6 frames pass the IP hooks in the balancer's netns" \
			lb sysctl -qw net.bridge.bridge-nf-call-iptables=1 net.bridge.bridge-nf-call-ip6tables=1
		out0=$(svc_stat "$svc" pkts_out) in0=$(svc_stat "$svc" pkts_in) fw0=$(fwd)
		r=$(http_n 30 "$url" | tally)
		check_eq "br_netfilter, $mode: every backend answers the VIP" "$r" "$(printf 'be1 10\nbe2 10\nbe3 10')"
		check "br_netfilter, $mode: the requests still counted ($in0 -> $(svc_stat "$svc" pkts_in))" \
			test "$(svc_stat "$svc" pkts_in)" -ge $((in0 + 90))
		check_eq "br_netfilter, $mode: the bridged replies passed klb by (pkts out)" \
			"$(svc_stat "$svc" pkts_out)" "$out0"
		check_eq "br_netfilter, $mode: and the balancer forwarded no IP packet" "$(fwd)" "$fw0"
	else
		skip "br_netfilter, $mode: bridged replies pass klb by" "no br_netfilter in this kernel"
	fi
	if [ $loaded = 1 ]; then
		check "rmmod br_netfilter (loaded by this test)" rmmod br_netfilter
	fi
}
