"""Deterministic userspace L2 forwarder between two interfaces (AF_PACKET sockets).

Runs inside the middle network namespace, where the two veth ends have no IP address, so
the middle kernel does not route: every frame crosses only through this program. It is the
harness's link emulator (``tc netem`` is not compiled into these kernels):

- a one-way propagation delay per direction (``delay_ab`` for data sender -> receiver,
  ``delay_ba`` for ACKs);
- ``drop_nth``: drop the listed 1-based occurrences of *data* segments (TCP payload > 0,
  retransmissions counted) in the a -> b direction. This is the simulator's ``drop_nth``
  loss model counted the same way, so a run's losses replay exactly in the simulator;
- ``reorder_nth``: the listed data occurrences get ``extra`` seconds of extra delay (later
  packets overtake them: netem's ``delay ... reorder``);
- ``spikes``: ``[t0, t1, dir]`` in seconds from the first SYN seen: a packet whose delivery
  would fall in ``[t0, t1)`` is held and delivered at ``t1``, in its original order (the
  simulator's ``delay_spikes`` semantics).

The rate limit is not here: a ``tbf`` qdisc on the egress interface toward the receiver
serialises what this program sends (AF_PACKET transmissions go through the qdisc).

On SIGTERM it writes a JSON log: every frame with arrival time, direction, TCP seq/ack,
payload length, what was done, the scheduled and the actual release time (the forwarder's
lateness is reported by the harness: it is the timing error of the emulator).

Usage: forwarder.py CONFIG.json LOG.json   (CONFIG: {"a": ifname, "b": ifname, ...})
"""

from __future__ import annotations

import heapq
import json
import select
import signal
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
#: ``sll_pkttype`` of a frame this host sent (we see our own transmissions): never forward.
PACKET_OUTGOING = 4
ETH_P_IP = 0x0800
IPPROTO_TCP = 6
TCP_SYN = 0x02


def tcp_fields(frame: bytes):
    """(seq, ack, flags, payload_len) of an IPv4/TCP frame, or None."""
    if len(frame) < 14 + 20 + 20 or struct.unpack_from("!H", frame, 12)[0] != ETH_P_IP:
        return None
    ihl = (frame[14] & 0x0F) * 4
    if frame[14 + 9] != IPPROTO_TCP:
        return None
    total = struct.unpack_from("!H", frame, 14 + 2)[0]
    t = 14 + ihl
    seq, ack = struct.unpack_from("!II", frame, t + 4)
    doff = (frame[t + 12] >> 4) * 4
    flags = frame[t + 13]
    return seq, ack, flags, total - ihl - doff


def segment_copies(rel: int, plen: int, mss: int, copies: dict) -> list:
    """[(i, c)]: the MSS-sized segments whose first byte this packet carries (segment i starts
    at relative byte (i - 1) * mss + 1) and which copy of each it is (0 = the original);
    counts the copy in COPIES. A packet that starts mid-segment is no copy of that segment."""
    segs = []
    i = -(-(rel - 1) // mss) + 1  # the first segment whose first byte is in [rel, rel + plen)
    while (i - 1) * mss + 1 < rel + plen:
        segs.append((i, copies.get(i, 0)))
        copies[i] = copies.get(i, 0) + 1
        i += 1
    return segs


def main() -> int:
    cfg = json.load(open(sys.argv[1]))
    log_path = sys.argv[2]
    delay = {"ab": float(cfg.get("delay_ab", 0.0)), "ba": float(cfg.get("delay_ba", 0.0))}
    drop_nth = set(int(n) for n in cfg.get("drop_nth", []))
    reorder = {int(k): float(v) for k, v in cfg.get("reorder_nth", {}).items()}
    spikes = [(float(a), float(b), d) for a, b, d in cfg.get("spikes", [])]
    mss = int(cfg.get("mss", 1448))
    # drop_seg: [[i, c], ...] drop copy c (0 = original, 1 = first retransmission, ...) of the
    # i-th MSS-sized data segment (1-based, by sequence number from the ISN); reorder_seg:
    # [[i, extra_s], ...] delays the original of segment i.
    drop_seg = set((int(i), int(c)) for i, c in cfg.get("drop_seg", []))
    reorder_seg = {int(i): float(x) for i, x in cfg.get("reorder_seg", [])}
    rnd = cfg.get("random")
    if rnd:  # Bernoulli loss on data packets, drawn per occurrence from a seeded stream
        import random

        rng = random.Random(int(rnd["seed"]))
        drop_nth |= {n for n in range(1, 200001) if rng.random() < float(rnd["p"])}
    copies: dict = {}
    isn = None

    socks = {}
    for end in ("a", "b"):
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8 << 20)
        s.bind((cfg[end], 0))
        s.setblocking(False)
        socks[end] = s
    out_of = {"a": socks["b"], "b": socks["a"]}
    dir_of = {"a": "ab", "b": "ba"}

    heap: list = []
    counter = 0
    data_count = 0
    t_syn = None
    log: list = []
    stop = False

    def on_term(*_):
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    fds = {socks["a"].fileno(): "a", socks["b"].fileno(): "b"}
    print("ready", flush=True)

    while not stop:
        now = time.monotonic()
        timeout = 0.2 if not heap else max(0.0, heap[0][0] - now)
        try:
            ready, _, _ = select.select(list(fds), [], [], timeout)
        except InterruptedError:
            continue
        for fd in ready:
            end = fds[fd]
            s = socks[end]
            while True:
                try:
                    frame, addr = s.recvfrom(65535)
                except BlockingIOError:
                    break
                if addr[2] == PACKET_OUTGOING:
                    continue
                now = time.monotonic()
                d = dir_of[end]
                f = tcp_fields(frame)
                rec = {"t": now, "dir": d}
                release = now + delay[d]
                if f is not None:
                    seq, ack, flags, plen = f
                    rec.update(seq=seq, ack=ack, len=plen, flags=flags)
                    if t_syn is None and flags & TCP_SYN:
                        t_syn = now
                    if d == "ab" and flags & TCP_SYN:
                        isn = seq
                    if d == "ab" and plen > 0:
                        data_count += 1
                        rec["nth"] = data_count
                        rel = (seq - isn) % (1 << 32) if isn is not None else 0
                        segs = segment_copies(rel, plen, mss, copies)
                        rec["segs"] = segs
                        if any(sc in drop_seg for sc in segs):
                            rec["action"] = "drop"
                            log.append(rec)
                            continue
                        if segs and segs[0][1] == 0 and segs[0][0] in reorder_seg and (rel - 1) % mss == 0:
                            release += reorder_seg[segs[0][0]]
                            rec["action"] = "reorder"
                        if data_count in drop_nth:
                            rec["action"] = "drop"
                            log.append(rec)
                            continue
                        if data_count in reorder:
                            release += reorder[data_count]
                            rec["action"] = "reorder"
                if t_syn is not None:
                    rel = release - t_syn
                    for t0, t1, sd in spikes:
                        if sd in (d, "both") and t0 <= rel < t1:
                            release = t_syn + t1
                            rec["action"] = "hold"
                rec.setdefault("action", "fwd")
                rec["release"] = release
                log.append(rec)
                counter += 1
                heapq.heappush(heap, (release, counter, end, frame, rec))
        now = time.monotonic()
        while heap and heap[0][0] <= now:
            _, _, end, frame, rec = heapq.heappop(heap)
            try:
                out_of[end].send(frame)
                rec["sent"] = time.monotonic()
            except OSError as e:  # qdisc full (ENOBUFS): the frame is lost, and logged
                rec["action"] = "qdisc_drop"
                rec["error"] = str(e)
            now = time.monotonic()
    out = {"t_syn_monotonic": t_syn, "realtime_minus_monotonic": time.time() - time.monotonic(), "frames": log}
    with open(log_path, "w") as fh:
        json.dump(out, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main())
