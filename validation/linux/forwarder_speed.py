"""Is the Python forwarder fast enough? Loss-free bulk transfers at rising rates (needs root).

    sudo python3 validation/linux/forwarder_speed.py [-o DIR] [--rates 40,100,200]

Prints per rate: completion, size/rate, goodput and the forwarder's release lateness
(scheduled -> actual send; the emulator's own timing error). The harness's scenarios run at
10-40 Mb/s.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run  # noqa: E402
import truth  # noqa: E402
from scenarios import Scenario  # noqa: E402

#: Bytes per transfer: enough for a few seconds at the highest rate, short for the lowest.
SIZE = 8_000_000


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--out", type=Path, default=Path("/tmp/tcplab-forwarder-speed"))
    ap.add_argument("--rates", default="40,100,200", help="Mb/s, comma-separated")
    a = ap.parse_args(argv)
    if os.geteuid() != 0:
        print("forwarder_speed.py: error: needs root", file=sys.stderr)
        return 2
    for rate in (float(x) for x in a.rates.split(",")):
        sc = Scenario(f"speed-{rate:g}", "loss-free bulk transfer", size=SIZE, rate_mbit=rate, delay_ms=10.0)
        d = a.out / sc.name
        run.run_one(sc, d)
        t = truth.write(d, sc)
        fct = t["completion_ms"]
        la = t["forwarder_lateness_us"]
        print(f"{rate:g} Mb/s: completion {fct} ms (size/rate {SIZE * 8 / (rate * 1e3):.1f} ms), goodput "
              f"{SIZE * 8 / fct / 1e3:.1f} Mb/s, lateness p50/p99/max {la['p50']}/{la['p99']}/{la['max']} us, "
              f"{t['retransmissions']} retransmissions", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
