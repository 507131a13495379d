# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for klb's L7 service modes, http and tls (sourced by lib.sh, not
# on its own): the l7_*.sh tests use them, and so do others that also try
# an http or tls service (maxconn, bulk, restore_hitless, klbctl_ops, ...).
#
# Backends: nginx_l7_start (nginx that logs every request with its connection
# number, optionally TLS too) and l7be_start (selftests/l7_backend.py: echo,
# bodies, delays, PROXY v2). Clients: curl, wrk, openssl, l7_raw (bytes as
# given over bash /dev/tcp) and selftests/l7_client.py (slow sender, split
# ClientHello).

# l7_require MODE: klb must create a MODE (http, tls) service: a probe in a
# scratch namespace, so that a refusal fails with klb's own message before
# the test builds its topology. The L7 engine is part of klb and needs
# nothing optional of the kernel (kernel TCP sockets only): a klb that
# refuses its own mode ("unknown mode", "Operation not supported" or any
# other answer) fails the test, never skips it. Call after klb_load, before
# topo_setup and before any test point.
l7_require() {
	local mode=$1 ns=klb-l7probe-$KLB_SUF out rc=0
	ns_add "$ns"
	out=$(ip netns exec "$ns" "$KLBCTL" pool add l7probe 2>&1 &&
		ip netns exec "$ns" "$KLBCTL" service add l7probe vip $VIP4:80 proto tcp \
			mode "$mode" pool l7probe 2>&1) || rc=$?
	ip netns exec "$ns" "$KLBCTL" flush >/dev/null 2>&1
	ip netns del "$ns"
	[ $rc -eq 0 ] && return 0
	diag "$out"
	bail "klb refuses its own mode $mode: service add ... mode $mode (probe in a scratch namespace)"
}

# l7_sysctl_bad NAME VALUE: writing VALUE to net.klb.NAME is refused with
# EINVAL and the value stays (two test points)
l7_sysctl_bad() {
	local old out
	old=$(lb sysctl -n "net.klb.$1")
	out=$(lb sysctl -w "net.klb.$1=$2" 2>&1)
	check "sysctl net.klb.$1=$2 refused: Invalid argument ($out)" grep -q "Invalid argument" <<<"$out"
	check_eq "net.klb.$1 unchanged after the refused write" "$(lb sysctl -n "net.klb.$1")" "$old"
}

# l7_sysctl NAME=VALUE...: set net.klb.NAME in the balancer, a test point each
l7_sysctl() {
	local kv
	for kv in "$@"; do
		check "sysctl net.klb.$kv" lb sysctl -qw "net.klb.$kv"
	done
}

# l7_certs NAME...: self-signed EC certificates $TMPD/pki/NAME.{crt,key},
# subject CN=NAME and DNS:NAME
l7_certs() {
	local n
	mkdir -p "$TMPD/pki"
	for n in "$@"; do
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
			-subj "/CN=$n" -addext "subjectAltName=DNS:$n" \
			-keyout "$TMPD/pki/$n.key" -out "$TMPD/pki/$n.crt" >"$TMPD/pki/$n.log" 2>&1 ||
			{ diag "$(cat "$TMPD/pki/$n.log")"; bail "openssl: certificate for $n"; }
	done
}

# nginx_l7_start N [CERT]: nginx in backend N, port 80 (v4 and v6; and 443 with TLS
# certificate CERT from l7_certs). Every path answers "beN\n" with the
# header X-Backend: beN, /xff answers the X-Forwarded-For it got, /big/*
# serves mkbig files. Each request is logged to $TMPD/beN/log/access.log as
#   CONNECTION REQUESTS_ON_IT METHOD URI STATUS host=HOST xff=XFF
# (CONNECTION: nginx's serial number of the TCP connection; one worker, so
# distinct numbers == distinct connections). Does not wait: nginx_l7_wait.
nginx_l7_start() {
	local n=$1 cert=${2:-} d=$TMPD/be$1 tls=
	mkdir -p "$d/www/big" "$d/tmp" "$d/log"
	[ -n "$cert" ] && tls="listen 443 ssl reuseport;
			ssl_certificate $TMPD/pki/$cert.crt;
			ssl_certificate_key $TMPD/pki/$cert.key;
			ssl_protocols TLSv1.2 TLSv1.3;"
	cat >"$d/nginx.conf" <<-EOF
		daemon on;
		master_process on;
		worker_processes 1;
		user root root;
		pid $d/nginx.pid;
		error_log $d/log/error.log warn;
		events { worker_connections 1000; }
		http {
			log_format l7 '\$connection \$connection_requests \$request_method \$request_uri \$status host=\$host xff=\$http_x_forwarded_for';
			access_log $d/log/access.log l7;
			client_body_temp_path $d/tmp/body;
			proxy_temp_path $d/tmp/proxy;
			fastcgi_temp_path $d/tmp/fastcgi;
			uwsgi_temp_path $d/tmp/uwsgi;
			scgi_temp_path $d/tmp/scgi;
			keepalive_timeout 300;
			keepalive_requests 1000000;
			client_header_timeout $(tscale 300)s;
			client_max_body_size 64m;
			default_type text/plain;
			server {
				listen 80 reuseport;
				listen [::]:80 ipv6only=on reuseport;
				$tls
				root $d/www;
				location / { add_header X-Backend be$n always; return 200 "be$n\n"; }
				location = /xff { add_header X-Backend be$n always; return 200 "\$http_x_forwarded_for\n"; }
				location /big/ { add_header X-Backend be$n always; }
			}
		}
	EOF
	: >"$d/log/access.log"
	be "$n" nginx -q -e "$d/log/error.log" -c "$d/nginx.conf" -p "$d" ||
		{ diag "$(cat "$d/log/error.log" 2>/dev/null)"; bail "nginx in be$n"; }
}
# nginx_l7_wait N [tls]: until backend N answers (over TLS too)
nginx_l7_wait() {
	wait_for "nginx be$1 ready" lb curl -s --max-time 2 -o /dev/null "http://$(be4 "$1")/ready"
	[ "${2:-}" = tls ] &&
		wait_for "nginx be$1 ready (tls)" lb curl -sk --max-time 2 -o /dev/null "https://$(be4 "$1")/ready"
	return 0
}
# nginx_log N: path of backend N's access log
nginx_log() { echo "$TMPD/be$1/log/access.log"; }
# nginx_reqs N PATTERN: requests in backend N's log whose line contains PATTERN
nginx_reqs() { awk -v p="$2" 'index($0, p) {n++} END {print n+0}' "$(nginx_log "$1")"; }
# nginx_conns N PATTERN: distinct TCP connections that carried those requests
nginx_conns() { awk -v p="$2" 'index($0, p) {print $1}' "$(nginx_log "$1")" | sort -u | wc -l; }

# l7be_start N [PROXY_PORT]: selftests/l7_backend.py in backend N on port 80
# (and PROXY_PORT, where a PROXY v2 header is required), named "beN",
# logging to $TMPD/py$N.log; waits until it answers. A request for
# .../gate/NAME is answered once gate_open NAME was called.
l7be_start() {
	local n=$1 pp=${2:-}
	: >"$TMPD/py$n.log"
	mkdir -p "$TMPD/gates"
	bg "${NS_BE[n]}" "$PY" "$SELFTESTS/l7_backend.py" serve --name "be$n" --port 80 \
		${pp:+--proxy-port "$pp"} --log "$TMPD/py$n.log" --pidfile "$TMPD/py$n.pid" \
		--gate-dir "$TMPD/gates" >"$TMPD/py$n.out" 2>&1
	wait_for "l7_backend.py be$n ready" lb curl -s --max-time 2 -o /dev/null "http://$(be4 "$n")/ready"
}
# py_log N: path of l7_backend.py's log in backend N
py_log() { echo "$TMPD/py$1.log"; }
# gate_open NAME: l7_backend.py answers its requests for .../gate/NAME
gate_open() { : >"$TMPD/gates/$1"; }

# l7_stat SVC JQ: an L7 counter of service SVC, JQ relative to its "http" or
# "tls" object: .requests, .responses."2xx", .errors.parse, .connections
l7_stat() {
	klbctl -j -s service show |
		jq -r --arg n "$1" ".[] | select(.name == \$n) | (.stats.http // .stats.tls // .http // .tls) | $2"
}
# l7_be_stat POOL ADDR PORT JQ: an L7 counter of one backend
l7_be_stat() {
	klbctl -j -s pool show |
		jq -r --arg n "$1" --arg a "$2" --argjson p "$3" \
			".[] | select(.name == \$n) | .backends[] | select(.addr == \$a and .port == \$p) |
			(.stats.http // .http) | $4"
}

# l7_raw ADDR PORT SECS: from the client, send stdin as is on one new TCP
# connection (bash /dev/tcp), print what comes back, then a last line
# "#closed" if the server ended the connection within SECS seconds (FIN or
# reset), "#open" if not, "#noconnect" if it could not connect.
# With L7_RAW_LIFE=FILE, also write to FILE the whole seconds from connect to
# that end, timed inside the client netns: a timeout check then measures the
# server and not how long ip netns exec and bash took to start on a busy VM.
l7_raw() {
	local f
	f=$(mktemp "$TMPD/raw.XXXXXX")
	cat >"$f"
	cli bash -c '
		exec 3<>"/dev/tcp/$1/$2" 2>/dev/null || { echo "#noconnect"; exit 0; }
		t0=${EPOCHREALTIME/[.,]/}
		cat "$4" >&3 2>/dev/null &
		w=$!
		timeout "$3" cat <&3 2>/dev/null
		r=$?
		t1=${EPOCHREALTIME/[.,]/}
		[ -n "$5" ] && echo $(((t1 - t0) / 1000000)) >"$5"
		echo
		[ $r -eq 124 ] && echo "#open" || echo "#closed"
		kill $w 2>/dev/null
		exec 3>&-' _ "$1" "$2" "$3" "$f" "${L7_RAW_LIFE:-}"
	rm -f "$f"
}
# http_statuses: the status code of each response in l7_raw output, in order
http_statuses() { grep -aoE '^HTTP/1\.[01] [0-9]{3}' | awk '{print $2}' | tr '\n' ' ' | sed 's/ $//'; }

# l7_client_mem_kib MODE: the anonymous memory and page tables (KiB) of the
# running `l7_idle_client.py MODE` (0 if none). The memory tests run their
# client in the VM they measure: what python holds per socket (~3.5 KiB)
# leaves MemAvailable too, and is no part of klb's cost.
l7_client_mem_kib() {
	local pid

	pid=$(pgrep -nf "l7_idle_client.py $1") || { echo 0; return; }
	awk '$1 == "RssAnon:" || $1 == "VmPTE:" {kib += $2} END {print kib + 0}' \
		"/proc/$pid/status" 2>/dev/null || echo 0
}
