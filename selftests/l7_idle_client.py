#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Clients for selftests/l7_memory.sh (run in the client namespace).

  l7_idle_client.py idle --addr A --count N --hold FILE
      Open N keep-alive connections to A:80, one GET each (answer read
      whole), keep them all open and idle, print "open N SECS" (how many
      got a 200, the time it took), then wait until FILE exists; print
      "alive K": how many still answer a second GET, then close all.
  l7_idle_client.py burst --addr A --count N --path P
      N connections at once, one GET of P each; print each status (000:
      refused, reset or closed without an answer), one a line.
"""
import argparse
import os
import resource
import socket
import sys
import threading
import time


def get(s, addr, path):
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
            res[i] = get(socks[i], a.addr, a.path)
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
    a = p.parse_args()
    return cmd_idle(a) if a.cmd == "idle" else cmd_burst(a)


if __name__ == "__main__":
    sys.exit(main())
