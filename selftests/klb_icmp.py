#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send one ICMP "fragmentation needed" (IPv4) or "packet too big" (IPv6)
error to a VIP, quoting a TCP segment VIP:VPORT -> CLIENT:CPORT, as a router
between a backend and the client would. Raw socket: run as root in the
client's namespace. Used by the dr and tun selftests to see klb send such an
error on to the backend that holds the connection."""
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


def quote_tcp(vport, cport):
    # the first 8 bytes of the quoted TCP header: ports and sequence
    return struct.pack("!HHI", vport, cport, 1)


def send_v4(vip, client, vport, cport, mtu):
    q = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + 20, 0, 0x4000, 64,
                    socket.IPPROTO_TCP, 0, socket.inet_aton(vip),
                    socket.inet_aton(client))
    q = q[:10] + struct.pack("!H", csum(q)) + q[12:]
    body = q + quote_tcp(vport, cport)
    hdr = struct.pack("!BBHHH", 3, 4, 0, 0, mtu)
    msg = hdr[:2] + struct.pack("!H", csum(hdr + body)) + hdr[4:] + body
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    s.sendto(msg, (vip, 0))


def send_v6(vip, client, vport, cport, mtu):
    q = struct.pack("!IHBB16s16s", 6 << 28, 20, socket.IPPROTO_TCP, 64,
                    ipaddress.IPv6Address(vip).packed,
                    ipaddress.IPv6Address(client).packed)
    # the kernel computes the ICMPv6 checksum (it covers a pseudo header)
    msg = struct.pack("!BBHI", 2, 0, 0, mtu) + q + quote_tcp(vport, cport)
    s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
    s.sendto(msg, (vip, 0))


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--vip", required=True)
    p.add_argument("--client", required=True)
    p.add_argument("--vport", type=int, required=True)
    p.add_argument("--cport", type=int, required=True)
    p.add_argument("--mtu", type=int, default=1300)
    a = p.parse_args()
    if ":" in a.vip:
        send_v6(a.vip, a.client, a.vport, a.cport, a.mtu)
    else:
        send_v4(a.vip, a.client, a.vport, a.cport, a.mtu)


if __name__ == "__main__":
    main()
