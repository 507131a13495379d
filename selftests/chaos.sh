#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Chaos (issue 18): while a client downloads a random file through a nat
# and an http service (sha256 checked on every answer) and a second loop
# keeps changing the configuration (weights, scheduler, a service added
# and deleted, a save), these happen one after another:
#   - a backend's nginx is killed, then started again
#   - a backend's link flaps (down 2 s, up)
#   - a backend's namespace is deleted (its veth goes with it)
#   - a second balancer namespace with its own klb configuration, health
#     probes and a client loop in it is deleted
#   - klb is removed
# After each event traffic must come back; no answer may ever carry wrong
# data; rmmod must finish in bounded time, and the teardown checks the
# kernel log and the live-object counts as in every test.
source "$(dirname "$0")/lib.sh"
klb_test_init "backends killed, links flapping, netns deleted, rmmod: under traffic and config changes"

topo_setup 4
backends_start
B4=$(be4 4)
F=chaos.bin
sum=$(randfile "$TMPD/be1/www/big/$F" 256)
for i in 2 3 4; do cp "$TMPD/be1/www/big/$F" "$TMPD/be$i/www/big/$F"; done
klb_load

cfg pool add p sched wrr check tcp interval 1s timeout 1s rise 1 fall 2
for i in 1 2 3 4; do cfg backend add p "$(be4 "$i"):80"; done
cfg service add web vip $VIP4:80 proto tcp mode nat pool p
# klb's own http mode: refused is a failure, never a skip (the L4 half
# still runs, so the failure comes with the rest of the chaos figures).
l7=0
if out=$(klbctl service add h vip $VIP4:8080 proto tcp mode http pool p 2>&1); then
	l7=1
	ok "klbctl service add h (http)"
else
	fail "klbctl service add h (http): klb refuses its own http mode: $out"
fi

# The client loop: every answer is "ok" (a whole 200, right sha256), "bad"
# (a whole 200, wrong data) or "err CODE RC" (no answer, or one cut short:
# allowed while a backend dies or klb is removed). Whole means curl exited
# 0: a body shorter than its Content-Length is curl's error 18, with the
# 200 of its head still in %{http_code}.
urls="http://$VIP4/big/$F"
[ $l7 = 1 ] && urls="$urls http://$VIP4:8080/big/$F"
cli bash -c 'while [ ! -e "$1" ]; do
		for u in $3; do
			code=$(curl -s --max-time 5 -o "$4" -w "%{http_code}" "$u")
			rc=$?
			if [ "$code" = 200 ] && [ $rc = 0 ]; then
				s=$(sha256sum <"$4" | cut -d" " -f1)
				[ "$s" = "$2" ] && echo "ok $u" || echo "bad $u $s $(stat -c %s "$4") bytes"
			else
				echo "err $code $rc $u"
			fi
		done
	done' _ "$TMPD/stop" "$sum" "$urls" "$TMPD/dl" >"$TMPD/traffic.log" 2>&1 &
traffic=$!

# The config loop: every change is logged with its exit status; klb may
# refuse some (a service that exists already), never hang.
bash -c 'NS=$2 K=$3 n=0
	scheds=(wrr rr wlc mh lc)
	k() { timeout 20 ip netns exec "$NS" "$K" "$@" >/dev/null 2>&1; echo "$? $*"; }
	while [ ! -e "$1" ]; do
		n=$((n + 1))
		k backend set p 10.0.1.1$((n % 3 + 1)):80 weight $((n % 5 + 1))
		k pool set p sched ${scheds[n % 5]}
		k service add x vip 10.0.100.1:81 proto tcp mode nat pool p
		k service del x
		k save
	done' _ "$TMPD/stop" "$NS_LB" "$KLBCTL" >"$TMPD/config.log" 2>&1 &
config=$!

answered() { grep -c "^ok" "$TMPD/traffic.log"; }
# recovered DESC: both services answer again (new "ok" lines for each URL)
recovered() {
	local u before
	for u in $urls; do
		before=$(grep -c "^ok $u" "$TMPD/traffic.log")
		if poll_until 60 sh -c "[ \$(grep -c '^ok $u' '$TMPD/traffic.log') -gt $before ]"; then
			ok "$1: $u answers"
		else
			fail "$1: $u answers"
			diag "$(tail -5 "$TMPD/traffic.log")"
		fi
	done
}

recovered "before any chaos"

# 1. A backend's nginx killed, then started again.
kill "$(cat "$TMPD/be2/nginx.pid")"
sleep 3
recovered "nginx of be2 killed"
nginx_start 2
recovered "nginx of be2 started again"

# 2. A backend's link flaps.
check "be3's link down" lb ip link set be3 down
sleep 2
check "be3's link up" lb ip link set be3 up
recovered "be3's link flapped"

# 3. A backend's namespace deleted (its processes first: a namespace
# lives as long as a process in it).
be 4 sh -c 'kill $(cat '"$TMPD"'/be4/nginx.pid)'
check "ip netns del ${NS_BE[4]} (a backend of p)" ip netns del "${NS_BE[4]}"
poll_until 10 sh -c "! ip -n $NS_LB link show be4" ||
	diag "be4 is still in the balancer namespace"
recovered "be4's namespace deleted"
check "be4 stays in the pool, found unhealthy" poll_until 20 sh -c "ip netns exec $NS_LB $KLBCTL -j pool show p |
	jq -e '.[0].backends[] | select(.addr == \"$B4\") | .health == \"unhealthy\"'"

# 4. A second balancer namespace, with probes in flight and a client
# loop, deleted.
NS2=klb-chaos2-$KLB_SUF
ns_add "$NS2"
k2() { ip netns exec "$NS2" "$KLBCTL" "$@"; }
ip -n "$NS2" -b - <<-EOF || bail "netns 2 setup"
	link add d0 type dummy
	addr add 10.77.0.1/24 dev d0
	link set d0 up
EOF
check "netns 2: pool with probes" k2 pool add q check tcp interval 1s timeout 1s
check "netns 2: backends" sh -c "for p in 9 10 11 12; do ip netns exec $NS2 $KLBCTL backend add q 10.77.0.1:\$p || exit 1; done"
check "netns 2: service" k2 service add s vip 10.77.0.100:80 proto tcp mode nat pool q
bg "$NS2" bash -c 'while :; do curl -s --max-time 1 -o /dev/null http://10.77.0.100/; done'
loop2=$BG_PID
sleep 2
check "ip netns del $NS2 with its klb state" ip netns del "$NS2"
kill "$loop2"
wait "$loop2" 2>/dev/null
recovered "a second balancer namespace deleted"

# 5. klb removed while both loops run.
rmmod_within 60 "rmmod klb under traffic and config changes"
: >"$TMPD/stop"
# At most one more round of the loop: two curls of up to 5 s (no answer
# once klb is gone) and their checks; the debug kernel of make
# vmtest-debug needed more than 15 s for that.
check "the traffic loop ends within 30 s" poll_until 30 sh -c "! kill -0 $traffic"
# The config loop finishes its round: five klbctl commands, each under a
# 20 s timeout (a command that needs it fails "no config command timed
# out" below). A command may autoload klb again (the family's alias),
# which on the debug kernel alone took the round past 25 s.
check "the config loop ends within 100 s (its round's timeouts)" poll_until 100 sh -c "! kill -0 $config"
wait "$traffic" "$config" 2>/dev/null
# A klbctl of the config loop may have brought the module back (the
# family autoloads): take it out again for the teardown's checks.
grep -q '^klb ' /proc/modules && _klb_loaded=1

good=$(answered)
bad=$(grep -c "^bad" "$TMPD/traffic.log")
errs=$(grep -c "^err" "$TMPD/traffic.log")
changes=$(grep -c "^0 " "$TMPD/config.log")
refused=$(grep -vc "^0 " "$TMPD/config.log")
diag "answers: $good right, $bad wrong, $errs failed; config changes: $changes done, $refused refused or failed"
[ "$bad" = 0 ] || diag "$(grep "^bad" "$TMPD/traffic.log" | head -5)"
diag "failed: $(grep "^err" "$TMPD/traffic.log" | cut -d" " -f2,3 | sort | uniq -c | tr -s ' \n' ' ')(count, http code, curl exit)"
check_eq "no answer carried wrong data (sha256)" "$bad" 0
check_range "answers with the right data" "$good" 10 100000000
check_range "config changes made during the chaos" "$changes" 10 100000000
check "no config command timed out (exit 124)" sh -c "! grep -q '^124 ' '$TMPD/config.log'"
