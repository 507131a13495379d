#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Many TCP clients in one process, for the klb persistence selftest.

  persist_client.py --addr A --port P --from S1,S2,... [--count N]
                    [--timeout T]
      for each source address S (in order), N sequential connections bound
      to S, each sending "GET / HTTP/1.0" and reading the answer until the
      server closes; prints one line per connection: "S NAME", NAME being
      the last line of the body ("beN" from the selftests' nginx), or
      "fail". Exit 0 if every connection was answered.
      --hold PATH: hold each connection open before its request: write
      "open" to PATH.state once connected, send the request once PATH.go
      exists (for a check of what klb holds for a live connection).

One python process instead of one curl per source address: every process
start costs seconds under emulation.
"""
import argparse
import os
import socket
import sys
import time


def wait_go(hold):
    with open(hold + ".state", "w") as f:
        f.write("open\n")
    while not os.path.exists(hold + ".go"):
        time.sleep(0.1)


def get(src, addr, port, timeout, hold=None):
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    with socket.socket(fam, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.bind((src, 0))
        s.connect((addr, port))
        if hold:
            wait_go(hold)
        s.sendall(b"GET / HTTP/1.0\r\nHost: klb\r\n\r\n")
        data = b""
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.") or b" 200 " not in head.split(b"\r\n")[0]:
        return None
    lines = body.decode(errors="replace").split()
    return lines[-1] if lines else None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--addr", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--from", dest="sources", required=True)
    p.add_argument("--count", type=int, default=1)
    p.add_argument("--timeout", type=float, default=5.0)
    p.add_argument("--hold")
    a = p.parse_args()
    failed = 0
    for src in a.sources.split(","):
        for _ in range(a.count):
            try:
                name = get(src, a.addr, a.port, a.timeout, a.hold)
            except OSError:
                name = None
            if name is None:
                failed += 1
            print(src, name or "fail", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
