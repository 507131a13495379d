#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Existing connections vs. backends taken out of service. A connection is
# held open idle from the client (bash /dev/tcp) while the backend it landed
# on is changed; then a request is sent on it:
#   state drain     no new connections to it; the held one still answers
#   weight 0        same
#   state down      same
#   backend del     (expire_nodest_conn=0) same, and the connection stays
#   backend del     with net.klb.expire_nodest_conn=1: the connection is
#                   removed from the table at once and gets no answer
source "$(dirname "$0")/lib.sh"
klb_test_init "drain, weight 0, down and delete with live connections"

topo_setup
backends_start
klb_load
basic_service rr

# held_backend ID: the backend of the only ESTABLISHED conn of client port...
# simpler: the backend of the newest connection held open is the one whose
# active_conns is 1 (all others are idle).
active_backend() {
	pool_stat web active_conns | awk '$2 > 0 {print $1}'
}
total_of() { awk '{s+=$2} END {print s+0}' <<<"$1"; }

# scenario ID WHAT CMD...: hold a connection, apply CMD to its backend
# ({} = ADDR:PORT), 30 new requests must avoid it, the held one must answer.
scenario() {
	local id=$1 what=$2 b name r ans
	shift 2
	hold_open "$id" $VIP4 80
	poll_until 20 eval '[ -n "$(active_backend)" ]'
	b=$(active_backend)
	name=$(be_name "$b")
	[ -n "$b" ] || { fail "$what: the held connection is not counted active"; hold_release "$id" 1 >/dev/null; return; }
	diag "$what: held connection $id is on $name ($b)"
	"${@//\{\}/$b:80}" || fail "$what: command failed: ${*//\{\}/$b:80}"
	r=$(http_n 30 "http://$VIP4/" | tally)
	check_eq "$what: 30 new connections answered" "$(total_of "$r")" 30
	check_eq "$what: none of them to $name" "$(count_of "$name" "$r")" 0
	diag "$what: $(echo $r)"
	if [[ "$what" == *del* ]]; then
		check_eq "$what: the held connection is still counted (service active_conns)" \
			"$(svc_stat web active_conns)" 1
	else
		check_eq "$what: $name still has the held connection (active_conns)" \
			"$(pool_stat web active_conns | awk -v a="$b" '$1 == a {print $2}')" 1
	fi
	ans=$(hold_release "$id")
	check_eq "$what: the held connection still works (answer from $name)" "$ans" "$name"
	poll_until 20 eval '[ "$(svc_stat web active_conns)" = 0 ]' || diag "active_conns $(svc_stat web active_conns)"
}

scenario 1 "state drain" klbctl backend set web {} state drain
check_eq "drained backend shows state drain" \
	"$(klbctl -j pool show web | jq -r '.[0].backends[] | select(.state != "up") | .state')" drain
for i in 1 2 3; do klbctl backend set web "$(be4 $i):80" state up; done
r=$(http_n 30 "http://$VIP4/" | tally)
check_eq "all up again: 10/10/10" "$(echo $r)" "be1 10 be2 10 be3 10"

scenario 2 "weight 0" klbctl backend set web {} weight 0
for i in 1 2 3; do klbctl backend set web "$(be4 $i):80" weight 1; done

scenario 3 "state down" klbctl backend set web {} state down
for i in 1 2 3; do klbctl backend set web "$(be4 $i):80" state up; done

check_eq "expire_nodest_conn defaults to 0" "$(lb sysctl -n net.klb.expire_nodest_conn)" 0
scenario 4 "backend del (expire_nodest_conn=0)" klbctl backend del web {}
# put the deleted backend back
for i in 1 2 3; do
	klbctl backend add web "$(be4 $i):80" 2>/dev/null
done
check_eq "3 backends again" "$(klbctl -j pool show web | jq -r '.[0].backends | length')" 3

# expire_nodest_conn=1: deleting the backend ends its connections at once
check "sysctl net.klb.expire_nodest_conn=1" lb sysctl -qw net.klb.expire_nodest_conn=1
hold_open 5 $VIP4 80
poll_until 20 eval '[ -n "$(active_backend)" ]'
b=$(active_backend)
name=$(be_name "$b")
cport=$(klbctl -j conn show | jq -r --arg b "$b" '[.[] | select(.backend == $b and .state == "established")][0].client_port')
diag "expire_nodest_conn=1: held connection on $name ($b), client port $cport"
check "backend del $b:80" klbctl backend del web "$b:80"
gone() { [ "$(klbctl -j conn show | jq -r --argjson p "$cport" '[.[] | select(.client_port == $p)] | length')" = 0 ]; }
if poll_until 5 gone; then
	ok "expire_nodest_conn=1: the connection left the table at once"
else
	fail "expire_nodest_conn=1: the connection left the table at once"
	diag "$(klbctl conn show)"
fi
ans=$(hold_release 5 5)
check_eq "expire_nodest_conn=1: the held connection gets no answer" "$ans" ""
check_eq "service active_conns 0" "$(svc_stat web active_conns)" 0
r=$(http_n 20 "http://$VIP4/" | tally)
check_eq "remaining backends serve: 20 answered, none from $name" \
	"$(total_of "$r") $(count_of "$name" "$r")" "20 0"
