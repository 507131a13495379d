#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Who may configure klb, and what bounds a user namespace that may
# (Documentation/security.md):
#   - an unprivileged user (uid 65534) reads the configuration but not the
#     connections or persistence entries (client addresses): exit 2, a
#     permission message; root reads them
#   - the root of a user namespace of its own (unshare -Urn, which any
#     user may do) is refused by default, with a message naming
#     klb.allow_userns, and its namespace stays empty
#   - the memory-sizing sysctls (conn_max, l7_max_conns, ..., the object
#     caps) are read-only there, even for its root; a timeout is not
#   - with klb.allow_userns=1 it configures its own namespace, within the
#     caps the initial namespace's root set there: a pool, backend or
#     service past net.klb.*_max is refused with a message naming the cap,
#     a restore past it too, and nothing else changes
#
#   initial user ns, root      nobody (65534) -> unshare -Urn: root of
#   ns lb: a service, a held   a user ns owning a new network ns, where
#   connection, persistence    klbctl runs (the host's unshare, setpriv)
source "$(dirname "$0")/lib.sh"
klb_test_init "security: unprivileged users, user namespaces, caps"

command -v setpriv >/dev/null || skip_all "setpriv (util-linux) not installed"
command -v unshare >/dev/null || skip_all "unshare (util-linux) not installed"
command -v nsenter >/dev/null || skip_all "nsenter (util-linux) not installed"

topo_setup
backends_start
klb_load

PARAM=/sys/module/klb/parameters/allow_userns
# a user with no capability at all, in the balancer's namespace
unpriv() { lb setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all "$KLBCTL" "$@"; }
# root of a new user namespace owning a new network namespace: runs the
# script $1 with bash (klbctl as $K); its stdout+stderr go to $2
userns_run() {
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		unshare -Urn env K="$KLBCTL" bash -c "$1" >"$2" 2>&1
}
# exit status and output of "name: ..." lines printed by a userns script
line_of() { sed -n "s/^$1: //p" "$2"; }

# ---- reading: the config yes, client addresses no ----------------------
basic_service rr
klbctl service set web persist 60 || fail "persist on web"
hold_open 1 "$VIP4" 80
wait_for "a held connection to web" test "$(conn_count web)" -ge 1
base=$(klbctl save)

out=$(unpriv pool show 2>&1)
check_eq "unprivileged pool show: exit 0" "$?" 0
for what in "conn show" "conn show persist"; do
	out=$(unpriv $what 2>&1)
	rc=$?
	if [ $rc -eq 2 ] && grep -qi 'permi' <<<"$out" && ! grep -q "$CLI4" <<<"$out"; then
		ok "unprivileged '$what' refused: exit 2, $out"
	else
		fail "unprivileged '$what' refused with a permission message"
		diag "exit $rc: $out"
	fi
done
klbctl conn show | grep -q "$CLI4"
check_eq "root: conn show lists the client" "$?" 0
klbctl conn show persist | grep -q "$CLI4"
check_eq "root: conn show persist lists the client" "$?" 0
hold_release 1

# ---- a user namespace, by default ----------------------------------------
if ! setpriv --reuid=65534 --regid=65534 --clear-groups unshare -Urn true 2>/dev/null; then
	skip "user namespaces" "unshare -Urn refused here (a chroot cannot create user namespaces: tools/vm/init moves its root)"
	exit 0
fi
check_eq "allow_userns is off by default" "$(cat $PARAM)" N

T=$TMPD/uns
userns_run '
	for a in "pool add x" "service add u vip 10.9.9.9:80 proto tcp mode http pool x" flush; do
		out=$($K $a 2>&1); echo "refused $a: $? $out"
	done
	echo "pools: $($K -j pool show | jq length)"
	echo "conn: $($K -j conn show >/dev/null 2>&1; echo $?)"
	echo 100 > /proc/sys/net/klb/conn_max 2>/dev/null; echo "conn_max write: $?"
	echo "conn_max: $(cat /proc/sys/net/klb/conn_max)"
	echo 3 > /proc/sys/net/klb/pools_max 2>/dev/null; echo "pools_max write: $?"
	echo 1000 > /proc/sys/net/klb/l7_max_conns 2>/dev/null; echo "l7_max_conns write: $?"
	echo 7 > /proc/sys/net/klb/tcp_timeout_syn; echo "timeout write: $? $(cat /proc/sys/net/klb/tcp_timeout_syn)"
' "$T.default"
while IFS= read -r l; do
	if [[ "$l" =~ ^refused\ (.*):\ 2\ Error:.*allow_userns ]]; then
		ok "user namespace root '${BASH_REMATCH[1]}': exit 2, names klb.allow_userns"
	else
		fail "user namespace root refused with a message naming klb.allow_userns"
		diag "$l"
	fi
done < <(grep '^refused' "$T.default")
diag "$(grep -m1 '^refused' "$T.default")"
check_eq "user namespace: nothing configured" "$(line_of pools "$T.default")" 0
check_eq "user namespace root may dump its own (empty) connections" "$(line_of conn "$T.default")" 0
check_eq "user namespace: conn_max write refused" "$(line_of 'conn_max write' "$T.default")" 1
check_eq "user namespace: conn_max unchanged" "$(line_of conn_max "$T.default")" 262144
check_eq "user namespace: pools_max write refused" "$(line_of 'pools_max write' "$T.default")" 1
check_eq "user namespace: l7_max_conns write refused" "$(line_of 'l7_max_conns write' "$T.default")" 1
check_eq "user namespace: a timeout stays its own to set" "$(line_of 'timeout write' "$T.default")" "0 7"
check_eq "configuration of ns lb intact" "$(klbctl save)" "$base"

# ---- a user namespace, allowed, within caps ------------------------------
# The caps of the user's namespace are set by the initial namespace's root
# (nsenter) while the user's script waits for the go.
echo 1 >$PARAM || bail "cannot set klb.allow_userns"
mkfifo "$T.go" && chmod 666 "$T.go"
chmod 777 "$TMPD"
cat >"$T.restore" <<-EOF
	pool add r1
	pool add r2
	pool add r3
	pool add r4
EOF
chmod 644 "$T.restore"
userns_run '
	echo $$ >'"$T.pid"'
	read -r _ <'"$T.go"'
	for p in p1 p2 p3 p4; do out=$($K pool add $p 2>&1); echo "pool $p: $? $out"; done
	for b in 10.0.1.11:80 10.0.1.12:80 10.0.1.13:80; do out=$($K backend add p1 $b 2>&1); echo "backend $b: $? $out"; done
	for s in 1 2; do out=$($K service add s$s vip 10.9.9.$s:80 proto tcp mode nat pool p1 2>&1); echo "service s$s: $? $out"; done
	save=$($K save)
	out=$($K restore <'"$T.restore"' 2>&1); echo "restore: $? $out"
	[ "$($K save)" = "$save" ]; echo "restore changed nothing: $?"
	echo "pools: $($K -j pool show | jq -r "[.[].name] | join(\" \")")"
	echo "backends: $($K -j pool show | jq -r "[.[].backends[]?] | length")"
	echo "services: $($K -j service show | jq -r "[.[].name] | join(\" \")")"
	echo "pools_max: $(cat /proc/sys/net/klb/pools_max)"
	echo 100 > /proc/sys/net/klb/pools_max 2>/dev/null; echo "pools_max write: $?"
	out=$($K flush 2>&1); echo "flush: $? $out"
	out=$($K pool add again 2>&1); echo "pool again: $? $out"
' "$T.allowed" &
upid=$!
wait_for "the user namespace's script" test -s "$T.pid"
pid=$(cat "$T.pid")
for kv in pools_max=3 backends_max=2 services_max=1; do
	nsenter -t "$pid" -n sh -c "echo ${kv#*=} >/proc/sys/net/klb/${kv%=*}" ||
		fail "root sets ${kv%=*} in the user's namespace"
done
echo go >"$T.go"
wait $upid
diag "$(cat "$T.allowed")"
check_eq "allowed: pools p1..p3 added" "$(grep -c '^pool p[123]: 0' "$T.allowed")" 3
check_eq "allowed: pool p4 past pools_max" "$(line_of 'pool p4' "$T.allowed")" \
	"2 Error: too many pools in this network namespace (net.klb.pools_max = 3)"
check_eq "allowed: two backends added" "$(grep -c '^backend 10.0.1.1[12]:80: 0' "$T.allowed")" 2
check_eq "allowed: third backend past backends_max" "$(line_of 'backend 10.0.1.13:80' "$T.allowed")" \
	"2 Error: too many backends in this network namespace (net.klb.backends_max = 2)"
check_eq "allowed: service s1 added" "$(line_of 'service s1' "$T.allowed")" "0 "
check_eq "allowed: service s2 past services_max" "$(line_of 'service s2' "$T.allowed")" \
	"2 Error: too many services in this network namespace (net.klb.services_max = 1)"
check "allowed: restore past pools_max refused" grep -q '^restore: 2 Error: .*too many pools.*pools_max = 3' "$T.allowed"
check_eq "allowed: the refused restore changed nothing" "$(line_of 'restore changed nothing' "$T.allowed")" 0
check_eq "allowed: pools as configured" "$(line_of pools "$T.allowed")" "p1 p2 p3"
check_eq "allowed: backends as configured" "$(line_of backends "$T.allowed")" 2
check_eq "allowed: services as configured" "$(line_of services "$T.allowed")" "s1"
check_eq "allowed: the user sees the cap root set" "$(line_of pools_max "$T.allowed")" 3
check_eq "allowed: and cannot raise it" "$(line_of 'pools_max write' "$T.allowed")" 1
check_eq "allowed: flush" "$(line_of flush "$T.allowed")" "0 "
check_eq "allowed: after a flush the caps count from zero" "$(line_of 'pool again' "$T.allowed")" "0 "
check_eq "configuration of ns lb intact" "$(klbctl save)" "$base"

echo 0 >$PARAM
userns_run 'out=$($K pool add x 2>&1); echo "again: $?"' "$T.off"
check_eq "allow_userns=0 again: refused" "$(line_of again "$T.off")" 2

