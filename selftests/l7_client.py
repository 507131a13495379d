#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Clients for the klb L7 selftests that curl and openssl cannot play.

  l7_client.py slow --addr A --port P --delay-ms D [--timeout S] [--path P]
      send "GET PATH HTTP/1.1 / Host / Connection: close" one byte at a
      time, D ms apart (stops sending once the server answered or closed),
      then read until the server closes or S seconds passed. Prints JSON:
      {"status": N or null, "closed": bool, "secs": S (connect to close
      or answer), "sent": bytes sent, "response": first 200 bytes}

  l7_client.py tls --addr A --port P [--sni NAME] [--pieces N] [--records K]
                   [--delay-ms D] [--timeout S]
      TLS handshake (no certificate check) whose ClientHello is sent in N
      TCP segments D ms apart (and, with K > 1, re-framed into K TLS
      records first), then "GET / HTTP/1.1" with Host NAME. Prints JSON:
      {"body": response body, "status": N, "cn": subject CN of the
      server's certificate, "hello_len": bytes of the ClientHello}
"""
import argparse
import json
import select
import socket
import ssl
import struct
import sys
import time


def connect(addr, port, timeout):
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.settimeout(timeout)
    s.connect((addr, port))
    return s


def read_rest(s, deadline, data=b""):
    """Read until EOF or deadline: (data, closed)."""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return data, False
        s.settimeout(left)
        try:
            d = s.recv(65536)
        except socket.timeout:
            return data, False
        except ConnectionResetError:
            return data, True
        if not d:
            return data, True
        data += d


def status_of(data):
    try:
        line = data.split(b"\r\n", 1)[0].decode("latin-1")
        if line.startswith("HTTP/1."):
            return int(line.split(" ")[1])
    except (ValueError, IndexError):
        pass
    return None


def slow(a):
    req = ("GET %s HTTP/1.1\r\nHost: slow.example.com\r\n"
           "User-Agent: l7-slow\r\nConnection: close\r\n\r\n" % a.path).encode()
    t0 = time.monotonic()
    s = connect(a.addr, a.port, a.timeout)
    sent = 0
    data = b""
    closed = False
    t_answer = None
    for i in range(len(req)):
        r, _, _ = select.select([s], [], [], 0)
        if r:
            break                   # an answer (408?) or a close: stop
        try:
            s.send(req[i:i + 1])
        except OSError:
            break
        sent += 1
        time.sleep(a.delay_ms / 1000.0)
    deadline = t0 + a.timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        s.settimeout(left)
        try:
            d = s.recv(65536)
        except socket.timeout:
            break
        except ConnectionResetError:
            closed = True
            break
        if d and t_answer is None:
            t_answer = time.monotonic()
        if not d:
            closed = True
            break
        data += d
    t_end = time.monotonic()
    print(json.dumps({
        "status": status_of(data), "closed": closed,
        "secs": round((t_answer or t_end) - t0, 2), "sent": sent,
        "response": data[:200].decode("latin-1")}))
    return 0


def cn_of(der):
    """Subject CN of a self-signed certificate (issuer == subject): the
    first commonName attribute in the DER."""
    oid = b"\x06\x03\x55\x04\x03"
    i = der.find(oid)
    if i < 0:
        return None
    i += len(oid)
    ln = der[i + 1]
    return der[i + 2:i + 2 + ln].decode("utf-8", "replace")


def reframe(hello, k):
    """Split the handshake message of one TLS record into k records."""
    ctype, ver, ln = hello[0], hello[1:3], struct.unpack("!H", hello[3:5])[0]
    msg, rest = hello[5:5 + ln], hello[5 + ln:]
    size = -(-len(msg) // k)
    out = b""
    for i in range(0, len(msg), size):
        frag = msg[i:i + size]
        out += bytes([ctype]) + ver + struct.pack("!H", len(frag)) + frag
    return out + rest


def tls(a):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = ctx.wrap_bio(inc, out, server_side=False,
                       server_hostname=a.sni or None)
    s = connect(a.addr, a.port, a.timeout)
    deadline = time.monotonic() + a.timeout
    try:
        obj.do_handshake()
    except ssl.SSLWantReadError:
        pass
    hello = out.read()
    if a.records > 1:
        hello = reframe(hello, a.records)
    n = max(1, a.pieces)
    # Cut points: the first piece is 1 byte (not even a record header),
    # the rest evenly.
    cuts = [0, 1] if n > 1 else [0]
    step = max(1, (len(hello) - 1) // max(1, n - 1))
    while cuts[-1] + step < len(hello) and len(cuts) < n:
        cuts.append(cuts[-1] + step)
    cuts.append(len(hello))
    for i in range(len(cuts) - 1):
        s.sendall(hello[cuts[i]:cuts[i + 1]])
        if i < len(cuts) - 2:
            time.sleep(a.delay_ms / 1000.0)

    def pump():
        d = out.read()
        if d:
            s.sendall(d)

    def feed():
        s.settimeout(max(0.01, deadline - time.monotonic()))
        d = s.recv(65536)
        if not d:
            inc.write_eof()
        else:
            inc.write(d)
        return d

    while True:
        try:
            obj.do_handshake()
            break
        except ssl.SSLWantReadError:
            pump()
            if not feed():
                raise SystemExit("closed during the handshake")
    pump()
    cn = cn_of(obj.getpeercert(binary_form=True) or b"")
    host = a.sni or a.addr
    obj.write(("GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n"
               % host).encode())
    pump()
    data = b""
    while True:
        try:
            d = obj.read(65536)
            if not d:
                break
            data += d
        except ssl.SSLWantReadError:
            try:
                if not feed():
                    break
            except socket.timeout:
                break
        except (ssl.SSLZeroReturnError, ssl.SSLEOFError):
            break
    body = data.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in data else b""
    print(json.dumps({"status": status_of(data), "cn": cn,
                      "body": body.decode("latin-1").strip(),
                      "hello_len": len(hello),
                      "pieces": len(cuts) - 1}))
    return 0


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    sp = sub.add_parser("slow")
    sp.add_argument("--addr", required=True)
    sp.add_argument("--port", type=int, default=80)
    sp.add_argument("--path", default="/")
    sp.add_argument("--delay-ms", type=float, required=True)
    sp.add_argument("--timeout", type=float, default=20)
    sp = sub.add_parser("tls")
    sp.add_argument("--addr", required=True)
    sp.add_argument("--port", type=int, default=443)
    sp.add_argument("--sni")
    sp.add_argument("--pieces", type=int, default=1)
    sp.add_argument("--records", type=int, default=1)
    sp.add_argument("--delay-ms", type=float, default=100)
    sp.add_argument("--timeout", type=float, default=20)
    a = p.parse_args()
    return slow(a) if a.cmd == "slow" else tls(a)


if __name__ == "__main__":
    sys.exit(main())
