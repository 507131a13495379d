#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# save / flush / restore:
#   - a configuration with every scheduler, weights, states, v4 and v6, tcp
#     and udp saves, flushes to nothing, restores byte-identical
#   - restore replaces the whole configuration (objects not in the file go)
#   - restore of a broken file changes nothing:
#       syntax error on a line          -> exit 1, message names the line
#       service referencing a missing pool, duplicate backend, duplicate
#       pool, mixed families, bad weight -> exit 2 ("Error: ...")
#   - traffic keeps flowing through a service across a restore of itself
source "$(dirname "$0")/lib.sh"
klb_test_init "save, flush, restore: round trip and all-or-nothing"

topo_setup
backends_start
klb_load

scheds="rr wrr lc wlc sh mh p2c"
n=0
for s in $scheds; do
	n=$((n + 1))
	klbctl pool add "p_$s" sched $s || fail "pool add p_$s"
	klbctl backend add "p_$s" "10.0.1.1$((n % 3 + 1)):80" weight $n || fail "backend add p_$s"
	klbctl backend add "p_$s" "10.0.1.$((50 + n)):8080" weight $((n * 1000)) state drain || fail "backend add 2 p_$s"
done
klbctl pool add v6 sched mh &&
	klbctl backend add v6 "[fd01::11]:80" weight 7 &&
	klbctl backend add v6 "[fd01::12]:80" weight 0 state down &&
	klbctl pool add empty.pool-1 &&
	klbctl service add web vip $VIP4:80 proto tcp mode nat pool p_rr &&
	klbctl service add dns vip $VIP4:53 proto udp mode nat pool p_wrr &&
	klbctl service add web6 vip "[$VIP6]:443" proto tcp mode nat pool v6 ||
	fail "building the configuration"
# p_rr's backends: make every backend of the rr pool a real one
klbctl backend del p_rr "10.0.1.51:8080"
klbctl backend add p_rr "$(be4 1):80"
klbctl backend add p_rr "$(be4 3):80"

klbctl save >"$TMPD/a.conf"
check_range "save prints the configuration" "$(grep -c . "$TMPD/a.conf")" 20 100
diag "$(cat "$TMPD/a.conf")"
check "flush" klbctl flush
check_eq "nothing left after flush" "$(klbctl save | grep -cvE '^(#|$|hash-seed set )')" 0
check "restore -f" klbctl restore -f "$TMPD/a.conf"
klbctl save >"$TMPD/b.conf"
check "save after restore is byte-identical" cmp "$TMPD/a.conf" "$TMPD/b.conf"
check "restore again from stdin (replace with itself)" sh -c "ip netns exec $NS_LB $KLBCTL restore <$TMPD/a.conf"
klbctl save >"$TMPD/c.conf"
check "still byte-identical" cmp "$TMPD/a.conf" "$TMPD/c.conf"

r=$(http_n 9 "http://$VIP4/" | tally)
check_eq "restored service web balances (rr over be1..be3)" "$(echo $r)" "be1 3 be2 3 be3 3"

# restore replaces: a smaller file removes what it does not mention
printf 'pool add only sched rr\nbackend add only %s:80 weight 1\nservice add web vip %s:80 proto tcp mode nat pool only\n' \
	"$(be4 2)" $VIP4 >"$TMPD/small.conf"
check "restore a smaller configuration" klbctl restore -f "$TMPD/small.conf"
check_eq "only what the file holds is left" "$(klbctl save | grep -cvE '^(#|$|hash-seed set )')" 3
r=$(http_n 4 "http://$VIP4/" | tally)
check_eq "service web now goes to be2 only" "$(echo $r)" "be2 4"
check "restore the big one again" klbctl restore -f "$TMPD/a.conf"
check "byte-identical" cmp "$TMPD/a.conf" <(klbctl save)

# broken files: nothing changes
# bad_file DESC WANT_RC CONTENT
bad_file() {
	local desc=$1 want=$2 rc out
	printf '%s\n' "$3" >"$TMPD/bad.conf"
	out=$(klbctl restore -f "$TMPD/bad.conf" 2>&1)
	rc=$?
	klbctl save >"$TMPD/after.conf"
	if [[ "$rc" =~ ^($want)$ ]] && cmp -s "$TMPD/a.conf" "$TMPD/after.conf"; then
		ok "broken file, $desc: exit $rc, nothing changed (${out%%$'\n'*})"
	else
		fail "broken file, $desc"
		diag "exit $rc (want $want): $out"
		cmp -s "$TMPD/a.conf" "$TMPD/after.conf" || diag "changed: $(diff "$TMPD/a.conf" "$TMPD/after.conf")"
		klbctl restore -f "$TMPD/a.conf"
	fi
	if [ "$want" = 2 ] && [[ "$out" != *Error:* ]]; then
		fail "broken file, $desc: message has 'Error: '"
	fi
	if [ "$want" != 2 ] && ! grep -q 'line 3\|:3' <<<"$out"; then
		fail "broken file, $desc: message names line 3"
		diag "$out"
	fi
}
good="pool add x1 sched rr
backend add x1 $(be4 1):80 weight 1"
bad_file "syntax error on line 3" 1 "$good
pool frobnicate x2"
bad_file "unknown word on line 3" 1 "$good
backend add x1 $(be4 2):80 weight"
bad_file "bad scheduler on line 3" "1|2" "$good
pool add x2 sched nope"
bad_file "service referencing a missing pool" 2 "$good
service add s1 vip 10.0.100.7:80 proto tcp mode nat pool missing"
bad_file "duplicate backend" 2 "$good
backend add x1 $(be4 1):80 weight 3"
bad_file "duplicate pool" 2 "$good
pool add x1 sched wrr"
bad_file "duplicate service VIP" 2 "$good
service add s1 vip 10.0.100.7:80 proto tcp mode nat pool x1
service add s2 vip 10.0.100.7:80 proto tcp mode nat pool x1"
bad_file "mixed families (v6 backend in the pool of a v4 service)" 2 "$good
backend add x1 [fd01::11]:80 weight 1
service add s1 vip 10.0.100.7:80 proto tcp mode nat pool x1"
bad_file "v6 service on a v4 pool" 2 "$good
service add s1 vip [fd00:100::7]:80 proto tcp mode nat pool x1"
r=$(http_n 6 "http://$VIP4/" | tally)
check_eq "service web still balances after the refused restores" "$(echo $r)" "be1 2 be2 2 be3 2"

# restore under traffic: the service keeps answering
(for i in 1 2 3 4 5; do klbctl restore -f "$TMPD/a.conf" || echo "restore failed"; done) >"$TMPD/loop.out" 2>&1 &
lp=$!
r=$(http_n 30 "http://$VIP4/" | tally)
wait $lp
check_eq "no restore failed under traffic" "$(grep -c failed "$TMPD/loop.out")" 0
check_eq "30 requests answered while restoring" "$(awk '{s+=$2} END {print s+0}' <<<"$r")" 30
check "flush" klbctl flush
