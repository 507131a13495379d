#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The basic TCP service works with and without nf_conntrack: klb does its own
# NAT and must not depend on (nor be confused by) conntrack.
#   phase 1: nf_conntrack not loaded (if it can be unloaded), 30 requests
#   phase 2: nf_conntrack loaded but unused, 30 requests
#   phase 3: nft ct rules in the balancer: conntrack tracks the flows too
#   phase 4: klb unloaded and loaded again while conntrack is active
source "$(dirname "$0")/lib.sh"
klb_test_init "NAT through klb with and without nf_conntrack"

# nf_conntrack may have been loaded by an earlier test: try to remove it.
if grep -q '^nf_conntrack ' /proc/modules; then
	modprobe -r nf_conntrack_netlink nf_nat nf_conntrack 2>/dev/null
fi
topo_setup
backends_start

round() {
	local what=$1 r total
	r=$(http_n 30 "http://$VIP4/" | tally)
	total=$(awk '{s+=$2} END {print s+0}' <<<"$r")
	check_eq "$what: 30 requests through $VIP4 answered" "$total" 30
	check_eq "$what: rr spread 10/10/10" "$(echo $r)" "be1 10 be2 10 be3 10"
}

klb_load
basic_service rr
if grep -q '^nf_conntrack ' /proc/modules; then
	skip "without nf_conntrack" "nf_conntrack is in use and cannot be unloaded"
else
	ok "nf_conntrack not loaded"
	round "without conntrack"
fi

check "modprobe nf_conntrack" modprobe nf_conntrack
round "nf_conntrack loaded, no user"

# Make conntrack really track in the balancer netns: an nft rule matching on
# ct state registers the conntrack hooks there.
if ! command -v nft >/dev/null; then
	skip "conntrack tracking in the balancer" "nft not installed"
elif lb nft -f - <<-EOF
		table inet klbtest {
			chain ctfwd {
				type filter hook forward priority 0; policy accept;
				ct state new counter
				ct state established counter
				ct state invalid counter
			}
		}
	EOF
then
	round "conntrack tracking in the balancer (nft ct rules)"
	diag "$(lb nft list chain inet klbtest ctfwd | grep counter)"
	new=$(lb nft list chain inet klbtest ctfwd | awk '/ct state new/ {for (i=1;i<=NF;i++) if ($i=="packets") print $(i+1)}')
	check_range "conntrack saw the forwarded flows (ct state new packets)" "$new" 1 1000000
else
	fail "nft ct rules in the balancer"
fi

check "klbctl flush" klbctl flush
check "rmmod klb with conntrack loaded" klb_unload
klb_load
basic_service rr
round "klb loaded after conntrack"
