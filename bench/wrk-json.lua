-- SPDX-License-Identifier: GPL-2.0
-- wrk script for bench/guest.sh. Defines no request()/response(), so wrk
-- keeps its static fast path: the script costs nothing per request.
--
-- setup() (first call: before wrk starts its threads) and done() (after it
-- joined them) sample the CPU time of the whole VM (/proc/stat) and of some
-- tasks, so the CPU measured covers exactly the run, not wrk's start-up:
--   balancer_procs  processes in $BENCH_LB_PIDS (haproxy, nginx proxy)
--   backend_procs   processes in $BENCH_BE_PIDS (the backend's nginx)
--   kworker         every kworker thread (klb's http/tls engine runs in them)
--   ksoftirqd       every ksoftirqd thread
-- Then prints one JSON line, prefixed "WRKJSON ": wrk's summary, those CPU
-- deltas in USER_HZ ticks, and its errors: errors.status counts responses
-- with a status >= 400 (wrk's "Non-2xx or 3xx responses"); connect, read,
-- write and timeout are its "Socket errors".

-- $BENCH_PUT_BYTES set: every request is a PUT of a body that size (the
-- bulk-put test); "bytes" is then what was sent: the bodies of the
-- requests completed (wrk's own count, "bytes_received", is the responses).
local put_bytes = tonumber(os.getenv("BENCH_PUT_BYTES") or "")
if put_bytes and put_bytes > 0 then
	wrk.method = "PUT"
	wrk.body = string.rep("k", put_bytes)
	wrk.headers["Content-Type"] = "application/octet-stream"
else
	put_bytes = nil
end

local function readfile(path)
	local f = io.open(path, "r")
	if not f then return nil end
	local s = f:read("*a")
	f:close()
	return s
end

-- utime + stime of a process (all its threads), 0 if it is gone
local function ticks(pid)
	local s = readfile("/proc/" .. pid .. "/stat")
	if not s then return 0 end
	local rest = s:match(".*%)%s+(.*)$")
	if not rest then return 0 end
	local t = {}
	for v in rest:gmatch("%S+") do t[#t + 1] = v end
	return (tonumber(t[12]) or 0) + (tonumber(t[13]) or 0)
end

local function group(pids)
	local n = 0
	for p in (pids or ""):gmatch("%d+") do n = n + ticks(p) end
	return n
end

local function kthreads()
	local kw, ks = 0, 0
	local p = io.popen("ls /proc")
	if not p then return 0, 0 end
	for d in p:lines() do
		if d:match("^%d+$") then
			local c = readfile("/proc/" .. d .. "/comm")
			if c and c:match("^kworker") then
				kw = kw + ticks(d)
			elseif c and c:match("^ksoftirqd") then
				ks = ks + ticks(d)
			end
		end
	end
	p:close()
	return kw, ks
end

-- user nice system idle iowait irq softirq steal
local function cpu()
	local s = readfile("/proc/stat") or ""
	local t = {}
	for v in (s:match("^cpu%s+([^\n]*)") or ""):gmatch("%d+") do t[#t + 1] = tonumber(v) end
	for i = 1, 8 do t[i] = t[i] or 0 end
	return t
end

local before = nil

setup = function(thread)
	if before then return end
	-- the slow parts first, /proc/stat last: just before the threads start
	local s = {}
	s.kw, s.ks = kthreads()
	s.lb = group(os.getenv("BENCH_LB_PIDS"))
	s.be = group(os.getenv("BENCH_BE_PIDS"))
	s.cpu = cpu()
	before = s
end

done = function(summary, latency, requests)
	-- /proc/stat first: just after the threads ended
	local c = cpu()
	local lb = group(os.getenv("BENCH_LB_PIDS"))
	local be = group(os.getenv("BENCH_BE_PIDS"))
	local kw, ks = kthreads()
	local b = before or { cpu = c, lb = lb, be = be, kw = kw, ks = ks }
	local d = {}
	for i = 1, 8 do d[i] = c[i] - b.cpu[i] end
	local e = summary.errors
	local bytes = summary.bytes
	if put_bytes then bytes = summary.requests * put_bytes end
	io.write(string.format(
		'WRKJSON {"duration_us":%.0f,"requests":%.0f,"bytes":%.0f,"bytes_received":%.0f,' ..
		'"errors":{"connect":%.0f,"read":%.0f,"write":%.0f,"status":%.0f,"timeout":%.0f},' ..
		'"latency_us":{"mean":%.1f,"p50":%.0f,"p90":%.0f,"p99":%.0f,"max":%.0f},' ..
		'"cpu_ticks":{"user":%d,"nice":%d,"system":%d,"idle":%d,"iowait":%d,"irq":%d,"softirq":%d,"steal":%d},' ..
		'"task_ticks":{"balancer_procs":%d,"backend_procs":%d,"kworker":%d,"ksoftirqd":%d}}\n',
		summary.duration, summary.requests, bytes, summary.bytes,
		e.connect, e.read, e.write, e.status, e.timeout,
		latency.mean, latency:percentile(50), latency:percentile(90),
		latency:percentile(99), latency.max,
		d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8],
		lb - b.lb, be - b.be, kw - b.kw, ks - b.ks))
end
