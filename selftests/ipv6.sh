#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An IPv6 service end to end: pool of [fd01::1N]:80, service
# [fd00:100::1]:80/tcp, curl -6 from the client through the balancer.
#   - 30 requests, rr 10/10/10, answered from the VIP
#   - a 1 MB download (many full-size segments, checksums after NAT)
#   - conn show lists IPv6 client/vip/backend addresses
#   - v4 and v6 services side by side do not mix
source "$(dirname "$0")/lib.sh"
klb_test_init "IPv6 service end to end"

topo_setup
backends_start
mkbig 1m 1048576
klb_load
check "pool add web6 sched rr" klbctl pool add web6 sched rr
for i in 1 2 3; do
	check "backend add web6 [$(be6 $i)]:80" klbctl backend add web6 "[$(be6 $i)]:80"
done
check "service add web6 vip [$VIP6]:80" klbctl service add web6 vip "[$VIP6]:80" proto tcp mode nat pool web6
check_eq "service show: vip without brackets" "$(klbctl -j service show web6 | jq -r '.[0].vip')" "$VIP6"

r=$(http_n 30 "http://[$VIP6]/" -6 | tally)
check_eq "30 requests to [$VIP6] answered, rr 10/10/10" "$(echo $r)" "be1 10 be2 10 be3 10"
out=$(cli curl -6 -s -g --max-time 30 -o /dev/null -w '%{http_code} %{size_download} %{remote_ip}' "http://[$VIP6]/big/1m")
check_eq "1 MB download over IPv6: 200, full size, from the VIP" "$out" "200 1048576 $VIP6"
hold_open 1 $VIP6 80
c=$(klbctl -j conn show service web6 | jq -r '[.[] | select(.state == "established")][0] | "\(.client) \(.vip) \(.vip_port) \(.backend)"')
read -r cc cv cvp cb <<<"$c"
case "$cc" in "$CLI6"|"$CLI6B") ok "conn show: IPv6 client ($cc)" ;; *) fail "conn show: IPv6 client ($cc)" ;; esac
check_eq "conn show: IPv6 vip and port" "$cv $cvp" "$VIP6 80"
case "$cb" in fd01::1[123]) ok "conn show: IPv6 backend ($cb)" ;; *) fail "conn show: IPv6 backend ($cb)" ;; esac
check_eq "held IPv6 connection answers" "$(hold_release 1)" "$(be_name "$cb")"

# a v4 service next to it
check "pool add web sched rr" klbctl pool add web sched rr
check "backend add web $(be4 1):80" klbctl backend add web "$(be4 1):80"
check "service add web vip $VIP4:80" klbctl service add web vip $VIP4:80 proto tcp mode nat pool web
r4=$(http_n 6 "http://$VIP4/" | tally)
r6=$(http_n 6 "http://[$VIP6]/" -6 | tally)
check_eq "v4 service next to v6: v4 goes to its only backend" "$(echo $r4)" "be1 6"
check_eq "v6 service unaffected: 2/2/2" "$(echo $r6)" "be1 2 be2 2 be3 2"
check_eq "v6 service conns == 38 (30 + download + held + 6)" "$(svc_stat web6 conns)" 38
check_eq "v4 service conns == 6" "$(svc_stat web conns)" 6
check "klbctl service del web6" klbctl service del web6
check_eq "v6 VIP no longer balanced: request fails" \
	"$(cli curl -6 -s -g --max-time 3 "http://[$VIP6]/" 2>/dev/null)" ""
