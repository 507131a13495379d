#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""UDP server and client for the klb selftests.

  klb_udp.py serve --port P --name beN [--pidfile F]
      answer every datagram (IPv4 and IPv6) with "beN\\n"; count them
  klb_udp.py query --addr A --port P [--count N] [--bind B] [--timeout S]
                   [--same-socket] [--size BYTES]
      send N datagrams (each from a new socket, i.e. a new source port,
      unless --same-socket), print one line per answer: "NAME FROM_ADDR",
      and "timeout" for each lost one. Exit 0 if every datagram was answered.
"""
import argparse
import os
import socket
import sys


def serve(a):
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("::", a.port))
    if a.pidfile:
        with open(a.pidfile, "w") as f:
            f.write("%d\n" % os.getpid())
    reply = (a.name + "\n").encode()
    while True:
        _, peer = s.recvfrom(65535)
        s.sendto(reply, peer)


def query(a):
    fam = socket.AF_INET6 if ":" in a.addr else socket.AF_INET
    lost = 0
    s = None
    for _ in range(a.count):
        if s is None or not a.same_socket:
            if s is not None:
                s.close()
            s = socket.socket(fam, socket.SOCK_DGRAM)
            if a.bind:
                s.bind((a.bind, 0))
            s.settimeout(a.timeout)
        s.sendto(b"x" * max(a.size, 1), (a.addr, a.port))
        try:
            data, peer = s.recvfrom(65535)
            print(data.decode().strip(), peer[0], flush=True)
        except socket.timeout:
            print("timeout", flush=True)
            lost += 1
    return 1 if lost else 0


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    sp = sub.add_parser("serve")
    sp.add_argument("--port", type=int, required=True)
    sp.add_argument("--name", required=True)
    sp.add_argument("--pidfile")
    q = sub.add_parser("query")
    q.add_argument("--addr", required=True)
    q.add_argument("--port", type=int, required=True)
    q.add_argument("--count", type=int, default=1)
    q.add_argument("--bind")
    q.add_argument("--timeout", type=float, default=2.0)
    q.add_argument("--same-socket", action="store_true")
    q.add_argument("--size", type=int, default=1)
    a = p.parse_args()
    if a.cmd == "serve":
        serve(a)
        return 0
    return query(a)


if __name__ == "__main__":
    sys.exit(main())
