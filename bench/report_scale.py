# SPDX-License-Identifier: GPL-2.0
"""The scale cell of a bench run (bench/scale.sh writes OUT/scale.jsonl):
restore, save and flush times of N services against ipvsadm-restore, memory
per service, req/s with many services configured and with a big host map
against haproxy's map file. Used by bench/report.py."""

import json
import os

# the req/s ratios the issue asks for (same boot): many over one
RATIO_GOAL = 0.95


def load(d):
    path = os.path.join(d, "scale.jsonl")
    recs = []
    if not os.path.exists(path):
        return recs
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                try:
                    recs.append(json.loads(line))
                except ValueError:
                    pass
    return recs


def req_s(rec):
    res = rec.get("result") or {}
    us = res.get("duration_us") or 0
    return res.get("requests", 0) * 1e6 / us if us else None


def _ms(v):
    return f"{v / 1000:.2f} s" if v >= 1000 else f"{v} ms"


def _per(kb, n):
    return f"{kb * 1024 / n:,.0f} B" if n else "-"


def goals(recs):
    """Goals as dicts: id, goal, measured, verdict (met / not met / n/a)."""
    out = []
    by = {(r.get("kind"), r.get("config"), r.get("size")): r for r in recs
          if r.get("status") == "ok" and r.get("kind") in ("req", "host")}
    for kind, cfg, what in (("req", "klb-nat", "services"), ("req", "klb-http", "services"),
                            ("host", "klb-http", "host map entries"),
                            ("host", "haproxy-http", "map file entries")):
        sizes = sorted(s for (k, c, s) in by if k == kind and c == cfg)
        if len(sizes) < 2 or sizes[0] != 1:
            continue
        one, many = req_s(by[(kind, cfg, 1)]), req_s(by[(kind, cfg, sizes[-1])])
        if not one or many is None:
            continue
        r = many / one
        gid = "S-" + kind + "-" + cfg
        goal = f"{cfg}: keep-alive req/s with {sizes[-1]:,} {what} >= {RATIO_GOAL}x of with 1"
        if cfg.startswith("haproxy"):
            goal = f"(peer) {cfg}: req/s with {sizes[-1]:,} {what} over 1"
            verdict = "reference"
        else:
            verdict = "met" if r >= RATIO_GOAL else "not met"
        out.append({"id": gid, "goal": goal, "measured": f"{r:.2f} ({many:,.0f} vs {one:,.0f} req/s)",
                    "verdict": verdict, "ratio": r})
    rest = {(r.get("impl"), r.get("services")): r for r in recs
            if r.get("kind") == "restore" and r.get("status") == "ok"}
    for n in sorted({s for (_, s) in rest}):
        k, v = rest.get(("klb", n)), rest.get(("ipvs", n))
        if not k or not v or n < 10000:
            continue
        out.append({"id": f"S-restore-{n}", "goal": f"klbctl restore of {n:,} services faster than ipvsadm-restore",
                    "measured": f"{_ms(k['ms'])} vs {_ms(v['ms'])}",
                    "verdict": "met" if k["ms"] < v["ms"] else "not met", "ratio": v["ms"] / max(k["ms"], 1)})
    return out


def section(d, table):
    """Markdown lines of the section (none without scale records); table is
    report.py's table(header, rows)."""
    recs = load(d)
    if not recs:
        return []
    md = ["## Configuration scale", "",
          "bench/scale.sh: each of N services has its own pool of 3 backends (the form `klbctl save` "
          "writes); IPVS gets the same services and real servers through `ipvsadm-restore`. Restored into "
          "an empty namespace; memory is the Slab and MemAvailable drop over the restore, caches dropped, "
          "divided by N. The round trip: what `klbctl save` wrote, restored over the same configuration, "
          "saves the same bytes.", ""]
    rows = []
    for r in sorted((r for r in recs if r.get("kind") == "restore"),
                    key=lambda r: (r.get("services", 0), r.get("impl", ""))):
        n = r.get("services", 0)
        if r.get("status") != "ok":
            rows.append([f"{n:,}", r.get("impl", "?"), "failed: " + r.get("reason", ""), "", "", "", "", ""])
            continue
        save = _ms(r["save_ms"]) + (f" ({r['save_bytes']:,} B)" if "save_bytes" in r else "")
        rt = {True: "same bytes", False: "**differs**"}.get(r.get("save_round_trip"), "-")
        rows.append([f"{n:,}", "klb" if r["impl"] == "klb" else "ipvsadm", _ms(r["ms"]), save, rt,
                     _ms(r["flush_ms"]), _per(r["slab_kb"], n), _per(r["avail_kb"], n)])
    if rows:
        md.append(table(["services", "tool", "restore", "save", "round trip", "flush",
                         "Slab / service", "MemAvailable / service"], rows))
        md.append("")
    loads = [r for r in recs if r.get("kind") == "hostmap-load"]
    if loads:
        md.append("Loading the host map: " + "; ".join(
            f"{r['impl']} {r['size']:,} entries in {_ms(r['ms'])}" +
            (" (haproxy: its start with the map file)" if r["impl"] == "haproxy" else "")
            for r in loads) + ".")
        md.append("")
    rows = []
    for r in recs:
        if r.get("kind") not in ("req", "host"):
            continue
        v = req_s(r) if r.get("status") == "ok" else None
        what = "services" if r["kind"] == "req" else "host names"
        rows.append([r["kind"], r["config"], f"{r['size']:,} {what}",
                     f"{v:,.0f}" if v is not None else "failed: " + r.get("reason", "")])
    if rows:
        md.append(table(["cell", "configuration", "configured", "keep-alive req/s"], rows))
        md.append("")
    g = goals(recs)
    if g:
        md.append(table(["", "goal (same boot)", "measured", "verdict"],
                        [[x["id"], x["goal"], x["measured"],
                          x["verdict"] if x["verdict"] == "reference" else f"**{x['verdict']}**"] for x in g]))
        md.append("")
    return md
