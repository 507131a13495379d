#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Long-lived TCP connections that exchange data all the time (adopt.sh).

    klb_adopt_client.py ADDR PORT N DIR

Opens N connections to ADDR:PORT; each server first sends its name
("beN\\n"), then echoes. Writes DIR/ids ("LOCALPORT NAME" a line) and
DIR/ready, then sends a 64-byte line on every live connection every 0.2 s
and reads its echo (3 s at most, else the connection is dead). Bytes
echoed are counted per connection in three phases: until DIR/moved
appears, until DIR/flooded appears, after. When DIR/stop appears:
DIR/result, one line per connection,
"LOCALPORT NAME BYTES0 BYTES1 BYTES2 ok|dead:REASON", and exit.
"""
import os
import select
import socket
import sys
import time


def readline(s, deadline):
    buf = b""
    while not buf.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("no answer")
        r, _, _ = select.select([s], [], [], left)
        if not r:
            continue
        b = s.recv(4096)
        if not b:
            raise ConnectionError("closed")
        buf += b
    return buf


def main():
    addr, port, n, d = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    conns = []
    for _ in range(n):
        s = socket.create_connection((addr, port), timeout=5)
        name = readline(s, time.monotonic() + 5).decode().strip()
        conns.append({"s": s, "port": s.getsockname()[1], "name": name,
                      "bytes": [0, 0, 0], "status": "ok"})
    with open(os.path.join(d, "ids"), "w") as f:
        for c in conns:
            f.write("%d %s\n" % (c["port"], c["name"]))
    open(os.path.join(d, "ready"), "w").close()
    line = b"x" * 63 + b"\n"
    while not os.path.exists(os.path.join(d, "stop")):
        phase = 0
        for i, f in enumerate(("moved", "flooded")):
            if os.path.exists(os.path.join(d, f)):
                phase = i + 1
        for c in conns:
            if c["status"] != "ok":
                continue
            try:
                c["s"].sendall(line)
                got = readline(c["s"], time.monotonic() + 3)
                c["bytes"][phase] += len(got)
            except (OSError, TimeoutError, ConnectionError) as e:
                c["status"] = "dead:" + type(e).__name__
        time.sleep(0.2)
    with open(os.path.join(d, "result"), "w") as f:
        for c in conns:
            f.write("%d %s %d %d %d %s\n" % (c["port"], c["name"], *c["bytes"],
                                            c["status"]))
            c["s"].close()


if __name__ == "__main__":
    main()
