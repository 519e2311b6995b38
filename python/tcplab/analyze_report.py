"""What ``tcplab analyze`` prints on success, without click: shared by the click command
(``tcplab.cli``, which passes ``click.echo``) and the command's click-free path
(``tcplab.analyze_prefetch``), so the lines are written once."""

from __future__ import annotations

import os
from typing import Callable


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


#: Anomaly counters that describe the capture rather than damage to it: not printed.
_INFORMATIONAL = {"snaplen_truncated_payload", "skipped_blocks", "skipped_block_bytes", "tso_segments",
                  "zero_snaplen", "unreadable_files"}


def print_analysis(summary: dict, out: str | os.PathLike, echo: Callable[[str], None]) -> None:
    """The analysis' one-screen report: captures, packets, connections and retransmissions,
    the capture position per data direction, Table IV by cause, damage counters, and where
    the results are; each line through ``echo``."""
    from .outdir import show

    t = summary["table_iv"]
    caps = summary["captures"]
    frames = sum(c["frames"] for c in caps)
    analysed = sum(1 for c in caps if not c.get("error"))
    n = f"{analysed} of {len(caps)} captures" if analysed < len(caps) else plural(len(caps), "capture")
    echo(
        f"{n}, {frames} packets, {summary['connections']} connections, "
        f"{t['total']['total']} retransmissions (model {summary['model']}, vantage {summary['vantage_requested']})"
    )
    pos = ", ".join(f"{k}: {v}" for k, v in summary["positions"].items()) or "none"
    echo(f"capture position per data direction: {pos}")
    echo(f"{'cause':<16} {'total':>7} {'needed':>7} {'spurious':>9} {'unknown':>8}")
    for cause in ("rto", "fast_retransmit", "sack_recovery", "tlp", "unknown", "total"):
        r = t[cause]
        echo(f"{cause:<16} {r['total']:>7} {r['needed']:>7} {r['spurious']:>9} {r['unknown']:>8}")
    damaged = {
        k: v for k, v in summary["anomalies"].items()
        if isinstance(v, int) and v > 0 and k not in _INFORMATIONAL
    }
    if damaged:
        echo("anomalies: " + ", ".join(f"{k}={v}" for k, v in sorted(damaged.items())))
    echo(f"results in {show(out)}/")
