#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# net.klb.* sysctls are per network namespace and validated:
#   - every documented knob exists in the initial netns and in new ones,
#     with the defaults (a new netns does not copy another's values)
#   - a value set in one netns does not change another
#   - out-of-range and malformed writes are refused, the value stays
#   - conn_max is enforced: with conn_max=3 and 3 connections held open, a
#     4th connection is refused and counted as drops.table_full
source "$(dirname "$0")/lib.sh"
klb_test_init "net.klb.* sysctls: per netns, validated, enforced"

knobs="conn_max tcp_timeout_syn tcp_timeout_established tcp_timeout_fin tcp_timeout_time_wait tcp_timeout_close udp_timeout expire_nodest_conn tcp_timeout_adopt adopt_max"
klb_load
topo_setup
backends_start
basic_service rr

# vals [HELPER]: every knob's value, in one process
vals() { "$@" sh -c 'for k in '"$knobs"'; do cat /proc/sys/net/klb/$k 2>/dev/null || echo missing; done' | tr '\n' ' '; }
init_vals=$(vals)
lb_vals=$(vals lb)
cli_vals=$(vals cli)
i=0
for k in $knobs; do
	i=$((i + 1))
	v=$(echo $init_vals | cut -d' ' -f$i)
	if [ "$v" != missing ] && [ "$(echo $lb_vals | cut -d' ' -f$i)" != missing ] &&
		[ "$(echo $cli_vals | cut -d' ' -f$i)" != missing ]; then
		ok "net.klb.$k exists in every netns ($v)"
	else
		fail "net.klb.$k exists in every netns"
	fi
done
check_eq "expire_nodest_conn defaults to 0" "$(lb sysctl -n net.klb.expire_nodest_conn)" 0
check_range "conn_max default is sane" "$(lb sysctl -n net.klb.conn_max)" 1024 1000000000

check "lb: sysctl -w conn_max=1000 udp_timeout=7 expire_nodest_conn=1" \
	lb sysctl -qw net.klb.conn_max=1000 net.klb.udp_timeout=7 net.klb.expire_nodest_conn=1
check_eq "lb: values set" "$(lb sysctl -n net.klb.conn_max net.klb.udp_timeout net.klb.expire_nodest_conn | tr '\n' ' ')" "1000 7 1 "
check_eq "client netns unchanged" "$(vals cli)" "$cli_vals"
check_eq "initial netns unchanged" "$(vals)" "$init_vals"
ns_add "klb-new-$KLB_SUF"
check_eq "a new netns starts from the defaults" \
	"$(vals ip netns exec "klb-new-$KLB_SUF")" "$init_vals"
ip netns del "klb-new-$KLB_SUF"

# refused KNOB VALUE: the write fails and the value stays
refused() {
	local before after
	before=$(lb cat /proc/sys/net/klb/$1)
	if lb sh -c "echo '$2' > /proc/sys/net/klb/$1" 2>/dev/null; then
		fail "net.klb.$1=$2 refused"
	else
		after=$(lb cat /proc/sys/net/klb/$1)
		check_eq "net.klb.$1=$2 refused, value stays $before" "$after" "$before"
	fi
}
refused conn_max 0
refused tcp_timeout_adopt 0
refused adopt_max -1
refused conn_max -1
refused conn_max 99999999999
refused conn_max abc
refused expire_nodest_conn 2
refused expire_nodest_conn -1
refused tcp_timeout_established 0
refused tcp_timeout_syn -5
refused udp_timeout 0
refused tcp_timeout_time_wait 999999999999
check "expire_nodest_conn back to 0" lb sysctl -qw net.klb.expire_nodest_conn=0

# conn_max enforced
check "conn_max=3" lb sysctl -qw net.klb.conn_max=3
check "tcp_timeout_time_wait=2 (closed entries go fast)" lb sysctl -qw net.klb.tcp_timeout_time_wait=2 \
	net.klb.tcp_timeout_fin=2 net.klb.tcp_timeout_close=2
poll_until 30 eval '[ "$(conn_count)" = 0 ]' || diag "table not empty: $(conn_count)"
for i in 1 2 3; do hold_open $i $VIP4 80; done
poll_until 10 eval '[ "$(conn_count)" = 3 ]'
check_eq "3 connections in the table" "$(conn_count)" 3
out=$(cli curl -s --max-time 3 "http://$VIP4/")
check_eq "a 4th connection is refused with conn_max=3" "$out" ""
check_range "drops.table_full counted" "$(svc_stat web drops.table_full)" 1 100
for i in 1 2 3; do
	check_eq "held connection $i still answers" "$(hold_release $i | grep -c '^be')" 1
done
check "conn_max=262144" lb sysctl -qw net.klb.conn_max=262144
poll_until 20 eval '[ "$(cli curl -s --max-time 3 "http://$VIP4/" | grep -c be)" = 1 ]'
check_eq "new connections accepted again" "$(cli curl -s --max-time 3 "http://$VIP4/" | grep -c be)" 1
