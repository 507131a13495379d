#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host checks of what `make install` and dkms do, nothing loaded:
#   - make install into a DESTDIR puts every file there and nothing on the
#     host (no klb.ko in /lib/modules, no depmod run); make uninstall takes
#     every file back but the operator's /etc/klb/klb.conf
#   - install-tools needs no kernel build tree
#   - the installed klb.service passes `systemd-analyze verify`
#   - dkms add/build/install against the installed headers, in private
#     dkms/source/install trees (--no-depmod): the built klb.ko is for KVER
#     and has the one version
#   - VERSION agrees with dkms.conf, the man page, the CHANGELOG, klb.ko
#     and klbctl
# TAP; exit 1 if anything failed. Run by `make install-check` (make check).
set -u
cd "$(dirname "$0")/.."
KVER=${KVER:-$(ls -1 /lib/modules | while read -r v; do [ -e "/lib/modules/$v/build/Makefile" ] && echo "$v"; done | sort -V | tail -n1)}
VERSION=$(cat VERSION)
n=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
check() {
	local desc=$1
	shift
	if "$@" >"$tmp/out" 2>&1; then ok "$desc"; else not_ok "$desc"; sed 's/^/# /' "$tmp/out" | tail -20; fi
}

# ---- make install / uninstall into a DESTDIR
d=$tmp/root
dep=/lib/modules/$KVER/modules.dep
dep_before=$(stat -c %Y "$dep" 2>/dev/null)
had_ko=$(ls /lib/modules/"$KVER"/updates/klb.ko 2>/dev/null)
check "make install DESTDIR PREFIX=/usr" make -s install DESTDIR="$d" PREFIX=/usr KVER="$KVER"
want="etc/klb/klb.conf
lib/modules/$KVER/updates/klb.ko
usr/lib/systemd/system/klb.service
usr/sbin/klbctl
usr/share/bash-completion/completions/klbctl
usr/share/doc/klb/CHANGELOG.md
usr/share/doc/klb/README.md
usr/share/doc/klb/deploy.md
usr/share/doc/klb/design.md
usr/share/doc/klb/sysctl.rst
usr/share/doc/klb/tuning.md
usr/share/man/man8/klbctl.8"
got=$(cd "$d" && find . -type f | sed 's|^\./||' | sort)
if [ "$got" = "$want" ]; then ok "installed files"; else not_ok "installed files"; diff <(echo "$want") <(echo "$got") | sed 's/^/# /'; fi
check "no klb.ko put on the host" test -z "$(ls /lib/modules/"$KVER"/updates/klb.ko 2>/dev/null | grep -v "^$had_ko\$")"
check "no depmod run on the host" test "$(stat -c %Y "$dep" 2>/dev/null)" = "$dep_before"
check "installed klb.ko is for $KVER" test "$(modinfo -F vermagic "$d/lib/modules/$KVER/updates/klb.ko" | cut -d' ' -f1)" = "$KVER"
check "installed klbctl runs" "$d/usr/sbin/klbctl" -V
check "man page renders" sh -c "MANWIDTH=80 man -l '$d/usr/share/man/man8/klbctl.8' >/dev/null"
check "unit: no @placeholders@ left" sh -c "! grep -q @ '$d/usr/lib/systemd/system/klb.service'"
check "unit: ExecStart restores /etc/klb/klb.conf" grep -qx "ExecStart=/usr/sbin/klbctl restore -f /etc/klb/klb.conf" "$d/usr/lib/systemd/system/klb.service"
echo "# a modified configuration survives install and uninstall" >>"$d/etc/klb/klb.conf"
check "make install again keeps /etc/klb/klb.conf" make -s install-tools DESTDIR="$d" PREFIX=/usr
check "make uninstall DESTDIR" make -s uninstall DESTDIR="$d" PREFIX=/usr KVER="$KVER"
got=$(cd "$d" && find . -type f | sed 's|^\./||' | sort)
check "uninstall leaves only etc/klb/klb.conf" test "$got" = "etc/klb/klb.conf"
check "the operator's klb.conf is kept" grep -q "survives" "$d/etc/klb/klb.conf"

# ---- klbctl alone: no kernel headers, no module build
check "install-tools with no kernel build tree" make -s install-tools DESTDIR="$tmp/tools" KVER=none KDIR=/nonexistent

# ---- the systemd unit, verified where its commands exist
if command -v systemd-analyze >/dev/null; then
	p=$tmp/prefix
	make -s install-tools PREFIX="$p" SYSCONFDIR="$p/etc" >/dev/null
	check "systemd-analyze verify klb.service" systemd-analyze verify --man=no "$p/lib/systemd/system/klb.service"
	# and the check can fail: a unit with a typo
	sed 's/^ExecReload=/ExecRelaod=/' "$p/lib/systemd/system/klb.service" >"$tmp/klb.service"
	if systemd-analyze verify --man=no "$tmp/klb.service" 2>&1 | grep -q "Unknown key"; then
		ok "systemd-analyze verify reports the typo"
	else
		not_ok "systemd-analyze verify reports the typo"
	fi
else
	skip "systemd-analyze verify klb.service" "systemd-analyze not installed"
fi

# ---- dkms add/build/install in private trees
if [ "$(id -u)" -ne 0 ]; then
	skip "dkms add/build/install" "dkms install needs root"
elif command -v dkms >/dev/null && [ -e "/lib/modules/$KVER/build/Makefile" ]; then
	make -s dkms-src DESTDIR="$tmp/src" >/dev/null
	src=$tmp/src/usr/src
	trees=(--dkmstree "$tmp/dkms" --sourcetree "$src" --installtree "$tmp/inst" --no-depmod)
	mkdir -p "$tmp/dkms" "$tmp/inst/$KVER"
	check "dkms add" dkms add -m klb -v "$VERSION" "${trees[@]}"
	check "dkms build -k $KVER" dkms build -m klb -v "$VERSION" -k "$KVER" "${trees[@]}"
	check "dkms install -k $KVER" dkms install -m klb -v "$VERSION" -k "$KVER" "${trees[@]}" --force
	ko=$(find "$tmp/inst/$KVER" -name 'klb.ko*' | head -n1)
	check "dkms installed klb.ko for $KVER" test "$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)" = "$KVER"
	check "dkms klb.ko has version $VERSION" test "$(modinfo -F version "$ko" 2>/dev/null)" = "$VERSION"
	check "dkms status: installed" sh -c "dkms status ${trees[*]} -m klb | grep -q installed"
	check "dkms.conf: kernel 5.10 excluded" sh -c "dkms build -m klb -v $VERSION -k 5.10.0-1-amd64 ${trees[*]} 2>&1 | grep -q BUILD_EXCLUSIVE"
	check "dkms remove" dkms remove -m klb -v "$VERSION" --all "${trees[@]}"
	check "nothing of klb left on the host's dkms" test ! -e /var/lib/dkms/klb/"$VERSION"/build
else
	skip "dkms add/build/install" "dkms or the $KVER build tree not installed"
fi

# ---- one version
check "one version (tools/version_check.sh --built)" tools/version_check.sh --built

echo "1..$n"
[ $failed -eq 0 ]
