#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# http mode (L7) under abuse and failure; every client is bounded in time,
# so a hang fails the test instead of stalling it. Backends: nginx in be1,
# be2 (pool ng, rr), l7_backend.py in be3 (default pool py: logs every
# request head it gets, answers late with /delay/MS).
#   slow client: head sent byte by byte within http_header_timeout -> 200;
#                beyond it -> 408 and closed, never reaching the backend
#   slow backend: under http_response_timeout -> 200; over it -> 504 fast,
#                and the late answer never reaches a later request
#   backend killed (kill -9 of nginx be2) during a run of GETs: every GET
#                still answered 200 (retried on be1); POSTs get 200 or 502;
#                a pool with only the dead backend: 502; a silent backend
#                address: 502/504 within l7_connect_timeout
#   smuggling shapes: 400, the connection closed, the backend never sees
#                them (a bad chunk size comes after a valid head, which may
#                have been relayed: that request never completes there)
#   header limits: over http_max_header_size / http_max_headers -> 431
#   service del with a request in progress: it completes (200)
#   unload under load: wrk running; service del returns, then rmmod klb
#                returns (the harness then checks the kernel log)
# Fails if klb refuses its own http mode (l7_require: never a skip).
source "$(dirname "$0")/lib.sh"
klb_test_init "http mode: timeouts, dead backends, smuggling, limits, unload under load"
for c in wrk timeout; do
	command -v $c >/dev/null || skip_all "$c not installed"
done

klb_load
l7_require http

topo_setup 3
nginx_l7_start 1
nginx_l7_start 2
nginx_l7_wait 1
nginx_l7_wait 2
l7be_start 3
B1=$(be4 1) B2=$(be4 2) B3=$(be4 3)
PYLOG=$(py_log 3)

delta() { echo $(($2 - $1)); }
status_of() { cli curl -s --max-time "${2:-10}" -o /dev/null -w '%{http_code}' "${@:3}" "$1"; }

cfg pool add py
cfg backend add py $B3:80
cfg pool add ng sched rr
cfg backend add ng $B1:80
cfg backend add ng $B2:80
cfg pool add dead
cfg backend add dead $B2:80
cfg pool add silent
cfg backend add silent 10.0.1.99:80
cfg service add web vip $VIP4:80 proto tcp mode http pool py
cfg rule add web path /ng/ pool ng
cfg rule add web path /dead/ pool dead
cfg rule add web path /silent/ pool silent
# The timeouts (3, 3 and 2 s) and every time that is bound against them are
# stretched by KLB_TIME_SCALE (lib.sh), so a slow kernel still tells a slow
# client from a timed-out one.
HT=$(tscale 3) RT=$(tscale 3) CT=$(tscale 2)
l7_sysctl http_header_timeout=$HT http_response_timeout=$RT l7_connect_timeout=$CT

check_eq "the service answers (default pool: be3)" \
	"$(cli curl -s --max-time 10 "http://$VIP4/hello" | jq -r .name)" be3

# ---- slow client -----------------------------------------------------------------
# 90 bytes of head, 15 ms apart: ~1.4 s, under the header timeout (3 s)
r=$(cli "$PY" "$SELFTESTS/l7_client.py" slow --addr $VIP4 --delay-ms 15 --path /slow-ok --timeout 15)
diag "slow head within the timeout: $r"
check_eq "slow client, head complete in time: 200" "$(jq -r .status <<<"$r" 2>/dev/null)" 200
check_eq "slow client, in time: the backend got the request once" "$(grep -c '^req .* /slow-ok$' "$PYLOG")" 1
t0=$(l7_stat web .errors.timeout)
# 200 ms apart: the head would take 18 s
r=$(cli "$PY" "$SELFTESTS/l7_client.py" slow --addr $VIP4 --delay-ms "$(tscale 200)" --path /slow-late --timeout "$(tscale 15)")
diag "slow head beyond the timeout: $r"
check_eq "slow client beyond http_header_timeout: 408" "$(jq -r .status <<<"$r" 2>/dev/null)" 408
check_eq "slow client beyond the timeout: connection closed" "$(jq -r .closed <<<"$r" 2>/dev/null)" true
lo=$(tscale 2.5) hi=$(tscale 8)
check "slow client beyond the timeout: answered after $lo..$hi s ($(jq -r .secs <<<"$r" 2>/dev/null))" \
	awk -v s="$(jq -r .secs <<<"$r" 2>/dev/null)" -v lo="$lo" -v hi="$hi" 'BEGIN {exit !(s >= lo && s <= hi)}'
check_eq "slow client beyond the timeout: never reached the backend" "$(grep -c '/slow-late' "$PYLOG")" 0
check_eq "counters: errors.timeout grew by 1" "$(delta "$t0" "$(l7_stat web .errors.timeout)")" 1

# ---- slow backend ------------------------------------------------------------------
check_eq "slow backend under http_response_timeout (1 s): 200" \
	"$(status_of "http://$VIP4/delay/$(tscale 1000)/in-time" "$(tscale 15)")" 200
t0=$(l7_stat web .errors.timeout)
late=/delay/$(tscale 6000)/late
r=$(cli curl -s --max-time "$(tscale 15)" -o /dev/null -w '%{http_code} %{time_total}' "http://$VIP4$late")
check_eq "slow backend over http_response_timeout (6 s vs 3 s): 504" "${r% *}" 504
lo=$(tscale 2.5) hi=$(tscale 5.5)
check "slow backend: the 504 came after $lo..$hi s (${r#* })" \
	awk -v s="${r#* }" -v lo="$lo" -v hi="$hi" 'BEGIN {exit !(s >= lo && s <= hi)}'
check_eq "counters: errors.timeout grew by 1" "$(delta "$t0" "$(l7_stat web .errors.timeout)")" 1
# The backend answers the late request at 6 s: that answer must not be
# handed to a later request (the backend connection must not be reused).
lc=$(awk -v p="$late" '$1 == "req" && $4 == p {print $2; exit}' "$PYLOG")
poll_until 15 grep -qE "^(done|close) ${lc:-none}( |\$)" "$PYLOG" ||
	diag "the backend connection of $late (${lc:-?}) neither answered nor closed"
r=$(cli curl -s --max-time 10 "http://$VIP4/after-504" | jq -r .target 2>/dev/null)
check_eq "after the 504: the next request gets its own answer" "$r" /after-504

# ---- a backend killed mid-test -----------------------------------------------------
# 40 GETs, a new client connection each; be2 is killed with SIGKILL once it
# has served 5 of them.
urls=()
for i in $(seq 1 40); do urls+=(-o /dev/null "http://$VIP4/ng/k$i"); done
cli curl -s -w '%{http_code} %header{x-backend}\n' --max-time 10 \
	-H 'Connection: close' "${urls[@]}" >"$TMPD/kill.out" 2>&1 &
cpid=$!
if poll_until 60 eval '[ "$(nginx_reqs 2 " /ng/k")" -ge 5 ]'; then
	pids=$(ip netns pids "${NS_BE[2]}")
	kill -9 $pids 2>/dev/null
	diag "killed be2 (nginx: $(echo $pids)) after $(nginx_reqs 2 " /ng/k") requests"
else
	fail "be2 never got 5 requests"
fi
for i in $(seq 1 150); do kill -0 $cpid 2>/dev/null || break; sleep 0.2; done
if kill -0 $cpid 2>/dev/null; then
	fail "backend killed: the client run is still going after 30 s"
	kill $cpid
fi
wait $cpid 2>/dev/null
check_eq "backend killed: 40 GETs answered" "$(grep -c . "$TMPD/kill.out")" 40
check_eq "backend killed: every GET answered 200 (retried on the other backend)" \
	"$(cut -d' ' -f1 "$TMPD/kill.out" | sort | uniq -c | awk '{print $2"x"$1}' | tr '\n' ' ')" "200x40 "
c0=$(l7_stat web .errors.connect)
r=$(for i in 1 2 3 4; do status_of "http://$VIP4/ng/post$i" 10 -d x=1; echo; done | sort | uniq -c | awk '{print $2}' | tr '\n' ' ')
check "backend killed: POSTs get 200 or 502, never a hang ($r)" \
	bash -c '[[ "$1" =~ ^((200|502)\ )+$ ]]' _ "$r"
check_eq "pool with only the dead backend: GET -> 502" "$(status_of "http://$VIP4/dead/x" 10)" 502
check_eq "pool with only the dead backend: POST -> 502" "$(status_of "http://$VIP4/dead/x" 10 -d x=1)" 502
check_range "counters: errors.connect counted the refusals" "$(delta "$c0" "$(l7_stat web .errors.connect)")" 2 100
r=$(cli curl -s --max-time "$(tscale 15)" -o /dev/null -w '%{http_code} %{time_total}' "http://$VIP4/silent/x")
check "a backend address that never answers: 502 or 504 ($r)" bash -c '[[ "$1" =~ ^50[24]\  ]]' _ "$r"
check "a backend address that never answers: within l7_connect_timeout + 3 s (${r#* })" \
	awk -v s="${r#* }" -v hi="$(tscale 5)" 'BEGIN {exit !(s <= hi)}'

# ---- request smuggling shapes ------------------------------------------------------
# Each on a new connection to the default pool (be3, which logs every
# request head it receives): 400, then the connection closes.
p0=$(l7_stat web .errors.parse)
l0=$(l7_stat web .errors.limit)
long=$(head -c 12000 /dev/zero | tr '\0' a)
declare -A shape=(
	[cl_te]=$'POST /smuggle/cl_te HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'
	[te_cl]=$'POST /smuggle/te_cl HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n0\r\n\r\n'
	[cl_dup]=$'POST /smuggle/cl_dup HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd'
	[chunk_size]=$'POST /smuggle/chunk_size HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n'
	[obs_fold]=$'GET /smuggle/obs_fold HTTP/1.1\r\nHost: x\r\nX-Fold: a\r\n b\r\n\r\n'
	[ws_colon]=$'POST /smuggle/ws_colon HTTP/1.1\r\nHost: x\r\nContent-Length : 4\r\n\r\nabcd'
	[name_char]=$'GET /smuggle/name_char HTTP/1.1\r\nHost: x\r\nX@Bad: 1\r\n\r\n'
	[long_line]="GET /smuggle/long_line?$long HTTP/1.1"$'\r\nHost: x\r\n\r\n'
	[bare_lf]=$'GET /smuggle/bare_lf HTTP/1.1\nHost: x\n\n'
)
names="cl_te te_cl cl_dup chunk_size obs_fold ws_colon name_char long_line bare_lf"
for s in $names; do
	out=$(printf '%s' "${shape[$s]}" | l7_raw $VIP4 80 "$(tscale 8)")
	check_eq "smuggling $s: 400 and the connection closed" \
		"$(http_statuses <<<"$out") $(tail -n1 <<<"$out")" "400 #closed"
done
# the same after a good request on the connection: 200, then 400 and close
out=$(printf '%s' $'GET /smuggle-first HTTP/1.1\r\nHost: x\r\n\r\n' "${shape[cl_te]}" | l7_raw $VIP4 80 "$(tscale 8)")
check_eq "smuggling cl_te after a good request: 200, 400, closed" \
	"$(http_statuses <<<"$out") $(tail -n1 <<<"$out")" "200 400 #closed"
# Bad framing in the head: refused before anything is sent to a backend.
# A bad chunk size comes after a valid head, which a streaming relay may
# have forwarded already: that request must never complete at the backend.
n=$(grep -v '/smuggle/chunk_size' "$PYLOG" | grep -c '/smuggle/')
check_eq "smuggling: no malformed head reached the backend" "$n" 0
[ "$n" = 0 ] || diag "$(grep '/smuggle/' "$PYLOG" | cut -c1-100)"
check_eq "smuggling chunk_size: never completed at the backend" \
	"$(grep -c '^done .*/smuggle/chunk_size' "$PYLOG")" 0
grep -q '/smuggle/chunk_size' "$PYLOG" && diag "chunk_size: the head reached the backend (aborted there)"
dp=$(delta "$p0" "$(l7_stat web .errors.parse)")
dl=$(delta "$l0" "$(l7_stat web .errors.limit)")
check_range "counters: errors.parse counted the smuggling shapes" "$dp" 9 10
check_eq "counters: errors.parse + errors.limit grew by 10 (long_line may count as a limit)" $((dp + dl)) 10

# ---- header limits: 431 -------------------------------------------------------------
l7_sysctl http_max_header_size=2048 http_max_headers=20
l0=$(l7_stat web .errors.limit)
hdrs() { local i; for ((i = 0; i < $1; i++)); do printf -- "-H\nX-H$i: v$i\n"; done; }
mapfile -t h <<<"$(hdrs 10)"
check_eq "10 extra header fields (limit 20): 200" "$(status_of "http://$VIP4/h10" 10 "${h[@]}")" 200
mapfile -t h <<<"$(hdrs 30)"
check_eq "30 extra header fields (limit 20): 431" "$(status_of "http://$VIP4/h30" 10 "${h[@]}")" 431
big1=$(head -c 1000 /dev/zero | tr '\0' b)
big3=$(head -c 3000 /dev/zero | tr '\0' b)
check_eq "a 1000-byte field (head limit 2048): 200" \
	"$(status_of "http://$VIP4/h1000" 10 -H "X-Big: $big1")" 200
check_eq "a 3000-byte field (head limit 2048): 431" \
	"$(status_of "http://$VIP4/h3000" 10 -H "X-Big: $big3")" 431
check_eq "over-limit requests never reached the backend" "$(grep -cE ' /h(30|3000)$' "$PYLOG")" 0
check_eq "counters: errors.limit grew by 2" "$(delta "$l0" "$(l7_stat web .errors.limit)")" 2
l7_sysctl http_max_header_size=8192 http_max_headers=100

# ---- service del with a request in progress -----------------------------------------
# The exchange in progress finishes (200), then the connection closes.
cli curl -s --max-time 20 -o "$TMPD/drain.out" -w '%{http_code}' "http://$VIP4/delay/2500/draining" \
	>"$TMPD/drain.code" 2>&1 &
dpid=$!
poll_until 15 grep -q '^req .* /delay/2500/draining$' "$PYLOG" || diag "the draining request never reached be3"
cfg service del web
wait $dpid
check_eq "service del: the request in progress still completes (200, its own answer)" \
	"$(cat "$TMPD/drain.code") $(jq -r .target "$TMPD/drain.out" 2>/dev/null)" "200 /delay/2500/draining"
r=$(status_of "http://$VIP4/after-del" 5)
check "service del: the VIP no longer answers ($r)" test "$r" != 200

# ---- unload under load ---------------------------------------------------------------
# wrk keeps 8 connections busy on pool ng (be1 only: be2 is dead)
cfg backend del ng $B2:80
cfg service add web vip $VIP4:80 proto tcp mode http pool ng
cli timeout "$(tscale 200)" wrk -t2 -c8 -d"$(tscale 180)"s --timeout 3s "http://$VIP4/ng/load" >"$TMPD/wrk.out" 2>&1 &
wpid=$!
q0=$(l7_stat web .requests)
if poll_until 60 eval '[ $(( $(l7_stat web .requests) - q0 )) -ge 100 ]'; then
	ok "under load: wrk got 100 requests through"
else
	fail "under load: wrk got 100 requests through ($(( $(l7_stat web .requests) - q0 )))"
fi
s0=$SECONDS b=$(tscale 10)
check "under load: klbctl service del web" timeout "$(tscale 20)" ip netns exec "$NS_LB" "$KLBCTL" service del web
check_range "under load: service del took at most $b s" $((SECONDS - s0)) 0 "$b"
r=$(status_of "http://$VIP4/ng/after-del" 5)
check "after service del: no answer from the VIP ($r)" test "$r" != 200
cfg service add web vip $VIP4:80 proto tcp mode http pool ng
q0=$(l7_stat web .requests)
if poll_until 60 eval '[ $(( $(l7_stat web .requests) - q0 )) -ge 50 ]'; then
	ok "under load: traffic flows again after service add"
else
	fail "under load: traffic flows again after service add"
fi
check "under load: wrk is still running" kill -0 $wpid
l7before=$(klbctl -j -s service show | jq -c '.[] | select(.name == "web") | .stats.http')
# rmmod, bounded: a module exit waiting forever for its sessions fails here
# (unless it sleeps uninterruptibly: then the per-test timeout ends it)
rmmod_within 20 "under load: rmmod klb" "under load: rmmod"
kill -INT $wpid 2>/dev/null
for i in $(seq 1 50); do kill -0 $wpid 2>/dev/null || break; sleep 0.2; done
kill -9 $wpid 2>/dev/null
wait $wpid 2>/dev/null
diag "service web before rmmod: $l7before"
