# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# bench/scale.sh: the scale cell (issue 37), sourced by bench/guest.sh and
# run after the other cells when --tests has "scale". Configuration size,
# not traffic, is what varies:
#
#   restore  N services (each its own pool of 3 backends, as `klbctl save`
#            writes them) restored into an empty namespace: wall time,
#            Slab and MemAvailable per service; then `klbctl save` of them
#            (time, bytes; a second restore of what save wrote must save
#            the same bytes) and `klbctl flush`. The same services as
#            `ipvsadm-restore` input (-A + 3 x -a -m) in the same boot.
#   req      keep-alive req/s (wrk, as the req0 cell) to one klb-nat and one
#            klb-http VIP with only the bench's services configured, then
#            with the largest N beside them. Per-packet (nat) and
#            per-accept (http) service lookups must not care.
#   host     keep-alive req/s to the klb-http VIP with a host map of 1 and
#            of the largest N entries, the request naming the last entry;
#            the same for haproxy with a map file of the same names
#            (`use_backend %[req.hdr(host),lower,map(FILE)]`).
#
# --scale-sizes LIST (guest.sh; default "1000 10000 100000", quick "1000").
# Records: OUT/scale.jsonl, one JSON object per measurement; report.py
# makes the "Configuration scale" section and its goals from them.

# scale_vip I: the VIP of filler service I (10.64.0.0/10, never local,
# never routed anywhere: no packet goes to it)
scale_vip() {
	printf '10.%d.%d.%d' $((64 + $1 / 65536)) $(($1 / 256 % 256)) $(($1 % 256))
}

# scale_gen N KLBFILE IPVSFILE: N services in klbctl's restore form and in
# ipvsadm-restore's; awk, not a shell loop (100,000 x 4 lines)
scale_gen() {
	awk -v n="$1" -v be="$BE1" -v kf="$2" -v vf="$3" 'BEGIN {
		for (i = 0; i < n; i++) {
			vip = sprintf("10.%d.%d.%d:80", 64 + int(i / 65536), int(i / 256) % 256, i % 256)
			printf "pool add p%d sched rr\n", i > kf
			printf "backend add p%d %s:80\nbackend add p%d %s:8001\nbackend add p%d %s:8002\n", \
				i, be, i, be, i, be > kf
			printf "service add s%d vip %s proto tcp mode nat pool p%d\n", i, vip, i > kf
			printf "-A -t %s -s rr\n", vip > vf
			printf "-a -t %s -r %s:80 -m -w 1\n-a -t %s -r %s:8001 -m -w 1\n-a -t %s -r %s:8002 -m -w 1\n", \
				vip, be, vip, be, vip, be > vf
		}
	}'
}

# scale_mem: "MemAvailable Slab" in KiB, caches dropped first
scale_mem() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	awk '$1 == "MemAvailable:" {a = $2} $1 == "Slab:" {s = $2} END {print a, s}' /proc/meminfo
}

# scale_timed VAR CMD: run CMD in the balancer's shell; its wall time in
# ms into VAR; the command's status
scale_timed() {
	local t0 t1 rc var=$1
	shift
	t0=${EPOCHREALTIME//[.,]/}
	nsh -t 1800 lb "$*"
	rc=$?
	t1=${EPOCHREALTIME//[.,]/}
	printf -v "$var" '%d' $(((t1 - t0) / 1000))
	return $rc
}

scale_record() {
	printf '%s\n' "$1" >>"$OUT/scale.jsonl"
}
# scale_fail MSG: a failed measurement fails the run, as a failed cell does
scale_fail() {
	log "scale: FAILED: $*"
	RUN_FAILS=$((RUN_FAILS + 1))
}

# scale_restore N: the restore/save/flush figures of N services, klb then
# IPVS
scale_restore() {
	local n=$1 kf=$TMPD/scale-$1.klb vf=$TMPD/scale-$1.ipvs sf=$TMPD/scale-$1.saved
	local a0 s0 a1 s1 ms save_ms flush_ms again=false rc st=ok reason=
	scale_gen "$n" "$kf" "$vf"
	read -r a0 s0 < <(scale_mem)
	scale_timed ms "$KLBCTL_BIN restore -f $kf >$TMPD/scale-restore.out 2>&1"
	rc=$?
	read -r a1 s1 < <(scale_mem)
	if [ $rc -ne 0 ]; then
		st=failed reason="klbctl restore exited $rc: $(head -c 300 "$TMPD/scale-restore.out")"
		scale_fail "restore of $n services: $reason"
		scale_record "$(printf '{"kind":"restore","impl":"klb","services":%d,"status":"failed","reason":%s}' "$n" "$(jstr "$reason")")"
		nsh lb "$KLBCTL_BIN flush" >/dev/null
		return 1
	fi
	scale_timed save_ms "$KLBCTL_BIN save >$sf"
	# what save wrote restores to the same configuration: a hitless
	# restore over itself, then the same bytes again
	nsh -t 1800 lb "$KLBCTL_BIN restore -f $sf && $KLBCTL_BIN save | cmp -s - $sf" && again=true
	scale_timed flush_ms "$KLBCTL_BIN flush"
	log "scale: klb restore of $n services ${ms} ms, save ${save_ms} ms ($(wc -c <"$sf") bytes, round trip $again), flush ${flush_ms} ms, Slab $(((s1 - s0) * 1024 / n)) B and MemAvailable $(((a0 - a1) * 1024 / n)) B per service"
	scale_record "$(printf '{"kind":"restore","impl":"klb","services":%d,"backends_per_service":3,"status":"%s","ms":%d,"save_ms":%d,"save_bytes":%d,"save_round_trip":%s,"flush_ms":%d,"slab_kb":%d,"avail_kb":%d}' \
		"$n" "$st" "$ms" "$save_ms" "$(wc -c <"$sf")" "$again" "$flush_ms" $((s1 - s0)) $((a0 - a1)))"

	read -r a0 s0 < <(scale_mem)
	scale_timed ms "ipvsadm-restore <$vf"
	rc=$?
	read -r a1 s1 < <(scale_mem)
	scale_timed save_ms "ipvsadm-save -n >$TMPD/scale-ipvs.saved"
	scale_timed flush_ms "ipvsadm -C"
	[ $rc -eq 0 ] || { st=failed reason="ipvsadm-restore exited $rc"; scale_fail "$reason"; }
	log "scale: ipvsadm-restore of $n services ${ms} ms (exit $rc), ipvsadm-save ${save_ms} ms, ipvsadm -C ${flush_ms} ms, Slab $(((s1 - s0) * 1024 / n)) B per service"
	scale_record "$(printf '{"kind":"restore","impl":"ipvs","services":%d,"backends_per_service":3,"status":"%s","reason":%s,"ms":%d,"save_ms":%d,"flush_ms":%d,"slab_kb":%d,"avail_kb":%d}' \
		"$n" "$st" "$(jstr "$reason")" "$ms" "$save_ms" "$flush_ms" $((s1 - s0)) $((a0 - a1)))"
	rm -f "$vf" "$TMPD/scale-ipvs.saved"
}

# scale_wrk KIND CFG ADDR SIZE [HOST]: one keep-alive wrk run (the req0
# cell's shape) to ADDR, recorded as KIND with SIZE configured
scale_wrk() {
	local kind=$1 cfg=$2 addr=$3 size=$4 host=${5:-} hdr= raw res= line n=0 us=1 rc
	raw=$OUT/raw/scale-$kind-$cfg-$size.txt
	[ -n "$host" ] && hdr="-H 'Host: $host'"
	nsh -t $((DUR + 90)) cli "timeout -k 5 $((DUR + 60)) wrk -t $THREADS -c $CONNS_SMALL -d ${DUR}s --timeout 10s -s $LUA $hdr http://$addr/0b >$raw 2>&1"
	rc=$?
	while IFS= read -r line; do
		[[ "$line" == "WRKJSON "* ]] && res=${line#WRKJSON }
	done <"$raw"
	[[ "$res" =~ \"requests\":([0-9]+) ]] && n=${BASH_REMATCH[1]}
	[[ "$res" =~ \"duration_us\":([0-9]+) ]] && us=${BASH_REMATCH[1]}
	if [ $rc -ne 0 ] || [ -z "$res" ]; then
		scale_fail "$kind $cfg with $size: wrk exited $rc"
		scale_record "$(printf '{"kind":"%s","config":"%s","size":%d,"status":"failed","reason":%s}' \
			"$kind" "$cfg" "$size" "$(jstr "wrk exited $rc: $(tail -n 3 "$raw" | tr '\n' ' ' | head -c 300)")")"
		return 1
	fi
	log "scale: $kind $cfg with $size configured: $((n * 1000000 / (us + 1))) req/s"
	scale_record "$(printf '{"kind":"%s","config":"%s","size":%d,"status":"ok","result":%s}' "$kind" "$cfg" "$size" "$res")"
}

# scale_req N: keep-alive req/s to the nat and http VIPs with the bench's
# own services only, then with N filler services beside them
scale_req() {
	local n=$1 base=$TMPD/scale-base.conf big=$TMPD/scale-big.conf
	# both bench configurations name their pool "web": the http one's
	# becomes "http-web" (as churn_up renames them apart)
	{
		cat "$TMPD/klb-nat.conf"
		sed -E 's/^(pool add|backend add) /\1 http-/; s/ pool ([^ ]+)/ pool http-\1/' "$TMPD/klb-http.conf"
	} >"$base"
	cat "$base" "$TMPD/scale-$n.klb" >"$big"
	nsh lb "$KLBCTL_BIN restore -f $base" || { scale_fail "the base configuration"; return 1; }
	scale_wrk req klb-nat "$VIP_NAT:80" 1
	scale_wrk req klb-http "$VIP_HTTP:80" 1
	if ! nsh -t 1800 lb "$KLBCTL_BIN restore -f $big" >/dev/null; then
		scale_fail "base + $n services"
		nsh -t 1800 lb "$KLBCTL_BIN flush"
		return 1
	fi
	scale_wrk req klb-nat "$VIP_NAT:80" "$n"
	scale_wrk req klb-http "$VIP_HTTP:80" "$n"
	nsh -t 1800 lb "$KLBCTL_BIN flush"
}

# scale_hosts N: the host map cell, klb then haproxy
scale_hosts() {
	local n=$1 hm=$TMPD/scale-hosts-$1.map h1=$TMPD/scale-hosts-1.map last hcfg=$TMPD/scale-haproxy.cfg
	local t0 ms
	awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "h%d.scale.example web\n", i }' >"$hm"
	last="h$((n - 1)).scale.example"
	echo "$last web" >"$h1"
	nsh lb "$KLBCTL_BIN restore -f $TMPD/klb-http.conf" || { scale_fail "klb-http"; return 1; }
	if ! nsh lb "$KLBCTL_BIN hostmap load http80 $h1" >"$TMPD/scale-hostmap.out" 2>&1; then
		scale_fail "klbctl hostmap: $(head -c 300 "$TMPD/scale-hostmap.out")"
		scale_record "$(printf '{"kind":"host","config":"klb-http","size":1,"status":"failed","reason":%s}' \
			"$(jstr "klbctl hostmap load: $(head -c 300 "$TMPD/scale-hostmap.out")")")"
	else
		scale_wrk host klb-http "$VIP_HTTP:80" 1 "$last"
		scale_timed ms "$KLBCTL_BIN hostmap load http80 $hm"
		log "scale: klb host map of $n entries loaded in $ms ms"
		scale_record "$(printf '{"kind":"hostmap-load","impl":"klb","size":%d,"ms":%d}' "$n" "$ms")"
		scale_wrk host klb-http "$VIP_HTTP:80" "$n" "$last"
	fi
	nsh lb "$KLBCTL_BIN flush"

	# haproxy: its own instance, one frontend per map size (8090: 1 entry,
	# 8091: N), the names mapped to the one backend, unknown ones to it too
	sed 's/ web$/ be_map/' "$hm" >"$hm.haproxy"
	sed 's/ web$/ be_map/' "$h1" >"$h1.haproxy"
	cat >"$hcfg" <<-EOF
		global
			maxconn 200000
			nbthread $NCPU
			pidfile $LBD/haproxy-scale.pid
			daemon
		defaults
			mode http
			timeout connect 5s
			timeout client 60s
			timeout server 60s
			timeout http-keep-alive 60s
		frontend fe_map1
			bind $LB4:8090
			use_backend %[req.hdr(host),lower,map($h1.haproxy,be_map)]
		frontend fe_mapn
			bind $LB4:8091
			use_backend %[req.hdr(host),lower,map($hm.haproxy,be_map)]
		backend be_map
			http-reuse always
			server be1 $BE1:80
	EOF
	t0=${EPOCHREALTIME//[.,]/}
	if ! nsh lb "haproxy -q -f $hcfg"; then
		scale_fail "haproxy with the map did not start"
		return 1
	fi
	ms=$(((${EPOCHREALTIME//[.,]/} - t0) / 1000))
	scale_record "$(printf '{"kind":"hostmap-load","impl":"haproxy","size":%d,"ms":%d}' "$n" "$ms")"
	wait_for "haproxy (map)" nsh cli "curl -s --max-time 2 -o /dev/null -f http://$LB4:8091/0b"
	scale_wrk host haproxy-http "$LB4:8090" 1 "$last"
	scale_wrk host haproxy-http "$LB4:8091" "$n" "$last"
	nsh lb "kill \$(cat $LBD/haproxy-scale.pid)"
}

scale_cell() {
	local n big=0 keep sm pm bm
	# room for the largest size twice over (a restore stages the new
	# configuration beside the old): caps only, nothing is allocated
	for n in $SCALE_SIZES; do [ "$n" -gt "$big" ] && big=$n; done
	keep=$(nsh lb "sysctl -n net.klb.services_max net.klb.pools_max net.klb.backends_max" | tr '\n' ' ')
	nsh lb "sysctl -qw net.klb.services_max=$((2 * big + 64)) net.klb.pools_max=$((2 * big + 64)) net.klb.backends_max=$((6 * big + 64))" ||
		log "scale: could not raise the object caps"
	log "scale: sizes $SCALE_SIZES"
	for n in $SCALE_SIZES; do
		[ $((SECONDS - T0)) -lt "$DEADLINE" ] || { log "scale: time budget spent before $n"; break; }
		scale_restore "$n"
	done
	if [ $((SECONDS - T0)) -lt "$DEADLINE" ]; then
		scale_req "$big"
		scale_hosts "$big"
	fi
	rm -f "$TMPD"/scale-*
	read -r sm pm bm <<<"$keep"
	nsh lb "sysctl -qw net.klb.services_max=$sm net.klb.pools_max=$pm net.klb.backends_max=$bm"
}
