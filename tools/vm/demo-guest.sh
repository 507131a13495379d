#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of tools/vm/demo (runs inside the VM, as root). Uses the
# selftests' topology (selftests/lib.sh):
#
#   client ns --veth-- balancer ns (klb) --bridge-- be1, be2, be3 (nginx)
#   10.0.0.2           10.0.0.1 | 10.0.1.1          10.0.1.11 .12 .13
#                      VIP 10.0.100.1:80
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
backends_start
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
if [ "$answered" -ne "$requests" ]; then
	echo "demo: only $answered of $requests requests were answered" >&2
	exit 1
fi
echo
echo "demo: ok"
