#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# klbctl tune: apply / show / revert of the Stingray system tunings.
# Runs as root, in the test VM (via tools/vm) or on a host: everything that
# changes real values happens in throw-away network namespaces, except the
# initial-namespace round trip, which runs only in the VM (see
# init_ns_allowed). Global keys are exercised on a fake
# /proc/sys tree (KLBCTL_PROC_SYS) instead.
#
#   init netns  (untouched, compared before/after)
#   netns A     apply / show / revert, idempotence
#   netns B     must not see A's changes
#   fake tree   $TMP/sys: rollback, read-only file, --persist, global keys
#
# Output: kselftest TAP. Exit 0 pass, 1 fail, 4 skip.

set -u

# lib.sh for TAP (ok/fail/skip/diag), ns_add, $TMPD and its teardown checks
# (namespaces gone, kernel log clean); klb_test_init is not used because
# tune needs neither klb.ko nor the traffic tools.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

KEYS="net.ipv4.ip_local_port_range net.ipv4.tcp_syncookies
net.ipv4.tcp_max_syn_backlog net.core.somaxconn net.ipv4.tcp_max_tw_buckets
net.ipv4.tcp_mem fs.file-max net.ipv4.tcp_tw_reuse net.ipv4.tcp_tw_recycle"

echo "TAP version 13"
diag "$TEST_NAME: klbctl tune apply/show/revert, per netns, all or nothing"
[ "$(id -u)" -eq 0 ] || skip_all "must be root"
[ -x "$KLBCTL" ] || skip_all "$KLBCTL not built (make)"
for c in ip "$PY" setpriv unshare mount; do
	command -v "$c" >/dev/null || skip_all "$c not installed"
done
echo "$_marker" >/dev/kmsg 2>/dev/null
trap _klb_exit EXIT
trap 'exit 1' INT TERM

TMP=$TMPD
NS_A=klb-tune-a-$KLB_SUF
NS_B=klb-tune-b-$KLB_SUF
# Private state and sysctl.d dirs: the test never touches /run/klb or /etc.
export KLBCTL_STATE_DIR=$TMP/state
export KLBCTL_SYSCTL_D=$TMP/sysctl.d
unset KLBCTL_PROC_SYS
ns_add "$NS_A"
ns_add "$NS_B"

# tp STATUS DESCRIPTION: a test point from an exit status
tp() {
	local st=$1

	shift
	if [ "$st" -eq 0 ]; then ok "$*"; else fail "$*"; fi
}
diag_file() { diag "$(cat "$1")"; }

in_ns() {	# in_ns NS|init CMD...: run CMD in a namespace
	local ns=$1

	shift
	if [ "$ns" = init ]; then "$@"; else ip netns exec "$ns" "$@"; fi
}

# The exact bytes of every tuned file of /proc/sys (or $1, a fake root),
# one "key<TAB>bytes" line per key, quoted (%q) so tabs and newlines show
# (sysctl files hold no NUL). Shell builtins only: it runs some twenty
# times, and every process start costs under emulation.
snapshot() {
	local root=${1:-/proc/sys} k f v

	for k in $KEYS; do
		f=$root/${k//.//}
		if [ -e "$f" ]; then
			IFS= read -r -d '' v <"$f"
			printf '%s\t%q\n' "$k" "$v"
		else
			printf '%s\tABSENT\n' "$k"
		fi
	done
}

snap_ns() { in_ns "$1" bash -c "$(declare -f snapshot); KEYS='$KEYS'; snapshot"; }

state_files() { ls -A "$KLBCTL_STATE_DIR" 2>/dev/null; }

# Exit status of CMD with stdout/stderr kept in $TMP/out and $TMP/err.
run() { "$@" >"$TMP/out" 2>"$TMP/err"; }

# Only in the test VM (tools/vm/guest-run exports KLB_VM=1) or when asked:
# on a host, the initial namespace's values are everybody's.
init_ns_allowed() {
	[ "${KLB_TUNE_INIT_NS:-${KLB_VM:-0}}" = 1 ]
}

# --- 1: round trip in a namespace restores every byte ---------------------
before=$(snap_ns "$NS_A")
run in_ns "$NS_A" "$KLBCTL" tune apply stingray
st=$?
after_apply=$(snap_ns "$NS_A")
in_ns "$NS_A" "$KLBCTL" -j tune show stingray >"$TMP/show.json"
"$PY" - "$TMP/show.json" <<'EOF'
import json, sys
rows = {r["key"]: r for r in json.load(open(sys.argv[1]))}
# In a child netns: per-netns keys applied, tcp_mem and tw_recycle absent,
# fs.file-max left alone (global).
for k, r in rows.items():
    want = {"net.ipv4.tcp_mem": "absent", "net.ipv4.tcp_tw_recycle": "absent"}.get(k)
    if k == "fs.file-max":
        continue
    assert r["status"] == (want or "applied"), (k, r)
EOF
shown=$?
grep -q "SYN flood" "$TMP/err"
warned=$?
run in_ns "$NS_A" "$KLBCTL" tune revert
rst=$?
after=$(snap_ns "$NS_A")
[ $st -eq 0 ] && [ "$before" != "$after_apply" ] && [ $shown -eq 0 ] &&
	[ $rst -eq 0 ] && [ "$before" = "$after" ] && [ -z "$(state_files)" ]
tp $? "tune: apply/show/revert in a netns restores every value byte for byte"
[ "$before" = "$after" ] || diag "$(diff <(echo "$before") <(echo "$after"))"
tp $warned "tune: stingray apply warns about SYN floods"

# --- 2: netns isolation ----------------------------------------------------
init_before=$(snapshot)
b_before=$(snap_ns "$NS_B")
run in_ns "$NS_A" "$KLBCTL" -j tune apply stingray
st=$?
"$PY" -c '
import json, sys
rows = {r["key"]: r for r in json.load(open(sys.argv[1]))}
assert rows["fs.file-max"]["status"] in ("skipped", "unchanged"), rows["fs.file-max"]
assert rows["net.ipv4.tcp_mem"]["status"] == "absent"
' "$TMP/out"
skipped=$?
b_after=$(snap_ns "$NS_B")
init_after=$(snapshot)
# B has nothing saved: revert there must refuse, and not touch A's file.
run in_ns "$NS_B" "$KLBCTL" tune revert
bst=$?
run in_ns "$NS_A" "$KLBCTL" tune revert
rst=$?
[ $st -eq 0 ] && [ "$b_before" = "$b_after" ] &&
	[ "$init_before" = "$init_after" ] && [ $bst -eq 1 ] && [ $rst -eq 0 ]
tp $? "tune: apply in netns A leaves netns B and the initial netns unchanged"
tp $skipped "tune: global keys are not written from a child netns"

# --- 3: idempotence ---------------------------------------------------------
before=$(snap_ns "$NS_A")
in_ns "$NS_A" "$KLBCTL" tune apply stingray >/dev/null 2>&1
st1=$?
saved1=$(cat "$KLBCTL_STATE_DIR"/*.saved 2>/dev/null)
run in_ns "$NS_A" "$KLBCTL" -j tune apply stingray
st2=$?
"$PY" -c '
import json, sys
for r in json.load(open(sys.argv[1])):
    assert r["status"] in ("unchanged", "absent", "skipped"), r
' "$TMP/out"
unchanged=$?
# Then a second profile on top: the originals must still be what is saved.
in_ns "$NS_A" "$KLBCTL" tune apply modern >/dev/null 2>&1
st3=$?
saved2=$(cat "$KLBCTL_STATE_DIR"/*.saved 2>/dev/null)
in_ns "$NS_A" "$KLBCTL" tune revert >/dev/null 2>&1
rst=$?
after=$(snap_ns "$NS_A")
[ $st1 -eq 0 ] && [ $st2 -eq 0 ] && [ $unchanged -eq 0 ] && [ $st3 -eq 0 ] &&
	[ -n "$saved1" ] && [ "$saved1" = "$saved2" ] && [ $rst -eq 0 ] &&
	[ "$before" = "$after" ]
tp $? "tune: apply twice (and another profile) then one revert restores the originals"

in_ns "$NS_A" "$KLBCTL" tune revert >"$TMP/out" 2>"$TMP/err"
st=$?
[ $st -eq 1 ] && grep -q "nothing to revert" "$TMP/err"
tp $? "tune: revert with nothing saved says so and exits 1"

# --- 4: JSON shape ----------------------------------------------------------
json_ok=0
for prof in stingray modern; do
	in_ns "$NS_A" "$KLBCTL" -j tune show $prof >"$TMP/show.json" || json_ok=1
	"$PY" - "$TMP/show.json" "$prof" <<'EOF' || json_ok=1
import json, sys
rows = json.load(open(sys.argv[1]))
assert isinstance(rows, list) and rows
for r in rows:
    assert {"key", "want", "current", "status"} <= set(r), r
    assert r["status"] in ("applied", "differs", "absent"), r
    assert isinstance(r["key"], str) and isinstance(r["want"], str)
    assert (r["current"] is None) == (r["status"] == "absent"), r
    assert r.get("scope", "netns") in ("netns", "global"), r
keys = [r["key"] for r in rows]
assert len(keys) == len(set(keys))
by = {r["key"]: r for r in rows}
if sys.argv[2] == "stingray":
    assert len(rows) == 9, keys
    assert by["net.ipv4.tcp_tw_recycle"]["status"] == "absent"
    assert by["net.ipv4.tcp_mem"]["want"] == "128000 200000 262144"
    assert by["fs.file-max"]["scope"] == "global"
else:
    assert by["net.ipv4.tcp_syncookies"]["want"] == "1"
    assert by["net.ipv4.tcp_tw_reuse"]["want"] == "1"
EOF
done
tp $json_ok "tune: show -j gives [{key,want,current,status}] for both profiles"

# --- 5: usage and refusals ---------------------------------------------------
before=$(snap_ns "$NS_A")
run in_ns "$NS_A" "$KLBCTL" tune apply bogus
st=$?
[ $st -eq 1 ] && grep -q 'unknown profile "bogus" (stingray, modern)' "$TMP/err" &&
	[ -z "$(state_files)" ]
tp $? "tune: unknown profile exits 1 and changes nothing"

chmod 755 "$TMP"	# nobody must reach the binary and the state dir
run in_ns "$NS_A" setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$KLBCTL" tune apply stingray
st=$?
after=$(snap_ns "$NS_A")
[ $st -eq 2 ] && grep -q "^Error: net\..*: Permission denied" "$TMP/err" &&
	[ "$before" = "$after" ] && [ -z "$(state_files)" ]
tp $? "tune: apply as non-root exits 2 and changes nothing"
diag_file "$TMP/err"

in_ns "$NS_A" "$KLBCTL" tune apply stingray >/dev/null 2>&1
tuned=$(snap_ns "$NS_A")
run in_ns "$NS_A" setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$KLBCTL" tune revert
st=$?
[ $st -eq 2 ] && grep -q "Permission denied" "$TMP/err" &&
	[ "$tuned" = "$(snap_ns "$NS_A")" ] && [ -n "$(state_files)" ] &&
	in_ns "$NS_A" "$KLBCTL" tune revert >/dev/null 2>&1 &&
	[ "$before" = "$(snap_ns "$NS_A")" ]
tp $? "tune: revert as non-root exits 2 and keeps the saved values"

run in_ns "$NS_A" "$KLBCTL" tune apply --persist
[ $? -eq 1 ] && [ ! -e "$KLBCTL_SYSCTL_D/90-klb-tune.conf" ]
tp $? "tune: --persist is refused in a child netns"

# --- 6: a fake /proc/sys tree: rollback, read-only, global keys, persist ----
make_tree() {	# a copy of this namespace's values, as regular files
	local k f v

	rm -rf "$TMP/sys"
	for k in $KEYS; do
		f=${k//.//}
		[ -e "/proc/sys/$f" ] || continue
		mkdir -p "$TMP/sys/${f%/*}"
		cat "/proc/sys/$f" >"$TMP/sys/$f"
	done
	# A global key for sure, as in the initial namespace.
	printf '1000\t2000\t3000\n' >"$TMP/sys/net/ipv4/tcp_mem"
}

make_tree
tree_before=$(snapshot "$TMP/sys")
# Opens fine, but every write fails (ENOSPC): the rollback path.
rm "$TMP/sys/net/ipv4/tcp_tw_reuse"
ln -s /dev/full "$TMP/sys/net/ipv4/tcp_tw_reuse"
KLBCTL_PROC_SYS=$TMP/sys run "$KLBCTL" tune apply stingray
st=$?
rm "$TMP/sys/net/ipv4/tcp_tw_reuse"
tree_after=$(snapshot "$TMP/sys")
[ $st -eq 2 ] && grep -q "^Error: net.ipv4.tcp_tw_reuse: " "$TMP/err" &&
	[ "$(grep -v tcp_tw_reuse <<<"$tree_before")" = \
	  "$(grep -v tcp_tw_reuse <<<"$tree_after")" ] && [ -z "$(state_files)" ]
tp $? "tune: a failing write rolls back the writes already made"
diag_file "$TMP/err"

make_tree
tree_before=$(snapshot "$TMP/sys")
f=$TMP/sys/net/core/somaxconn
unshare -m sh -c "mount --bind '$f' '$f' && mount -o remount,ro,bind '$f' &&
	KLBCTL_PROC_SYS='$TMP/sys' '$KLBCTL' tune apply stingray" \
	>"$TMP/out" 2>"$TMP/err"
st=$?
[ $st -eq 2 ] && grep -q "^Error: net.core.somaxconn: Read-only file system" "$TMP/err" &&
	[ "$tree_before" = "$(snapshot "$TMP/sys")" ] && [ -z "$(state_files)" ]
tp $? "tune: a read-only file refuses the apply before anything changed"
diag_file "$TMP/err"

# Global keys and --persist need the initial namespace; this shell is in it
# when the test runs from the VM's init or a host shell.
if [ -e /proc/sys/net/ipv4/tcp_mem ]; then
	make_tree
	tree_before=$(snapshot "$TMP/sys")
	KLBCTL_PROC_SYS=$TMP/sys run "$KLBCTL" tune apply stingray --persist
	st=$?
	conf=$KLBCTL_SYSCTL_D/90-klb-tune.conf
	[ $st -eq 0 ] && grep -q "$conf" "$TMP/out" &&
		grep -qx "net.ipv4.tcp_mem = 128000 200000 262144" "$conf" &&
		[ "$(cat "$TMP/sys/net/ipv4/tcp_mem")" = "128000 200000 262144" ] &&
		[ "$(cat "$TMP/sys/fs/file-max")" = 2097152 ]
	tp $? "tune: global keys written in the initial netns, --persist says where"
	KLBCTL_PROC_SYS=$TMP/sys run "$KLBCTL" tune revert
	st=$?
	[ $st -eq 0 ] && [ ! -e "$conf" ] && [ -z "$(state_files)" ] &&
		[ "$tree_before" = "$(snapshot "$TMP/sys")" ]
	tp $? "tune: revert restores the fake tree byte for byte and removes the sysctl.d file"
else
	skip "tune: global keys and --persist" "not in the initial netns"
fi

# --- 7: the real initial namespace (VM only by default) ----------------------
if init_ns_allowed && [ -e /proc/sys/net/ipv4/tcp_mem ]; then
	before=$(snapshot)
	run "$KLBCTL" tune apply stingray
	st=$?
	run "$KLBCTL" -j tune show stingray
	"$PY" -c '
import json, sys
for r in json.load(open(sys.argv[1])):
    assert r["status"] in ("applied", "absent"), r
' "$TMP/out"
	shown=$?
	run "$KLBCTL" tune revert
	rst=$?
	[ $st -eq 0 ] && [ $shown -eq 0 ] && [ $rst -eq 0 ] && [ "$before" = "$(snapshot)" ]
	tp $? "tune: apply/show/revert in the initial netns (global keys too) restores every byte"
else
	skip "tune: initial netns round trip" "on a host (KLB_TUNE_INIT_NS=1 forces it)"
fi

