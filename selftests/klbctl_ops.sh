#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What an operator runs against a live klb, beyond configuring it:
#   - klbctl stats metrics: every service, backend, L7 and connection-table
#     figure in the Prometheus text format, accepted by `promtool check
#     metrics` (and a broken copy refused, so the check can fail), with the
#     values the JSON counters have
#   - klbctl stats show: connection table fill against conn_max, L7
#     sessions and listeners, object counts
#   - stats zero service / pool zero / stats zero: counters restart from 0,
#     of that object only; counting goes on from there
#   - -s -s: per-second rates from two samples while traffic flows
#   - backend show POOL, -p (pretty JSON), -n NETNS, -b FILE
#   - klb.service's ExecStart, ExecReload and ExecStop lines, run as systemd
#     would (in the balancer's namespace): restore, restore again, flush
#   - bash completion offers the pool and service names of the kernel
# Topology: lib.sh's (client, balancer, be1..3 with nginx); services
# web (nat, VIP4:80) and site (http, VIP4:8080) on pool web.
source "$(dirname "$0")/lib.sh"
klb_test_init "metrics (promtool), stats, zero, rates, backend show, -p -n -b, completion"
PROMTOOL=$(command -v promtool)
command -v wrk >/dev/null || skip_all "wrk not installed"

klb_load
l7_require http
topo_setup
backends_start
basic_service rr
check "service add site (http)" klbctl service add site vip $VIP4:8080 proto tcp mode http pool web

r=$(http_n 6 "http://$VIP4/" | wc -l)
check_eq "6 requests through web (nat)" "$r" 6
r=$(http_n 4 "http://$VIP4:8080/" | wc -l)
check_eq "4 requests through site (http)" "$r" 4

# ---- metrics
m=$TMPD/metrics.prom
if klbctl stats metrics >"$m"; then ok "stats metrics"; else fail "stats metrics"; fi
if [ -z "$PROMTOOL" ]; then
	skip "promtool check metrics" "promtool not installed (Debian package prometheus)"
elif out=$("$PROMTOOL" check metrics <"$m" 2>&1); then
	ok "promtool check metrics accepts the output"
else
	fail "promtool check metrics accepts the output"
	diag "$out"
fi
# The same without one HELP line: promtool must object, or the check above
# proves nothing.
grep -v '^# HELP klb_service_connections_total' "$m" >"$TMPD/bad1.prom"
if [ -z "$PROMTOOL" ]; then
	:
elif "$PROMTOOL" check metrics <"$TMPD/bad1.prom" >/dev/null 2>&1; then
	fail "promtool refuses a family without HELP"
else
	ok "promtool refuses a family without HELP"
fi
metric() { awk -v k="$1" '$1 == k {print $2}' "$m"; }
check_eq "klb_service_connections_total web" "$(metric 'klb_service_connections_total{service="web"}')" "$(svc_stat web conns)"
check_eq "klb_service_l7_requests_total site" "$(metric 'klb_service_l7_requests_total{service="site"}')" 4
check_eq "klb_service_l7_responses_total site 2xx" "$(metric 'klb_service_l7_responses_total{service="site",class="2xx"}')" 4
check_eq "klb_service_packets_total web in" "$(metric 'klb_service_packets_total{service="web",direction="in"}')" "$(svc_stat web pkts_in)"
check_eq "klb_service_drops_total web no_backend" "$(metric 'klb_service_drops_total{service="web",reason="no_backend"}')" 0
check_eq "klb_backend_connections_total be1" "$(metric "klb_backend_connections_total{pool=\"web\",backend=\"$(be4 1):80\"}")" "$(be_stat web "$(be4 1)" 80 conns)"
check_eq "klb_conn_table_max = net.klb.conn_max" "$(metric klb_conn_table_max)" "$(lb sysctl -n net.klb.conn_max)"
check_eq "klb_l7_listeners" "$(metric klb_l7_listeners)" 1
check_eq "klb_services" "$(metric klb_services)" 2
check_eq "klb_backends" "$(metric klb_backends)" 3
check_eq "klb_build_info has the version of klb.ko" "$(grep -c "^klb_build_info{version=\"$(modinfo -F version "$KLB_KO")\"} 1$" "$m")" 1
# every family has HELP and TYPE, every sample a family
fams=$(awk '/^# TYPE/ {print $3}' "$m" | sort)
check_eq "HELP for every TYPE" "$(awk '/^# HELP/ {print $3}' "$m" | sort)" "$fams"
check_eq "no sample outside a family" "$(grep -v '^#' "$m" | sed 's/[{ ].*//' | sort -u | grep -vxFf <(echo "$fams") | tr '\n' ' ')" ""
check_range "every service counter: 8 families x 2 services" "$(grep -c '^klb_service_' "$m")" 30 60

# ---- global figures
j=$(klbctl -j stats show)
check_eq "stats show: conn_max" "$(jq -r '.[0].conn_table.max' <<<"$j")" "$(lb sysctl -n net.klb.conn_max)"
check_range "stats show: conn table entries" "$(jq -r '.[0].conn_table.entries' <<<"$j")" 0 100
check_eq "stats show: listeners" "$(jq -r '.[0].l7.listeners' <<<"$j")" 1
check_eq "stats show: services pools backends" "$(jq -r '.[0] | "\(.services) \(.pools) \(.backends)"' <<<"$j")" "2 1 3"
# The held connection sends no head: it lives for http_header_timeout (10 s
# by default, stretched by KLB_TIME_SCALE: on the debug kernel the session
# was gone before the stats were read)
check "sysctl http_header_timeout=$(tscale 10)" lb sysctl -qw net.klb.http_header_timeout="$(tscale 10)"
hold_open h1 $VIP4 8080
poll_until 20 eval '[ "$(klbctl -j stats show | jq -r ".[0].l7.sessions")" -ge 1 ]' &&
	ok "stats show: an open L7 session is counted" || fail "stats show: an open L7 session is counted"
hold_release h1 >/dev/null

# ---- zero
site_before=$(svc_stat site conns)
check "stats zero service web" klbctl stats zero service web
check_eq "web conns zeroed" "$(svc_stat web conns)" 0
check_eq "web pkts_in zeroed" "$(svc_stat web pkts_in)" 0
check_eq "site untouched" "$(svc_stat site conns)" "$site_before"
check_range "backends untouched" "$(be_stat web "$(be4 1)" 80 conns)" 1 100
check "pool zero web" klbctl pool zero web
check_eq "backend conns zeroed" "$(pool_stat web conns | awk '{s += $2} END {print s}')" 0
check "stats zero (all)" klbctl stats zero
check_eq "site conns zeroed" "$(svc_stat site conns)" 0
check_eq "site l7 requests zeroed" "$(svc_stat site http.requests)" 0
http_n 3 "http://$VIP4/" >/dev/null
check_eq "counting goes on after zero" "$(svc_stat web conns)" 3
if klbctl stats zero service nope 2>"$TMPD/err"; then fail "zero of a missing service fails"; else
	check_eq "zero of a missing service: exit 2, says why" "$? $(grep -c 'service nope does not exist' "$TMPD/err")" "2 1"
fi

# ---- -s -s rates
# wrk: 4 clients, a new connection for every request (as unload.sh)
bg "$NS_CLI" wrk -t 1 -c 4 -d 120s --timeout 2s -H "Connection: close" "http://$VIP4/" >/dev/null 2>&1
loop=$BG_PID
poll_until 30 eval '[ "$(svc_stat web conns)" -ge 30 ]' && ok "traffic flows for the rates" ||
	fail "traffic flows for the rates"
t0=$SECONDS
j=$(klbctl -j -s -s service show web)
check_range "-s -s takes two samples a second apart" $((SECONDS - t0)) 1 10
check_range "-s -s: conns/s while traffic flows" "$(jq -r '.[0].stats.rate.conns' <<<"$j")" 1 100000
check_range "-s -s: bytes/s in" "$(jq -r '.[0].stats.rate.bytes_in' <<<"$j")" 1 1000000000
check_range "-s -s backend show: conns/s summed" "$(klbctl -j -s -s backend show web | jq '[.[].stats.rate.conns] | add')" 1 100000
check "-s -s text has a rate line" sh -c "ip netns exec $NS_LB $KLBCTL -s -s pool show web | grep -q 'rate conns/s'"

kill -INT "$loop" 2>/dev/null
wait "$loop" 2>/dev/null

# ---- backend show, -p, -n, -b
check_eq "backend show web: 3 backends" "$(klbctl -j backend show web | jq length)" 3
check_eq "backend show: weights" "$(klbctl -j backend show web | jq -r '[.[].weight] | join(" ")')" "1 1 1"
p=$(klbctl -p pool show web)
check_eq "-p: the same document as -j" "$(jq -c . <<<"$p")" "$(klbctl -j pool show web | jq -c .)"
check_range "-p: indented, one member a line" "$(wc -l <<<"$p")" 10 1000
check_eq "-n NETNS: runs in that namespace" "$("$KLBCTL" -n "$NS_LB" -j pool show | jq -r '.[].name')" "web"
check_eq "-n NETNS: the initial namespace has no pools" "$("$KLBCTL" -j pool show | jq length)" 0
printf 'pool add b1 sched wrr\nbackend add b1 %s:80 weight 5\n# comment\nservice add b1 vip %s:81 proto tcp mode nat pool b1\n' \
	"$(be4 2)" $VIP4 >"$TMPD/batch"
check "-b FILE" "$KLBCTL" -n "$NS_LB" -b "$TMPD/batch"
check_eq "-b: the objects exist" "$(klbctl -j backend show b1 | jq -r '.[0].weight')" 5
printf 'pool add b2\npool add b3 sched nope\npool add b4\n' >"$TMPD/batch"
"$KLBCTL" -n "$NS_LB" -b "$TMPD/batch" 2>/dev/null
check_eq "-b: exit 1 at a bad word; lines before it done, after it not" \
	"$? $(klbctl -j pool show | jq -r '[.[].name] | sort | join(",")')" "1 b1,b2,web"

# ---- klb.service's commands (no systemd in the guest: run its Exec lines)
unit_in=$KLB_SRC/tools/systemd/klb.service.in
if [ -f "$unit_in" ]; then
	mkdir -p "$TMPD/etc/klb"
	sed -e "s|@SBINDIR@|$(dirname "$KLBCTL")|g" -e "s|@SYSCONFDIR@|$TMPD/etc|g" \
		-e "s|@DOCDIR@|/nonexistent|g" "$unit_in" >"$TMPD/klb.service"
	unit_exec() {	# unit_exec KEY: run the unit's KEY= command in the balancer ns
		local c
		c=$(sed -n "s/^$1=-\{0,1\}//p" "$TMPD/klb.service")
		[ -n "$c" ] || return 99
		# shellcheck disable=SC2086
		lb $c
	}
	klbctl save >"$TMPD/etc/klb/klb.conf"
	check "unit ExecStop (flush)" unit_exec ExecStop
	check_eq "after ExecStop: no services" "$(klbctl -j service show | jq length)" 0
	check "unit ExecStart (restore -f klb.conf)" unit_exec ExecStart
	check_eq "after ExecStart: the saved services" "$(klbctl -j service show | jq -r '[.[].name] | sort | join(",")')" "b1,site,web"
	printf 'pool add only\nbackend add only %s:80\nservice add only vip %s:82 proto tcp mode nat pool only\n' "$(be4 1)" $VIP4 \
		>"$TMPD/etc/klb/klb.conf"
	check "unit ExecReload (restore again)" unit_exec ExecReload
	check_eq "after ExecReload: the new file, atomically" "$(klbctl -j service show | jq -r '[.[].name] | join(",")')" "only"
	echo "pool add broken sched nope" >>"$TMPD/etc/klb/klb.conf"
	if unit_exec ExecReload 2>/dev/null; then fail "ExecReload of a broken file fails"; else ok "ExecReload of a broken file fails"; fi
	check_eq "a broken file changes nothing" "$(klbctl -j service show | jq -r '[.[].name] | join(",")')" "only"
	# put back what the completion check below expects
	klbctl flush && "$KLBCTL" -n "$NS_LB" -b - <<-EOF || fail "restore the test's configuration"
		pool add web
		backend add web $(be4 1):80
		backend add web $(be4 2):80
		backend add web $(be4 3):80
		pool add b1
		pool add b2
		service add web vip $VIP4:80 proto tcp mode nat pool web
		service add site vip $VIP4:8080 proto tcp mode http pool web
		service add b1 vip $VIP4:81 proto tcp mode nat pool b1
	EOF
else
	skip "klb.service commands" "tools/systemd/klb.service.in missing"
fi

# ---- completion: names from the kernel
comp=$KLB_SRC/tools/completion/test.sh
if [ -x "$comp" ] && [ -f /usr/share/bash-completion/bash_completion ]; then
	if out=$(ip netns exec "$NS_LB" "$comp" --live "$KLBCTL" 2>&1); then
		ok "completion offers the kernel's names (pools b1 b2 web, services b1 site web)"
	else
		fail "completion offers the kernel's names"
		diag "$out"
	fi
else
	skip "completion of kernel names" "bash-completion or tools/completion/test.sh missing"
fi
