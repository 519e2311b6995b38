"""Copy a few small real runs into tests/fixtures/linux/ (the analyzer's CI fixtures).

    python3 validation/linux/fixtures.py --runs DIR

Per scenario in FIXTURES: sender.pcap, receiver.pcap (headers only), truth.csv (one row per
retransmission: frame in the sender's capture, frame in the receiver's capture if it was
delivered, cause and trigger from the kernel's tracepoint, spurious from both captures),
truth.json (the run's summary) and meta.json (kernel, sysctls). tests/test_linux_fixtures.py
checks the analyzer against them without root.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
DEST = ROOT / "tests" / "fixtures" / "linux"
#: Small captures (about 10-230 KB each) that between them have every cause the kernel
#: showed: TLP, RTO with backoff, RACK's lost-retransmission repair, a spurious fast
#: retransmit under reordering (and D-SACK-adapted reordering window), a spurious RTO (ACK
#: spike), a tail RTO without TLP, SACK and NewReno recovery.
FIXTURES = ["tail-loss", "tail-loss-no-tlp", "rto-min-50ms", "lost-retransmission", "reorder", "reorder-many",
            "burst-loss", "sack-off", "spike-ack"]
FILES = ["sender.pcap", "receiver.pcap", "truth.csv", "truth.json", "meta.json"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", required=True, type=Path)
    a = ap.parse_args(argv)
    for name in FIXTURES:
        src = a.runs / name
        missing = [f for f in FILES if not (src / f).exists()]
        if missing:
            print(f"fixtures.py: error: {src} lacks {', '.join(missing)}", file=sys.stderr)
            return 2
        dst = DEST / name
        dst.mkdir(parents=True, exist_ok=True)
        for f in FILES:
            shutil.copyfile(src / f, dst / f)
        print(f"{name}: {sum((dst / f).stat().st_size for f in FILES)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
