"""The two ends of a harness transfer: a one-connection server (receiver) and a client (sender).

server: endpoint.py server ADDR PORT   — accepts one connection, reads until EOF, prints the
        byte count as JSON, closes.
client: endpoint.py client ADDR PORT SIZE CC — connects, sends SIZE bytes, half-closes, waits for
        the server's close, prints timings as JSON.
Both use the namespaces' default socket options: the kernel under test decides everything.
"""

from __future__ import annotations

import json
import socket
import sys
import time


def server(addr: str, port: int) -> None:
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, port))
    ls.listen(1)
    print("listening", flush=True)
    conn, _ = ls.accept()
    n = 0
    while True:
        b = conn.recv(1 << 20)
        if not b:
            break
        n += len(b)
    conn.close()
    ls.close()
    print(json.dumps({"received": n}), flush=True)


def client(addr: str, port: int, size: int, cc: str) -> None:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    t0 = time.time()
    s.connect((addr, port))
    buf = b"\x5a" * size
    s.sendall(buf)
    s.shutdown(socket.SHUT_WR)
    while s.recv(4096):
        pass
    t1 = time.time()
    s_cc = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\0").decode()
    s.close()
    print(json.dumps({"sent": size, "cc": s_cc, "t_connect": t0, "t_closed": t1}), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "server":
        server(sys.argv[2], int(sys.argv[3]))
    else:
        client(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
