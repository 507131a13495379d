#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Active health checks (Documentation/health.md) of a nat pool of three
# nginx backends:
#   bad input      interval 0, timeout > interval, rise 0, a path without
#                  '/', an unknown kind (klbctl, and raw through klb_nl.py):
#                  a clear error, `klbctl save` unchanged
#   http           all healthy; save/restore keeps the check; nginx of be2
#                  stopped: unhealthy within interval x fall + timeout (+
#                  slack), and a client loop of new connections sees no
#                  failure that started after the detection (+ slack);
#                  restarted: healthy after rise passes, gets traffic again
#   wrong status   path /missing (404): all unhealthy; all-unhealthy refuse:
#                  no answer; fail-open: all three answer again
#   body mismatch  body "be1": be2 and be3 unhealthy, only be1 answers
#   tcp            a closed port: unhealthy (connection refused), back
#   drop           nft drops SYNs to be3: unhealthy by connect timeout, back
#   slow           a python backend answering after 3s, timeout 1s: answer
#                  timeout
#   unload         rmmod with probes in flight (lib.sh checks the log and
#                  that no probe or check config leaked)
source "$(dirname "$0")/lib.sh"
klb_test_init "active health checks: http, tcp, timeouts, all-unhealthy, bad input"

for c in jq nft; do
	command -v $c >/dev/null || skip_all "$c not installed"
done

topo_setup
backends_start
klb_load
basic_service rr
# Should the VM hang, say where: blocked tasks on the console after 20 min
# (the whole test takes far less; the log check then fails it anyway).
bg "$NS_LB" bash -c 'sleep 1200; echo 8 >/proc/sys/kernel/printk; echo w >/proc/sysrq-trigger'

# Timing of the checks here: detection takes at most FALL probes, each
# started at most INTERVAL after the last, the last one at most TIMEOUT
# long. SLACK covers the emulated VM (a klbctl | jq poll alone takes about
# a second there) and the republish.
INTERVAL_MS=1000 TIMEOUT_MS=1000 RISE=2 FALL=2 SLACK=6
CHECK=(interval 1s timeout 1s rise $RISE fall $FALL)
BOUND=$(((FALL * INTERVAL_MS + TIMEOUT_MS) / 1000 + SLACK))

health_of() {	# ADDR [PORT]: the health of that backend of pool web
	klbctl -j pool show web | jq -r --arg a "$1" --argjson p "${2:-80}" \
		'.[0].backends[] | select(.addr == $a and .port == $p) | .health'
}
error_of() {
	klbctl -j pool show web | jq -r --arg a "$1" \
		'.[0].backends[] | select(.addr == $a and .port == 80) | .check_error'
}
healths() { klbctl -j pool show web | jq -r '[.[0].backends[].health] | join(" ")'; }
wait_health() {	# SECS WANT: all three backends' health is WANT ("healthy healthy unhealthy")
	poll_until "$1" eval "[ \"\$(healths)\" = \"$2\" ]" && return 0
	diag "$(klbctl pool show web)"
	return 1
}

# ---- bad input -----------------------------------------------------------------
save0=$(klbctl save)
bad() { pool_set_refused web "$save0" "$@"; }
bad "interval 0" "out of range.*check interval" check http interval 0
bad "timeout > interval" "timeout 2000ms is longer than the interval 1000ms" \
	check http interval 1s timeout 2s
bad "rise 0" "out of range.*check rise" check http rise 0
bad "path without /" "path must start with '/'" check http path health
bad "unknown kind" 'unknown check kind "bogus"' check bogus
bad "path with tcp" "check path needs check kind http" check tcp path /x

nl_send() { lb "$PY" "$SELFTESTS/klb_nl.py" send CMD_POOL_SET "$1" 2>&1; }
out=$(nl_send 'pool(name("web"), nest("POOL_A_CHECK", [u8("CHECK_A_KIND", 2), u32("CHECK_A_INTERVAL_MS", 0)]))')
diag "raw interval 0: $out"
check "raw netlink: interval 0 refused by the kernel's policy (EINVAL or ERANGE)" grep -qE "errno E(INVAL|RANGE)" <<<"$out"
out=$(nl_send 'pool(name("web"), nest("POOL_A_CHECK", [u8("CHECK_A_KIND", 2), s("CHECK_A_PATH", "x")]))')
check "raw netlink: path without '/' refused with the kernel's message" grep -q "path must start with '/'" <<<"$out"
out=$(nl_send 'pool(name("web"), nest("POOL_A_CHECK", [u8("CHECK_A_KIND", 9)]))')
check "raw netlink: kind 9 refused" grep -qE "errno E(INVAL|RANGE)" <<<"$out"
out=$(nl_send 'pool(name("web"), nest("POOL_A_CHECK", [u8("CHECK_A_KIND", 2), u32("CHECK_A_INTERVAL_MS", 1000), u32("CHECK_A_TIMEOUT_MS", 1500)]))')
check "raw netlink: timeout > interval refused by the kernel" grep -q "longer than the interval" <<<"$out"
check_eq "raw netlink: configuration unchanged" "$(klbctl save)" "$save0"

# ---- http: a backend stops and comes back -------------------------------------------
check "check http" klbctl pool set web check http path / expect 2xx "${CHECK[@]}"
wait_health 30 "healthy healthy healthy" || fail "all healthy (got $(healths))"
ok "all three healthy: $(healths)"
check_eq "pool show: the check" \
	"$(klbctl -j pool show web | jq -c '.[0].check | [.kind, .path, .expect, .interval_ms, .timeout_ms, .rise, .fall]')" \
	'["http","/","2xx",1000,1000,2,2]'
save1=$(klbctl save)
check "save has the check" grep -q "^pool add web sched rr check http path / expect 2xx interval 1000ms timeout 1000ms rise 2 fall 2$" <<<"$save1"
check "restore of the saved file" bash -c "ip netns exec $NS_LB $KLBCTL restore <<<\"\$1\"" _ "$save1"
check_eq "save after restore is the same" "$(klbctl save)" "$save1"
wait_health 30 "healthy healthy healthy" || fail "all healthy after restore (got $(healths))"

# A client loop of new connections, each line "START_NS BODY_OR_FAIL".
loop_log=$TMPD/loop.log
bg "$NS_CLI" bash -c 'while :; do t=$(date +%s%N); b=$(curl -s --max-time 2 -H "Connection: close" "http://$1/" || echo FAIL); echo "$t ${b:-FAIL}"; done' _ $VIP4 >"$loop_log" 2>&1
loop_pid=$!
sleep 2
t_stop=$(date +%s%N)
kill "$(cat "$TMPD/be2/nginx.pid")"
poll_until 60 eval '[ "$(health_of $(be4 2))" = unhealthy ]'
# When it changed: the kernel's health_age (whole seconds) back from after
# reading it; at most ~1 s late, where the poll's own time (seconds of
# klbctl | jq per round on a debug kernel) would count in full.
age=$(klbctl -j pool show web | jq -r --arg a "$(be4 2)" \
	'.[0].backends[] | select(.addr == $a and .port == 80) | .health_age')
t_det=$(($(date +%s%N) - ${age:-0} * 1000000000))
det_ms=$(((t_det - t_stop) / 1000000))
diag "be2 unhealthy ${det_ms}ms after its nginx stopped (bound ${BOUND}s)"
check_eq "be2 unhealthy" "$(health_of "$(be4 2)")" unhealthy
check_range "detected within interval x fall + timeout + ${SLACK}s slack (ms)" "$det_ms" 0 $((BOUND * 1000))
check_eq "be2's last error" "$(error_of "$(be4 2)")" "http check: connection refused"
sleep 3
kill "$loop_pid" 2>/dev/null
wait "$loop_pid" 2>/dev/null
# The bound: a request may fail only if it started before the table
# without be2 was published, which is at most 1s (the republish and the
# emulated VM) after klbctl showed the health.
late=$(awk -v d="$t_det" '$2 == "FAIL" && $1 > d + 1000000000' "$loop_log" | wc -l)
before=$(awk -v s="$t_stop" -v d="$t_det" '$2 == "FAIL" && $1 >= s && $1 <= d + 1000000000' "$loop_log" | wc -l)
after=$(awk -v d="$t_det" '$1 > d + 1000000000' "$loop_log" | wc -l)
diag "client loop: $(wc -l <"$loop_log") requests, $before failed before detection (+1s), $late failed after, $after sent after"
check_eq "no failure among requests started 1s after detection" "$late" 0
check_range "requests after detection all answered by be1/be3" "$(awk -v d="$t_det" '$1 > d + 1000000000 && ($2 == "be1" || $2 == "be3")' "$loop_log" | wc -l)" "$after" "$after"

nginx_start 2
poll_until 60 eval '[ "$(health_of $(be4 2))" = healthy ]'
check_eq "be2 healthy again after rise passes" "$(health_of "$(be4 2)")" healthy
r=$(http_n 30 "http://$VIP4/" | tally)
check_eq "be2 gets traffic again" "$(echo $r)" "be1 10 be2 10 be3 10"
check_range "be2 counted passes and failures" \
	"$(klbctl -j pool show web | jq -r --arg a "$(be4 2)" '.[0].backends[] | select(.addr == $a) | if .check_ok > 0 and .check_fail >= 2 then 1 else 0 end')" 1 1

# ---- wrong status, all unhealthy: refuse, then fail open ---------------------------
check "check http path /missing" klbctl pool set web check http path /missing "${CHECK[@]}"
wait_health 60 "unhealthy unhealthy unhealthy" || fail "all unhealthy on 404 (got $(healths))"
check_eq "404: the error" "$(error_of "$(be4 1)")" "http check: status 404"
check_eq "refuse: no backend answers" "$(http_n 2 "http://$VIP4/" --max-time 2 | wc -l)" 0
check "all-unhealthy fail-open" klbctl pool set web all-unhealthy fail-open
r=$(http_n 30 "http://$VIP4/" | tally)
check_eq "fail-open: all three answer" "$(echo $r)" "be1 10 be2 10 be3 10"
check "save has fail-open" grep -q "^pool add web sched rr all-unhealthy fail-open check http path /missing" <<<"$(klbctl save)"
check "all-unhealthy refuse" klbctl pool set web all-unhealthy refuse
check "expect 404 instead" klbctl pool set web check http path /missing expect 404 "${CHECK[@]}"
wait_health 60 "healthy healthy healthy" || fail "all healthy with expect 404 (got $(healths))"
ok "expect 404: $(healths)"

# ---- body ---------------------------------------------------------------------------
check "check http body be1" klbctl pool set web check http path / body be1 "${CHECK[@]}"
wait_health 60 "healthy unhealthy unhealthy" || fail "only be1 healthy (got $(healths))"
check_eq "body mismatch: the error" "$(error_of "$(be4 2)")" "http check: body mismatch"
r=$(http_n 10 "http://$VIP4/" | tally)
check_eq "only be1 answers" "$(echo $r)" "be1 10"
check "check http body be (all match)" klbctl pool set web check http path / body be "${CHECK[@]}"
wait_health 60 "healthy healthy healthy" || fail "body: all healthy again (got $(healths))"

# ---- tcp ------------------------------------------------------------------------------
check "check tcp port 81" klbctl pool set web check tcp port 81 "${CHECK[@]}"
wait_health 60 "unhealthy unhealthy unhealthy" || fail "tcp 81: all unhealthy (got $(healths))"
check_eq "tcp: the error" "$(error_of "$(be4 3)")" "tcp check: connection refused"
check "check tcp (the backend's port)" klbctl pool set web check tcp "${CHECK[@]}"
wait_health 60 "healthy healthy healthy" || fail "tcp: all healthy (got $(healths))"

# ---- drop: the timeout path -------------------------------------------------------------
check "nft drop in be3" be 3 nft 'add table inet hc; add chain inet hc in { type filter hook input priority 0; }; add rule inet hc in tcp dport 80 drop'
wait_health 60 "healthy healthy unhealthy" || fail "drop: be3 unhealthy (got $(healths))"
check_eq "drop: the error" "$(error_of "$(be4 3)")" "tcp check: connect timeout"
check "nft drop removed" be 3 nft delete table inet hc
wait_health 60 "healthy healthy healthy" || fail "drop: be3 back (got $(healths))"

# ---- slow answer: the answer timeout -------------------------------------------------------
bg "${NS_BE[1]}" "$PY" "$SELFTESTS/l7_backend.py" serve --name slow --port 8080 \
	--log "$TMPD/slow.log" --pidfile "$TMPD/slow.pid" >"$TMPD/slow.out" 2>&1
wait_for "slow backend ready" lb curl -s --max-time 3 -o /dev/null "http://$(be4 1):8080/ready"
check "check http port 8080 path /delay/3000" klbctl pool set web check http port 8080 path /delay/3000/x "${CHECK[@]}"
poll_until 60 eval '[ "$(health_of $(be4 1))" = unhealthy ]'
check_eq "slow: be1 unhealthy" "$(health_of "$(be4 1)")" unhealthy
check_eq "slow: the error" "$(error_of "$(be4 1)")" "http check: answer timeout"
check "check http port 8080 path /fast" klbctl pool set web check http port 8080 path /fast "${CHECK[@]}"
poll_until 60 eval '[ "$(health_of $(be4 1))" = healthy ]'
check_eq "fast again: be1 healthy" "$(health_of "$(be4 1)")" healthy

# ---- check none ------------------------------------------------------------------------------
check "check none" klbctl pool set web check none
check_eq "check none: no health shown" "$(klbctl -j pool show web | jq -r '.[0].check, .[0].backends[0].health')" "null
null"
check_eq "save without a check" "$(klbctl save | grep '^pool add web')" "pool add web sched rr"

# ---- unload with probes in flight ---------------------------------------------------------------
check "check http, short interval" klbctl pool set web check http interval 100ms timeout 100ms
sleep 1
rmmod_within 30 "rmmod with probes in flight"
