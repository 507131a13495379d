# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The backends' servers (sourced by lib.sh, not on its own): nginx
# answering "beN\n" on port 80 and python UDP servers on UDP_PORT, in the
# backend namespaces of lib_topo.sh. The L7 tests' servers (nginx with a
# request log, l7_backend.py) are in lib_l7.sh.

# nginx_start N [nowait]: nginx in backend N answering GET / with "beN\n";
# /big/SIZE files are created by mkbig. Waits until it answers (nginx_wait)
# unless told nowait.
nginx_start() {
	local n=$1 d=$TMPD/be$1
	mkdir -p "$d/www/big" "$d/tmp" "$d/log"
	cat >"$d/nginx.conf" <<-EOF
		daemon on;
		master_process on;
		worker_processes 1;
		user root root;
		pid $d/nginx.pid;
		error_log $d/log/error.log warn;
		events { worker_connections 1024; }
		http {
			access_log off;
			client_body_temp_path $d/tmp/body;
			proxy_temp_path $d/tmp/proxy;
			fastcgi_temp_path $d/tmp/fastcgi;
			uwsgi_temp_path $d/tmp/uwsgi;
			scgi_temp_path $d/tmp/scgi;
			keepalive_timeout 30;
			client_header_timeout $(tscale 300)s;
			default_type text/plain;
			server {
				listen 80 reuseport;
				listen [::]:80 ipv6only=on reuseport;
				root $d/www;
				location = / { return 200 "be$n\n"; }
				location = /name { return 200 "be$n\n"; }
				location /big/ { }
			}
		}
	EOF
	be "$n" nginx -q -e "$d/log/error.log" -c "$d/nginx.conf" -p "$d" ||
		{ diag "$(cat "$d/log/error.log" 2>/dev/null)"; bail "nginx in be$n"; }
	[ "${2:-}" = nowait ] || nginx_wait "$n"
}
# nginx_wait N: until backend N's nginx answers over IPv4 and IPv6
nginx_wait() {
	wait_for "nginx be$1 ready" lb curl -s --max-time 2 -o /dev/null "http://$(be4 "$1")/"
	wait_for "nginx be$1 ready (v6)" lb curl -s -g --max-time 2 -o /dev/null "http://[$(be6 "$1")]/"
}

# mkbig NAME BYTES: a file served as /big/NAME by every backend
mkbig() {
	local i
	for i in $(seq 1 "$NBE"); do
		mkdir -p "$TMPD/be$i/www/big"
		head -c "$2" /dev/zero >"$TMPD/be$i/www/big/$1"
	done
}

# udp_start N...: UDP server in backends N... answering each datagram with
# "beN\n" (started together: python starts slowly under emulation)
udp_start() {
	local n
	for n in "$@"; do
		bg "${NS_BE[n]}" "$PY" "$SELFTESTS/klb_udp.py" serve --port $UDP_PORT --name "be$n" \
			--pidfile "$TMPD/udp$n.pid" >"$TMPD/udp$n.log" 2>&1
	done
	for n in "$@"; do
		wait_for "udp be$n ready" udp_probe lb "$(be4 "$n")" $UDP_PORT "be$n"
	done
}

# udp_probe NS_HELPER ADDR PORT WANT: one datagram (socat, connected socket:
# an answer from another source address is not received), answer == WANT
udp_probe() {
	local out
	out=$(echo x | "$1" socat -T2 - "UDP:$2:$3" 2>/dev/null)
	[ "$out" = "$4" ]
}

# backends_start: nginx in every backend, all started before the first is
# waited for (a process start is slow under emulation)
backends_start() {
	local i
	for i in $(seq 1 "$NBE"); do nginx_start "$i" nowait; done
	for i in $(seq 1 "$NBE"); do nginx_wait "$i"; done
}
