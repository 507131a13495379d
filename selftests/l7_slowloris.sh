#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# http mode under slowloris (issue 18): N clients (KLB_SLOW_CLIENTS, default
# 2000 in make check, 5000 in make soak) each send a partial request head,
# then one byte every 2 s, never ending it. A head is read into a 1 KiB
# buffer (KLB_HTTP_HEAD_BUF) grown only when it does not fit; the request's
# other buffers come once it is routed. So:
#   (a) memory (MemAvailable, Slab) per slow connection, both sockets
#       included, under 24 KiB (it was ~60 KiB: each held ~41 KiB of
#       buffers from its first byte). MemAvailable's drop less the slowloris
#       client's own anonymous memory and page tables (it runs in the same
#       VM: ~3.5 KiB a socket in python; CI's run at 2cc3fec failed at
#       24.6 KiB with it counted in). Measured with all 5000 open: ~19 KB,
#       under the harness's slub_debug=FZPU then (red zones and owner tracking
#       on every object of both sockets)
#   (b) real clients are served meanwhile: 20 requests, 20 x 200
#   (d) at http_header_timeout (from the accept; the dripped bytes do not
#       re-arm it) every slow one is answered 408 and closed, counted
#       (errors timeout); Slab comes back to under a quarter of the growth
#   (c) l7_max_conns = N * 4 / 5: N slow clients again, the excess is
#       reset at accept and counted (errors limit), so is a real client of
#       that service; another service (the sysctl is per service) serves
# Backends: l7_backend.py in be1.
# Fails if klb refuses its own http mode (l7_require: never a skip).
source "$(dirname "$0")/lib.sh"
klb_test_init "http mode: slowloris clients hold 1 KiB each, real clients served, 408 at the head timeout, l7_max_conns counted"

klb_load
l7_require http

N=${KLB_SLOW_CLIENTS:-2000}
# from the accept: all N must be open (and measured) before it runs out;
# 5000 took 55 s to connect with two VM boots sharing the cores (over 120 s
# on the debug kernel: the time scale stretches it), 2000 about 22 s
HT=${KLB_SLOW_HEADER_TIMEOUT:-$(tscale $((N > 2000 ? 120 : 60)))}
topo_setup 1
l7be_start 1
B1=$(be4 1)
IDLE=$SELFTESTS/l7_idle_client.py

cfg pool add pa
cfg backend add pa $B1:80
cfg service add web vip $VIP4:80 proto tcp mode http pool pa
cfg service add web2 vip $VIP4:8080 proto tcp mode http pool pa
l7_sysctl http_header_timeout=$HT
active() { svc_stat "${1:-web}" active_conns; }
meminfo() { awk -v k="$1:" '$1 == k {print $2}' /proc/meminfo; }
status_of() { cli curl -s --max-time "$(tscale 10)" -o /dev/null -w '%{http_code}' "http://$VIP4$1"; }
# slow_field NAME: a count from the slowloris client's status line
slow_field() { awk -v k="$1" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}' "$TMPD/slow.status"; }
# slow_start TAG: N slowloris clients in the background (pid in $spid)
slow_start() {
	rm -f "$TMPD/slow.status" "$TMPD/release"
	cli bash -c 'ulimit -n 65536; exec "$@"' _ "$PY" "$IDLE" slowloris --addr $VIP4 \
		--count "$N" --every 2 --hold "$TMPD/release" --status "$TMPD/slow.status" \
		>"$TMPD/slow-$1.out" 2>&1 &
	spid=$!
	if poll_until 600 grep -q '^open' "$TMPD/slow-$1.out"; then
		read -r _ nopen secs < <(grep '^open' "$TMPD/slow-$1.out")
		diag "$1: $N slowloris clients connected in $secs s"
	else
		bail "$1: $N slowloris clients connected within 600 s ($(cat "$TMPD/slow-$1.out"))"
	fi
	poll_until 10 test -s "$TMPD/slow.status"
}
# drop_caches; echo the MemAvailable and Slab KiB
mem_now() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	sleep 1
	echo "$(meminfo MemAvailable) $(meminfo Slab)"
}

check_eq "a request before: 200" "$(status_of /first)" 200
read -r a0 s0 < <(mem_now)
t0=$(l7_stat web .errors.timeout) r0=$(l7_stat web '.responses."4xx"')

# ---- (a) N slowloris clients: 1 KiB each -----------------------------------------------
slow_start lean
check_eq "all $N slow clients connected" "$nopen" "$N"
check_range "the service holds the $N slow sessions" "$(active)" "$N" $((N + 5))
sleep 3		# a drip or two: every session has read its bytes
read -r a1 s1 < <(mem_now)
# the client runs in this VM: its own anonymous memory (python, one object
# per socket) leaves MemAvailable too, and is no part of klb's cost
crss=$(l7_client_mem_kib slowloris)
per_avail=$(( (a0 - a1 - crss) * 1024 / N ))
per_slab=$(( (s1 - s0) * 1024 / N ))
diag "the slowloris client's own anonymous memory: $crss KiB (taken out of MemAvailable's drop)"
diag "memory per slowloris connection: MemAvailable $per_avail bytes, Slab $per_slab bytes (both sockets included)"
check_memory "MemAvailable per slow connection under 24 KiB ($per_avail)" "$per_avail" 24575
check_memory "Slab per slow connection under 24 KiB ($per_slab)" "$per_slab" 24575
check_eq "none of them closed by klb yet" "$(slow_field open)" "$N"

# ---- (b) real clients meanwhile ------------------------------------------------------------
ok200=0
for i in $(seq 20); do
	[ "$(status_of /real/$i)" = 200 ] && ok200=$((ok200 + 1))
done
check_eq "with $N slow clients open: 20 real requests, 20 x 200" "$ok200" 20

# ---- (d) the head timeout: 408, counted, memory back -----------------------------------------
if poll_until $((HT + 120)) eval '[ "$(slow_field open)" = 0 ]'; then
	ok "klb closed every slow client at http_header_timeout ($HT s)"
else
	fail "klb closed every slow client at http_header_timeout ($HT s) ($(cat "$TMPD/slow.status"))"
fi
touch "$TMPD/release"
wait $spid
diag "slow clients: $(cat "$TMPD/slow.status")"
check_eq "each one was answered 408" "$(slow_field s408)" "$N"
check_eq "counters: errors.timeout +$N" $(($(l7_stat web .errors.timeout) - t0)) "$N"
check_eq "counters: responses 4xx +$N" $(($(l7_stat web '.responses."4xx"') - r0)) "$N"
poll_until 30 eval '[ "$(active)" -eq 0 ]' || diag "sessions left: $(active)"
check_eq "no session left" "$(active)" 0
read -r a2 s2 < <(mem_now)
diag "Slab: $s0 KiB before, $s1 KiB with $N slow clients, $s2 KiB after they were closed"
check_range "Slab back to under a quarter of the growth ($((s2 - s0)) of $((s1 - s0)) KiB)" \
	$(( (s2 > s0 ? s2 - s0 : 0) * 4 )) 0 $((s1 - s0))

# ---- (c) l7_max_conns below N: the excess refused and counted ---------------------------------
M=$((N * 4 / 5))
l7_sysctl l7_max_conns=$M http_header_timeout="$(tscale 600)"
l0=$(l7_stat web .errors.limit)
slow_start capped
if poll_until 60 eval '[ "$(slow_field reset)" -ge $((N - M)) ]'; then
	ok "over l7_max_conns=$M: $((N - M)) slow clients reset"
else
	fail "over l7_max_conns=$M: $((N - M)) slow clients reset ($(cat "$TMPD/slow.status"))"
fi
sleep 2
diag "slow clients with l7_max_conns=$M: $(cat "$TMPD/slow.status")"
check_eq "$M slow clients held, the rest reset" "$(slow_field open) $(slow_field reset)" "$M $((N - M))"
check_eq "the service holds $M sessions" "$(active)" "$M"
check_eq "counters: errors.limit +$((N - M))" $(($(l7_stat web .errors.limit) - l0)) $((N - M))
check_eq "a real client of the full service: refused" "$(status_of /full)" 000
check_eq "counters: errors.limit counted it too" $(($(l7_stat web .errors.limit) - l0)) $((N - M + 1))
check_eq "the other service (its own l7_max_conns): 200" "$(status_of :8080/other)" 200
touch "$TMPD/release"
wait $spid
poll_until 30 eval '[ "$(active)" -eq 0 ]' || diag "sessions left: $(active)"
l7_sysctl l7_max_conns=65536
check_eq "a request after the slow clients left: 200" "$(status_of /last)" 200
