#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/report.py: turn a bench run (bench/run.sh) into a report.

    bench/report.py DIR [--out OUTDIR]

Reads DIR/meta.json, host.json, probes.jsonl and runs.jsonl (one JSON line
per run, written inside the VM by bench/guest.sh) and writes into OUTDIR
(default DIR): results.json (everything, plus the per-cell summary and the
goals), report.md (tables laid out like the Stingray white paper: rows =
tests, columns = configurations, then ratios, CPU, errors, goals, checks,
machine) and one PNG chart per test (gnuplot; skipped with a warning when
gnuplot is missing). Exits non-zero when there is no successful run at all.
"""

import glob
import json
import os
import shutil
import statistics
import subprocess
import sys

import report_scale  # bench/report_scale.py: the scale cell

TESTS = [
    # id, title, unit, what the client does
    ("conn", "HTTP conn/s", "conn/s",
     "one request per new TCP connection (`Connection: close`), 0 B file"),
    ("req0", "HTTP req/s, 0 B", "req/s", "keep-alive, 0 B file"),
    ("req2k", "HTTP req/s, 2 KB", "req/s", "keep-alive, 2 KB file"),
    ("req8k", "HTTP req/s, 8 KB", "req/s", "keep-alive, 8 KB file"),
    ("tput1m", "HTTP throughput, 1 MB", "Mbit/s", "keep-alive, 1 MB file"),
    ("tlsconn", "TLS conn/s", "conn/s",
     "a full TLS handshake per request (no resumption), 0 B file"),
    ("tlstput", "TLS throughput, 1 MB", "Mbit/s", "keep-alive TLS, 1 MB file"),
    ("tcp", "TCP throughput (iperf3)", "Mbit/s", "one iperf3 stream"),
    ("churn", "HTTP conn/s, churn", "conn/s",
     "as conn, but klb-nat, ipvs-nat, klb-fnat, klb-http and haproxy-http are all up together, "
     "configured once and kept across the churn rounds, after the other tests: the tables hold the "
     "closed connections of the rounds before, client ports are reused"),
    ("churn-ka", "HTTP req/s, churn keep-alive", "req/s",
     "the short keep-alive run after each churn run, the configurations still up"),
]
TEST_IDS = [t[0] for t in TESTS]
TITLE = {t[0]: t[1] for t in TESTS}
UNIT = {t[0]: t[2] for t in TESTS}
WHAT = {t[0]: t[3] for t in TESTS}
THROUGHPUT = {"tput1m", "tlstput", "tcp"}

# The bulk test (bench/guest.sh): cells bulk-KIND-pSTREAMS-mMTU
BULK_KINDS = [
    # kind, title, what, configurations
    ("tcp", "TCP bulk (iperf3)", "iperf3 -P STREAMS, memory to memory (client to backend: in dr and tun "
     "the balancer carries the data, the backend's ACKs go straight back)",
     ["direct", "klb-nat", "ipvs-nat", "haproxy-tcp", "klb-fnat", "klb-dr", "ipvs-dr", "klb-tun", "ipvs-tun"]),
    ("get", "HTTP bulk GET", "wrk GET of a 16 MB file (sendfile at the backend), one connection per stream, keep-alive",
     ["direct", "klb-http", "haproxy-http", "haproxy-tcp"]),
    ("put", "HTTP bulk PUT", "wrk PUT of a 4 MB body (stored by the backend's nginx, WebDAV), one connection per stream, keep-alive",
     ["direct", "klb-http", "haproxy-http", "haproxy-tcp"]),
    ("tls", "TLS bulk GET", "wrk GET of a 16 MB file over TLS (the backend terminates TLS), one connection per stream",
     ["direct", "klb-tls", "haproxy-tcp"]),
]
BULK_TITLE = {k[0]: k[1] for k in BULK_KINDS}
BULK_WHAT = {k[0]: k[2] for k in BULK_KINDS}
BULK_CONFIGS = {k[0]: k[3] for k in BULK_KINDS}


def bulk_cell(test):
    """(kind, streams, mtu) of a bulk cell id, else None."""
    parts = (test or "").split("-")
    if len(parts) != 4 or parts[0] != "bulk" or parts[2][:1] != "p" or parts[3][:1] != "m":
        return None
    try:
        return parts[1], int(parts[2][1:]), int(parts[3][1:])
    except ValueError:
        return None


def bulk_label(kind, streams, mtu):
    return f"{BULK_TITLE.get(kind, kind)}, MTU {mtu}, {streams} stream{'s' if streams > 1 else ''}"


def is_throughput(test):
    return test in THROUGHPUT or bulk_cell(test) is not None

CONFIGS = ["direct", "klb-nat", "klb-http", "klb-tls", "ipvs-nat",
           "haproxy-http", "haproxy-tcp", "nginx-proxy",
           "klb-fnat", "klb-dr", "ipvs-dr", "klb-tun", "ipvs-tun"]
# the forwarding modes and what each is compared with
MODE_PEERS = [("klb-nat", "ipvs-nat", 1.0), ("klb-fnat", "klb-nat", 0.95),
              ("klb-dr", "ipvs-dr", 1.0), ("klb-tun", "ipvs-tun", 1.0)]
DSR_CONFIGS = {"klb-dr", "klb-tun", "ipvs-dr", "ipvs-tun"}
CONFIG_WHAT = {
    "direct": "client to the backend, routed through the balancer namespace, nothing balances",
    "klb-nat": "klb, `mode nat` (VIP not a local address)",
    "klb-http": "klb, `mode http` (terminates HTTP, backend connections reused)",
    "klb-tls": "klb, `mode tls` (SNI pass-through, never decrypts)",
    "ipvs-nat": "IPVS, `ipvsadm -A/-a -m` (NAT), VIP a local address",
    "haproxy-http": "HAProxy `mode http`, `http-reuse always`, `option forwardfor`",
    "haproxy-tcp": "HAProxy `mode tcp` (also the TLS pass-through peer)",
    "nginx-proxy": "nginx `proxy_pass`, upstream `keepalive 64`, HTTP/1.1 to the backend",
    "klb-fnat": "klb, `mode fnat` (source rewritten to the balancer's 10.0.1.1, ports from klb's table)",
    "klb-dr": "klb, `mode dr` (frame to the backend's MAC; the backend holds the VIP on lo and answers "
              "the client over the client's second link)",
    "ipvs-dr": "IPVS, `ipvsadm -g` (direct routing), VIP on the balancer's lo; backend as for klb-dr",
    "klb-tun": "klb, `mode tun` (IPIP to the backend's tunl0; replies as in dr)",
    "ipvs-tun": "IPVS, `ipvsadm -i` (IPIP), VIP on the balancer's lo; backend as for klb-tun",
}


def haproxy_ref(test):
    return "haproxy-http" if test in ("conn", "req0", "req2k", "req8k", "tput1m", "churn", "churn-ka") \
        else "haproxy-tcp"


# Goals, in the same boot: (id, text, test, config, reference, kind, threshold)
# kind "ge": metric(config) >= threshold * metric(reference);
# kind "cpu_le": balancer CPU per request of config <= threshold * reference's.
GOALS = [
    ("G1", "klb-nat keep-alive req/s >= 0.97x direct", "req0", "klb-nat", "direct", "ge", 0.97),
    ("G2", "klb-nat conn/s >= 1.0x ipvs-nat", "conn", "klb-nat", "ipvs-nat", "ge", 1.0),
    ("G3", "klb-http req/s >= 1.3x haproxy-http", "req0", "klb-http", "haproxy-http", "ge", 1.3),
    ("G4", "klb-http conn/s >= 1.5x haproxy-http", "conn", "klb-http", "haproxy-http", "ge", 1.5),
    ("G5", "klb-http 1 MB throughput >= 0.9x direct", "tput1m", "klb-http", "direct", "ge", 0.9),
    ("G6", "klb-http CPU per request <= 0.5x haproxy-http", "req0", "klb-http", "haproxy-http",
     "cpu_le", 0.5),
    # the forwarding modes (issue 16)
    ("G7", "klb-dr keep-alive req/s >= 1.0x ipvs-dr", "req0", "klb-dr", "ipvs-dr", "ge", 1.0),
    ("G8", "klb-tun keep-alive req/s >= 1.0x ipvs-tun", "req0", "klb-tun", "ipvs-tun", "ge", 1.0),
    ("G9", "klb-fnat keep-alive req/s >= 0.95x klb-nat", "req0", "klb-fnat", "klb-nat", "ge", 0.95),
    ("G10", "klb-fnat conn/s >= 0.95x klb-nat", "conn", "klb-fnat", "klb-nat", "ge", 0.95),
    ("G11", "klb-dr conn/s >= 1.0x ipvs-dr", "conn", "klb-dr", "ipvs-dr", "ge", 1.0),
    ("G12", "klb-tun conn/s >= 1.0x ipvs-tun", "conn", "klb-tun", "ipvs-tun", "ge", 1.0),
]


def load_jsonl(path):
    out = []
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as e:
                print(f"report: {path}:{n}: bad JSON ({e}), line skipped", file=sys.stderr)
    return out


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, json.JSONDecodeError):
        return {}


# ---- per-run values -----------------------------------------------------------

def cpu_ticks(run):
    return run.get("cpu_ticks") or (run.get("result") or {}).get("cpu_ticks") or {}


def task_ticks(run):
    return run.get("task_ticks") or (run.get("result") or {}).get("task_ticks") or {}


def busy_ticks(run):
    c = cpu_ticks(run)
    return sum(c.get(k, 0) for k in ("user", "nice", "system", "irq", "softirq", "steal"))


def metric(run):
    """The test's figure: conn/s, req/s or Mbit/s."""
    r = run.get("result") or {}
    if run.get("tool") == "iperf3":
        return r.get("bits_per_second", 0) / 1e6
    us = r.get("duration_us") or 0
    if us <= 0:
        return None
    if is_throughput(run["test"]):
        return r.get("bytes", 0) * 8 / us          # bits per microsecond = Mbit/s
    return r.get("requests", 0) / (us / 1e6)


def units_done(run):
    """What CPU time is divided by: requests, or MB moved for the
    throughput tests (few 1 MB responses complete in a short run: wrk's
    byte count includes the ones in flight at the end, its request count
    does not)."""
    r = run.get("result") or {}
    if is_throughput(run["test"]):
        return r.get("bytes", 0) / 1e6
    return r.get("requests", 0)


def cpu_per_unit(run, hz, ticks=None):
    """Microseconds of CPU per request (per MB for iperf3)."""
    n = units_done(run)
    if not n:
        return None
    t = busy_ticks(run) if ticks is None else ticks
    return t / hz * 1e6 / n


def attributed_ticks(run):
    """CPU time we can pin on the balancer itself, or None (IPVS, klb-nat:
    softirq work on packets, not separable from the rest)."""
    cfg = run["config"]
    t = task_ticks(run)
    if cfg in ("haproxy-http", "haproxy-tcp", "nginx-proxy"):
        return t.get("balancer_procs")
    if cfg in ("klb-http", "klb-tls"):
        return t.get("kworker")
    return None


# ---- aggregation ------------------------------------------------------------------

def summarize(runs, hz):
    cells = {}
    for run in runs:
        key = (run.get("test"), run.get("config"))
        c = cells.setdefault(key, {"ok": [], "failed": [], "skipped": 0, "na": None})
        st = run.get("status")
        if st == "ok":
            c["ok"].append(run)
        elif st == "n/a":
            c["na"] = run.get("reason") or "n/a"
        elif st == "skipped":
            c["skipped"] += 1
        else:
            c["failed"].append(run)
    summary = {}
    for (test, cfg), c in cells.items():
        vals = [(r["round"], metric(r)) for r in c["ok"]]
        vals = [(rd, v) for rd, v in vals if v is not None]
        s = {"runs": len(vals), "failed": len(c["failed"]), "skipped": c["skipped"],
             "na": c["na"], "failures": [r.get("reason", "") for r in c["failed"]]}
        if vals:
            v = [x for _, x in vals]
            s.update({
                "median": statistics.median(v), "min": min(v), "max": max(v),
                "by_round": {str(rd): x for rd, x in vals},
                "unit": UNIT.get(test, "Mbit/s" if bulk_cell(test) else ""),
            })
            cpu = [cpu_per_unit(r, hz) for r in c["ok"]]
            cpu = [x for x in cpu if x is not None]
            if cpu:
                s["cpu_us_per_unit"] = statistics.median(cpu)
                s["cpu_by_round"] = {str(r["round"]): cpu_per_unit(r, hz) for r in c["ok"]
                                     if cpu_per_unit(r, hz) is not None}
            att = [cpu_per_unit(r, hz, attributed_ticks(r)) for r in c["ok"]
                   if attributed_ticks(r) is not None]
            att = [x for x in att if x is not None]
            if att:
                s["balancer_cpu_us_per_unit"] = statistics.median(att)
            busy = [busy_ticks(r) for r in c["ok"]]
            idle = [cpu_ticks(r).get("idle", 0) + cpu_ticks(r).get("iowait", 0) for r in c["ok"]]
            tot = sum(busy) + sum(idle)
            s["busy_fraction"] = sum(busy) / tot if tot else None
            sirq = sum(cpu_ticks(r).get("softirq", 0) for r in c["ok"])
            s["softirq_fraction_of_busy"] = sirq / sum(busy) if sum(busy) else None
            err = {}
            for r in c["ok"]:
                for k, x in ((r.get("result") or {}).get("errors") or {}).items():
                    err[k] = err.get(k, 0) + x
            s["errors"] = err
            s["requests"] = sum((r.get("result") or {}).get("requests", 0) for r in c["ok"])
            s["lb_rx_packets"] = sum(r.get("lb_rx_packets", 0) for r in c["ok"])
            if bulk_cell(test):
                # where the CPU goes, ns per byte moved (all runs of the cell)
                nbytes = sum(units_done(r) for r in c["ok"]) * 1e6
                if nbytes:
                    per = lambda t: t / hz * 1e9 / nbytes
                    tt = [task_ticks(r) for r in c["ok"]]
                    s["ns_per_byte"] = {
                        "busy": per(sum(busy)),
                        "softirq": per(sirq),
                        "kworker": per(sum(t.get("kworker", 0) for t in tt)),
                        "ksoftirqd": per(sum(t.get("ksoftirqd", 0) for t in tt)),
                        "balancer_procs": per(sum(t.get("balancer_procs", 0) for t in tt)),
                        "backend_procs": per(sum(t.get("backend_procs", 0) for t in tt)),
                    }
                s["retransmits"] = sum((r.get("result") or {}).get("retransmits", 0) or 0 for r in c["ok"])
        summary.setdefault(test, {})[cfg] = s
    # increment of whole-VM CPU per request over direct, same test
    for test, row in summary.items():
        d = row.get("direct", {}).get("cpu_us_per_unit")
        for cfg, s in row.items():
            if d is not None and s.get("cpu_us_per_unit") is not None and cfg != "direct":
                s["cpu_increment_us_per_unit"] = s["cpu_us_per_unit"] - d
    return summary


def paired_ratios(a, b, key="by_round"):
    """Ratio a/b for each round both have (the runs of a round are adjacent)."""
    ra, rb = a.get(key, {}), b.get(key, {})
    return [ra[k] / rb[k] for k in ra if k in rb and rb[k]]


def evaluate_goals(summary):
    out = []
    for gid, text, test, cfg, ref, kind, thr in GOALS:
        g = {"id": gid, "goal": text, "test": test, "config": cfg, "reference": ref,
             "threshold": thr}
        a = summary.get(test, {}).get(cfg, {})
        b = summary.get(test, {}).get(ref, {})
        if kind == "ge":
            if "median" not in a or "median" not in b or not b["median"]:
                g.update(verdict="n/a", why=(a.get("na") or b.get("na") or "no successful runs"))
                out.append(g)
                continue
            r = a["median"] / b["median"]
            pr = paired_ratios(a, b)
            met = r >= thr
            g.update(ratio=r, paired_min=min(pr) if pr else None, paired_max=max(pr) if pr else None,
                     value=a["median"], reference_value=b["median"])
        else:
            # balancer CPU per request: increment of the whole VM's CPU per
            # request over direct (the verdict), and the attributed figure
            d = summary.get(test, {}).get("direct", {})
            if "cpu_increment_us_per_unit" not in a or "cpu_increment_us_per_unit" not in b:
                g.update(verdict="n/a", why=(a.get("na") or b.get("na") or "no CPU figures"))
                out.append(g)
                continue
            ia, ib = a["cpu_increment_us_per_unit"], b["cpu_increment_us_per_unit"]
            r = ia / ib if ib > 0 else None
            pr = []
            ca, cb, cd = a.get("cpu_by_round", {}), b.get("cpu_by_round", {}), d.get("cpu_by_round", {})
            for k in ca:
                if k in cb and k in cd and cb[k] - cd[k] > 0:
                    pr.append((ca[k] - cd[k]) / (cb[k] - cd[k]))
            met = r is not None and r <= thr
            g.update(ratio=r, paired_min=min(pr) if pr else None, paired_max=max(pr) if pr else None,
                     value=ia, reference_value=ib,
                     attributed=a.get("balancer_cpu_us_per_unit"),
                     reference_attributed=b.get("balancer_cpu_us_per_unit"))
            if g["attributed"] and g["reference_attributed"]:
                g["attributed_ratio"] = g["attributed"] / g["reference_attributed"]
        if r is None:
            g["verdict"] = "n/a"
            g["why"] = "the reference's figure is not positive"
        else:
            g["verdict"] = "met" if met else "not met"
            lo, hi = g.get("paired_min"), g.get("paired_max")
            if lo is not None and len(pr) >= 2:
                if kind == "ge":
                    clear = (lo >= thr) if met else (hi < thr)
                else:
                    clear = (hi <= thr) if met else (lo > thr)
                g["clear"] = clear
        out.append(g)
    return out


# ---- bulk ----------------------------------------------------------------------

def bulk_grid(summary):
    """kind -> sorted [(mtu, streams, {config: cell summary})]"""
    grid = {}
    for test, row in summary.items():
        b = bulk_cell(test)
        if b:
            grid.setdefault(b[0], []).append((b[2], b[1], row))
    for k in grid:
        grid[k].sort(key=lambda x: (x[0], x[1]))
    return grid


def cell_ratio(a, b, key="median"):
    if not a or not b or a.get(key) is None or not b.get(key):
        return None
    return a[key] / b[key]


def cpu_per_byte(s):
    return (s or {}).get("ns_per_byte", {}).get("busy")


# (id, text, kinds, config, reference, what, threshold): over every bulk
# cell of those kinds; "rate": throughput >= threshold x reference,
# "cpu": CPU per byte <= threshold x reference's
BULK_GOALS = [
    ("B1", "klb-nat bulk >= 0.97x direct, every stream count and MTU", ["tcp"], "klb-nat", "direct",
     "rate", 0.97),
    ("B2", "klb-http bulk (GET and PUT) >= 0.9x direct", ["get", "put"], "klb-http", "direct", "rate", 0.9),
    ("B3", "klb-http bulk (GET and PUT) >= 1.5x haproxy-tcp", ["get", "put"], "klb-http", "haproxy-tcp",
     "rate", 1.5),
    ("B4", "klb-nat CPU per byte within 10% of direct", ["tcp"], "klb-nat", "direct", "cpu", 1.1),
    ("B5", "klb-http CPU per byte within 10% of direct", ["get", "put"], "klb-http", "direct", "cpu", 1.1),
    ("B6", "klb-tls CPU per byte within 10% of direct", ["tls"], "klb-tls", "direct", "cpu", 1.1),
    # the forwarding modes (issue 16)
    ("B7", "klb-dr bulk >= 1.0x ipvs-dr", ["tcp"], "klb-dr", "ipvs-dr", "rate", 1.0),
    ("B8", "klb-tun bulk >= 1.0x ipvs-tun", ["tcp"], "klb-tun", "ipvs-tun", "rate", 1.0),
    ("B9", "klb-fnat bulk >= 0.95x klb-nat", ["tcp"], "klb-fnat", "klb-nat", "rate", 0.95),
]


def evaluate_bulk_goals(summary):
    grid = bulk_grid(summary)
    out = []
    for gid, text, kinds, cfg, ref, what, thr in BULK_GOALS:
        cells = []
        for k in kinds:
            for mtu, streams, row in grid.get(k, []):
                a, b = row.get(cfg), row.get(ref)
                if what == "rate":
                    r = cell_ratio(a, b)
                    pr = paired_ratios(a or {}, b or {})
                else:
                    ca, cb = cpu_per_byte(a), cpu_per_byte(b)
                    r = ca / cb if ca is not None and cb else None
                    pr = paired_ratios(a or {}, b or {}, key="cpu_by_round")
                # a cell that misses is "within the spread" if a round meets it
                near = bool(pr) and (max(pr) >= thr if what == "rate" else min(pr) <= thr)
                if r is not None:
                    cells.append((r, k, mtu, streams, near))
        g = {"id": gid, "goal": text, "config": cfg, "reference": ref, "threshold": thr, "bulk": True}
        if not cells:
            g.update(verdict="n/a", why="no bulk cell with both configurations")
            out.append(g)
            continue
        good = [c for c in cells if (c[0] >= thr if what == "rate" else c[0] <= thr)]
        near = [c for c in cells if c not in good and c[4]]
        worst = min(cells) if what == "rate" else max(cells)
        med = statistics.median(c[0] for c in cells)
        g.update(verdict="met" if len(good) == len(cells) else "not met", cells=len(cells),
                 cells_met=len(good), cells_within_spread=len(near), worst=worst[0],
                 worst_cell=f"{worst[1]} MTU {worst[2]} P{worst[3]}", median_ratio=med,
                 measured=(f"{len(good)} of {len(cells)} cells"
                           + (f" (+{len(near)} within the spread: a round meets it)" if near else "")
                           + f"; median ratio {med:.2f}, "
                           f"worst {worst[0]:.2f} ({bulk_label(worst[1], worst[3], worst[2])})"))
        out.append(g)
    return out


def modes_section(summary):
    """The forwarding modes against their peers: every test both ran."""
    rows = []
    tests = [t for t in ("conn", "req0") if t in summary] + \
        sorted((t for t in summary if (bulk_cell(t) or ("",))[0] == "tcp"), key=bulk_cell)
    for cfg, ref, thr in MODE_PEERS:
        if cfg == "klb-nat":
            continue
        for t in tests:
            a, b = summary[t].get(cfg), summary[t].get(ref)
            if not a or not b:
                continue
            if "median" not in a or "median" not in b or not b["median"]:
                rows.append([f"{cfg} / {ref}", label(t), "n/a", "", "", ""])
                continue
            r = a["median"] / b["median"]
            pr = paired_ratios(a, b)
            rng = f"{min(pr):.2f}-{max(pr):.2f}" if len(pr) >= 2 else ""
            v = "met" if r >= thr else "not met"
            if len(pr) >= 2 and (min(pr) < thr <= max(pr)):
                v += " (rounds disagree)"
            ca, cb = a.get("cpu_us_per_unit"), b.get("cpu_us_per_unit")
            cpu = f"{ca / cb:.2f}" if ca is not None and cb else "-"
            rows.append([f"{cfg} / {ref}", label(t), f"{r:.2f}", rng, f">= {thr:g}: {v}", cpu])
    if not rows:
        return []
    return ["## Forwarding modes against their peers", "",
            "Each klb forwarding mode against the IPVS mode of the same name (fnat, which mainline IPVS "
            "lacks, against klb-nat): ratio of the medians, the lowest and highest ratio of two runs of "
            "the same round, the goal, and the ratio of the whole VM's CPU time per request (per MB for "
            "bulk; lower is better). In dr and tun the backend's replies go straight to the client over "
            "the client's second link (see *Did the traffic pass the balancer?*), so the balancer "
            "carries the client's direction only: requests and ACKs in the HTTP tests, the data in the "
            "iperf3 bulk test (client to backend).", "",
            table(["mode / peer", "test", "ratio", "per round", "goal", "CPU per unit ratio"], rows), ""]


CHURN_CONFIGS = ["klb-nat", "klb-fnat", "ipvs-nat", "klb-http", "haproxy-http"]
# issue 33: klb-nat against IPVS NAT beside it, in every round
CHURN_GOAL = ("klb-nat", "ipvs-nat", 0.9)


def churn_section(runs, meta):
    """The churn cell round by round: conn/s of each configuration (all up
    together, kept across the rounds), klb-nat over ipvs-nat, the tables
    before each round, the client's retransmissions, keep-alive req/s."""
    ok = [r for r in runs if r.get("test") in ("churn", "churn-ka") and r.get("status") == "ok"]
    bad = [r for r in runs if r.get("test") in ("churn", "churn-ka") and r.get("status") in ("failed", "skipped")]
    if not ok:
        return []
    val, rt, syn, err, ports, tables, starved = {}, {}, {}, {}, {}, {}, set()
    ncpu, hz = meta.get("cpus") or 2, meta.get("user_hz") or 100
    for r in ok:
        k = (r["test"], r["config"], r["round"])
        val[k] = metric(r)
        rt[k] = r.get("cli_retrans_segs")
        syn[k] = r.get("cli_syn_retrans")
        # the guest's CPU ticks (busy + idle) cover its CPUs x the run only
        # when QEMU got the host's CPU: far fewer, the host starved the VM
        us = (r.get("result") or {}).get("duration_us") or 0
        ticks = sum(cpu_ticks(r).values())
        if us and ticks < 0.6 * ncpu * hz * us / 1e6:
            starved.add(k)
        err[k] = sum(((r.get("result") or {}).get("errors") or {}).values())
        ports.setdefault(r["round"], r.get("client_ports", ""))
        tables.setdefault(r["round"], r.get("tables_before") or {})
    rounds = sorted({r["round"] for r in ok})
    cfgs = [c for c in CHURN_CONFIGS if any(r["config"] == c for r in ok)]
    c = meta.get("churn") or {}
    md = ["## Churn: conn/s round after round, configurations kept", "",
          f"{', '.join(cfgs)} configured once, all at the same time (klb and IPVS side by side in the "
          "balancer's netns, as issue 33 measured them), and kept up across every churn round. Round r "
          "runs each configuration in turn: `wrk -t1 -c32` with `Connection: close` for "
          f"{c.get('duration_s', '?')} s (conn/s), then a keep-alive run of {c.get('ka_duration_s', '?')} s. "
          "The client's `ip_local_port_range` changes between phases (column *client ports*); with "
          "`tcp_tw_reuse=1` a client port comes back to every VIP while klb's and IPVS's tables still "
          "hold its closed connection (TIME_WAIT). Tables: entries before the round in klb's connection "
          "table (nat and fnat), IPVS's (`/proc/net/ip_vs_conn`) and the client's TIME_WAIT sockets.", ""]
    a, b, thr = CHURN_GOAL
    hdr = ["round", "client ports", "klb table", "IPVS table", "client TIME_WAIT"] + cfgs
    if a in cfgs and b in cfgs:
        hdr.append(f"{a} / {b}")
    rows, ratios = [], []
    for rd in rounds:
        t = tables.get(rd, {})
        row = [str(rd), ports.get(rd, ""), fmt_int(t.get("klb")), fmt_int(t.get("ipvs")),
               fmt_int(t.get("client_time_wait"))]
        for cf in cfgs:
            v = val.get(("churn", cf, rd))
            row.append((fmt(v) + (" †" if ("churn", cf, rd) in starved else "")) if v is not None else "-")
        if a in cfgs and b in cfgs:
            x, y = val.get(("churn", a, rd)), val.get(("churn", b, rd))
            if x is not None and y:
                ratios.append((x / y, rd))
                row.append(f"**{x / y:.2f}**" if x / y < thr else f"{x / y:.2f}")
            else:
                row.append("-")
        rows.append(row)
    md += [table(hdr, rows), ""]
    if starved:
        md += ["†: during this run the guest's CPU time (busy + idle ticks in `/proc/stat`) covered less than "
               "60% of its CPUs x the run's length: the host, shared and loaded, did not run the VM for part "
               "of it (QEMU starved), so the figure says little about the balancer.", ""]
    if ratios:
        met = [r for r in ratios if r[0] >= thr]
        worst = min(ratios)
        miss_st = [r for r in ratios if r[0] < thr and
                   (("churn", a, r[1]) in starved or ("churn", b, r[1]) in starved)]
        md += [f"Goal (issue 33): {a} conn/s >= {thr:g}x {b} in every round: "
               f"**{'met' if len(met) == len(ratios) else 'not met'}**, {len(met)} of {len(ratios)} rounds "
               f"(lowest {worst[0]:.2f}, round {worst[1]}; bold: below {thr:g})"
               + (f"; {len(miss_st)} of the rounds missed had a run marked †" if miss_st else "") + ".", ""]
    md += ["Segments the client retransmitted (`TcpRetransSegs` of its netns, delta over each run), of "
           "them SYNs in brackets (`TCPSynRetrans`): conn/s run / keep-alive run. A lost SYN or SYN-ACK "
           "costs the client a 1 s retransmission; with 32 connections that is what makes conn/s "
           "collapse. Retransmissions of data can also be spurious here: an emulated guest on a loaded "
           "host can stall past TCP's 200 ms minimum timeout.", ""]
    rows = []

    def rts(k):
        return f"{fmt_int(rt.get(k))} ({fmt_int(syn.get(k))})" if rt.get(k) else fmt_int(rt.get(k))
    for rd in rounds:
        row = [str(rd), ports.get(rd, "")]
        for cf in cfgs:
            row.append(f"{rts(('churn', cf, rd))} / {rts(('churn-ka', cf, rd))}")
        rows.append(row)
    md += [table(["round", "client ports"] + cfgs, rows), ""]
    if any(k[0] == "churn-ka" for k in val):
        rows = []
        for rd in rounds:
            row = [str(rd), ports.get(rd, "")]
            for cf in cfgs:
                v = val.get(("churn-ka", cf, rd))
                row.append(fmt(v) if v is not None else "-")
            rows.append(row)
        md += ["Keep-alive req/s of the run after each conn/s run:", "",
               table(["round", "client ports"] + cfgs, rows), ""]
    errs = [(k, n) for k, n in sorted(err.items(), key=lambda x: (x[0][2], x[0][1], x[0][0])) if n]
    if errs:
        md += ["wrk socket errors and statuses >= 400 in churn runs: " +
               ", ".join(f"{t} {cf} round {rd}: {n}" for (t, cf, rd), n in errs) + ".", ""]
    if bad:
        md += ["Churn runs failed or skipped: " +
               "; ".join(f"{r.get('test')} {r.get('config')} round {r.get('round')}: {r.get('status')}"
                         f" ({r.get('reason', '')})" for r in bad) + ".", ""]
    return md


def fmt_int(v):
    return "-" if v is None or v == -1 else f"{v:,}"


def run_gnuplot(gp, script, dat, what):
    """Run a gnuplot script, drop its data file; False (and why) on failure."""
    r = subprocess.run([gp], input=script, capture_output=True, text=True)
    os.unlink(dat)
    if r.returncode != 0:
        print(f"report: gnuplot failed for {what}: {r.stderr.strip()}", file=sys.stderr)
        return False
    return True


def histogram_head(png, title, ylabel, width):
    """The start of a gnuplot script drawing a bar chart into @png."""
    return f"""
set terminal pngcairo size {width},420 noenhanced font "sans,10"
set output '{png}'
set title '{title}'
set ylabel '{ylabel}'
set yrange [0:*]
set grid ytics
set style data histograms
"""


def bulk_charts(summary, outdir):
    gp = shutil.which("gnuplot")
    if not gp:
        return []
    made = []
    for kind, rows in sorted(bulk_grid(summary).items(), key=lambda x: [k[0] for k in BULK_KINDS].index(x[0])):
        cfgs = [c for c in BULK_CONFIGS[kind] if any("median" in (r.get(c) or {}) for _, _, r in rows)]
        if not cfgs:
            continue
        dat = os.path.join(outdir, f".bench-bulk-{kind}.dat")
        png = f"bench-bulk-{kind}.png"
        with open(dat, "w") as f:
            f.write("cell " + " ".join(f'"{c}"' for c in cfgs) + "\n")
            for mtu, streams, r in rows:
                vals = [f'{(r.get(c) or {}).get("median", 0) / 1000:.6g}' for c in cfgs]
                f.write(f'"MTU {mtu}, P{streams}" ' + " ".join(vals) + "\n")
        script = histogram_head(os.path.join(outdir, png),
                                f"{BULK_TITLE[kind]} (Gbit/s, medians) by MTU and parallel streams",
                                "Gbit/s", 1000) + f"""set style histogram clustered gap 1
set style fill solid 0.7 border -1
set key outside right top
set xtics nomirror rotate by -30
plot for [i=2:{len(cfgs) + 1}] '{dat}' using i:xtic(1) title columnheader(i)
"""
        if run_gnuplot(gp, script, dat, f"bulk {kind}"):
            made.append((kind, png))
    return made


def bulk_section(summary, meta, notes, pngs, rundir):
    grid = bulk_grid(summary)
    if not grid:
        return []
    md = ["## Bulk throughput", ""]
    b = meta.get("bulk") or {}
    md.append("Big transfers with 1, 2, 4 and 8 parallel streams, at MTU 1500 and at MTU 9000 on every "
              "link (client, both balancer ports, the bridge, the backend), every offload on (veth: TSO, "
              "GSO, GRO, checksum offload), so TCP moves 64 KB GSO/GRO super-packets through the "
              "balancer. Gbit/s: medians of the runs, ± as above; in brackets the ratio to `direct` "
              "(paired by round: lowest-highest). CPU: the whole VM's busy CPU time per byte moved, ns/B, "
              "and its ratio to `direct`'s. The two virtual CPUs are saturated in every cell (client, "
              "balancer and backend share them), so Gbit/s and CPU per byte are two views of one cost.")
    md.append("")
    for kind, title, what, kcfgs in BULK_KINDS:
        rows = grid.get(kind)
        if not rows:
            continue
        cfgs = [c for c in kcfgs if any(c in r for _, _, r in rows)]
        md.append(f"### {title}")
        md.append("")
        md.append(what + ".")
        md.append("")
        trows, crows = [], []
        for mtu, streams, r in rows:
            d = r.get("direct")
            t = [str(mtu), str(streams)]
            c = [str(mtu), str(streams)]
            for cfg in cfgs:
                s = r.get(cfg)
                if s is None:
                    t.append("")
                    c.append("")
                    continue
                if "median" not in s:
                    t.append(cell_text(s, notes))
                    c.append("n/a")
                    continue
                x = f"{s['median'] / 1000:.2f}{spread(s)}"
                if s.get("failed"):
                    x += notes.ref(f"{s['failed']} run(s) failed: " + "; ".join(sorted(set(s["failures"]))))
                if cfg != "direct" and d and d.get("median"):
                    pr = paired_ratios(s, d)
                    x += f" ({s['median'] / d['median']:.2f}"
                    if len(pr) >= 2:
                        x += f", {min(pr):.2f}-{max(pr):.2f}"
                    x += ")"
                t.append(x)
                cb, cd = cpu_per_byte(s), cpu_per_byte(d)
                y = fmt(cb)
                if cfg != "direct" and cb is not None and cd:
                    y += f" ({cb / cd:.2f})"
                c.append(y)
            trows.append(t)
            crows.append(c)
        md.append(table(["MTU", "streams"] + [f"{c} Gbit/s" for c in cfgs], trows))
        md.append("")
        md.append(table(["MTU", "streams"] + [f"{c} CPU ns/B" for c in cfgs], crows))
        md.append("")
    # where the CPU goes
    md.append("### Where the CPU goes")
    md.append("")
    md.append("CPU time per byte moved (ns/B), summed over every run of a kind at one MTU (all stream "
              "counts), split by who ran: `softirq` (from /proc/stat: packet processing, forwarding, klb's "
              "and IPVS's netfilter hooks, TCP receive in softirq), `kworker` (klb's L7 engine: workqueue "
              "`klb_l7`, including the TCP send and receive it drives), the balancer's processes "
              "(haproxy), the backend's processes (nginx, iperf3 -s), and the rest (the client: wrk or "
              "iperf3 -c). Task times include the softirq work that interrupted them (tick-based "
              "accounting), so the columns overlap and do not add up to the total.")
    md.append("")
    rows = []
    for kind, title, _, kcfgs in BULK_KINDS:
        by_mtu = {}
        for mtu, streams, r in grid.get(kind, []):
            for cfg in kcfgs:
                s = r.get(cfg) or {}
                n = s.get("ns_per_byte")
                if not n:
                    continue
                by_mtu.setdefault((mtu, cfg), []).append(n)
        for (mtu, cfg), ns in sorted(by_mtu.items(), key=lambda x: (x[0][0], kcfgs.index(x[0][1]))):
            avg = {k: statistics.mean(n[k] for n in ns) for k in ns[0]}
            rows.append([title, str(mtu), cfg, fmt(avg["busy"]), fmt(avg["softirq"]), fmt(avg["kworker"]),
                         fmt(avg["balancer_procs"]), fmt(avg["backend_procs"]),
                         fmt(max(0.0, avg["busy"] - avg["kworker"] - avg["balancer_procs"]
                                 - avg["backend_procs"] - avg["ksoftirqd"]))])
    md.append(table(["kind", "MTU", "config", "total", "softirq", "kworker", "balancer procs",
                     "backend procs", "rest (client)"], rows))
    md.append("")
    md.append("(Means of the per-cell figures over the stream counts.)")
    md.append("")
    for kind, png in pngs:
        md.append(f"![{BULK_TITLE[kind]}]({png})")
        md.append("")
    md += profile_section(rundir)
    return md


def profile_sections(path):
    """The '== title' sections of a bench/guest.sh profile text."""
    out, cur = {}, None
    for line in open(path):
        if line.startswith("== "):
            cur = line[3:].strip()
            out[cur] = []
        elif cur is not None:
            out[cur].append(line.rstrip())
    return out


def profile_section(d):
    """Excerpts of the perf profiles taken after the rounds (--profile)."""
    files = sorted(glob.glob(os.path.join(d, "raw", "profile-*.txt")))
    if not files:
        return []
    md = ["### Where the cycles go: perf profiles", "",
          "One extra run of each of these cells under `perf record -a -g -e cpu-clock` (every CPU, every "
          "namespace; not counted in the results above, perf slows everything it watches). Percentages are "
          "of all samples of the run, idle (`swapper`) included. For klb, the second column is the time "
          "klb's L7 workers spent in a function and in what it called. Full text: `raw/profile-*.txt` of "
          "the run; the raw data (`raw/perf-*.data`, `raw/kallsyms.txt`) can be read again with "
          "`perf report --kallsyms`.", ""]
    for f in files:
        name = os.path.basename(f)[len("profile-"):-len(".txt")]
        secs = profile_sections(f)
        head = next((k for k in secs if "samples by symbol" in k), None)
        comm = secs.get("by command", [])[:6]
        syms = secs.get(head, [])[:12] if head else []
        kw = next((v for k, v in secs.items() if k.startswith("kworkers: time spent")), [])
        kw = [l for l in kw if "klb" in l or "tcp" in l or "skb" in l or "ip_" in l][:14]
        md.append(f"**{name}**")
        md.append("")
        md.append("```")
        md.append("by command:")
        md += comm
        md.append("hottest symbols:")
        md += syms
        if kw:
            md.append("klb's L7 workers, inclusive (children) and self:")
            md += kw
        md.append("```")
        md.append("")
    return md


# ---- formatting ----------------------------------------------------------------

def fmt(v):
    if v is None:
        return "-"
    a = abs(v)
    if a >= 100:
        return f"{v:,.0f}"
    if a >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def spread(s):
    if s.get("runs", 0) < 2 or not s.get("median"):
        return ""
    return f" ±{(s['max'] - s['min']) / 2 / s['median'] * 100:.0f}%"


class Notes:
    def __init__(self):
        self.items = []

    def ref(self, text):
        if text not in self.items:
            self.items.append(text)
        return f"[^{self.items.index(text) + 1}]"


def cell_text(s, notes):
    if s is None:
        return ""
    if "median" not in s:
        why = s.get("na") or "; ".join(sorted(set(s.get("failures") or []))) or \
            ("time budget spent" if s.get("skipped") else "no successful run")
        return "n/a" + notes.ref(why)
    t = fmt(s["median"]) + spread(s)
    if s.get("failed"):
        t += notes.ref(f"{s['failed']} run(s) failed: " + "; ".join(sorted(set(s["failures"]))))
    return t


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def label(test):
    b = bulk_cell(test)
    if b:
        return bulk_label(*b)
    return TITLE.get(test, test)


def present_configs(summary):
    return [c for c in CONFIGS if any(c in row for row in summary.values())]


def present_tests(summary):
    return [t for t in TEST_IDS if t in summary]


# ---- charts ----------------------------------------------------------------------

def charts(summary, outdir):
    gp = shutil.which("gnuplot")
    if not gp:
        print("report: gnuplot not found (tools/deps.sh installs gnuplot-nox): no charts", file=sys.stderr)
        return []
    made = []
    for test in present_tests(summary):
        row = summary[test]
        pts = [(c, row[c]) for c in CONFIGS if c in row and "median" in row[c]]
        if not pts:
            continue
        dat = os.path.join(outdir, f".bench-{test}.dat")
        png = f"bench-{test}.png"
        with open(dat, "w") as f:
            for c, s in pts:
                f.write(f'"{c}" {s["median"]:.6g} {s["min"]:.6g} {s["max"]:.6g}\n')
        na = [c for c in CONFIGS if c in row and "median" not in row[c]]
        title = f"{TITLE[test]} ({UNIT[test]}), median and min-max of the runs"
        if na:
            title += "; n/a: " + ", ".join(na)
        script = histogram_head(os.path.join(outdir, png), title, UNIT[test], 900) + f"""set style histogram errorbars gap 1 lw 1
set style fill solid 0.6 border -1
set boxwidth 0.8
set key off
set xtics nomirror
plot '{dat}' using 2:3:4:xtic(1) lc rgb '#4a7ebb'
"""
        if run_gnuplot(gp, script, dat, test):
            made.append((test, png))
    return made


# ---- the report ------------------------------------------------------------------------

def report(d, outdir):
    meta = load_json(os.path.join(d, "meta.json"))
    host = load_json(os.path.join(d, "host.json"))
    probes = load_jsonl(os.path.join(d, "probes.jsonl"))
    runs = load_jsonl(os.path.join(d, "runs.jsonl"))
    hz = meta.get("user_hz") or 100
    summary = summarize(runs, hz)
    goals = evaluate_goals(summary) + evaluate_bulk_goals(summary)
    ok_runs = sum(1 for r in runs if r.get("status") == "ok")
    ok_runs += sum(1 for r in report_scale.load(d) if r.get("status") == "ok")

    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "results.json"), "w") as f:
        json.dump({"meta": meta, "host": host, "probes": probes, "summary": summary,
                   "goals": goals, "runs": runs, "scale": report_scale.load(d),
                   "scale_goals": report_scale.goals(report_scale.load(d))}, f, indent=1, sort_keys=False)
    pngs = charts(summary, outdir)
    bulk_pngs = bulk_charts(summary, outdir)

    cfgs = present_configs(summary)
    tests = present_tests(summary)
    notes = Notes()
    md = []
    kind = host.get("kind", "?")
    md.append("# klb benchmark: the Stingray test matrix against peers")
    md.append("")
    md.append(f"Generated by `bench/report.py` from a `{'make bench' if kind == 'full' else 'make bench-quick'}` "
              f"run ({host.get('date', '?')}, commit {host.get('git_commit', '?')}"
              f"{' with uncommitted changes' if host.get('git_dirty') else ''}). "
              "Method and how to run: [README.md](README.md) in Documentation/bench. Every run's raw "
              "figures are in the run's `results.json` (`out/bench/NAME/`).")
    md.append("")
    md.append("**Everything below ran in one boot of a QEMU guest under software emulation (TCG, no KVM), "
              f"{meta.get('cpus', '?')} virtual CPUs shared by the client, the balancer and the backend, "
              "on a host shared with other work.** Absolute figures are about two orders of magnitude "
              "below bare metal and mean nothing by themselves; only ratios between configurations of "
              "the same boot do.")
    if kind != "full":
        md.append("")
        md.append("*This is a quick run (a few seconds per cell, one round): it proves the harness works. "
                  "Its figures are too noisy for any conclusion.*")
    md.append("")
    md.append(f"Runs: {ok_runs} successful, {sum(1 for r in runs if r.get('status') == 'failed')} failed, "
              f"{sum(1 for r in runs if r.get('status') == 'skipped')} skipped (time budget); "
              f"{meta.get('rounds', '?')} round(s) of {meta.get('duration_s', '?')} s per cell, "
              "configurations alternating within each round. "
              f"VM run status: {host.get('vm_status', '?')} "
              f"({'clean: kernel log checked, module unloaded, namespaces deleted' if host.get('vm_status') == 0 else 'NOT clean: see guest.log'}); "
              f"wall time {host.get('wall_s', '?')} s.")
    md.append("")

    # results (the Stingray tests; a run of bulk cells alone has none)
    def ratio_rows(ref_of):
        rows = []
        for t in tests:
            ref = ref_of(t)
            b = summary[t].get(ref, {})
            r = [TITLE[t], ref]
            for c in cfgs:
                a = summary[t].get(c)
                if a is None:
                    r.append("")
                elif "median" not in a or "median" not in b or not b["median"]:
                    r.append("n/a")
                else:
                    x = a["median"] / b["median"]
                    pr = paired_ratios(a, b)
                    txt = f"{x:.2f}"
                    if len(pr) >= 2 and c != ref:
                        txt += f" ({min(pr):.2f}-{max(pr):.2f})"
                    r.append(txt)
            rows.append(r)
        return rows

    if tests:
        md.append("## Results")
        md.append("")
        md.append("Median of the runs of each cell; ±: half the range between the lowest and the highest run, "
                  "relative to the median. Empty: the configuration does not apply to the test.")
        md.append("")
        rows = []
        for t in tests:
            rows.append([TITLE[t], UNIT[t]] + [cell_text(summary[t].get(c), notes) for c in cfgs])
        md.append(table(["test", "unit"] + cfgs, rows))
        md.append("")


        md.append("### Ratio to direct")
        md.append("")
        md.append("Median over median; in brackets the lowest and highest ratio of two runs of the same round "
                  "(runs of a round are adjacent in time).")
        md.append("")
        md.append(table(["test", "reference"] + cfgs, ratio_rows(lambda t: "direct")))
        md.append("")
        md.append("### Ratio to haproxy")
        md.append("")
        md.append("HTTP tests against haproxy-http, TLS and TCP tests against haproxy-tcp (the pass-through peer).")
        md.append("")
        md.append(table(["test", "reference"] + cfgs, ratio_rows(haproxy_ref)))
        md.append("")

    # goals
    md.append("## Goals")
    md.append("")
    grows = []
    for g in goals:
        if g["verdict"] == "n/a":
            grows.append([g["id"], g["goal"], "-", "n/a" + notes.ref(g.get("why", ""))])
            continue
        if g.get("bulk"):
            v = "**met**" if g["verdict"] == "met" else "**not met**"
            grows.append([g["id"], g["goal"], g["measured"], v])
            continue
        if g["id"] == "G6":
            got = (f"{g['ratio']:.2f} (balancer CPU: {fmt(g['value'])} vs {fmt(g['reference_value'])} µs/req "
                   "more than direct)")
            if g.get("attributed_ratio") is not None:
                got += (f"; attributed: {g['attributed_ratio']:.2f} ({fmt(g['attributed'])} vs "
                        f"{fmt(g['reference_attributed'])} µs/req)")
        else:
            got = f"{g['ratio']:.2f} ({fmt(g['value'])} vs {fmt(g['reference_value'])} {UNIT[g['test']]})"
        if g.get("paired_min") is not None and g.get("paired_max") is not None and "clear" in g:
            got += f", per round {g['paired_min']:.2f}-{g['paired_max']:.2f}"
        v = "**met**" if g["verdict"] == "met" else "**not met**"
        if "clear" in g:
            v += "" if g["clear"] else " (within the spread: some rounds disagree)"
        grows.append([g["id"], g["goal"], got, v])
    md.append(table(["", "goal (same boot)", "measured", "verdict"], grows))
    md.append("")
    md.append("G6 compares the balancers' own CPU time per request, measured as the increase of the whole "
              "VM's CPU time per request over `direct` in the same test (see CPU below); the *attributed* "
              "figure is the CPU time of the kworker threads (klb) and of the haproxy process.")
    md.append("")

    md += modes_section(summary)
    md += churn_section(runs, meta)
    md += report_scale.section(d, table)
    md += bulk_section(summary, meta, notes, bulk_pngs, d)

    # CPU
    md.append("## CPU time per request")
    md.append("")
    md.append("Whole VM (all namespaces: client, balancer, backend), from `/proc/stat` deltas over exactly "
              "the client's run (user + nice + system + irq + softirq + steal), divided by the requests "
              "completed; for the throughput tests (1 MB files, iperf3) per MB moved instead. "
              "Medians, µs.")
    md.append("")
    rows = []
    for t in tests:
        r = [TITLE[t]]
        for c in cfgs:
            s = summary[t].get(c)
            r.append("" if s is None else fmt(s.get("cpu_us_per_unit")) if "median" in s else "n/a")
        rows.append(r)
    md.append(table(["test"] + cfgs, rows))
    md.append("")
    md.append("### The balancer's share")
    md.append("")
    md.append("First figure: increase over `direct` (whole VM CPU per request of the configuration minus "
              "that of `direct`, same test): what putting this balancer in the path costs, softirq "
              "included. Second figure (after /): CPU time attributable to the balancer's own tasks - the "
              "haproxy or nginx processes (utime + stime), or for klb-http and klb-tls the kworker threads "
              "that run klb's L7 engine. Neither IPVS nor klb-nat has a task: their work is done in "
              "softirq on whatever CPU a packet arrives, so only the increase is shown.")
    md.append("")
    rows = []
    for t in tests:
        r = [TITLE[t]]
        for c in cfgs:
            s = summary[t].get(c)
            if s is None:
                r.append("")
            elif "median" not in s:
                r.append("n/a")
            elif c == "direct":
                r.append("(baseline)")
            else:
                x = fmt(s.get("cpu_increment_us_per_unit"))
                if s.get("balancer_cpu_us_per_unit") is not None:
                    x += " / " + fmt(s["balancer_cpu_us_per_unit"])
                r.append(x)
        rows.append(r)
    md.append(table(["test"] + cfgs, rows))
    md.append("")
    busyf = [s.get("busy_fraction") for row in summary.values() for s in row.values()
             if s.get("busy_fraction") is not None]
    if busyf:
        md.append(f"The VM's CPUs were busy {min(busyf) * 100:.0f}-{max(busyf) * 100:.0f}% of each run "
                  "(cell medians aside, over all runs of a cell): the client, balancer and backend saturate "
                  "the two virtual CPUs, so the rates above are CPU-bound and CPU per request is close to "
                  "the inverse of the rate.")
        md.append("")

    # errors
    md.append("## Errors")
    md.append("")
    md.append("wrk's socket errors (connect, read, write, timeout) and responses with a status >= 400, "
              "summed over all runs of a cell. Never hidden: a cell with errors is listed here.")
    md.append("")
    erows = []
    for t in tests + sorted((t for t in summary if bulk_cell(t)), key=bulk_cell):
        for c in cfgs:
            s = summary[t].get(c)
            if not s or "errors" not in s:
                continue
            e = s["errors"]
            if any(e.values()):
                erows.append([label(t), c, str(s.get("requests", 0))] +
                             [str(e.get(k, 0)) for k in ("connect", "read", "write", "timeout", "status")])
    if erows:
        md.append(table(["test", "config", "requests", "connect", "read", "write", "timeout", "status >= 400"],
                        erows))
    else:
        total = sum(s.get("requests", 0) for row in summary.values() for s in row.values())
        md.append(f"None: no socket error and no status >= 400 in {total:,} requests.")
    md.append("")
    failed = [r for r in runs if r.get("status") == "failed"]
    if failed:
        md.append("Failed runs:")
        md.append("")
        for r in failed:
            md.append(f"- {r.get('test')} {r.get('config')} round {r.get('round')}: {r.get('reason')}")
        md.append("")

    # checks
    md.append("## Did the traffic pass the balancer?")
    md.append("")
    md.append("Before the measurements, each configuration was set up alone and sent 3 requests, each on a "
              "new connection, asking the backend who it saw as client; the balancer's own counter had to "
              "grow by at least 3 (klb: `klbctl -s service show`; IPVS: `/proc/net/ip_vs_stats`; haproxy: "
              "frontend sessions from its stats socket; nginx: `stub_status`; direct: packets received by "
              "the balancer namespace's client-side interface). A configuration failing this is n/a for "
              "every test.")
    md.append("")
    dlink = any("cli_direct_rx_packets_delta" in p for p in probes)
    if dlink:
        md.append("dr and tun: the backend answers the client straight over the client's second link on the "
                  "backends' bridge (no IP hop on the balancer); the last column counts the packets that "
                  "link received during the probe: at least 6 for dr and tun (3 answers), at most 2 (a "
                  "flooded ARP broadcast) for every other configuration, whose path must not change.")
        md.append("")
    rows = []
    for p in probes:
        rows.append([p.get("config", ""), p.get("scheme", ""), p.get("addr", ""),
                     "yes" if p.get("ok") else "**no**: " + p.get("reason", ""),
                     p.get("backend_saw", ""), f"{p.get('counter', '')} +{p.get('counter_delta', '')}",
                     str(p.get("lb_rx_packets_delta", ""))]
                    + ([str(p.get("cli_direct_rx_packets_delta", ""))] if dlink else []))
    md.append(table(["config", "scheme", "client sends to", "passes", "backend saw client",
                     "balancer counter", "balancer ns rx packets"]
                    + (["client direct link rx packets"] if dlink else []), rows))
    md.append("")
    # per-run evidence, computed from the runs
    okr = [r for r in runs if r.get("status") == "ok"]
    if okr:
        rows = []
        for c in cfgs:
            rc = [r for r in okr if r.get("config") == c]
            if not rc:
                continue
            dx = [r.get("cli_direct_rx_packets", 0) for r in rc]
            rows.append([c, str(len(rc)), f"{min(r.get('lb_rx_packets', 0) for r in rc):,}",
                         f"{sum(r.get('ipvs_conns', 0) for r in rc):,}"]
                        + ([f"{min(dx):,}-{max(dx):,}"] if dlink else []))
        md.append("During the runs: per configuration, the fewest packets the balancer namespace's "
                  "client-side interface received in one run, and the connections IPVS counted over all "
                  "runs. IPVS folds its per-CPU counters into its totals every 2 s only, so the last "
                  "seconds of an IPVS run are counted in the next run (the configuration that follows "
                  "it in the round); no other configuration ever had an IPVS service.")
        md.append("")
        md.append(table(["config", "runs", "fewest rx packets in a run", "IPVS connections counted"]
                        + (["client direct link rx packets per run (min-max)"] if dlink else []), rows))
        md.append("")

    # configurations and tests
    md.append("## Configurations and tests")
    md.append("")
    md.append(table(["configuration", "what"], [[c, CONFIG_WHAT[c]] for c in cfgs]))
    md.append("")
    conns = meta.get("conns", {})
    md.append(table(["test", "client"],
                    [[TITLE[t], WHAT[t] + (
                        f"; wrk, {1 if t.startswith('churn') else meta.get('threads', '?')} thread(s), "
                        f"{conns.get('small' if t in ('conn', 'req0', 'req2k', 'req8k', 'churn', 'churn-ka') else 'tls' if t == 'tlsconn' else 'big', '?')} connections"
                        if t != "tcp" else "")] for t in tests]))
    md.append("")
    if any(bulk_cell(t) for t in summary):
        b = meta.get("bulk") or {}
        md.append(table(["bulk", "client"],
                        [[BULK_TITLE[k], BULK_WHAT[k] + f"; streams {b.get('streams', '?')}, MTU "
                          f"{b.get('mtus', '?')}; configurations: {', '.join(BULK_CONFIGS[k])}"]
                         for k, *_ in BULK_KINDS]))
        md.append("")

    # charts
    if pngs:
        md.append("## Charts")
        md.append("")
        for t, png in pngs:
            md.append(f"![{TITLE[t]}]({png})")
            md.append("")

    # machine
    md.append("## Machine")
    md.append("")
    lavg = host.get("loadavg_start"), host.get("loadavg_end")
    rows = [
        ["host CPU", f"{host.get('host_cpu_model', '?')}, {host.get('host_cpus', '?')} CPUs (shared with other users' VMs)"],
        ["host kernel", str(host.get("host_kernel", "?"))],
        ["host load average (1, 5, 15 min)", f"start {' '.join(lavg[0] or [])}, end {' '.join(lavg[1] or [])}"],
        ["emulator", f"{host.get('qemu', '?')}, {host.get('accel', '?')}"],
        ["guest", f"{meta.get('cpus', '?')} vCPUs ({meta.get('cpu_model', '?')}), "
                  f"{(meta.get('mem_kb') or 0) // 1024} MiB"],
        ["guest kernel", f"{meta.get('kernel', '?')} ({meta.get('kernel_version', '?')})"],
        ["guest kernel command line", f"`{meta.get('cmdline', '?')}`"],
    ]
    for k, v in (meta.get("versions") or {}).items():
        rows.append([k + (" (module srcversion)" if k == "klb" else ""), str(v)])
    md.append(table(["", ""], rows))
    md.append("")
    if "slub_debug" in (meta.get("cmdline") or ""):
        md.append("The guest booted with `slub_debug` (the selftests' default): it records a stack trace at "
                  "every slab allocation, which costs more than the allocation and weighs on whoever "
                  "allocates most (proxies more than forwarding); these figures under-rate the proxies.")
    else:
        md.append("The guest booted without `slub_debug` (`tools/vm/run --no-slub-debug`: the selftests' "
                  "allocation debugging would charge a stack trace to every allocation) and with "
                  "`panic_on_warn=1`.")
    md.append("")

    if notes.items:
        for i, n in enumerate(notes.items, 1):
            md.append(f"[^{i}]: {n}")
        md.append("")

    with open(os.path.join(outdir, "report.md"), "w") as f:
        f.write("\n".join(md))
    return ok_runs


def main():
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if args else 1
    d = args[0]
    outdir = d
    if len(args) >= 3 and args[1] == "--out":
        outdir = args[2]
    n = report(d, outdir)
    if n == 0:
        print("report: no successful run", file=sys.stderr)
        return 1
    print(f"report: {os.path.join(outdir, 'report.md')} ({n} runs)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
