#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# http mode: what steering lets reach the listener (issue 22, item 8).
# Steering gives a VIP's packets a local route in PRE_ROUTING, which skips
# the input route lookup and its martian source checks; it must make them
# itself. From the client namespace, SYNs with forged sources are written
# as whole frames (selftests/l7_spoof.py, AF_PACKET) to the balancer:
#   IPv4 to VIP4:80 from 127.0.0.1, 0.0.0.0, 224.0.0.5, 10.0.0.255 (the
#   broadcast of the balancer's client subnet), and the balancer's own
#   10.0.0.1 and 10.0.1.1; IPv6 to [VIP6]:80 from ::1 and the balancer's
#   own fd00::1 and fd01::1: no SYN-ACK anywhere (counted on the balancer's lo and
#   cli0), drops bad_source counts each one.
#   A control: a SYN from another client address (10.0.0.3) is answered.
#   Real clients (curl, v4 and v6) are still served.
# Fails if klb refuses its own http mode (l7_require: never a skip).
source "$(dirname "$0")/lib.sh"
klb_test_init "http mode: steering drops martian and own sources"

klb_load
l7_require http

topo_setup 1
l7be_start 1
B1=$(be4 1) B1V6=$(be6 1)
SPOOF=$SELFTESTS/l7_spoof.py

cfg pool add pa
cfg backend add pa $B1:80
cfg pool add p6
cfg backend add p6 "[$B1V6]:80"
cfg service add web vip $VIP4:80 proto tcp mode http pool pa
cfg service add web6 vip "[$VIP6]:80" proto tcp mode http pool p6
bad() { svc_stat "$1" drops.bad_source; }
LBMAC=$(lb cat /sys/class/net/cli0/address)

check_eq "curl to the VIP: 200" \
	"$(cli curl -s --max-time 10 -o /dev/null -w '%{http_code}' "http://$VIP4/first")" 200
check_eq "no drops bad_source yet" "$(bad web) $(bad web6)" "0 0"

# sniff_start: count SYN-ACKs from port 80 on the balancer's lo and cli0
# while the commands that follow run; sniff_wait stops them (2 s later: a
# SYN-ACK takes its time under emulation) and sets SA to "LO CLI0" (not a
# $(...): a subshell cannot wait for the sniffers)
sniff_start() {
	rm -f "$TMPD/ready.lo" "$TMPD/ready.cli0" "$TMPD/stop"
	lb "$PY" "$SPOOF" sniff --iface lo --port 80 --until "$TMPD/stop" --ready "$TMPD/ready.lo" \
		>"$TMPD/sa.lo" 2>"$TMPD/sa.lo.err" &
	s1=$!
	lb "$PY" "$SPOOF" sniff --iface cli0 --port 80 --until "$TMPD/stop" --ready "$TMPD/ready.cli0" \
		>"$TMPD/sa.cli0" 2>"$TMPD/sa.cli0.err" &
	s2=$!
	poll_until 60 test -e "$TMPD/ready.lo" -a -e "$TMPD/ready.cli0" || diag "the sniffers are slow to start"
}
sniff_wait() {
	sleep 2
	touch "$TMPD/stop"
	wait $s1 $s2
	[ -s "$TMPD/sa.lo.err" ] && diag "sniffer on lo: $(cat "$TMPD/sa.lo.err")"
	[ -s "$TMPD/sa.cli0.err" ] && diag "sniffer on cli0: $(cat "$TMPD/sa.cli0.err")"
	SA="$(cat "$TMPD/sa.lo") $(cat "$TMPD/sa.cli0")"
}
syn() { cli "$PY" "$SPOOF" syn --iface eth0 --dst-mac "$LBMAC" --port 80 "$@"; }

# ---- the control: a plausible client address is answered ----------------------
sniff_start
syn --src $CLI4B --dst $VIP4
sniff_wait
r=$SA
diag "SYN-ACKs (lo cli0) for the control SYN from $CLI4B: $r"
check "control: a SYN from $CLI4B gets a SYN-ACK (on cli0: ${r#* })" test "${r#* }" -ge 1

# ---- forged sources --------------------------------------------------------------------
srcs4="127.0.0.1 0.0.0.0 224.0.0.5 10.0.0.255 $LB4 $LBBE4"
srcs6="::1 $LB6 $LBBE6"
sniff_start
for s in $srcs4; do syn --src "$s" --dst $VIP4 --count 3; done
for s in $srcs6; do syn --src "$s" --dst $VIP6 --count 3; done
sniff_wait
r=$SA
diag "SYN-ACKs (lo cli0) for the forged SYNs: $r"
check_eq "forged sources: no SYN-ACK on the balancer's lo or cli0" "$r" "0 0"
check_eq "drops bad_source of web: 3 SYNs from each of 6 sources" "$(bad web)" 18
# ::1 from outside is dropped by IPv6 input itself (RFC 4291 2.5.3)
b6=$(bad web6)
check_range "drops bad_source of web6: 3 SYNs from each of $LB6 and $LBBE6 (and ::1)" "$b6" 6 9
check_eq "no half-open connection on the listeners" \
	"$(lb ss -Htn state syn-recv | wc -l)" 0

# ---- real clients -------------------------------------------------------------------------
check_eq "curl to the VIP after the forged SYNs: 200" \
	"$(cli curl -s --max-time 10 -o /dev/null -w '%{http_code}' "http://$VIP4/after")" 200
check_eq "curl to the IPv6 VIP: 200" \
	"$(cli curl -s --max-time 10 -o /dev/null -w '%{http_code}' "http://[$VIP6]/after6")" 200
check_eq "real clients did not count as bad sources" "$(bad web) $(bad web6)" "18 $b6"
