"""Score the analyzer's verdicts on a real capture against the harness's ground truth.

Used by report.py (docs/validation-linux.md) and by the CI test on the committed fixtures
(tests/test_linux_fixtures.py). Matching is exact: a truth row is the capture frame of the
retransmission (``frame`` at the sender, ``receiver_frame`` at the receiver), an analyzer
row is its ``frame`` in the same file, data direction client -> server only.

- ``found``: truth rows the analyzer reported; ``extra``: analyzer rows that are not
  retransmissions (a false retransmission); ``missed``: truth rows it did not report.
- ``cause_acc``: matched rows whose cause equals the kernel's (``unknown`` counts as wrong).
- spurious: ``precision`` of ``spurious = true``, ``recall`` counting an undecided (null)
  verdict on a truly spurious retransmission as a miss, ``undecided`` share of matched rows
  left null. ``None`` where the denominator is 0.
"""

from __future__ import annotations

import csv
from pathlib import Path


#: The kernel's trigger (read off the stack, truth.py) that each analyzer trigger can be:
#: everything the sender decides while processing an ACK is `ack` in the kernel's stack.
TRIGGER_COMPATIBLE = {
    "rto": {"rto"},
    "tlp": {"tlp"},
    "rack_timer": {"rack_timer"},
    "ack": {"dupthresh", "islost", "rack", "partial_ack", "nextseg", "sack", "newreno", "lost_retransmission"},
}


def read_truth(path: Path) -> list[dict]:
    rows = []
    with open(path, newline="") as fh:
        for r in csv.DictReader(fh):
            rows.append({
                "frame": int(r["frame"]),
                "receiver_frame": int(r["receiver_frame"]) if r["receiver_frame"] else None,
                "seq": int(r["seq"]),
                "cause": r["cause"],
                "trigger": r["trigger"],
                "spurious": r["spurious"] == "True",
            })
    return rows


def score(truth: list[dict], analyzer_rows: list[dict], vantage: str) -> dict:
    """TRUTH from read_truth; ANALYZER_ROWS dicts with frame, cause, spurious (None = undecided)."""
    key = "frame" if vantage == "sender" else "receiver_frame"
    want = {t[key]: t for t in truth if t[key] is not None}
    got = {a["frame"]: a for a in analyzer_rows}
    matched = [(want[f], got[f]) for f in sorted(want) if f in got]
    n = len(matched)
    cause_ok = sum(1 for t, a in matched if a["cause"] == t["cause"])
    said_sp = [(t, a) for t, a in matched if a["spurious"] is True]
    true_sp = [(t, a) for t, a in matched if t["spurious"]]
    undecided = sum(1 for _, a in matched if a["spurious"] is None)
    with_trigger = [(t, a) for t, a in matched if a.get("trigger")]
    confusion: dict[str, int] = {}
    for t, a in matched:
        if a["cause"] != t["cause"]:
            k = f"{t['cause']}->{a['cause']}"
            confusion[k] = confusion.get(k, 0) + 1
    return {
        "truth": len(want),
        "reported": len(got),
        "found": n,
        "missed": len(want) - n,
        "extra": len([f for f in got if f not in want]),
        "cause_acc": cause_ok / n if n else None,
        "cause_unknown": sum(1 for _, a in matched if a["cause"] == "unknown"),
        "cause_confusion": dict(sorted(confusion.items())),
        # only when the analyzer has a `trigger` column (issue 10 part 4)
        "trigger_acc": (sum(1 for t, a in with_trigger if a["trigger"] in TRIGGER_COMPATIBLE.get(t["trigger"], ()))
                        / len(with_trigger)) if with_trigger else None,
        "spurious_truth": len(true_sp),
        "said_spurious": len(said_sp),
        "said_spurious_right": sum(1 for t, _ in said_sp if t["spurious"]),
        "precision": sum(1 for t, _ in said_sp if t["spurious"]) / len(said_sp) if said_sp else None,
        "recall": sum(1 for _, a in true_sp if a["spurious"] is True) / len(true_sp) if true_sp else None,
        "undecided": undecided,
        "undecided_share": undecided / n if n else None,
    }


def analyzer_rows(capture: Path, model: str) -> list[dict]:
    """The analyzer's client -> server retransmissions of CAPTURE (tcplab's Python API)."""
    from tcplab.analyze import analyze

    df = analyze([capture], model=model).retransmissions
    df = df[df["dir"].astype(str) == "c2s"]
    import pandas as pd

    trig = df["trigger"].astype(str) if "trigger" in df.columns else [None] * len(df)
    out = []
    for f, c, s, tr in zip(df["frame"], df["cause"].astype(str), df["spurious"], trig):
        out.append({"frame": int(f), "cause": c, "spurious": None if pd.isna(s) else bool(s), "trigger": tr})
    return out
