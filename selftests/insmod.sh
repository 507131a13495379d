#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A bare `insmod klb.ko` on a machine where nothing else was loaded for it:
#   - nf_defrag_ipv4/6 unloaded first; klb.ko names no module it depends
#     on (modinfo depends is empty), so insmod alone must work: klb loads
#     them itself at init (request_module) and holds them (symbol_get)
#   - a service configured with klbctl passes traffic
#   - rmmod klb lets go of them: nf_defrag_ipv4/6 can be unloaded again
#   - `modprobe klb` from a module tree (klb.ko names the defrag modules as
#     softdeps, so modprobe loads them first) works
#     too, and `modprobe -r klb` undoes it
source "$(dirname "$0")/lib.sh"
klb_test_init "bare insmod loads what klb needs; modprobe works too"

loaded() { grep -q "^$1 " /proc/modules; }
refcnt() { awk -v m="$1" '$1 == m {print $3}' /proc/modules; }
defrag_unload() {
	local m
	for m in nf_defrag_ipv6 nf_defrag_ipv4; do
		loaded $m && rmmod $m 2>/dev/null
	done
	! loaded nf_defrag_ipv4 && ! loaded nf_defrag_ipv6
}

# The debug kernel of make vmtest-debug builds netfilter in: nothing to
# load, hold or let go of.
[ "$(modinfo -F filename nf_defrag_ipv4 2>/dev/null)" = "(builtin)" ] &&
	skip_all "nf_defrag_ipv4 is built into this kernel"

if ! defrag_unload; then
	# Built in, or held by nf_conntrack from an earlier test in this boot.
	modprobe -r nf_conntrack_netlink nf_nat nf_conntrack 2>/dev/null
	defrag_unload || skip_all "nf_defrag_ipv4/6 cannot be unloaded here: $(grep nf_defrag /proc/modules)"
fi
ok "nf_defrag_ipv4 and nf_defrag_ipv6 not loaded"
check_eq "modinfo: klb.ko depends on no module" "$(modinfo -F depends "$KLB_KO")" ""

topo_setup
backends_start
if out=$(insmod "$KLB_KO" 2>&1); then
	_klb_loaded=1
	ok "insmod klb.ko"
else
	diag "$out"
	diag "$(dmesg | tail -5)"
	bail "insmod klb.ko"
fi
check "klb loaded nf_defrag_ipv4" loaded nf_defrag_ipv4
check "klb loaded nf_defrag_ipv6" loaded nf_defrag_ipv6
check_range "klb holds nf_defrag_ipv4" "$(refcnt nf_defrag_ipv4)" 1 100
check "nf_defrag_ipv4 cannot be removed under klb" eval '! rmmod nf_defrag_ipv4 2>/dev/null'

basic_service rr
r=$(http_n 6 "http://$VIP4/" | tally)
check_eq "6 requests through the service, 2 each" "$(echo $r)" "be1 2 be2 2 be3 2"
check "pool and service web6" eval "klbctl pool add web6 && klbctl backend add web6 '[$(be6 1)]:80' &&
	klbctl service add web6 vip '[$VIP6]:80' proto tcp mode nat pool web6"
r=$(http_n 3 "http://[$VIP6]/" | wc -l)
check_eq "3 requests through the v6 service (defrag v6 enabled)" "$r" 3
check_eq "service conns" "$(svc_stat web conns)" 6

if klb_unload; then
	_klb_loaded=0
	ok "rmmod klb"
else
	fail "rmmod klb"
fi
check_eq "klb let go of nf_defrag_ipv4" "$(refcnt nf_defrag_ipv4)" 0
check "nf_defrag_ipv4/6 can be unloaded after rmmod klb" defrag_unload

# modprobe: klb.ko in a module tree of its own (depmod of the whole
# /lib/modules is slow under emulation), with the defrag modules it names
# as softdeps and what the kernel has built in.
kver=$(uname -r)
root=$TMPD/root
mdir=$root/lib/modules/$kver
mkdir -p "$mdir/updates"
cp "$KLB_KO" "$mdir/updates/klb.ko"
for m in nf_defrag_ipv4 nf_defrag_ipv6; do
	f=$(modinfo -n $m) && cp "$f" "$mdir/updates/"
done
cp /lib/modules/"$kver"/modules.builtin* /lib/modules/"$kver"/modules.order "$mdir/" 2>/dev/null
if depmod -b "$root" "$kver" 2>"$TMPD/depmod.err"; then
	if modprobe -d "$root" klb; then
		_klb_loaded=1
		ok "modprobe klb"
		check "after modprobe klb: nf_defrag_ipv4 loaded" loaded nf_defrag_ipv4
		check "klbctl talks to the module" klbctl pool show
		check "modprobe -r klb" modprobe -d "$root" -r klb
		loaded klb || _klb_loaded=0
	else
		fail "modprobe klb"
	fi
else
	fail "depmod of the private module tree"
	diag "$(cat "$TMPD/depmod.err")"
fi
