#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""HTTP/1.1 backend for the klb L7 selftests (http mode).

  l7_backend.py serve --name beN --port P [--proxy-port P2] [--log FILE]
                      [--pidfile F] [--gate-dir DIR]

Plain sockets, a thread per connection, keep-alive, Content-Length and
chunked request bodies, Expect: 100-continue. Connections on --proxy-port
must start with a PROXY protocol v2 header (else 400 and close); the
addresses it carries are reported. What the path contains decides the
answer (any prefix may come before, e.g. /py/...):

  .../delay/MS...   wait MS milliseconds first, then answer as below
  .../gate/NAME...  wait until the file NAME exists in --gate-dir (at
                    most 300 s), then answer as below: a test decides
                    when the answer comes, whatever the machine's speed
  .../interim/N/MS  N interim responses (102 Processing) MS milliseconds
                    apart first, then answer as below
  .../chunked/N     N random bytes, chunked (random chunk sizes)
  .../data/N        N random bytes with Content-Length
  .../mirror        the request body back, chunked
  .../status/N      answer with status N (the JSON echo as its body)
  .../switch101     101 Switching Protocols (Upgrade: websocket) and a few
                    raw bytes, then close, whatever the request asked
  anything else     a JSON echo of the request: name, conn (connection
                    number), nreq (requests on it so far, this one
                    included), peer, proxy {src, sport, dst, dport} or
                    null, method, target, version, headers {lowercase
                    name: [values...]}, body_len, body_sha256
--keepalive-timeout SECS: a connection idle for SECS between requests is
closed; a request that comes after SECS but before SECS + --keepalive-lazy
(default 0) finds the connection closing (as one that crossed the FIN):
it is read, never answered, and the connection is reset ("late C" in the
log). So a client reusing a connection idle longer than SECS fails, every
time, not only when it hits the moment of the close.
Every answer carries X-Backend: NAME, X-Conn: N and, for the random and
mirror bodies, X-Body-Sha256 of the body sent.

The log (line-buffered, one event a line) lets tests see what really
reached the backend:
  accept C ADDR PORT | proxy C SRC SPORT DST DPORT | proxy C none|bad HEX
  req C METHOD TARGET | done C STATUS TARGET | bad C WHY | close C
  idle C (keep-alive timeout) | late C METHOD TARGET (request refused late)
"""
import argparse
import hashlib
import ipaddress
import json
import os
import random
import socket
import struct
import sys
import threading
import time

PROXY_SIG = b"\r\n\r\n\x00\r\nQUIT\n"
MAX_HEAD = 256 * 1024


class Log:
    """The --log file, one event per line; PATH.t has the same lines, each
    after the time it was logged (time.monotonic()), for a test that must
    time what the backend saw without its own process starts in between."""

    def __init__(self, path):
        self.f = open(path, "a", buffering=1) if path else None
        self.t = open(path + ".t", "a", buffering=1) if path else None
        self.lock = threading.Lock()

    def __call__(self, *words):
        if not self.f:
            return
        line = " ".join(str(w) for w in words) + "\n"
        with self.lock:
            self.t.write("%.3f %s" % (time.monotonic(), line))
            self.f.write(line)


class Closed(Exception):
    pass


class BadRequest(Exception):
    pass


class Conn:
    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def fill(self):
        d = self.sock.recv(65536)
        if not d:
            raise Closed()
        self.buf += d

    def read_exact(self, n):
        while len(self.buf) < n:
            self.fill()
        d, self.buf = self.buf[:n], self.buf[n:]
        return d

    def read_until(self, sep, limit):
        while True:
            i = self.buf.find(sep)
            if i >= 0:
                d, self.buf = self.buf[:i], self.buf[i + len(sep):]
                return d
            if len(self.buf) > limit:
                raise BadRequest("line or head too long")
            self.fill()

    def send(self, data):
        self.sock.sendall(data)


def parse_proxy_v2(c):
    hdr = c.read_exact(16)
    if hdr[:12] != PROXY_SIG:
        return None, hdr
    ver_cmd, fam, ln = hdr[12], hdr[13], struct.unpack("!H", hdr[14:16])[0]
    body = c.read_exact(ln)
    if ver_cmd >> 4 != 2:
        return None, hdr + body
    if ver_cmd & 0xF == 0:
        return {"local": True}, None
    if fam == 0x11 and ln >= 12:
        src, dst = body[0:4], body[4:8]
        sport, dport = struct.unpack("!HH", body[8:12])
    elif fam == 0x21 and ln >= 36:
        src, dst = body[0:16], body[16:32]
        sport, dport = struct.unpack("!HH", body[32:36])
    else:
        return None, hdr + body
    return {"src": str(ipaddress.ip_address(src)), "sport": sport,
            "dst": str(ipaddress.ip_address(dst)), "dport": dport}, None


def read_body(c, headers, version, expect_continue):
    te = ",".join(headers.get("transfer-encoding", [])).lower()
    cls = headers.get("content-length", [])
    chunked = "chunked" in te
    if not chunked and not cls:
        return b""
    if expect_continue and version == "HTTP/1.1":
        c.send(b"HTTP/1.1 100 Continue\r\n\r\n")
    if chunked:
        parts = []
        while True:
            line = c.read_until(b"\r\n", 4096)
            try:
                n = int(line.split(b";")[0].strip(), 16)
            except ValueError:
                raise BadRequest("bad chunk size %r" % line[:40])
            if n == 0:
                while c.read_until(b"\r\n", 65536):
                    pass        # trailer fields
                return b"".join(parts)
            parts.append(c.read_exact(n))
            if c.read_exact(2) != b"\r\n":
                raise BadRequest("no CRLF after chunk data")
    if len(set(cls)) != 1 or not cls[0].isdigit():
        raise BadRequest("bad Content-Length %r" % cls)
    return c.read_exact(int(cls[0]))


def path_arg(target, key):
    """The integer after /KEY/ in target, or None."""
    path = target.split("?")[0]
    parts = path.split("/")
    for i, p in enumerate(parts[:-1]):
        if p == key:
            try:
                return int(parts[i + 1])
            except ValueError:
                return None
    return None


def path_word(target, key):
    """The path segment after /KEY/ in target, or None."""
    parts = target.split("?")[0].split("/")
    for i, p in enumerate(parts[:-1]):
        if p == key:
            return parts[i + 1]
    return None


def gate_wait(args, name):
    """Hold until --gate-dir/NAME exists (a test opens the gate)."""
    if not args.gate_dir or not name or name in (".", ".."):
        raise BadRequest("gate %r without --gate-dir" % name)
    path = os.path.join(args.gate_dir, name)
    end = time.monotonic() + 300
    while not os.path.exists(path) and time.monotonic() < end:
        time.sleep(0.02)


def head_bytes(status, reason, fields):
    h = "HTTP/1.1 %d %s\r\n" % (status, reason)
    for k, v in fields:
        h += "%s: %s\r\n" % (k, v)
    return (h + "\r\n").encode()


def serve_conn(sock, peer, cid, args, log, want_proxy):
    c = Conn(sock)
    log("accept", cid, peer[0], peer[1])
    proxy = None
    nreq = 0
    try:
        if want_proxy:
            proxy, bad = parse_proxy_v2(c)
            if proxy is None:
                log("proxy", cid, "bad", bad.hex()[:80])
                body = b"no PROXY v2 header\n"
                c.send(head_bytes(400, "Bad Request", [
                    ("X-Backend", args.name), ("Content-Length", len(body)),
                    ("Connection", "close")]) + body)
                return
            if "src" in proxy:
                log("proxy", cid, proxy["src"], proxy["sport"], proxy["dst"],
                    proxy["dport"])
            else:
                log("proxy", cid, "local")
        else:
            log("proxy", cid, "none")
        idle_from = None
        while True:
            if args.keepalive_timeout and idle_from is not None and not c.buf:
                sock.settimeout(args.keepalive_timeout + args.keepalive_lazy)
                try:
                    c.fill()
                except socket.timeout:
                    log("idle", cid)
                    return
                finally:
                    sock.settimeout(None)
            try:
                head = c.read_until(b"\r\n\r\n", MAX_HEAD)
            except Closed:
                return
            if (args.keepalive_timeout and idle_from is not None and
                    time.monotonic() - idle_from > args.keepalive_timeout):
                log("late", cid, *head.split(b"\r\n")[0].decode(
                    "latin-1").split(" ")[:2])
                # unread bytes make the close a reset, as a FIN crossed
                # by the request would have
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                struct.pack("ii", 1, 0))
                raise Closed()
            lines = head.split(b"\r\n")
            try:
                method, target, version = lines[0].decode("latin-1").split(" ")
            except ValueError:
                raise BadRequest("request line %r" % lines[0][:60])
            log("req", cid, method, target)
            nreq += 1
            headers = {}
            for ln in lines[1:]:
                k, sep, v = ln.decode("latin-1").partition(":")
                if not sep:
                    raise BadRequest("field line %r" % ln[:60])
                headers.setdefault(k.strip().lower(), []).append(v.strip())
            conn_hdr = ",".join(headers.get("connection", [])).lower()
            close = "close" in conn_hdr or (version == "HTTP/1.0" and
                                            "keep-alive" not in conn_hdr)
            expect = "100-continue" in ",".join(
                headers.get("expect", [])).lower()
            body = read_body(c, headers, version, expect)
            n_interim = path_arg(target, "interim")
            if n_interim:
                after = target.split("?")[0].split("/interim/")[1]
                gap = int((after.split("/") + ["0"])[1] or 0) / 1000.0
                for _ in range(n_interim):
                    c.send(b"HTTP/1.1 102 Processing\r\n\r\n")
                    time.sleep(gap)
            ms = path_arg(target, "delay")
            if ms:
                time.sleep(ms / 1000.0)
            gate = path_word(target, "gate")
            if gate is not None:
                gate_wait(args, gate)
            if "/switch101" in target:
                # switches whether asked or not (a broken backend)
                c.send(head_bytes(101, "Switching Protocols", [
                    ("X-Backend", args.name), ("Upgrade", "websocket"),
                    ("Connection", "Upgrade")]) + b"raw bytes")
                log("done", cid, 101, target)
                return
            fields = [("X-Backend", args.name), ("X-Conn", cid)]
            chunks = None
            n_chunked = path_arg(target, "chunked")
            n_data = path_arg(target, "data")
            if n_chunked is not None:
                data = os.urandom(n_chunked)
                chunks = data
            elif n_data is not None:
                data = os.urandom(n_data)
            elif "/mirror" in target:
                data = body
                chunks = data
            else:
                data = None
            if data is not None:
                fields += [("Content-Type", "application/octet-stream"),
                           ("X-Body-Sha256", hashlib.sha256(data).hexdigest())]
            else:
                data = (json.dumps({
                    "name": args.name, "conn": cid, "nreq": nreq,
                    "peer": peer[0], "proxy": proxy, "method": method,
                    "target": target, "version": version,
                    "headers": headers, "body_len": len(body),
                    "body_sha256": hashlib.sha256(body).hexdigest(),
                }, sort_keys=True) + "\n").encode()
                fields.append(("Content-Type", "application/json"))
            if close:
                fields.append(("Connection", "close"))
            if method == "HEAD":
                chunks, data = None, b""
            if chunks is not None:
                fields.append(("Transfer-Encoding", "chunked"))
                out = [head_bytes(200, "OK", fields)]
                rnd = random.Random(cid * 1000 + nreq)
                i = 0
                while i < len(chunks):
                    n = rnd.randint(1, 65536)
                    piece = chunks[i:i + n]
                    out.append(b"%x\r\n" % len(piece) + piece + b"\r\n")
                    i += n
                out.append(b"0\r\n\r\n")
                c.send(b"".join(out))
            else:
                fields.append(("Content-Length", len(data)))
                status = path_arg(target, "status") or 200
                c.send(head_bytes(status, "Status", fields) + data)
            log("done", cid, path_arg(target, "status") or 200, target)
            if close:
                return
            idle_from = time.monotonic()
    except BadRequest as e:
        log("bad", cid, str(e).replace("\n", " "))
        try:
            c.send(head_bytes(400, "Bad Request", [
                ("X-Backend", args.name), ("Content-Length", 0),
                ("Connection", "close")]))
        except OSError:
            pass
    except (Closed, OSError):
        pass
    finally:
        log("close", cid)
        try:
            sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        sock.close()


def listen(port):
    s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("::", port))
    s.listen(512)
    return s


def serve(args):
    log = Log(args.log)
    counter = [0]
    lock = threading.Lock()
    socks = [(listen(args.port), False)]
    if args.proxy_port:
        socks.append((listen(args.proxy_port), True))

    def accept_loop(ls, want_proxy):
        while True:
            sock, peer = ls.accept()
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with lock:
                counter[0] += 1
                cid = counter[0]
            if peer[0].startswith("::ffff:"):
                peer = (peer[0][7:],) + tuple(peer[1:])
            threading.Thread(target=serve_conn, daemon=True,
                             args=(sock, peer, cid, args, log,
                                   want_proxy)).start()

    for ls, want_proxy in socks[1:]:
        threading.Thread(target=accept_loop, daemon=True,
                         args=(ls, want_proxy)).start()
    if args.pidfile:
        with open(args.pidfile, "w") as f:
            f.write("%d\n" % os.getpid())
    accept_loop(*socks[0])


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    sp = sub.add_parser("serve")
    sp.add_argument("--name", required=True)
    sp.add_argument("--port", type=int, required=True)
    sp.add_argument("--proxy-port", type=int)
    sp.add_argument("--log")
    sp.add_argument("--pidfile")
    sp.add_argument("--keepalive-timeout", type=float, default=0)
    sp.add_argument("--keepalive-lazy", type=float, default=0)
    sp.add_argument("--gate-dir")
    args = p.parse_args()
    serve(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
