#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The DEBUG build of klb (make DEBUG=1, built by `make vmtest` as
# out/debug/klb.ko and run from here as klb-debug.ko):
#   - its load-time self-tests run before anything is registered, say so,
#     and a failing one fails the load (the selftest_fail_inject parameter
#     makes one fail) and leaves nothing behind;
#   - with the lock checks that fire without lockdep, a whole life of
#     configuration and traffic runs clean: config changes, restore, L7
#     service, rules, flush, unload (run_all.sh fails the test on any WARN);
#   - a pool set that fails at its table build (fail_table_build injects
#     it) leaves the configuration and the backends' health as they were;
#   - the unload's leak check fires on a leak (leak_inject counts one
#     connection that was never made; the test expects that one WARN).
KLB_KO=${KLB_DEBUG_KO:-${KLB_SRC:-$(cd "$(dirname "$0")/.." && pwd)}/klb-debug.ko}
source "$(dirname "$0")/lib.sh"
klb_test_init "DEBUG build: self-tests at load, lock checks that fire"

since_marker() { dmesg | sed -n "/$_marker/,\$p"; }

for d in $(modinfo -F depends "$KLB_KO" 2>/dev/null | tr ',' ' '); do
	modprobe "$d" || diag "modprobe $d failed"
done
check_eq "klb-debug.ko is a DEBUG build" \
	"$(modinfo -F parm "$KLB_KO" | grep -c '^selftest_fail_inject:')" 1

# a failing self-test fails the load
if out=$(insmod "$KLB_KO" selftest_fail_inject=1 2>&1); then
	fail "insmod with a failing self-test is refused"
	rmmod klb
else
	ok "insmod with a failing self-test is refused: $out"
fi
check_eq "klb is not loaded after the failed load" "$(grep -c '^klb ' /proc/modules)" 0
check "the kernel log names the failing self-test" \
	grep -q 'klb: sched self-test rr: FAIL' <(since_marker)
check "the kernel log says the self-tests failed" \
	grep -q 'klb: sched self-tests: FAIL' <(since_marker)

# a good load runs them and says so
topo_setup
backends_start
klb_load
check "the kernel log says the self-tests passed" \
	grep -q 'klb: sched self-tests: pass' <(since_marker)
check "the load line says DEBUG build" \
	grep -q 'klb: version .* loaded (DEBUG build: self-tests passed)' <(since_marker)

# a life of configuration and traffic with the lock checks on
basic_service wrr
r=$(http_n 9 "http://$VIP4/" | tally)
check_eq "9 requests through nat, wrr 3/3/3" "$(echo $r)" "be1 3 be2 3 be3 3"
check "backend set weight" klbctl backend set web "$(be4 1):80" weight 3
check "pool set sched" klbctl pool set web sched mh
check "pool add api" klbctl pool add api
check "backend add api" klbctl backend add api "$(be4 2):80"
check "service add site (http)" klbctl service add site vip $VIP4:8080 proto tcp mode http pool web
check "rule add site" klbctl rule add site path /api/ pool api
check "service set site proxy-protocol v2" klbctl service set site proxy-protocol v2
check "service set site proxy-protocol none" klbctl service set site proxy-protocol none
check "rule del site 0" klbctl rule del site 0
saved=$(klbctl save)
check "restore of the saved configuration" klbctl restore <<<"$saved"
check_eq "save after restore is the same" "$(klbctl save)" "$saved"
r=$(http_n 3 "http://$VIP4/" | tally | wc -l)
check_range "requests still answered after restore (backends seen)" "$r" 1 3
check "-j -s service show" bash -c "ip netns exec $NS_LB $KLBCTL -j -s service show >/dev/null"
check "conn show" bash -c "ip netns exec $NS_LB $KLBCTL conn show >/dev/null"

# A pool set refused at its last step that can fail (the table build:
# ENOMEM, injected here by fail_table_build) changes nothing: not the
# check, not passive health, not the backends' health (a new check would
# have reset it), and save is byte-identical; the same set then succeeds.
FTB=/sys/module/klb/parameters/fail_table_build
pf_healths() { klbctl -j pool show pf | jq -r '[.[0].backends[].health] | join(" ")'; }
check "pool add pf" klbctl pool add pf
check "backend add pf be1" klbctl backend add pf "$(be4 1):80"
check "backend add pf be2" klbctl backend add pf "$(be4 2):80"
check "pool set pf check tcp" klbctl pool set pf check tcp interval 1s timeout 1s rise 1 fall 1
poll_until 30 sh -c "[ \"\$(ip netns exec $NS_LB $KLBCTL -j pool show pf | jq -r '[.[0].backends[].health] | join(\" \")')\" = 'healthy healthy' ]"
check_eq "pf's backends pass the tcp check" "$(pf_healths)" "healthy healthy"
saved=$(klbctl save)
check "fail_table_build=1: the next table build fails" sh -c "echo 1 >$FTB"
if out=$(klbctl pool set pf passive-fall 3 check http path / expect 2xx interval 2s timeout 1s 2>&1); then
	fail "pool set check and passive-fall with a failing table build is refused"
else
	ok "pool set check and passive-fall with a failing table build is refused: $out"
fi
check "the refusal says the memory ran out" grep -qi "memory" <<<"$out"
check_eq "the injected failure was used" "$(cat $FTB)" 0
echo 0 >$FTB
check_eq "save after the refused set is byte-identical" "$(klbctl save)" "$saved"
check_eq "the backends' health is as it was (no reset by the refused check)" "$(pf_healths)" "healthy healthy"
check "the same set without the failure" klbctl pool set pf passive-fall 3 check http path / expect 2xx interval 2s timeout 1s
check "save now has the http check and passive-fall 3" sh -c \
	"ip netns exec $NS_LB $KLBCTL save | grep '^pool add pf' | grep -q 'check http' &&
	 ip netns exec $NS_LB $KLBCTL save | grep '^pool add pf' | grep -q 'passive-fall 3'"
check "pool del pf" sh -c "ip netns exec $NS_LB $KLBCTL backend del pf $(be4 1):80 &&
	ip netns exec $NS_LB $KLBCTL backend del pf $(be4 2):80 && ip netns exec $NS_LB $KLBCTL pool del pf"

check "backend del" klbctl backend del web "$(be4 3):80"
check "service del site" klbctl service del site
check "flush" klbctl flush
check "rmmod klb" klb_unload
_klb_loaded=0

# The unload's leak check fires: a load that counts one connection it never
# made (leak_inject) must make rmmod warn about exactly that one. The check
# WARNs, so expect_warning turns panic_on_warn off around the rmmod.
pow=$(sysctl -n kernel.panic_on_warn)
check "insmod leak_inject=1" insmod "$KLB_KO" leak_inject=1
expect_warning "$TMPD/leak.log" rmmod klb
check_eq "rmmod of the leaking load: klb is gone" "$(grep -c '^klb ' /proc/modules)" 0
check "the unload reported the one leaked connection" \
	grep -q 'klb: leaked 1 connection objects' "$TMPD/leak.log"
check_eq "and only that leak" "$(grep -c 'klb: leaked' "$TMPD/leak.log")" 1
check "as a kernel warning" grep -q 'WARNING:' "$TMPD/leak.log"
check_eq "panic_on_warn is back as it was" "$(sysctl -n kernel.panic_on_warn)" "$pow"
