#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/run.sh: the Stingray benchmark matrix against peers (direct, IPVS,
# haproxy, nginx), in one boot of the test VM. Host side: build, snapshot
# what runs, boot (tools/vm/run) with bench/guest.sh, then make the report
# (bench/report.py). See Documentation/bench/README.md.
#
#   bench/run.sh [--quick] [--rounds N] [--duration SECS] [--tests LIST]
#                [--configs LIST] [--threads N] [--name NAME] [--no-build]
#                [--bulk-streams LIST] [--bulk-mtus LIST] [--profile LIST]
#                [--mode-streams LIST] [--churn-rounds N] [--churn-ports LIST]
#                [--scale-sizes LIST] [--publish]
#
#   --quick     one second per cell, one round, the tests conn, req0,
#               tlsconn, tcp, bulk (2 streams at MTU 1500 only), churn
#               (1 round, the narrow client port range) and scale (1000
#               services and host names) (make bench-quick,
#               a phase of make check): proves the harness works, measures
#               nothing worth keeping
#   (default)   3 rounds of 6 s per cell (make bench), 60-80 min; churn
#               5 rounds per port range of 4 s (conn/s) + 2 s (keep-alive)
#   --churn-rounds N  --churn-ports 1024-65535,32768-34815   the churn
#               cell: rounds per client port range, and the ranges
#   --scale-sizes 1000,10000,100000   the scale cell's configuration
#               sizes (the largest is also the req/s and host map size)
#   --bulk-streams 1,2,4,8  --bulk-mtus 1500,9000   the bulk test's matrix
#   --mode-streams 1,4  the stream counts of the bulk-tcp cells the
#               forwarding modes (klb-fnat, klb-dr, klb-tun, ipvs-dr,
#               ipvs-tun) run in (besides conn and req0); a bulk-tcp cell
#               named in --tests always has them
#   --profile TEST:CFG,...  one extra run of each under perf record -a
#               (default for a full run: the bulk GET at 4 streams, MTU
#               1500, of direct, klb-http, haproxy-tcp)
#   BENCH_DEADLINE=SECS  stop starting runs after SECS in the guest
#               (default 600 quick, 5400 full)
#   --publish   copy report.md and the PNGs to Documentation/bench/
#   KLB_VM_KO=PATH  run that klb.ko instead of the tree's (an older build,
#               to compare)
#
# Results: out/bench/NAME/ (results.json with every run, report.md, *.png,
# guest.log, raw/ client outputs); out/bench/latest points to the last one.
# Exit status: non-zero when the VM run failed (a configuration broken, a
# client run failed, the kernel log dirty) or the report could not be made.
set -uo pipefail
# Read whole before running: the script may be edited while a run goes on.
{
top=$(cd "$(dirname "$0")/.." && pwd)
quick=0
rounds=
dur=
tests=
configs=
threads=
name=
build=1
publish=0
bstreams=
bmtus=
profile=-
mstreams=
crounds=
cports=
ssizes=
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) quick=1; shift ;;
	--rounds) rounds=$2; shift 2 ;;
	--duration) dur=$2; shift 2 ;;
	--tests) tests=$2; shift 2 ;;
	--configs) configs=$2; shift 2 ;;
	--threads) threads=$2; shift 2 ;;
	--name) name=$2; shift 2 ;;
	--no-build) build=0; shift ;;
	--publish) publish=1; shift ;;
	--bulk-streams) bstreams=$2; shift 2 ;;
	--bulk-mtus) bmtus=$2; shift 2 ;;
	--profile) profile=$2; shift 2 ;;
	--mode-streams) mstreams=$2; shift 2 ;;
	--churn-rounds) crounds=$2; shift 2 ;;
	--churn-ports) cports=$2; shift 2 ;;
	--scale-sizes) ssizes=$2; shift 2 ;;
	-h|--help) sed -n '4,43p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench: unknown argument $1" >&2; exit 1 ;;
	esac
done

if [ $quick -eq 1 ]; then
	# One test of each kind of client run (conn/s, requests, TLS
	# handshakes, iperf3, the bulk cells, churn) is enough to prove every
	# configuration and every client works; req2k, req8k, tput1m and
	# tlstput are the same runs with other sizes (make bench has them).
	tests=${tests:-conn,req0,tlsconn,tcp,bulk,churn,scale}
	rounds=${rounds:-1}
	dur=${dur:-1}
	bstreams=${bstreams:-2}
	bmtus=${bmtus:-1500}
	crounds=${crounds:-1}
	cports=${cports:-32768-34815}
	ssizes=${ssizes:-1000}
	cdur=2
	ckadur=1
	kind=quick
else
	rounds=${rounds:-3}
	dur=${dur:-6}
	crounds=${crounds:-5}
	cdur=4
	ckadur=2
	kind=full
	[ "$profile" = - ] && profile=bulk-get-p4-m1500:direct,bulk-get-p4-m1500:klb-http,bulk-get-p4-m1500:haproxy-tcp
fi
# The guest stops starting runs once DEADLINE seconds have passed since it
# began (the cells left are recorded as skipped, rounds last: a late round
# is lost, never a test); the VM is killed if it runs 10 min past that.
# A run takes its duration plus ~1.5 s on an idle host, up to 3x that when
# other VMs load the machine: 199 cells (49 + 120 bulk + 30 of the
# forwarding modes: 5 configurations x conn, req0 and bulk-tcp at 1 and 4
# streams, both MTUs) x 3 rounds x 6 s fit in about 75 min idle; 90 min is
# the cap. Quick (89 cells x 2 s, 10 of them the modes' conn and req0;
# ~70 s more than without them): ~6 min idle, 9 min (543 s) seen with the
# host at load 8, at most 10. churn comes last: in a full run 10 rounds x 5
# configurations x (4 s + 2 s keep-alive), ~8 min idle, 18 min seen at
# load 10; quick, one round of 2 s + 1 s, about a minute.
if [ $quick -eq 1 ]; then
	deadline=${BENCH_DEADLINE:-600}
else
	deadline=${BENCH_DEADLINE:-5400}
fi
vmtimeout=$((deadline + 600))

if [ $build -eq 1 ]; then
	make -C "$top" all >/dev/null || { echo "bench: build failed (make)" >&2; exit 1; }
fi
ko=${KLB_VM_KO:-$top/klb.ko}
[ -e "$ko" ] || { echo "bench: $ko is not built: run make first" >&2; exit 1; }
[ -e "$top/tools/klbctl/klbctl" ] || { echo "bench: tools/klbctl/klbctl is not built: run make first" >&2; exit 1; }
command -v python3 >/dev/null || { echo "bench: python3 missing (make deps)" >&2; exit 1; }

[ -n "$name" ] || name="bench-$kind-$(date +%Y%m%d-%H%M%S)"
rel=out/bench/$name
dir=$top/$rel
rm -rf "$dir"
mkdir -p "$dir" || exit 1

# Run a snapshot: others may rebuild klb.ko or edit scripts during the run.
snap=$rel/snap
mkdir -p "$top/$snap/tools/klbctl" "$top/$snap/selftests" "$top/$snap/bench"
cp "$ko" "$top/$snap/klb.ko"
cp "$top/tools/klbctl/klbctl" "$top/$snap/tools/klbctl/"
# lib.sh sources its theme files (lib_*.sh) and kernel_log.sh beside it
cp "$top/selftests/lib.sh" "$top"/selftests/lib_*.sh "$top/selftests/kernel_log.sh" "$top/$snap/selftests/"
cp "$top/bench/guest.sh" "$top/bench/scale.sh" "$top/bench/wrk-json.lua" "$top/$snap/bench/"

host_json() {
	local phase=$1
	python3 - "$phase" "$dir/host.json" <<-'EOF'
		import json, os, platform, subprocess, sys, time
		phase, path = sys.argv[1], sys.argv[2]
		try:
		    d = json.load(open(path))
		except Exception:
		    d = {}
		def out(*cmd):
		    try:
		        return subprocess.run(cmd, capture_output=True, text=True, timeout=20).stdout.strip()
		    except Exception:
		        return ""
		if phase == "start":
		    model = ""
		    for l in open("/proc/cpuinfo"):
		        if l.startswith("model name"):
		            model = l.split(":", 1)[1].strip()
		            break
		    d.update({
		        "date": time.strftime("%Y-%m-%d %H:%M:%S %z"),
		        "host_cpu_model": model,
		        "host_cpus": os.cpu_count(),
		        "host_kernel": platform.release(),
		        "host_mem_kb": int(next(l.split()[1] for l in open("/proc/meminfo") if l.startswith("MemTotal"))),
		        "qemu": out("qemu-system-x86_64", "--version").splitlines()[0] if out("qemu-system-x86_64", "--version") else "",
		        "accel": "tcg (software emulation, no KVM)",
		        "git_commit": out("git", "-C", os.environ["TOP"], "rev-parse", "--short", "HEAD"),
		        "git_dirty": bool(out("git", "-C", os.environ["TOP"], "status", "--porcelain", "--untracked-files=no")),
		        "kind": os.environ["KIND"],
		        "klb_ko": os.environ["KO"],
		        "loadavg_start": open("/proc/loadavg").read().split()[:3],
		    })
		else:
		    d["loadavg_end"] = open("/proc/loadavg").read().split()[:3]
		    d["vm_status"] = int(os.environ.get("VMRC", "0"))
		    d["wall_s"] = int(os.environ.get("WALL", "0"))
		json.dump(d, open(path, "w"), indent=1)
	EOF
}
export TOP=$top KIND=$kind KO=$ko
host_json start

args=(--out "/klb/$rel" --rounds "$rounds" --duration "$dur" --deadline "$deadline")
[ -n "$tests" ] && args+=(--tests "$tests")
[ -n "$configs" ] && args+=(--configs "$configs")
[ -n "$threads" ] && args+=(--threads "$threads")
[ -n "$bstreams" ] && args+=(--bulk-streams "$bstreams")
[ -n "$bmtus" ] && args+=(--bulk-mtus "$bmtus")
[ -n "$mstreams" ] && args+=(--mode-streams "$mstreams")
[ -n "$ssizes" ] && args+=(--scale-sizes "$ssizes")
args+=(--churn-rounds "$crounds" --churn-duration "$cdur" --churn-ka-duration "$ckadur")
[ -n "$cports" ] && args+=(--churn-ports "$cports")
[ "$profile" != - ] && [ -n "$profile" ] && args+=(--profile "$profile")
echo "bench: $kind run $name: $rounds round(s) x ${dur}s per cell; results in $rel/" >&2
start=$(date +%s)
"$top/tools/vm/run" --quiet --no-slub-debug --name "$name" --timeout "$vmtimeout" -- \
	env KLB_SRC="/klb/$snap" bash "$snap/bench/guest.sh" "${args[@]}"
vmrc=$?
wall=$(($(date +%s) - start))
vmdir=$top/out/vm/$name
cp "$vmdir/log" "$dir/guest.log" 2>/dev/null
cp "$vmdir/dmesg" "$dir/dmesg" 2>/dev/null
VMRC=$vmrc WALL=$wall host_json end
rm -rf "${top:?}/$snap"

case $vmrc in
0) echo "bench: the VM run finished cleanly after ${wall}s" >&2 ;;
124) echo "bench: FAIL: the guest kernel log is dirty (out/vm/$name/dmesg)" >&2 ;;
125) echo "bench: FAIL: the VM died or timed out (out/vm/$name/console.log)" >&2 ;;
*) echo "bench: FAIL: the guest run exited $vmrc (see $rel/guest.log)" >&2 ;;
esac

rrc=0
if [ -s "$dir/runs.jsonl" ] || [ -s "$dir/scale.jsonl" ]; then
	python3 "$top/bench/report.py" "$dir" || rrc=$?
else
	echo "bench: FAIL: no results (see $rel/guest.log, out/vm/$name/console.log)" >&2
	rrc=1
fi
ln -sfn "$name" "$top/out/bench/latest"
if [ $rrc -eq 0 ]; then
	echo "bench: report: $rel/report.md" >&2
	if [ $publish -eq 1 ]; then
		mkdir -p "$top/Documentation/bench"
		rm -f "$top/Documentation/bench/"bench-*.png
		cp "$dir/report.md" "$dir/"bench-*.png "$top/Documentation/bench/" &&
			echo "bench: published to Documentation/bench/" >&2
	fi
fi
[ $vmrc -eq 0 ] || exit 1
exit $rrc
exit
}
