#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Spoofed TCP SYNs and a SYN-ACK counter, for selftests/l7_steer.sh.

  l7_spoof.py syn --iface IF --dst-mac MAC --src ADDR --dst ADDR --port P
                  [--count N]
      N SYNs (default 1) from ADDR (any address: nothing checks it) to
      ADDR:P, written as whole Ethernet frames on IF (AF_PACKET), so no
      route lookup of the sender decides anything. Source ports 40000+.
  l7_spoof.py sniff --iface IF --port P --until FILE [--ready FILE]
      Count the SYN-ACKs from port P seen on IF (AF_PACKET, both
      directions) until the --until file exists (and one second more),
      then print the count. The --ready file is created once the socket
      is open.
Plain sockets only: scapy takes minutes to import under emulation.
"""
import argparse
import ipaddress
import os
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def tcp_syn(src, dst, sport, dport, pseudo):
    hdr = struct.pack("!HHIIBBHHH", sport, dport, 0x12345678 + sport, 0,
                      5 << 4, 0x02, 64240, 0, 0)
    c = csum(pseudo + hdr)
    return hdr[:16] + struct.pack("!H", c) + hdr[18:]


def frame(dst_mac, src_mac, src, dst, sport, dport):
    s, d = ipaddress.ip_address(src), ipaddress.ip_address(dst)
    if s.version == 4:
        pseudo = s.packed + d.packed + struct.pack("!BBH", 0, 6, 20)
        tcp = tcp_syn(s, d, sport, dport, pseudo)
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 1, 0x4000,
                         64, 6, 0, s.packed, d.packed)
        ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
        etype = 0x0800
    else:
        pseudo = s.packed + d.packed + struct.pack("!IxxxB", 20, 6)
        tcp = tcp_syn(s, d, sport, dport, pseudo)
        ip = struct.pack("!IHBB16s16s", 6 << 28, len(tcp), 6, 64, s.packed,
                         d.packed)
        etype = 0x86DD
    return dst_mac + src_mac + struct.pack("!H", etype) + ip + tcp


def mac(text):
    return bytes(int(x, 16) for x in text.split(":"))


def cmd_syn(a):
    src_mac = mac(open("/sys/class/net/%s/address" % a.iface).read().strip())
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((a.iface, 0))
    for i in range(a.count):
        s.send(frame(mac(a.dst_mac), src_mac, a.src, a.dst, 40000 + i,
                     a.port))
        time.sleep(0.02)
    return 0


def synack_port(pkt):
    """The source port of a TCP SYN-ACK in this frame, else None."""
    off = 14
    if len(pkt) < off + 40:
        return None
    etype = struct.unpack("!H", pkt[12:14])[0]
    if etype == 0x0800:
        ihl = (pkt[off] & 0xF) * 4
        if pkt[off + 9] != 6:
            return None
        t = off + ihl
    elif etype == 0x86DD:
        if pkt[off + 6] != 6:
            return None
        t = off + 40
    else:
        return None
    if len(pkt) < t + 14:
        return None
    if pkt[t + 13] & 0x12 != 0x12:
        return None
    return struct.unpack("!H", pkt[t:t + 2])[0]


def cmd_sniff(a):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                      socket.htons(ETH_P_ALL))
    s.bind((a.iface, 0))
    s.settimeout(0.2)
    if a.ready:
        open(a.ready, "w").close()
    n = 0
    end = None
    while end is None or time.monotonic() < end:
        if end is None and os.path.exists(a.until):
            end = time.monotonic() + 1
        try:
            pkt = s.recv(65536)
        except socket.timeout:
            continue
        try:
            n += synack_port(pkt) == a.port
        except (IndexError, struct.error) as e:
            print("sniff: frame of %d bytes: %s" % (len(pkt), e),
                  file=sys.stderr)
    print(n, flush=True)
    return 0


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    sp = sub.add_parser("syn")
    sp.add_argument("--iface", required=True)
    sp.add_argument("--dst-mac", required=True)
    sp.add_argument("--src", required=True)
    sp.add_argument("--dst", required=True)
    sp.add_argument("--port", type=int, required=True)
    sp.add_argument("--count", type=int, default=1)
    sn = sub.add_parser("sniff")
    sn.add_argument("--iface", required=True)
    sn.add_argument("--port", type=int, required=True)
    sn.add_argument("--until", required=True)
    sn.add_argument("--ready")
    a = p.parse_args()
    return cmd_syn(a) if a.cmd == "syn" else cmd_sniff(a)


if __name__ == "__main__":
    sys.exit(main())
