#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Mode fnat (full NAT): klb rewrites source and destination, so backends
# that have no route to the clients serve them.
#   - one pool behind a nat and an fnat service at once (both work while
#     the backends route via the balancer); then the backends lose their
#     default routes: nat stops working, fnat goes on
#   - backends see the balancer's address (default: the route's source; or
#     the service's snat list), source ports in net.klb.fnat_port_min..max,
#     shown by `klbctl conn show` as "via"
#   - 1 MB and KLB_FNAT_MB (16 in make check, 100 in make soak) downloads
#     and a 1 MB upload, sha256 intact; IPv6; UDP
#   - path MTU both ways: 1280-byte route MTUs on the balancer towards the
#     backends and towards the client: klb answers too-big packets with
#     ICMP to their sender before translating them (drops too_big), and
#     transfers still complete intact
#   - a port range of 4 ports: 4 connections open, the 5th is refused and
#     counted (drops no_port), the 4 keep working (no tuple reused)
#   - ICMP errors routers send about translated packets are translated
#     and reach the other end (crafted ones, both directions)
#   - bad input: snat on a nat service, an snat address of the other
#     family, too many snat addresses: refused, config unchanged
#   - rmmod under traffic
source "$(dirname "$0")/lib.sh"
klb_test_init "mode fnat: backends without a route to clients, snat, ports, PMTU, v6, UDP"
for c in sha256sum timeout ss; do
	command -v $c >/dev/null || skip_all "$c not installed"
done
MB=${KLB_FNAT_MB:-16}

topo_setup
backends_start
udp_start 1 2 3
klb_load

BIG=$TMPD/big
SUM1=$(randfile "$BIG.1m" 1024)
SUMB=$(randfile "$BIG.mb" $((MB * 1024)))
for i in 1 2 3; do
	cp "$BIG.1m" "$TMPD/be$i/www/big/1m"
	cp "$BIG.mb" "$TMPD/be$i/www/big/mb"
done

basic_service rr
check "service f4 (fnat) on the same pool" \
	klbctl service add f4 vip $VIP4:8080 proto tcp mode fnat pool web
r=$(http_n 6 "http://$VIP4/" | tally)
check_eq "nat service: every backend answers" "$r" "$(printf 'be1 2\nbe2 2\nbe3 2')"
r=$(http_n 6 "http://$VIP4:8080/" | tally)
check_eq "fnat service on the same pool: every backend answers" "$r" "$(printf 'be1 2\nbe2 2\nbe3 2')"

for i in 1 2 3; do
	be "$i" ip route del default
	be "$i" ip -6 route del default
done
r=$(http_n 3 "http://$VIP4/" | wc -l)
check_eq "nat: backends without a route to the client cannot answer" "$r" 0
r=$(http_n 30 "http://$VIP4:8080/" | tally)
check_eq "fnat: backends with only their own subnet answer" "$r" "$(printf 'be1 10\nbe2 10\nbe3 10')"

conns=$(klbctl -j conn show service f4)
check_eq "conn show: every fnat connection is via $LBBE4 (the route's source)" \
	"$(jq -r '[.[].local] | unique | join(",")' <<<"$conns")" "$LBBE4"
check "conn show: local ports within 1024..32767" \
	jq -e '[.[].local_port] | length > 0 and min >= 1024 and max <= 32767' <<<"$conns"
check_eq "conn show: no two connections share a local port towards one backend" \
	"$(jq -r '[.[] | "\(.backend) \(.local_port)"] | (length == (unique | length))' <<<"$conns")" true
check_eq "no drop counted so far" "$(svc_stat f4 drops.no_port)/$(svc_stat f4 drops.no_route)/$(svc_stat f4 drops.too_big)" "0/0/0"

check_eq "fnat: 1 MB download, sha256 intact" "$(download_sha "http://$VIP4:8080/big/1m")" "$SUM1"
t0=$SECONDS
check_eq "fnat: $MB MB download, sha256 intact" "$(download_sha "http://$VIP4:8080/big/mb")" "$SUMB"
diag "$MB MB in $((SECONDS - t0)) s"

klbctl pool add one >/dev/null && klbctl backend add one "$(be4 1):9000" >/dev/null || fail "pool one"
check "service up (fnat, port 9000 -> be1)" klbctl service add up vip $VIP4:9000 proto tcp mode fnat pool one
check_eq "fnat: 1 MB upload, sha256 intact" "$(upload_sha "${NS_BE[1]}" $VIP4 9000 "$BIG.1m")" "$SUM1"

# ---- snat list --------------------------------------------------------------
lb ip addr add 10.0.1.100/24 dev br0
lb ip addr add 10.0.1.101/24 dev br0
check "service fs: snat 10.0.1.100,10.0.1.101" \
	klbctl service add fs vip $VIP4:8081 proto tcp mode fnat pool web snat 10.0.1.100,10.0.1.101
check_eq "service show: snat listed" "$(klbctl -j service show fs | jq -r '.[0].snat | join(",")')" "10.0.1.100,10.0.1.101"
check "save: snat on the service line" sh -c "ip netns exec $NS_LB $KLBCTL save | grep -q 'service add fs .* snat 10.0.1.100,10.0.1.101'"
r=$(http_n 20 "http://$VIP4:8081/" | wc -l)
check_eq "fnat with snat: 20 answers" "$r" 20
check_eq "connections come from both snat addresses and only from them" \
	"$(klbctl -j conn show service fs | jq -r '[.[].local] | unique | join(",")')" "10.0.1.100,10.0.1.101"

# ---- IPv6, UDP -----------------------------------------------------------------
klbctl pool add web6 sched rr >/dev/null || fail "pool web6"
for i in 1 2 3; do klbctl backend add web6 "[$(be6 $i)]:80" >/dev/null || fail "backend be$i v6"; done
check "service f6 (fnat, IPv6)" klbctl service add f6 vip "[$VIP6]:80" proto tcp mode fnat pool web6
r=$(http_n 9 "http://[$VIP6]/" | tally)
check_eq "fnat IPv6: every backend answers" "$r" "$(printf 'be1 3\nbe2 3\nbe3 3')"
check_eq "fnat IPv6: via the balancer's fd01::1" \
	"$(klbctl -j conn show service f6 | jq -r '[.[].local] | unique | join(",")')" "$LBBE6"
check_eq "fnat IPv6: 1 MB download, sha256 intact" "$(download_sha "http://[$VIP6]/big/1m")" "$SUM1"

klbctl pool add u sched rr >/dev/null || fail "pool u"
for i in 1 2 3; do klbctl backend add u "$(be4 $i):$UDP_PORT" >/dev/null || fail "udp backend $i"; done
check "service fu (fnat, UDP)" klbctl service add fu vip $VIP4:$UDP_PORT proto udp mode fnat pool u
got=
for i in 1 2 3 4 5 6; do
	out=$(echo x | cli socat -T2 - "UDP:$VIP4:$UDP_PORT,sourceport=$((20000 + i))" 2>/dev/null)
	got="$got${out:-none} "
done
check_eq "fnat UDP: each flow answered from the VIP" "$(tr ' ' '\n' <<<"$got" | grep -c '^be[123]$')" 6

# ---- ICMP errors about translated packets, both ways ------------------------------
icmp_reaches_backend "fnat: an ICMP error to the VIP about a reply reaches the backend, translated" f4 $VIP4 8080
hold_open -s f4 icmp $VIP4 8080
n=$(be_name "$(jf backend)")
before=$(icmp_counter "$NS_CLI")
be "${n#be}" "$PY" "$SELFTESTS/klb_icmp.py" --to "$(jf local)" --qsrc "$(jf local)" \
	--qsport "$(jf local_port)" --qdst "$(jf backend)" --qdport "$(jf backend_port)" || diag "klb_icmp.py failed"
poll_until 10 sh -c "[ \$(ip netns exec $NS_CLI nstat -asz IcmpInDestUnreachs | awk '{n += \$2} END {print n + 0}') -gt $before ]"
after=$(icmp_counter "$NS_CLI")
check "fnat: an ICMP error from $n's side about a request reaches the client, translated ($before -> $after)" \
	test "$after" -gt "$before"
hold_close icmp

# ---- path MTU, both ways -------------------------------------------------------
lb ip route replace 10.0.1.0/24 dev br0 src $LBBE4 mtu 1280
lb ip route replace 10.0.0.0/24 dev cli0 src $LB4 mtu 1280
tb0=$(svc_stat f4 drops.too_big)
check_eq "PMTU: 1 MB download through a 1280-byte hop to the client" "$(download_sha "http://$VIP4:8080/big/1m")" "$SUM1"
tb1=$(svc_stat f4 drops.too_big)
check "PMTU: klb sent the backend 'fragmentation needed' (too_big $tb0 -> $tb1)" test "$tb1" -gt "$tb0"
# The download told the backend serving it MTU 1280 towards the balancer:
# be1 would then advertise a small MSS, and the upload would fit anyway.
cli ip route flush cache
for i in 1 2 3; do be "$i" ip route flush cache; done
diag "client's route to the VIP before the upload: $(cli ip route get $VIP4 | tr '\n' ' ')"
tb0=$(svc_stat up drops.too_big)
check_eq "PMTU: 1 MB upload through a 1280-byte hop to the backend" "$(upload_sha "${NS_BE[1]}" $VIP4 9000 "$BIG.1m")" "$SUM1"
tb1=$(svc_stat up drops.too_big)
check "PMTU: klb sent the client 'fragmentation needed' (too_big $tb0 -> $tb1)" test "$tb1" -gt "$tb0"
r=$(cli ip route get $VIP4 | grep -o 'mtu [0-9]*')
check_eq "PMTU: the client learned the path MTU for the VIP" "$r" "mtu 1280"
lb ip route replace 10.0.1.0/24 dev br0 src $LBBE4
lb ip route replace 10.0.0.0/24 dev cli0 src $LB4

# ---- port exhaustion -------------------------------------------------------------
klbctl pool add p1 >/dev/null && klbctl backend add p1 "$(be4 1):80" >/dev/null || fail "pool p1"
check "service fx (fnat, one backend)" klbctl service add fx vip $VIP4:81 proto tcp mode fnat pool p1
lb sysctl -qw net.klb.fnat_port_min=40000 net.klb.fnat_port_max=40003
for i in 1 2 3 4; do hold_open "$i" $VIP4 81; done
check_eq "4 ports, 4 connections held" "$(klbctl -j conn show service fx | jq -r '[.[].local_port] | sort | join(",")')" "40000,40001,40002,40003"
r=$(cli curl -s --max-time 3 --connect-timeout 2 "http://$VIP4:81/name")
check_eq "the 5th connection is refused" "$r" ""
check "drops no_port counted ($(svc_stat fx drops.no_port))" test "$(svc_stat fx drops.no_port)" -ge 1
for i in 1 2 3 4; do
	check_eq "held connection $i still works on its own port" "$(hold_release "$i" 5)" be1
done
lb sysctl -qw net.klb.fnat_port_min=1024 net.klb.fnat_port_max=32767

# ---- bad input --------------------------------------------------------------------
before=$(klbctl save)
out=$(klbctl service add bad vip $VIP4:82 proto tcp mode nat pool web snat 10.0.1.100 2>&1)
check_eq "snat on a nat service: exit 2" "$?" 2
check "snat on a nat service: says why" grep -q "snat addresses need mode fnat" <<<"$out"
out=$(klbctl service add bad vip $VIP4:82 proto tcp mode fnat pool web snat fd01::1 2>&1)
check_eq "snat of the other family: exit 2" "$?" 2
check "snat of the other family: says why" grep -q "another family" <<<"$out"
out=$(klbctl service add bad vip $VIP4:82 proto tcp mode fnat pool web \
	snat "$(seq -s, -f '10.0.1.%g' 100 116)" 2>&1)
check_eq "17 snat addresses: exit 1 (klbctl counts them)" "$?" 1
out=$(klbctl service set fs snat 10.0.1.100 2>&1)
check_eq "snat cannot be changed by service set: exit 1" "$?" 1
check_eq "configuration unchanged" "$(klbctl save)" "$before"

# ---- rmmod under traffic ---------------------------------------------------------
rmmod_under_traffic fnat f4 "http://$VIP4:8080/" 40
