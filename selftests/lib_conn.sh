# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Long-lived connections (sourced by lib.sh, not on its own): a TCP
# connection from the client that stays open and idle while the test
# changes klb under it (drain, maxconn, a sysctl, rmmod, ...) or sends ICMP
# errors about it, and that is then used (does it still answer, and which
# backend does?) or just closed.
#
# One mechanism for all of them: hold_open connects from a bash in the
# client's namespace (bash /dev/tcp: nothing to start but the shell, and no
# byte sent until asked), which then waits for its command in a file; the
# test gives it with hold_release (send a request, print the answer) or
# hold_close (close without one). A file, not a signal: the $! of
# `cli ... &` is the subshell that runs ip netns exec, not the bash that
# holds the socket, and killing it leaves the connection open. If no
# command comes, the teardown kills the bash with its namespace. The files
# of connection ID, in $TMPD:
#   holdID.state  "open" once connected ("fail" if not), "done" once finished
#   holdID.go     the command: "close", or the seconds to wait for the
#                 answer to GET /name
#   holdID.out    that answer

# hold_open [-s SVC] ID ADDR PORT: from the client, open a TCP connection to
# ADDR:PORT and keep it idle until hold_release ID or hold_close ID; bails
# if it cannot connect. ID is any word; that of a finished connection may
# be used again.
# -s SVC: then wait (poll_until, 20 s) until klb lists an established
# connection of service SVC and put the first such entry of `klbctl -j
# conn show` in HELD (this one while it is the service's only established
# connection): what klb made of it (backend, client and local addresses
# and ports), read with jf.
hold_open() {
	local f svc=
	if [ "$1" = -s ]; then
		svc=$2
		shift 2
	fi
	f=$TMPD/hold$1
	rm -f "$f".*
	cli bash -c '
		exec 3<>"/dev/tcp/$1/$2" || { echo fail >"$3.state"; exit 1; }
		echo open >"$3.state"
		while [ ! -e "$3.go" ]; do sleep 0.1; done
		go=$(cat "$3.go")
		if [ "$go" != close ]; then
			printf "GET /name HTTP/1.0\r\n\r\n" >&3 2>/dev/null
			timeout "$go" cat <&3 >"$3.out" 2>/dev/null
		fi
		echo done >"$3.state"' _ "$2" "$3" "$f" &
	wait_for "connection $1 open" grep -q . "$f.state"
	[ "$(cat "$f.state")" = open ] || bail "connection $1 to $2:$3"
	[ -n "$svc" ] || return 0
	poll_until 20 sh -c "ip netns exec $NS_LB $KLBCTL -j conn show service $svc |
		jq -e '[.[] | select(.state == \"established\")] | length > 0'"
	HELD=$(klbctl -j conn show service "$svc" | jq -c '[.[] | select(.state == "established")][0]')
}
# jf KEY: a field of $HELD (hold_open -s)
jf() { jq -r ".$1" <<<"$HELD"; }

# _hold_go ID COMMAND: give connection ID its command. Written aside and
# renamed: the client's bash reads the file as soon as it exists, and must
# not find it empty.
_hold_go() {
	local f=$TMPD/hold$1
	echo "$2" >"$f.go.tmp" && mv "$f.go.tmp" "$f.go"
}

# hold_release ID [TIMEOUT]: send GET /name on connection ID and print the
# answer ("beN") or nothing if the connection is dead, waiting for it at
# most TIMEOUT seconds (10). The connection is closed after.
hold_release() {
	local f=$TMPD/hold$1
	_hold_go "$1" "${2:-10}"
	poll_until $((${2:-10} + 20)) grep -q "done" "$f.state"
	grep -o '^be[0-9]*' "$f.out" 2>/dev/null
}

# hold_close ID: close connection ID without a request (the client's FIN)
hold_close() {
	_hold_go "$1" close
	poll_until 20 grep -q "done" "$TMPD/hold$1.state" || diag "connection $1 not closed within 20 s"
	return 0
}

# ---- ICMP errors about a held connection -----------------------------------

# icmp_counter NS: the ICMP errors of the kind klb_icmp.py sends that
# namespace NS received (IPv4 and IPv6 summed)
icmp_counter() {
	ip netns exec "$1" nstat -asz IcmpInDestUnreachs Icmp6InPktTooBigs |
		awk '$1 == "IcmpInDestUnreachs" || $1 == "Icmp6InPktTooBigs" {n += $2} END {print n + 0}'
}

# icmp_reaches_backend DESC SVC VIP [PORT]: hold a connection to VIP:PORT
# (80), then send the VIP an ICMP error quoting a VIP -> client segment of
# it (as a router on the way to the client would): klb must send it on to
# the backend that holds the connection (its ICMP in-counter rises) so that
# the backend's socket learns the path MTU.
icmp_reaches_backend() {
	local desc=$1 svc=$2 vip=$3 port=${4:-80} n before after
	hold_open -s "$svc" icmp "$vip" "$port"
	n=$(be_name "$(jf backend)")
	n=${n#be}
	before=$(icmp_counter "${NS_BE[n]}")
	cli "$PY" "$SELFTESTS/klb_icmp.py" --to "$vip" --qsrc "$vip" --qsport "$port" \
		--qdst "$(jf client)" --qdport "$(jf client_port)" || diag "klb_icmp.py failed"
	poll_until 10 sh -c "[ \$(ip netns exec ${NS_BE[n]} nstat -asz IcmpInDestUnreachs Icmp6InPktTooBigs |
		awk '{n += \$2} END {print n + 0}') -gt $before ]"
	after=$(icmp_counter "${NS_BE[n]}")
	check "$desc (ICMP errors received by be$n: $before -> $after)" test "$after" -gt "$before"
	hold_close icmp
}
