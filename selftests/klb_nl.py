#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A tiny generic netlink client for the klb selftests: sends hand-crafted
(malformed) requests to the "klb" family and checks what the kernel answers.

  klb_nl.py cases [--save-cmd "klbctl save"] [--only SUBSTR] [--no-l7]
      run the built-in table of bad requests (--no-l7: not those that need
      the http and tls services of the base configuration); for each print
      one line
        PASS|FAIL <description> | errno NAME, extack "<message>"[, problem]
      A case passes when the kernel refuses it with one of the expected errnos,
      gives an extack message (where one is due; the very message where the
      case names it), and the output of the save command is byte-identical
      before and after. Exit 1 if any case failed.
  klb_nl.py send CMD 'ATTRS'
      send one request; ATTRS is a Python expression over the helpers below
      (e.g. "[nest('A_POOL', [s('POOL_A_NAME', 'x'), u8('POOL_A_SCHED', 9)])]");
      prints the errno and extack message.
  klb_nl.py dump CMD ['ATTRS']
      dump (NLM_F_DUMP), the request carrying ATTRS (as for send), and print
      the errno, the extack message, the number of messages received and
      the names of the pools or services in them.
  klb_nl.py ctrl-latency STOPFILE
      ask nlctrl for a family (CTRL_CMD_GETFAMILY "nlctrl": a request that
      takes the genetlink mutex) in a loop until STOPFILE exists; print
      "requests N max_ms M": how long another generic netlink user waited.
  klb_nl.py own-messages TAG N
      N failing requests (POOL_DEL of pool TAG<i>, which does not exist);
      print "requests N foreign M" where M counts the extack messages that
      were not "pool TAG<i> does not exist" (another request's, or torn);
      and the first of them.

  klb_nl.py txn-bad-input N
      restore transactions refused, one line PASS|FAIL each: STAGE, COMMIT
      and ABORT without BEGIN, with an unknown id or without one; another
      socket's transaction; a bad object in the 3rd STAGE (the transaction
      is dead after it); a hash seed after a pool; past the open
      transaction limit; and a child process that stages N pools and N
      services and exits without COMMIT (its socket's close drops them).
      Exit 1 if any case failed. The caller checks the live configuration.

Enum values are read from include/uapi/linux/klb.h (so a renumbering there
does not break the test). Names: CMD_POOL_NEW, A_POOL, POOL_A_NAME, ... i.e.
the header's names without the KLB_ prefix.
"""
import errno
import os
import re
import socket
import struct
import subprocess
import sys

NETLINK_GENERIC = 16
SOL_NETLINK = 270
NETLINK_CAP_ACK = 10
NETLINK_EXT_ACK = 11
NLM_F_REQUEST = 0x1
NLM_F_MULTI = 0x2
NLM_F_ACK = 0x4
NLM_F_DUMP = 0x300
NLM_F_ACK_TLVS = 0x200
NLMSG_ERROR = 2
NLMSG_DONE = 3
NLA_F_NESTED = 0x8000
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
NLMSGERR_ATTR_MSG = 1
NLMSGERR_ATTR_OFFS = 2

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = os.environ.get("KLB_UAPI", os.path.join(HERE, "..", "include", "uapi", "linux", "klb.h"))


def load_enums(path):
    """Map NAME (without KLB_) -> value for every enum in the header."""
    text = open(path).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    vals = {}
    for body in re.findall(r"enum\s+\w+\s*\{(.*?)\}", text, flags=re.S):
        v = -1
        for item in body.split(","):
            item = item.strip()
            if not item:
                continue
            if "=" in item:
                name, expr = [x.strip() for x in item.split("=", 1)]
                v = int(expr, 0) if re.match(r"^(0x)?[0-9a-fA-F]+$", expr) else vals[expr.replace("KLB_", "", 1)]
            else:
                name = item
                v += 1
            vals[name.replace("KLB_", "", 1)] = v
    for name, val in re.findall(r"#define\s+KLB_(\w+)\s+(\d+)", text):
        vals.setdefault(name, int(val))
    for name, last in re.findall(r"#define\s+KLB_(\w+)\s+\(__KLB_(\w+)\s*-\s*1\)", text):
        vals.setdefault(name, vals["__" + last] - 1)
    return vals


E = load_enums(HEADER)


def _t(t):
    return E[t] if isinstance(t, str) else t


def attr(t, payload, nested=False):
    t = _t(t) | (NLA_F_NESTED if nested else 0)
    hdr = struct.pack("=HH", 4 + len(payload), t)
    pad = b"\0" * ((4 - len(payload) % 4) % 4)
    return hdr + payload + pad


def s(t, v):
    """NUL-terminated string"""
    return attr(t, v.encode() + b"\0")


def raw(t, b):
    return attr(t, b)


def u8(t, v):
    return attr(t, struct.pack("=B", v))


def u16(t, v):
    return attr(t, struct.pack("=H", v))


def u32(t, v):
    return attr(t, struct.pack("=I", v))


def u64(t, v):
    return attr(t, struct.pack("=Q", v))


def a4(t, a):
    return attr(t, socket.inet_pton(socket.AF_INET, a))


def a6(t, a):
    return attr(t, socket.inet_pton(socket.AF_INET6, a))


def nest(t, attrs, flag=True):
    return attr(t, b"".join(attrs), nested=flag)


class Genl:
    def __init__(self, family="klb"):
        self.sk = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
        self.sk.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.sk.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
        self.sk.bind((0, 0))
        self.seq = 1
        self.fam = None
        err, msg, replies = self.request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                                         [s(CTRL_ATTR_FAMILY_NAME, family)], version=1)
        if err:
            raise OSError(err, "family %s: %s" % (family, msg))
        for payload in replies:
            for t, v in parse_attrs(payload[4:]):
                if t == CTRL_ATTR_FAMILY_ID:
                    self.fam = struct.unpack("=H", v[:2])[0]
        if self.fam is None:
            raise OSError(errno.ENOENT, "no family id")

    def request(self, ftype, cmd, attrs, flags=NLM_F_ACK, version=None, raw_payload=None):
        """Returns (errno (positive, 0 on success), extack message, [genl payloads])."""
        ver = E.get("GENL_VERSION", 1) if version is None else version
        payload = struct.pack("=BBH", cmd, ver, 0) + b"".join(attrs)
        if raw_payload is not None:
            payload = raw_payload
        self.seq += 1
        hdr = struct.pack("=IHHII", 16 + len(payload), ftype, NLM_F_REQUEST | flags, self.seq, 0)
        self.sk.send(hdr + payload)
        replies = []
        while True:
            data = self.sk.recv(1 << 20)
            off = 0
            while off + 16 <= len(data):
                ln, typ, fl, seq, _ = struct.unpack_from("=IHHII", data, off)
                body = data[off + 16: off + ln]
                off += (ln + 3) & ~3
                if seq != self.seq:
                    continue
                if typ == NLMSG_ERROR:
                    err = -struct.unpack_from("=i", body)[0]
                    msg = ""
                    if fl & NLM_F_ACK_TLVS:
                        # error code + original header (NETLINK_CAP_ACK: no payload)
                        inner_len = struct.unpack_from("=I", body, 4)[0]
                        tlv_off = 4 + (16 if fl & 0x100 else ((inner_len + 3) & ~3))
                        for t, v in parse_attrs(body[tlv_off:]):
                            if t == NLMSGERR_ATTR_MSG:
                                msg = v.rstrip(b"\0").decode(errors="replace")
                    return err, msg, replies
                if typ == NLMSG_DONE:
                    # a dump reports its error here: an int, then extack TLVs
                    err = -struct.unpack_from("=i", body)[0] if len(body) >= 4 else 0
                    msg = ""
                    if err and fl & NLM_F_ACK_TLVS:
                        for t, v in parse_attrs(body[4:]):
                            if t == NLMSGERR_ATTR_MSG:
                                msg = v.rstrip(b"\0").decode(errors="replace")
                    return err, msg, replies
                replies.append(body)
                if not (fl & NLM_F_MULTI) and not (flags & NLM_F_ACK):
                    return 0, "", replies

    def do(self, cmd, attrs, **kw):
        return self.request(self.fam, _t(cmd), attrs, **kw)


def parse_attrs(b):
    out = []
    off = 0
    while off + 4 <= len(b):
        ln, t = struct.unpack_from("=HH", b, off)
        if ln < 4:
            break
        out.append((t & 0x3FFF, b[off + 4: off + ln]))
        off += (ln + 3) & ~3
    return out


def ename(e):
    return errno.errorcode.get(e, str(e)) if e else "0 (accepted)"


# ---- the table of bad requests ------------------------------------------------
# The configuration the shell test sets up before running these:
#   pool web  (wrr) backends 10.0.1.11:80, 10.0.1.12:80; service web  10.0.100.1:80/tcp -> web
#   pool web6 (rr)  backend  [fd01::11]:80;               service web6 [fd00:100::1]:80/tcp -> web6
#   pool spare (rr) no backends, unused
# and, unless --no-l7:
#   pool api (wrr) no backends;  service h 10.0.100.1:8080/tcp mode http -> web,
#     rule 0: host a.example.com -> api;  service t 10.0.100.1:8443/tcp mode tls -> web
POL = "A_POOL"
SVC = "A_SERVICE"
INVAL = {"EINVAL", "ERANGE"}


def pool(*attrs, flag=True):
    return [nest(POL, list(attrs), flag)]


def svc(*attrs, flag=True):
    return [nest(SVC, list(attrs), flag)]


def name(v):
    return s("POOL_A_NAME", v)


def be4(addr="10.0.1.13", port=80, *extra):
    return nest("POOL_A_BACKEND", [a4("BACKEND_A_ADDR4", addr), u16("BACKEND_A_PORT", port)] + list(extra))


def svc_ok(nm="new", vip="10.0.100.9", port=80, proto=6, mode=0, pl="spare", skip=()):
    parts = {
        "name": s("SERVICE_A_NAME", nm),
        "addr": a4("SERVICE_A_ADDR4", vip) if ":" not in vip else a6("SERVICE_A_ADDR6", vip),
        "port": u16("SERVICE_A_PORT", port),
        "proto": u8("SERVICE_A_PROTO", proto),
        "mode": u8("SERVICE_A_MODE", mode),
        "pool": s("SERVICE_A_POOL", pl),
    }
    return [v for k, v in parts.items() if k not in skip]


def rule(*attrs, flag=True):
    return [nest("A_RULE", list(attrs), flag)]


def rstr(t, v):
    return s("RULE_A_" + t, v)


def rsvc(v):
    return s("RULE_A_SERVICE", v)


def rpool(v):
    return s("RULE_A_POOL", v)


def cases(l7=True):
    c = []

    def add(desc, cmd, attrs, expect, need_msg=True, flags=NLM_F_ACK, msg=None):
        c.append((desc, cmd, attrs, set(expect), need_msg, flags, msg))

    # missing attributes
    add("pool new without KLB_A_POOL", "CMD_POOL_NEW", [], INVAL)
    add("pool new without name", "CMD_POOL_NEW", pool(u8("POOL_A_SCHED", 1)), INVAL)
    add("pool set without sched", "CMD_POOL_SET", pool(name("web")), INVAL)
    add("pool del without name", "CMD_POOL_DEL", pool(), INVAL)
    add("backend new without backend nest", "CMD_BACKEND_NEW", pool(name("spare")), INVAL)
    add("backend new without address", "CMD_BACKEND_NEW",
        pool(name("spare"), nest("POOL_A_BACKEND", [u16("BACKEND_A_PORT", 80)])), INVAL)
    add("backend new without port", "CMD_BACKEND_NEW",
        pool(name("spare"), nest("POOL_A_BACKEND", [a4("BACKEND_A_ADDR4", "10.0.1.13")])), INVAL)
    add("backend new with both ADDR4 and ADDR6", "CMD_BACKEND_NEW",
        pool(name("spare"), nest("POOL_A_BACKEND", [a4("BACKEND_A_ADDR4", "10.0.1.13"),
                                                     a6("BACKEND_A_ADDR6", "fd01::13"),
                                                     u16("BACKEND_A_PORT", 80)])), INVAL)
    add("backend del without pool name", "CMD_BACKEND_DEL",
        pool(nest("POOL_A_BACKEND", [a4("BACKEND_A_ADDR4", "10.0.1.11"), u16("BACKEND_A_PORT", 80)])), INVAL)
    for missing in ("name", "addr", "port", "proto", "mode", "pool"):
        add("service new without %s" % missing, "CMD_SERVICE_NEW", svc(*svc_ok(skip=(missing,))), INVAL)
    add("service del without name", "CMD_SERVICE_DEL", svc(), INVAL)
    add("service new with both ADDR4 and ADDR6", "CMD_SERVICE_NEW",
        svc(*svc_ok(), a6("SERVICE_A_ADDR6", "fd00:100::9")), INVAL)
    # wrong types and lengths
    add("nest without NLA_F_NESTED", "CMD_POOL_NEW", pool(name("x1"), flag=False), INVAL)
    add("name not NUL-terminated", "CMD_POOL_NEW", pool(raw("POOL_A_NAME", b"abcd")), INVAL)
    add("name as u32", "CMD_POOL_NEW", pool(u32("POOL_A_NAME", 0x41414141)), INVAL)
    add("empty name", "CMD_POOL_NEW", pool(name("")), INVAL)
    add("sched as string", "CMD_POOL_NEW", pool(name("x2"), s("POOL_A_SCHED", "rr")), INVAL)
    add("sched as u32", "CMD_POOL_NEW", pool(name("x3"), u32("POOL_A_SCHED", 0)), INVAL)
    add("port as u32", "CMD_BACKEND_NEW",
        pool(name("spare"), nest("POOL_A_BACKEND", [a4("BACKEND_A_ADDR4", "10.0.1.13"), u32("BACKEND_A_PORT", 80)])), INVAL)
    add("port as u8", "CMD_BACKEND_NEW",
        pool(name("spare"), nest("POOL_A_BACKEND", [a4("BACKEND_A_ADDR4", "10.0.1.13"), u8("BACKEND_A_PORT", 80)])), INVAL)
    add("ADDR4 of 5 bytes", "CMD_BACKEND_NEW",
        pool(name("spare"), nest("POOL_A_BACKEND", [raw("BACKEND_A_ADDR4", b"\x0a\0\x01\x0d\0"), u16("BACKEND_A_PORT", 80)])), INVAL)
    add("ADDR4 of 3 bytes", "CMD_BACKEND_NEW",
        pool(name("spare"), nest("POOL_A_BACKEND", [raw("BACKEND_A_ADDR4", b"\x0a\0\x01"), u16("BACKEND_A_PORT", 80)])), INVAL)
    add("ADDR6 of 4 bytes", "CMD_BACKEND_NEW",
        pool(name("spare"), nest("POOL_A_BACKEND", [raw("BACKEND_A_ADDR6", b"\xfd\x01\0\0"), u16("BACKEND_A_PORT", 80)])), INVAL)
    add("weight as u16", "CMD_BACKEND_NEW", pool(name("spare"), be4("10.0.1.13", 80, u16("BACKEND_A_WEIGHT", 1))), INVAL)
    add("service ADDR6 of 15 bytes", "CMD_SERVICE_NEW",
        svc(*(svc_ok(skip=("addr",)) + [raw("SERVICE_A_ADDR6", b"\xfd" * 15)])), INVAL)
    add("service proto as u16", "CMD_SERVICE_NEW",
        svc(*(svc_ok(skip=("proto",)) + [u16("SERVICE_A_PROTO", 6)])), INVAL)
    add("unknown top-level attribute", "CMD_POOL_NEW", pool(name("x4")) + [u32(E["A_MAX"] + 1, 1)], INVAL)
    add("unknown pool attribute", "CMD_POOL_NEW", pool(name("x5"), u32(E["POOL_A_MAX"] + 1, 1)), INVAL)
    add("unknown backend attribute", "CMD_BACKEND_NEW",
        pool(name("spare"), be4("10.0.1.13", 80, u32(E["BACKEND_A_MAX"] + 1, 1))), INVAL)
    add("unknown service attribute", "CMD_SERVICE_NEW", svc(*(svc_ok() + [u32(E["SERVICE_A_MAX"] + 1, 1)])), INVAL)
    # a stats nest (NLA_F_NESTED, as every nest) gets klb's message, not the
    # core's "NLA_F_NESTED not expected"
    add("output-only attribute STATS in a request", "CMD_BACKEND_NEW",
        pool(name("spare"), be4("10.0.1.13", 80, nest("BACKEND_A_STATS", [u64("STATS_A_CONNS", 1)]))), INVAL,
        msg="backend stats are output only")
    add("output-only backend STATS holding only L7 counters", "CMD_BACKEND_SET",
        pool(name("web"), be4("10.0.1.11", 80, nest("BACKEND_A_STATS", [
            nest("STATS_A_L7", [u64("L7_STATS_A_REQUESTS", 1)])]))), INVAL, msg="backend stats are output only")
    add("unknown command", 99, [], {"EOPNOTSUPP"}, need_msg=False)
    # values out of range
    add("unknown scheduler", "CMD_POOL_NEW", pool(name("x6"), u8("POOL_A_SCHED", E["SCHED_MAX"] + 1)), INVAL)
    add("unknown scheduler 255 (set)", "CMD_POOL_SET", pool(name("web"), u8("POOL_A_SCHED", 255)), INVAL)
    add("weight 65536", "CMD_BACKEND_NEW", pool(name("spare"), be4("10.0.1.13", 80, u32("BACKEND_A_WEIGHT", 65536))), INVAL)
    add("weight 4294967295", "CMD_BACKEND_NEW",
        pool(name("spare"), be4("10.0.1.13", 80, u32("BACKEND_A_WEIGHT", 4294967295))), INVAL)
    add("weight 65536 (set)", "CMD_BACKEND_SET", pool(name("web"), be4("10.0.1.11", 80, u32("BACKEND_A_WEIGHT", 65536))), INVAL)
    add("maxconn 1000001", "CMD_BACKEND_NEW",
        pool(name("spare"), be4("10.0.1.13", 80, u32("BACKEND_A_MAXCONN", 1000001))), INVAL)
    add("maxconn 1000001 (set)", "CMD_BACKEND_SET",
        pool(name("web"), be4("10.0.1.11", 80, u32("BACKEND_A_MAXCONN", 1000001))), INVAL)
    add("maxconn as u8", "CMD_BACKEND_SET",
        pool(name("web"), be4("10.0.1.11", 80, u8("BACKEND_A_MAXCONN", 1))), INVAL)
    add("backend state 3", "CMD_BACKEND_SET",
        pool(name("web"), be4("10.0.1.11", 80, u8("BACKEND_A_STATE", E["BACKEND_STATE_MAX"] + 1))), INVAL)
    add("backend port 0", "CMD_BACKEND_NEW", pool(name("spare"), be4("10.0.1.13", 0)), INVAL)
    add("service port 0", "CMD_SERVICE_NEW", svc(*svc_ok(port=0)), INVAL)
    add("service proto 1 (icmp)", "CMD_SERVICE_NEW", svc(*svc_ok(proto=1)), INVAL | {"EPROTONOSUPPORT", "EOPNOTSUPP"})
    add("service mode 1", "CMD_SERVICE_NEW", svc(*svc_ok(mode=E["MODE_MAX"] + 1)), INVAL | {"EOPNOTSUPP"})
    add("name of 32 characters", "CMD_POOL_NEW", pool(name("a" * 32)), INVAL)
    add("name of 100 characters", "CMD_POOL_NEW", pool(name("b" * 100)), INVAL)
    add("service name of 33 characters", "CMD_SERVICE_NEW", svc(*svc_ok(nm="c" * 33)), INVAL)
    for bad in ("a b", "a/b", "a\nb", "x\u00e9", "a:b", "-", ".."):
        add("bad character in pool name %r" % bad, "CMD_POOL_NEW", pool(name(bad)),
            INVAL if bad not in ("-", "..") else INVAL | {"ACCEPTED?"})
    add("bad character in service name", "CMD_SERVICE_NEW", svc(*svc_ok(nm="web;rm")), INVAL)
    # duplicates
    add("duplicate pool", "CMD_POOL_NEW", pool(name("web")), {"EEXIST"})
    add("duplicate backend", "CMD_BACKEND_NEW", pool(name("web"), be4("10.0.1.11", 80)), {"EEXIST"})
    add("duplicate service name", "CMD_SERVICE_NEW", svc(*svc_ok(nm="web")), {"EEXIST"})
    add("duplicate VIP", "CMD_SERVICE_NEW", svc(*svc_ok(nm="other", vip="10.0.100.1")), {"EEXIST", "EADDRINUSE"})
    # unknown objects
    add("backend into unknown pool", "CMD_BACKEND_NEW", pool(name("nope"), be4()), {"ENOENT"})
    add("service with unknown pool", "CMD_SERVICE_NEW", svc(*svc_ok(pl="nope")), {"ENOENT"})
    add("delete unknown pool", "CMD_POOL_DEL", pool(name("nope")), {"ENOENT"})
    add("delete unknown backend", "CMD_BACKEND_DEL", pool(name("web"), be4("10.0.1.99", 80)), {"ENOENT"})
    add("delete unknown service", "CMD_SERVICE_DEL", svc(s("SERVICE_A_NAME", "nope")), {"ENOENT"})
    add("service set unknown pool", "CMD_SERVICE_SET", svc(s("SERVICE_A_NAME", "web"), s("SERVICE_A_POOL", "nope")), {"ENOENT"})
    add("delete pool in use", "CMD_POOL_DEL", pool(name("web")), {"EBUSY"})
    # mixed families
    fam = INVAL | {"EAFNOSUPPORT", "EPFNOSUPPORT"}
    add("v6 backend into pool of a v4 service", "CMD_BACKEND_NEW",
        pool(name("web"), nest("POOL_A_BACKEND", [a6("BACKEND_A_ADDR6", "fd01::13"), u16("BACKEND_A_PORT", 80)])), fam)
    add("v4 backend into pool of a v6 service", "CMD_BACKEND_NEW", pool(name("web6"), be4()), fam)
    add("v4 service on a v6 pool", "CMD_SERVICE_NEW", svc(*svc_ok(pl="web6")), fam)
    add("v6 service on a v4 pool", "CMD_SERVICE_NEW", svc(*svc_ok(vip="fd00:100::9", pl="web")), fam)
    add("service set: v4 service to v6 pool", "CMD_SERVICE_SET",
        svc(s("SERVICE_A_NAME", "web"), s("SERVICE_A_POOL", "web6")), fam)
    # restore: all or nothing
    cfg_pool = nest("CONFIG_A_POOL", [name("r1"), u8("POOL_A_SCHED", 0)])
    add("restore: service referencing a missing pool", "CMD_RESTORE",
        [nest("A_CONFIG", [cfg_pool, nest("CONFIG_A_SERVICE", svc_ok(nm="r", pl="missing"))])], {"ENOENT", "EINVAL"})
    add("restore: duplicate pool", "CMD_RESTORE", [nest("A_CONFIG", [cfg_pool, cfg_pool])], {"EEXIST", "EINVAL"})
    add("restore: duplicate backend", "CMD_RESTORE",
        [nest("A_CONFIG", [nest("CONFIG_A_POOL", [name("r2"), nest("POOL_A_BACKENDS", [be4(), be4()])])])],
        {"EEXIST", "EINVAL"})
    add("restore: bad scheduler in the last pool", "CMD_RESTORE",
        [nest("A_CONFIG", [cfg_pool, nest("CONFIG_A_POOL", [name("r3"), u8("POOL_A_SCHED", 200)])])], INVAL)
    add("restore: unknown attribute", "CMD_RESTORE", [nest("A_CONFIG", [cfg_pool, u32(E["CONFIG_A_MAX"] + 1, 0)])], INVAL)
    add("restore without KLB_A_CONFIG", "CMD_RESTORE", [], INVAL)
    # persistence: L4 modes only, a mask that fits the family, bounded timeout
    persist = u32("SERVICE_A_PERSIST", 10)
    add("persist on mode http", "CMD_SERVICE_NEW", svc(*(svc_ok(mode=E["MODE_HTTP"]) + [persist])), INVAL)
    add("persist mask 0", "CMD_SERVICE_NEW", svc(*(svc_ok() + [persist, u8("SERVICE_A_PERSIST_MASK", 0)])), INVAL)
    add("persist mask 33 on IPv4", "CMD_SERVICE_NEW",
        svc(*(svc_ok() + [persist, u8("SERVICE_A_PERSIST_MASK", 33)])), INVAL)
    add("persist mask 129 on IPv6", "CMD_SERVICE_NEW",
        svc(*(svc_ok(vip="fd00:100::9", pl="web6") + [persist, u8("SERVICE_A_PERSIST_MASK", 129)])), INVAL)
    add("persist over 31 days", "CMD_SERVICE_NEW",
        svc(*(svc_ok() + [u32("SERVICE_A_PERSIST", 31 * 24 * 3600 + 1)])), INVAL)
    add("persist as u16", "CMD_SERVICE_NEW", svc(*(svc_ok() + [u16("SERVICE_A_PERSIST", 10)])), INVAL)
    add("service set: persist mask 33 on IPv4", "CMD_SERVICE_SET",
        svc(s("SERVICE_A_NAME", "web"), persist, u8("SERVICE_A_PERSIST_MASK", 33)), INVAL)
    add("service set: persist mask 0", "CMD_SERVICE_SET",
        svc(s("SERVICE_A_NAME", "web"), u8("SERVICE_A_PERSIST_MASK", 0)), INVAL)
    # adopt (mid-flow packets of dr and tun): 0 or 1, on only for dr and tun tcp
    adopt_msg = "adopt needs mode dr or tun and proto tcp"
    add("adopt on for mode nat", "CMD_SERVICE_NEW", svc(*(svc_ok() + [u8("SERVICE_A_ADOPT", 1)])), INVAL,
        msg=adopt_msg + " (nat and fnat replies pin a flow to its balancer)")
    add("adopt on for dr over udp", "CMD_SERVICE_NEW",
        svc(*(svc_ok(proto=17, mode=E["MODE_DR"]) + [u8("SERVICE_A_ADOPT", 1)])), INVAL)
    add("adopt 2", "CMD_SERVICE_NEW", svc(*(svc_ok(mode=E["MODE_DR"]) + [u8("SERVICE_A_ADOPT", 2)])),
        INVAL | {"ERANGE"})
    add("adopt as u32", "CMD_SERVICE_NEW", svc(*(svc_ok(mode=E["MODE_TUN"]) + [u32("SERVICE_A_ADOPT", 1)])), INVAL)
    add("service set: adopt on for a nat service", "CMD_SERVICE_SET",
        svc(s("SERVICE_A_NAME", "web"), u8("SERVICE_A_ADOPT", 1)), INVAL)
    add("service set: adopt 255", "CMD_SERVICE_SET",
        svc(s("SERVICE_A_NAME", "web"), u8("SERVICE_A_ADOPT", 255)), INVAL | {"ERANGE"})
    add("persist get: unknown service (dump)", "CMD_PERSIST_GET", svc(s("SERVICE_A_NAME", "nope")),
        {"ENOENT"}, flags=NLM_F_DUMP)
    # a dump filtered by a name that names nothing: ENOENT, as pool get's
    add("pool get: unknown pool (dump)", "CMD_POOL_GET", pool(name("nope")),
        {"ENOENT"}, flags=NLM_F_DUMP, msg="pool nope does not exist")
    add("service get: unknown service (dump)", "CMD_SERVICE_GET", svc(s("SERVICE_A_NAME", "nope")),
        {"ENOENT"}, flags=NLM_F_DUMP, msg="service nope does not exist")

    # ---- L7 modes, PROXY protocol, rules: checks that need no L7 service
    http, tls = E["MODE_HTTP"], E["MODE_TLS"]
    add("mode http with proto udp", "CMD_SERVICE_NEW", svc(*svc_ok(proto=17, mode=http)), INVAL)
    add("mode tls with proto udp", "CMD_SERVICE_NEW", svc(*svc_ok(proto=17, mode=tls)), INVAL)
    add("proxy protocol 1", "CMD_SERVICE_NEW",
        svc(*(svc_ok(mode=http) + [u8("SERVICE_A_PROXY_PROTOCOL", 1)])), INVAL)
    add("proxy protocol 3", "CMD_SERVICE_NEW",
        svc(*(svc_ok(mode=http) + [u8("SERVICE_A_PROXY_PROTOCOL", 3)])), INVAL)
    add("proxy protocol 2 on mode nat", "CMD_SERVICE_NEW",
        svc(*(svc_ok() + [u8("SERVICE_A_PROXY_PROTOCOL", 2)])), INVAL)
    # (mode tls takes it since the header goes before the ClientHello)
    add("proxy protocol 2 on mode dr", "CMD_SERVICE_NEW",
        svc(*(svc_ok(mode=E["MODE_DR"]) + [u8("SERVICE_A_PROXY_PROTOCOL", 2)])), INVAL)
    add("proxy protocol as u32", "CMD_SERVICE_NEW",
        svc(*(svc_ok(mode=http) + [u32("SERVICE_A_PROXY_PROTOCOL", 2)])), INVAL)
    add("output-only NRULES in service new", "CMD_SERVICE_NEW",
        svc(*(svc_ok(mode=http) + [u32("SERVICE_A_NRULES", 1)])), INVAL)
    add("output-only NHOSTS in service new", "CMD_SERVICE_NEW",
        svc(*(svc_ok(mode=http) + [u32("SERVICE_A_NHOSTS", 1)])), INVAL)
    svc_stats = "service stats are output only"
    add("output-only STATS in service new", "CMD_SERVICE_NEW",
        svc(*(svc_ok() + [nest("SERVICE_A_STATS", [u64("STATS_A_CONNS", 1)])])), INVAL, msg=svc_stats)
    add("output-only STATS in service set", "CMD_SERVICE_SET",
        svc(s("SERVICE_A_NAME", "web"), nest("SERVICE_A_STATS", [u64("STATS_A_DROP_NO_BACKEND", 0)])), INVAL,
        msg=svc_stats)
    add("output-only STATS holding only L7 counters in service new", "CMD_SERVICE_NEW",
        svc(*(svc_ok() + [nest("SERVICE_A_STATS", [nest("STATS_A_L7", [u64("L7_STATS_A_REQUESTS", 1)])])])),
        INVAL, msg=svc_stats)
    add("output-only STATS in a restored service", "CMD_RESTORE",
        [nest("A_CONFIG", [cfg_pool, nest("CONFIG_A_SERVICE", svc_ok(nm="r", pl="r1") +
                                          [nest("SERVICE_A_STATS", [u64("STATS_A_CONNS", 1)])])])],
        INVAL, msg=svc_stats)
    add("output-only STATS in a service dump's filter", "CMD_SERVICE_GET",
        svc(s("SERVICE_A_NAME", "web"), nest("SERVICE_A_STATS", [u64("STATS_A_CONNS", 1)])), INVAL,
        flags=NLM_F_DUMP, msg=svc_stats)

    # ---- L4 modes: fnat's snat list, persistence, the http cookie
    fnat = E["MODE_FNAT"]

    def snat(*addrs):
        return nest("SERVICE_A_SNAT", list(addrs))

    add("snat on mode nat", "CMD_SERVICE_NEW",
        svc(*(svc_ok() + [snat(a4("SNAT_A_ADDR4", "10.0.1.1"))])), INVAL)
    add("snat on mode dr", "CMD_SERVICE_NEW",
        svc(*(svc_ok(mode=E["MODE_DR"]) + [snat(a4("SNAT_A_ADDR4", "10.0.1.1"))])), INVAL)
    add("empty snat list", "CMD_SERVICE_NEW", svc(*(svc_ok(mode=fnat) + [snat()])), INVAL)
    add("snat IPv6 address on an IPv4 service", "CMD_SERVICE_NEW",
        svc(*(svc_ok(mode=fnat) + [snat(a6("SNAT_A_ADDR6", "fd01::1"))])), INVAL)
    add("17 snat addresses", "CMD_SERVICE_NEW",
        svc(*(svc_ok(mode=fnat) + [snat(*[a4("SNAT_A_ADDR4", "10.0.1.%d" % i) for i in range(100, 117)])])),
        INVAL | {"E2BIG"})
    add("snat multicast address", "CMD_SERVICE_NEW",
        svc(*(svc_ok(mode=fnat) + [snat(a4("SNAT_A_ADDR4", "224.0.0.1"))])), INVAL)
    add("snat loopback address", "CMD_SERVICE_NEW",
        svc(*(svc_ok(mode=fnat) + [snat(a4("SNAT_A_ADDR4", "127.0.0.1"))])), INVAL)
    add("snat address of 3 bytes", "CMD_SERVICE_NEW",
        svc(*(svc_ok(mode=fnat) + [snat(raw("SNAT_A_ADDR4", b"\x0a\x00\x01"))])), INVAL)
    add("unknown snat attribute", "CMD_SERVICE_NEW",
        svc(*(svc_ok(mode=fnat) + [snat(u32(E["SNAT_A_MAX"] + 1, 1))])), INVAL)
    add("snat changed by service set", "CMD_SERVICE_SET",
        svc(s("SERVICE_A_NAME", "web"), snat(a4("SNAT_A_ADDR4", "10.0.1.1"))), INVAL | {"EOPNOTSUPP"})
    add("mode changed by service set", "CMD_SERVICE_SET",
        svc(s("SERVICE_A_NAME", "web"), u8("SERVICE_A_MODE", fnat)), INVAL | {"EOPNOTSUPP"})
    add("persist over its maximum", "CMD_SERVICE_NEW",
        svc(*(svc_ok() + [u32("SERVICE_A_PERSIST", E["PERSIST_TIMEOUT_MAX"] + 1)])), INVAL | {"ERANGE"})
    add("persist mask 33 on IPv4", "CMD_SERVICE_NEW",
        svc(*(svc_ok() + [u32("SERVICE_A_PERSIST", 10), u8("SERVICE_A_PERSIST_MASK", 33)])), INVAL | {"ERANGE"})
    add("persist mask 0", "CMD_SERVICE_NEW",
        svc(*(svc_ok() + [u32("SERVICE_A_PERSIST", 10), u8("SERVICE_A_PERSIST_MASK", 0)])), INVAL | {"ERANGE"})
    add("persist mask 129", "CMD_SERVICE_NEW",
        svc(*(svc_ok(vip="fd00:100::9", pl="web6") + [u8("SERVICE_A_PERSIST_MASK", 129)])), INVAL | {"ERANGE"})
    add("persist on mode http", "CMD_SERVICE_NEW",
        svc(*(svc_ok(mode=http) + [u32("SERVICE_A_PERSIST", 10)])), INVAL)
    add("persist mask 64 (set) on an IPv4 service", "CMD_SERVICE_SET",
        svc(s("SERVICE_A_NAME", "web"), u8("SERVICE_A_PERSIST_MASK", 64)), INVAL | {"ERANGE"})
    add("cookie on mode nat", "CMD_SERVICE_NEW",
        svc(*(svc_ok() + [s("SERVICE_A_COOKIE", "srv")])), INVAL)
    add("cookie name with ';'", "CMD_SERVICE_NEW",
        svc(*(svc_ok(mode=http) + [s("SERVICE_A_COOKIE", "a;b")])), INVAL)
    add("cookie name with a space", "CMD_SERVICE_NEW",
        svc(*(svc_ok(mode=http) + [s("SERVICE_A_COOKIE", "a b")])), INVAL)
    add("cookie name of 64 characters", "CMD_SERVICE_NEW",
        svc(*(svc_ok(mode=http) + [s("SERVICE_A_COOKIE", "k" * 64)])), INVAL)
    add("cookie changed by service set", "CMD_SERVICE_SET",
        svc(s("SERVICE_A_NAME", "web"), s("SERVICE_A_COOKIE", "srv")), INVAL | {"EOPNOTSUPP"})
    add("service set: proxy protocol 2 on a nat service", "CMD_SERVICE_SET",
        svc(s("SERVICE_A_NAME", "web"), u8("SERVICE_A_PROXY_PROTOCOL", 2)), INVAL)
    add("service set: proxy protocol 2 and a bad pool", "CMD_SERVICE_SET",
        svc(s("SERVICE_A_NAME", "web"), s("SERVICE_A_POOL", "nope"), u8("SERVICE_A_PROXY_PROTOCOL", 2)),
        INVAL | {"ENOENT"})
    add("service set: mode", "CMD_SERVICE_SET",
        svc(s("SERVICE_A_NAME", "web"), u8("SERVICE_A_MODE", http)), INVAL | {"EOPNOTSUPP"})
    add("service set: rules", "CMD_SERVICE_SET",
        svc(s("SERVICE_A_NAME", "web"), nest("SERVICE_A_RULES", [])), INVAL | {"EOPNOTSUPP"})
    add("service new: rules on a nat service", "CMD_SERVICE_NEW",
        svc(*(svc_ok() + [nest("SERVICE_A_RULES", [nest("RULES_A_RULE", [rpool("spare")])])])), INVAL)
    add("rule new without KLB_A_RULE", "CMD_RULE_NEW", [], INVAL)
    add("rule new without service", "CMD_RULE_NEW", rule(rpool("spare")), INVAL)
    add("rule new: unknown service", "CMD_RULE_NEW", rule(rsvc("nope"), rpool("spare")), {"ENOENT"})
    add("rule new on a nat service", "CMD_RULE_NEW", rule(rsvc("web"), rpool("spare")), INVAL)
    add("rule nest without NLA_F_NESTED", "CMD_RULE_NEW", rule(rsvc("web"), rpool("spare"), flag=False), INVAL)
    add("rule: unknown attribute", "CMD_RULE_NEW",
        rule(rsvc("web"), rpool("spare"), u32(E["RULE_A_MAX"] + 1, 1)), INVAL)
    add("rule: host not NUL-terminated", "CMD_RULE_NEW", rule(rsvc("web"), raw("RULE_A_HOST", b"abcd"), rpool("spare")), INVAL)
    add("rule: host as u32", "CMD_RULE_NEW", rule(rsvc("web"), u32("RULE_A_HOST", 0x41414141), rpool("spare")), INVAL)
    add("rule: index as u8", "CMD_RULE_DEL", rule(rsvc("web"), u8("RULE_A_INDEX", 0)), INVAL)
    for attr, n in (("HOST", 254), ("SNI", 254), ("PATH", 1024), ("HEADER_NAME", 64),
                    ("HEADER_VALUE", 256), ("METHOD", 32)):
        v = ("/" + "p" * (n - 1)) if attr == "PATH" else "a" * n
        add("rule: %s of %d characters" % (attr.lower(), n), "CMD_RULE_NEW",
            rule(rsvc("web"), rstr(attr, v), rpool("spare")), INVAL)
    add("rule get without a service (dump)", "CMD_RULE_GET", [], INVAL, flags=NLM_F_DUMP)
    add("rule get: unknown service (dump)", "CMD_RULE_GET", rule(rsvc("nope")), {"ENOENT"}, flags=NLM_F_DUMP)
    add("rule get as a do request", "CMD_RULE_GET", rule(rsvc("web")), {"EOPNOTSUPP"}, need_msg=False)
    add("rule del without index", "CMD_RULE_DEL", rule(rsvc("web")), INVAL)
    add("rule del on a nat service", "CMD_RULE_DEL", rule(rsvc("web"), u32("RULE_A_INDEX", 0)), INVAL)
    add("restore: rules on a nat service", "CMD_RESTORE",
        [nest("A_CONFIG", [cfg_pool, nest("CONFIG_A_SERVICE", svc_ok(nm="r", pl="r1") +
                                          [nest("SERVICE_A_RULES", [nest("RULES_A_RULE", [rpool("r1")])])])])],
        INVAL)
    if not l7:
        return c

    # ---- with the http service h and the tls service t
    def hs(*a):
        return rule(rsvc("h"), *a)

    def ts(*a):
        return rule(rsvc("t"), *a)

    add("rule new without pool", "CMD_RULE_NEW", hs(rstr("HOST", "b.example.com")), INVAL)
    add("rule new: unknown pool", "CMD_RULE_NEW", hs(rpool("nope")), {"ENOENT"})
    add("rule new: bad pool name", "CMD_RULE_NEW", hs(rpool("a b")), INVAL)
    add("rule new with an index", "CMD_RULE_NEW", hs(u32("RULE_A_INDEX", 0), rpool("api")), INVAL)
    for attr, v in (("HOST", "a.example.com"), ("PATH", "/x"), ("METHOD", "GET")):
        add("rule: %s on a tls service" % attr.lower(), "CMD_RULE_NEW", ts(rstr(attr, v), rpool("api")), INVAL)
    add("rule: header on a tls service", "CMD_RULE_NEW",
        ts(rstr("HEADER_NAME", "X"), rstr("HEADER_VALUE", "1"), rpool("api")), INVAL)
    add("rule: sni on an http service", "CMD_RULE_NEW", hs(rstr("SNI", "a.example.com"), rpool("api")), INVAL)
    add("rule: header name without value", "CMD_RULE_NEW", hs(rstr("HEADER_NAME", "X-A"), rpool("api")), INVAL)
    add("rule: header value without name", "CMD_RULE_NEW", hs(rstr("HEADER_VALUE", "1"), rpool("api")), INVAL)
    for attr, v in (("HOST", ""), ("HOST", "a..example.com"), ("HOST", "a b"), ("HOST", "*"),
                    ("PATH", ""), ("PATH", "api"), ("PATH", "/a?b"), ("PATH", "/a b"),
                    ("METHOD", ""), ("METHOD", "GE T"), ("HEADER_NAME", "X:A"), ("HEADER_NAME", "")):
        extra = [rstr("HEADER_VALUE", "1")] if attr == "HEADER_NAME" else []
        add("rule: %s %r" % (attr.lower(), v), "CMD_RULE_NEW", hs(rstr(attr, v), *(extra + [rpool("api")])), INVAL)
    for v in (" lead", "trail ", "ctl\x01", "del\x7f"):
        add("rule: header value %r" % v, "CMD_RULE_NEW",
            hs(rstr("HEADER_NAME", "X-A"), rstr("HEADER_VALUE", v), rpool("api")), INVAL)
    add("rule: sni 'a b' (tls)", "CMD_RULE_NEW", ts(rstr("SNI", "a b"), rpool("api")), INVAL)
    add("rule del: index out of range", "CMD_RULE_DEL", hs(u32("RULE_A_INDEX", 1)), {"ENOENT"})
    add("rule del: index 4294967295", "CMD_RULE_DEL", hs(u32("RULE_A_INDEX", 0xFFFFFFFF)), {"ENOENT"})
    add("rule del with a matcher", "CMD_RULE_DEL", hs(u32("RULE_A_INDEX", 0), rstr("HOST", "a.example.com")), INVAL)
    add("delete a pool used by a rule", "CMD_POOL_DEL", pool(name("api")), {"EBUSY"})
    add("service set: proxy protocol 1 on a tls service", "CMD_SERVICE_SET",
        svc(s("SERVICE_A_NAME", "t"), u8("SERVICE_A_PROXY_PROTOCOL", 1)), INVAL)
    add("service set: proxy protocol 1", "CMD_SERVICE_SET",
        svc(s("SERVICE_A_NAME", "h"), u8("SERVICE_A_PROXY_PROTOCOL", 1)), INVAL)
    add("service set: persist on an http service", "CMD_SERVICE_SET",
        svc(s("SERVICE_A_NAME", "h"), u32("SERVICE_A_PERSIST", 10)), INVAL)

    # host maps: h has m.example.com -> api
    def hm(*a):
        return nest("A_HOSTMAP", list(a))

    def hsvc(v):
        return s("HOSTMAP_A_SERVICE", v)

    def hhost(v):
        return s("HOSTMAP_A_HOST", v)

    def hpool(v):
        return s("HOSTMAP_A_POOL", v)
    add("hostmap new without KLB_A_HOSTMAP", "CMD_HOSTMAP_NEW", [], INVAL)
    add("hostmap new without host", "CMD_HOSTMAP_NEW", [hm(hsvc("h"), hpool("api"))], INVAL)
    add("hostmap new without pool", "CMD_HOSTMAP_NEW", [hm(hsvc("h"), hhost("x.example.com"))], INVAL)
    add("hostmap new: unknown service", "CMD_HOSTMAP_NEW",
        [hm(hsvc("nope"), hhost("x.example.com"), hpool("api"))], {"ENOENT"})
    add("hostmap new on a nat service", "CMD_HOSTMAP_NEW",
        [hm(hsvc("web"), hhost("x.example.com"), hpool("api"))], INVAL)
    add("hostmap new: unknown pool", "CMD_HOSTMAP_NEW",
        [hm(hsvc("h"), hhost("x.example.com"), hpool("nope"))], {"ENOENT"})
    add("hostmap new: host of 255 characters", "CMD_HOSTMAP_NEW",
        [hm(hsvc("h"), hhost("a" * 255), hpool("api"))], INVAL)
    add("hostmap new: host of 254 characters, no trailing dot", "CMD_HOSTMAP_NEW",
        [hm(hsvc("h"), hhost("a" * 254), hpool("api"))], INVAL)
    add("hostmap new: a wildcard", "CMD_HOSTMAP_NEW",
        [hm(hsvc("h"), hhost("*.example.com"), hpool("api"))], INVAL)
    add("hostmap new: host not NUL-terminated", "CMD_HOSTMAP_NEW",
        [hm(hsvc("h"), raw("HOSTMAP_A_HOST", b"abcd"), hpool("api"))], INVAL)
    add("hostmap new: a name the map has (other case, trailing dot)", "CMD_HOSTMAP_NEW",
        [hm(hsvc("h"), hhost("M.Example.COM."), hpool("api"))], {"EEXIST"})
    add("hostmap del with a pool", "CMD_HOSTMAP_DEL",
        [hm(hsvc("h"), hhost("m.example.com"), hpool("api"))], INVAL)
    add("hostmap del: a name not in the map", "CMD_HOSTMAP_DEL",
        [hm(hsvc("h"), hhost("x.example.com"))], {"ENOENT"})
    add("hostmap set naming two services", "CMD_HOSTMAP_SET",
        [hm(hsvc("h"), hhost("x.example.com"), hpool("api")),
         hm(hsvc("t"), hhost("y.example.com"), hpool("api"))], INVAL)
    add("hostmap set: a name twice", "CMD_HOSTMAP_SET",
        [hm(hsvc("h"), hhost("x.example.com"), hpool("api")),
         hm(hsvc("h"), hhost("X.example.com"), hpool("web"))], {"EEXIST"})
    add("hostmap set: a pool without a host", "CMD_HOSTMAP_SET", [hm(hsvc("h"), hpool("api"))], INVAL)
    add("hostmap set: the last entry names a missing pool", "CMD_HOSTMAP_SET",
        [hm(hsvc("h"), hhost("x%d.example.com" % i), hpool("api")) for i in range(100)] +
        [hm(hsvc("h"), hhost("y.example.com"), hpool("nope"))], {"ENOENT"})
    add("hostmap get as a do request", "CMD_HOSTMAP_GET", [hm(hsvc("h"))], {"EOPNOTSUPP"}, need_msg=False)
    add("hostmap get: unknown service (dump)", "CMD_HOSTMAP_GET", [hm(hsvc("nope"))], {"ENOENT"},
        flags=NLM_F_DUMP)

    # restore: rules are checked like RULE_NEW, against the staged pools
    def l7cfg(rules, mode=http, extra_pools=()):
        return [nest("A_CONFIG", [cfg_pool] + list(extra_pools) + [
            nest("CONFIG_A_SERVICE", svc_ok(nm="r", vip="10.0.100.9", mode=mode, pl="r1") +
                 [nest("SERVICE_A_RULES", [nest("RULES_A_RULE", r) for r in rules])])])]
    add("restore: rule naming a missing pool", "CMD_RESTORE", l7cfg([[rpool("api")]]), {"ENOENT"})
    add("restore: rule with a service name inside", "CMD_RESTORE", l7cfg([[rsvc("r"), rpool("r1")]]), INVAL)
    add("restore: rule with an index inside", "CMD_RESTORE", l7cfg([[u32("RULE_A_INDEX", 0), rpool("r1")]]), INVAL)
    add("restore: sni rule on an http service", "CMD_RESTORE", l7cfg([[rstr("SNI", "a.example.com"), rpool("r1")]]), INVAL)
    add("restore: host rule on a tls service", "CMD_RESTORE",
        l7cfg([[rstr("HOST", "a.example.com"), rpool("r1")]], mode=tls), INVAL)
    add("restore: bad path in the last rule", "CMD_RESTORE",
        l7cfg([[rpool("r1")], [rstr("PATH", "/ok"), rpool("r1")], [rstr("PATH", "bad"), rpool("r1")]]), INVAL)
    add("restore: %d rules" % (E["RULES_MAX"] + 1), "CMD_RESTORE",
        l7cfg([[rpool("r1")]] * (E["RULES_MAX"] + 1)), {"ENOSPC", "E2BIG", "EINVAL"})
    add("restore: http service with rules, then a bad pool", "CMD_RESTORE",
        l7cfg([[rstr("HOST", "x.example.com"), rpool("r1")]],
              extra_pools=[nest("CONFIG_A_POOL", [name("r3"), u8("POOL_A_SCHED", 200)])]), INVAL)
    return c


def run_cases(save_cmd, only, l7=True):
    g = Genl()
    failed = 0

    def save():
        if not save_cmd:
            return b""
        r = subprocess.run(save_cmd, shell=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        return b"rc=%d\n" % r.returncode + r.stdout

    before = save()
    for desc, cmd, attrs, expect, need_msg, flags, want_msg in cases(l7):
        if only and only not in desc:
            continue
        err, msg, _ = g.do(cmd, attrs, flags=flags)
        after = save()
        # by number: ENOTSUP == EOPNOTSUPP on Linux
        name_ = next((n for n in expect if getattr(errno, n, None) == err), errno.errorcode.get(err, ""))
        problems = []
        if "ACCEPTED?" in expect:
            # a name that may be legal ("-", ".."): accepted is fine, but then undo
            if err == 0:
                g.do("CMD_POOL_DEL", attrs)
                after = save()
            elif name_ not in expect:
                problems.append("expected one of %s" % "/".join(sorted(expect - {"ACCEPTED?"})))
        elif name_ not in expect:
            problems.append("expected %s" % "/".join(sorted(expect)))
        if err and need_msg and not msg:
            problems.append("no extack message")
        elif want_msg is not None and msg != want_msg:
            problems.append("expected extack \"%s\"" % want_msg)
        if after != before:
            problems.append("state changed: save before %r after %r" % (before[:300], after[:300]))
            before = after
        line = "%s %s | errno %s, extack \"%s\"" % ("FAIL" if problems else "PASS", desc, ename(err), msg)
        if problems:
            line += ", " + "; ".join(problems)
            failed += 1
        print(line, flush=True)
    return 1 if failed else 0


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 1
    if sys.argv[1] == "cases":
        save_cmd = None
        only = None
        l7 = True
        args = sys.argv[2:]
        while args:
            if args[0] == "--save-cmd":
                save_cmd = args[1]
                args = args[2:]
            elif args[0] == "--no-l7":
                l7 = False
                args = args[1:]
            elif args[0] == "--only":
                only = args[1]
                args = args[2:]
            else:
                print("unknown argument %s" % args[0])
                return 1
        return run_cases(save_cmd, only, l7)
    if sys.argv[1] == "send":
        g = Genl()
        cmd = sys.argv[2]
        cmd = int(cmd) if cmd.isdigit() else cmd
        attrs = eval(sys.argv[3], globals()) if len(sys.argv) > 3 else []
        err, msg, _ = g.do(cmd, attrs)
        print("errno %s, extack \"%s\"" % (ename(err), msg))
        return 0 if err == 0 else 2
    if sys.argv[1] == "dump":
        g = Genl()
        attrs = eval(sys.argv[3], globals()) if len(sys.argv) > 3 else []
        err, msg, rep = g.do(sys.argv[2], attrs, flags=NLM_F_DUMP)
        print("errno %s, extack \"%s\", %d messages, names %s" % (
            ename(err), msg, len(rep), " ".join(dump_names(rep)) or "-"))
        return 0 if err == 0 else 2
    if sys.argv[1] == "ctrl-latency":
        return ctrl_latency(sys.argv[2])
    if sys.argv[1] == "txn-bad-input":
        return txn_bad_input(int(sys.argv[2]))
    if sys.argv[1] == "txn-stage-and-exit":
        return txn_stage_and_exit(int(sys.argv[2]))
    if sys.argv[1] == "own-messages":
        return own_messages(sys.argv[2], int(sys.argv[3]))
    print(__doc__)
    return 1


def txn_begin(g):
    err, msg, rep = g.do("CMD_RESTORE_BEGIN", [])
    if err:
        raise OSError(err, "RESTORE_BEGIN: %s" % msg)
    for t, v in parse_attrs(rep[0][4:]):
        if t == E["A_TXN"]:
            return struct.unpack("=I", v[:4])[0]
    raise OSError(errno.EPROTO, "RESTORE_BEGIN: no KLB_A_TXN in the reply")


def txn_pool(nm, addr="10.0.1.11"):
    return nest("CONFIG_A_POOL", [name(nm), u8("POOL_A_SCHED", 0),
                                  nest("POOL_A_BACKENDS", [be4(addr, 80)])])


def txn_svc(nm, i, pl):
    vip = "10.9.%d.%d" % (i // 250 % 250, i % 250 + 1)
    return nest("CONFIG_A_SERVICE", svc_ok(nm=nm, vip=vip, port=80 + i // 62500, pl=pl))


def txn_stage(g, txn, objs):
    return g.do("CMD_RESTORE_STAGE", [u32("A_TXN", txn), nest("A_CONFIG", objs)])


def txn_stage_all(g, txn, n, per_msg=300):
    """Stage n pools (one backend each), then n services on them."""
    objs = [txn_pool("z%d" % i) for i in range(n)] + [txn_svc("z%d" % i, i, "z%d" % i) for i in range(n)]
    for k in range(0, len(objs), per_msg):
        err, msg, _ = txn_stage(g, txn, objs[k:k + per_msg])
        if err:
            return err, msg
    return 0, ""


def txn_bad_input(n):
    g = Genl()
    other = Genl()
    results = []

    def want(desc, got, errs, part=None):
        err, msg = got[0], got[1]
        ok = errno.errorcode.get(err, "") in errs and msg and (part is None or part in msg)
        results.append(ok)
        print("%s %s | errno %s, extack \"%s\"" % ("PASS" if ok else "FAIL", desc, ename(err), msg), flush=True)

    def do(cmd, txn):
        return g.do(cmd, [u32("A_TXN", txn)])

    no = 0x7FFFFFF0
    want("STAGE without BEGIN (unknown id)", txn_stage(g, no, [txn_pool("x")]), {"ENOENT"}, "no restore transaction")
    want("COMMIT with an unknown id", do("CMD_RESTORE_COMMIT", no), {"ENOENT"}, "no restore transaction")
    want("ABORT with an unknown id", do("CMD_RESTORE_ABORT", no), {"ENOENT"}, "no restore transaction")
    want("COMMIT without an id", g.do("CMD_RESTORE_COMMIT", []), {"EINVAL"})
    want("STAGE with id 0", txn_stage(g, 0, [txn_pool("x")]), INVAL)
    want("BEGIN with an attribute", g.do("CMD_RESTORE_BEGIN", [u32("A_TXN", 1)]), INVAL)

    t = txn_begin(g)
    want("STAGE without a config", g.do("CMD_RESTORE_STAGE", [u32("A_TXN", t)]), {"EINVAL"}, "aborted")
    want("... then COMMIT is refused", do("CMD_RESTORE_COMMIT", t), {"EINVAL"}, "was aborted")
    want("... and the transaction is gone", do("CMD_RESTORE_ABORT", t), {"ENOENT"})

    t = txn_begin(g)
    want("another socket's STAGE", txn_stage(other, t, [txn_pool("x")]), {"EPERM"}, "belongs to another socket")
    want("another socket's COMMIT", other.do("CMD_RESTORE_COMMIT", [u32("A_TXN", t)]), {"EPERM"}, "belongs to another socket")
    want("another socket's ABORT", other.do("CMD_RESTORE_ABORT", [u32("A_TXN", t)]), {"EPERM"}, "belongs to another socket")
    want("the owner's ABORT", (do("CMD_RESTORE_ABORT", t)[0] or errno.EALREADY, "ok"), {"EALREADY"})

    # a bad object in the 3rd STAGE message kills the transaction
    t = txn_begin(g)
    r1 = txn_stage(g, t, [txn_pool("b%d" % i) for i in range(10)])
    r2 = txn_stage(g, t, [txn_svc("b%d" % i, i, "b%d" % i) for i in range(10)])
    want("STAGE 1 and 2 accepted", (r1[0] or r2[0] or errno.EALREADY, r1[1] or r2[1] or "ok"), {"EALREADY"})
    want("STAGE 3: a service naming a missing pool", txn_stage(g, t, [txn_svc("b10", 10, "nope")]),
         {"ENOENT"}, "aborted")
    want("STAGE 4 after it is refused", txn_stage(g, t, [txn_pool("c")]), {"EINVAL"}, "STAGE message 3 was refused")
    want("COMMIT after it is refused", do("CMD_RESTORE_COMMIT", t), {"EINVAL"}, "STAGE message 3 was refused")
    want("... and the transaction is gone", do("CMD_RESTORE_COMMIT", t), {"ENOENT"})

    t = txn_begin(g)
    r1 = txn_stage(g, t, [txn_pool("s0")])
    want("a hash seed after a pool", txn_stage(g, t, [raw("CONFIG_A_HASH_SEED", bytes(16))]),
         {"EINVAL"}, "hash seed after a pool")
    do("CMD_RESTORE_ABORT", t)

    ids = [txn_begin(g) for _ in range(4)]  # the kernel's KLB_TXN_MAX
    want("BEGIN past the open transaction limit", g.do("CMD_RESTORE_BEGIN", []), {"EBUSY"},
         "restore transactions are open here")
    for t in ids:
        do("CMD_RESTORE_ABORT", t)

    # a process that stages n pools and n services, then exits
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "txn-stage-and-exit", str(n)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = r.stdout.decode(errors="replace").strip()
    want("a process stages %d services and exits without COMMIT" % n,
         (errno.EALREADY if r.returncode == 0 else errno.EIO, out), {"EALREADY"})
    # its objects were freed when its socket closed: room for another
    t = txn_begin(g)
    want("then %d more can be staged (the cap holds old + one new config)" % n,
         (txn_stage_all(g, t, n)[0] or errno.EALREADY, "ok"), {"EALREADY"})
    do("CMD_RESTORE_ABORT", t)
    return 0 if all(results) else 1


def txn_stage_and_exit(n):
    g = Genl()
    t = txn_begin(g)
    err, msg = txn_stage_all(g, t, n)
    print("staged %d pools and %d services in transaction %d: errno %s %s" % (n, n, t, ename(err), msg))
    return 1 if err else 0


def dump_names(replies):
    """The NAME of each pool or service nest in the replies, in order."""
    inner = {E["A_POOL"]: E["POOL_A_NAME"], E["A_SERVICE"]: E["SERVICE_A_NAME"]}
    out = []
    for payload in replies:
        for t, v in parse_attrs(payload[4:]):
            if t in inner:
                out += [x.rstrip(b"\0").decode(errors="replace") for it, x in parse_attrs(v) if it == inner[t]]
    return out


def ctrl_latency(stopfile):
    import time
    g = Genl("nlctrl")
    n, worst = 0, 0.0
    while not os.path.exists(stopfile):
        t0 = time.monotonic()
        err, msg, _ = g.request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                                [s(CTRL_ATTR_FAMILY_NAME, "nlctrl")], version=1)
        worst = max(worst, time.monotonic() - t0)
        if err:
            print("error %s %s" % (ename(err), msg))
            return 1
        n += 1
        time.sleep(0.01)
    print("requests %d max_ms %d" % (n, worst * 1000))
    return 0


def own_messages(tag, n):
    g = Genl()
    foreign, first = 0, ""
    for i in range(n):
        nm = "%s%d" % (tag, i)
        err, msg, _ = g.do("CMD_POOL_DEL", pool(name(nm)))
        want = "pool %s does not exist" % nm
        if err != errno.ENOENT or msg != want:
            foreign += 1
            first = first or "%s: errno %s, extack \"%s\"" % (nm, ename(err), msg)
    print("requests %d foreign %d %s" % (n, foreign, first))
    return 0


if __name__ == "__main__":
    sys.exit(main())
