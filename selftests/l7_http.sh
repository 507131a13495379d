#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# http mode (L7): klb terminates the client's TCP connection on the VIP (not
# a local address of the balancer: clients route to it through the balancer,
# as in NAT mode) and routes each request. Real clients (curl, wrk, bash
# /dev/tcp) and real backends: nginx in be1..be3 (answer "beN", header
# X-Backend: beN, access log with nginx's connection number) and
# l7_backend.py in be4 (JSON echo, body sha256, chunked and big bodies,
# delays, PROXY v2 on port 81).
#
#   service web  VIP4:80   default pool p3 (be3), rules:
#     0 host a.example.com -> p1 (be1)     4 method DELETE -> p2
#     1 host *.wild.example.com -> p2      5 path /py/ -> py (be4)
#     2 path /api/ -> p2 (be2)             6 path /empty/ -> empty (none)
#     3 header X-Route=blue -> p1          7 path /all/ -> web (be1..3, rr)
#                                          8 host multi.example.com path /m/ -> p1
#   service pp   VIP4:8080 pool pp (be4:81), proxy-protocol v2
#
# Checks: routing by host (exact, wildcard, case, :port), path prefix,
# header, method, first match wins, both matchers of a rule; rule show/del
# and order; refused rule/pool changes; keep-alive reuse (120 client
# connections and wrk -c4: backends see a few TCP connections, counted by
# nginx's $connection); client keep-alive; pipelining answered in order;
# X-Forwarded-For added/appended; 1 MB bodies both ways, Content-Length and
# chunked, sha256 end to end; Expect: 100-continue; PROXY v2 (addresses, not
# shared between clients, service set); 503 without a usable backend;
# http counters of the service and of backends; HTTP/1.0 clients;
# l7_max_conns; an IPv6 VIP (service web6 [VIP6]:80, pool p6 = be3 over v6).
#
# Fails if klb refuses its own http mode (l7_require: never a skip).
source "$(dirname "$0")/lib.sh"
klb_test_init "http mode: routing, keep-alive, pipelining, XFF, bodies, PROXY v2, 503, counters"
for c in wrk timeout sha256sum; do
	command -v $c >/dev/null || skip_all "$c not installed"
done

klb_load
l7_require http

topo_setup 4
for i in 1 2 3; do nginx_l7_start $i; done
for i in 1 2 3; do nginx_l7_wait $i; done
l7be_start 4 81
B1=$(be4 1) B2=$(be4 2) B3=$(be4 3) B4=$(be4 4)

refused() {
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then
		fail "$desc"
		diag "command succeeded: $*"
	else
		ok "$desc"
	fi
}
delta() { echo $(($2 - $1)); }

for p in p1 p2 p3 py pp empty; do cfg pool add $p; done
cfg pool add web sched rr
cfg backend add p1 $B1:80
cfg backend add p2 $B2:80
cfg backend add p3 $B3:80
cfg backend add py $B4:80
cfg backend add pp $B4:81
for b in $B1 $B2 $B3; do cfg backend add web $b:80; done
cfg service add web vip $VIP4:80 proto tcp mode http pool p3
cfg rule add web host a.example.com pool p1
cfg rule add web host '*.wild.example.com' pool p2
cfg rule add web path /api/ pool p2
cfg rule add web header X-Route=blue pool p1
cfg rule add web method DELETE pool p2
cfg rule add web path /py/ pool py
cfg rule add web path /empty/ pool empty
cfg rule add web path /all/ pool web
cfg rule add web host multi.example.com path /m/ pool p1
cfg service add pp vip $VIP4:8080 proto tcp mode http pool pp proxy-protocol v2

got=$(klbctl -j rule show web | jq -c '[.[] | [.index, .host, .path, .header, .method, .sni, .pool]]')
check_eq "rule show -j: the 9 rules in order" "$got" \
	'[[0,"a.example.com",null,null,null,null,"p1"],[1,"*.wild.example.com",null,null,null,null,"p2"],[2,null,"/api/",null,null,null,"p2"],[3,null,null,"X-Route=blue",null,null,"p1"],[4,null,null,null,"DELETE",null,"p2"],[5,null,"/py/",null,null,null,"py"],[6,null,"/empty/",null,null,null,"empty"],[7,null,"/all/",null,null,null,"web"],[8,"multi.example.com","/m/",null,null,null,"p1"]]'
refused "rule add: sni on an http service is refused" klbctl rule add web sni a.example.com pool p1
refused "rule add: unknown pool is refused" klbctl rule add web path /x/ pool nosuch
refused "rule add: unknown service is refused" klbctl rule add nosuch path /x/ pool p1
refused "pool del: a pool used by a rule is refused" klbctl pool del p2
refused "rule del: index out of range is refused" klbctl rule del web 9
check_eq "still 9 rules" "$(klbctl -j rule show web | jq length)" 9

# ---- routing: one curl, one client connection, one request per line -------
# route WANT DESC PATH [CURL_ARGS...]
rargs=() rwant=() rdesc=()
route() {
	local want=$1 desc=$2 path=$3
	shift 3
	[ ${#rargs[@]} -gt 0 ] && rargs+=(--next)
	rargs+=(-s -o /dev/null --max-time 10 -w '%{http_code} %header{x-backend} %{num_connects}\n' "$@" "http://$VIP4$path")
	rwant+=("200 $want")
	rdesc+=("$desc")
}
route be1 "host a.example.com -> p1" / -H 'Host: a.example.com'
route be1 "host is case-insensitive (A.Example.COM)" / -H 'Host: A.Example.COM'
route be1 "host :port is ignored (a.example.com:8080)" / -H 'Host: a.example.com:8080'
route be2 "wildcard host x.wild.example.com -> p2" / -H 'Host: x.wild.example.com'
route be2 "wildcard host, two labels (x.y.wild.example.com)" / -H 'Host: x.y.wild.example.com'
route be3 "wildcard does not match wild.example.com itself" / -H 'Host: wild.example.com'
route be2 "path /api/v1/users -> p2" /api/v1/users
route be3 "path /apix is no /api/ prefix" /apix
route be3 "path is case-sensitive (/API/v1)" /API/v1
route be3 "the query is not matched (/x?p=/api/)" '/x?p=/api/'
route be1 "header X-Route: blue -> p1" / -H 'X-Route: blue'
route be1 "header name case-insensitive (x-route)" / -H 'x-route: blue'
route be3 "header value case-sensitive (Blue)" / -H 'X-Route: Blue'
route be2 "method DELETE -> p2" / -X DELETE
route be1 "first matching rule wins (host a.example.com, path /api/)" /api/x -H 'Host: a.example.com'
route be1 "rule with host and path: both match" /m/x -H 'Host: multi.example.com'
route be3 "rule with host and path: only one matches" /n -H 'Host: multi.example.com'
route be3 "no rule matches: default pool" /
N=${#rwant[@]}
req0=$(l7_stat web .requests)
ok0=$(l7_stat web '.responses."2xx"')
out=$(cli curl "${rargs[@]}")
mapfile -t lines <<<"$out"
for ((i = 0; i < N; i++)); do
	check_eq "route: ${rdesc[i]}" "$(cut -d' ' -f1,2 <<<"${lines[i]:-}")" "${rwant[i]}"
done
check_eq "route: the $N requests went over one client connection (keep-alive)" \
	"$(awk '{s += $3} END {print s+0}' <<<"$out")" 1
check_eq "counters: http.requests grew by $N" "$(delta "$req0" "$(l7_stat web .requests)")" $N
check_eq "counters: http.responses.2xx grew by $N" "$(delta "$ok0" "$(l7_stat web '.responses."2xx"')")" $N

# rule del: later rules move up; a rule added again goes last
cfg rule del web 0
check_eq "rule del 0: 8 rules, the wildcard one is now index 0" \
	"$(klbctl -j rule show web | jq -c '[length, .[0].index, .[0].host]')" '[8,0,"*.wild.example.com"]'
r=$(cli curl -s --max-time 10 -H 'Host: a.example.com' "http://$VIP4/")
check_eq "rule del 0: host a.example.com goes to the default pool" "$r" be3
cfg rule add web host a.example.com pool p1
r=$(cli curl -s --max-time 10 -H 'Host: a.example.com' "http://$VIP4/api/x")
check_eq "rule added again, now last: path /api/ wins over it" "$r" be2
r=$(cli curl -s --max-time 10 -H 'Host: a.example.com' "http://$VIP4/")
check_eq "rule added again: host a.example.com -> p1" "$r" be1

# ---- keep-alive to the backends ---------------------------------------------
# 120 requests, each on a new client connection (Connection: close); pool web
# (rr over be1..3) must reuse its backend connections.
conns0=$(svc_stat web conns)
r=$(http_n 120 "http://$VIP4/all/ka" | tally)
check_eq "keep-alive: 120 requests on 120 client connections, rr 40/40/40" "$(echo $r)" "be1 40 be2 40 be3 40"
check_eq "keep-alive: the service counted 120 client connections" "$(delta "$conns0" "$(svc_stat web conns)")" 120
reqs=0 bconns=0
for i in 1 2 3; do
	reqs=$((reqs + $(nginx_reqs $i " /all/ka "))) bconns=$((bconns + $(nginx_conns $i " /all/ka ")))
done
check_eq "keep-alive: the backends logged 120 requests" $reqs 120
check_range "keep-alive: ... over at most 6 TCP connections (nginx \$connection)" $bconns 3 6
diag "keep-alive: 120 client connections -> $bconns backend connections"

# HTTP/1.0 clients: klb still keeps its backend connections alive
r=$(http_n 9 "http://$VIP4/all/h10" -0 | tally)
check_eq "HTTP/1.0 clients: 9 requests answered, rr 3/3/3" "$(echo $r)" "be1 3 be2 3 be3 3"
bconns=0
for i in 1 2 3; do bconns=$((bconns + $(nginx_conns $i " /all/h10 "))); done
check_range "HTTP/1.0 clients: ... over at most 3 backend connections" $bconns 1 3

# wrk: 4 concurrent client connections
wout=$(cli timeout 40 wrk -t2 -c4 -d4s --timeout 5s "http://$VIP4/all/wrk" 2>&1)
diag "$(grep -E 'requests in|Non-2xx|Socket errors' <<<"$wout")"
reqs=0 bconns=0
for i in 1 2 3; do
	reqs=$((reqs + $(nginx_reqs $i " /all/wrk "))) bconns=$((bconns + $(nginx_conns $i " /all/wrk ")))
done
wreqs=$(awk '/requests in/ {print $1}' <<<"$wout")
check_range "wrk -c4: requests completed" "${wreqs:-0}" 20 100000000
check_eq "wrk -c4: no non-2xx response" "$(grep -c 'Non-2xx' <<<"$wout")" 0
check_range "wrk -c4: backends saw at most 20 TCP connections" $bconns 1 20
check "wrk -c4: backends saw at least 3 requests per TCP connection ($reqs over $bconns)" \
	test $reqs -ge $((3 * bconns))

# backend http counters == what each nginx logged for pool web
for i in 1 2 3; do
	want=$(nginx_reqs $i " /all/")
	poll_until 10 eval '[ "$(l7_be_stat web $(be4 $i) 80 .requests)" = "$want" ]'
	check_eq "counters: pool web be$i http.requests == requests in its nginx log" \
		"$(l7_be_stat web "$(be4 $i)" 80 .requests)" "$want"
done

# ---- pipelining ---------------------------------------------------------------
# Three requests in one write: a slow one to be4, then be1, then be2 (close).
out=$(printf '%s' $'GET /py/delay/500/p1 HTTP/1.1\r\nHost: pipe\r\n\r\n' \
	$'GET / HTTP/1.1\r\nHost: pipe\r\nX-Route: blue\r\n\r\n' \
	$'DELETE / HTTP/1.1\r\nHost: pipe\r\nConnection: close\r\n\r\n' | l7_raw $VIP4 80 15)
check_eq "pipelining: 3 responses, all 200" "$(http_statuses <<<"$out")" "200 200 200"
check_eq "pipelining: answered in order (be4 slow first, then be1, be2)" \
	"$(grep -aoE '/py/delay/500/p1|^be[0-9]$' <<<"$out" | tr '\n' ' ')" "/py/delay/500/p1 be1 be2 "
check_eq "pipelining: closed after Connection: close" "$(tail -n1 <<<"$out")" "#closed"

# ---- X-Forwarded-For ------------------------------------------------------------
check_eq "XFF: added with the client address (nginx)" \
	"$(cli curl -s --max-time 10 "http://$VIP4/xff")" "$CLI4"
check_eq "XFF: from the second client address" \
	"$(cli curl -s --max-time 10 --interface $CLI4B "http://$VIP4/xff")" "$CLI4B"
check_eq "XFF: a single field line when the client sent none" \
	"$(cli curl -s --max-time 10 "http://$VIP4/py/xff" | jq -c '.headers["x-forwarded-for"]' 2>/dev/null)" "[\"$CLI4\"]"
check_eq "XFF: appended to the client's X-Forwarded-For" \
	"$(cli curl -s --max-time 10 -H 'X-Forwarded-For: 192.0.2.7' "http://$VIP4/py/xff" |
		jq -r '.headers["x-forwarded-for"] | join(", ")' 2>/dev/null)" "192.0.2.7, $CLI4"

# ---- IPv6 --------------------------------------------------------------------------
cfg pool add p6
cfg backend add p6 "[$(be6 3)]:80"
cfg service add web6 vip "[$VIP6]:80" proto tcp mode http pool p6
check_eq "IPv6 VIP: answered by be3 over IPv6, XFF is the client's v6 address" \
	"$(cli curl -s -g --max-time 10 --interface "$CLI6" "http://[$VIP6]/xff")" "$CLI6"

# ---- bodies -----------------------------------------------------------------------
head -c 1048576 /dev/urandom >"$TMPD/up.bin"
want=$(sha256sum "$TMPD/up.bin" | cut -d' ' -f1)
body_check() { # DESC CURL_ARGS...: the backend's body_len and body_sha256
	local desc=$1 r
	shift
	r=$(cli curl -s --max-time 60 "$@" | jq -r '"\(.body_len) \(.body_sha256)"' 2>/dev/null)
	check_eq "$desc" "$r" "1048576 $want"
}
body_check "POST 1 MB, Content-Length: the backend got it intact (sha256)" \
	-H 'Expect:' --data-binary @"$TMPD/up.bin" "http://$VIP4/py/sha"
body_check "POST 1 MB, chunked: the backend got it intact (sha256)" \
	-H 'Expect:' -H 'Transfer-Encoding: chunked' --data-binary @"$TMPD/up.bin" "http://$VIP4/py/sha"
# curl waits 30 s for "100 Continue" before sending the body anyway, but
# gives up after 20 s: success means a 100 Continue came through in time.
body_check "POST 1 MB with Expect: 100-continue (curl waits for the 100)" \
	-H 'Expect: 100-continue' --expect100-timeout 30 --max-time 20 \
	--data-binary @"$TMPD/up.bin" "http://$VIP4/py/sha"
for kind in chunked data; do
	rm -f "$TMPD/down.bin" "$TMPD/down.hdr"
	cli curl -s --max-time 60 -D "$TMPD/down.hdr" -o "$TMPD/down.bin" "http://$VIP4/py/$kind/1048576"
	sent=$(tr -d '\r' <"$TMPD/down.hdr" | awk -F': ' 'tolower($1) == "x-body-sha256" {print $2}')
	check_eq "GET 1 MB $kind response: received intact (sha256 == the backend's)" \
		"$(stat -c %s "$TMPD/down.bin" 2>/dev/null) $(sha256sum "$TMPD/down.bin" 2>/dev/null | cut -d' ' -f1)" \
		"1048576 ${sent:-none}"
done
r=$(cli curl -s --max-time 60 -H 'Expect:' -H 'Transfer-Encoding: chunked' \
	--data-binary @"$TMPD/up.bin" "http://$VIP4/py/mirror" | sha256sum | cut -d' ' -f1)
check_eq "POST 1 MB chunked, echoed back chunked: intact both ways" "$r" "$want"

# ---- PROXY protocol v2 -------------------------------------------------------------
pp_check() { # DESC SRC [CURL_ARGS...]
	local desc=$1 src=$2 out port
	shift 2
	out=$(cli curl -s --max-time 10 -w '\n%{local_port}' "$@" "http://$VIP4:8080/pp")
	port=$(tail -n1 <<<"$out")
	check_eq "$desc" "$(head -n1 <<<"$out" | jq -r '.proxy | "\(.src) \(.sport) \(.dst) \(.dport)"' 2>/dev/null)" \
		"$src $port $VIP4 8080"
}
pp_check "PROXY v2: the backend got the client address:port and VIP:port" $CLI4
pp_check "PROXY v2: another client gets its own (no backend connection shared)" $CLI4B --interface $CLI4B
pp_check "PROXY v2: and the first one again" $CLI4
cfg service set pp proxy-protocol none
r=$(cli curl -s --max-time 10 -o /dev/null -w '%{http_code} %header{x-backend}' "http://$VIP4:8080/pp")
check_eq "proxy-protocol none: no header sent (the PROXY-only port refuses: 400)" "$r" "400 be4"
cfg service set pp proxy-protocol v2
pp_check "proxy-protocol v2 again: header sent" $CLI4

# ---- no usable backend: 503 ---------------------------------------------------------
e0=$(l7_stat web .errors.no_backend)
s0=$(l7_stat web '.responses."5xx"')
check_eq "503: rule to a pool without backends" \
	"$(cli curl -s --max-time 10 -o /dev/null -w '%{http_code}' "http://$VIP4/empty/x")" 503
cfg backend set p3 $B3:80 state down
check_eq "503: default pool with its only backend down" \
	"$(cli curl -s --max-time 10 -o /dev/null -w '%{http_code}' "http://$VIP4/")" 503
cfg backend set p3 $B3:80 state up
check_eq "backend up again: 200 from be3" "$(cli curl -s --max-time 10 "http://$VIP4/")" be3
check_eq "counters: errors.no_backend grew by 2" "$(delta "$e0" "$(l7_stat web .errors.no_backend)")" 2
check_eq "counters: responses.5xx grew by 2" "$(delta "$s0" "$(l7_stat web '.responses."5xx"')")" 2

# ---- l7_max_conns -------------------------------------------------------------------
# 2 client connections per service at most: a third is not served while
# two are held open (idle, before their request); they still are.
l7_sysctl l7_max_conns=2 http_header_timeout=60
l0=$(l7_stat web .errors.limit)
hold_open 1 $VIP4 80
hold_open 2 $VIP4 80
r=$(cli curl -s --max-time 5 -o /dev/null -w '%{http_code}' "http://$VIP4/")
check "l7_max_conns=2: a third connection is not served ($r)" test "$r" != 200
check_eq "l7_max_conns=2: the first held connection is answered" "$(hold_release 1)" be3
check_eq "l7_max_conns=2: the second held connection is answered" "$(hold_release 2)" be3
check_eq "counters: errors.limit grew by 1" "$(delta "$l0" "$(l7_stat web .errors.limit)")" 1
poll_until 10 eval '[ "$(cli curl -s --max-time 5 "http://$VIP4/")" = be3 ]'
check_eq "l7_max_conns=2: served again once they closed" "$(cli curl -s --max-time 5 "http://$VIP4/")" be3
l7_sysctl l7_max_conns=65536 http_header_timeout=10

diag "service web: $(klbctl -j -s service show | jq -c '.[] | select(.name == "web") | .stats')"
