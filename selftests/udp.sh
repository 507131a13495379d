#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A UDP service (VIP4:5353/udp, rr) in front of a real UDP server in each
# backend (klb_udp.py answering "beN"). The client uses connected sockets
# (socat) so an answer is only received if it comes back from the VIP.
#   - 30 datagrams, each from a new source port: 10/10/10, all answered
#   - 10 datagrams from one socket: one flow, one backend
#   - counters: conns == flows, pkts_in == pkts_out == datagrams,
#     bytes == L3 bytes; the flows show as udp in `klbctl conn show`
#   - the same over IPv6 (fd00:100::1)
#   - with net.klb.udp_timeout=2, flows expire and leave the table
source "$(dirname "$0")/lib.sh"
klb_test_init "UDP service with a real UDP server"

topo_setup
udp_start 1 2 3
klb_load
check "pool add u sched rr" klbctl pool add u sched rr
check "pool add u6 sched rr" klbctl pool add u6 sched rr
for i in 1 2 3; do
	check "backend add u $(be4 $i):$UDP_PORT" klbctl backend add u "$(be4 $i):$UDP_PORT"
	check "backend add u6 [$(be6 $i)]:$UDP_PORT" klbctl backend add u6 "[$(be6 $i)]:$UDP_PORT"
done
check "service add u (udp)" klbctl service add u vip $VIP4:$UDP_PORT proto udp mode nat pool u
check "service add u6 (udp, v6)" klbctl service add u6 vip "[$VIP6]:$UDP_PORT" proto udp mode nat pool u6
check_eq "service u shows proto udp" "$(klbctl -j service show u | jq -r '.[0].proto')" udp

# N datagrams, each from a new socket and its own source port (BASE + i,
# below the ephemeral range: two random ports that collide would be one
# flow, not two), 1-byte payload; "beN" per answer
udp_n() {
	local n=$1 addr=$2 base=$3 i
	for ((i = 0; i < n; i++)); do
		echo x | cli socat -T2 - "UDP:$addr:$UDP_PORT,sourceport=$((base + i))" 2>/dev/null
	done
}

r=$(udp_n 30 $VIP4 20000 | tally)
check_eq "v4: 30 flows answered from the VIP, rr 10/10/10" "$(echo $r)" "be1 10 be2 10 be3 10"
r=$(cli "$PY" "$SELFTESTS/klb_udp.py" query --addr $VIP4 --port $UDP_PORT --count 10 --same-socket)
check_eq "v4: 10 datagrams of one flow all answered" "$(grep -c . <<<"$r")" 10
check_eq "v4: one flow stays on one backend" "$(awk '{print $1}' <<<"$r" | sort -u | wc -l)" 1
check_eq "v4: answers come from the VIP" "$(awk '{print $2}' <<<"$r" | sort -u)" "$VIP4"

check_eq "v4 counters: conns == 31 flows" "$(svc_stat u conns)" 31
check_eq "v4 counters: pkts_in == 40 datagrams" "$(svc_stat u pkts_in)" 40
check_eq "v4 counters: pkts_out == 40 answers" "$(svc_stat u pkts_out)" 40
# L3 bytes: IPv4 20 + UDP 8 + payload ("x\n" from socat = 2, "x" from python = 1;
# answers "beN\n" = 4)
check_eq "v4 counters: bytes_in == 30*(28+2) + 10*(28+1)" "$(svc_stat u bytes_in)" $((30 * 30 + 10 * 29))
check_eq "v4 counters: bytes_out == 40*(28+4)" "$(svc_stat u bytes_out)" $((40 * 32))
sum=$(pool_stat u conns | awk '{s+=$2} END {print s+0}')
check_eq "v4 counters: sum of backend conns == service conns" "$sum" 31
check_eq "udp flows listed as udp in conn show" \
	"$(klbctl -j conn show service u | jq -r '[.[] | select(.proto == "udp")] | length')" 31

r=$(udp_n 15 "[$VIP6]" 20100 | tally)
check_eq "v6: 15 flows answered from the VIP, rr 5/5/5" "$(echo $r)" "be1 5 be2 5 be3 5"
check_eq "v6 counters: bytes_in == 15*(40+8+2)" "$(svc_stat u6 bytes_in)" $((15 * 50))
check_eq "v6 counters: bytes_out == 15*(40+8+4)" "$(svc_stat u6 bytes_out)" $((15 * 52))

# flows created after udp_timeout=UT (from the second client address) expire;
# UT is 4 s stretched by KLB_TIME_SCALE (lib.sh): the table is read by a new
# process after the client's, seconds later on the debug kernel
UT=$(tscale 4)
check "sysctl net.klb.udp_timeout=$UT" lb sysctl -qw net.klb.udp_timeout=$UT
out=$(cli "$PY" "$SELFTESTS/klb_udp.py" query --addr $VIP4 --port $UDP_PORT --count 3 --bind $CLI4B)
check_eq "3 flows from $CLI4B answered" "$(grep -c '^be' <<<"$out")" 3
nb() { klbctl -j conn show service u | jq -r --arg c "$CLI4B" '[.[] | select(.client == $c)] | length'; }
n=$(nb)
check_range "flows from $CLI4B in the table (expires <= $UT s)" "$n" 1 3
diag "$(klbctl conn show service u | grep "$CLI4B")"
if poll_until 40 eval '[ "$(nb)" = 0 ]'; then
	ok "udp flows expire after udp_timeout=$UT"
else
	fail "udp flows expire after udp_timeout=$UT"
	diag "$(klbctl conn show service u | grep "$CLI4B" | head)"
fi
