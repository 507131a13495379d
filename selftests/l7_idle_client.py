#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Clients for selftests/l7_memory.sh and l7_slowloris.sh (run in the
client namespace).

  l7_idle_client.py idle --addr A --count N --hold FILE
      Open N keep-alive connections to A:80, one GET each (answer read
      whole), keep them all open and idle, print "open N SECS" (how many
      got a 200, the time it took), then wait until FILE exists; print
      "alive K": how many still answer a second GET, then close all.
  l7_idle_client.py burst --addr A --count N --path P [--body B]
      N connections at once, one GET of P each (a POST of a B-byte body
      with --body); print each status (000: refused, reset or closed
      without an answer), one a line.
  l7_idle_client.py slowloris --addr A --count N --every D --hold FILE
                               --status SFILE
      Open N connections to A:80, each sends a partial request head
      ("GET /slow/I HTTP/1.1\r\nHost: A\r\nX-Slow: ") and then one more
      byte of that header's value every D seconds, never ending the head.
      Print "open N SECS" once all are open. Until FILE exists or klb
      closed every one, rewrite SFILE about once a second with one line
      "open O s408 X other Y eof E reset R": connections still open, and
      those klb closed: after a 408 answer, after another answer, with a
      FIN and no answer, with a reset (a refusal at accept). Then close
      the rest and print that line once more.
"""
import argparse
import os
import resource
import selectors
import socket
import sys
import threading
import time


def get(s, addr, path, body=0):
    if body:
        s.sendall(("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n\r\n"
                   % (path, addr, body)).encode() + b"b" * body)
    else:
        s.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (path, addr)).encode())
    buf = b""
    while b"\r\n\r\n" not in buf:
        d = s.recv(65536)
        if not d:
            raise ConnectionError("closed")
        buf += d
    head, _, body = buf.partition(b"\r\n\r\n")
    status = int(head.split(b" ")[1])
    n = 0
    for line in head.split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            n = int(v)
    while len(body) < n:
        d = s.recv(65536)
        if not d:
            raise ConnectionError("closed")
        body += d
    return status


def cmd_idle(a):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    conns, ok = [], 0
    t0 = time.monotonic()
    for i in range(a.count):
        s = socket.create_connection((a.addr, 80), timeout=20)
        try:
            ok += get(s, a.addr, "/idle/%d" % i) == 200
        except (OSError, ValueError):
            pass
        conns.append(s)
    print("open", ok, "%.1f" % (time.monotonic() - t0), flush=True)
    while not os.path.exists(a.hold):
        time.sleep(0.1)
    alive = 0
    for i, s in enumerate(conns):
        try:
            alive += get(s, a.addr, "/again/%d" % i) == 200
        except (OSError, ValueError):
            pass
        s.close()
    print("alive", alive, flush=True)
    return 0


def cmd_burst(a):
    res = [None] * a.count
    socks = []
    for i in range(a.count):
        try:
            socks.append(socket.create_connection((a.addr, 80), timeout=20))
        except OSError:
            socks.append(None)

    def one(i):
        try:
            res[i] = get(socks[i], a.addr, a.path, a.body)
        except (OSError, ValueError, AttributeError):
            res[i] = 0
    th = [threading.Thread(target=one, args=(i,)) for i in range(a.count)]
    for t in th:
        t.start()
    for t in th:
        t.join()
    for r in res:
        print("%03d" % r)
    return 0


class Slow:
    """The counters of cmd_slowloris, and the line that says them."""

    def __init__(self):
        self.n = {"s408": 0, "other": 0, "eof": 0, "reset": 0}

    def line(self, open_):
        return "open %d s408 %d other %d eof %d reset %d" % (
            open_, self.n["s408"], self.n["other"], self.n["eof"],
            self.n["reset"])


def slow_read(s, got):
    """What s had to say, if klb closed it: the counter's name, else None."""
    try:
        d = s.recv(4096)
    except BlockingIOError:
        return None
    except OSError:
        d, reset = b"", True
    else:
        reset = False
    if d:
        got[s] = got.get(s, b"") + d
        return None
    head = got.pop(s, b"")
    if not head:
        return "reset" if reset else "eof"
    return "s408" if head.startswith(b"HTTP/1.1 408 ") else "other"


def cmd_slowloris(a):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    st = Slow()
    sel = selectors.DefaultSelector()
    live, got = set(), {}
    t0 = time.monotonic()
    for i in range(a.count):
        try:
            s = socket.create_connection((a.addr, 80), timeout=20)
            s.sendall(("GET /slow/%d HTTP/1.1\r\nHost: %s\r\nX-Slow: "
                       % (i, a.addr)).encode())
        except OSError:
            st.n["reset"] += 1
            continue
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
        live.add(s)
    print("open", len(live), "%.1f" % (time.monotonic() - t0), flush=True)
    drip = report = time.monotonic()
    while live and not os.path.exists(a.hold):
        for key, _ in sel.select(timeout=0.2):
            why = slow_read(key.fileobj, got)
            if why:
                st.n[why] += 1
                sel.unregister(key.fileobj)
                live.discard(key.fileobj)
                key.fileobj.close()
        now = time.monotonic()
        if now - drip >= a.every:
            drip = now
            for s in list(live):
                try:
                    s.send(b"a")
                except OSError:
                    pass	# its close is read above
        if now - report >= 1:
            report = now
            with open(a.status + ".tmp", "w") as f:
                f.write(st.line(len(live)) + "\n")
            os.replace(a.status + ".tmp", a.status)
    line = st.line(len(live))
    for s in live:
        s.close()
    with open(a.status + ".tmp", "w") as f:
        f.write(line + "\n")
    os.replace(a.status + ".tmp", a.status)
    print(line, flush=True)
    return 0


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    sp = sub.add_parser("idle")
    sp.add_argument("--addr", required=True)
    sp.add_argument("--count", type=int, required=True)
    sp.add_argument("--hold", required=True)
    sb = sub.add_parser("burst")
    sb.add_argument("--addr", required=True)
    sb.add_argument("--count", type=int, required=True)
    sb.add_argument("--path", required=True)
    sb.add_argument("--body", type=int, default=0)
    sl = sub.add_parser("slowloris")
    sl.add_argument("--addr", required=True)
    sl.add_argument("--count", type=int, required=True)
    sl.add_argument("--every", type=float, default=3)
    sl.add_argument("--hold", required=True)
    sl.add_argument("--status", required=True)
    a = p.parse_args()
    return {"idle": cmd_idle, "burst": cmd_burst,
            "slowloris": cmd_slowloris}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
