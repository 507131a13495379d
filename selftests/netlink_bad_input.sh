#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bad input is refused and changes nothing. Each case: klbctl exits 2, its
# message starts with "Error: ", and `klbctl save` is byte-identical before
# and after. The kernel itself is probed with hand-made netlink messages
# (klb_nl.py: missing attributes, wrong types and lengths, out-of-range
# values, unknown attributes/commands) expecting the right errno and an
# extack message; the service dump filtered by name, as the pool dump.
# Finally an unprivileged caller is refused.
#
# Only the balancer namespace is needed (klb's state is per netns).
source "$(dirname "$0")/lib.sh"
klb_test_init "bad input: refused with a message, state intact"
command -v setpriv >/dev/null || skip_all "setpriv (util-linux) not installed"

ns_add "$NS_LB"
klb_load

# the configuration the cases run against (klb_nl.py's table assumes it)
klbctl pool add web sched wrr &&
	klbctl backend add web 10.0.1.11:80 weight 2 &&
	klbctl backend add web 10.0.1.12:80 &&
	klbctl pool add web6 sched rr &&
	klbctl backend add web6 "[fd01::11]:80" &&
	klbctl pool add spare sched rr &&
	klbctl service add web vip $VIP4:80 proto tcp mode nat pool web &&
	klbctl service add web6 vip "[$VIP6]:80" proto tcp mode nat pool web6 ||
	bail "setting up the base configuration"
# http and tls services with a rule and a host map (klb_nl.py's L7 cases need them)
l7=1
if klbctl pool add api sched wrr &&
	klbctl service add h vip $VIP4:8080 proto tcp mode http pool web &&
	klbctl rule add h host a.example.com pool api &&
	klbctl hostmap add h m.example.com pool api &&
	klbctl service add t vip $VIP4:8443 proto tcp mode tls pool web; then
	ok "base configuration with http and tls services"
else
	fail "base configuration with http and tls services (their cases are skipped)"
	l7=0
fi
base=$(klbctl save)
diag "base configuration:"
diag "$base"
[ -n "$base" ] || bail "klbctl save prints nothing"

# refused DESC ARGS...: exit 2 (the kernel said no), "Error: " message,
# configuration unchanged. refused_here: the same with exit 1, for words
# klbctl itself knows are wrong (nothing is sent).
refused() { _refused 2 "$@"; }
refused_here() { _refused 1 "$@"; }
_refused() {
	local want=$1 desc=$2 rc out after
	shift 2
	out=$(klbctl "$@" 2>&1)
	rc=$?
	after=$(klbctl save)
	if [ $rc -eq "$want" ] && [[ "$out" == Error:\ * ]] && [ "$after" = "$base" ]; then
		ok "$desc: exit $want, ${out%%$'\n'*}"
	else
		fail "$desc"
		diag "klbctl $* -> exit $rc (want $want)"
		diag "output: $out"
		[ "$after" = "$base" ] || diag "configuration changed: $(diff <(echo "$base") <(echo "$after"))"
		base=$after
	fi
}

refused_here "unknown scheduler" pool add x sched foo
refused_here "unknown scheduler (set)" pool set web sched bogus
refused "weight 65536" backend add web 10.0.1.13:80 weight 65536
refused "weight 4294967295" backend add web 10.0.1.13:80 weight 4294967295
refused "weight 65536 (set)" backend set web 10.0.1.11:80 weight 65536
refused "pool name of 32 characters" pool add "$(printf 'p%.0s' $(seq 32))"
refused "pool name of 40 characters" pool add "$(printf 'q%.0s' $(seq 40))"
refused "service name of 33 characters" service add "$(printf 's%.0s' $(seq 33))" vip 10.0.100.9:80 proto tcp mode nat pool spare
refused "pool name with a space" pool add "a b"
refused "pool name with a slash" pool add "a/b"
refused "pool name with a colon" pool add "a:b"
refused "service name with ;" service add "x;y" vip 10.0.100.9:80 proto tcp mode nat pool spare
refused "duplicate pool" pool add web
refused "duplicate backend" backend add web 10.0.1.11:80
refused "duplicate service name" service add web vip 10.0.100.9:80 proto tcp mode nat pool spare
refused "duplicate VIP" service add other vip $VIP4:80 proto tcp mode nat pool spare
refused "backend into unknown pool" backend add nope 10.0.1.13:80
refused "service with unknown pool" service add s2 vip 10.0.100.9:80 proto tcp mode nat pool nope
refused "persist on an http service" service add hp vip 10.0.100.9:80 proto tcp mode http pool spare persist 10
refused "persist mask 33 on IPv4" service add p vip 10.0.100.9:80 proto tcp mode nat pool spare persist 10 mask 33
refused "service set: persist mask 33 on IPv4" service set web persist 10 mask 33
refused "service set: persist on an http service" service set h persist 10
refused "service set unknown pool" service set web pool nope
refused "delete unknown pool" pool del nope
refused "delete unknown backend" backend del web 10.0.1.99:80
refused "delete unknown service" service del nope
refused "delete a pool in use" pool del web
refused "v6 backend into the pool of a v4 service" backend add web "[fd01::13]:80"
refused "v4 backend into the pool of a v6 service" backend add web6 10.0.1.13:80
refused "v4 service on a v6 pool" service add s3 vip 10.0.100.9:80 proto tcp mode nat pool web6
refused "v6 service on a v4 pool" service add s4 vip "[fd00:100::9]:80" proto tcp mode nat pool web
refused "service set: v4 service to a v6 pool" service set web pool web6
refused "backend port 0" backend add spare 10.0.1.13:0
refused "service port 0" service add s5 vip 10.0.100.9:0 proto tcp mode nat pool spare
refused "mode http with proto udp" service add s6 vip 10.0.100.9:80 proto udp mode http pool spare
refused "mode tls with proto udp" service add s6 vip 10.0.100.9:80 proto udp mode tls pool spare
refused_here "proxy-protocol v1" service add s6 vip 10.0.100.9:80 proto tcp mode http pool spare proxy-protocol v1
refused "proxy-protocol v2 on mode nat" service add s6 vip 10.0.100.9:80 proto tcp mode nat pool spare proxy-protocol v2
refused "proxy-protocol v2 on mode dr" service add s6 vip 10.0.100.9:80 proto tcp mode dr pool spare proxy-protocol v2
refused "service set proxy-protocol v2 on a nat service" service set web proxy-protocol v2
refused "rule on a nat service" rule add web pool spare
refused "rule on an unknown service" rule add nope pool spare
refused "rule del on an unknown service" rule del nope 0
refused "rule show of an unknown service" rule show nope
if [ $l7 = 1 ]; then
	refused "rule with an unknown pool" rule add h pool nope
	refused "sni rule on an http service" rule add h sni a.example.com pool api
	refused "host rule on a tls service" rule add t host a.example.com pool api
	refused "rule del: index out of range" rule del h 1
	refused "rule: header name not a token" rule add h header "X A=1" pool api
	refused "rule: path without /" rule add h path api pool api
	refused "rule: host of 254 characters" rule add h host "$(printf 'h%.0s' $(seq 254))" pool api
	refused "delete a pool used by a rule" pool del api
fi

# the kernel itself, with hand-made messages
nl_args=()
[ $l7 = 1 ] || nl_args=(--no-l7)
nl_out=$(lb "$PY" "$SELFTESTS/klb_nl.py" cases --save-cmd "$KLBCTL save" "${nl_args[@]}" 2>&1)
nl_rc=$?
while IFS= read -r line; do
	case "$line" in
	PASS\ *) ok "netlink: ${line#PASS }" ;;
	FAIL\ *) fail "netlink: ${line#FAIL }" ;;
	*) diag "klb_nl.py: $line" ;;
	esac
done <<<"$nl_out"
[ $nl_rc -eq 0 ] || [ -n "$(grep '^FAIL' <<<"$nl_out")" ] || fail "klb_nl.py exited $nl_rc"
check_eq "configuration intact after the raw netlink cases" "$(klbctl save)" "$base"

# SERVICE_GET's dump takes a service nest and, as POOL_GET's dump does,
# lists only the one named (a name that names none: ENOENT, in the table
# above); without it, every service.
nl_dump() { lb "$PY" "$SELFTESTS/klb_nl.py" dump "$@" 2>&1; }
check_eq "pool dump filtered by name web6" "$(nl_dump CMD_POOL_GET "pool(name('web6'))")" \
	'errno 0 (accepted), extack "", 1 messages, names web6'
check_eq "service dump filtered by name web6" "$(nl_dump CMD_SERVICE_GET "svc(s('SERVICE_A_NAME', 'web6'))")" \
	'errno 0 (accepted), extack "", 1 messages, names web6'
want=$(klbctl -j service show | jq -r '[.[].name] | join(" ")')
out=$(nl_dump CMD_SERVICE_GET)
check_eq "service dump without a filter lists every service ($want)" "$out" \
	"errno 0 (accepted), extack \"\", $(wc -w <<<"$want") messages, names $want"
out=$(nl_dump CMD_SERVICE_GET "svc(s('SERVICE_A_NAME', 'nope'))")
check_eq "service dump filtered by an unknown name" "$out" \
	'errno ENOENT, extack "service nope does not exist", 0 messages, names -'
check_eq "configuration intact after the filtered dumps" "$(klbctl save)" "$base"

# an unprivileged caller (uid 65534, no capabilities)
unpriv() { lb setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all "$KLBCTL" "$@"; }
for args in "pool add x" "pool del spare" "backend add spare 10.0.1.13:80" \
	"backend set web 10.0.1.11:80 weight 5" "service del web" "flush" \
	"rule add h pool spare" "rule del h 0" "service set web proxy-protocol none"; do
	out=$(unpriv $args 2>&1)
	rc=$?
	if [ $rc -eq 2 ] && [[ "$out" == Error:\ * ]] && grep -qiE 'permi|not permitted|EPERM' <<<"$out"; then
		ok "unprivileged '$args': exit 2, $out"
	else
		fail "unprivileged '$args' refused with a permission message"
		diag "exit $rc: $out"
	fi
done
out=$(echo "pool add zz" | unpriv restore 2>&1)
rc=$?
if [ $rc -eq 2 ] && grep -qiE 'permi' <<<"$out"; then ok "unprivileged restore: exit 2"; else fail "unprivileged restore refused"; diag "exit $rc: $out"; fi
check_eq "configuration intact after the unprivileged attempts" "$(klbctl save)" "$base"
# Root of a user namespace of its own, in a network namespace of its own
# (unshare -Urn, which any local user may do): klb's commands need
# CAP_NET_ADMIN in the initial user namespace (GENL_ADMIN_PERM), so it
# reaches neither the config nor, through it, the datapath and L7 parsers.
userns() { lb setpriv --reuid=65534 --regid=65534 --clear-groups unshare -Urn "$@"; }
if userns true 2>/dev/null; then
	for args in "pool add x" "flush" "service add u vip 10.0.100.9:80 proto tcp mode http pool x"; do
		out=$(userns "$KLBCTL" $args 2>&1)
		rc=$?
		if [ $rc -eq 2 ] && grep -qiE 'permi' <<<"$out"; then
			ok "user namespace root '$args': exit 2, $out"
		else
			fail "user namespace root '$args' refused with a permission message"
			diag "exit $rc: $out"
		fi
	done
	userns "$KLBCTL" pool show >/dev/null 2>&1
	check_eq "user namespace root may read (pool show: exit 0)" "$?" 0
else
	skip "user namespace root is refused" "unshare -Urn refused here (a chroot, as in the test VM, may not create user namespaces)"
fi
check_eq "configuration intact after the user namespace attempts" "$(klbctl save)" "$base"
out=$(unpriv pool show 2>&1)
diag "unprivileged 'pool show' (reading, allowed or not): exit $?, $(head -c 200 <<<"$out")"

check "klbctl flush" klbctl flush
# (the netns's hash seed is not configuration that flush removes)
check_eq "save after flush is empty" "$(klbctl save | grep -cvE '^(#|$|hash-seed set )')" 0
