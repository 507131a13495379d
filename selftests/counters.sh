#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# klb's counters agree with what really crossed the wire. Reference counts
# come from nft counters (L3 packets and bytes, exactly what klb should
# count) in the client namespace and in each backend namespace:
#   client:  tcp to VIP4:80 (out), tcp from VIP4:80 (in)
#   beN:     tcp to :80 from the client (in), tcp from :80 to the client (out)
# After K requests (one connection each):
#   service conns == K, sum of backend conns == K, rr -> K/3 each
#   service pkts_in/bytes_in == client's packets to the VIP == sum at backends
#   service pkts_out/bytes_out == client's packets from the VIP == sum at backends
#   per backend: its counters == its nft counters
#   active_conns back to 0 once the connections are closed; no drops
#   with short timeouts, the connection table empties (garbage collection)
source "$(dirname "$0")/lib.sh"
klb_test_init "counters agree with the traffic"
command -v nft >/dev/null || skip_all "nft not installed"

topo_setup
backends_start
mkbig 100k 100000
klb_load
basic_service rr

lb sysctl -qw net.klb.tcp_timeout_time_wait=3 || fail "sysctl tcp_timeout_time_wait"
lb sysctl -qw net.klb.tcp_timeout_fin=3
lb sysctl -qw net.klb.tcp_timeout_close=3

cli nft -f - <<EOF || bail "nft in client"
table ip klbtest {
	chain out { type filter hook output priority 0; ip daddr $VIP4 tcp dport 80 counter; }
	chain in { type filter hook input priority 0; ip saddr $VIP4 tcp sport 80 counter; }
}
EOF
for i in 1 2 3; do
	be $i nft -f - <<EOF || bail "nft in be$i"
table ip klbtest {
	chain in { type filter hook input priority 0; ip saddr $CLI4 tcp dport 80 counter; }
	chain out { type filter hook output priority 0; ip daddr $CLI4 tcp sport 80 counter; }
}
EOF
done
# nft_ctr HELPER... CHAIN: "packets bytes" of the counter in CHAIN
nft_ctr() {
	local chain=${*: -1}
	"${@:1:$#-1}" nft list chain ip klbtest "$chain" |
		awk '/counter/ {for (i=1;i<=NF;i++) {if ($i=="packets") p=$(i+1); if ($i=="bytes") b=$(i+1)}} END {print p+0, b+0}'
}

for k in conns active_conns pkts_in pkts_out bytes_in bytes_out drops.no_backend drops.table_full drops.bad_packet; do
	[ "$(svc_stat web $k)" = 0 ] || fail "service counter $k is $(svc_stat web $k) before any traffic"
done
ok "service counters all 0 before traffic"

K=12
r=$(http_n $K "http://$VIP4/" | tally)
check_eq "$K requests answered, rr 4/4/4" "$(echo $r)" "be1 4 be2 4 be3 4"
big=$(cli curl -s --max-time 20 -o /dev/null -w '%{size_download}' "http://$VIP4/big/100k")
check_eq "a 100000-byte download through the VIP" "$big" 100000
K=$((K + 1))

check_eq "service conns == $K" "$(svc_stat web conns)" $K
sum=$(pool_stat web conns | awk '{s+=$2} END {print s+0}')
check_eq "sum of backend conns == $K" "$sum" $K
if poll_until 30 eval '[ "$(svc_stat web active_conns)" = 0 ]'; then
	ok "service active_conns back to 0 after the connections closed"
else
	fail "service active_conns back to 0 after the connections closed"
	diag "active_conns $(svc_stat web active_conns); connections:"
	diag "$(klbctl conn show)"
fi
check_eq "backend active_conns all 0" "$(pool_stat web active_conns | awk '{print $2}' | sort -u)" 0

read -r cp_out cb_out < <(nft_ctr cli out)
read -r cp_in cb_in < <(nft_ctr cli in)
diag "client nft: to VIP $cp_out pkts $cb_out bytes, from VIP $cp_in pkts $cb_in bytes"
check_eq "service pkts_in == packets the client sent to the VIP" "$(svc_stat web pkts_in)" "$cp_out"
check_eq "service bytes_in == L3 bytes the client sent to the VIP" "$(svc_stat web bytes_in)" "$cb_out"
check_eq "service pkts_out == packets the client got from the VIP" "$(svc_stat web pkts_out)" "$cp_in"
check_eq "service bytes_out == L3 bytes the client got from the VIP" "$(svc_stat web bytes_out)" "$cb_in"

sp_in=0 sb_in=0 sp_out=0 sb_out=0
pools=$(klbctl -j -s pool show)
for i in 1 2 3; do
	read -r p_in b_in < <(nft_ctr be $i in)
	read -r p_out b_out < <(nft_ctr be $i out)
	sp_in=$((sp_in + p_in)) sb_in=$((sb_in + b_in)) sp_out=$((sp_out + p_out)) sb_out=$((sb_out + b_out))
	got=$(jq -r --arg a "$(be4 $i)" '.[] | select(.name == "web") | .backends[] | select(.addr == $a) |
		"\(.stats.pkts_in) \(.stats.bytes_in) \(.stats.pkts_out) \(.stats.bytes_out)"' <<<"$pools")
	check_eq "be$i counters (pkts_in bytes_in pkts_out bytes_out) == its nft counters" "$got" "$p_in $b_in $p_out $b_out"
done
check_eq "backends received what the client sent (pkts bytes)" "$sp_in $sb_in" "$cp_out $cb_out"
check_eq "client received what the backends sent (pkts bytes)" "$cp_in $cb_in" "$sp_out $sb_out"
for k in no_backend table_full bad_packet; do
	check_eq "no drops ($k)" "$(svc_stat web drops.$k)" 0
done

# no backend: a drop counted, the client fails fast or times out
for i in 1 2 3; do klbctl backend set web "$(be4 $i):80" state down; done
cli curl -s --max-time 3 -o /dev/null "http://$VIP4/"
check_range "drops.no_backend counted with every backend down" "$(svc_stat web drops.no_backend)" 1 100
for i in 1 2 3; do klbctl backend set web "$(be4 $i):80" state up; done

# garbage collection: with 3 s timeouts, every entry goes away
if poll_until 60 eval '[ "$(conn_count)" = 0 ]'; then
	ok "connection table empty after the timeouts (gc)"
else
	fail "connection table empty after the timeouts (gc)"
	diag "$(klbctl conn show | head -20)"
fi
check "klbctl flush" klbctl flush
check_eq "nothing left after flush (save is empty)" "$(klbctl save | grep -cvE '^(#|$|hash-seed set )')" 0
