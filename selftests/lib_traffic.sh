# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The client's traffic (sourced by lib.sh, not on its own). The helpers
# print what answered ("beN" per request, counted by tally) or the sha256
# of the bytes moved, so that a test compares that with check_eq.

# http_n N URL [CURL_ARGS...]: N sequential requests from the client, each on
# a new TCP connection; prints the bodies (one "beN" per answered request).
http_n() {
	local n=$1 url=$2 urls=() i
	shift 2
	for ((i = 0; i < n; i++)); do urls+=("$url"); done
	cli curl -s -g --max-time 5 --connect-timeout 3 -H 'Connection: close' "$@" "${urls[@]}"
}

# tally: "beN count" lines from http_n output on stdin, sorted by name
tally() { sort | uniq -c | awk '{print $2" "$1}'; }

# count_of NAME TALLY: how many requests NAME answered
count_of() { awk -v n="$1" '$1 == n {print $2; f=1} END {if (!f) print 0}' <<<"$2"; }

# randfile PATH KB: random content; prints its sha256
randfile() {
	head -c "$(($2 * 1024))" /dev/urandom >"$1"
	sha256sum "$1" | cut -d' ' -f1
}

# upload_sha NS_BE ADDR PORT FILE: send FILE from the client to a socat in
# backend NS_BE listening on PORT (reached as ADDR:PORT); prints the
# sha256 of what the backend received (empty on failure)
upload_sha() {
	local bns=$1 addr=$2 port=$3 src=$4 dst=$TMPD/up.$RANDOM pid
	ip netns exec "$bns" socat -u "TCP6-LISTEN:$port,reuseaddr,ipv6only=0" "OPEN:$dst,creat,trunc" &
	pid=$!
	poll_until 10 sh -c "ip netns exec $bns ss -Htln 'sport = :$port' | grep -q ." ||
		diag "socat in $bns does not listen on $port"
	cli timeout 120 socat -u "FILE:$src" "TCP:$addr:$port,connect-timeout=5" 2>/dev/null
	local i
	for i in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	[ -s "$dst" ] && sha256sum "$dst" | cut -d' ' -f1
	rm -f "$dst"
}

# download_sha URL: sha256 of what the client gets from URL (curl -f)
download_sha() {
	cli timeout 300 bash -c 'set -o pipefail; curl -sSgf --max-time 280 "$1" | sha256sum' _ "$1" 2>/dev/null |
		cut -d' ' -f1
}
