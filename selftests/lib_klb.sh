# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# klb's configuration and state as klbctl shows them (sourced by lib.sh,
# not on its own): klbctl in the balancer's namespace, the usual service,
# and readers of klb's counters and connection table that print what a
# test then compares.

# klbctl runs in the balancer namespace: klb's state is per netns.
klbctl() { ip netns exec "$NS_LB" "$KLBCTL" "$@"; }
# cfg WORDS...: a klbctl command that must succeed, as a test point
cfg() { check "klbctl $*" klbctl "$@"; }

# ---- configuration -------------------------------------------------------------

# basic_service [SCHED]: pool "web" with the NBE backends (weight 1), service
# "web" on VIP4:80/tcp
basic_service() {
	local i
	check "pool add web sched ${1:-rr}" klbctl pool add web sched "${1:-rr}"
	for i in $(seq 1 "$NBE"); do
		check "backend add web $(be4 "$i"):80" klbctl backend add web "$(be4 "$i"):80"
	done
	check "service add web vip $VIP4:80" klbctl service add web vip $VIP4:80 proto tcp mode nat pool web
}

# pool_set_refused POOL SAVE DESC MESSAGE_PATTERN WORDS...: `klbctl pool
# set POOL WORDS...` fails with a message matching the pattern, and
# `klbctl save` is still SAVE (the health tests' bad input).
pool_set_refused() {
	local pool=$1 save=$2 desc=$3 pat=$4 out rc
	shift 4
	out=$(klbctl pool set "$pool" "$@" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && grep -qE "$pat" <<<"$out"; then
		ok "$desc: refused ($out)"
	else
		fail "$desc: rc $rc, message '$out' (want /$pat/)"
	fi
	check_eq "$desc: configuration unchanged" "$(klbctl save)" "$save"
}

# ---- klb state ----------------------------------------------------------------
# JSON is read with jq (Debian package jq, in tools/deps.sh).

# svc_stat SVC KEY: one counter of a service (KEY conns, pkts_in, ..., drops.no_backend)
svc_stat() {
	klbctl -j -s service show | jq -r --arg n "$1" ".[] | select(.name == \$n) | .stats.$2"
}
# be_stat POOL ADDR PORT KEY: one counter of a backend
be_stat() {
	klbctl -j -s pool show |
		jq -r --arg n "$1" --arg a "$2" --argjson p "$3" \
			".[] | select(.name == \$n) | .backends[] | select(.addr == \$a and .port == \$p) | .stats.$4"
}
# pool_stat POOL KEY: "ADDR VALUE" per backend of POOL
pool_stat() {
	klbctl -j -s pool show |
		jq -r --arg n "$1" ".[] | select(.name == \$n) | .backends[] | \"\\(.addr) \\(.stats.$2)\""
}
# conn_count [SVC]: entries of `klbctl conn show` (of service SVC)
conn_count() {
	klbctl -j conn show ${1:+service "$1"} | jq -r 'length'
}
# conn_backends [SVC]: the backend address of each connection, one a line
conn_backends() {
	klbctl -j conn show ${1:+service "$1"} | jq -r '.[].backend'
}
# be_name ADDR: "beN" for a backend address (v4 or v6)
be_name() {
	local i
	for i in 1 2 3 4 5 6; do
		[ "$1" = "$(be4 $i)" ] || [ "$1" = "$(be6 $i)" ] && { echo "be$i"; return; }
	done
	echo "?$1"
}
