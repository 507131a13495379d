#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Netlink fuzz: selftests/klb_nlfuzz sends COUNT (default 20000; 100000
# under make vmtest-debug) random and mutated klb requests from
# KLB_FUZZ_PROCS (4) processes at once: every command, wrong types and
# lengths, bad nests, shuffled attributes, huge lists, dumps abandoned
# half-read, all while the other processes change the same objects. Then:
#   - every request was answered (none hung), the family is still there
#   - some requests were accepted and some refused (the generator reaches
#     past the policy checks and is not all garbage)
#   - klb still works: pool/service show, -j output parses
#   - `klbctl save` succeeds and its output restores into a fresh netns,
#     where it saves byte-identical
#   - flush empties both; rmmod is clean, nothing leaked (lib.sh teardown)
# SEED (default random, printed) reproduces a run.
source "$(dirname "$0")/lib.sh"
klb_test_init "netlink fuzz: random and mutated requests from several processes"

FUZZ=$SELFTESTS/klb_nlfuzz
[ -x "$FUZZ" ] || skip_all "$FUZZ not built (make)"
COUNT=${COUNT:-20000}
PROCS=${KLB_FUZZ_PROCS:-4}
SEED=${SEED:-$((RANDOM * 32768 + RANDOM))}
NS_FZ2=klb-fz2-$KLB_SUF

klb_load
ns_add "$NS_LB"
ns_add "$NS_FZ2"

# Something for the fuzzer to change and dump from the start.
klbctl pool add web sched wrr &&
	klbctl backend add web 10.9.0.1:80 weight 2 &&
	klbctl backend add web 10.9.0.2:80 state drain &&
	klbctl service add web vip 10.9.0.100:80 proto tcp mode nat pool web ||
	bail "initial configuration"

diag "klb_nlfuzz -n $COUNT -p $PROCS -s $SEED"
t0=$SECONDS
out=$(ip netns exec "$NS_LB" "$FUZZ" -n "$COUNT" -p "$PROCS" -s "$SEED" -t 60 2>&1)
rc=$?
diag "$out"
diag "fuzz took $((SECONDS - t0))s"
check_eq "every request answered, the family still there (exit status)" "$rc" 0
total=$(grep '^total ' <<<"$out")
field() { awk -v k="$1" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}' <<<"$total"; }
check_range "requests sent" "$(field sent)" $((COUNT * 9 / 10)) "$COUNT"
# ~0.7% got through in the first run (139 of 20000): most mutations break
# a request, as they should; this only proves valid ones are still made
check_range "some requests accepted" "$(field ok)" $((COUNT / 400)) "$COUNT"
check_range "some requests refused" "$(field refused)" $((COUNT / 10)) "$COUNT"
check_range "dumps done" "$(field dumps)" $((COUNT / 50)) "$COUNT"
check_eq "no request unanswered" "$(field timeouts)" 0

check "pool show still works" klbctl pool show
check "service show still works" klbctl service show
check "stats still works" klbctl stats
check "pool show -j parses" sh -c "ip netns exec $NS_LB $KLBCTL -j pool show | jq -e . >/dev/null"
check "service show -j parses" sh -c "ip netns exec $NS_LB $KLBCTL -j service show | jq -e . >/dev/null"

if klbctl save >"$TMPD/a.conf" 2>"$TMPD/save.err"; then
	ok "save after the fuzz"
else
	fail "save after the fuzz"
	diag "$(cat "$TMPD/save.err")"
fi
diag "saved: $(grep -c '^pool add' "$TMPD/a.conf") pools, $(grep -c '^backend add' "$TMPD/a.conf") backends, $(grep -c '^service add' "$TMPD/a.conf") services, $(grep -c '^rule add' "$TMPD/a.conf") rules"
if out=$(ip netns exec "$NS_FZ2" "$KLBCTL" restore -f "$TMPD/a.conf" 2>&1); then
	ok "the save restores into a fresh netns"
else
	fail "the save restores into a fresh netns"
	diag "$out"
	diag "$(head -50 "$TMPD/a.conf")"
fi
ip netns exec "$NS_FZ2" "$KLBCTL" save >"$TMPD/b.conf"
check "and saves byte-identical there" cmp "$TMPD/a.conf" "$TMPD/b.conf"

check "flush" klbctl flush
check "flush the copy" ip netns exec "$NS_FZ2" "$KLBCTL" flush
check_eq "nothing left" "$(klbctl save | grep -cvE '^(#|$|hash-seed set )')" 0
