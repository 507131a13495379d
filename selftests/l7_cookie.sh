#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# http mode, cookie persistence: `service ... mode http ... cookie SRV`.
# A response whose request did not name the backend that answered gets
#   Set-Cookie: SRV=<16 hex digits>; Path=/; HttpOnly
# and a request whose cookie SRV names a usable backend (up, weight > 0)
# of the pool it is routed to (after rules) goes there, whatever the
# scheduler would say. The value is a keyed hash: it never shows the
# backend's address.
#
#   client (curl, with and without a cookie jar) --> VIP4:80 service shop
#      pool web, rr: be1, be2, be3 (nginx, answers "beN", X-Backend: beN)
#      rule path /one/ -> pool one (be1 only)
#   [VIP6]:80 service shop6, pool web6 (be1..be3 over IPv6), cookie SRV
#
# Checks: cookieless clients spread (rr 10/10/10) and each response sets
# the cookie of its backend (one value per backend, 16 hex digits, no
# trace of the address); a client with a cookie jar stays on one backend
# over 20 new connections without being sent the cookie again; on one
# keep-alive connection each request follows its own cookie; quoted
# values, several cookies, several Cookie fields; forged values are
# scheduled normally (rr) and get a fresh cookie; the cookie counts only
# in the pool the rules chose; draining, then deleting the pinned backend
# moves the client to another one with a new cookie and no error; a
# backend added again is pinned by its old cookie; IPv6; refused
# configurations (cookie on nat and tls services, names with a space, a
# ';', too long) exit 2 with a message and change nothing.
source "$(dirname "$0")/lib.sh"
klb_test_init "http cookie persistence: Set-Cookie, pinning across connections, forged cookies, drain/delete fallback, refusals"

klb_load
l7_require http

topo_setup 3
for i in 1 2 3; do nginx_l7_start $i; done
for i in 1 2 3; do nginx_l7_wait $i; done
B1=$(be4 1) B2=$(be4 2) B3=$(be4 3)
URL=http://$VIP4
JAR=$TMPD/jar

delta() { echo $(($2 - $1)); }

cfg pool add web sched rr
for b in $B1 $B2 $B3; do cfg backend add web "$b:80"; done
cfg pool add one
cfg backend add one "$B1:80"
cfg service add shop vip $VIP4:80 proto tcp mode http pool web cookie SRV
cfg rule add shop path /one/ pool one
check_eq "service show: cookie SRV" \
	"$(klbctl -j service show | jq -r '.[] | select(.name == "shop") | .cookie')" SRV

# reqs N PATH [CURL_ARGS...]: N requests from one curl, each on a new
# connection (Connection: close); per response one line
#   CODE BACKEND CONNECTS COOKIE
# COOKIE: the value of the Set-Cookie SRV it carried, or "-".
reqs() {
	local n=$1 path=$2 args=() i
	shift 2
	for ((i = 0; i < n; i++)); do args+=(-o /dev/null "$URL$path"); done
	cli curl -s -g --max-time 10 -H 'Connection: close' "$@" \
		-w '%{http_code} %header{x-backend} %{num_connects} %header{set-cookie}\n' "${args[@]}" |
		awk '{v = "-"; if ($4 ~ /^SRV=/) {v = substr($4, 5); sub(/;$/, "", v)} print $1, $2, $3, v}'
}
# col N: column N of reqs output, one line of space-separated words
col() { awk -v c="$1" '{printf "%s%s", (NR > 1 ? " " : ""), $c} END {print ""}'; }
# same WORD: every word on stdin is WORD
same() { tr ' ' '\n' | grep -v "^$1\$" | grep -c . | grep -qx 0; }
# value_of BACKEND: the cookie value learnt for it
value_of() { case $1 in be1) echo "$V1" ;; be2) echo "$V2" ;; be3) echo "$V3" ;; *) echo none ;; esac; }
# jar_value: the value of SRV in the client's cookie jar
jar_value() { awk '$6 == "SRV" {print $7}' "$JAR" 2>/dev/null | tail -n1; }

# ---- cookieless clients: scheduled (rr), each told its backend's cookie ------
out=$(reqs 30 /)
check_eq "no cookie: 30 requests answered 200" "$(col 1 <<<"$out" | tr ' ' '\n' | sort | uniq -c | awk '{print $2" "$1}')" "200 30"
check_eq "no cookie: rr spreads them 10/10/10" "$(col 2 <<<"$out" | tr ' ' '\n' | tally | tr '\n' ' ')" "be1 10 be2 10 be3 10 "
check_eq "no cookie: 30 new connections" "$(awk '{s += $3} END {print s}' <<<"$out")" 30
check_eq "no cookie: every response sets SRV" "$(awk '$4 == "-"' <<<"$out" | wc -l)" 0
V1=$(awk '$2 == "be1" {print $4}' <<<"$out" | sort -u)
V2=$(awk '$2 == "be2" {print $4}' <<<"$out" | sort -u)
V3=$(awk '$2 == "be3" {print $4}' <<<"$out" | sort -u)
diag "cookies: be1 $V1, be2 $V2, be3 $V3"
check_eq "one value per backend, three distinct values" \
	"$(printf '%s\n' "$V1" "$V2" "$V3" | sort -u | grep -cE '^[0-9a-f]{16}$')" 3
hexaddr() { printf '%02x' ${1//./ }; }
for i in 1 2 3; do
	v=$(value_of be$i) a=$(be4 $i)
	check_eq "be$i's value $v holds neither its address nor its hex form ($(hexaddr "$a"))" \
		"$(grep -ciF -e "$a" -e "${a//./}" -e "$(hexaddr "$a")" <<<"$v")" 0
done
sc=$(cli curl -s -o /dev/null --max-time 10 -D - "$URL/" | tr -d '\r' | grep -i '^set-cookie:')
check "Set-Cookie is exactly 'SRV=<16 hex>; Path=/; HttpOnly' ($sc)" \
	grep -qE '^Set-Cookie: SRV=[0-9a-f]{16}; Path=/; HttpOnly$' <<<"$sc"

# ---- a browser-like client: cookie jar, 20 new connections ------------------
rm -f "$JAR"
first=$(reqs 1 / -b "$JAR" -c "$JAR")
pin=$(col 2 <<<"$first")
check_eq "jar: the first response sets the cookie of its backend ($pin)" \
	"$(col 4 <<<"$first")" "$(value_of "$pin")"
check_eq "jar: the jar holds it" "$(jar_value)" "$(value_of "$pin")"
out=$(reqs 20 / -b "$JAR" -c "$JAR")
check_eq "jar: 20 new connections, all 200" "$(col 1 <<<"$out") $(awk '{s += $3} END {print s}' <<<"$out")" \
	"$(printf '200 %.0s' $(seq 20))20"
check_eq "jar: all 20 on $pin (rr would spread them)" "$(col 2 <<<"$out")" "$(printf "$pin %.0s" $(seq 19))$pin"
check_eq "jar: no Set-Cookie again (the cookie was valid)" "$(col 4 <<<"$out")" "$(printf -- '- %.0s' $(seq 19))-"

# ---- keep-alive: every request follows its own cookie ------------------------
ka=()
for v in "$V1" "$V2" "$V3" "$V3" "$V1" "$V2"; do
	[ ${#ka[@]} -gt 0 ] && ka+=(--next)
	ka+=(-s -o /dev/null --max-time 10 -b "SRV=$v"
		-w '%{http_code} %header{x-backend} %{num_connects} %header{set-cookie}\n' "$URL/")
done
out=$(cli curl "${ka[@]}" | awk '{print $1, $2, $3, ($4 == "" ? "-" : $4)}')
check_eq "keep-alive: 6 requests with cookies be1 be2 be3 be3 be1 be2 go there" \
	"$(col 2 <<<"$out")" "be1 be2 be3 be3 be1 be2"
check_eq "keep-alive: ... over one client connection" "$(awk '{s += $3} END {print s}' <<<"$out")" 1
check_eq "keep-alive: ... and no Set-Cookie" "$(col 4 <<<"$out")" "- - - - - -"

# ---- Cookie field forms -------------------------------------------------------
check_eq "quoted value SRV=\"<be2>\" -> be2, no Set-Cookie" \
	"$(reqs 1 / -b "SRV=\"$V2\"" | cut -d' ' -f2,4)" "be2 -"
check_eq "among other cookies (a=1; SRV=<be3>; b=2) -> be3" \
	"$(reqs 1 / -H "Cookie: a=1; SRV=$V3; b=2" | cut -d' ' -f2,4)" "be3 -"
check_eq "in the second of two Cookie fields -> be1" \
	"$(reqs 1 / -H 'Cookie: a=1' -H "Cookie: b=2;SRV=$V1" | cut -d' ' -f2,4)" "be1 -"
check_eq "another name (srv=<be2>, case differs) is not ours: scheduled, Set-Cookie" \
	"$(reqs 1 / -b "srv=$V2" | awk '{print ($4 == "-" ? "none" : "set")}')" set

# ---- forged and unknown values: scheduled normally, a fresh cookie ------------
for forged in 0123456789abcdef not-a-backend "${V1}00" ""; do
	out=$(reqs 6 / -b "SRV=$forged")
	check_eq "forged SRV='$forged': 6 requests spread by rr (2/2/2), all 200" \
		"$(col 2 <<<"$out" | tr ' ' '\n' | tally | tr '\n' ' ')$(col 1 <<<"$out" | tr ' ' '\n' | sort -u)" \
		"be1 2 be2 2 be3 2 200"
	check_eq "forged SRV='$forged': each gets its backend's cookie" \
		"$(awk '{print $4}' <<<"$out" | tr '\n' ' ')" \
		"$(for b in $(col 2 <<<"$out"); do printf '%s ' "$(value_of "$b")"; done)"
done

# ---- rules first: the cookie counts in the pool the request is routed to ------
check_eq "rule /one/ -> pool one (be1 only): cookie of be2 not in it: be1, its cookie" \
	"$(reqs 1 /one/x -b "SRV=$V2" | cut -d' ' -f2,4)" "be1 $V1"
check_eq "rule /one/ with be1's cookie: be1, no Set-Cookie" \
	"$(reqs 1 /one/x -b "SRV=$V1" | cut -d' ' -f2,4)" "be1 -"

# ---- the pinned backend drained, then deleted: a clean fallback ---------------
e0=$(l7_stat shop '[.errors[]] | add')
x0=$(l7_stat shop '.responses."5xx"')
addr_of() { be4 "${1#be}"; }
cfg backend set web "$(addr_of "$pin"):80" state drain
out=$(reqs 1 / -b "$JAR" -c "$JAR")
pin2=$(col 2 <<<"$out")
check "drain: pinned $pin drained: answered 200 by another backend ($pin2)" \
	test "$(col 1 <<<"$out")" = 200 -a "$pin2" != "$pin" -a -n "$pin2"
check_eq "drain: with a new cookie, its backend's" "$(col 4 <<<"$out")" "$(value_of "$pin2")"
check_eq "drain: the jar now holds it" "$(jar_value)" "$(value_of "$pin2")"
out=$(reqs 5 / -b "$JAR" -c "$JAR")
check_eq "drain: the next 5 new connections stay on $pin2, no Set-Cookie" \
	"$(cut -d' ' -f1,2,4 <<<"$out" | sort -u)" "200 $pin2 -"
cfg backend set web "$(addr_of "$pin"):80" state up

cfg backend del web "$(addr_of "$pin2"):80"
out=$(reqs 1 / -b "$JAR" -c "$JAR")
pin3=$(col 2 <<<"$out")
check "delete: pinned $pin2 deleted: answered 200 by another backend ($pin3)" \
	test "$(col 1 <<<"$out")" = 200 -a "$pin3" != "$pin2" -a -n "$pin3"
check_eq "delete: with a new cookie, its backend's" "$(col 4 <<<"$out")" "$(value_of "$pin3")"
out=$(reqs 5 / -b "$JAR" -c "$JAR")
check_eq "delete: the next 5 new connections stay on $pin3, no Set-Cookie" \
	"$(cut -d' ' -f1,2,4 <<<"$out" | sort -u)" "200 $pin3 -"
check_eq "drain and delete: no error counted" "$(delta "$e0" "$(l7_stat shop '[.errors[]] | add')")" 0
check_eq "drain and delete: no 5xx" "$(delta "$x0" "$(l7_stat shop '.responses."5xx"')")" 0
cfg backend add web "$(addr_of "$pin2"):80"
check_eq "added again: $pin2's old cookie pins to it (the id is where it is)" \
	"$(reqs 3 / -b "SRV=$(value_of "$pin2")" | cut -d' ' -f1,2,4 | sort -u)" "200 $pin2 -"

# ---- IPv6 -----------------------------------------------------------------------
cfg pool add web6 sched rr
for i in 1 2 3; do cfg backend add web6 "[$(be6 $i)]:80"; done
cfg service add shop6 vip "[$VIP6]:80" proto tcp mode http pool web6 cookie SRV
URL=http://[$VIP6]
out=$(reqs 3 / --interface "$CLI6")
check_eq "IPv6: rr 1/1/1 with a cookie each" \
	"$(col 2 <<<"$out" | tr ' ' '\n' | sort | tr '\n' ' ')$(awk '{print $4}' <<<"$out" | grep -cE '^[0-9a-f]{16}$')" "be1 be2 be3 3"
v6=$(awk '$2 == "be2" {print $4}' <<<"$out")
check "IPv6: be2's v6 value differs from its v4 one" test "$v6" != "$V2"
check_eq "IPv6: be2's cookie pins 4 new connections to be2" \
	"$(reqs 4 / --interface "$CLI6" -b "SRV=$v6" | cut -d' ' -f1,2,4 | sort -u)" "200 be2 -"
URL=http://$VIP4

# ---- refused configurations: exit 2, a message, nothing changed --------------
# refused DESC MESSAGE CMD...: CMD exits 2 and says MESSAGE
refused() {
	local desc=$1 msg=$2 out rc=0
	shift 2
	out=$("$@" 2>&1) || rc=$?
	if [ $rc -eq 2 ] && grep -qiF -- "$msg" <<<"$out"; then
		ok "$desc"
	else
		fail "$desc"
		diag "exit $rc, want 2 and '$msg': $out"
	fi
}
before=$(klbctl save)
refused "cookie on a nat service: refused" "cookie needs mode http" \
	klbctl service add n1 vip $VIP4:81 proto tcp mode nat pool web cookie SRV
refused "cookie on a tls service: refused" "cookie needs mode http" \
	klbctl service add t1 vip $VIP4:443 proto tcp mode tls pool web cookie SRV
refused "cookie name with a space: refused" "token characters" \
	klbctl service add h1 vip $VIP4:82 proto tcp mode http pool web cookie 'a b'
refused "cookie name with a ';': refused" "token characters" \
	klbctl service add h2 vip $VIP4:83 proto tcp mode http pool web cookie 'a;b'
refused "cookie name of 64 characters: refused" "cookie" \
	klbctl service add h3 vip $VIP4:84 proto tcp mode http pool web cookie "$(printf 'c%.0s' $(seq 64))"
check_eq "refusals: the configuration is unchanged (klbctl save)" "$(klbctl save)" "$before"
check_eq "refusals: traffic still pinned by cookie" \
	"$(reqs 2 / -b "SRV=$V3" | cut -d' ' -f1,2,4 | sort -u)" "200 be3 -"

diag "service shop: $(klbctl -j -s service show | jq -c '.[] | select(.name == "shop") | .stats')"
