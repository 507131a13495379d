#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of tools/vm/demo (runs inside the VM, as root). Uses the
# selftests' topology (selftests/lib.sh):
#
#   client ns --veth-- balancer ns (klb) --bridge-- be1, be2, be3 (nginx)
#   10.0.0.2           10.0.0.1 | 10.0.1.1          10.0.1.11 .12 .13
#                      VIP 10.0.100.1:80 (nat), :8080 (http)
#
# Part 1: L4 (mode nat) with a weighted pool; part 2: L7 (mode http)
# routing by host and by path; then a short "what you just saw".
set -u
requests=60
weights="1 2 3"
sched=wrr
while [ $# -gt 0 ]; do
	case "$1" in
	--requests) requests=$2; shift 2 ;;
	--weights) weights=$2; shift 2 ;;
	--sched) sched=$2; shift 2 ;;
	*) shift ;;
	esac
done

source "$(dirname "$0")/../../selftests/lib.sh"
exec {_tap_fd}>/dev/null	# the library's TAP lines are not for the demo

say() { printf '\n== %s\n' "$*"; }
run() { printf '  $ %s\n' "$*"; "$@" 2>&1 | sed 's/^/    /'; return "${PIPESTATUS[0]}"; }
k() { run ip netns exec "$NS_LB" klbctl "$@"; }
cleanup() {
	_kill_ns_pids
	for ns in "${_ns_made[@]}"; do ip netns del "$ns" 2>/dev/null; done
	[ $_klb_loaded -eq 1 ] && klb_unload
	rm -rf "$TMPD"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
export PATH="$KLB_SRC/tools/klbctl:$PATH"

say "klb demo on kernel $(uname -r)"
say "loading klb.ko"
klb_load
run sh -c "lsmod | grep -E '^(klb|nf_)'"

say "namespaces: client $NS_CLI, balancer $NS_LB, backends ${NS_BE[1]} ${NS_BE[2]} ${NS_BE[3]}"
topo_setup 3
for i in 1 2 3; do nginx_l7_start $i; done
for i in 1 2 3; do nginx_l7_wait $i; done
for i in 1 2 3; do printf '  be%s  %s  nginx answers "%s"\n' $i "$(be4 $i)" "$(be $i curl -s "http://$(be4 $i)/")"; done

say "configuring klb in the balancer namespace"
k pool add web sched "$sched"
set -- $weights
for i in 1 2 3; do
	k backend add web "$(be4 $i):80" weight "${!i:-1}"
done
k service add web vip "$VIP4:80" proto tcp mode nat pool web
k pool show

say "$requests HTTP requests from the client: curl http://$VIP4/ (a new connection each)"
t0=$SECONDS
out=$(http_n "$requests" "http://$VIP4/")
secs=$((SECONDS - t0))
answered=$(grep -c '^be' <<<"$out")
tally=$(tally <<<"$out")
for i in 1 2 3; do
	c=$(count_of "be$i" "$tally")
	printf '  be%s (weight %s): %3s  %s\n' $i "${!i:-1}" "$c" "$(printf '#%.0s' $(seq 1 "$c") 2>/dev/null | head -c "$c")"
done
echo "  $answered of $requests answered in ${secs}s"

say "klbctl -s pool show"
k -s pool show
say "klbctl -s service show"
k -s service show
say "klbctl conn show (first 8)"
run sh -c "ip netns exec $NS_LB klbctl conn show | head -8"

say "L7: an http service on $VIP4:8080 that routes each request by host and path"
k pool add api
k backend add api "$(be4 3):80"
k pool add static
k backend add static "$(be4 1):80"
k backend add static "$(be4 2):80"
k service add site vip "$VIP4:8080" proto tcp mode http pool web
k rule add site host api.example.com pool api
k rule add site path /static/ pool static
k rule show site

say "12 requests to http://$VIP4:8080 from the client, 4 of each kind"
l7ok=0
l7req() {	# l7req POOL WANT DESC CURL_ARGS...: WANT = POOL's backends
	local pool=$1 want=$2 desc=$3 got= i b
	shift 3
	for i in 1 2 3 4; do
		b=$(cli curl -s --max-time 5 "$@")
		got+=" ${b:-none}"
		[[ " $want " == *" ${b:-none} "* ]] && l7ok=$((l7ok + 1))
	done
	printf '  %-42s -> %s  (pool %s: %s)\n' "$desc" "${got# }" "$pool" "$want"
}
l7req api "be3" "Host: api.example.com  GET /v1/users" -H "Host: api.example.com" "http://$VIP4:8080/v1/users"
l7req static "be1 be2" "Host: www.example.com  GET /static/app.js" -H "Host: www.example.com" "http://$VIP4:8080/static/app.js"
l7req web "be1 be2 be3" "Host: www.example.com  GET /" -H "Host: www.example.com" "http://$VIP4:8080/"
echo "  $l7ok of 12 went to a backend of the pool their rule names"

say "klbctl -s service show site (L7 counters)"
k -s service show site
say "klbctl stats (the whole namespace)"
k stats

say "unloading klb"
_kill_ns_pids
for ns in "${_ns_made[@]}"; do ip netns del "$ns" 2>/dev/null; done
_ns_made=()
if klb_unload; then
	_klb_loaded=0
	echo "  rmmod klb: ok"
else
	echo "  rmmod klb: FAILED"
	exit 1
fi
cat <<WHAT

== What you just saw
  - klb.ko loaded with a plain insmod (it loads nf_defrag_ipv4/6 itself).
  - L4, mode nat: $answered of $requests new connections to the VIP $VIP4:80 were
    spread by the $sched scheduler over three nginx backends in proportion
    to their weights ($weights). The VIP is on no interface: klb's netfilter
    hooks steer its packets and translate the replies back.
  - L7, mode http: klb terminated the client connections on $VIP4:8080 in
    the kernel and routed each request by Host (api.example.com -> pool
    api) and path prefix (/static/ -> pool static), the rest to pool web;
    $l7ok of 12 went where their rule said. The counters count requests and
    responses by status class.
  - All of it configured with klbctl in the balancer's network namespace,
    and gone with rmmod klb.
  Next: README.md (klbctl), Documentation/deploy.md (a real machine).
WHAT
if [ "$answered" -ne "$requests" ] || [ "$l7ok" -ne 12 ]; then
	echo "demo: $answered of $requests L4 requests answered, $l7ok of 12 L7 requests routed as expected" >&2
	exit 1
fi
echo
echo "demo: ok"
