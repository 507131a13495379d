#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send one ICMP "fragmentation needed" (IPv4) or "packet too big" (IPv6)
error to TO, quoting a TCP segment QSRC:QSPORT -> QDST:QDPORT, as a router
on the segment's way would. Raw socket: run as root in the namespace the
error should come from. The L4 mode selftests use it to see klb translate
such errors and send them on to the host that holds the connection."""
import argparse
import ipaddress
import socket
import struct


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def quote_tcp(sport, dport):
    # the first 8 bytes of the quoted TCP header: ports and sequence
    return struct.pack("!HHI", sport, dport, 1)


def send_v4(a):
    q = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + 20, 0, 0x4000, 64,
                    socket.IPPROTO_TCP, 0, socket.inet_aton(a.qsrc),
                    socket.inet_aton(a.qdst))
    q = q[:10] + struct.pack("!H", csum(q)) + q[12:]
    body = q + quote_tcp(a.qsport, a.qdport)
    hdr = struct.pack("!BBHHH", 3, 4, 0, 0, a.mtu)
    msg = hdr[:2] + struct.pack("!H", csum(hdr + body)) + hdr[4:] + body
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    s.sendto(msg, (a.to, 0))


def send_v6(a):
    q = struct.pack("!IHBB16s16s", 6 << 28, 20, socket.IPPROTO_TCP, 64,
                    ipaddress.IPv6Address(a.qsrc).packed,
                    ipaddress.IPv6Address(a.qdst).packed)
    # the kernel computes the ICMPv6 checksum (it covers a pseudo header)
    msg = struct.pack("!BBHI", 2, 0, 0, a.mtu) + q + quote_tcp(a.qsport, a.qdport)
    s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
    s.sendto(msg, (a.to, 0))


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--to", required=True)
    p.add_argument("--qsrc", required=True)
    p.add_argument("--qsport", type=int, required=True)
    p.add_argument("--qdst", required=True)
    p.add_argument("--qdport", type=int, required=True)
    p.add_argument("--mtu", type=int, default=1300)
    a = p.parse_args()
    if ":" in a.to:
        send_v6(a)
    else:
        send_v4(a)


if __name__ == "__main__":
    main()
