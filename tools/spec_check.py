#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""spec_check: check that the descriptions of the "klb" generic netlink API
agree with Documentation/netlink/klb.yaml (the spec, YNL format).

  python3 tools/spec_check.py [--root DIR] [--no-kernel] [--schema FILE | --no-schema]

  --root DIR     the tree to check (default: the tree this script is in)
  --no-kernel    skip the kernel parts (policies, ops table)
  --schema FILE  validate the spec against FILE, not the kernel's schema
  --no-schema    skip the schema validation

What is compared with the spec:
  the kernel's schema        the spec is validated (python3-jsonschema) against
                             Documentation/netlink/PROTOCOL.yaml of the
                             protocol it declares, as the kernel's YNL tools
                             do; from Debian's linux-doc-6.12 (KLB_SCHEMA_PKG):
                             installed, else its schemas cached in
                             /var/cache/klb/netlink-schema/ if writable, else
                             out/netlink-schema/ (KLB_SCHEMA_CACHE), else
                             fetched once with `apt-get download` (40 MB;
                             only the schema files are kept). If jsonschema
                             or the package cannot be had: a loud SKIP on
                             stderr and stdout, and the other checks run.
  `checks` limits            a literal with "# CONST" after it equals CONST.
  include/uapi/linux/klb.h   every C name and value the spec implies, by YNL's
                             naming rules (name-prefix + name, upper case,
                             '-' -> '_'; enum-cnt-name / enum-max-name, else
                             an enum doc's "render-max entries __X and Y",
                             attr-cnt-name / attr-max-name, cmd-cnt-name /
                             cmd-max-name or their defaults), both ways; the
                             consts of `definitions` against their #defines;
                             which C enum each name is declared in.
  tools/klbctl/attrs.c       every attribute named exists with a compatible
                             type, nests point at the table of the spec's
                             nested set, and each table is complete (attrs.c
                             mirrors every set reachable from a request; an
                             output-only nest may have no table); cmd_names
                             names every operation.
  selftests/klb_nl.py        every attribute or command name it uses exists
                             (types are not checked: some cases send a wrong
                             type on purpose).
  kernel policies            kmod/netlink/policy.c (else kmod/netlink.c, else
                             the kmod/ files with nla_policy tables; SKIP if
                             none), with the defines of the uapi header, of
                             the file and of every kmod/ header:
                             type, max-len, exact-len, min, max of each
                             nla_policy entry, which attributes each policy
                             accepts, and per-op policies against each op's
                             request attributes. `enum: X` on an integer
                             implies max = X's last value (and min if that is
                             not 0), as YNL generates; a check on one side
                             only is a mismatch. Output-only attributes
                             (doc says "output only", or top-level attributes
                             in replies only) may be absent or NLA_REJECT
                             (in a nested set also a matching typed entry;
                             never accepted by a top-level per-op policy);
                             never NLA_REJECT on a nest (the core's
                             NLA_F_NESTED check answers before its message).
                             A policy nested only by output-only attributes
                             (stats in a request) must refuse each attribute
                             of its set: NLA_REJECT, or a nest into another
                             such policy. Range designators [A ... B] count
                             as one entry per attribute value.
  kernel ops table           kmod/netlink/family.c (else kmod/netlink.c, else
                             the kmod/ files with genl_ops tables; SKIP if none):
                             do/dump handlers, admin-perm <-> GENL_ADMIN_PERM,
                             uns-admin-perm <-> GENL_UNS_ADMIN_PERM,
                             dont-validate <-> GENL_DONT_VALIDATE_*.

One line per problem, "spec_check: FILE: WHAT" (and "spec_check: SKIP WHAT",
"spec_check: schema: WHAT" lines that are none), then
"spec_check: N checks, M problems"; exit status 1 if M > 0, a SKIP never.
Needs PyYAML (Debian: python3-yaml); the schema part python3-jsonschema.
"""
import argparse
import glob
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

try:
    import yaml
except ImportError:
    sys.stderr.write("spec_check: needs PyYAML (Debian package python3-yaml)\n")
    sys.exit(2)

SPEC = "Documentation/netlink/klb.yaml"
UAPI = "include/uapi/linux/klb.h"
ATTRS = "tools/klbctl/attrs.c"
NLPY = "selftests/klb_nl.py"
POLICY_FILES = ("kmod/netlink/policy.c", "kmod/netlink.c")
OPS_FILES = ("kmod/netlink/family.c", "kmod/netlink.c")

# Keys of the genetlink-c (and genetlink-legacy) schema that plain
# "genetlink" specs may not use.
GENETLINK_C_KEYS = {
    "family": ("c-family-name", "c-version-name", "max-by-define",
               "cmd-max-name", "cmd-cnt-name"),
    "definitions": ("enum-cnt-name", "enum-max-name"),
    "attribute-sets": ("attr-cnt-name", "attr-max-name"),
}

OUTPUT_ONLY_RE = re.compile(r"\boutput[- ]only\b", re.I)
# An enum's doc naming the header's render-max entries where they are not
# YNL's defaults (the released schemas have no enum-cnt-name or
# enum-max-name for definitions): "render-max entries __X_MAX and X_MAX".
RENDER_MAX_DOC_RE = re.compile(r"\brender-max entries\s+(__[A-Z][A-Z0-9_]*)\s+and\s+([A-Z][A-Z0-9_]*)")
# A literal limit in `checks` with the const it equals in a comment:
# "max: 65535  # weight-max" (older schemas take no const names there).
LIMIT_COMMENT_RE = re.compile(r"^\s*(min|max|min-len|max-len|exact-len):\s*(\S+)\s*#\s*(\S.*?)\s*$")

SCALARS = {"u8": 8, "u16": 16, "u32": 32, "u64": 64,
           "s8": 8, "s16": 16, "s32": 32, "s64": 64}
SPEC_TO_NLA = {"u8": "NLA_U8", "u16": "NLA_U16", "u32": "NLA_U32", "u64": "NLA_U64",
               "s8": "NLA_S8", "s16": "NLA_S16", "s32": "NLA_S32", "s64": "NLA_S64",
               "uint": "NLA_UINT", "sint": "NLA_SINT", "flag": "NLA_FLAG",
               "string": "NLA_NUL_STRING", "binary": "NLA_BINARY", "nest": "NLA_NESTED"}
NLA_BITS = {"NLA_U8": (8, False), "NLA_U16": (16, False), "NLA_U32": (32, False),
            "NLA_U64": (64, False), "NLA_S8": (8, True), "NLA_S16": (16, True),
            "NLA_S32": (32, True), "NLA_S64": (64, True), "NLA_UINT": (64, False),
            "NLA_SINT": (64, True), "NLA_BE16": (16, False), "NLA_BE32": (32, False)}
SIZEOF = {"struct in_addr": 4, "struct in6_addr": 16, "__u8": 1, "u8": 1,
          "__u16": 2, "u16": 2, "__be16": 2, "__u32": 4, "u32": 4, "__be32": 4,
          "__u64": 8, "u64": 8, "__be64": 8, "int": 4, "char": 1}


def c_upper(s):
    return s.upper().replace("-", "_")


def c_lower(s):
    return s.lower().replace("-", "_")


class Report:
    def __init__(self):
        self.checks = 0
        self.problems = 0

    def check(self, ok, path, what):
        self.checks += 1
        if not ok:
            self.problem(path, what)
        return ok

    def problem(self, path, what):
        self.problems += 1
        print("spec_check: %s: %s" % (path, what), flush=True)

    @staticmethod
    def skip(what):
        print("spec_check: SKIP %s" % what, flush=True)


# ---------------------------------------------------------------- C parsing

_STR_OR_COMMENT = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|/\*.*?\*/|//[^\n]*', re.S)
_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')


def strip_comments(text):
    """Blank out comments, keeping offsets and newlines (for line numbers)."""
    def repl(m):
        s = m.group(0)
        if s.startswith("/*") or s.startswith("//"):
            return re.sub(r"[^\n]", " ", s)
        return s
    return _STR_OR_COMMENT.sub(repl, text)


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def match_close(text, start):
    """Index of the bracket closing the one at text[start]."""
    depth = 0
    i = start
    while i < len(text):
        c = text[i]
        if c in "\"'":
            m = _STRING.match(text, i)
            if m:
                i = m.end()
                continue
        if c in "{([":
            depth += 1
        elif c in "})]":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def split_top(text, base=0):
    """Split at commas outside brackets and strings: [(piece, offset)]."""
    out = []
    depth = 0
    start = 0
    i = 0
    while i < len(text):
        c = text[i]
        if c in "\"'":
            m = _STRING.match(text, i)
            if m:
                i = m.end()
                continue
        if c in "{([":
            depth += 1
        elif c in "})]":
            depth -= 1
        elif c == "," and depth == 0:
            out.append((text[start:i], base + start))
            start = i + 1
        i += 1
    out.append((text[start:], base + start))
    return [(p.strip(), off + (len(p) - len(p.lstrip()))) for p, off in out if p.strip()]


def parse_defines(text):
    """Object-like #defines of comment-stripped text: name -> [(expr, line)]."""
    defs = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        lineno = i + 1
        line = lines[i]
        while line.rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            line = line.rstrip()[:-1] + " " + lines[i]
        m = re.match(r"\s*#\s*define\s+([A-Za-z_]\w*)(\()?(.*)$", line)
        if m and not m.group(2):
            defs.setdefault(m.group(1), []).append((m.group(3).strip(), lineno))
        i += 1
    return defs


def parse_enums(text):
    """[(ctype or None, [(name, expr or None, line)], line)] of a stripped text."""
    out = []
    for m in re.finditer(r"\benum\s+(\w+\s*)?\{", text):
        start = m.end() - 1
        end = match_close(text, start)
        if end < 0:
            continue
        items = []
        for piece, off in split_top(text[start + 1:end], start + 1):
            name, _, expr = piece.partition("=")
            name = name.strip()
            if not re.match(r"^[A-Za-z_]\w*$", name):
                continue
            items.append((name, expr.strip() or None, line_of(text, off)))
        out.append(((m.group(1) or "").strip() or None, items, line_of(text, m.start())))
    return out


class EvalError(Exception):
    pass


_TOK = re.compile(r"\s*(?:(0[xX][0-9a-fA-F]+|\d+)[uUlL]*|([A-Za-z_]\w*)|"
                  r"(<<|>>|[-+*/%()~&|^])|(\"(?:\\.|[^\"\\])*\"))")


class Evaluator:
    """Evaluates simple C constant expressions over layers of definitions.

    Each layer is (label, {name: [(expr, where)]}); the first layer that
    defines a name wins; a name defined twice differently in one layer is
    ambiguous (e.g. under #if / #else)."""

    def __init__(self, layers):
        self.layers = list(layers)
        self.cache = {}

    def value(self, name, stack=()):
        if name in self.cache:
            return self.cache[name]
        if name in stack:
            raise EvalError("%s is defined in terms of itself" % name)
        for label, defs in self.layers:
            if name not in defs:
                continue
            exprs = defs[name]
            if len({e for e, _ in exprs}) > 1:
                raise EvalError("%s is defined more than once in %s (%s)" % (
                    name, label, ", ".join("line %s" % w for _, w in exprs)))
            v = self.eval(exprs[0][0], stack + (name,))
            self.cache[name] = v
            return v
        raise EvalError("unknown name %s" % name)

    def eval(self, expr, stack=()):
        toks = []
        pos = 0
        expr = expr.strip()
        while pos < len(expr):
            m = _TOK.match(expr, pos)
            if not m or m.end() == pos:
                raise EvalError("cannot evaluate %r" % expr)
            pos = m.end()
            if m.group(1):
                toks.append(("num", m.group(1)))
            elif m.group(2):
                toks.append(("id", m.group(2)))
            elif m.group(3):
                toks.append(("op", m.group(3)))
            else:
                toks.append(("str", m.group(4)))
        if len(toks) == 1 and toks[0][0] == "str":
            return bytes(toks[0][1][1:-1], "utf-8").decode("unicode_escape")
        return self._eval_toks(toks, expr, stack)

    def _eval_toks(self, toks, expr, stack):
        out = []
        i = 0
        while i < len(toks):
            kind, t = toks[i]
            if kind == "id" and t in ("sizeof", "BIT", "BIT_ULL"):
                if i + 1 >= len(toks) or toks[i + 1] != ("op", "("):
                    raise EvalError("cannot evaluate %r" % expr)
                depth = 0
                j = i + 1
                while j < len(toks):
                    if toks[j] == ("op", "("):
                        depth += 1
                    elif toks[j] == ("op", ")"):
                        depth -= 1
                        if depth == 0:
                            break
                    j += 1
                inner = toks[i + 2:j]
                if t == "sizeof":
                    key = " ".join(x for _, x in inner)
                    if key not in SIZEOF:
                        raise EvalError("unknown sizeof(%s) in %r" % (key, expr))
                    v = SIZEOF[key]
                else:
                    v = 1 << self._eval_toks(inner, expr, stack)
                out.append("(%d)" % v)
                i = j + 1
                continue
            if kind == "id":
                v = self.value(t, stack)
                if not isinstance(v, int):
                    raise EvalError("%s is not a number in %r" % (t, expr))
                out.append("(%d)" % v)
            elif kind == "num":
                out.append(str(int(t, 8) if re.match(r"^0[0-7]+$", t) else int(t, 0)))
            elif kind == "op":
                out.append("//" if t == "/" else t)
            else:
                raise EvalError("cannot evaluate %r" % expr)
            i += 1
        try:
            return int(eval("".join(out), {"__builtins__": {}}, {}))  # digits and operators only
        except Exception:
            raise EvalError("cannot evaluate %r" % expr)


class CFile:
    def __init__(self, root, rel):
        self.rel = rel
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            self.raw = f.read()
        self.text = strip_comments(self.raw)
        self.defines = parse_defines(self.text)
        self.enums = parse_enums(self.text)


def enum_layer(cfile, ev, rep):
    """Compute the enum values of a C file: name -> [(str(value), line)], and
    name -> (value or None, line, ctype) for reporting."""
    layer = {}
    info = {}
    ev.layers.insert(0, (cfile.rel + " enums", layer))
    for ctype, items, _ in cfile.enums:
        v = -1
        for name, expr, line in items:
            try:
                if expr is not None:
                    v = ev.eval(expr)
                elif v is not None:
                    v += 1
            except EvalError as e:
                rep.problem(cfile.rel, "line %d: %s: %s" % (line, name, e))
                v = None
            if v is not None:
                layer[name] = [(str(v), line)]
            info[name] = (v, line, ctype)
    ev.cache.clear()
    return info


# -------------------------------------------------------------- the spec

class Attr:
    def __init__(self, aset, y, value):
        self.set = aset
        self.name = y["name"]
        self.y = y
        self.value = value
        self.type = y.get("type")
        self.checks = dict(y.get("checks") or {})
        self.nested = y.get("nested-attributes")
        self.enum = y.get("enum")
        self.doc = y.get("doc") or ""
        self.cname = None


class AttrSet:
    def __init__(self, y):
        self.y = y
        self.name = y["name"]
        self.subset_of = y.get("subset-of")
        self.attrs = {}  # name -> Attr, in order


class Spec:
    """The C names and values a YNL spec implies, following ynl-gen-c."""

    def __init__(self, y, rep):
        self.y = y
        self.rep = rep
        self.family = y["name"]
        self.ident = self.family.replace("-", "_")
        self.names = {}       # C name -> (value, what it is)
        self.groups = []      # (ctype, entry names, extra names, what)
        self.consts = {}      # spec const name -> (C name, value)
        self.enums = {}       # spec enum name -> {"entries": [(name, cname, value)], ...}
        self.sets = {}        # name -> AttrSet
        self.attr_by_cname = {}
        self.set_prefix = {}  # C prefix -> set name
        self.ops = []         # dicts
        self._family()
        self._definitions()
        self._attr_sets()
        self._operations()
        self._mcast()
        self._request_reply()

    def add(self, cname, value, what):
        if cname in self.names:
            self.rep.problem(SPEC, "%s is implied twice: by %s and by %s" % (
                cname, self.names[cname][1], what))
            return
        self.names[cname] = (value, what)

    def _family(self):
        y = self.y
        fam_key = c_upper(y.get("c-family-name", self.family + "-family-name"))
        ver_key = c_upper(y.get("c-version-name", self.family + "-family-version"))
        self.add(fam_key, self.family, "the family name")
        self.add(ver_key, y.get("version", 1), "the family version")

    def _definitions(self):
        for d in self.y.get("definitions") or []:
            name = d["name"]
            if d["type"] == "const":
                cname = c_upper(d.get("name-prefix", self.ident + "-") + name)
                value = d["value"]
                self.consts[name] = (cname, value)
                if "header" not in d:
                    self.add(cname, value, "const %s" % name)
                continue
            prefix = d.get("name-prefix", "%s-%s-" % (self.ident, name))
            v = d.get("value-start", 0)
            entries = []
            for i, e in enumerate(d.get("entries") or []):
                e = {"name": e} if isinstance(e, str) else e
                if "value" in e:
                    v = e["value"]
                elif i:
                    v += 1
                user = (1 << v) if d["type"] == "flags" else v
                entries.append((e["name"], c_upper(prefix + e["name"]), user))
            info = {"entries": entries, "type": d["type"], "prefix": prefix}
            self.enums[name] = info
            if "header" in d:
                continue
            for ename, cname, user in entries:
                self.add(cname, user, "enum %s entry %s" % (name, ename))
            extra = []
            if d.get("render-max"):
                if d["type"] == "flags":
                    mname = c_upper(d.get("enum-max-name", prefix + "mask"))
                    mask = 0
                    for _, _, user in entries:
                        mask |= user
                    self.add(mname, mask, "enum %s mask" % name)
                    extra = [mname]
                else:
                    m = RENDER_MAX_DOC_RE.search(d.get("doc") or "")
                    cnt = c_upper(d.get("enum-cnt-name", m.group(1) if m else "__" + prefix + "max"))
                    mname = c_upper(d.get("enum-max-name", m.group(2) if m else prefix + "max"))
                    last = entries[-1][2] if entries else -1
                    self.add(cnt, last + 1, "enum %s count (render-max)" % name)
                    self.add(mname, last, "enum %s max (render-max)" % name)
                    extra = [cnt, mname]
            if "enum-name" in d:
                ctype = c_lower(d["enum-name"]) if d["enum-name"] else None
            else:
                ctype = c_lower("%s-%s" % (self.ident, name))
            self.groups.append((ctype, [c for _, c, _ in entries], extra, "enum %s" % name))

    def _attr_sets(self):
        max_by_define = self.y.get("max-by-define", False)
        for s in self.y.get("attribute-sets") or []:
            aset = AttrSet(s)
            self.sets[aset.name] = aset
        for aset in self.sets.values():
            s = aset.y
            if aset.subset_of:
                parent = self.sets.get(aset.subset_of)
                if not self.rep.check(parent is not None, SPEC, "attribute-set %s: subset-of unknown set %s" % (
                        aset.name, aset.subset_of)):
                    continue
                for a in s.get("attributes") or []:
                    pa = next((x for x in parent.y.get("attributes") or [] if x["name"] == a["name"]), None)
                    if not self.rep.check(pa is not None, SPEC, "attribute-set %s: %s is not an attribute of %s" % (
                            aset.name, a["name"], parent.name)):
                        continue
                    merged = dict(pa)
                    merged.update(a)
                    attr = Attr(aset, merged, None)
                    aset.attrs[attr.name] = attr
                continue
            if "name-prefix" in s:
                prefix = s["name-prefix"]
            elif aset.name == self.family:
                prefix = self.ident + "-a-"
            else:
                prefix = "%s-a-%s-" % (self.ident, aset.name)
            aset.prefix = c_upper(prefix)
            self.set_prefix[aset.prefix] = aset.name
            val = 1
            names = []
            for a in s.get("attributes") or []:
                if "value" in a:
                    val = a["value"]
                attr = Attr(aset, a, val)
                attr.cname = c_upper(prefix + a["name"])
                aset.attrs[attr.name] = attr
                self.attr_by_cname[attr.cname] = attr
                self.add(attr.cname, val, "attribute %s of set %s" % (a["name"], aset.name))
                names.append(attr.cname)
                val += 1
            cnt = c_upper(s.get("attr-cnt-name", "__" + prefix + "max"))
            mname = c_upper(s.get("attr-max-name", prefix + "max"))
            aset.max_name = mname
            self.add(cnt, val, "set %s count" % aset.name)
            self.add(mname, val - 1, "set %s max" % aset.name + (" (max-by-define)" if max_by_define else ""))
            ctype = c_lower(s["enum-name"]) if s.get("enum-name") else None
            self.groups.append((ctype, names, [cnt, mname], "attribute-set %s" % aset.name))
        # references
        for aset in self.sets.values():
            for a in aset.attrs.values():
                if a.nested:
                    self.rep.check(a.nested in self.sets, SPEC, "attribute %s.%s: nested-attributes %s is not a set" % (
                        aset.name, a.name, a.nested))
                if a.enum:
                    self.rep.check(a.enum in self.enums, SPEC, "attribute %s.%s: enum %s is not defined" % (
                        aset.name, a.name, a.enum))
                for k in ("max-len", "min-len", "exact-len", "min", "max"):
                    if k in a.checks:
                        try:
                            self.limit(a.checks[k])
                        except ValueError as e:
                            self.rep.problem(SPEC, "attribute %s.%s: checks %s: %s" % (aset.name, a.name, k, e))

    def full_set(self, name):
        s = self.sets[name]
        return self.sets[s.subset_of] if s.subset_of else s

    def _operations(self):
        ops = self.y.get("operations") or {}
        prefix = ops.get("name-prefix", self.family + "-cmd-")
        val = 1
        names = []
        for o in ops.get("list") or []:
            if "value" in o:
                val = o["value"]
            cname = c_upper(prefix + o["name"])
            self.add(cname, val, "operation %s" % o["name"])
            names.append(cname)
            op = {"name": o["name"], "cname": cname, "value": val, "y": o,
                  "flags": list(o.get("flags") or []), "set": o.get("attribute-set"),
                  "dont-validate": list(o.get("dont-validate") or [])}
            for mode in ("do", "dump"):
                if mode in o:
                    sub = o[mode] or {}
                    op[mode] = {
                        "request": list(((sub.get("request") or {}).get("attributes")) or []),
                        "reply": list(((sub.get("reply") or {}).get("attributes")) or []),
                    }
            self.ops.append(op)
            val += 1
        cnt = c_upper(self.y.get("cmd-cnt-name", "__" + prefix + "max"))
        mname = c_upper(self.y.get("cmd-max-name", prefix + "max"))
        self.add(cnt, val, "operations count")
        self.add(mname, val - 1, "operations max")
        ctype = c_lower(ops["enum-name"]) if ops.get("enum-name") else None
        self.groups.append((ctype, names, [cnt, mname], "operations"))
        for op in self.ops:
            if op["set"] is None:
                continue
            if not self.rep.check(op["set"] in self.sets, SPEC, "operation %s: attribute-set %s is not defined" % (
                    op["name"], op["set"])):
                op["set"] = None
                continue
            for mode in ("do", "dump"):
                for part in ("request", "reply"):
                    for a in op.get(mode, {}).get(part, []):
                        self.rep.check(a in self.sets[op["set"]].attrs, SPEC,
                                       "operation %s: %s %s attribute %s is not in set %s" % (
                                           op["name"], mode, part, a, op["set"]))

    def _mcast(self):
        for g in (self.y.get("mcast-groups") or {}).get("list") or []:
            cname = c_upper(g.get("c-define-name", "%s-mcgrp-%s" % (self.ident, g["name"])))
            self.add(cname, g["name"], "multicast group %s" % g["name"])

    def _request_reply(self):
        self.requested = {}   # set -> attribute names in some request
        self.replied = {}
        for op in self.ops:
            if not op["set"]:
                continue
            for mode in ("do", "dump"):
                sub = op.get(mode, {})
                self.requested.setdefault(op["set"], set()).update(sub.get("request", []))
                self.replied.setdefault(op["set"], set()).update(sub.get("reply", []))

    def output_only(self, attr):
        if OUTPUT_ONLY_RE.search(attr.doc):
            return True
        sname = attr.set.name
        if sname in self.requested:
            return attr.name not in self.requested[sname] and attr.name in self.replied.get(sname, ())
        return False

    def limit(self, v):
        """A checks value: int, const name, "const - 1", or "u16-max"-style."""
        if isinstance(v, int):
            return v
        s = str(v).strip()
        m = re.match(r"^([su])(8|16|32|64)-(min|max)$", s)
        if m:
            bits = int(m.group(2))
            if m.group(1) == "u":
                return 0 if m.group(3) == "min" else (1 << bits) - 1
            return -(1 << (bits - 1)) if m.group(3) == "min" else (1 << (bits - 1)) - 1
        m = re.match(r"^([\w-]+?)(?:\s*-\s*(\d+))?$", s)
        if m and m.group(1) in self.consts:
            base = self.consts[m.group(1)][1]
            if isinstance(base, int):
                return base - int(m.group(2) or 0)
        if re.match(r"^\d+$", s):
            return int(s)
        raise ValueError("cannot resolve %r" % v)

    def attrs_of(self, set_name):
        return [a for a in self.sets[set_name].attrs.values() if a.type not in ("unused", "pad")]

    def effective(self, attr):
        """Kernel-side checks as YNL generates them: dict with some of
        type, max_len, min_len, exact_len, min, max."""
        t = attr.type
        c = attr.checks
        eff = {"type": t}
        if t in SCALARS or t in ("uint", "sint"):
            lo = self.limit(c["min"]) if "min" in c else None
            hi = self.limit(c["max"]) if "max" in c else None
            if attr.enum in self.enums and self.enums[attr.enum]["type"] == "enum":
                vals = [v for _, _, v in self.enums[attr.enum]["entries"]]
                if vals and max(vals) - min(vals) + 1 == len(vals):
                    if lo is None and (min(vals) != 0 or t[0] == "s"):
                        lo = min(vals)
                    if hi is None:
                        hi = max(vals)
            bits = SCALARS.get(t, 64)
            signed = t[0] == "s"
            if lo is not None and not signed and lo == 0:
                lo = None
            if lo is not None and signed and lo == -(1 << (bits - 1)):
                lo = None
            if hi is not None and hi == ((1 << (bits - 1)) - 1 if signed else (1 << bits) - 1):
                hi = None
            eff["min"], eff["max"] = lo, hi
        elif t in ("string", "binary"):
            for k in ("max-len", "min-len", "exact-len"):
                eff[k.replace("-", "_")] = self.limit(c[k]) if k in c else None
        return eff


def check_limit_comments(rep, spec, text):
    """A literal limit in `checks` followed by "# CONST" (or "# CONST - 1")
    must equal that const of the definitions."""
    for n, line in enumerate(text.split("\n"), 1):
        m = LIMIT_COMMENT_RE.match(line)
        if not m:
            continue
        key, lit, const = m.groups()
        try:
            want = spec.limit(const)
        except ValueError:
            rep.problem(SPEC, "line %d: %s: the comment names %r, no const of the definitions" % (n, key, const))
            continue
        try:
            have = spec.limit(lit)
        except ValueError:
            have = lit
        rep.check(have == want, SPEC, "line %d: %s: %s, but %s (its comment) is %s" % (n, key, lit, const, want))


# -------------------------------------------------------------- the schema
#
# The spec is validated against the kernel's own JSON schema of the
# protocol it declares (Documentation/netlink/PROTOCOL.yaml), as YNL does.
# The schema comes from a Debian package, never from this tree: SCHEMA_PKG
# installed, else its schema files cached in CACHE/SCHEMA_PKG/, else fetched
# once with `apt-get download` (about 40 MB; only the few netlink schema
# files are kept, the .deb is deleted). CACHE: $KLB_SCHEMA_CACHE, else
# /var/cache/klb/netlink-schema where writable (root: it outlives the clone,
# so CI on a machine it ran on before fetches nothing), else out/netlink-schema.

SCHEMA_PKG = "linux-doc-6.12"
SCHEMA_DIR = "usr/share/doc/%s/Documentation/netlink"
TOOL_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def schema_caches():
    if os.environ.get("KLB_SCHEMA_CACHE"):
        return [os.environ["KLB_SCHEMA_CACHE"]]
    return ["/var/cache/klb/netlink-schema", os.path.join(TOOL_ROOT, "out", "netlink-schema")]


def writable_cache():
    for d in schema_caches():
        try:
            os.makedirs(d, exist_ok=True)
        except OSError:
            continue
        if os.access(d, os.W_OK):
            return d
    return None


def fetch_schemas(pkg, dest):
    """Download pkg, keep its Documentation/netlink/*.yaml in dest.
    Returns None, or why it could not."""
    if not shutil.which("apt-get") or not shutil.which("dpkg-deb"):
        return "apt-get or dpkg-deb not found (not a Debian system?)"
    base = os.path.dirname(dest)
    os.makedirs(base, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".fetch-", dir=base)
    try:
        t0 = time.monotonic()
        cmd = ["apt-get", "download", "-q", pkg]
        r = subprocess.run(cmd, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
        if r.returncode and os.geteuid() == 0:
            # a fresh machine may have no package lists yet
            subprocess.run(["apt-get", "update", "-qq"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            r = subprocess.run(cmd, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True)
        debs = glob.glob(os.path.join(tmp, "*.deb"))
        if r.returncode or not debs:
            last = [x for x in r.stdout.strip().split("\n") if x.strip()][-1:] or ["no output"]
            return "`apt-get download %s` failed (exit %d): %s" % (pkg, r.returncode, last[0])
        deb = debs[0]
        size = os.path.getsize(deb)
        version = subprocess.run(["dpkg-deb", "-f", deb, "Version"], stdout=subprocess.PIPE,
                                 universal_newlines=True).stdout.strip()
        inner = "./" + SCHEMA_DIR % pkg
        dpkg = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", deb], stdout=subprocess.PIPE)
        tar = subprocess.run(["tar", "-x", "-C", tmp, "--wildcards", inner + "/*.yaml.gz"], stdin=dpkg.stdout,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        dpkg.stdout.close()
        dpkg.wait()
        os.unlink(deb)
        src = os.path.join(tmp, inner)
        names = sorted(glob.glob(os.path.join(src, "*.yaml.gz")))
        if tar.returncode or not names:
            return "%s %s has no %s/*.yaml.gz: %s" % (pkg, version, inner, tar.stdout.strip()[:200])
        out = os.path.join(tmp, "schemas")
        os.makedirs(out)
        for n in names:
            with gzip.open(n, "rb") as fi, open(os.path.join(out, os.path.basename(n)[:-3]), "wb") as fo:
                fo.write(fi.read())
        with open(os.path.join(out, "VERSION"), "w") as fh:
            fh.write("%s %s\n" % (pkg, version))
        try:
            os.rename(out, dest)
        except OSError:
            if not os.path.exists(os.path.join(dest, "VERSION")):
                raise
        print("spec_check: schema: fetched %s %s (%.1f MB) in %.1f s; its netlink schemas kept in %s" % (
            pkg, version, size / 1e6, time.monotonic() - t0, dest), flush=True)
        return None
    except OSError as e:
        return "fetching %s: %s" % (pkg, e)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def find_schema(proto):
    """(path or None if the package has no schema for proto, the package it
    is from, None) or (None, None, why the package could not be had)."""
    pkg = os.environ.get("KLB_SCHEMA_PKG") or SCHEMA_PKG
    fname = proto + ".yaml"
    inst = "/" + SCHEMA_DIR % pkg
    if os.path.isdir(inst):
        for cand in (os.path.join(inst, fname), os.path.join(inst, fname + ".gz")):
            if os.path.exists(cand):
                return cand, "installed %s" % pkg, None
        return None, "installed %s" % pkg, None
    dest = next((os.path.join(d, pkg) for d in schema_caches()
                 if os.path.exists(os.path.join(d, pkg, "VERSION"))), None)
    if dest is None:
        base = writable_cache()
        if base is None:
            return None, None, "no writable cache directory (%s)" % " nor ".join(schema_caches())
        dest = os.path.join(base, pkg)
        why = fetch_schemas(pkg, dest)
        if why:
            return None, None, why
    with open(os.path.join(dest, "VERSION")) as fh:
        origin = fh.read().strip()
    path = os.path.join(dest, fname)
    return (path if os.path.exists(path) else None), origin, None


def schema_skip(why):
    """Say loudly that the schema part did not run; the rest goes on."""
    Report.skip("schema validation: %s" % why)
    bar = "!" * 76
    sys.stderr.write("%s\nspec_check: WARNING: %s was NOT validated against the kernel's netlink schema:\n"
                     "spec_check: WARNING: %s\n%s\n" % (bar, SPEC, why, bar))
    sys.stderr.flush()


def schema_where(y, path):
    """A readable location of a schema error: list items by their name."""
    out = []
    node = y
    for p in path:
        if isinstance(node, list) and isinstance(p, int) and p < len(node):
            node = node[p]
            nm = node.get("name") if isinstance(node, dict) else None
            out.append("[%s]" % nm if nm else "[%d]" % p)
        else:
            node = node.get(p) if isinstance(node, dict) else None
            out.append(("." if out else "") + str(p))
    return "".join(out) or "(top level)"


def check_schema(rep, y, schema_file=None):
    proto = y.get("protocol", "genetlink") if isinstance(y, dict) else "genetlink"
    try:
        import jsonschema
    except ImportError:
        schema_skip("python3-jsonschema is not installed (tools/deps.sh installs it)")
        return
    if schema_file:
        path, origin = schema_file, schema_file
    else:
        path, origin, why = find_schema(str(proto))
        if why:
            schema_skip(why)
            return
        if not rep.check(path is not None, SPEC, "protocol: %s: the kernel has no schema %s.yaml (%s)" % (
                proto, proto, origin)):
            return
    try:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as fh:
            schema = yaml.safe_load(fh)
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft7Validator)
        cls.check_schema(schema)
    except (OSError, yaml.YAMLError, jsonschema.exceptions.SchemaError) as e:
        schema_skip("cannot read the schema %s: %s" % (path, str(e).split("\n")[0]))
        return
    errors = sorted(cls(schema).iter_errors(y), key=lambda e: [str(x) for x in e.absolute_path])
    label = re.sub(r"\.yaml(\.gz)?$", "", os.path.basename(path))
    print("spec_check: schema: %s (protocol %s) against %s.yaml of %s" % (SPEC, proto, label, origin), flush=True)
    rep.checks += 1
    for e in errors:
        rep.problem(SPEC, "schema %s: %s: %s" % (label, schema_where(y, e.absolute_path), e.message))


def check_protocol(rep, y):
    proto = y.get("protocol", "genetlink")
    if proto != "genetlink":
        return
    used = [k for k in GENETLINK_C_KEYS["family"] if k in y]
    for part in ("definitions", "attribute-sets"):
        for k in GENETLINK_C_KEYS[part]:
            if any(k in x for x in y.get(part) or []):
                used.append(k)
    rep.check(not used, SPEC, "protocol genetlink does not allow the genetlink-c keys it uses (%s): "
              "set protocol: genetlink-c" % ", ".join(used))


# -------------------------------------------------------------- the header

def check_header(rep, spec, root):
    h = CFile(root, UAPI)
    ev = Evaluator([(UAPI, h.defines)])
    info = enum_layer(h, ev, rep)
    hnames = {}  # name -> (value or EvalError, line, kind, ctype)
    for name, (v, line, ctype) in info.items():
        hnames[name] = (v, line, "enum", ctype)
    for name, exprs in h.defines.items():
        if not exprs[-1][0]:
            continue  # include guard and the like
        try:
            v = ev.value(name)
        except EvalError as e:
            v = e
        hnames[name] = (v, exprs[0][1], "define", None)

    for cname, (value, what) in spec.names.items():
        if not rep.check(cname in hnames, UAPI, "%s (%s) is in the spec but not in the header" % (cname, what)):
            continue
        hv, line, _, _ = hnames[cname]
        if isinstance(hv, EvalError):
            rep.problem(UAPI, "line %d: %s: %s" % (line, cname, hv))
            continue
        if isinstance(value, str) and not isinstance(hv, str):
            try:
                value = spec_value(spec, value)
            except EvalError:
                pass
        rep.check(hv == value, UAPI, "line %d: %s is %r, the spec (%s) says %r" % (line, cname, hv, what, value))
    for name, (hv, line, kind, _) in sorted(hnames.items(), key=lambda x: x[1][1]):
        rep.check(name in spec.names, UAPI, "line %d: %s (%s) is not in the spec" % (
            line, name, "enum entry" if kind == "enum" else "#define"))
    # consts must be #defines
    for cname, _ in spec.consts.values():
        if cname in hnames:
            rep.check(hnames[cname][2] == "define", UAPI, "line %d: %s is a const of the spec's definitions "
                      "but an enum entry in the header" % (hnames[cname][1], cname))
    # each C name in the enum type the spec names
    for ctype, entries, extra, what in spec.groups:
        if not ctype:
            continue
        henum = next((e for e in h.enums if e[0] == ctype), None)
        if not rep.check(henum is not None, UAPI, "no enum %s (%s)" % (ctype, what)):
            continue
        members = {n for n, _, _ in henum[1]}
        for c in entries:
            if c in hnames:
                rep.check(c in members, UAPI, "%s (%s) is not in enum %s" % (c, what, ctype))
        allowed = set(entries) | set(extra)
        for n, _, line in henum[1]:
            if n in spec.names:
                rep.check(n in allowed, UAPI, "line %d: %s is in enum %s, the spec puts it in %s" % (
                    line, n, ctype, spec.names[n][1]))
    return h, ev


def spec_value(spec, expr):
    """A string const value of the spec, as an expression over spec names."""
    return Evaluator([("spec", {n: [(str(v) if isinstance(v, int) else v, "spec")]
                                for n, (v, _) in spec.names.items()})]).eval(expr)


# -------------------------------------------------------------- attrs.c

# attrs.c type name (without T_) -> (spec type, byte length or None)
ATYPES = {"STR": ("string", None), "STRING": ("string", None), "U8": ("u8", None),
          "U16": ("u16", None), "U32": ("u32", None), "U64": ("u64", None),
          "S8": ("s8", None), "S16": ("s16", None), "S32": ("s32", None), "S64": ("s64", None),
          "ADDR4": ("binary", 4), "ADDR6": ("binary", 16), "BIN": ("binary", None),
          "BINARY": ("binary", None), "NEST": ("nest", None), "FLAG": ("flag", None)}
HINT_LEN = {"ipv4": 4, "ipv6": 16, "mac": 6}


def attr_len(spec, attr):
    if "exact-len" in attr.checks:
        return spec.limit(attr.checks["exact-len"])
    return HINT_LEN.get(attr.y.get("display-hint"))


def check_attrs_c(rep, spec, root):
    f = CFile(root, ATTRS)
    t = f.text
    types = None
    for ctype, items, _ in f.enums:
        if items and all(n.startswith("T_") for n, _, _ in items):
            types = {n for n, _, _ in items}
    if not rep.check(types is not None, ATTRS, "no enum of T_* attribute types"):
        return
    for n in sorted(types):
        rep.check(n[2:] in ATYPES, ATTRS, "attribute type %s: no spec type known for it" % n)

    tables = {}   # array -> [(cname, label, type, nest, line)]
    for m in re.finditer(r"\bstruct\s+adesc\s+(\w+)\s*\[\s*\]\s*=\s*\{", t):
        start = m.end() - 1
        end = match_close(t, start)
        rows = []
        for piece, off in split_top(t[start + 1:end], start + 1):
            e = re.match(r'^\[\s*(\w+)\s*\]\s*=\s*\{\s*("(?:\\.|[^"\\])*"|NULL)\s*,\s*(\w+)\s*,\s*(&?\s*\w+)\s*\}$', piece, re.S)
            if not rep.check(e is not None, ATTRS, "line %d: cannot parse table entry %r" % (
                    line_of(t, off), piece[:60])):
                continue
            rows.append((e.group(1), e.group(2), e.group(3), e.group(4).replace(" ", ""), line_of(t, off)))
        tables[m.group(1)] = rows
    spaces = {}   # space var -> array
    for m in re.finditer(r"\bstruct\s+aspace\s+(\w+)\s*=\s*SPACE\s*\(\s*(?:\"(?:\\.|[^\"\\])*\"|NULL)\s*,\s*(\w+)\s*\)", t):
        spaces[m.group(1)] = m.group(2)
        rep.check(m.group(2) in tables, ATTRS, "space %s: no table %s" % (m.group(1), m.group(2)))

    # which spec set each table describes (from the enum prefix of its indices)
    table_set = {}
    for arr, rows in tables.items():
        sets = set()
        for cname, label, typ, nest, line in rows:
            a = spec.attr_by_cname.get(cname)
            if rep.check(a is not None, ATTRS, "line %d: %s: %s is not an attribute in the spec" % (line, arr, cname)):
                sets.add(a.set.name)
        if rep.check(len(sets) <= 1, ATTRS, "%s mixes attributes of sets %s" % (arr, ", ".join(sorted(sets)))) and sets:
            table_set[arr] = sets.pop()

    expected = {}  # arr -> set of spec (sub)set names it stands for
    referenced = set()
    for arr, rows in tables.items():
        for cname, label, typ, nest, line in rows:
            a = spec.attr_by_cname.get(cname)
            if a is None:
                continue
            where = "line %d: %s[%s]" % (line, arr, cname)
            kind = ATYPES.get(typ[2:]) if typ in types else None
            if not rep.check(kind is not None, ATTRS, "%s: unknown type %s" % (where, typ)):
                continue
            stype, slen = kind
            ok = a.type == stype
            if ok and slen is not None:
                ok = attr_len(spec, a) == slen
            rep.check(ok, ATTRS, "%s: type %s, the spec says %s%s" % (
                where, typ, a.type, "" if attr_len(spec, a) is None else " of %d bytes" % attr_len(spec, a)))
            if nest == "NULL":
                if a.type == "nest" and a.nested:
                    rep.check(spec.output_only(a), ATTRS, "%s: nest without a table, but the spec's %s.%s "
                              "is not output only" % (where, a.set.name, a.name))
                continue
            sp = nest.lstrip("&")
            target = spaces.get(sp)
            if not rep.check(target is not None, ATTRS, "%s: nest %s is not a space" % (where, sp)):
                continue
            referenced.add(target)
            if not rep.check(a.type == "nest" and a.nested, ATTRS, "%s: has a nested table but the spec's %s is "
                             "not a nest" % (where, a.name)):
                continue
            want = spec.full_set(a.nested).name
            if rep.check(table_set.get(target) == want, ATTRS, "%s: nest %s describes set %s, the spec nests %s" % (
                    where, sp, table_set.get(target), a.nested)):
                expected.setdefault(target, set()).add(a.nested)
    for arr in tables:
        if arr not in referenced and arr in table_set:
            expected.setdefault(arr, set()).add(table_set[arr])
    # completeness: every attribute of each set a table stands for
    for arr, names in expected.items():
        have = {r[0] for r in tables[arr]}
        for sname in sorted(names):
            for a in spec.attrs_of(sname):
                cname = spec.full_set(sname).attrs[a.name].cname
                rep.check(cname in have, ATTRS, "%s lacks %s (attribute %s of set %s)" % (arr, cname, a.name, sname))
    # the top-level set of the operations has a table
    for sname in sorted({op["set"] for op in spec.ops if op["set"]}):
        rep.check(sname in table_set.values(), ATTRS, "no table for set %s" % sname)

    # command names
    for m in re.finditer(r"\bconst\s+char\s*\*\s*const\s+(\w+)\s*\[\s*\]\s*=\s*\{", t):
        start = m.end() - 1
        end = match_close(t, start)
        rows = re.findall(r'\[\s*(\w+)\s*\]\s*=\s*"([^"]*)"', t[start:end])
        if not rows or not all(r[0].startswith("KLB_CMD_") or r[0] in spec.names for r in rows):
            continue
        have = {}
        for cname, label in rows:
            op = next((o for o in spec.ops if o["cname"] == cname), None)
            if rep.check(op is not None, ATTRS, "%s: %s is not an operation in the spec" % (m.group(1), cname)):
                rep.check(label == c_lower(op["name"]), ATTRS, "%s[%s] is \"%s\", the spec names it %s" % (
                    m.group(1), cname, label, op["name"]))
            have[cname] = label
        for op in spec.ops:
            if "do" in op or "dump" in op:
                rep.check(op["cname"] in have, ATTRS, "%s lacks %s" % (m.group(1), op["cname"]))


# -------------------------------------------------------------- klb_nl.py

def check_nlpy(rep, spec, root):
    with open(os.path.join(root, NLPY), encoding="utf-8") as fh:
        text = fh.read()

    def short(c):
        return c.replace("KLB_", "", 1)
    allnames = {short(c) for c in spec.names}
    attrs = {short(c) for c in spec.attr_by_cname}
    cmds = {short(o["cname"]) for o in spec.ops}
    seen = set()

    def need(kind, name, pos, universe, what):
        if (kind, name) in seen:
            return
        seen.add((kind, name))
        rep.check(name in universe, NLPY, "line %d: %s %s is not in the spec" % (line_of(text, pos), what, name))

    # wrappers: def rstr(t, v): return s("RULE_A_" + t, v)
    wrappers = {}
    for m in re.finditer(r'^def\s+(\w+)\(\s*(\w+)\s*,[^)]*\):\s*\n'
                         r'(?:\s*(?:"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"[^"\n]*")\s*\n)?'
                         r'\s*return\s+\w+\(\s*["\'](\w+)["\']\s*\+\s*\2\s*[,)]', text, re.M):
        wrappers[m.group(1)] = m.group(3)
    # typed helpers: def u8(t, v), def nest(t, attrs, ...), ...
    helpers = set(re.findall(r"^def\s+(\w+)\(\s*t\s*,", text, re.M)) - set(wrappers)
    spans = []
    for m in re.finditer(r"\b(\w+)\(\s*([\"'])(\w+)\2(?!\s*\+)", text):
        fn, name = m.group(1), m.group(3)
        if fn in wrappers:
            need("attr", wrappers[fn] + name, m.start(), attrs, "attribute (%s)" % fn)
        elif fn in helpers:
            need("attr", name, m.start(), attrs, "attribute (%s)" % fn)
        else:
            continue
        spans.append((m.start(3), m.end(3)))
    for m in re.finditer(r"\bE(?:\[\s*|\.get\(\s*)([\"'])(\w+)\1", text):
        need("name", m.group(2), m.start(), allnames, "name")
        spans.append((m.start(2), m.end(2)))
    for m in re.finditer(r"([\"'])([A-Z][A-Z0-9_]*)\1", text):
        if any(a <= m.start(2) < b for a, b in spans):
            continue
        name = m.group(2)
        if name.startswith("CMD_"):
            need("cmd", name, m.start(), cmds, "command")
        elif re.match(r"^(?:[A-Z0-9]+_)*A_[A-Z0-9_]+$", name):
            need("attr", name, m.start(), attrs, "attribute")


# -------------------------------------------------------------- kernel

def first_existing(root, rels, pattern):
    """The first of rels that exists; else the files under kmod/ that match
    pattern (the files move around while kmod/ is restructured); else []."""
    for r in rels:
        if os.path.exists(os.path.join(root, r)):
            return [r]
    found = []
    for d, dirs, names in sorted(os.walk(os.path.join(root, "kmod"))):
        dirs.sort()
        for n in sorted(names):
            if n.endswith(".c"):
                p = os.path.join(d, n)
                with open(p, encoding="utf-8", errors="replace") as fh:
                    if re.search(pattern, strip_comments(fh.read())):
                        found.append(os.path.relpath(p, root))
    return found


def kernel_evaluator(root, files, uapi_ev):
    """Defines of the policy/ops files, then the uapi header, then every
    header under kmod/ (a fallback: where a define lives moves around)."""
    layers = [(f.rel, f.defines) for f in files]
    layers += uapi_ev.layers
    kh = {}
    for d, _, names in sorted(os.walk(os.path.join(root, "kmod"))):
        for n in sorted(names):
            if n.endswith(".h"):
                p = os.path.join(d, n)
                try:
                    with open(p, encoding="utf-8", errors="replace") as fh:
                        for k, v in parse_defines(strip_comments(fh.read())).items():
                            kh.setdefault(k, []).extend((e, "%s:%s" % (os.path.relpath(p, root), ln)) for e, ln in v)
                except OSError:
                    pass
    layers.append(("kmod headers", kh))
    return Evaluator(layers)


def parse_init(body, base):
    """Designated initializer body -> {field: (value, offset)}."""
    out = {}
    for piece, off in split_top(body, base):
        m = re.match(r"^\.(\w+)\s*=\s*(.*)$", piece, re.S)
        if m:
            out[m.group(1)] = (" ".join(m.group(2).split()), off)
    return out


class PolicyEntry:
    def __init__(self):
        self.type = None
        self.min = self.max = None
        self.max_len = self.min_len = self.exact_len = None
        self.nested = None
        self.validate_fn = False
        self.error = None


def parse_policy_value(v, ev, ranges):
    e = PolicyEntry()
    v = " ".join(v.split())

    def num(x):
        return ev.eval(x)
    try:
        m = re.match(r"^(NLA_POLICY_\w+)\s*\((.*)\)$", v)
        if m:
            macro = m.group(1)
            args = [a for a, _ in split_top(m.group(2))]
            if macro in ("NLA_POLICY_EXACT_LEN", "NLA_POLICY_EXACT_LEN_WARN"):
                e.type, e.exact_len = "NLA_BINARY", num(args[0])
            elif macro == "NLA_POLICY_MIN_LEN":
                e.type, e.min_len = "NLA_BINARY", num(args[0])
            elif macro == "NLA_POLICY_MAX_LEN":
                e.type, e.max_len = "NLA_BINARY", num(args[0])
            elif macro in ("NLA_POLICY_NESTED", "NLA_POLICY_NESTED_ARRAY"):
                e.type = "NLA_NESTED" if macro == "NLA_POLICY_NESTED" else "NLA_NESTED_ARRAY"
                e.nested = args[0].lstrip("&").strip()
            elif macro == "NLA_POLICY_MIN":
                e.type, e.min = args[0], num(args[1])
            elif macro == "NLA_POLICY_MAX":
                e.type, e.max = args[0], num(args[1])
            elif macro == "NLA_POLICY_RANGE":
                e.type, e.min, e.max = args[0], num(args[1]), num(args[2])
            elif macro in ("NLA_POLICY_FULL_RANGE", "NLA_POLICY_FULL_RANGE_SIGNED"):
                e.type = args[0]
                r = ranges.get(args[1].lstrip("&").strip())
                if r is None:
                    raise EvalError("unknown range %s" % args[1])
                e.min = num(r["min"][0]) if "min" in r else 0
                e.max = num(r["max"][0]) if "max" in r else None
            elif macro == "NLA_POLICY_VALIDATE_FN":
                e.type, e.validate_fn = args[0], True
            elif macro == "NLA_POLICY_ETH_ADDR":
                e.type, e.exact_len = "NLA_BINARY", 6
            else:
                e.type = macro
            return e
        m = re.match(r"^\{(.*)\}$", v, re.S)
        if m:
            f = parse_init(m.group(1), 0)
            e.type = f["type"][0] if "type" in f else "NLA_UNSPEC"
            if "len" in f:
                ln = num(f["len"][0])
                if e.type in ("NLA_NUL_STRING", "NLA_STRING", "NLA_BINARY"):
                    e.max_len = ln
                elif e.type == "NLA_UNSPEC":
                    e.min_len = ln
            if "nested_policy" in f:
                e.nested = f["nested_policy"][0].lstrip("&").strip()
            if "min" in f:
                e.min = num(f["min"][0])
            if "max" in f:
                e.max = num(f["max"][0])
            return e
        e.error = "cannot parse %r" % v
    except (EvalError, IndexError, KeyError) as x:
        e.error = str(x)
    return e


def find_arrays(cfile, struct):
    """[(name, size expr, body, body offset)] of `struct STRUCT name[...] = {...}`."""
    t = cfile.text
    out = []
    for m in re.finditer(r"\bstruct\s+%s\s+(\w+)\s*\[([^\]]*)\]\s*(?:__\w+\s*)*=\s*\{" % struct, t):
        start = m.end() - 1
        end = match_close(t, start)
        if end > 0:
            out.append((m.group(1), m.group(2).strip(), t[start + 1:end], start + 1))
    return out


def range_cnames(rep, spec, ev, rel, line, policy, first, last):
    """The attribute C names a range designator [FIRST ... LAST] covers:
    those of the set FIRST's (or LAST's) names belong to, by value."""
    where = "line %d: %s[%s ... %s]" % (line, policy, first, last)
    sets = {spec.attr_by_cname[n].set for n in re.findall(r"[A-Za-z_]\w*", first + " " + last)
            if n in spec.attr_by_cname}
    if not rep.check(len(sets) == 1, rel, "%s: cannot tell which attribute-set it covers" % where):
        return []
    try:
        lo, hi = ev.eval(first), ev.eval(last)
    except EvalError as x:
        rep.problem(rel, "%s: %s" % (where, x))
        return []
    by_value = {a.value: a.cname for a in sets.pop().attrs.values()}
    out = []
    for v in range(lo, hi + 1):
        if rep.check(v in by_value, rel, "%s: value %d is no attribute of the set" % (where, v)):
            out.append(by_value[v])
    return out


POLICY_RE = r"\bstruct\s+nla_policy\s+\w+\s*\[[^\]]*\]\s*=\s*\{"
OPS_RE = r"\bstruct\s+genl_(?:small_|split_)?ops\s+\w+\s*\[[^\]]*\]\s*=\s*\{"


def check_policies(rep, spec, root, uapi_ev, ops_files):
    rels = first_existing(root, POLICY_FILES, POLICY_RE)
    if not rels:
        Report.skip("kernel policies: neither %s exists, nor any kmod/ file with an nla_policy "
                    "table" % " nor ".join(POLICY_FILES))
        return
    rel = rels[0]
    files = [CFile(root, r) for r in rels]
    files += [f for f in ops_files if f.rel not in rels]
    ops_file = ops_files[0].rel if ops_files else None
    ev = kernel_evaluator(root, files, uapi_ev)
    ranges = {}
    for f in files:
        for m in re.finditer(r"\bstruct\s+netlink_range_validation(?:_signed)?\s+(\w+)(?:\s+__\w+)*\s*=\s*\{([^}]*)\}", f.text):
            ranges[m.group(1)] = parse_init(m.group(2), 0)

    policies = {}  # name -> dict
    for f in files:
        for name, size, body, off in find_arrays(f, "nla_policy"):
            entries = {}
            for piece, poff in split_top(body, off):
                line = line_of(f.text, poff)
                m = re.match(r"^\[\s*([^\]]*?)\s*\.\.\.\s*([^\]]*?)\s*\]\s*=\s*(.*)$", piece, re.S)
                if m:
                    # a range designator: [FIRST ... LAST] = one entry for each
                    e = parse_policy_value(m.group(3), ev, ranges)
                    for cname in range_cnames(rep, spec, ev, f.rel, line, name, m.group(1), m.group(2)):
                        entries[cname] = (e, line)
                    continue
                m = re.match(r"^\[\s*(\w+)\s*\]\s*=\s*(.*)$", piece, re.S)
                if not rep.check(m is not None, f.rel, "line %d: %s: cannot parse entry %r" % (line, name, piece[:60])):
                    continue
                entries[m.group(1)] = (parse_policy_value(m.group(2), ev, ranges), line)
            policies[name] = {"file": f.rel, "size": size, "entries": entries,
                              "line": line_of(f.text, off)}
    if not policies:
        rep.problem(rel, "no nla_policy arrays found")
        return

    # which set each policy covers: the enum prefix of its indices or size
    for name, p in policies.items():
        sets = set()
        for cname in list(p["entries"]) + re.findall(r"[A-Za-z_]\w*", p["size"]):
            a = spec.attr_by_cname.get(cname)
            if a:
                sets.add(a.set.name)
            else:
                for aset in spec.sets.values():
                    if getattr(aset, "max_name", None) == cname:
                        sets.add(aset.name)
        p["set"] = None
        if rep.check(len(sets) == 1, p["file"], "line %d: %s: cannot tell which attribute-set it covers (%s)" % (
                p["line"], name, ", ".join(sorted(sets)) or "no known attribute")):
            p["set"] = sets.pop()

    # the ops table, for per-op / family policies
    fam_policy = None
    op_policy = {}   # policy -> [(op name, modes)], one per ops entry using it
    for of in ops_files:
        for m in re.finditer(r"\bstruct\s+genl_family\s+\w+[^=;{]*=\s*\{", of.text):
            end = match_close(of.text, m.end() - 1)
            fields = parse_init(of.text[m.end():end], m.end())
            if "policy" in fields:
                fam_policy = fields["policy"][0].lstrip("&").strip()
                ops_file = of.rel
    for of in ops_files:
        for entry in ops_entries(of):
            f = entry["fields"]
            if "policy" not in f or "cmd" not in f:
                continue
            op = next((o for o in spec.ops if o["cname"] == f["cmd"][0]), None)
            if op is None:
                continue
            modes = frozenset(m for m, k in (("do", "doit"), ("dump", "dumpit")) if k in f and m in op)
            if modes:
                op_policy.setdefault(f["policy"][0].lstrip("&").strip(), []).append((op["name"], modes))
    top_sets = {o["set"] for o in spec.ops if o["set"]}
    fam = c_lower(spec.ident)
    for name, p in policies.items():
        if p["set"] not in top_sets or name in op_policy or name == fam_policy:
            continue
        for o in spec.ops:
            for mode in ("do", "dump"):
                if mode not in o:
                    continue
                base = "%s_%s" % (fam, c_lower(o["name"]))
                names = {base + s for s in ("_policy", "_nl_policy", "_%s_policy" % mode, "_%s_nl_policy" % mode)}
                if name in names:
                    op_policy.setdefault(name, []).append((o["name"], frozenset([mode])))
    per_op = bool(op_policy)
    want_model = spec.y.get("kernel-policy", "split")
    if fam_policy and fam_policy in policies:
        rep.check(want_model == "global", ops_file, "the family has one policy for every op (%s), the spec "
                  "says kernel-policy: %s" % (fam_policy, want_model))
    elif per_op:
        rep.check(want_model in ("per-op", "split"), ops_file or rel, "the kernel has per-op policies, the spec "
                  "says kernel-policy: %s" % want_model)

    # what each policy should accept: [{what, attrs, strict, complete}]
    #   strict: an accepted attribute not in attrs is a problem even if
    #   output only; complete: every attribute in attrs must be accepted
    expect = {}
    covered = set()
    for name, uses in op_policy.items():
        for oname, modes in uses:
            o = next(x for x in spec.ops if x["name"] == oname)
            want = set()
            for mode in modes:
                want.update(o[mode]["request"])
                covered.add((oname, mode))
            expect.setdefault(name, []).append({
                "what": "the request of %s %s" % (oname, "/".join(sorted(modes))),
                "attrs": want, "strict": True, "complete": True})
    if fam_policy in policies and policies[fam_policy]["set"] and fam_policy not in op_policy:
        expect[fam_policy] = [{"what": "the request of any operation", "strict": True, "complete": True,
                               "attrs": set(spec.requested.get(policies[fam_policy]["set"], ()))}]
    nested_from = {}
    referrers = {}   # nested policy -> [(policy, attribute)] that nest it
    for name, p in policies.items():
        for cname, (e, line) in p["entries"].items():
            a = spec.attr_by_cname.get(cname)
            if e.nested and a is not None and a.nested:
                nested_from.setdefault(e.nested, set()).add(a.nested)
                referrers.setdefault(e.nested, []).append((name, a))
    # Output-only policies: nested only by output-only attributes (or by
    # other output-only policies). Such a nest in a request is refused
    # attribute by attribute (NLA_REJECT with klb's message: an NLA_REJECT
    # on the nest itself loses to the core's NLA_F_NESTED check), so each
    # attribute of the set must be NLA_REJECT or a nest into another
    # output-only policy.
    out_only = set()
    grew = True
    while grew:
        grew = False
        for name, refs in referrers.items():
            if name in policies and name not in out_only and \
                    all(pn in out_only or spec.output_only(a) for pn, a in refs):
                out_only.add(name)
                grew = True
    for name in out_only:
        p = policies[name]
        if not p["set"]:
            continue
        expect[name] = [{"what": "set %s, nested here only by output-only attributes (%s)" % (
                             p["set"], ", ".join(sorted({"%s.%s" % (a.set.name, a.name)
                                                         for _, a in referrers[name]}))),
                         "attrs": set(), "strict": True, "complete": False}]
        for a in spec.attrs_of(p["set"]):
            rep.check(a.cname in p["entries"], p["file"], "line %d: %s lacks %s (output only there, "
                      "it should be refused with a message)" % (p["line"], name, a.cname))
    for name, p in policies.items():
        if name in expect or not p["set"]:
            continue
        if p["set"] in top_sets and not nested_from.get(name):
            # a top-level policy no ops entry (or name) ties to an op:
            # each attribute it takes must be in some request
            expect[name] = [{"what": "the request of any operation", "strict": True, "complete": False,
                             "attrs": set(spec.requested.get(p["set"], ()))}]
            continue
        subs = nested_from.get(name) or {p["set"]}
        want = set()
        for s in subs:
            if s in spec.sets and spec.full_set(s).name == p["set"]:
                want.update(a.name for a in spec.attrs_of(s) if not spec.output_only(spec.full_set(s).attrs[a.name]))
        expect[name] = [{"what": "set %s" % "/".join(sorted(subs)), "attrs": want, "strict": False,
                         "complete": True}]

    for name, p in sorted(policies.items(), key=lambda x: (x[1]["file"], x[1]["line"])):
        if not p["set"]:
            continue
        aset = spec.sets[p["set"]]
        path = p["file"]
        for cname, (e, line) in p["entries"].items():
            where = "line %d: %s[%s]" % (line, name, cname)
            if e.error:
                rep.problem(path, "%s: %s" % (where, e.error))
                continue
            a = spec.attr_by_cname.get(cname)
            if not rep.check(a is not None and a.set is aset, path, "%s: not an attribute of set %s" % (
                    where, aset.name)):
                continue
            if name in out_only:
                rep.check(e.type == "NLA_REJECT" or e.nested in out_only, path,
                          "%s: accepted, but every attribute of %s is output only there: NLA_REJECT "
                          "(or a nest into an output-only policy) expected" % (where, expect[name][0]["what"]))
                if e.type != "NLA_REJECT":
                    compare_entry(rep, spec, path, where, a, e, policies)
                continue
            if e.type == "NLA_REJECT" and a.type == "nest":
                rep.problem(path, "%s: NLA_REJECT on a nest: the core answers a nest (NLA_F_NESTED) "
                            "with \"NLA_F_NESTED not expected\", never the reject message; make it a "
                            "nest into a policy that rejects each attribute" % where)
            for item in expect[name]:
                if e.type == "NLA_REJECT":
                    rep.check(spec.output_only(a) or a.name not in item["attrs"], path,
                              "%s: NLA_REJECT, but %s is in %s" % (where, a.name, item["what"]))
                else:
                    rep.check(a.name in item["attrs"] or (not item["strict"] and spec.output_only(a)), path,
                              "%s: accepted, but %s is not in %s" % (where, a.name, item["what"]))
            if e.type != "NLA_REJECT":
                compare_entry(rep, spec, path, where, a, e, policies)
        for item in expect[name]:
            if not item["complete"]:
                continue
            for aname in sorted(item["attrs"]):
                a = aset.attrs.get(aname)
                if a is None or a.type in ("unused", "pad"):
                    continue
                rep.check(a.cname in p["entries"], path, "line %d: %s lacks %s (%s is in %s)" % (
                    p["line"], name, a.cname, aname, item["what"]))
    if per_op:
        for o in spec.ops:
            for mode in ("do", "dump"):
                if o.get(mode, {}).get("request"):
                    rep.check((o["name"], mode) in covered, ops_file or rel,
                              "no policy for %s %s (its request carries %s)" % (
                                  o["name"], mode, ", ".join(o[mode]["request"])))


def compare_entry(rep, spec, path, where, a, e, policies):
    try:
        eff = spec.effective(a)
    except ValueError as x:
        rep.problem(SPEC, "attribute %s.%s: %s" % (a.set.name, a.name, x))
        return
    t = a.type
    if t == "nest":
        ok = e.type in ("NLA_NESTED", "NLA_NESTED_ARRAY")
        rep.check(ok, path, "%s: %s, the spec says nest" % (where, e.type))
        if not ok:
            return
        if rep.check(e.nested is not None, path, "%s: no nested policy, the spec nests set %s" % (where, a.nested)):
            np = policies.get(e.nested)
            if rep.check(np is not None, path, "%s: nested policy %s is not in this file" % (where, e.nested)) and a.nested:
                rep.check(np["set"] == spec.full_set(a.nested).name, path,
                          "%s: nested policy %s covers set %s, the spec nests %s" % (
                              where, e.nested, np["set"], a.nested))
        return
    want = SPEC_TO_NLA.get(t)
    if a.y.get("byte-order") == "big-endian" and t in ("u16", "u32"):
        want = "NLA_BE%s" % t[1:]
    if not rep.check(e.type == want, path, "%s: %s, the spec says %s (%s)" % (where, e.type, t, want)):
        return
    if t in ("string", "binary"):
        for k, label in (("max_len", "max-len"), ("min_len", "min-len"), ("exact_len", "exact-len")):
            sv, kv = eff.get(k), getattr(e, k)
            rep.check(sv == kv, path, "%s: %s %s, the spec says %s" % (
                where, label, "none" if kv is None else kv, "none" if sv is None else sv))
        return
    if e.type in NLA_BITS:
        bits, signed = NLA_BITS[e.type]
        lo, hi = e.min, e.max
        if lo is not None and ((not signed and lo == 0) or (signed and lo == -(1 << (bits - 1)))):
            lo = None
        if hi is not None and hi == ((1 << (bits - 1)) - 1 if signed else (1 << bits) - 1):
            hi = None
        if e.validate_fn:
            return  # checked by a function: nothing to compare
        for label, sv, kv in (("min", eff.get("min"), lo), ("max", eff.get("max"), hi)):
            why = ""
            if label == "max" and a.enum and "max" not in a.checks:
                why = " (from enum %s)" % a.enum
            rep.check(sv == kv, path, "%s: %s %s, the spec says %s%s" % (
                where, label, "none" if kv is None else kv, "none" if sv is None else sv, why))


def ops_entries(f):
    out = []
    for struct in ("genl_ops", "genl_small_ops", "genl_split_ops"):
        for name, size, body, off in find_arrays(f, struct):
            for piece, poff in split_top(body, off):
                if piece.startswith("{") and piece.endswith("}"):
                    out.append({"array": name, "line": line_of(f.text, poff), "file": f.rel,
                                "fields": parse_init(piece[1:-1], poff + 1)})
    return out


def check_ops(rep, spec, root):
    rels = first_existing(root, OPS_FILES, OPS_RE)
    if not rels:
        Report.skip("kernel ops table: neither %s exists, nor any kmod/ file with a genl_ops "
                    "table" % " nor ".join(OPS_FILES))
        return []
    rel = rels[0]
    files = [CFile(root, r) for r in rels]
    entries = [e for f in files for e in ops_entries(f)]
    if not rep.check(bool(entries), rel, "no genl_ops / genl_small_ops / genl_split_ops table"):
        return files
    by_cmd = {}
    for e in entries:
        if "cmd" not in e["fields"]:
            rep.problem(e["file"], "line %d: %s entry without .cmd" % (e["line"], e["array"]))
            continue
        by_cmd.setdefault(e["fields"]["cmd"][0], []).append(e)
    known = {o["cname"] for o in spec.ops}
    for cmd, es in by_cmd.items():
        rep.check(cmd in known, es[0]["file"], "line %d: %s is not an operation in the spec" % (es[0]["line"], cmd))
    for o in spec.ops:
        if "do" not in o and "dump" not in o:
            if o["cname"] in by_cmd:
                rep.problem(by_cmd[o["cname"]][0]["file"], "line %d: %s has an entry, the spec has no do or dump" % (
                    by_cmd[o["cname"]][0]["line"], o["cname"]))
            continue
        es = by_cmd.get(o["cname"])
        if not rep.check(es is not None, rel, "no entry for %s (operation %s)" % (o["cname"], o["name"])):
            continue
        line = es[0]["line"]
        rel = es[0]["file"]
        fields = {}
        flags = set()
        for e in es:
            fields.update(e["fields"])
            if "flags" in e["fields"]:
                flags.update(x.strip() for x in e["fields"]["flags"][0].split("|"))
        rep.check(("doit" in fields) == ("do" in o), rel, "line %d: %s: %s .doit, the spec %s do" % (
            line, o["cname"], "has" if "doit" in fields else "no", "has" if "do" in o else "has no"))
        rep.check(("dumpit" in fields) == ("dump" in o), rel, "line %d: %s: %s .dumpit, the spec %s dump" % (
            line, o["cname"], "has" if "dumpit" in fields else "no", "has" if "dump" in o else "has no"))
        perms = {"admin-perm": "GENL_ADMIN_PERM", "uns-admin-perm": "GENL_UNS_ADMIN_PERM"}
        want = {k for y_, k in perms.items() if y_ in o["flags"]}
        have = flags & set(perms.values())
        rep.check(want == have, rel, "line %d: %s: .flags has %s, the spec says %s (%s)" % (
            line, o["cname"], " | ".join(sorted(have)) or "no permission flag",
            ("flags: [%s]" % ", ".join(o["flags"])) if o["flags"] else "no flags",
            " | ".join(sorted(want)) or "open to every user"))
        vflags = set()
        if "validate" in fields:
            vflags = {x.strip() for x in fields["validate"][0].split("|")}
        for yv, kv in (("strict", "GENL_DONT_VALIDATE_STRICT"), ("dump", "GENL_DONT_VALIDATE_DUMP"),
                       ("dump-strict", "GENL_DONT_VALIDATE_DUMP_STRICT")):
            rep.check((yv in o["dont-validate"]) == (kv in vflags), rel, "line %d: %s: %s %s, the spec %s "
                      "dont-validate %s" % (line, o["cname"], kv, "set" if kv in vflags else "not set",
                                            "has" if yv in o["dont-validate"] else "has no", yv))
    return files


# -------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description="Check that the klb netlink API descriptions agree with the spec.")
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                    help="the tree to check (default: this script's tree)")
    ap.add_argument("--no-kernel", action="store_true", help="skip the kernel policies and ops table")
    ap.add_argument("--schema", metavar="FILE", help="validate against this schema file, not the kernel's "
                    "schema of the declared protocol from Debian's %s" % SCHEMA_PKG)
    ap.add_argument("--no-schema", action="store_true", help="skip the schema validation")
    args = ap.parse_args()
    root = args.root
    rep = Report()

    try:
        with open(os.path.join(root, SPEC), encoding="utf-8") as fh:
            text = fh.read()
        y = yaml.safe_load(text)
    except (OSError, yaml.YAMLError) as e:
        rep.problem(SPEC, "cannot read the spec: %s" % e)
        print("spec_check: %d checks, %d problems" % (rep.checks, rep.problems))
        return 1
    if args.no_schema:
        Report.skip("schema validation (--no-schema)")
    else:
        check_schema(rep, y, args.schema)
    check_protocol(rep, y)
    spec = Spec(y, rep)
    check_limit_comments(rep, spec, text)

    uapi_ev = Evaluator([])
    for rel, fn in ((UAPI, None), (ATTRS, check_attrs_c), (NLPY, check_nlpy)):
        if not rep.check(os.path.exists(os.path.join(root, rel)), rel, "missing"):
            continue
        if rel == UAPI:
            _, uapi_ev = check_header(rep, spec, root)
        else:
            fn(rep, spec, root)
    if args.no_kernel:
        Report.skip("kernel policies and ops table (--no-kernel)")
    else:
        ops_files = check_ops(rep, spec, root)
        check_policies(rep, spec, root, uapi_ev, ops_files)
    print("spec_check: %d checks, %d problems" % (rep.checks, rep.problems))
    return 1 if rep.problems else 0


if __name__ == "__main__":
    sys.exit(main())
