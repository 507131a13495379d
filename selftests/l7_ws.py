#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""WebSocket server and client for the klb L7 selftests (http mode, Upgrade).

  l7_ws.py serve --port P --log FILE [--pidfile F]
  l7_ws.py client --url ws://ADDR:PORT/PATH --sizes N,N,... [--timeout S]

Python's websockets package (Debian python3-websockets), without
compression, so every message crosses the wire at its own size.

serve: echoes every message back (text as text, binary as binary) and
logs one line per connection: "open PATH XFF" when the handshake is
done (XFF: the X-Forwarded-For it got, or -), "close CODE" at the end.

client: one connection; for each size a message of that many bytes
(text and binary in turn), sent and its echo awaited; then all of them
at once, echoes after; then a clean close (code 1000). Prints one JSON
object: {"echoed": [true, ...], "burst": bool, "close_code": N,
"upgrade": response Upgrade field}; exit 0 if every echo matched and the
close was clean, else 1.
"""
import argparse
import asyncio
import base64
import json
import os
import sys

import websockets


def serve(args):
    log = open(args.log, "a", buffering=1)

    async def echo(ws):
        log.write("open %s %s\n" % (ws.path, ws.request_headers.get(
            "X-Forwarded-For", "-")))
        try:
            async for msg in ws:
                await ws.send(msg)
        finally:
            log.write("close %s\n" % ws.close_code)

    async def main():
        async with websockets.serve(echo, "0.0.0.0", args.port,
                                    compression=None, max_size=None):
            if args.pidfile:
                with open(args.pidfile, "w") as f:
                    f.write("%d\n" % os.getpid())
            await asyncio.Future()

    asyncio.run(main())


def message(i, n):
    if i % 2:
        return os.urandom(n)
    # text: random too, made fast (the emulated VM is slow per call)
    return base64.b64encode(os.urandom(n))[:n].decode()


async def client(args):
    sizes = [int(x) for x in args.sizes.split(",")]
    out = {"echoed": [], "burst": False, "close_code": None, "upgrade": None}
    async with websockets.connect(args.url, compression=None, max_size=None,
                                  open_timeout=args.timeout,
                                  close_timeout=args.timeout) as ws:
        out["upgrade"] = ws.response_headers.get("Upgrade")
        for i, n in enumerate(sizes):
            m = message(i, n)
            await ws.send(m)
            back = await asyncio.wait_for(ws.recv(), args.timeout)
            out["echoed"].append(back == m)
        msgs = [message(i, n) for i, n in enumerate(sizes)]
        for m in msgs:
            await ws.send(m)
        backs = [await asyncio.wait_for(ws.recv(), args.timeout)
                 for _ in msgs]
        out["burst"] = backs == msgs
    out["close_code"] = ws.close_code
    print(json.dumps(out))
    good = all(out["echoed"]) and out["burst"] and out["close_code"] == 1000
    return 0 if good else 1


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    sp = sub.add_parser("serve")
    sp.add_argument("--port", type=int, required=True)
    sp.add_argument("--log", required=True)
    sp.add_argument("--pidfile")
    cp = sub.add_parser("client")
    cp.add_argument("--url", required=True)
    cp.add_argument("--sizes", default="5,1000,70000")
    cp.add_argument("--timeout", type=float, default=20)
    args = p.parse_args()
    if args.cmd == "serve":
        serve(args)
        return 0
    return asyncio.run(client(args))


if __name__ == "__main__":
    sys.exit(main())
