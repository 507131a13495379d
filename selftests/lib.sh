# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Shared topology and TAP helpers of the klb selftests. Source it, then:
#   klb_test_init "what this test proves"     root? klb.ko? klbctl? -> TAP header
#   topo_setup; backends_start                 namespaces, addresses, nginx
#   klb_load                                   insmod klb.ko
#   ... assertions: ok / fail / check / check_eq ...
# On exit (trap) everything is torn down and checked: processes killed,
# namespaces deleted and gone, `rmmod klb` succeeds, the kernel log written
# since the test began is clean. Those checks are TAP test points too.
#
# This file is the one a test sources (so do bench/guest.sh,
# tools/vm/demo-guest.sh and tools/klbctl/test-vm-traffic.sh). It holds
# what every helper shares (paths, the time scale, this run's names) and
# sources the helpers, one theme a file, from its own directory, so that a
# snapshot of selftests/ (tools/vm/run-selftests, bench/run.sh) or the
# kselftest install (TEST_FILES in the Makefile) works wherever it lands:
#   lib_tap.sh      TAP output, assertions (check, check_eq, ...), bail, and
#                   waiting for a condition (wait_for, poll_until)
#   lib_topo.sh     the topology (its diagram), namespaces, veths, bridge,
#                   addresses; for dr and tun: direct_return_setup,
#                   vip_on_backends, bridged_replies_pass_by
#   lib_servers.sh  the backends' nginx and UDP servers
#   lib_traffic.sh  the client's requests: http_n and tally, uploads, downloads
#   lib_klb.sh      klbctl in the balancer namespace, basic_service, klb's
#                   counters and connection table
#   lib_conn.sh     long-lived connections (hold_open) and ICMP errors about them
#   lib_l7.sh       L7 (http and tls service modes): backends, clients, counters
#   lib_kernel.sh   klb_test_init, insmod and rmmod, expected warnings,
#                   kmemleak, and the teardown with its kernel log check
# The theme files define functions and the variables those share, and
# start nothing: what a test runs begins with klb_test_init.

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

KLB_SRC=${KLB_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
KLB_KO=${KLB_KO:-$KLB_SRC/klb.ko}
KLBCTL=${KLBCTL:-$KLB_SRC/tools/klbctl/klbctl}
SELFTESTS=$KLB_SRC/selftests
PY=${PY:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3

# KLB_TIME_SCALE (a whole number, 1 by default): how much longer than on
# the stock kernel things take where the tests run. make vmtest-debug sets
# it: under KASAN and lockdep in emulation a process start or an
# `ip netns exec` takes seconds, not milliseconds. A test passes the klb
# timeouts it chooses and the times it bounds through tscale, so the two
# stretch together and the test still tells a timeout from a slow client;
# poll_until stretches its own bound.
KLB_TIME_SCALE=${KLB_TIME_SCALE:-1}
[[ "$KLB_TIME_SCALE" =~ ^[1-9][0-9]*$ ]] || {
	echo "lib.sh: KLB_TIME_SCALE must be a whole number >= 1, not '$KLB_TIME_SCALE'" >&2
	exit 1
}
# tscale SECS: SECS (whole or decimal) stretched by KLB_TIME_SCALE
tscale() { awk -v s="$1" -v k="$KLB_TIME_SCALE" 'BEGIN {print s * k}'; }

# This run's names: KLB_SUF ends every namespace name (lib_topo.sh) and
# the kernel log markers (lib_kernel.sh), so that runs and leftovers never
# collide; TMPD holds every file a helper writes, removed at exit.
KLB_SUF=${KLB_SUF:-$$}
TEST_NAME=$(basename "$0" .sh)
TMPD=$(mktemp -d "/tmp/klb-$TEST_NAME.XXXXXX")

# The helpers, by theme (in any order: a function is looked up when it is
# called, and each file needs only the variables above at source time).
# shellcheck source=lib_tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib_tap.sh"
# shellcheck source=lib_topo.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib_topo.sh"
# shellcheck source=lib_servers.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib_servers.sh"
# shellcheck source=lib_traffic.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib_traffic.sh"
# shellcheck source=lib_klb.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib_klb.sh"
# shellcheck source=lib_conn.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib_conn.sh"
# shellcheck source=lib_l7.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib_l7.sh"
# shellcheck source=lib_kernel.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib_kernel.sh"
