#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# klb's family runs with parallel_ops, so a long request holds only its own
# namespace's lock, not the genetlink mutex every family shares:
#   - a restore that replaces N pools (N=10000; each with a backend, plus a
#     service with live connections) by a small configuration, and a flush
#     of them, with net.klb.expire_nodest_conn=1, take one grace period and
#     one pass over the connection table, not one per pool: their times are
#     printed. (The N pools are added with klbctl -b, one request each: a
#     restore's config nest holds at most 64 KiB.)
#   - meanwhile another generic netlink user (nlctrl's GETFAMILY, which
#     takes the genetlink mutex) keeps being answered within a bound
#   - failing requests in parallel in two namespaces each get their own
#     extack message, with its arguments (on kernels before 6.2, where
#     extack only points at a string, klb keeps one per request)
source "$(dirname "$0")/lib.sh"
klb_test_init "parallel_ops: restore over and flush of 10k pools, genetlink stays responsive, own extack messages"

N=${KLB_PARALLEL_POOLS:-10000}
LAT_MAX_MS=${KLB_PARALLEL_LAT_MS:-3000}
NLPY="$(dirname "$0")/klb_nl.py"

topo_setup
backends_start
klb_load
check "expire_nodest_conn=1" lb sysctl -qw net.klb.expire_nodest_conn=1

# web [NAME]: pool NAME (web) with the real backends and service NAME on it
web() {
	local n=${1:-web}
	echo "pool add $n"
	for i in $(seq 1 "$NBE"); do echo "backend add $n $(be4 "$i"):80"; done
	echo "service add $n vip $VIP4:80 proto tcp mode nat pool $n"
}
# many: N pools of one backend each (klbctl -b), and web
{
	awk -v n="$N" 'BEGIN {
		for (i = 0; i < n; i++)
			printf "pool add p%d\nbackend add p%d 10.2.%d.%d:80\n", i, i, i / 250, i % 250 + 1
	}'
	web
} >"$TMPD/many.batch"
# what the restore installs: the same under another name, so that it
# removes the service web and its pool (a restore keeps what has the same
# name, with its connections) and every one of the N pools
web www >"$TMPD/web.conf"

# timed VAR CMD...: run CMD, put its duration in ms in VAR
timed() {
	local var=$1 t0 rc
	shift
	t0=$(date +%s%N)
	"$@"
	rc=$?
	printf -v "$var" %d $((($(date +%s%N) - t0) / 1000000))
	return $rc
}
hold_some() {
	local i
	for i in 1 2 3; do hold_open "$i" "$VIP4" 80; done
	wait_for "three held connections" test "$(conn_count web)" -ge 3
}
pools() { klbctl -j pool show | jq length; }

timed t_add klbctl -b "$TMPD/many.batch"
check_eq "klbctl -b: $N pools added: exit 0" "$?" 0
diag "adding $N pools, one request each: $t_add ms"
check_eq "pools after adding" "$(pools)" $((N + 1))
hold_some

# another genetlink user, in a loop, for the rest of the restore and flush
lb "$PY" "$NLPY" ctrl-latency "$TMPD/stop" >"$TMPD/lat" 2>&1 &
lat_pid=$!
sleep 1

timed t_restore klbctl restore <"$TMPD/web.conf"
check_eq "restore of one pool over $N pools: exit 0" "$?" 0
diag "restore replacing $N pools (3 live connections): $t_restore ms"
check_eq "pools after the restore" "$(pools)" 1
check_eq "the old service's connections are gone" "$(conn_count)" 0
for i in 1 2 3; do hold_release "$i" >/dev/null; done

klbctl flush
klbctl -b "$TMPD/many.batch" || fail "adding $N pools again"
hold_some
timed t_flush klbctl flush
check_eq "flush of $N pools: exit 0" "$?" 0
diag "flush of $N pools (3 live connections): $t_flush ms"
check_eq "nothing left after the flush" "$(pools)" 0
check_eq "no connection left after the flush" "$(conn_count)" 0
for i in 1 2 3; do hold_release "$i" >/dev/null; done

touch "$TMPD/stop"
wait $lat_pid
lat=$(cat "$TMPD/lat")
diag "nlctrl GETFAMILY during the restore and flush: $lat"
read -r _ nreq _ max_ms <<<"$lat"
check_range "another generic netlink user was answered (requests)" "$nreq" 1 100000000
check_range "... within ${LAT_MAX_MS} ms each (max $max_ms ms; restore $t_restore ms, flush $t_flush ms)" \
	"$max_ms" 0 "$LAT_MAX_MS"

# ---- every failing request gets its own message ----------------------------
R=${KLB_PARALLEL_REQS:-300}
lb "$PY" "$NLPY" own-messages lbpool "$R" >"$TMPD/m1" 2>&1 &
p1=$!
cli "$PY" "$NLPY" own-messages clipool "$R" >"$TMPD/m2" 2>&1 &
p2=$!
lb "$PY" "$NLPY" own-messages lbother "$R" >"$TMPD/m3" 2>&1 &
p3=$!
wait $p1 $p2 $p3
for f in m1 m2 m3; do
	read -r _ n _ foreign first <<<"$(cat "$TMPD/$f")"
	if [ "$n" = "$R" ] && [ "$foreign" = 0 ]; then
		ok "$f: $R failing requests in parallel, each got its own message"
	else
		fail "$f: each failing request gets its own message"
		diag "$(cat "$TMPD/$f")"
	fi
done
