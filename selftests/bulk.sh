#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bulk transfers through every klb mode (nat, http, tls): big files both
# ways, checked byte for byte (sha256 at both ends), under the link
# settings operators use for them:
#
#   jumbo      MTU 9000 end to end, every offload on: GSO/TSO super-packets
#              (up to 64 KB) pass klb as such (nat: average packet > MTU)
#   csum-off   MTU 9000, checksum offload, TSO, GSO, GRO off on every veth:
#              jumbo frames one by one, every checksum made and verified in
#              software (nat: average packet > 1500, never > 9000)
#   csum-late  the balancer's own ports alone do no checksum offload:
#              packets reach klb with partial checksums (CHECKSUM_PARTIAL,
#              GSO), klb patches them, the balancer finishes them in
#              software and the endpoints verify them in software
#   pmtu       MTU 9000 links, but each router has a 1500-byte hop behind
#              it (a route MTU): path MTU discovery through the balancer.
#              Uploads: the router before the backend sends "fragmentation
#              needed" about client -> backend packets, klb rewrites the
#              quote to the VIP, the client learns MTU 1500 for the VIP.
#              Downloads: the router before the client sends it about
#              VIP -> client packets, to the VIP; klb sends it on to the
#              backend (nat), or delivers it to its own socket (http, tls).
#              IPv4 and IPv6 (nat).
#
# Services: nat VIP:81 -> backend :80 (klb rewrites the port too, so its
# port checksum update counts), nat6 [VIP6]:80 -> :80, http VIP:8080,
# tls VIP:443.
#
# In every case: no packet of a transfer is dropped as bad_packet, no TCP
# segment arrives with a bad checksum anywhere (InCsumErrors), and klb
# unloads cleanly afterwards.
#
# Topology (its own: two routers so that the 1500-byte hops are neither
# the client's nor the backend's link, which would just shrink the MSS):
#
#   client ---- rc ---- balancer ---- rb ---- backend
#   .1.2     .1.1 .2.1  .2.2  .3.1   .3.2 .4.1   .4.2       (10.10.N.x/24,
#                       klb, VIP 10.10.100.1                 fd10:N::x/64)
#
# Size of each transfer: KLB_BULK_MB (default 16 in make check: every
# assertion is per packet or per byte, so 16 MB of GSO super-packets prove
# what more would; make soak runs 48); the cases run:
# KLB_BULK_CASES (default "jumbo csum-off csum-late pmtu").
source "$(dirname "$0")/lib.sh"
klb_test_init "bulk transfers: jumbo frames, GSO, checksum offload on/off, PMTU, sha256 per mode"
for c in ethtool sha256sum timeout openssl; do
	command -v $c >/dev/null || skip_all "$c not installed"
done

MB=${KLB_BULK_MB:-16}
NS_RC=klb-rc-$KLB_SUF
NS_RB=klb-rb-$KLB_SUF
BE=${NS_BE[1]}
C4=10.10.1.2 C6=fd10:1::2
BE4=10.10.4.2 BE6=fd10:4::2
LBRB4=10.10.3.1
V4=10.10.100.1 V6=fd10:100::1

klb_load
l7_require http
l7_require tls

# ---- topology ------------------------------------------------------------------
for ns in "$NS_CLI" "$NS_RC" "$NS_LB" "$NS_RB" "$BE"; do ns_add "$ns"; done
# veth_link N A B: link N, namespace A (its end "aN") <-> namespace B ("bN")
veth_link() {
	ip -n "$2" link add "a$1" type veth peer name "b$1" netns "$3" || bail "veth $1"
	ip -n "$2" -b - <<-EOF || bail "link $1 ($2)"
		addr add 10.10.$1.1/24 dev a$1
		addr add fd10:$1::1/64 dev a$1 nodad
		link set a$1 up
	EOF
	ip -n "$3" -b - <<-EOF || bail "link $1 ($3)"
		addr add 10.10.$1.2/24 dev b$1
		addr add fd10:$1::2/64 dev b$1 nodad
		link set b$1 up
	EOF
}
veth_link 1 "$NS_RC" "$NS_CLI"
veth_link 2 "$NS_RC" "$NS_LB"
veth_link 3 "$NS_LB" "$NS_RB"
veth_link 4 "$NS_RB" "$BE"
ip -n "$NS_CLI" -b - <<EOF || bail "client routes"
route add default via 10.10.1.1
route add default via fd10:1::1
EOF
ip -n "$NS_RC" -b - <<EOF || bail "rc routes"
route add default via 10.10.2.2
route add default via fd10:2::2
EOF
ip -n "$NS_LB" -b - <<EOF || bail "balancer routes"
route add 10.10.1.0/24 via 10.10.2.1
route add fd10:1::/64 via fd10:2::1
route add 10.10.4.0/24 via 10.10.3.2
route add fd10:4::/64 via fd10:3::2
EOF
ip -n "$NS_RB" -b - <<EOF || bail "rb routes"
route add default via 10.10.3.1
route add default via fd10:3::1
EOF
ip -n "$BE" -b - <<EOF || bail "backend routes"
route add default via 10.10.4.1
route add default via fd10:4::1
EOF
for ns in "$NS_RC" "$NS_LB" "$NS_RB"; do
	ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 ||
		bail "forwarding in $ns"
done
wait_for "client reaches the backend" cli busybox ping -c1 -W1 $BE4
wait_for "client reaches the backend over v6" cli busybox ping -6 -c1 -W1 $BE6

# Every veth end: "NS DEV"
DEVS=("$NS_CLI b1" "$NS_RC a1" "$NS_RC a2" "$NS_LB b2" "$NS_LB a3" "$NS_RB b3" "$NS_RB a4" "$BE b4")
LB_DEVS=("$NS_LB b2" "$NS_LB a3")
ENDPOINT_DEVS=("$NS_CLI b1" "$BE b4")

set_mtu() {
	local d
	for d in "${DEVS[@]}"; do
		set -- $d
		ip -n "$1" link set "$2" mtu "$MTU" || return 1
	done
}
# offload on|off DEV...: every offload we can switch, on or off
offload() {
	local st=$1 d
	shift
	for d in "$@"; do
		set -- $d
		ip netns exec "$1" ethtool -K "$2" rx "$st" tx "$st" sg "$st" tso "$st" \
			gso "$st" gro "$st" >/dev/null 2>&1 || return 1
	done
}
# tx_csum on|off DEV... / rx_csum on|off DEV...
tx_csum() {
	local st=$1 d
	shift
	for d in "$@"; do
		set -- $d
		ip netns exec "$1" ethtool -K "$2" tx "$st" >/dev/null 2>&1 || return 1
	done
}
rx_csum() {
	local st=$1 d
	shift
	for d in "$@"; do
		set -- $d
		ip netns exec "$1" ethtool -K "$2" rx "$st" >/dev/null 2>&1 || return 1
	done
}
# route_mtu [MTU]: the hop behind each router (rc: to the client, rb: to
# the backend) has MTU as its route MTU; none: back to the links' MTU.
# The connected routes are replaced (metric 0 for IPv4, 256 for IPv6).
route_mtu() {
	local m=${1:+mtu $1}
	printf 'route replace 10.10.1.0/24 dev a1 %s\nroute replace fd10:1::/64 dev a1 metric 256 %s\n' "$m" "$m" |
		ip -n "$NS_RC" -b - || return 1
	printf 'route replace 10.10.4.0/24 dev a4 %s\nroute replace fd10:4::/64 dev a4 metric 256 %s\n' "$m" "$m" |
		ip -n "$NS_RB" -b -
}
# learned path MTUs go, so that each case starts from scratch
flush_pmtu() {
	local ns
	for ns in "$NS_CLI" "$NS_RC" "$NS_LB" "$NS_RB" "$BE"; do
		ip -n "$ns" route flush cache >/dev/null 2>&1
		ip -n "$ns" -6 route flush cache >/dev/null 2>&1
	done
}
# pmtu_of NS DST: the MTU NS has learned towards DST (empty if none)
pmtu_of() {
	ip -n "$1" route get "$2" 2>/dev/null |
		sed -n 's/.* mtu \([0-9]*\).*/\1/p' | head -n1
}

# csum_errors: TCP segments received with a bad checksum, all namespaces
csum_errors() {
	local ns n=0 v
	for ns in "$NS_CLI" "$NS_RC" "$NS_LB" "$NS_RB" "$BE"; do
		v=$(ip netns exec "$ns" awk '/^Tcp:/ { if (!h) { for (i = 1; i <= NF; i++) c[$i] = i; h = 1 } else print $c["InCsumErrors"] }' /proc/net/snmp)
		n=$((n + ${v:-0}))
		v=$(ip netns exec "$ns" awk '$1 == "Tcp6InCsumErrors" {print $2}' /proc/net/snmp6)
		n=$((n + ${v:-0}))
	done
	echo $n
}

# ---- backend: nginx, GET /big/f and PUT /up/NAME (WebDAV), http and https ----------
D=$TMPD/be
mkdir -p "$D/www/big" "$D/www/up" "$D/tmp" "$D/log"
l7_certs bulk.example.com
cat >"$D/nginx.conf" <<EOF
daemon on;
master_process on;
worker_processes 1;
user root root;
pid $D/nginx.pid;
error_log $D/log/error.log warn;
events { worker_connections 1024; }
http {
	access_log off;
	client_body_temp_path $D/tmp/body;
	proxy_temp_path $D/tmp/proxy;
	fastcgi_temp_path $D/tmp/fastcgi;
	uwsgi_temp_path $D/tmp/uwsgi;
	scgi_temp_path $D/tmp/scgi;
	sendfile on;
	keepalive_timeout 300;
	client_body_timeout 120s;
	send_timeout 120s;
	default_type application/octet-stream;
	ssl_certificate $TMPD/pki/bulk.example.com.crt;
	ssl_certificate_key $TMPD/pki/bulk.example.com.key;
	server {
		listen 80;
		listen [::]:80 ipv6only=on;
		listen 443 ssl;
		root $D/www;
		location = /ready { return 200 "ready\n"; }
		location /up/ {
			dav_methods PUT;
			client_max_body_size 0;
			client_body_buffer_size 1m;
		}
	}
}
EOF
be 1 nginx -q -e "$D/log/error.log" -c "$D/nginx.conf" -p "$D" ||
	bail "nginx in the backend: $(cat "$D/log/error.log")"
wait_for "backend nginx" cli curl -s --max-time 2 -o /dev/null -f "http://$BE4/ready"
wait_for "backend nginx (tls)" cli curl -sk --max-time 2 -o /dev/null -f "https://$BE4/ready"

SRC=$D/www/big/f
head -c $((MB * 1024 * 1024)) /dev/urandom >"$SRC" || bail "make a $MB MB file"
SUM=$(sha256sum "$SRC" | cut -d' ' -f1)
diag "a $MB MB random file, sha256 $SUM"

# ---- klb --------------------------------------------------------------------------
klbctl restore <<EOF || bail "klbctl restore"
pool add web
backend add web $BE4:80
pool add web6
backend add web6 [$BE6]:80
pool add webs
backend add webs $BE4:443
service add nat vip $V4:81 proto tcp mode nat pool web
service add nat6 vip [$V6]:80 proto tcp mode nat pool web6
service add http vip $V4:8080 proto tcp mode http pool web
service add tls vip $V4:443 proto tcp mode tls pool webs
EOF
ok "klbctl restore: nat, nat6, http and tls services"

# url MODE: where the client sends to for MODE
url() {
	case $1 in
	nat) echo "http://$V4:81" ;;
	nat6) echo "http://[$V6]" ;;
	http) echo "http://$V4:8080" ;;
	tls) echo "https://$V4" ;;
	esac
}
# svc_stats SVC: "pkts_in bytes_in pkts_out bytes_out bad_packet"
svc_stats() {
	klbctl -j -s service show |
		jq -r --arg n "$1" '.[] | select(.name == $n) | .stats |
			"\(.pkts_in) \(.bytes_in) \(.pkts_out) \(.bytes_out) \(.drops.bad_packet)"'
}

# get CASE MODE / put CASE MODE: one transfer each way, checked at both ends.
# Sets GOT_PKTS and GOT_BYTES: what klb counted of the data direction.
xfer() {
	local dir=$1 case=$2 mode=$3 u tmo s0 s1 out rc sum t0=$SECONDS
	u=$(url "$mode")
	# (the debug kernel did not move 48 MB of tls, checksums in software, in 88 s)
	tmo=$(tscale $((40 + MB)))
	read -ra s0 <<<"$(svc_stats "$mode")"
	if [ "$dir" = get ]; then
		out=$(cli timeout $((tmo + 10)) bash -c 'set -o pipefail; curl -sSgk --max-time "$2" -f "$1" | sha256sum' _ "$u/big/f" "$tmo" 2>&1)
		rc=$?
		sum=${out%% *}
	else
		rm -f "$D/www/up/f"
		out=$(cli timeout $((tmo + 10)) curl -sSgk --max-time "$tmo" -f -T "$SRC" "$u/up/f" 2>&1)
		rc=$?
		sum=$(sha256sum "$D/www/up/f" 2>/dev/null | cut -d' ' -f1)
	fi
	read -ra s1 <<<"$(svc_stats "$mode")"
	if [ $rc -eq 0 ] && [ "$sum" = "$SUM" ]; then
		ok "$case: $mode ${dir^^} $MB MB: sha256 matches at both ends ($((SECONDS - t0)) s)"
	else
		fail "$case: $mode ${dir^^} $MB MB: sha256 matches at both ends"
		diag "curl status $rc: $(tail -c 300 <<<"$out")"
		diag "sha256 sent $SUM, received ${sum:-none}"
	fi
	check_eq "$case: $mode ${dir^^}: no packet dropped as bad_packet" "$((s1[4] - s0[4]))" 0
	if [ "$dir" = put ]; then
		GOT_PKTS=$((s1[0] - s0[0])) GOT_BYTES=$((s1[1] - s0[1]))
	else
		GOT_PKTS=$((s1[2] - s0[2])) GOT_BYTES=$((s1[3] - s0[3]))
	fi
	rm -f "$D/www/up/f"
}
# avg_pkt: the average size of the packets klb translated in that direction
avg_pkt() { echo $((GOT_BYTES / (GOT_PKTS ? GOT_PKTS : 1))); }

# ---- the cases ----------------------------------------------------------------------

# check_pmtu DESC NS DST: NS has learned MTU 1500 towards DST
check_pmtu() {
	local got
	got=$(pmtu_of "$2" "$3")
	if [ "$got" = 1500 ]; then
		ok "$1"
	else
		fail "$1"
		diag "ip route get $3 (in ${2%-"$KLB_SUF"}): $(ip -n "$2" route get "$3" 2>&1)"
	fi
}

case_jumbo() {
	local mode dir a
	for mode in nat http tls; do
		for dir in put get; do
			xfer $dir jumbo $mode
			[ $mode = nat ] || continue
			a=$(avg_pkt)
			if [ "$a" -gt 9000 ]; then
				ok "jumbo: nat ${dir^^}: GSO super-packets went through klb whole (average $a bytes, $GOT_PKTS packets)"
			else
				fail "jumbo: nat ${dir^^}: GSO super-packets went through klb whole"
				diag "average $a bytes over $GOT_PKTS packets, want > 9000"
			fi
		done
	done
}

case_csum_off() {
	local mode dir
	check "csum-off: ethtool -K rx/tx/sg/tso/gso/gro off on every veth" offload off "${DEVS[@]}"
	for mode in nat http tls; do
		for dir in put get; do
			xfer $dir csum-off $mode
			[ $mode = nat ] || continue
			check_range "csum-off: nat ${dir^^}: jumbo frames one by one (average packet $(avg_pkt) bytes, $GOT_PKTS packets)" \
				"$(avg_pkt)" 1501 9000
		done
	done
	check "csum-off: offloads back on" offload on "${DEVS[@]}"
}

case_csum_late() {
	local mode dir
	check "csum-late: tx checksum offload off on the balancer's ports" tx_csum off "${LB_DEVS[@]}"
	check "csum-late: rx checksum offload off on the endpoints" rx_csum off "${ENDPOINT_DEVS[@]}"
	for mode in nat http tls; do
		for dir in put get; do
			xfer $dir csum-late $mode
		done
	done
	check "csum-late: offloads back on" offload on "${DEVS[@]}"
}

case_pmtu() {
	local mode dir
	check "pmtu: route MTU 1500 behind rc (to the client) and rb (to the backend)" route_mtu 1500
	for mode in nat nat6 http tls; do
		for dir in put get; do
			flush_pmtu
			xfer $dir pmtu $mode
			case $mode:$dir in
			nat:put) check_pmtu "pmtu: nat PUT: the client learned MTU 1500 for the VIP (klb rewrote the router's ICMP)" \
				"$NS_CLI" $V4 ;;
			nat6:put) check_pmtu "pmtu: nat6 PUT: the client learned MTU 1500 for the VIP (klb rewrote the router's ICMPv6)" \
				"$NS_CLI" $V6 ;;
			nat:get) check_pmtu "pmtu: nat GET: the backend learned MTU 1500 for the client (klb passed the router's ICMP on)" \
				"$BE" $C4 ;;
			nat6:get) check_pmtu "pmtu: nat6 GET: the backend learned MTU 1500 for the client (klb passed the router's ICMPv6 on)" \
				"$BE" $C6 ;;
			http:put | tls:put) check_pmtu "pmtu: $mode PUT: the balancer learned MTU 1500 for the backend" \
				"$NS_LB" $BE4 ;;
			http:get | tls:get) check_pmtu "pmtu: $mode GET: the balancer learned MTU 1500 for the client (ICMP to the VIP delivered to klb's socket)" \
				"$NS_LB" $C4 ;;
			esac
		done
	done
	check "pmtu: route MTUs removed" route_mtu
}

MTU=9000
check "MTU 9000 on every link" set_mtu
CE0=$(csum_errors)
for c in ${KLB_BULK_CASES:-jumbo csum-off csum-late pmtu}; do
	"case_${c//-/_}"
done
check_eq "no TCP segment with a bad checksum anywhere (InCsumErrors)" "$(($(csum_errors) - CE0))" 0

# Nothing left behind by the transfers: every connection closes
for svc in nat nat6 http tls; do
	read -ra s <<<"$(svc_stats $svc)"
	check_eq "service $svc: bad_packet drops over the whole test" "${s[4]}" 0
done
check "klbctl flush" klbctl flush
