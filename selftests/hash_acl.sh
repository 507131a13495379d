#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The hash seed (net.klb.hash_seed, Documentation/sysctl.rst): two
# balancers given the same seed and pool send every flow to the same
# backend.
#   - two fresh namespaces get different random seeds (32 hex digits, 0600)
#   - two balancer namespaces (A, B; dummy links, nothing leaves them) with
#     the same mh pool, its backends added in opposite orders, and the same
#     seed (A through the sysctl, B through klbctl hash-seed set): 1000
#     spoofed SYNs (klb_synflood -S: the same sources and ports in both)
#     are scheduled alike, flow by flow (klbctl -j conn show tells where
#     each went); also with sh (same order); with different seeds most
#     flows land elsewhere
#   - hash src: 200 flows of one client go to one backend; hash 5tuple:
#     they spread over the backends, and A and B still agree
#   - klbctl save writes the seed, restore puts it back; bad seeds (sysctl,
#     klbctl, restore line, a restore the kernel refuses) change nothing
# Source allow/deny lists of a service (Documentation/security.md, "Source
# lists"), in the usual topology; the client has two addresses:
#   - nat: deny the second: the first gets answers, the second's SYNs are
#     dropped (curl times out) and counted in drops.acl; an allow list of
#     the first only does the same; allow none, deny none: both pass
#   - IPv6 (deny on add), http (403, counted) alike
#   - show -j and save carry the lists, restore puts them back
#   - bad prefixes, host bits, 65 prefixes: refused, configuration unchanged
source "$(dirname "$0")/lib.sh"
klb_test_init "hash seed: balancers with the same seed agree; source lists"

FLOOD=$SELFTESTS/klb_synflood
[ -x "$FLOOD" ] || skip_all "$FLOOD not built (make)"
klb_load

NS_A=klb-ha-$KLB_SUF
NS_B=klb-hb-$KLB_SUF
SEED1=0123456789abcdef0123456789ABCDEF
SEED1L=0123456789abcdef0123456789abcdef
SEED2=fedcba9876543210fedcba9876543210
ka() { ip netns exec "$NS_A" "$KLBCTL" "$@"; }
kb() { ip netns exec "$NS_B" "$KLBCTL" "$@"; }
seed_of() { ip netns exec "$1" cat /proc/sys/net/klb/hash_seed; }

for ns in "$NS_A" "$NS_B"; do
	ns_add "$ns"
	ip -n "$ns" -b - <<-EOF || bail "$ns setup"
		link add d0 type dummy
		addr add 10.0.1.1/24 dev d0
		link set d0 up
		route add 10.0.100.0/24 dev d0
	EOF
	# Embryonic entries live until the dumps below are done.
	ip netns exec "$ns" sysctl -qw net.klb.tcp_timeout_syn=600 ||
		bail "$ns tcp_timeout_syn"
done

sa=$(seed_of "$NS_A")
sb=$(seed_of "$NS_B")
check "a fresh seed is 32 hex digits ($sa)" grep -qxE '[0-9a-f]{32}' <<<"$sa"
check "two fresh namespaces have different seeds" test "$sa" != "$sb"
check_eq "the seed is root's only (mode)" \
	"$(ip netns exec "$NS_A" stat -c %a /proc/sys/net/klb/hash_seed)" 600

# Pool m (mh) in opposite orders, pool s (sh) in the same order.
for ns in A B; do
	k=ka
	order="1 2 3 4 5"
	[ $ns = B ] && k=kb order="5 4 3 2 1"
	check "$ns: pool add m sched mh" $k pool add m sched mh
	for i in $order; do
		$k backend add m 10.0.1.1$i:80 || fail "$ns: backend add m 10.0.1.1$i"
	done
	check "$ns: pool add s sched sh" $k pool add s sched sh
	for i in 1 2 3 4 5; do
		$k backend add s 10.0.1.1$i:80 || fail "$ns: backend add s 10.0.1.1$i"
	done
	check "$ns: service m" $k service add m vip 10.0.100.1:80 proto tcp mode nat pool m
	check "$ns: service s" $k service add s vip 10.0.100.2:80 proto tcp mode nat pool s
done
check "A: sysctl -w net.klb.hash_seed=$SEED1" \
	ip netns exec "$NS_A" sysctl -qw net.klb.hash_seed=$SEED1
check "B: klbctl hash-seed set $SEED1" kb hash-seed set $SEED1
check_eq "A reads the seed back (lower case)" "$(seed_of "$NS_A")" $SEED1L
check_eq "B: klbctl -j hash-seed show" "$(kb -j hash-seed show | jq -r .[0].hash_seed)" $SEED1L

# flows NS VIP PREFIX N GENSEED: N spoofed SYNs, then "client:port backend"
# of each flow from PREFIX (first two octets), sorted
flows() {
	local ns=$1 vip=$2 pfx=$3 n=$4 gs=$5 p2
	ip netns exec "$ns" "$FLOOD" -d "$vip" -p 80 -s "$pfx" -n "$n" -t 60 -S "$gs" >/dev/null ||
		fail "$ns: klb_synflood $pfx"
	p2=$(cut -d. -f1-2 <<<"$pfx").
	ip netns exec "$ns" "$KLBCTL" -j conn show |
		jq -r --arg p "$p2" '.[] | select(.client | startswith($p)) |
			"\(.client):\(.client_port) \(.backend)"' | sort -u
}
# compare NAME FILE_A FILE_B: sets SAME, NA (flows of A)
compare() {
	NA=$(grep -c . "$2")
	SAME=$(comm -12 "$2" "$3" | grep -c .)
	diag "$1: $NA flows in A, $(grep -c . "$3") in B, $SAME scheduled alike"
}

flows "$NS_A" 10.0.100.1 10.71.0.0/16 1000 71 >"$TMPD/m1.a"
flows "$NS_B" 10.0.100.1 10.71.0.0/16 1000 71 >"$TMPD/m1.b"
compare "mh, same seed" "$TMPD/m1.a" "$TMPD/m1.b"
check_range "mh, same seed: the flows made entries" "$NA" 990 1000
check_eq "mh, same seed: every flow to the same backend" "$SAME" "$NA"
check_range "mh: the flows use all 5 backends" \
	"$(awk '{print $2}' "$TMPD/m1.a" | sort -u | grep -c .)" 5 5

flows "$NS_A" 10.0.100.2 10.72.0.0/16 1000 72 >"$TMPD/s1.a"
flows "$NS_B" 10.0.100.2 10.72.0.0/16 1000 72 >"$TMPD/s1.b"
compare "sh, same seed" "$TMPD/s1.a" "$TMPD/s1.b"
check_range "sh, same seed: the flows made entries" "$NA" 990 1000
check_eq "sh, same seed: every flow to the same backend" "$SAME" "$NA"

check "B: hash-seed set $SEED2 (republishes)" kb hash-seed set $SEED2
flows "$NS_A" 10.0.100.1 10.73.0.0/16 1000 73 >"$TMPD/m2.a"
flows "$NS_B" 10.0.100.1 10.73.0.0/16 1000 73 >"$TMPD/m2.b"
compare "mh, different seeds" "$TMPD/m2.a" "$TMPD/m2.b"
# Five backends: about a fifth agree by chance.
check_range "mh, different seeds: most flows elsewhere (alike of $NA)" "$SAME" 0 $((NA * 2 / 5))
flows "$NS_A" 10.0.100.2 10.74.0.0/16 1000 74 >"$TMPD/s2.a"
flows "$NS_B" 10.0.100.2 10.74.0.0/16 1000 74 >"$TMPD/s2.b"
compare "sh, different seeds" "$TMPD/s2.a" "$TMPD/s2.b"
check_range "sh, different seeds: most flows elsewhere (alike of $NA)" "$SAME" 0 $((NA * 2 / 5))
check "B: the seed back to A's" kb hash-seed set $SEED1

# One client, many ports: src sticks, 5tuple spreads.
flows "$NS_A" 10.0.100.1 10.75.0.9/32 200 75 >"$TMPD/h1.a"
check_eq "hash src: 200 flows of one client on one backend" \
	"$(awk '{print $2}' "$TMPD/h1.a" | sort -u | grep -c .)" 1
check "A: pool set m hash 5tuple" ka pool set m hash 5tuple
check "B: pool set m hash 5tuple" kb pool set m hash 5tuple
check_eq "pool show -j: hash 5tuple" "$(ka -j pool show m | jq -r .[0].hash)" 5tuple
flows "$NS_A" 10.0.100.1 10.76.0.9/32 300 76 >"$TMPD/h2.a"
flows "$NS_B" 10.0.100.1 10.76.0.9/32 300 76 >"$TMPD/h2.b"
compare "mh 5tuple, one client" "$TMPD/h2.a" "$TMPD/h2.b"
check_range "hash 5tuple: one client's flows spread" \
	"$(awk '{print $2}' "$TMPD/h2.a" | sort -u | grep -c .)" 4 5
check_eq "hash 5tuple, same seed: every flow to the same backend" "$SAME" "$NA"

# save / restore
saved=$(ka save)
check "save writes the seed" grep -qx "hash-seed set $SEED1L" <<<"$saved"
check "save writes the pool's hash" grep -q "^pool add m sched mh hash 5tuple" <<<"$saved"
check "A: seed changed to $SEED2" ip netns exec "$NS_A" sysctl -qw net.klb.hash_seed=$SEED2
check "A: restore the saved file" ka restore <<<"$saved"
check_eq "restore put the seed back" "$(seed_of "$NS_A")" $SEED1L
check_eq "save | restore round-trips" "$(ka save)" "$saved"

# refused RUN... PATTERN: fails with a message matching PATTERN; seed and
# configuration of A unchanged
refused() {
	local desc=$1 pat=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && grep -qE "$pat" <<<"$out"; then
		ok "$desc: refused ($out)"
	else
		fail "$desc: rc $rc, message '$out' (want /$pat/)"
	fi
	check_eq "$desc: seed unchanged" "$(seed_of "$NS_A")" $SEED1L
	check_eq "$desc: configuration unchanged" "$(ka save)" "$saved"
}
refused "klbctl hash-seed set (31 digits)" "must be 32 hex digits" \
	ka hash-seed set 0123456789abcdef0123456789abcde
refused "klbctl hash-seed set (not hex)" "must be 32 hex digits" \
	ka hash-seed set 0123456789abcdef0123456789abcdeg
refused "sysctl hash_seed (33 digits)" "Invalid argument" \
	ip netns exec "$NS_A" sysctl -w net.klb.hash_seed=0123456789abcdef0123456789abcdef0
refused "sysctl hash_seed (0x prefix)" "Invalid argument" \
	ip netns exec "$NS_A" sysctl -w net.klb.hash_seed=0x23456789abcdef0123456789abcdef
refused "sysctl hash_seed (empty)" "Invalid argument|I/O error" \
	ip netns exec "$NS_A" sh -c 'echo > /proc/sys/net/klb/hash_seed'
refused "restore: a bad seed line" "must be 32 hex digits" \
	ka restore <<<"hash-seed set 1234
$saved"
refused "restore the kernel refuses: its seed is not applied" "pool nope" \
	ka restore <<<"hash-seed set $SEED2
$saved
service add x vip 10.0.100.9:80 proto tcp mode nat pool nope"


# ---- source allow/deny lists ---------------------------------------------------

topo_setup
backends_start
basic_service rr
check "pool add web6" klbctl pool add web6 sched rr
check "backend add web6" klbctl backend add web6 "[$(be6 1)]:80"
check "service add web6 ... deny $CLI6B (on add)" \
	klbctl service add web6 vip "[$VIP6]:80" proto tcp mode nat pool web6 deny $CLI6B
check "service add h (http) deny $CLI4B/32" \
	klbctl service add h vip $VIP4:8080 proto tcp mode http pool web deny $CLI4B/32

# get SRC URL: the status code curl got from source SRC ("000": none)
get() {
	cli curl -s -g -o /dev/null -w '%{http_code}' --connect-timeout 2 --max-time 4 \
		--interface "$1" "$2"
}
check "service set web deny $CLI4B" klbctl service set web deny $CLI4B
check_eq "nat, deny: $CLI4 answered" "$(get $CLI4 http://$VIP4/)" 200
check_eq "nat, deny: $CLI4B not answered (SYNs dropped)" "$(get $CLI4B http://$VIP4/)" 000
check_range "nat, deny: drops.acl counted the SYNs" "$(svc_stat web drops.acl)" 1 100
check "service set web deny none allow $CLI4/32,fd00::/64" \
	klbctl service set web deny none allow $CLI4/32,fd00::/64
check_eq "nat, allow: $CLI4 answered" "$(get $CLI4 http://$VIP4/)" 200
check_eq "nat, allow: $CLI4B not answered" "$(get $CLI4B http://$VIP4/)" 000
check "service set web allow none" klbctl service set web allow none
check_eq "no lists: $CLI4B answered again" "$(get $CLI4B http://$VIP4/)" 200
check "service set web allow 10.0.0.0/24 deny $CLI4B/32" \
	klbctl service set web allow 10.0.0.0/24 deny $CLI4B/32
check_eq "deny wins over allow: $CLI4B not answered" "$(get $CLI4B http://$VIP4/)" 000
check_eq "... $CLI4 answered" "$(get $CLI4 http://$VIP4/)" 200
check_eq "IPv6, deny: $CLI6 answered" "$(get $CLI6 "http://[$VIP6]/")" 200
check_eq "IPv6, deny: $CLI6B not answered" "$(get $CLI6B "http://[$VIP6]/")" 000
check_range "IPv6: drops.acl counted" "$(svc_stat web6 drops.acl)" 1 100
check_eq "http, deny: $CLI4 answered" "$(get $CLI4 http://$VIP4:8080/)" 200
check_eq "http, deny: $CLI4B gets 403" "$(get $CLI4B http://$VIP4:8080/)" 403
check_eq "http: drops.acl counted the 403" "$(svc_stat h drops.acl)" 1

js=$(klbctl -j service show web)
check_eq "show -j: allow" "$(jq -c .[0].allow <<<"$js")" '["10.0.0.0/24"]'
check_eq "show -j: deny" "$(jq -c .[0].deny <<<"$js")" '["10.0.0.3/32"]'
check_eq "show -j: IPv6 deny" "$(klbctl -j service show web6 | jq -c .[0].deny)" '["fd00::3/128"]'
saved=$(klbctl save)
check "save: the lists" grep -q "^service add web .* allow 10.0.0.0/24 deny 10.0.0.3/32" <<<"$saved"
check "restore" klbctl restore <<<"$saved"
check_eq "save | restore round-trips the lists" "$(klbctl save)" "$saved"
check_eq "after restore: $CLI4B still refused" "$(get $CLI4B http://$VIP4/)" 000

# acl_refused DESC PATTERN WORDS...: `klbctl service set web WORDS` fails
# with a message matching PATTERN; the configuration is unchanged
acl_refused() {
	local desc=$1 pat=$2 out rc
	shift 2
	out=$(klbctl service set web "$@" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && grep -qE "$pat" <<<"$out"; then
		ok "$desc: refused ($out)"
	else
		fail "$desc: rc $rc, message '$out' (want /$pat/)"
	fi
	check_eq "$desc: configuration unchanged" "$(klbctl save)" "$saved"
}
acl_refused "prefix length 33" "length 0..32" allow 10.0.0.0/33
acl_refused "not an address" "invalid deny prefix" deny nope/8
acl_refused "host bits set (the kernel)" "host bits set" allow 10.0.0.1/8
acl_refused "empty list" "empty deny list" deny ,
many=$(for i in $(seq 1 65); do printf '10.9.%d.0/24,' "$i"; done)
acl_refused "65 prefixes" "too many allow prefixes \(max 64\)" allow "${many%,}"
many=$(for i in $(seq 1 63); do printf '10.9.%d.0/24,' "$i"; done)
check "64 prefixes are fine" klbctl service set web allow "${many%,}",$CLI4/32
check_eq "... and $CLI4 still answered" "$(get $CLI4 http://$VIP4/)" 200
