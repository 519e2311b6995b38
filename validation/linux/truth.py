"""Ground truth per retransmission of one harness run (run.py's output directory).

    python3 validation/linux/truth.py DIR [DIR ...]     # writes DIR/truth.csv, DIR/truth.json

- **Which packets are retransmissions**: data packets in the sender's capture that start
  below the highest sequence number sent before them (a tail loss probe of new data is not).
- **Needed or spurious**, from the two captures and the forwarder: the sender's capture and
  the forwarder's log list the same data packets in the same order (one veth between them,
  checked packet by packet on seq and length); the forwarder is the only place a packet is
  lost (its drops, and qdisc drops it logs), and the receiver's capture must hold exactly
  the delivered copies (checked: same count, same (seq, len) multiset). A retransmission is
  spurious when every byte of it was in copies sent before it that were delivered, whenever
  they arrived (the simulator's ground-truth rule, docs/outputs.md).
- **Why the kernel sent it**, from ``tcp:tcp_retransmit_skb`` (err = 0 records, matched in
  order to the capture's retransmissions by sequence number): the kernel stack gives the
  trigger — ``rto`` (``tcp_retransmit_timer``), ``tlp`` (``tcp_send_loss_probe``),
  ``rack_timer`` (``tcp_rack_reo_timeout``), ``ack`` (sent while processing an ACK:
  ``tcp_ack`` -> ``tcp_xmit_retransmit_queue``; RACK, DupThresh and NewReno marking all
  end there, the stack cannot tell them apart). The cause in tcplab's vocabulary:
  ``rto`` for the timer and for every retransmission in the Loss state (``icsk_ca_state`` 4,
  the go-back-N after a timeout), ``tlp`` for the probe, and in the Recovery state (3)
  ``fast_retransmit`` for the first retransmission of an episode (a new ``high_seq``) and
  ``sack_recovery`` for the later ones.
- **RTO at each expiry**: ``icsk_rto`` read in the timer's own retransmission, before
  ``tcp_retransmit_timer`` backs it off, i.e. the value that expired (jiffies x 1000 / HZ).
"""

from __future__ import annotations

import bisect
import csv
import json
import re
import struct
import sys
from pathlib import Path

CA_STATES = {0: "open", 1: "disorder", 2: "cwr", 3: "recovery", 4: "loss"}
TCP_SYN, TCP_FIN = 0x02, 0x01


def read_pcap(path: Path):
    """Yield (frame_no, ts_ns, src, dst, sport, dport, seq, ack, flags, payload_len) of
    IPv4/TCP frames of an Ethernet pcap (micro- or nanosecond)."""
    data = path.read_bytes()
    magic = struct.unpack_from("<I", data, 0)[0]
    if magic == 0xA1B2C3D4:
        scale = 1000
    elif magic == 0xA1B23C4D:
        scale = 1
    else:
        raise ValueError(f"{path}: not a little-endian pcap")
    linktype = struct.unpack_from("<I", data, 20)[0]
    if linktype != 1:
        raise ValueError(f"{path}: link type {linktype}, expected Ethernet")
    off, n = 24, 0
    while off + 16 <= len(data):
        sec, frac, incl, _orig = struct.unpack_from("<IIII", data, off)
        pkt = data[off + 16: off + 16 + incl]
        off += 16 + incl
        n += 1
        if len(pkt) < 54 or pkt[12:14] != b"\x08\x00" or pkt[23] != 6:
            continue
        ihl = (pkt[14] & 0x0F) * 4
        total = struct.unpack_from("!H", pkt, 16)[0]
        src, dst = pkt[26:30], pkt[30:34]
        t = 14 + ihl
        sport, dport, seq, ack = struct.unpack_from("!HHII", pkt, t)
        doff = (pkt[t + 12] >> 4) * 4
        yield n, sec * 1_000_000_000 + frac * scale, src, dst, sport, dport, seq, ack, pkt[t + 13], total - ihl - doff


def read_trace(path: Path):
    """RETX records of the bpftrace output, each with its kernel stack's function names."""
    recs, cur = [], None
    in_stack = False
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("RETX "):
            cur = {k: int(v) for k, v in re.findall(r"(\w+)=(-?\d+)", line)}
            cur["stack"] = []
            recs.append(cur)
        elif line.startswith("STACK"):
            in_stack = True
        elif line.startswith("END"):
            in_stack = False
        elif in_stack and cur is not None and line.strip():
            cur["stack"].append(line.strip().split("+")[0])
    return recs


def trigger_of(stack: list[str]) -> str:
    if "tcp_retransmit_timer" in stack:
        return "rto"
    if "tcp_send_loss_probe" in stack:
        return "tlp"
    if "tcp_rack_reo_timeout" in stack:
        return "rack_timer"
    if "tcp_ack" in stack:
        return "ack"
    return "other"


class Intervals:
    """Union of half-open byte ranges (sorted, merged)."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def add(self, a: int, b: int) -> None:
        i = bisect.bisect_left(self.ends, a)
        j = bisect.bisect_right(self.starts, b)
        if i < j:
            a = min(a, self.starts[i])
            b = max(b, self.ends[j - 1])
        self.starts[i:j] = [a]
        self.ends[i:j] = [b]

    def covers(self, a: int, b: int) -> bool:
        i = bisect.bisect_right(self.starts, a) - 1
        return i >= 0 and self.ends[i] >= b


def analyse(d: Path, size: int, hz: int | None = None) -> dict:
    meta = json.loads((d / "meta.json").read_text())
    hz = hz or meta.get("hz") or 250
    snd = list(read_pcap(d / "sender.pcap"))
    rcv = list(read_pcap(d / "receiver.pcap"))
    fwd = json.loads((d / "forwarder.json").read_text())
    problems: list[str] = []

    syn = next(p for p in snd if p[8] & TCP_SYN and not p[8] & 0x10)
    t_syn, isn, sport, dport = syn[1], syn[6], syn[4], syn[5]
    sender_ip = syn[2]

    def rel(seq: int) -> int:
        return (seq - isn) % (1 << 32)

    data = [p for p in snd if p[2] == sender_ip and p[9] > 0]
    fdata = [r for r in fwd["frames"] if r["dir"] == "ab" and r.get("len", 0) > 0]
    if len(data) != len(fdata):
        problems.append(f"sender capture has {len(data)} data packets, forwarder saw {len(fdata)}")
    for p, r in zip(data, fdata):
        if p[6] != r["seq"] or p[9] != r["len"]:
            problems.append(f"frame {p[0]}: sender capture and forwarder disagree")
            break
    delivered = [r["action"] not in ("drop", "qdisc_drop") for r in fdata]

    # The receiver capture holds exactly the delivered copies, in the forwarder's send order.
    rdata = [p for p in rcv if p[2] == sender_ip and p[9] > 0]
    sent_order = sorted((i for i, ok in enumerate(delivered) if ok), key=lambda i: fdata[i].get("sent", 0))
    if len(rdata) != len(sent_order):
        problems.append(f"receiver capture has {len(rdata)} data packets, forwarder delivered {len(sent_order)}")
    rframe_of: dict[int, int] = {}
    for p, i in zip(rdata, sent_order):
        if (p[6], p[9]) != (fdata[i]["seq"], fdata[i]["len"]):
            problems.append(f"receiver frame {p[0]} is not the forwarder's delivered copy")
            break
        rframe_of[i] = p[0]

    # Completion: the receiver's in-order point reaches the last byte.
    rcv_nxt, holes, completion = 1, Intervals(), None
    for p in rdata:
        a = rel(p[6])
        holes.add(a, a + p[9])
        i = bisect.bisect_right(holes.starts, rcv_nxt) - 1
        if i >= 0 and holes.ends[i] > rcv_nxt:
            rcv_nxt = holes.ends[i]
        if completion is None and rcv_nxt >= size + 1:
            completion = p[1] - t_syn

    # bpftrace prints each CPU's buffer in turn: records are not in time order.
    trace = sorted((r for r in read_trace(d / "retransmit_trace.txt") if r.get("err", 0) == 0),
                   key=lambda r: r["t"])
    for r in trace:
        if not ((r["seq"] - r["una"]) % (1 << 32) < (r["nxt"] - r["una"]) % (1 << 32) or r["seq"] == r["una"]):
            problems.append("a traced seq lies outside [snd_una, snd_nxt): wrong sk_buff cb offset?")
            break
    mono_to_real = meta["real_ns_at"] - meta["mono_ns_at"]

    rows = []
    snd_max = 1
    sent_before = Intervals()
    ti = 0
    episodes: set[int] = set()
    for k, p in enumerate(data):
        a, ln = rel(p[6]), p[9]
        if a < snd_max:
            spurious = sent_before.covers(a, a + ln)
            row = {
                "frame": p[0], "ts_ns": p[1], "t_ms": round((p[1] - t_syn) / 1e6, 3), "seq": a, "len": ln,
                "nth": fdata[k].get("nth") if k < len(fdata) else None,
                "delivered": delivered[k] if k < len(delivered) else None,
                "receiver_frame": rframe_of.get(k),
                "spurious": spurious,
            }
            # the next unmatched trace record of this sequence number
            j = ti
            while j < len(trace) and rel(trace[j]["seq"]) != a:
                j += 1
            if j < len(trace):
                tr = trace[j]
                if j != ti:
                    problems.append(f"trace records {ti}..{j - 1} match no captured retransmission")
                ti = j + 1
                trig = trigger_of(tr["stack"])
                ca = tr["ca"]
                if trig == "rto" or ca == 4:
                    cause = "rto"
                elif trig == "tlp":
                    cause = "tlp"
                elif ca == 3:
                    cause = "sack_recovery" if tr["high"] in episodes else "fast_retransmit"
                    episodes.add(tr["high"])
                else:
                    cause = "unknown"
                row.update(cause=cause, trigger=trig, ca_state=CA_STATES.get(ca, str(ca)),
                           rto_ms=tr["rto"] * 1000 / hz, backoff=tr["backoff"],
                           trace_lag_us=round((p[1] - (tr["t"] + mono_to_real)) / 1000, 1))
            else:
                problems.append(f"frame {p[0]}: no trace record for this retransmission")
                row.update(cause="unknown", trigger="none", ca_state="", rto_ms=None, backoff=None,
                           trace_lag_us=None)
            rows.append(row)
        if k < len(delivered) and delivered[k]:
            sent_before.add(a, a + ln)
        snd_max = max(snd_max, a + ln)
    if ti < len(trace):
        problems.append(f"{len(trace) - ti} trace records after the last captured retransmission")

    lateness = sorted(r["sent"] - r["release"] for r in fwd["frames"] if "sent" in r)

    def pct(q: float) -> float | None:
        return round(lateness[min(len(lateness) - 1, int(q * len(lateness)))] * 1e6, 1) if lateness else None

    by_cause: dict[str, int] = {}
    by_trigger: dict[str, int] = {}
    for r in rows:
        by_cause[r["cause"]] = by_cause.get(r["cause"], 0) + 1
        by_trigger[r["trigger"]] = by_trigger.get(r["trigger"], 0) + 1
    summary = {
        "scenario": meta["scenario"],
        "kernel": meta["kernel"],
        "hz": hz,
        "data_packets": len(data),
        "retransmissions": len(rows),
        "by_cause": dict(sorted(by_cause.items())),
        "by_trigger": dict(sorted(by_trigger.items())),
        "spurious": sum(1 for r in rows if r["spurious"]),
        "rto_at_expiry_ms": [r["rto_ms"] for r in rows if r["trigger"] == "rto"],
        "first_retransmission_ms": rows[0]["t_ms"] if rows else None,
        "completion_ms": round(completion / 1e6, 3) if completion is not None else None,
        "dropped_nth": [r["nth"] for r in fdata if r["action"] in ("drop", "qdisc_drop")],
        "qdisc_drops": sum(1 for r in fwd["frames"] if r.get("action") == "qdisc_drop"),
        "forwarder_lateness_us": {"p50": pct(0.5), "p99": pct(0.99), "max": pct(1.0)},
        "mss": max((p[9] for p in data), default=0),
        "problems": problems,
    }
    return {"rows": rows, "summary": summary}


COLUMNS = ["frame", "receiver_frame", "ts_ns", "t_ms", "seq", "len", "nth", "delivered", "spurious", "cause",
           "trigger", "ca_state", "rto_ms", "backoff", "trace_lag_us"]


def write(d: Path, sc=None) -> dict:
    size = sc.size if sc is not None else json.loads((d / "meta.json").read_text())["client"]["sent"]
    res = analyse(d, size)
    with open(d / "truth.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS, extrasaction="ignore")
        w.writeheader()
        for r in res["rows"]:
            w.writerow(r)
    (d / "truth.json").write_text(json.dumps(res["summary"], indent=1) + "\n")
    return res["summary"]


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        s = write(Path(arg))
        print(json.dumps(s))
