#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/guest.sh: the Stingray test matrix, run inside the test VM by
# bench/run.sh (never on a host: it loads modules and changes sysctls).
# One boot, one topology, every configuration; see Documentation/bench/README.md.
#
#   bench/guest.sh --out DIR [--rounds N] [--duration SECS] [--deadline SECS]
#                  [--tests LIST] [--configs LIST] [--threads N]
#                  [--bulk-streams LIST] [--bulk-mtus LIST] [--profile LIST]
#                  [--mode-streams LIST] [--churn-rounds N] [--churn-duration SECS]
#                  [--churn-ka-duration SECS] [--churn-ports LIST]
#                  [--scale-sizes LIST]
#
# Topology (selftests/lib.sh, one backend):
#
#   client ns --veth-- balancer ns --bridge/veth-- backend ns be1
#   10.0.0.2           10.0.0.1 | 10.0.1.1         10.0.1.11: nginx :80, :443 (TLS),
#   wrk, iperf3 -c     klb, IPVS, haproxy, nginx   iperf3 -s :5201
#
# Tests: conn req0 req2k req8k tput1m tlsconn tlstput tcp (the Stingray
# matrix), and bulk: big transfers with 1, 2, 4, 8 parallel streams
# (--bulk-streams) at MTU 1500 and 9000 on every link (--bulk-mtus), as
# cells bulk-KIND-pSTREAMS-mMTU:
#   bulk-tcp-*   iperf3 -P STREAMS        direct klb-nat ipvs-nat haproxy-tcp
#                                         (+ the forwarding modes, see below)
#   bulk-get-*   wrk GET of a 16 MB file  direct klb-http haproxy-http haproxy-tcp
#   bulk-put-*   wrk PUT of a 4 MB body   (the same; the backend stores it)
#   bulk-tls-*   wrk GET over TLS, 16 MB  direct klb-tls haproxy-tcp
# "bulk" in --tests stands for all of them; a cell can be named alone.
# churn: after the other tests, klb-nat, ipvs-nat, klb-fnat, klb-http and
# haproxy-http are configured together, once, and kept up across all the
# churn rounds (as a balancer runs in production: klb and IPVS side by
# side in one netns, issue 33). Round r runs each configuration in turn,
# each a Connection: close run (conn/s, wrk -t1 -c32, --churn-duration)
# then a short keep-alive run (churn-ka, --churn-ka-duration). The
# connection tables fill with the closed connections of the rounds before
# (TIME_WAIT) and the client reuses its ports. --churn-ports: the client's
# ip_local_port_range of each phase of --churn-rounds rounds, rounds
# numbered on across phases (default "1024-65535 32768-34815": the
# issue's range, then 2048 ports, fewer than one run's connections, so a
# port comes back within seconds to every VIP). Each run records the
# client's TcpRetransSegs delta; each round the tables' sizes before it.
# scale: last, the size of the configuration varies, not the traffic:
# restore/save/flush of --scale-sizes services (default 1000 10000 100000)
# against ipvsadm-restore, req/s with the largest size configured, and a
# host map of that many names against haproxy's map file (bench/scale.sh;
# OUT/scale.jsonl).
#
# --profile TEST:CFG,...: after the rounds, one more run of each such cell
# under `perf record -a` (cpu-clock, every CPU, every namespace), kept out
# of the results: raw/profile-TEST-CFG.txt has the hottest symbols and the
# commands they ran in (profiles.jsonl the top of each, for the report).
#
# Configurations (where the client sends to):
#   direct        10.0.1.11 (routed through the balancer ns, nothing balances)
#   klb-nat       10.0.100.1:80/443/5201   klb, mode nat (VIP not local)
#   klb-http      10.0.100.2:80            klb, mode http
#   klb-tls       10.0.100.3:443           klb, mode tls (SNI pass-through)
#   ipvs-nat      10.0.0.1:80/443/5201     ipvsadm -m (VIP local: IPVS needs it)
#   haproxy-http  10.0.0.1:8080            haproxy mode http, http-reuse always
#   haproxy-tcp   10.0.0.1:8081/8443/8520  haproxy mode tcp
#   nginx-proxy   10.0.0.1:8082            nginx proxy_pass, upstream keepalive
#   klb-fnat      10.0.100.4:80/5201       klb, mode fnat (source: 10.0.1.1)
#   klb-dr        10.0.100.5:80/5201       klb, mode dr (VIP not local)
#   klb-tun       10.0.100.6:80/5201       klb, mode tun (IPIP)
#   ipvs-dr       10.0.100.7:80/5201       ipvsadm -g (VIP on the balancer's lo)
#   ipvs-tun      10.0.100.8:80/5201       ipvsadm -i (VIP on the balancer's lo)
# The forwarding-mode configurations (the last five) run in conn, req0 and
# the bulk-tcp cells whose stream count is in --mode-streams (default 1 4;
# a bulk-tcp cell named in --tests always). dr and tun need a return path
# that skips the balancer's IP layer: the client gets a second link on the
# backends' bridge (eth1 10.0.1.50/32, no subnet route: nothing else uses
# it), and only while a dr or tun configuration runs, the backend holds
# its VIP on lo (arp_ignore=1, arp_announce=2), routes the client network
# via 10.0.1.50 and (tun) has tunl0 up with rp_filter 0.
# klb and IPVS are configured just before each of their runs and removed
# just after it (both register their netfilter hooks only while a service
# exists), so no configuration runs with another one's hooks in its path
# (but in churn, which keeps its five up together on purpose).
# haproxy and nginx run all along (idle when it is not their turn).
#
# Writes into DIR: meta.json, probes.jsonl (one line per configuration:
# did traffic pass its balancer), runs.jsonl (one line per run), raw/ (each
# client's own output), guest.log is the VM's log (tools/vm/run).
set -uo pipefail

OUT=
ROUNDS=3
DUR=5
DEADLINE=3000
THREADS=2
TESTS="conn req0 req2k req8k tput1m tlsconn tlstput tcp bulk churn scale"
BULK_STREAMS="1 2 4 8"
BULK_MTUS="1500 9000"
BULK_GET_BYTES=$((16 << 20))
BULK_PUT_BYTES=$((4 << 20))
PROFILE=
CONFIGS="direct klb-nat klb-http klb-tls ipvs-nat haproxy-http haproxy-tcp nginx-proxy klb-fnat klb-dr klb-tun ipvs-dr ipvs-tun"
MODE_STREAMS="1 4"
CHURN_ROUNDS=5
CHURN_DUR=4
CHURN_KA_DUR=2
CHURN_PORTS="1024-65535 32768-34815"
SCALE_SIZES="1000 10000 100000"
while [ $# -gt 0 ]; do
	case "$1" in
	--out) OUT=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	--duration) DUR=$2; shift 2 ;;
	--deadline) DEADLINE=$2; shift 2 ;;
	--threads) THREADS=$2; shift 2 ;;
	--tests) TESTS=${2//,/ }; shift 2 ;;
	--configs) CONFIGS=${2//,/ }; shift 2 ;;
	--bulk-streams) BULK_STREAMS=${2//,/ }; shift 2 ;;
	--bulk-mtus) BULK_MTUS=${2//,/ }; shift 2 ;;
	--profile) PROFILE=${2//,/ }; shift 2 ;;
	--mode-streams) MODE_STREAMS=${2//,/ }; shift 2 ;;
	--churn-rounds) CHURN_ROUNDS=$2; shift 2 ;;
	--churn-duration) CHURN_DUR=$2; shift 2 ;;
	--churn-ka-duration) CHURN_KA_DUR=$2; shift 2 ;;
	--churn-ports) CHURN_PORTS=${2//,/ }; shift 2 ;;
	--scale-sizes) SCALE_SIZES=${2//,/ }; shift 2 ;;
	*) echo "guest.sh: unknown argument $1" >&2; exit 1 ;;
	esac
done
[ -n "$OUT" ] || { echo "guest.sh: --out DIR is required" >&2; exit 1; }
for _c in $CONFIGS; do
	case $_c in
	direct|klb-nat|klb-http|klb-tls|ipvs-nat|haproxy-http|haproxy-tcp|nginx-proxy) ;;
	klb-fnat|klb-dr|klb-tun|ipvs-dr|ipvs-tun) ;;
	*) echo "guest.sh: unknown configuration $_c" >&2; exit 1 ;;
	esac
done
# "bulk" expands to its cells, MTU outermost: links change MTU twice a round
_tests=
NAMED=" ${TESTS//,/ } "
for _t in $TESTS; do
	if [ "$_t" = bulk ]; then
		for _m in $BULK_MTUS; do
			for _k in tcp get put tls; do
				for _p in $BULK_STREAMS; do
					_tests+=" bulk-$_k-p$_p-m$_m"
				done
			done
		done
		continue
	fi
	case $_t in
	conn|req0|req2k|req8k|tput1m|tlsconn|tlstput|tcp|churn|scale) ;;
	bulk-tcp-p[1-9]*-m[1-9]*|bulk-get-p[1-9]*-m[1-9]*|bulk-put-p[1-9]*-m[1-9]*|bulk-tls-p[1-9]*-m[1-9]*) ;;
	*) echo "guest.sh: unknown test $_t" >&2; exit 1 ;;
	esac
	_tests+=" $_t"
done
TESTS=${_tests# }
for _p in $SCALE_SIZES; do
	[[ $_p =~ ^[1-9][0-9]*$ ]] || { echo "guest.sh: --scale-sizes: $_p is not a count" >&2; exit 1; }
done
for _p in $CHURN_PORTS; do
	[[ $_p =~ ^[0-9]+-[0-9]+$ ]] || { echo "guest.sh: --churn-ports: $_p is not LOW-HIGH" >&2; exit 1; }
done
[ "${KLB_VM:-0}" = 1 ] || { echo "guest.sh: runs only inside the test VM (bench/run.sh)" >&2; exit 1; }

BENCH=$(cd "$(dirname "$0")" && pwd)
# Topology, namespace and module helpers of the selftests (their TAP output
# is not used here: bail/fail/diag are redefined below).
source "$KLB_SRC/selftests/lib.sh"
source "$BENCH/scale.sh"

T0=$SECONDS
log() { printf '[%4ds] %s\n' $((SECONDS - T0)) "$*"; }
diag() { local l; while IFS= read -r l; do log "  $l"; done <<<"$*"; }
fail() { log "FAIL: $*"; }
ok() { :; }
bail() { log "FATAL: $*"; exit 1; }

mkdir -p "$OUT/raw" || exit 1
: >"$OUT/runs.jsonl"
: >"$OUT/probes.jsonl"
KLBCTL_BIN=$KLBCTL
LUA=$BENCH/wrk-json.lua
BE1=$(be4 1)
VIP_NAT=10.0.100.1
VIP_HTTP=10.0.100.2
VIP_TLS=10.0.100.3
VIP_FNAT=10.0.100.4
VIP_DR=10.0.100.5
VIP_TUN=10.0.100.6
VIP_IPVS_DR=10.0.100.7     # on the balancer's lo while ipvs-dr runs
VIP_IPVS_TUN=10.0.100.8    # on the balancer's lo while ipvs-tun runs
CLIBR4=10.0.1.50           # the client's second link, on the backends' bridge
CLI_NET=10.0.0.0/24
# dr/tun configurations in this run: they need the client's second link
DSR=0 TUN=0
for _c in $CONFIGS; do
	case $_c in
	klb-dr|ipvs-dr) DSR=1 ;;
	klb-tun|ipvs-tun) DSR=1 TUN=1 ;;
	esac
done
CONNS_SMALL=32    # connections of the conn/s and small-file req/s tests
CONNS_BIG=8       # 1 MB files, TLS throughput
CONNS_TLS=16      # TLS conn/s

# ---- persistent shells in the namespaces ----------------------------------
# `ip netns exec` costs ~0.7 s of CPU per call under emulation (mount
# namespace, /sys remount), more than a whole short run. One bash per
# namespace reads commands from a FIFO instead; `nsh ID CMD` runs CMD there
# and prints its output (stdout and stderr), returning its status.
declare -A NSH_IN NSH_OUT NSH_PID
nsh_start() {
	local id=$1 ns=$2 f=$TMPD/nsh-$1 fdi fdo
	rm -f "$f.in" "$f.out"
	mkfifo "$f.in" "$f.out" || bail "mkfifo"
	ip netns exec "$ns" bash -c '
		while IFS= read -r tok && IFS= read -r l; do
			eval "$l" </dev/null 2>&1
			echo "@@nsh $tok $?"
		done' <"$f.in" >"$f.out" 2>&1 &
	NSH_PID[$id]=$!
	exec {fdi}>"$f.in" {fdo}<"$f.out"
	NSH_IN[$id]=$fdi
	NSH_OUT[$id]=$fdo
}
# nsh [-t SECS] ID CMD... : CMD (one shell line) in shell ID. Each command
# carries a token: the output of an earlier command that timed out is
# skipped, never taken for this one's.
nsh() {
	local t=120 id line rc='' tok buf=
	[ "$1" = -t ] && { t=$2; shift 2; }
	id=$1
	shift
	tok=$BASHPID.$RANDOM$RANDOM
	printf '%s\n%s\n' "$tok" "$*" >&"${NSH_IN[$id]}" || return 125
	while IFS= read -r -t "$t" -u "${NSH_OUT[$id]}" line; do
		if [[ "$line" == "@@nsh "* ]]; then
			line=${line#@@nsh }
			if [ "${line% *}" = "$tok" ]; then
				rc=${line##* }
				break
			fi
			buf=
			continue
		fi
		buf+=$line$'\n'
	done
	printf '%s' "$buf"
	if [ -z "$rc" ]; then
		log "nsh $id: no answer within ${t}s to: $*"
		return 124
	fi
	return "$rc"
}

# ---- sampling (bash builtins only: nothing is spawned) ----------------------
# cpu_sample VAR: "user nice system idle iowait irq softirq steal" of the
# whole VM from /proc/stat, in USER_HZ ticks
cpu_sample() {
	local _c rest
	read -r _c rest </proc/stat
	printf -v "$1" '%s' "$rest"
}
# proc_ticks PID...: utime+stime of those processes (all their threads)
proc_ticks() {
	local p s a sum=0
	for p in "$@"; do
		read -r s 2>/dev/null <"/proc/$p/stat" || continue
		a=(${s##*) })
		sum=$((sum + a[11] + a[12]))
	done
	echo $sum
}
# kthread_sample VAR: "KWORKER_TICKS KSOFTIRQD_TICKS" summed over every
# kworker and ksoftirqd thread alive now (klb's http/tls engine runs in
# kworkers: workqueue klb_l7)
kthread_sample() {
	local f c s a kw=0 ks=0
	for f in /proc/[0-9]*; do
		read -r c 2>/dev/null <"$f/comm" || continue
		case $c in
		kworker*|ksoftirqd*) ;;
		*) continue ;;
		esac
		read -r s 2>/dev/null <"$f/stat" || continue
		a=(${s##*) })
		if [[ $c == kworker* ]]; then
			kw=$((kw + a[11] + a[12]))
		else
			ks=$((ks + a[11] + a[12]))
		fi
	done
	printf -v "$1" '%s %s' $kw $ks
}
# Functions below set a variable instead of printing: every $(...) forks,
# and a fork costs tens of milliseconds under emulation.
# lb_rx VAR: packets the balancer's client-side interface (cli0) received,
# from /proc/PID/net/dev of a process in the balancer ns
lb_rx() {
	local l a
	while read -r l; do
		if [[ "$l" == "cli0:"* ]]; then
			a=(${l#*:})
			printf -v "$1" '%s' "${a[1]}"
			return
		fi
	done <"/proc/$LB_ANCHOR/net/dev"
	printf -v "$1" 0
}
# cli_drx VAR: packets the client's second link (eth1, on the backends'
# bridge: the direct return path of dr and tun) received; 0 without it
cli_drx() {
	local l a
	if [ "$DSR" = 1 ]; then
		while read -r l; do
			if [[ "$l" == "eth1:"* ]]; then
				a=(${l#*:})
				printf -v "$1" '%s' "${a[1]}"
				return
			fi
		done <"/proc/$CLI_ANCHOR/net/dev"
	fi
	printf -v "$1" 0
}
# net_field VAR FILE PREFIX FIELD: FIELD of the PREFIX lines (a header
# line, then a value line) of /proc/net/FILE in the client netns
net_field() {
	local l h=() v=() i
	while read -r l; do
		[[ "$l" == "$3 "* ]] || continue
		if [ ${#h[@]} -eq 0 ]; then
			h=($l)
		else
			v=($l)
			break
		fi
	done <"/proc/$CLI_ANCHOR/net/$2"
	for i in "${!h[@]}"; do
		if [ "${h[i]}" = "$4" ]; then
			printf -v "$1" '%s' "${v[i]:-0}"
			return
		fi
	done
	printf -v "$1" 0
}
# cli_retrans VAR: "SEGS SYNS": TCP segments the client retransmitted
# (RetransSegs of Tcp: in /proc/net/snmp), and of them its SYNs
# (TCPSynRetrans of TcpExt: in /proc/net/netstat), in the client netns
cli_retrans() {
	local a b
	net_field a snmp Tcp: RetransSegs
	net_field b netstat TcpExt: TCPSynRetrans
	printf -v "$1" '%s %s' "$a" "$b"
}
# ipvs_conns VAR: connections IPVS scheduled in the balancer ns (its total;
# IPVS folds its per-CPU counters into it every 2 s only)
ipvs_conns() {
	local l a
	if { read -r l; read -r l; read -r l; } 2>/dev/null <"/proc/$LB_ANCHOR/net/ip_vs_stats"; then
		a=($l)
		printf -v "$1" '%s' $((16#${a[0]:-0}))
	else
		printf -v "$1" 0
	fi
}

# ---- JSON ---------------------------------------------------------------------
jstr() {
	[ -z "$1" ] && { printf '""'; return; }
	local s=${1//\\/\\\\}
	s=${s//\"/\\\"}
	s=${s//$'\n'/\\n}
	s=${s//$'\t'/ }
	printf '"%s"' "$s"
}

# ---- cleanup --------------------------------------------------------------------
cleanup() {
	local rc=$? ns left id
	trap - EXIT
	log "cleanup"
	for id in "${!NSH_PID[@]}"; do
		eval "exec ${NSH_IN[$id]}>&- ${NSH_OUT[$id]}<&-" 2>/dev/null
	done
	jobs -p | xargs -r kill 2>/dev/null
	_kill_ns_pids
	wait 2>/dev/null
	for ns in "${_ns_made[@]}"; do ip netns del "$ns" 2>/dev/null; done
	left=$(ip netns list | grep -E -- "-$KLB_SUF( |$)")
	if [ -n "$left" ]; then
		log "FAIL: namespaces left: $left"
		rc=1
	fi
	if [ $_klb_loaded -eq 1 ]; then
		if ! klb_unload; then
			log "FAIL: rmmod klb"
			rc=1
		fi
	fi
	modprobe -r ip_vs_rr ip_vs 2>/dev/null
	[ "$TUN" = 1 ] && modprobe -r ipip 2>/dev/null
	[ -n "${TUNED_INIT:-}" ] && "$KLBCTL_BIN" tune revert >/dev/null 2>&1
	bad=$(dmesg | grep -E "$KLB_DMESG_BAD" | head -20)
	if [ -n "$bad" ]; then
		log "FAIL: kernel log dirty:"
		diag "$bad"
		rc=1
	fi
	rm -rf "$TMPD"
	log "guest done, status $rc"
	exit $rc
}
trap cleanup EXIT
trap 'exit 1' INT TERM

for c in ip wrk nginx haproxy ipvsadm iperf3 curl openssl socat jq timeout; do
	command -v $c >/dev/null || bail "$c not installed (tools/deps.sh)"
done
[ -f "$KLB_KO" ] || bail "$KLB_KO not built"
if grep -q "^klb " /proc/modules; then
	rmmod klb || bail "klb is loaded and cannot be unloaded"
fi

# ---- the machine ------------------------------------------------------------------
ver() { "$@" 2>&1 | head -n1; }
{
	printf '{"kernel":%s,"kernel_version":%s,' "$(jstr "$(uname -r)")" "$(jstr "$(uname -v)")"
	printf '"cpu_model":%s,"cpus":%s,' "$(jstr "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)")" "$(nproc)"
	printf '"mem_kb":%s,' "$(awk '/^MemTotal/ {print $2}' /proc/meminfo)"
	printf '"cmdline":%s,' "$(jstr "$(cat /proc/cmdline)")"
	printf '"versions":{"nginx":%s,"haproxy":%s,"wrk":%s,"ipvsadm":%s,"openssl":%s,"iperf3":%s,"klb":%s},' \
		"$(jstr "$(ver nginx -v)")" "$(jstr "$(ver haproxy -v)")" "$(jstr "$(ver wrk -v)")" \
		"$(jstr "$(ver ipvsadm --version)")" "$(jstr "$(ver openssl version)")" \
		"$(jstr "$(ver iperf3 --version)")" "$(jstr "$(modinfo -F srcversion "$KLB_KO" 2>/dev/null)")"
	printf '"rounds":%s,"duration_s":%s,"threads":%s,"conns":{"small":%s,"big":%s,"tls":%s},' \
		"$ROUNDS" "$DUR" "$THREADS" $CONNS_SMALL $CONNS_BIG $CONNS_TLS
	printf '"bulk":{"streams":%s,"mtus":%s,"get_bytes":%s,"put_bytes":%s},' \
		"$(jstr "$BULK_STREAMS")" "$(jstr "$BULK_MTUS")" $BULK_GET_BYTES $BULK_PUT_BYTES
	printf '"churn":{"rounds_per_phase":%s,"duration_s":%s,"ka_duration_s":%s,"client_ports":%s,"threads":1},' \
		"$CHURN_ROUNDS" "$CHURN_DUR" "$CHURN_KA_DUR" "$(jstr "$CHURN_PORTS")"
	printf '"scale_sizes":%s,' "$(jstr "$SCALE_SIZES")"
	printf '"tests":%s,"configs":%s,"user_hz":%s}\n' "$(jstr "$TESTS")" "$(jstr "$CONFIGS")" "$(getconf CLK_TCK)"
} >"$OUT/meta.json"
log "kernel $(uname -r), $(nproc) CPUs; rounds $ROUNDS x ${DUR}s; tests: $TESTS"

# ---- topology, tuning ---------------------------------------------------------------
klb_load
modprobe ip_vs || bail "modprobe ip_vs"
modprobe ip_vs_rr || bail "modprobe ip_vs_rr"
# tun backends decapsulate on the fallback device tunl0 (every netns gets
# one, down, when ipip loads)
if [ "$TUN" = 1 ]; then
	modprobe ipip || bail "modprobe ipip"
fi
topo_setup 1
if [ "$DSR" = 1 ]; then
	# The direct return path of dr and tun: a second client link on the
	# backends' bridge. Its address is a /32 (no route to 10.0.1.0/24 over
	# it) and it has no IPv6, so nothing but the backend's replies of a dr
	# or tun run (their route via it exists only then) ever uses it.
	ip -n "$NS_CLI" link add eth1 type veth peer name clibr netns "$NS_LB" || bail "client second link"
	ip netns exec "$NS_CLI" sysctl -qw net.ipv6.conf.eth1.disable_ipv6=1 \
		net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.eth1.rp_filter=0 || bail "client second link sysctls"
	ip -n "$NS_CLI" -b - <<-EOF || bail "client second link up"
		addr add $CLIBR4/32 dev eth1
		link set eth1 up
	EOF
	ip -n "$NS_LB" -b - <<-EOF || bail "client second link, balancer side"
		link set clibr master br0
		link set clibr up
	EOF
fi
log "topology up"

nsh_start cli "$NS_CLI"
nsh_start lb "$NS_LB"
nsh_start be "${NS_BE[1]}"
bg "$NS_LB" sleep 1000000
LB_ANCHOR=$BG_PID
bg "$NS_CLI" sleep 1000000
CLI_ANCHOR=$BG_PID

# The balancer: the Stingray tunings (per-netns keys; the global ones are
# set from the initial namespace). The client: what conn/s tests need.
nsh lb "$KLBCTL_BIN -j tune apply stingray" >"$OUT/tune-lb.json" 2>"$OUT/tune-lb.err" ||
	bail "klbctl tune apply stingray (balancer): $(cat "$OUT/tune-lb.json")"
"$KLBCTL_BIN" -j tune apply stingray >"$OUT/tune-init.json" 2>"$OUT/tune-init.err" && TUNED_INIT=1
# haproxy, nginx and IPVS listen on these in the balancer: keep ephemeral
# ports (range 1024-65535 now) off them
nsh lb "sysctl -qw net.ipv4.ip_local_reserved_ports=8080-8099,8443,8520" || bail "reserved ports"
nsh cli "sysctl -qw net.ipv4.ip_local_port_range='1024 65535' net.ipv4.tcp_tw_reuse=1" || bail "client sysctls"
nsh be "sysctl -qw net.ipv4.ip_local_port_range='1024 65535' net.ipv4.tcp_tw_reuse=1 net.core.somaxconn=8192 net.ipv4.tcp_max_syn_backlog=8192" ||
	bail "backend sysctls"
nsh lb "sysctl net.ipv4.ip_local_port_range net.ipv4.tcp_tw_reuse net.ipv4.tcp_syncookies net.core.somaxconn net.ipv4.tcp_max_syn_backlog net.ipv4.tcp_max_tw_buckets" \
	>"$OUT/sysctl-lb.txt"

log "tuned"

# ---- backend: nginx (HTTP, TLS), iperf3 ------------------------------------------------
NCPU=$(nproc)
BED=$TMPD/be1
mkdir -p "$BED/www" "$BED/tmp" "$BED/log"
: >"$BED/www/0b"
head -c 2048 /dev/zero | tr '\0' x >"$BED/www/2k"
head -c 8192 /dev/zero | tr '\0' x >"$BED/www/8k"
head -c 1048576 /dev/zero | tr '\0' x >"$BED/www/1m"
case " $TESTS " in
*" bulk-"*)
	head -c $BULK_GET_BYTES /dev/urandom >"$BED/www/bulk" || bail "bulk file"
	mkdir -p "$BED/www/up"
	;;
esac
mkdir -p "$TMPD/pki"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
	-subj "/CN=bench.example" -addext "subjectAltName=DNS:bench.example" \
	-keyout "$TMPD/pki/bench.key" -out "$TMPD/pki/bench.crt" >"$TMPD/pki/log" 2>&1 ||
	bail "openssl: certificate: $(cat "$TMPD/pki/log")"
cat >"$BED/nginx.conf" <<EOF
daemon on;
master_process on;
worker_processes $NCPU;
worker_rlimit_nofile 200000;
user root root;
pid $BED/nginx.pid;
error_log $BED/log/error.log error;
events { worker_connections 50000; }
http {
	access_log off;
	client_body_temp_path $BED/tmp/body;
	proxy_temp_path $BED/tmp/proxy;
	fastcgi_temp_path $BED/tmp/fastcgi;
	uwsgi_temp_path $BED/tmp/uwsgi;
	scgi_temp_path $BED/tmp/scgi;
	sendfile on;
	tcp_nopush on;
	open_file_cache max=64;
	keepalive_timeout 300;
	keepalive_requests 100000000;
	default_type application/octet-stream;
	ssl_certificate $TMPD/pki/bench.crt;
	ssl_certificate_key $TMPD/pki/bench.key;
	ssl_protocols TLSv1.2 TLSv1.3;
	# every TLS connection is a full handshake: no resumption
	ssl_session_cache off;
	ssl_session_tickets off;
	server {
		listen 80 reuseport backlog=8192;
		listen 443 ssl reuseport backlog=8192;
		root $BED/www;
		location = /whoami { return 200 "\$remote_addr\n"; }
		location = /status { stub_status; }
		# bulk-put: the body is stored (tmpfs), then 204
		location /up/ {
			dav_methods PUT;
			client_max_body_size 0;
			client_body_buffer_size 1m;
		}
	}
}
EOF
nsh be "nginx -q -e $BED/log/error.log -c $BED/nginx.conf -p $BED" || bail "backend nginx: $(cat "$BED/log/error.log")"
nsh be "iperf3 -s -D -p 5201 --pidfile $TMPD/iperf3.pid" || bail "iperf3 -s"

log "backend started"

# ---- balancer: haproxy, nginx (run all along), klb and IPVS configurations ---------------
LBD=$TMPD/lb
mkdir -p "$LBD/tmp" "$LBD/log"
cat >"$LBD/haproxy.cfg" <<EOF
global
	maxconn 200000
	nbthread $NCPU
	pidfile $LBD/haproxy.pid
	stats socket $LBD/haproxy.sock mode 600 level admin
	daemon
defaults
	timeout connect 5s
	timeout client 60s
	timeout server 60s
	timeout http-keep-alive 60s
	maxconn 200000
frontend fe_http
	mode http
	bind $LB4:8080
	option forwardfor
	default_backend be_http
backend be_http
	mode http
	http-reuse always
	server be1 $BE1:80
frontend fe_tcp
	mode tcp
	bind $LB4:8081
	default_backend be_tcp
backend be_tcp
	mode tcp
	server be1 $BE1:80
frontend fe_tcps
	mode tcp
	bind $LB4:8443
	default_backend be_tcps
backend be_tcps
	mode tcp
	server be1 $BE1:443
frontend fe_iperf
	mode tcp
	bind $LB4:8520
	default_backend be_iperf
backend be_iperf
	mode tcp
	server be1 $BE1:5201
EOF
cat >"$LBD/nginx.conf" <<EOF
daemon on;
master_process on;
worker_processes $NCPU;
worker_rlimit_nofile 200000;
user root root;
pid $LBD/nginx.pid;
error_log $LBD/log/error.log error;
events { worker_connections 50000; }
http {
	access_log off;
	client_body_temp_path $LBD/tmp/body;
	proxy_temp_path $LBD/tmp/proxy;
	fastcgi_temp_path $LBD/tmp/fastcgi;
	uwsgi_temp_path $LBD/tmp/uwsgi;
	scgi_temp_path $LBD/tmp/scgi;
	keepalive_timeout 300;
	keepalive_requests 100000000;
	upstream be {
		server $BE1:80;
		keepalive 64;
		keepalive_requests 100000000;
	}
	server {
		listen $LB4:8082 reuseport backlog=8192;
		location / {
			proxy_pass http://be;
			proxy_http_version 1.1;
			proxy_set_header Connection "";
			proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
			proxy_buffer_size 16k;
			proxy_buffers 8 16k;
			proxy_max_temp_file_size 0;
		}
	}
	server {
		listen 127.0.0.1:8089;
		location = /status { stub_status; }
	}
}
EOF
nsh lb "haproxy -q -f $LBD/haproxy.cfg" || bail "haproxy did not start"
nsh lb "nginx -q -e $LBD/log/error.log -c $LBD/nginx.conf -p $LBD" || bail "nginx (proxy) did not start: $(cat "$LBD/log/error.log")"

log "proxies started"

cat >"$TMPD/klb-nat.conf" <<EOF
pool add web sched rr
backend add web $BE1:80
pool add webs sched rr
backend add webs $BE1:443
pool add iperf sched rr
backend add iperf $BE1:5201
service add nat80 vip $VIP_NAT:80 proto tcp mode nat pool web
service add nat443 vip $VIP_NAT:443 proto tcp mode nat pool webs
service add nat5201 vip $VIP_NAT:5201 proto tcp mode nat pool iperf
EOF
cat >"$TMPD/klb-http.conf" <<EOF
pool add web sched rr
backend add web $BE1:80
service add http80 vip $VIP_HTTP:80 proto tcp mode http pool web
EOF
cat >"$TMPD/klb-tls.conf" <<EOF
pool add webs sched rr
backend add webs $BE1:443
service add tls443 vip $VIP_TLS:443 proto tcp mode tls pool webs
EOF
cat >"$TMPD/ipvs.rules" <<EOF
-A -t $LB4:80 -s rr
-a -t $LB4:80 -r $BE1:80 -m -w 1
-A -t $LB4:443 -s rr
-a -t $LB4:443 -r $BE1:443 -m -w 1
-A -t $LB4:5201 -s rr
-a -t $LB4:5201 -r $BE1:5201 -m -w 1
EOF
# The forwarding modes: the same pools as klb-nat (HTTP and iperf3)
for _m in fnat dr tun; do
	case $_m in
	fnat) _v=$VIP_FNAT ;;
	dr) _v=$VIP_DR ;;
	tun) _v=$VIP_TUN ;;
	esac
	cat >"$TMPD/klb-$_m.conf" <<-EOF
		pool add web sched rr
		backend add web $BE1:80
		pool add iperf sched rr
		backend add iperf $BE1:5201
		service add ${_m}80 vip $_v:80 proto tcp mode $_m pool web
		service add ${_m}5201 vip $_v:5201 proto tcp mode $_m pool iperf
	EOF
done
# IPVS dr (-g) and tun (-i): IPVS schedules in LOCAL_IN, so the VIP is
# made local (on the balancer's lo) while the configuration runs
for _m in dr tun; do
	case $_m in
	dr) _v=$VIP_IPVS_DR _f=-g ;;
	tun) _v=$VIP_IPVS_TUN _f=-i ;;
	esac
	cat >"$TMPD/ipvs-$_m.rules" <<-EOF
		-A -t $_v:80 -s rr
		-a -t $_v:80 -r $BE1:80 $_f -w 1
		-A -t $_v:5201 -s rr
		-a -t $_v:5201 -r $BE1:5201 $_f -w 1
	EOF
done

# Wait until everything answers (backend directly, proxies through).
wait_for "backend nginx" nsh lb "curl -s --max-time 2 -o /dev/null -f http://$BE1/0b"
wait_for "backend nginx (tls)" nsh lb "curl -sk --max-time 2 -o /dev/null -f https://$BE1/0b"
wait_for "haproxy" nsh cli "curl -s --max-time 2 -o /dev/null -f http://$LB4:8080/0b"
wait_for "nginx proxy" nsh cli "curl -s --max-time 2 -o /dev/null -f http://$LB4:8082/0b"
HAPROXY_PID=$(cat "$LBD/haproxy.pid")
NGINXP_PIDS=$(ip netns pids "$NS_LB" | while read -r p; do
	[ "$(cat /proc/$p/comm 2>/dev/null)" = nginx ] && echo "$p"; done | tr '\n' ' ')
BE_PIDS=$(ip netns pids "${NS_BE[1]}" | tr '\n' ' ')
log "backends and proxies up (haproxy $HAPROXY_PID, nginx proxy $NGINXP_PIDS)"

# ---- configurations ---------------------------------------------------------------------
# The backend of a dr or tun configuration, only while it runs: the VIP on
# lo, no ARP answers for it and no VIP as ARP source (arp_ignore=1,
# arp_announce=2), replies to the client network straight over the
# client's second link, rp_filter 0 (tun: the inner source, the client, is
# not routed via tunl0) and tunl0 up. sysctls are written by the shell
# itself (no process); one `ip -batch` for the rest.
BE_SYSCTLS="conf/all/arp_ignore conf/all/arp_announce conf/all/rp_filter conf/lo/rp_filter"
[ "$TUN" = 1 ] && BE_SYSCTLS+=" conf/tunl0/rp_filter"
declare -A BE_SYSCTL0
for _k in $BE_SYSCTLS; do
	BE_SYSCTL0[$_k]=$(nsh be "cat /proc/sys/net/ipv4/$_k") || bail "backend sysctl $_k"
done
be_sysctl_cmd() {
	local k v cmd=
	for k in $BE_SYSCTLS; do
		case $1:$k in
		up:conf/all/arp_ignore) v=1 ;;
		up:conf/all/arp_announce) v=2 ;;
		up:*) v=0 ;;
		*) v=${BE_SYSCTL0[$k]} ;;
		esac
		cmd+="echo $v >/proc/sys/net/ipv4/$k && "
	done
	printf '%s' "$cmd"
}
BE_DSR_UP=$(be_sysctl_cmd up)
BE_DSR_DOWN=$(be_sysctl_cmd down)
# dsr_be up|down VIP [tun]
dsr_be() {
	local f=$TMPD/be-$1-$2${3:+-tun}
	if [ ! -e "$f" ]; then
		if [ "$1" = up ]; then
			printf 'addr add %s/32 dev lo\nroute add %s via %s\n' "$2" $CLI_NET $CLIBR4
			[ -n "${3:-}" ] && echo "link set tunl0 up"
		else
			[ -n "${3:-}" ] && echo "link set tunl0 down"
			printf 'route del %s via %s\naddr del %s/32 dev lo\n' $CLI_NET $CLIBR4 "$2"
		fi >"$f"
	fi
	if [ "$1" = up ]; then
		nsh be "${BE_DSR_UP}ip -b $f"
	else
		# everything is undone even if one step fails
		nsh be "ip -force -b $f; ${BE_DSR_DOWN}:"
	fi
}
# cfg_up / cfg_down CFG: configure / remove CFG's kernel state (klb, IPVS,
# and for dr and tun the backend's and the balancer's VIPs and routes)
cfg_up() {
	case $1 in
	klb-nat|klb-http|klb-tls|klb-fnat) nsh lb "$KLBCTL_BIN restore -f $TMPD/$1.conf" ;;
	klb-dr) dsr_be up $VIP_DR && nsh lb "$KLBCTL_BIN restore -f $TMPD/$1.conf" ;;
	klb-tun) dsr_be up $VIP_TUN tun && nsh lb "$KLBCTL_BIN restore -f $TMPD/$1.conf" ;;
	ipvs-nat) nsh lb "ipvsadm -R <$TMPD/ipvs.rules" ;;
	ipvs-dr) dsr_be up $VIP_IPVS_DR &&
		nsh lb "ip addr add $VIP_IPVS_DR/32 dev lo && ipvsadm -R <$TMPD/ipvs-dr.rules" ;;
	ipvs-tun) dsr_be up $VIP_IPVS_TUN tun &&
		nsh lb "ip addr add $VIP_IPVS_TUN/32 dev lo && ipvsadm -R <$TMPD/ipvs-tun.rules" ;;
	*) return 0 ;;
	esac
}
cfg_down() {
	local rc=0
	case $1 in
	klb-*) nsh lb "$KLBCTL_BIN flush" || rc=1 ;;
	ipvs-nat) nsh lb "ipvsadm -C" || rc=1 ;;
	ipvs-dr) nsh lb "ipvsadm -C; ip addr del $VIP_IPVS_DR/32 dev lo" || rc=1 ;;
	ipvs-tun) nsh lb "ipvsadm -C; ip addr del $VIP_IPVS_TUN/32 dev lo" || rc=1 ;;
	esac
	case $1 in
	klb-dr) dsr_be down $VIP_DR || rc=1 ;;
	klb-tun) dsr_be down $VIP_TUN tun || rc=1 ;;
	ipvs-dr) dsr_be down $VIP_IPVS_DR || rc=1 ;;
	ipvs-tun) dsr_be down $VIP_IPVS_TUN tun || rc=1 ;;
	esac
	return $rc
}
# mode_cell CFG TEST: does CFG run in TEST? The forwarding-mode
# configurations run in conn, req0 and the bulk-tcp cells of MODE_STREAMS
# streams (or named in --tests), klb-fnat in churn too; every other
# configuration wherever its scheme is served.
mode_cell() {
	local n
	case $1 in
	klb-fnat|klb-dr|klb-tun|ipvs-dr|ipvs-tun) ;;
	*) return 0 ;;
	esac
	case $2 in
	conn|req0) return 0 ;;
	churn) [ "$1" = klb-fnat ] ;;
	bulk-tcp-p*)
		[[ "$NAMED" == *" $2 "* ]] && return 0
		n=${2#bulk-tcp-p}
		[[ " $MODE_STREAMS " == *" ${n%%-*} "* ]] ;;
	*) return 1 ;;
	esac
}
# cfg_addr CFG SCHEME: ADDR=HOST:PORT the client uses (SCHEME http, https,
# iperf), empty if CFG does not serve it
cfg_addr() {
	ADDR=
	case $1:$2 in
	direct:http) ADDR="$BE1:80" ;;
	direct:https) ADDR="$BE1:443" ;;
	direct:iperf) ADDR="$BE1:5201" ;;
	klb-nat:http) ADDR="$VIP_NAT:80" ;;
	klb-nat:https) ADDR="$VIP_NAT:443" ;;
	klb-nat:iperf) ADDR="$VIP_NAT:5201" ;;
	klb-http:http) ADDR="$VIP_HTTP:80" ;;
	klb-tls:https) ADDR="$VIP_TLS:443" ;;
	ipvs-nat:http) ADDR="$LB4:80" ;;
	ipvs-nat:https) ADDR="$LB4:443" ;;
	ipvs-nat:iperf) ADDR="$LB4:5201" ;;
	haproxy-http:http) ADDR="$LB4:8080" ;;
	haproxy-tcp:http) ADDR="$LB4:8081" ;;
	haproxy-tcp:https) ADDR="$LB4:8443" ;;
	haproxy-tcp:iperf) ADDR="$LB4:8520" ;;
	nginx-proxy:http) ADDR="$LB4:8082" ;;
	klb-fnat:http) ADDR="$VIP_FNAT:80" ;;
	klb-fnat:iperf) ADDR="$VIP_FNAT:5201" ;;
	klb-dr:http) ADDR="$VIP_DR:80" ;;
	klb-dr:iperf) ADDR="$VIP_DR:5201" ;;
	klb-tun:http) ADDR="$VIP_TUN:80" ;;
	klb-tun:iperf) ADDR="$VIP_TUN:5201" ;;
	ipvs-dr:http) ADDR="$VIP_IPVS_DR:80" ;;
	ipvs-dr:iperf) ADDR="$VIP_IPVS_DR:5201" ;;
	ipvs-tun:http) ADDR="$VIP_IPVS_TUN:80" ;;
	ipvs-tun:iperf) ADDR="$VIP_IPVS_TUN:5201" ;;
	esac
}
# cfg_procs CFG: PROCS=pids of CFG's balancer processes (haproxy, nginx)
cfg_procs() {
	case $1 in
	haproxy-*) PROCS=$HAPROXY_PID ;;
	nginx-proxy) PROCS=$NGINXP_PIDS ;;
	*) PROCS= ;;
	esac
}
# cfg_counter CFG: the balancer's own count of what it handled (connections
# or requests), to prove the traffic passed it; "NAME VALUE"
cfg_counter() {
	local v
	case $1 in
	direct) lb_rx v; echo "lb.cli0.rx_packets $v" ;;
	klb-nat|klb-fnat|klb-dr|klb-tun) echo "klb.conns $(json_sum conns "$(nsh lb "$KLBCTL_BIN -j -s service show")")" ;;
	klb-http) echo "klb.http.requests $(json_sum requests "$(nsh lb "$KLBCTL_BIN -j -s service show")")" ;;
	klb-tls) echo "klb.tls.connections $(json_sum connections "$(nsh lb "$KLBCTL_BIN -j -s service show")")" ;;
	ipvs-*) ipvs_conns v; echo "ipvs.conns $v" ;;
	haproxy-*)
		v=$(nsh lb "echo 'show stat' | socat -t5 stdio unix-connect:$LBD/haproxy.sock" |
			awk -F, -v fe="$([ "$1" = haproxy-http ] && echo fe_http || echo fe_tcp,fe_tcps)" '
				/^# / { for (i = 1; i <= NF; i++) col[$i] = i; col["pxname"] = 1; next }
				$2 == "FRONTEND" && index("," fe ",", "," $1 ",") { s += $col["stot"] }
				END { print s + 0 }')
		echo "haproxy.frontend.stot ${v:-?}" ;;
	nginx-proxy)
		v=$(nsh lb "curl -s --max-time 5 http://127.0.0.1:8089/status" | awk 'NR == 3 {print $3}')
		echo "nginx.stub_status.requests ${v:-?}" ;;
	esac
}
# json_sum KEY JSON: the sum of every "KEY":NUMBER in JSON (no jq: it
# costs half a second a call under emulation)
json_sum() {
	local s=$2 n=0 re="\"$1\":([0-9]+)(.*)"
	while [[ "$s" =~ $re ]]; do
		n=$((n + BASH_REMATCH[1]))
		s=${BASH_REMATCH[2]}
	done
	echo $n
}

# probe CFG SCHEME: configure CFG, send 3 requests (each on a new
# connection) through it, check the answers, who the backend saw as client
# and the balancer's counter; one line in probes.jsonl. Returns 1 (with
# PROBE_REASON) if CFG does not work.
probe() {
	local cfg=$1 sch=$2 addr out rc c0 c1 p0 p1 d0=0 d1=0 who name want reason= okv=true
	cfg_addr "$cfg" "$sch"
	addr=$ADDR
	if ! out=$(cfg_up "$cfg" 2>&1); then
		reason="configuration failed: $(tr '\n' ' ' <<<"$out")"
		cfg_down "$cfg" >/dev/null 2>&1
	else
		read -r name c0 <<<"$(cfg_counter "$cfg")"
		lb_rx p0
		cli_drx d0
		out=$(nsh cli "curl -sk --max-time 10 -H 'Connection: close' $sch://$addr/whoami $sch://$addr/whoami $sch://$addr/whoami")
		rc=$?
		cli_drx d1
		lb_rx p1
		# IPVS updates its totals every 2 s: wait for them
		local end=$((SECONDS + 5))
		while :; do
			read -r name c1 <<<"$(cfg_counter "$cfg")"
			[[ "$cfg" == ipvs-* ]] && [ $((c1 - c0)) -lt 3 ] && [ $SECONDS -lt $end ] || break
			sleep 0.5
		done
		cfg_down "$cfg" >/dev/null 2>&1 || reason="removing the configuration failed"
		who=$(sort -u <<<"$out" | tr '\n' ' ' | sed 's/ $//')
		case $cfg in
		direct|klb-nat|ipvs-nat|klb-tls|klb-dr|klb-tun|ipvs-dr|ipvs-tun) want=$CLI4 ;;
		*) want=$LBBE4 ;;
		esac
		# klb-tls: a pass-through relay, yet the backend sees the balancer's
		# address (klb opens its own connection to the backend)
		[ "$cfg" = klb-tls ] && want="$LBBE4|$CLI4"
		if [ $rc -ne 0 ] || [ "$(wc -l <<<"$out")" -ne 3 ]; then
			reason="3 requests through $sch://$addr failed (curl status $rc): $(head -c 200 <<<"$out" | tr '\n' ' ')"
		elif ! [[ "$who" =~ ^($want)$ ]]; then
			reason="the backend saw client '$who', expected '$want'"
		elif [ "$cfg" != direct ] && ! [ "$((c1 - c0))" -ge 3 ] 2>/dev/null; then
			reason="$name grew by $((c1 - c0)), expected >= 3: the traffic did not pass the balancer"
		elif [ "$((p1 - p0))" -lt 6 ]; then
			reason="the balancer's client-side interface saw $((p1 - p0)) packets"
		elif [[ "$cfg" == *-dr || "$cfg" == *-tun ]] && [ $((d1 - d0)) -lt 6 ]; then
			# 3 answers, each at least SYN-ACK, response, FIN
			reason="the client's direct link saw $((d1 - d0)) packets: the backend's replies did not come straight back"
		elif [[ "$cfg" != *-dr && "$cfg" != *-tun ]] && [ $((d1 - d0)) -gt 2 ]; then
			# only a flooded ARP broadcast or two may show up there
			reason="the client's direct link saw $((d1 - d0)) packets: replies bypassed the balancer"
		fi
	fi
	[ -n "$reason" ] && okv=false
	printf '{"config":"%s","scheme":"%s","addr":"%s","ok":%s,"reason":%s,"backend_saw":%s,"counter":%s,"counter_delta":%s,"lb_rx_packets_delta":%s,"cli_direct_rx_packets_delta":%s}\n' \
		"$cfg" "$sch" "$addr" "$okv" "$(jstr "$reason")" "$(jstr "${who:-}")" "$(jstr "${name:-}")" \
		"$(( ${c1:-0} - ${c0:-0} ))" "$(( ${p1:-0} - ${p0:-0} ))" "$((d1 - d0))" >>"$OUT/probes.jsonl"
	PROBE_REASON=$reason
	[ -z "$reason" ]
}

# ---- tests ------------------------------------------------------------------------------
# test_info TEST: TI_SCH (http, https, iperf) TI_PATH TI_CONNS TI_CLOSE (1:
# the requests say Connection: close) TI_MTU (of every link) TI_PUT (bytes
# of each PUT body, 0: GET) TI_CONFIGS (the configurations it runs with,
# empty: all that serve TI_SCH; for churn also their order in a round)
# TI_THREADS (wrk's) TI_DUR (seconds of each run)
test_info() {
	TI_MTU=1500 TI_PUT=0 TI_CONFIGS= TI_THREADS=$THREADS TI_DUR=$DUR
	if [[ "$1" =~ ^bulk-([a-z]+)-p([0-9]+)-m([0-9]+)$ ]]; then
		TI_CONNS=${BASH_REMATCH[2]} TI_MTU=${BASH_REMATCH[3]} TI_CLOSE=0
		case ${BASH_REMATCH[1]} in
		tcp) TI_SCH=iperf TI_PATH=
			TI_CONFIGS="direct klb-nat ipvs-nat haproxy-tcp klb-fnat klb-dr klb-tun ipvs-dr ipvs-tun" ;;
		get) TI_SCH=http TI_PATH=/bulk TI_CONFIGS="direct klb-http haproxy-http haproxy-tcp" ;;
		put) TI_SCH=http TI_PATH=/up/bulk TI_PUT=$BULK_PUT_BYTES
			TI_CONFIGS="direct klb-http haproxy-http haproxy-tcp" ;;
		tls) TI_SCH=https TI_PATH=/bulk TI_CONFIGS="direct klb-tls haproxy-tcp" ;;
		*) return 1 ;;
		esac
		return 0
	fi
	case $1 in
	conn) TI_SCH=http TI_PATH=/0b TI_CONNS=$CONNS_SMALL TI_CLOSE=1 ;;
	# churn: as issue 33 measured it, wrk -t1 -c32; churn-ka: the
	# keep-alive run that follows each churn run (churn_cell)
	churn|churn-ka) TI_SCH=http TI_PATH=/0b TI_CONNS=$CONNS_SMALL TI_CLOSE=1
		TI_THREADS=1 TI_DUR=$CHURN_DUR
		[ "$1" = churn-ka ] && TI_CLOSE=0 TI_DUR=$CHURN_KA_DUR
		TI_CONFIGS="klb-nat ipvs-nat klb-fnat klb-http haproxy-http" ;;
	req0) TI_SCH=http TI_PATH=/0b TI_CONNS=$CONNS_SMALL TI_CLOSE=0 ;;
	req2k) TI_SCH=http TI_PATH=/2k TI_CONNS=$CONNS_SMALL TI_CLOSE=0 ;;
	req8k) TI_SCH=http TI_PATH=/8k TI_CONNS=$CONNS_SMALL TI_CLOSE=0 ;;
	tput1m) TI_SCH=http TI_PATH=/1m TI_CONNS=$CONNS_BIG TI_CLOSE=0 ;;
	tlsconn) TI_SCH=https TI_PATH=/0b TI_CONNS=$CONNS_TLS TI_CLOSE=1 ;;
	tlstput) TI_SCH=https TI_PATH=/1m TI_CONNS=$CONNS_BIG TI_CLOSE=0 ;;
	tcp) TI_SCH=iperf TI_PATH= TI_CONNS=1 TI_CLOSE=0 ;;
	*) return 1 ;;
	esac
}

# mtu_set MTU: every link of the topology (both ends of each veth, the
# bridge) gets MTU; cached PMTU exceptions go with the old one
LINK_MTU=1500
mtu_set() {
	[ "$1" = "$LINK_MTU" ] && return 0
	nsh cli "ip link set eth0 mtu $1 && ip route flush cache" &&
		nsh lb "ip link set cli0 mtu $1 && ip link set be1 mtu $1 && ip link set br0 mtu $1 && ip route flush cache" &&
		{ [ "$DSR" = 0 ] || { nsh cli "ip link set eth1 mtu $1" && nsh lb "ip link set clibr mtu $1 && ip link set br0 mtu $1"; }; } &&
		nsh be "ip link set eth0 mtu $1 && ip route flush cache" || bail "MTU $1: $(nsh lb "ip -br link")"
	LINK_MTU=$1
	log "links at MTU $1"
}

declare -A CFG_OK CFG_WHY
PROBE_FAILS=0
for cfg in $CONFIGS; do
	for sch in http https iperf; do
		cfg_addr "$cfg" $sch
		[ -n "$ADDR" ] || continue
		if [ "$sch" = iperf ]; then
			# same path as http for the L4 configurations; probed by use
			CFG_OK[$cfg:$sch]=${CFG_OK[$cfg:http]:-1}
			CFG_WHY[$cfg:$sch]=${CFG_WHY[$cfg:http]:-}
			continue
		fi
		if probe "$cfg" $sch; then
			CFG_OK[$cfg:$sch]=1
			log "probe $cfg $sch: ok"
		else
			CFG_OK[$cfg:$sch]=0
			CFG_WHY[$cfg:$sch]=$PROBE_REASON
			log "probe $cfg $sch: n/a: $PROBE_REASON"
			# a klb mode not implemented yet is expected to be n/a; any
			# other broken configuration fails the run (after the rest ran)
			grep -qiE 'not supported|unknown mode' <<<"$PROBE_REASON" || PROBE_FAILS=$((PROBE_FAILS + 1))
		fi
	done
done

RUN_FAILS=0
# run_one TEST CFG ROUND: one measurement, one line in runs.jsonl.
# wrk measures the CPU time itself (bench/wrk-json.lua: exactly its run);
# for iperf3 the shell samples around the client (includes its start-up).
run_one() {
	local test=$1 cfg=$2 round=$3 sch path conns close addr raw hdr= rc out
	local pk0 pk1 iv0 iv1 dx0 dx1 rt0 rt1 sy0 sy1 res= line status=ok reason= tool extra= threads dur
	local wto=10s put=
	test_info "$test"
	sch=$TI_SCH path=$TI_PATH conns=$TI_CONNS close=$TI_CLOSE threads=$TI_THREADS dur=$TI_DUR
	mtu_set "$TI_MTU"
	# bulk: one wrk thread per stream up to THREADS; big files take long
	if [[ $test == bulk-* ]]; then
		[ "$conns" -lt "$threads" ] && threads=$conns
		wto=60s
		[ "$TI_PUT" -gt 0 ] && put="BENCH_PUT_BYTES=$TI_PUT"
	fi
	cfg_addr "$cfg" "$sch"
	addr=$ADDR
	cfg_procs "$cfg"
	raw=$OUT/raw/$test-$cfg-r$round.txt
	local t0=$EPOCHREALTIME t1 t2 t3
	# churn: the configurations stay up across the rounds (churn_cell)
	if [[ $test == churn* ]]; then
		:
	elif ! out=$(cfg_up "$cfg" 2>&1); then
		cfg_down "$cfg" >/dev/null 2>&1
		printf '{"test":"%s","config":"%s","round":%s,"status":"failed","reason":%s}\n' "$test" "$cfg" "$round" \
			"$(jstr "configuration failed: $out")" >>"$OUT/runs.jsonl"
		log "$test $cfg r$round: configuration failed: $out"
		RUN_FAILS=$((RUN_FAILS + 1))
		return
	fi
	[ "$close" = 1 ] && hdr="-H 'Connection: close'"
	t1=$EPOCHREALTIME
	lb_rx pk0
	cli_drx dx0
	cli_retrans rt0
	read -r rt0 sy0 <<<"$rt0"
	ipvs_conns iv0
	if [ "$sch" = iperf ]; then
		local cpu0 cpu1 kt0 kt1 lp0 lp1 bp0 bp1
		tool=iperf3
		lp0=$(proc_ticks $PROCS)
		bp0=$(proc_ticks $BE_PIDS)
		kthread_sample kt0
		cpu_sample cpu0
		nsh -t $((dur + 90)) cli "timeout -k 5 $((dur + 60)) iperf3 -c ${addr%:*} -p ${addr#*:} -P $conns -t $dur -J --connect-timeout 5000 >$raw 2>&1"
		rc=$?
		cpu_sample cpu1
		kthread_sample kt1
		bp1=$(proc_ticks $BE_PIDS)
		lp1=$(proc_ticks $PROCS)
		local kw0 ks0 kw1 ks1 c0=($cpu0) c1=($cpu1) i d=()
		read -r kw0 ks0 <<<"$kt0"
		read -r kw1 ks1 <<<"$kt1"
		for i in 0 1 2 3 4 5 6 7; do d[i]=$((c1[i] - c0[i])); done
		extra=$(printf ',"cpu_window":"shell","cpu_ticks":{"user":%s,"nice":%s,"system":%s,"idle":%s,"iowait":%s,"irq":%s,"softirq":%s,"steal":%s},"task_ticks":{"balancer_procs":%s,"backend_procs":%s,"kworker":%s,"ksoftirqd":%s}' \
			"${d[0]}" "${d[1]}" "${d[2]}" "${d[3]}" "${d[4]}" "${d[5]}" "${d[6]}" "${d[7]}" \
			$((lp1 - lp0)) $((bp1 - bp0)) $((kw1 - kw0)) $((ks1 - ks0)))
		res=$(jq -c '{duration_us: ((.end.sum_received.seconds // 0) * 1e6 | floor),
			bytes: (.end.sum_received.bytes // 0), bits_per_second: (.end.sum_received.bits_per_second // 0),
			retransmits: (.end.sum_sent.retransmits // 0), error: .error}' "$raw" 2>/dev/null)
	else
		tool=wrk
		nsh -t $((dur + 90)) cli "$put BENCH_LB_PIDS='$PROCS' BENCH_BE_PIDS='$BE_PIDS' timeout -k 5 $((dur + 60)) wrk -t $threads -c $conns -d ${dur}s --timeout $wto -s $LUA $hdr $sch://$addr$path >$raw 2>&1"
		rc=$?
		while IFS= read -r line; do
			[[ "$line" == "WRKJSON "* ]] && res=${line#WRKJSON }
		done <"$raw"
		extra=',"cpu_window":"wrk"'
	fi
	ipvs_conns iv1
	cli_retrans rt1
	read -r rt1 sy1 <<<"$rt1"
	cli_drx dx1
	lb_rx pk1
	t2=$EPOCHREALTIME
	[[ $test == churn* ]] ||
		cfg_down "$cfg" >/dev/null 2>&1 || { status=failed; reason="removing the configuration failed"; }
	t3=$EPOCHREALTIME
	if [ $rc -ne 0 ] || [ -z "$res" ]; then
		status=failed
		reason="$tool exited $rc: $(grep -v '^WRKJSON' "$raw" | tail -n3 | tr '\n' ' ' | head -c 300)"
		res=${res:-null}
	fi
	[ "$status" = ok ] || RUN_FAILS=$((RUN_FAILS + 1))
	local rj='""' cj=false
	[ -n "$reason" ] && rj=$(jstr "$reason")
	[ "$close" = 1 ] && cj=true
	# wall time of each step, ms: configure, client (incl. its start-up), remove
	t0=${t0//[.,]/} t1=${t1//[.,]/} t2=${t2//[.,]/} t3=${t3//[.,]/}
	printf '{"test":"%s","config":"%s","round":%s,"status":"%s","reason":%s,"tool":"%s","url":"%s","threads":%s,"conns":%s,"connection_close":%s,"mtu":%s,"put_bytes":%s,"duration_s":%s,"result":%s%s%s,"lb_rx_packets":%s,"cli_direct_rx_packets":%s,"cli_retrans_segs":%s,"cli_syn_retrans":%s,"ipvs_conns":%s,"t":%s,"wall_ms":{"configure":%s,"client":%s,"remove":%s}}\n' \
		"$test" "$cfg" "$round" "$status" "$rj" "$tool" "$sch://$addr$path" "$threads" "$conns" \
		"$cj" "$TI_MTU" "$TI_PUT" "$dur" "$res" "$extra" "${RUN_EXTRA:-}" \
		$((pk1 - pk0)) $((dx1 - dx0)) $((rt1 - rt0)) $((sy1 - sy0)) $((iv1 - iv0)) $((SECONDS - T0)) \
		$(((t1 - t0) / 1000)) $(((t2 - t1) / 1000)) $(((t3 - t2) / 1000)) >>"$OUT/runs.jsonl"
	if [ "$status" = ok ]; then
		local v n=0 us=1 by=0 errs= busy=0 k
		[[ "$res" =~ \"requests\":([0-9]+) ]] && n=${BASH_REMATCH[1]}
		[[ "$res" =~ \"duration_us\":([0-9]+) ]] && us=${BASH_REMATCH[1]}
		[[ "$res" =~ \"bytes\":([0-9]+) ]] && by=${BASH_REMATCH[1]}
		[[ "$res" =~ \"errors\":\{([^}]*)\} ]] && errs=${BASH_REMATCH[1]//\"/}
		for k in user nice system irq softirq steal; do
			[[ "$res$extra" =~ \"$k\":([0-9]+) ]] && busy=$((busy + BASH_REMATCH[1]))
		done
		if [ "$tool" = iperf3 ] || [ "$path" = /1m ] || [[ $test == bulk-* ]]; then
			v="$((by * 8 / (us + 1))) Mbit/s"
		else
			v="$((n * 1000000 / (us + 1))) /s"
		fi
		[ -n "$errs" ] && v="$v, errors $errs"
		[ "$n" -gt 0 ] && v="$v, cpu $((busy * 10000 / n)) us/req"
		[ $((rt1 - rt0)) -gt 0 ] && v="$v, client retransmitted $((rt1 - rt0)) segments ($((sy1 - sy0)) SYNs)"
		log "$test $cfg r$round: $v (busy $busy ticks)"
	else
		log "$test $cfg r$round: FAILED: $reason"
	fi
}

na_cell() {
	printf '{"test":"%s","config":"%s","round":0,"status":"n/a","reason":%s}\n' "$1" "$2" "$(jstr "$3")" >>"$OUT/runs.jsonl"
}

# Which cells run: every configuration that serves the test's scheme and
# passed its probe; the others are recorded n/a with the reason.
declare -A CELLS
for test in $TESTS; do
	[ "$test" = scale ] && continue		# no cells: scale_cell
	test_info "$test" || bail "unknown test $test"
	sch=$TI_SCH
	for cfg in $CONFIGS; do
		cfg_addr "$cfg" "$sch"
		[ -n "$ADDR" ] || continue
		[ -z "$TI_CONFIGS" ] || [[ " $TI_CONFIGS " == *" $cfg "* ]] || continue
		mode_cell "$cfg" "$test" || continue
		if [ "${CFG_OK[$cfg:$sch]}" = 1 ]; then
			CELLS[$test]="${CELLS[$test]:-} $cfg"
		else
			na_cell "$test" "$cfg" "${CFG_WHY[$cfg:$sch]}"
		fi
	done
done

# Rounds outermost: each round measures the whole matrix, configurations
# alternating (A, B, C, A, B, C...), so a deadline cuts rounds, not tests.
# churn runs after them (churn_cell).
for round in $(seq 1 "$ROUNDS"); do
	for test in $TESTS; do
		[ "$test" = churn ] || [ "$test" = scale ] && continue
		for cfg in ${CELLS[$test]:-}; do
			if [ $((SECONDS - T0)) -ge "$DEADLINE" ]; then
				printf '{"test":"%s","config":"%s","round":%s,"status":"skipped","reason":"time budget (%ss) spent"}\n' \
					"$test" "$cfg" "$round" "$DEADLINE" >>"$OUT/runs.jsonl"
				continue
			fi
			run_one "$test" "$cfg" "$round"
		done
	done
done

# churn_tables VAR: the tables' sizes now, as JSON members: klb's
# connection table (every klb service: nat and fnat entries, TIME_WAIT
# included), its L7 sessions, IPVS's connections (TIME_WAIT included) and
# the client's TIME_WAIT sockets
churn_tables() {
	local s k=-1 l=-1 i c
	s=$(nsh lb "$KLBCTL_BIN -j stats")
	[[ "$s" =~ \"entries\":([0-9]+) ]] && k=${BASH_REMATCH[1]}
	[[ "$s" =~ \"sessions\":([0-9]+) ]] && l=${BASH_REMATCH[1]}
	i=$(($(wc -l <"/proc/$LB_ANCHOR/net/ip_vs_conn" 2>/dev/null || echo 1) - 1))
	c=$(nsh cli "ss -Htan state time-wait | wc -l")
	printf -v "$1" '"klb":%s,"klb_l7_sessions":%s,"ipvs":%s,"client_time_wait":%s' "$k" "$l" "$i" "${c:--1}"
}
# churn_up CFG...: every churn configuration at once. The klb ones go in
# one restore (a restore replaces klb's whole configuration), their pools
# renamed apart (nat-web, fnat-web, http-web...).
churn_up() {
	local c f=$TMPD/klb-churn.conf klb=0
	: >"$f"
	for c; do
		case $c in
		klb-*)
			klb=1
			sed -E "s/^(pool add|backend add) /\1 ${c#klb-}-/; s/ pool ([^ ]+)/ pool ${c#klb-}-\1/" \
				"$TMPD/$c.conf" >>"$f" || return 1 ;;
		*) cfg_up "$c" || return 1 ;;
		esac
	done
	[ $klb = 0 ] || nsh lb "$KLBCTL_BIN restore -f $f"
}
churn_down() {
	local c rc=0
	for c; do
		cfg_down "$c" || rc=1
	done
	return $rc
}
# churn_cell: the churn configurations up together, once; then for each
# client port range of CHURN_PORTS, CHURN_ROUNDS rounds, each running
# every configuration in turn: conn/s (churn), then keep-alive (churn-ka).
churn_cell() {
	local cfgs= cfg t round=0 r ports out tb
	test_info churn
	for cfg in $TI_CONFIGS; do
		[[ " ${CELLS[churn]:-} " == *" $cfg "* ]] && cfgs+=" $cfg"
	done
	[ -n "$cfgs" ] || return
	if ! out=$(churn_up $cfgs 2>&1); then
		churn_down $cfgs >/dev/null 2>&1
		for cfg in $cfgs; do
			printf '{"test":"churn","config":"%s","round":1,"status":"failed","reason":%s}\n' "$cfg" \
				"$(jstr "configuration failed: $out")" >>"$OUT/runs.jsonl"
		done
		log "churn: configuration failed: $out"
		RUN_FAILS=$((RUN_FAILS + 1))
		return
	fi
	log "churn: up together:$cfgs"
	for ports in $CHURN_PORTS; do
		if ! out=$(nsh cli "sysctl -qw net.ipv4.ip_local_port_range='${ports%-*} ${ports#*-}'"); then
			log "churn: client ports $ports: $out"
			RUN_FAILS=$((RUN_FAILS + 1))
			break
		fi
		for r in $(seq 1 "$CHURN_ROUNDS"); do
			round=$((round + 1))
			churn_tables tb
			log "churn r$round, client ports $ports: tables before: ${tb//\"/}"
			RUN_EXTRA=",\"client_ports\":\"$ports\",\"tables_before\":{$tb}"
			for cfg in $cfgs; do
				for t in churn churn-ka; do
					if [ $((SECONDS - T0)) -ge "$DEADLINE" ]; then
						printf '{"test":"%s","config":"%s","round":%s,"status":"skipped","reason":"time budget (%ss) spent"}\n' \
							"$t" "$cfg" "$round" "$DEADLINE" >>"$OUT/runs.jsonl"
						continue
					fi
					run_one "$t" "$cfg" "$round"
				done
			done
		done
	done
	RUN_EXTRA=
	churn_tables tb
	log "churn: tables after: ${tb//\"/}"
	nsh lb "$KLBCTL_BIN -s service show; ipvsadm -Ln --stats" >"$OUT/raw/churn-services.txt" 2>&1
	churn_down $cfgs >/dev/null 2>&1 || { log "churn: removing the configurations failed"; RUN_FAILS=$((RUN_FAILS + 1)); }
	nsh cli "sysctl -qw net.ipv4.ip_local_port_range='1024 65535'" || bail "client ports back to 1024-65535"
}
if [[ " $TESTS " == *" churn "* ]]; then
	churn_cell
fi
# scale: the configuration's size varies, not the traffic (bench/scale.sh)
if [[ " $TESTS " == *" scale "* ]]; then
	scale_cell
fi

# profile TEST CFG: one run of the cell under perf, not recorded as a
# result. perf starts with its events off and is switched on through its
# control FIFO once it is ready (under emulation it takes seconds to start),
# so the samples cover the run and nothing else.
profile() {
	local test=$1 cfg=$2 data=$TMPD/perf.data txt=$OUT/raw/profile-$1-$2.txt
	local pid sym comm cfd afd ack out=$OUT
	command -v perf >/dev/null || { log "profile: perf not installed (tools/deps.sh)"; return; }
	[[ " ${CELLS[$test]:-} " == *" $cfg "* ]] || { log "profile $test $cfg: not a cell of this run"; return; }
	rm -f "$TMPD/perf.ctl" "$TMPD/perf.ack" "$data"
	mkfifo "$TMPD/perf.ctl" "$TMPD/perf.ack" || { log "profile: mkfifo failed"; return; }
	exec {cfd}<>"$TMPD/perf.ctl" {afd}<>"$TMPD/perf.ack"
	perf record -a -g -F 499 -e cpu-clock -D -1 --control "fifo:$TMPD/perf.ctl,$TMPD/perf.ack" \
		-o "$data" >"$TMPD/perf.log" 2>&1 &
	pid=$!
	echo enable >&"$cfd"
	# The first perf of a boot reads every symbol: on a host shared with
	# another VM, one start gave no answer in 120 s, and nothing in its
	# log (2026-12-06); the later ones of that boot worked.
	if ! read -r -t 300 -u "$afd" ack; then
		log "profile $test $cfg: perf did not start: $(tail -n 3 "$TMPD/perf.log")"
		kill -INT $pid 2>/dev/null
		wait $pid
		exec {cfd}>&- {afd}>&-
		return
	fi
	OUT=$TMPD/profile-out
	mkdir -p "$OUT/raw"
	run_one "$test" "$cfg" 0
	OUT=$out
	echo disable >&"$cfd"
	read -r -t 30 -u "$afd" ack
	kill -INT $pid
	wait $pid
	exec {cfd}>&- {afd}>&-
	report() { perf report -i "$data" --no-children -g none --stdio "$@" 2>/dev/null | grep -v '^#' | grep -v '^$'; }
	{
		echo "== $test $cfg: perf record -a -e cpu-clock, samples by symbol"
		report --sort sym | head -40
		echo "== by command"
		report --sort comm | head -15
		echo "== by command and symbol"
		report --sort comm,sym | head -60
		# kworkers: klb's L7 engine (workqueue klb_l7) and what it calls;
		# summed over the kworker threads (--comms does not filter --children)
		echo "== kworkers: time spent in each function and what it calls (inclusive, self), % of all samples"
		perf report -i "$data" --children -g none --stdio --sort comm,sym 2>/dev/null |
			awk '$3 ~ /^kworker/ && $4 ~ /^\[/ { sub(/%/, "", $1); sub(/%/, "", $2); c[$5] += $1; s[$5] += $2 }
			     END { for (k in c) printf "%8.2f%%  %7.2f%%  %s\n", c[k], s[k], k }' | sort -rn | head -60
	} >"$txt"
	sym=$(report --sort sym | head -15 |
		awk '{p=$1; $1=""; $2=""; sub(/^ +/, ""); printf "%s[%s,%s]", (NR > 1 ? "," : ""), "\"" p "\"", "\"" $0 "\""}')
	comm=$(report --sort comm | head -8 |
		awk '{printf "%s[\"%s\",\"%s\"]", (NR > 1 ? "," : ""), $1, $2}')
	printf '{"test":"%s","config":"%s","symbols":[%s],"commands":[%s]}\n' "$test" "$cfg" "$sym" "$comm" >>"$OUT/profiles.jsonl"
	# kept for a closer look on the host:
	#   perf report -i perf-TEST-CFG.data --kallsyms kallsyms.txt ...
	mv "$data" "$OUT/raw/perf-$test-$cfg.data"
	[ -e "$OUT/raw/kallsyms.txt" ] || cat /proc/kallsyms >"$OUT/raw/kallsyms.txt"
	rm -f "$TMPD/perf.ctl" "$TMPD/perf.ack"
	log "profile $test $cfg: $txt"
}
for _pc in $PROFILE; do
	[ $((SECONDS - T0)) -lt "$DEADLINE" ] || break
	profile "${_pc%%:*}" "${_pc#*:}"
done

# Counters and state after all runs, for the record
{
	echo "== klbctl -s service show (should be empty: removed after each run)"
	nsh lb "$KLBCTL_BIN -s service show"
	echo "== ipvsadm -Ln (should be empty)"
	nsh lb "ipvsadm -Ln"
	echo "== balancer lo, backend lo and routes (no dr/tun VIP or route should be left)"
	nsh lb "ip -br addr show dev lo"
	nsh be "ip -br addr show dev lo; ip route"
	if [ "$TUN" = 1 ]; then
		echo "== backend: tunl0 (decapsulated packets of klb-tun and ipvs-tun runs)"
		nsh be "ip -s link show tunl0"
	fi
	echo "== haproxy frontends (stot)"
	nsh lb "echo 'show stat' | socat -t5 stdio unix-connect:$LBD/haproxy.sock" | cut -d, -f1,2,8
	echo "== nginx proxy stub_status"
	nsh lb "curl -s --max-time 5 http://127.0.0.1:8089/status"
	echo "== backend stub_status"
	nsh be "curl -s --max-time 5 http://127.0.0.1/status"
	echo "== balancer ns: nstat"
	nsh lb "nstat -az TcpExtListenOverflows TcpExtListenDrops TcpExtTCPTimeWaitOverflow TcpAttemptFails TcpEstabResets TcpRetransSegs 2>/dev/null"
	echo "== client ns: nstat"
	nsh cli "nstat -az TcpAttemptFails TcpEstabResets TcpRetransSegs TcpExtTCPTimeWaitOverflow 2>/dev/null"
} >"$OUT/state-after.txt" 2>&1
log "runs done: $(wc -l <"$OUT/runs.jsonl") records, $RUN_FAILS failed runs, $PROBE_FAILS broken configurations"
[ "$RUN_FAILS" -eq 0 ] && [ "$PROBE_FAILS" -eq 0 ]
