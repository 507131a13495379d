#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One version for klb.ko, klbctl, dkms.conf, the man page and the CHANGELOG:
# the file VERSION. Fails (exit 1) naming every place that disagrees.
#   tools/version_check.sh [--built]   --built: also klb.ko and klbctl
# `make set-version V=x.y.z` rewrites all of them.
set -u
cd "$(dirname "$0")/.."
v=$(cat VERSION)
bad=0
want() {
	if [ "$2" = "$v" ]; then
		echo "ok - $1: $2"
	else
		echo "not ok - $1: '$2', VERSION says '$v'"
		bad=1
	fi
}
[[ "$v" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "not ok - VERSION '$v' is not X.Y.Z"; bad=1; }
want dkms.conf "$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)"
want Documentation/klbctl.8 "$(sed -n 's/^\.TH KLBCTL 8 "[^"]*" "klb \([^"]*\)".*/\1/p' Documentation/klbctl.8)"
want CHANGELOG.md "$(sed -n 's/^## \([0-9][0-9.]*\) .*/\1/p' CHANGELOG.md | head -n1)"
if [ "${1:-}" = --built ]; then
	want "modinfo klb.ko" "$(modinfo -F version klb.ko 2>/dev/null)"
	want "klbctl -V" "$(tools/klbctl/klbctl -V | awk '{print $2}')"
fi
exit $bad
