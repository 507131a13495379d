#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Which layer of klb.ko calls which, read from the built objects.

  tools/layers.py [--dot] [--files] [--map PATH=LAYER ...] [OBJDIR]

Every object file under OBJDIR/kmod (default: the tree this script is in,
after `make module`) belongs to a layer by its directory:

  kmod/main.o      main      module and per-netns init/exit: calls anything
  kmod/netlink/    netlink   the generic netlink family
  kmod/config/     config    pools, backends, services, rules, restore
  kmod/l4/         l4        netfilter hooks, connection table, rewrites
  kmod/l7/         l7        kernel sockets, sessions, parsers
  kmod/health/     health    active checks, backend health, republish
  kmod/sched/      sched     scheduler tables and their algorithms
  kmod/*.o         core      klb_net, objects, counters, sysctls, extack

A call goes from the object that has a symbol undefined (nm: U) to the one
that defines it. The allowed direction is

  main -> netlink -> config -> l4 -> l7 -> health -> sched -> core

(a layer may call any layer to its right), with one narrowing: l4 enters l7
only through the steering entry point (L4_TO_L7 below). Anything else is a
violation. Inside a layer the files have an order too: a cycle between
files (a calls b calls ... a), in one layer or across layers, is an error.
So is a kmod/ .c file that the file map of Documentation/design.md does
not name, or a path there that no longer exists (--design). Any of them
makes the exit status 1. The report lists every layer edge with the
symbols that make it, and every cycle between files.
"""
import re
import argparse
import collections
import os
import subprocess
import sys

ORDER = ["main", "netlink", "config", "l4", "l7", "health", "sched", "core"]
RANK = {name: i for i, name in enumerate(ORDER)}
L4_TO_L7 = {"klb_l7_steer"}


def layer_of(rel, overrides):
    if rel in overrides:
        return overrides[rel]
    parts = rel.split("/")
    if len(parts) == 2:
        return "main" if parts[1] == "main.o" else "core"
    return parts[1] if parts[1] in RANK else "?" + parts[1]


def read_symbols(path):
    out = subprocess.run(["nm", path], check=True, capture_output=True,
                         text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "U":
            undefined.add(f[1])
        elif len(f) == 3 and f[1] in "TDBRVW" and f[1].isupper():
            defined.add(f[2])
    return defined, undefined


def objects(root):
    for d, _, files in os.walk(os.path.join(root, "kmod")):
        for f in sorted(files):
            if f.endswith(".o") and not f.endswith(".mod.o"):
                p = os.path.join(d, f)
                yield os.path.relpath(p, root), p


def sccs(graph):
    """Tarjan: strongly connected components with more than one node."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("root", nargs="?",
                    default=os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("--dot", action="store_true",
                    help="print the layer graph in Graphviz dot")
    ap.add_argument("--files", action="store_true",
                    help="also print every file-to-file edge")
    ap.add_argument("--design", metavar="FILE",
                    help="check that FILE names every kmod/ .c file (as "
                    "kmod/DIR/NAME.c) and no file that is gone")
    ap.add_argument("--assume-call", action="append", default=[],
                    metavar="FROM=TO",
                    help="add a call between two objects (proves the cycle "
                    "check fires)")
    ap.add_argument("--map", action="append", default=[],
                    metavar="PATH=LAYER",
                    help="put an object in a layer (e.g. kmod/hooks.o=l4)")
    args = ap.parse_args()
    overrides = dict(m.split("=", 1) for m in args.map)

    owner, need, layer = {}, {}, {}
    for rel, path in objects(args.root):
        d, u = read_symbols(path)
        for s in d:
            owner[s] = rel
        need[rel] = u
        layer[rel] = layer_of(rel, overrides)
    if not need:
        sys.exit("layers: no objects under %s/kmod: run `make module`"
                 % args.root)

    file_edges = collections.defaultdict(set)	# (from, to) -> symbols
    for rel, syms in need.items():
        for s in syms:
            to = owner.get(s)
            if to and to != rel:
                file_edges[(rel, to)].add(s)

    for m in args.assume_call:
        a, b = m.split("=", 1)
        file_edges[(a, b)].add("(assumed)")

    layer_edges = collections.defaultdict(set)
    bad = []
    for (a, b), syms in sorted(file_edges.items()):
        la, lb = layer[a], layer[b]
        if la == lb:
            continue
        layer_edges[(la, lb)] |= syms
        ok = la in RANK and lb in RANK and RANK[la] < RANK[lb]
        if ok and (la, lb) == ("l4", "l7"):
            ok = syms <= L4_TO_L7
        if not ok:
            bad.append((a, b, sorted(syms)))

    if args.dot:
        print("digraph klb {")
        for (a, b), syms in sorted(layer_edges.items()):
            print('  "%s" -> "%s" [label="%d"];' % (a, b, len(syms)))
        print("}")
        return 1 if bad else 0

    print("layers: %s (a layer may call those to its right)" %
          " -> ".join(ORDER))
    counts = collections.Counter(layer.values())
    print("files per layer: " + ", ".join("%s %d" % (l, counts[l])
                                          for l in ORDER if counts[l]))
    for (a, b), syms in sorted(layer_edges.items(),
                               key=lambda e: (RANK.get(e[0][0], 99),
                                              RANK.get(e[0][1], 99))):
        shown = ", ".join(sorted(syms)[:6])
        more = " (+%d)" % (len(syms) - 6) if len(syms) > 6 else ""
        print("  %-7s -> %-7s %3d symbols: %s%s" % (a, b, len(syms), shown,
                                                     more))
    if args.files:
        for (a, b), syms in sorted(file_edges.items()):
            print("    %s -> %s: %s" % (a, b, ", ".join(sorted(syms))))

    graph = collections.defaultdict(set)
    for a, b in file_edges:
        graph[a].add(b)
    cycles = sccs(graph)
    for comp in cycles:
        layers = sorted({layer[f] for f in comp})
        print("cycle of %d files (%s): %s" % (len(comp), "/".join(layers),
                                              " ".join(comp)))
    cross = [c for c in cycles if len({layer[f] for f in c}) > 1]

    unmapped = []
    if args.design:
        unmapped = check_design(args.root, args.design)

    for a, b, syms in bad:
        print("violation: %s (%s) -> %s (%s): %s" %
              (a, layer[a], b, layer[b], ", ".join(syms)))
    print("layers: %d objects, %d layer edges, %d violations, "
          "%d cycles across layers, %d file cycles" %
          (len(need), len(layer_edges), len(bad), len(cross), len(cycles)))
    return 1 if bad or cycles or unmapped else 0


def check_design(root, design):
    """Paths kmod/**.c missing from @design's text, and named but gone."""
    text = open(os.path.join(root, design)).read()
    named = set(re.findall(r"\bkmod/[\w/]+\.c\b", text))
    tree = set()
    for d, _, files in os.walk(os.path.join(root, "kmod")):
        for f in files:
            if f.endswith(".c") and not f.endswith(".mod.c"):
                tree.add(os.path.relpath(os.path.join(d, f), root))
    out = []
    for f in sorted(tree - named):
        out.append(f)
        print("not in %s's file map: %s" % (design, f))
    for f in sorted(named - tree):
        out.append(f)
        print("in %s's file map but gone: %s" % (design, f))
    return out


if __name__ == "__main__":
    sys.exit(main())
