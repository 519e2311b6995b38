#!/usr/bin/env python3
"""Sums the rows of `cargo run --release -p tcplab-analyze --example validate` (stdin) per
sender model, scenario family and vantage: the summary table of docs/validation.md.

    cargo run --release -p tcplab-analyze --example validate | python3 crates/tcplab-analyze/examples/validate_summary.py
"""
import sys
from collections import defaultdict

COLS = ["truth", "seen", "matched", "cause_acc", "cause_unknown", "sp_truth", "P", "R", "R_dec", "sp_unknown", "extra"]


def family(name):
    base = name.split("/")[0]
    if base.startswith("spikes"):
        return "delay spikes"
    if base.startswith("reorder"):
        return "reordering"
    if "tlp" in name.split("/")[1:]:
        return "TLP senders (tail, random loss)"
    if name.endswith("/adaptive-d"):
        return "adaptive D"
    return "loss / queue scenarios"


def model(name):
    parts = name.split("/")
    if parts[-1] == "linux":
        return "linux"
    if parts[-1] == "frto":
        return "rfc + F-RTO"
    return "rfc"


def main():
    acc = defaultdict(lambda: defaultdict(float))
    for line in sys.stdin:
        if not line.startswith("| ") or line.startswith("| scenario") or line.startswith("| **"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        name, vantage = cells[0], cells[1].split(" ")[0]
        row = dict(zip(COLS, cells[2:]))
        m = int(row["matched"])
        for key in (vantage, "all"):
            a = acc[(model(name), family(name), key)]
            a["matched"] += m
            if row["cause_acc"] != "n/a":
                a["cause_ok"] += round(float(row["cause_acc"]) * m)
            a["cause_unknown"] += int(row["cause_unknown"])
            a["sp_truth"] += int(row["sp_truth"])
            a["sp_unknown"] += int(row["sp_unknown"])
            # tp = R * spurious(truth); fp from P = tp / (tp + fp).
            if row["R"] != "n/a":
                tp = round(float(row["R"]) * int(row["sp_truth"]))
                a["tp"] += tp
                if row["P"] != "n/a" and float(row["P"]) > 0:
                    a["fp"] += round(tp / float(row["P"]) - tp)
            elif row["P"] != "n/a" and float(row["P"]) == 0:
                a["fp"] += 1
            a["min_acc"] = min(a.get("min_acc", 1.0), float(row["cause_acc"]) if row["cause_acc"] != "n/a" else 1.0)
    print("| sender model | scenarios | vantage | matched | cause acc. | lowest row | cause unknown | spurious (truth) | spurious P | spurious R | spurious unknown |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for (mdl, fam, v), a in sorted(acc.items()):
        ca = a["cause_ok"] / a["matched"] if a["matched"] else float("nan")
        p = f"{a['tp'] / (a['tp'] + a['fp']):.3f}" if a["tp"] + a["fp"] else "n/a"
        r = f"{a['tp'] / a['sp_truth']:.3f}" if a["sp_truth"] else "n/a"
        print(f"| {mdl} | {fam} | {v} | {int(a['matched'])} | {ca:.3f} | {a['min_acc']:.3f} | {int(a['cause_unknown'])} | {int(a['sp_truth'])} | {p} | {r} | {int(a['sp_unknown'])} |")


if __name__ == "__main__":
    main()
