#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""N HTTP/1.1 requests to HOST:PORT, one after the other, each on a new TCP
connection with "Connection: close" (the server closes first, so the client
keeps no TIME_WAIT and its next connect may take the same port at once).

Prints one line per connection: LOCAL_PORT CONNECT_MS BODY (BODY "-" if none),
then "slow K" (connects that took longer than --slow-ms: a lost SYN costs a
retransmission timeout, a second) and "ports P" (distinct local ports used).
"""
import argparse
import socket
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("host")
    ap.add_argument("port", type=int)
    ap.add_argument("count", type=int)
    ap.add_argument("--slow-ms", type=float, default=500)
    ap.add_argument("--timeout", type=float, default=10)
    a = ap.parse_args()
    fam = socket.AF_INET6 if ":" in a.host else socket.AF_INET
    slow, ports = 0, set()
    for _ in range(a.count):
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.settimeout(a.timeout)
        t0 = time.monotonic()
        try:
            s.connect((a.host, a.port))
        except OSError as e:
            print("- %.0f - connect: %s" % ((time.monotonic() - t0) * 1000, e), flush=True)
            slow += 1
            s.close()
            continue
        ms = (time.monotonic() - t0) * 1000
        port = s.getsockname()[1]
        ports.add(port)
        if ms > a.slow_ms:
            slow += 1
        data = b""
        try:
            s.sendall(b"GET / HTTP/1.1\r\nHost: reuse\r\nConnection: close\r\n\r\n")
            while True:
                d = s.recv(4096)
                if not d:
                    break
                data += d
        except OSError:
            pass
        s.close()
        body = data.partition(b"\r\n\r\n")[2].strip().decode(errors="replace")
        print("%d %.0f %s" % (port, ms, body or "-"), flush=True)
    print("slow %d" % slow)
    print("ports %d" % len(ports))


if __name__ == "__main__":
    main()
