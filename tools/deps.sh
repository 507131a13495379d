#!/bin/bash
# Install the Debian packages klb needs to build, test and demo, if missing.
# Idempotent and quick when everything is already there. Needs root (or sudo)
# only when something must be installed.
#
# The list is all a minimal root (mmdebstrap --variant=apt, plus git and
# make) lacks for make demo and make check: xz-utils for checkpatch.sh
# (linux-source's .tar.xz) and modules the kernel may ship as .ko.xz;
# netbase for /etc/services, without which wrk cannot resolve "http" in a
# URL (every wrk run of make check failed in such a root).
set -euo pipefail

pkgs=(
	build-essential pkg-config libmnl-dev
	linux-image-amd64 linux-headers-amd64
	qemu-system-x86 busybox-static kmod cpio xz-utils iproute2 procps util-linux
	nginx-light curl wrk netbase socat ethtool python3 python3-yaml python3-jsonschema jq nftables iputils-ping openssl
	haproxy ipvsadm iperf3 gnuplot-nox linux-perf python3-websockets
	clang llvm libclang-rt-14-dev sparse
	dkms systemd man-db bash-completion prometheus
)
pkgs+=("$@")

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}"
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
# Packaged daemons (nginx, haproxy) must not start on the host at install.
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
	$SUDO chmod +x /usr/sbin/policy-rc.d
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
