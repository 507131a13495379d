#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build klb.ko against the headers of a Debian kernel that is not installed
# (compile check only: nothing is installed, nothing is loaded).
#
#   tools/build-other-kernels.sh [--tracker] [VERSION]
#     VERSION  a Debian kernel ABI such as 6.12.118+deb12 (default: the
#              newest linux-headers-6.12.*-amd64 apt knows)
#     --tracker  also with CONFIG_NET_NS_REFCNT_TRACKER=y (Debian builds
#              without it): the netns refcount tracker code paths compile
#
# The .debs are fetched with `apt-get download` and unpacked with
# `dpkg-deb -x` under out/kernels/VERSION/ (never `apt install`: the
# Makefile picks the kernel to build for by what is installed). The
# headers' Makefile includes /usr/src/linux-headers-VERSION-common/Makefile:
# it is pointed at the unpacked copy. The module is built from a copy of
# the sources (kmod/, include/, Kbuild) so the tree's own objects (for the
# VM's kernel) stay as they are. With --tracker, modpost only warns about
# the two ref_tracker symbols the real kernel does not export. Not part of `make check`: it downloads
# about 17 MB and builds for minutes.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tracker=0
if [ "${1:-}" = --tracker ]; then
	tracker=1
	shift
fi
ver=${1:-}
if [ -z "$ver" ]; then
	ver=$(apt-cache search --names-only '^linux-headers-6\.12\.[0-9]+\+deb[0-9]+-amd64$' |
		sed -n 's/^linux-headers-\(6\.12\.[0-9]*+deb[0-9]*\)-amd64 .*/\1/p' | sort -V | tail -n1)
	[ -n "$ver" ] || { echo "no linux-headers-6.12.*-amd64 known to apt (apt-get update?)" >&2; exit 1; }
fi

dir=$top/out/kernels/$ver
root=$dir/root
mkdir -p "$dir/deb" "$root"
if [ ! -d "$root/usr/src/linux-headers-$ver-amd64" ]; then
	(cd "$dir/deb" && apt-get download "linux-headers-$ver-amd64" \
		"linux-headers-$ver-common" "linux-kbuild-${ver%%+*}+${ver#*+}")
	for deb in "$dir"/deb/*.deb; do
		dpkg-deb -x "$deb" "$root"
	done
fi

# The build directory: a copy, as its Makefile and (with --tracker) its
# configuration are changed.
name=build$([ $tracker = 1 ] && echo -tracker || true)
kdir=$dir/$name
rm -rf "$kdir"
cp -a "$root/usr/src/linux-headers-$ver-amd64" "$kdir"
# relative links (scripts, tools -> ../../lib/linux-kbuild-*) made absolute
for l in scripts tools; do
	ln -sfn "$(readlink -f "$root/usr/src/linux-headers-$ver-amd64/$l")" "$kdir/$l"
done
echo "include $root/usr/src/linux-headers-$ver-common/Makefile" >"$kdir/Makefile"
# Without vmlinux kbuild skips the module's BTF, which needs pahole
# (dwarves), not a build dependency of klb.
rm -f "$kdir/vmlinux"
if [ $tracker = 1 ]; then
	for opt in NET_NS_REFCNT_TRACKER REF_TRACKER STACKDEPOT; do
		sed -i "/^# CONFIG_$opt is not set/d; /^CONFIG_$opt=/d" "$kdir/.config"
		echo "CONFIG_$opt=y" >>"$kdir/.config"
		sed -i "/^CONFIG_$opt=/d" "$kdir/include/config/auto.conf"
		echo "CONFIG_$opt=y" >>"$kdir/include/config/auto.conf"
		sed -i "/#define CONFIG_$opt /d" "$kdir/include/generated/autoconf.h"
		echo "#define CONFIG_$opt 1" >>"$kdir/include/generated/autoconf.h"
	done
fi

# Sources copied with their times, over the objects of the last run
# (kbuild's dependency files tell what changed); no objects from the tree.
src=$dir/src-$name
mkdir -p "$src"
(cd "$top" && find Kbuild VERSION include kmod -type f \
	\( -name '*.[ch]' -o -name Kbuild -o -name VERSION \) -print0 |
	cpio -0 -pdmu --quiet "$src")
# With the tracker forced on, the kernel's Module.symvers lacks
# ref_tracker_alloc/free: a compile check, so let modpost only warn.
warn=$([ $tracker = 1 ] && echo KBUILD_MODPOST_WARN=1 || true)
# -k: every file that does not compile, not just the first
make -k -C "$kdir" M="$src" modules -j"$(nproc)" $warn
echo "built $src/klb.ko for $ver$([ $tracker = 1 ] && echo ' (with the netns refcount tracker)' || true)"
modinfo -F vermagic "$src/klb.ko"
