#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# klbctl monitor and the "events" multicast group (issue 17):
#   - `klbctl -j monitor` in the balancer namespace sees every successful
#     change, in order, with the right fields: pool new/set/del, backend
#     new/set/del, a backend drained and downed by the operator (action
#     state, reason "operator"), service new/set/del, flush and restore
#     (one event each, with counts); times are the wall clock, in order
#   - the text form says the same, one line per event, `ip monitor -ts`
#     style; `monitor backend` filters (config events always pass)
#   - refused changes (bad input) print their error, change nothing and
#     send no event
#   - a monitor in another namespace sees none of it
#   - subscribing is open to every user, as reading is: an unprivileged
#     monitor gets the events too; stopped while 1000 backends are added,
#     its small socket buffer overruns and it says events were lost
#   - 1000 backend adds: a root monitor gets all 1000, in order (or reports
#     the loss)
#   - SIGTERM and SIGINT end a monitor with status 0
# ip monitor runs beside it, for how its lines look (not asserted).
source "$(dirname "$0")/lib.sh"
klb_test_init "klbctl monitor: events of every change, per namespace"
command -v setpriv >/dev/null || skip_all "setpriv (util-linux) not installed"

NS_OTHER=klb-other-$KLB_SUF
ns_add "$NS_LB"
ns_add "$NS_OTHER"
klb_load

# mon_start NAME NS [OPTIONS] -- [ARGS]: a monitor in NS writing to
# $TMPD/NAME.out (stderr NAME.err), pid in MON_PID[NAME]; returns once it
# is subscribed: it printed a probe event made in NS for it (pool and
# backend events of a pool probe-NAME, which the checks leave out).
declare -A MON_PID
mon_start() {
	local name=$1 ns=$2 pre=() i
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do pre+=("$1"); shift; done
	shift
	ip netns exec "$ns" "${pre[@]}" "$KLBCTL" "$@" >"$TMPD/$name.out" 2>"$TMPD/$name.err" &
	MON_PID[$name]=$!
	# A backend event: every filter but "pool" lets it through.
	printf 'pool add probe-%s\nbackend add probe-%s 10.255.0.1:1\npool del probe-%s\n' \
		"$name" "$name" "$name" >"$TMPD/probe-$name"
	for i in $(seq 1 50); do
		ip netns exec "$ns" "$KLBCTL" -b "$TMPD/probe-$name" >/dev/null 2>&1
		grep -q "probe-$name" "$TMPD/$name.out" && return 0
		kill -0 "${MON_PID[$name]}" 2>/dev/null || break
		sleep 0.2
	done
	diag "$(cat "$TMPD/$name.err")"
	bail "monitor $name subscribed"
}

# events FILE: the JSON events of FILE without the probes, one a line,
# normalised; fails (with a message) on a line that is not one JSON object,
# a time outside [T0, now] or going back.
events() {
	"$PY" - "$1" "$T0" "$(date +%s%N)" <<'EOF'
import json, sys
path, t0, t1 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
last = 0
for n, line in enumerate(open(path), 1):
    try:
        e = json.loads(line)
    except ValueError:
        sys.exit("line %d is not JSON: %r" % (n, line))
    if not isinstance(e, dict):
        sys.exit("line %d is not an object" % n)
    t = e["time_ns"]
    if not t0 - 2 * 10**9 <= t <= t1 or t < last:
        sys.exit("line %d: time %d outside [%d, %d] or before %d" % (n, t, t0, t1, last))
    last = t
    if e.get("pool", "").startswith("probe-"):
        continue
    w = [e["object"], e["action"]]
    if "service" in e:
        w.append(e["service"])
    if "pool" in e:
        w.append(("pool=" if "service" in e else "") + e["pool"])
    if "sched" in e:
        w.append("sched=" + e["sched"])
    b = e.get("backend")
    if b:
        w.append("%s:%d w=%d %s" % (b["addr"], b["port"], b["weight"], b["state"]))
    for k in ("pools", "services", "backends"):
        if k in e:
            w.append("%s=%d" % (k, e[k]))
    if "reason" in e:
        w.append("reason=" + e["reason"])
    print(" ".join(w))
EOF
}

# refused DESC PATTERN KLBCTL-ARGS...: exit 2 with "Error: ...PATTERN"
refused() {
	local desc=$1 pat=$2 out rc
	shift 2
	out=$(klbctl "$@" 2>&1)
	rc=$?
	if [ $rc = 2 ] && [[ "$out" == *"Error: "*"$pat"* ]]; then
		ok "refused: $desc ($out)"
	else
		fail "refused: $desc"
		diag "exit $rc: $out"
	fi
}

# ip monitor, to compare how a peer prints (not asserted)
bg "$NS_LB" ip -ts monitor link >"$TMPD/ipmon.txt" 2>&1
IPMON_T=$BG_PID
bg "$NS_LB" ip -j monitor link >"$TMPD/ipmon.json" 2>&1
IPMON_J=$BG_PID

T0=$(date +%s%N)
mon_start json "$NS_LB" -- -j monitor
mon_start text "$NS_LB" -- monitor all
mon_start backends "$NS_LB" -- -j monitor backend
mon_start other "$NS_OTHER" -- -j monitor
mon_start unpriv "$NS_LB" setpriv --reuid=65534 --regid=65534 --clear-groups \
	--inh-caps=-all --bounding-set=-all -- -j monitor
ok "an unprivileged user subscribes (events are open to all, as reading is)"

lb ip link add klbmon0 type veth peer name klbmon1 2>/dev/null

cat >"$TMPD/restore.conf" <<EOF
pool add a sched rr
backend add a 10.0.2.1:80 weight 1
backend add a 10.0.2.2:80 weight 2
pool add b sched p2c
backend add b [fd01::99]:8080 weight 3 state drain
service add svc vip $VIP4:8080 proto tcp mode nat pool a
EOF

check "pool add web" klbctl pool add web sched wrr
check "pool set web sched mh" klbctl pool set web sched mh
check "backend add 1" klbctl backend add web "$(be4 1):80" weight 2
check "backend add 2" klbctl backend add web "$(be4 2):80"
check "backend set weight" klbctl backend set web "$(be4 1):80" weight 5
check "backend drain" klbctl backend set web "$(be4 1):80" state drain
check "backend down with a weight" klbctl backend set web "$(be4 2):80" state down weight 3
check "service add" klbctl service add www vip $VIP4:80 proto tcp mode nat pool web
check "pool add other" klbctl pool add other
check "service set pool" klbctl service set www pool other
klbctl save >"$TMPD/before.conf"

# refused changes: an error, nothing changed, no event
refused "pool that exists" "pool web already exists" pool add web
refused "backend that exists" "already exists" backend add web "$(be4 1):80"
refused "backend that does not exist" "does not exist" backend set web "$(be4 3):80" state drain
refused "pool in use" "pool other is used by service www" pool del other
refused "service on a missing pool" "pool nope does not exist" \
	service add bad vip $VIP4:81 proto tcp mode nat pool nope
refused "service that does not exist" "service nope does not exist" service del nope
printf 'pool add z\nservice add s vip %s:9 proto tcp mode nat pool missing\n' $VIP4 >"$TMPD/bad.conf"
refused "broken restore" "pool missing does not exist" restore -f "$TMPD/bad.conf"
check "refused changes changed nothing" cmp "$TMPD/before.conf" <(klbctl save)

check "service del" klbctl service del www
check "backend del" klbctl backend del web "$(be4 2):80"
check "pool del" klbctl pool del other
check "flush" klbctl flush
check "restore" klbctl restore -f "$TMPD/restore.conf"

for m in json text backends unpriv; do
	poll_until 30 grep -q restore "$TMPD/$m.out" || fail "monitor $m got the restore"
done

b1=$(be4 1)
b2=$(be4 2)
cat >"$TMPD/want" <<EOF
pool new web sched=wrr
pool set web sched=mh
backend new web $b1:80 w=2 up
backend new web $b2:80 w=1 up
backend set web $b1:80 w=5 up
backend state web $b1:80 w=5 drain reason=operator
backend state web $b2:80 w=3 down reason=operator
service new www pool=web
pool new other sched=wrr
service set www pool=other
service del www
backend del web $b2:80 w=3 down
pool del other
config flush pools=1 services=0 backends=1
config restore pools=2 services=1 backends=3
EOF
if events "$TMPD/json.out" >"$TMPD/got" && cmp -s "$TMPD/want" "$TMPD/got"; then
	ok "monitor -j: every change, in order, with its fields; none for the refused ones"
else
	fail "monitor -j: every change, in order, with its fields; none for the refused ones"
	diag "$(diff "$TMPD/want" "$TMPD/got")"
fi
if events "$TMPD/unpriv.out" | cmp -s "$TMPD/want" -; then
	ok "the unprivileged monitor got the same events"
else
	fail "the unprivileged monitor got the same events"
	diag "$(events "$TMPD/unpriv.out" | diff "$TMPD/want" -)"
fi
grep -E '^(backend|config) ' "$TMPD/want" >"$TMPD/want.be"
if events "$TMPD/backends.out" | cmp -s "$TMPD/want.be" -; then
	ok "monitor backend: backend and config events only"
else
	fail "monitor backend: backend and config events only"
	diag "$(events "$TMPD/backends.out" | diff "$TMPD/want.be" -)"
fi

cat >"$TMPD/want.txt" <<EOF
pool new web sched wrr
pool set web sched mh
backend new web $b1:80 weight 2 state up
backend new web $b2:80 weight 1 state up
backend set web $b1:80 weight 5 state up
backend state web $b1:80 weight 5 state drain reason operator
backend state web $b2:80 weight 3 state down reason operator
service new www pool web
pool new other sched wrr
service set www pool other
service del www
backend del web $b2:80 weight 3 state down
pool del other
config flush pools 1 services 0 backends 1
config restore pools 2 services 1 backends 3
EOF
ts='^\[[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}\] '
check_eq "monitor (text): every line starts with a timestamp" \
	"$(grep -cvE "$ts" "$TMPD/text.out")" 0
if grep -v probe- "$TMPD/text.out" | sed -E "s/$ts//" | cmp -s "$TMPD/want.txt" -; then
	ok "monitor (text): one line per event, the same events"
else
	fail "monitor (text): one line per event, the same events"
	diag "$(grep -v probe- "$TMPD/text.out" | sed -E "s/$ts//" | diff "$TMPD/want.txt" -)"
fi
check_eq "a monitor in another namespace saw none of it" \
	"$(grep -vc 'probe-other' "$TMPD/other.out")" 0

# Many changes (1000 events of about 1 KiB of socket buffer each): the unprivileged monitor is stopped, so its socket (the
# default buffer: only root may enlarge it past net.core.rmem_max) fills.
kill -STOP "${MON_PID[unpriv]}"
for i in $(seq 0 999); do
	echo "backend add a 10.1.$((i / 250)).$((i % 250 + 1)):80"
done >"$TMPD/many"
check "1000 backend adds (klbctl -b)" klbctl -b "$TMPD/many"
poll_until 60 sh -c "[ \$(grep -c '\"addr\":\"10\\.1\\.' $TMPD/json.out) -ge 1000 ]"
kill -CONT "${MON_PID[unpriv]}"
got=$(grep -o '"addr":"10\.1\.[0-9.]*"' "$TMPD/json.out" | tr -d '"' | sed 's/addr://')
want=$(awk '{sub(/:80$/, "", $4); print $4}' "$TMPD/many")
if [ "$got" = "$want" ]; then
	ok "1000 backend adds: the root monitor got all 1000, in order"
elif grep -q 'events were lost' "$TMPD/json.err"; then
	ok "1000 backend adds: the root monitor got $(wc -l <<<"$got") and reported the loss"
else
	fail "1000 backend adds: $(wc -l <<<"$got") events, none reported lost"
fi
if poll_until 30 grep -q 'Warning: events were lost' "$TMPD/unpriv.err"; then
	ok "the stopped monitor overran and said events were lost (stderr)"
else
	fail "the stopped monitor overran and said events were lost (stderr)"
	diag "$(cat "$TMPD/unpriv.err")"
fi
n=$(grep -c '"addr":"10\.1\.' "$TMPD/unpriv.out")
diag "the stopped monitor (default socket buffer) printed $n of the 1000"
check_range "... and printed fewer than 1000 of them" "$n" 1 999
# It goes on after the loss: the next change arrives.
klbctl pool add after-loss
if poll_until 30 grep -q after-loss "$TMPD/unpriv.out"; then
	ok "after the loss it goes on: the next event arrives"
else
	fail "after the loss it goes on: the next event arrives"
fi
check_eq "stdout stayed one JSON object per line" \
	"$("$PY" -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1])]; print("ok")' "$TMPD/unpriv.out" 2>&1)" ok

# SIGTERM and SIGINT end them cleanly.
for sig_m in TERM:json INT:text TERM:backends TERM:other INT:unpriv; do
	sig=${sig_m%%:*}
	m=${sig_m#*:}
	kill -"$sig" "${MON_PID[$m]}"
	wait "${MON_PID[$m]}"
	check_eq "monitor $m: SIG$sig ends it with status 0" "$?" 0
done
check_eq "no monitor wrote an error" "$(cat "$TMPD"/{json,text,backends,other}.err)" ""

kill "$IPMON_T" "$IPMON_J" 2>/dev/null
wait "$IPMON_T" "$IPMON_J" 2>/dev/null
diag "for comparison, ip -ts monitor link and ip -j monitor link said:"
diag "$(head -c 800 "$TMPD/ipmon.txt")"
diag "$(head -c 800 "$TMPD/ipmon.json")"
diag "and klbctl monitor (text), the first lines:"
diag "$(grep -v probe- "$TMPD/text.out" | head -5)"
