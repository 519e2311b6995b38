"""``tcplab compare RUN_DIR ANALYZE_DIR``: the analyzer's verdicts against the simulator's
ground truth.

RUN_DIR is the output of ``tcplab run ... --pcap LINK`` (with its ``events.parquet``: the
run must not use ``--no-trace``); ANALYZE_DIR the output of ``tcplab analyze`` on one or
more of that run's captures. For every capture, the analyzer's retransmissions are matched
to the simulator's and scored as docs/validation.md scores them.

**The matching rule is the validation's** (``score`` in
``crates/tcplab-analyze/tests/common/corpus.rs``, which ``examples/validate.rs`` runs). It
lives only in Rust test code, so it is re-implemented here over the two output tables, step
for step:

- Ground truth: the ``events`` rows of kind ``segment_retransmitted`` with ``len > 0`` (data
  retransmissions; SYN / SYN-ACK / bare FIN repeats are not classified by the analyzer),
  with ``t_ns``, ``flow``, ``seq``, ``cause``, ``spurious`` (null read as false).
- A connection of the capture is flow ``client port − 49152`` (the simulator gives flow *f*
  client port 49152 + (f mod 16384), docs/outputs.md); only the flows present in the capture
  are scored, and only ``c2s`` (client → server) analyzer rows.
- Per (flow, seq), analyzer occurrences are matched to truth occurrences in order, from the
  last: each takes the latest truth occurrence sent no later than it was captured
  (``t_ns ≤ ts_ns``) and earlier than the one matched after it. An analyzer row with no
  truth row left is *extra*, as is every analyzer row at a (flow, seq) the simulator never
  retransmitted. Truth rows left over were not visible at this capture point (lost upstream).
- A matched pair's truth cause ``probe`` counts as ``tlp`` (the engine's names are the
  analyzer's otherwise). Cause accuracy counts ``unknown`` as wrong. Spurious: precision of
  ``spurious = true``; recall where an undecided (null) truly spurious retransmission is a
  miss; "recall (decided)" among decided ones.

Timestamps: the simulator's pcap timestamps are simulated time since the start of the run,
so the capture's ``ts_ns`` and the events' ``t_ns`` are on one clock.
"""

from __future__ import annotations

import json
import math
import os
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .errors import TcplabError

#: First client port of the simulator's flows (docs/outputs.md, "LINK.pcap").
CLIENT_PORT_BASE = 49152
#: Client ports repeat after this many flows, so larger runs cannot be matched by port.
PORTS_PER_CYCLE = 16384
#: Analyzer cause names in table order (docs/outputs.md); "unknown" last.
CAUSES = ("rto", "fast_retransmit", "sack_recovery", "tlp", "unknown")


class CompareError(TcplabError):
    """The directories cannot be compared (one line naming which and why)."""


@dataclass
class CompareResult:
    """``scores``: one row per capture and an ``all`` row (counts, accuracy, precision,
    recall); ``confusion``: (capture, truth cause, analyzer cause) → count over matched
    rows; ``pairs``: every matched (truth, analyzer) pair."""

    scores: pd.DataFrame
    confusion: pd.DataFrame
    pairs: pd.DataFrame
    #: The sender model the analysis replayed (its summary.json ``model``; ``scenario:NAME``
    #: when it was the run's own, ``tcplab analyze --scenario``), ``None`` if not recorded.
    model: str | None = None


def _read(path: Path, what: str) -> pd.DataFrame:
    if not path.is_file():
        raise CompareError(f"{path}: missing; {what}")
    return pd.read_parquet(path)


def truth_table(run_dir: Path) -> tuple[pd.DataFrame, int]:
    """The simulator's data retransmissions (ground truth) and the run's number of flows."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise CompareError(f"{run_dir}: not a directory (expected the output of tcplab run)")
    ev = _read(run_dir / "events.parquet", "compare needs a run with its trace (tcplab run without --no-trace)")
    flows = _read(run_dir / "flows.parquet", "expected the output of tcplab run")
    if ev.empty:
        # A traced run always has rows (every segment sent is one): this one had no trace.
        raise CompareError(f"{run_dir}: events.parquet is empty; compare needs a run made without --no-trace")
    rx = ev[(ev["kind"].astype(str) == "segment_retransmitted") & (ev["len"] > 0)]
    truth = pd.DataFrame(
        {
            "t_ns": rx["t_ns"].astype("int64"),
            "flow": rx["flow"].astype("int64"),
            "seq": rx["seq"].astype("int64"),
            "cause": rx["cause"].astype(str),
            "spurious": rx["spurious"].astype("boolean").fillna(False).astype(bool),
        }
    )
    return truth.reset_index(drop=True), len(flows)


def compare(run_dir: str | os.PathLike, analyze_dir: str | os.PathLike) -> CompareResult:
    """Score ANALYZE_DIR's retransmissions against RUN_DIR's ground truth (see the module
    doc for the rule). Raises :class:`CompareError` for unusable directories."""
    truth, n_flows = truth_table(Path(run_dir))
    adir = Path(analyze_dir)
    if not adir.is_dir():
        raise CompareError(f"{adir}: not a directory (expected the output of tcplab analyze)")
    rex = _read(adir / "retransmissions.parquet", "expected the output of tcplab analyze")
    conns = _read(adir / "connections.parquet", "expected the output of tcplab analyze")
    if n_flows > PORTS_PER_CYCLE:
        raise CompareError(
            f"{run_dir}: {n_flows} flows; client ports repeat after {PORTS_PER_CYCLE} flows, so connections "
            "cannot be matched to flows by port"
        )
    if conns.empty:
        raise CompareError(f"{adir}: the analysis found no connections")
    # Only captures this run wrote can be scored against its truth.
    run_pcaps = sorted(p.name for p in Path(run_dir).glob("*.pcap"))
    for capture in dict.fromkeys(conns["capture"].astype(str)):
        if Path(capture).name not in run_pcaps:
            raise CompareError(
                f"{adir}: capture {capture} is not one of {run_dir}'s captures "
                f"({', '.join(run_pcaps) or 'none: run it with --pcap LINK'})"
            )
    t_occ: dict[tuple[int, int], list[int]] = defaultdict(list)
    for i, (f, s) in enumerate(zip(truth["flow"].tolist(), truth["seq"].tolist())):
        t_occ[(f, s)].append(i)  # events are in time order, so each list is too
    t_ns = truth["t_ns"].tolist()

    scores, confusion_rows, pair_rows = [], [], []
    # `capture` is the path as given (unique per input); the rows are labelled with the file
    # name (`capture_name`) when the names are unique too, else with the path.
    names = {}
    if "capture_name" in conns.columns:
        pairs = conns[["capture", "capture_name"]].astype(str).drop_duplicates()
        if pairs["capture_name"].is_unique:
            names = dict(zip(pairs["capture"], pairs["capture_name"]))
    for path, cg in conns.groupby("capture", sort=False, observed=True):
        capture = names.get(str(path), str(path))
        flow_of = {}
        for cid, client in zip(cg["conn_id"].tolist(), cg["client"].astype(str).tolist()):
            port = int(client.rsplit(":", 1)[1])
            flow = (port - CLIENT_PORT_BASE) & 0xFFFF  # u16 wrapping_sub, as corpus.rs
            if flow < n_flows:
                flow_of[cid] = flow
        present = set(flow_of.values())
        rg = rex[(rex["capture"].astype(str) == str(path)) & (rex["dir"].astype(str) == "c2s")]
        a_occ: dict[tuple[int, int], list[tuple[int, str, object]]] = defaultdict(list)
        for cid, seq, ts, cause, sp in zip(
            rg["conn_id"].tolist(), rg["seq"].tolist(), rg["ts_ns"].tolist(),
            rg["cause"].astype(str).tolist(), rg["spurious"].tolist(),
        ):
            if cid in flow_of:
                a_occ[(flow_of[cid], int(seq))].append((int(ts), cause, None if sp is None or sp is pd.NA or (isinstance(sp, float) and math.isnan(sp)) else bool(sp)))
        s = defaultdict(int)
        s["truth"] = sum(len(v) for k, v in t_occ.items() if k[0] in present)
        s["found"] = sum(len(v) for v in a_occ.values())
        confusion: dict[tuple[str, str], int] = defaultdict(int)
        for k, av in a_occ.items():
            if k not in t_occ or k[0] not in present:
                s["extra"] += len(av)
        for k, tv in t_occ.items():
            if k[0] not in present:
                continue
            av = a_occ.get(k, [])
            used = 0
            limit = len(tv)
            for ts, cause, sp in reversed(av):
                j = next((j for j in range(limit - 1, -1, -1) if t_ns[tv[j]] <= ts), None)
                if j is None:
                    s["extra"] += 1
                    continue
                limit = j
                used += 1
                t = truth.iloc[tv[j]]
                want = "tlp" if t["cause"] == "probe" else t["cause"]
                s["matched"] += 1
                s["cause_ok"] += cause == want
                s["cause_unknown"] += cause == "unknown"
                confusion[(want, cause)] += 1
                truth_sp = bool(t["spurious"])
                s["sp_truth"] += truth_sp
                if sp is None:
                    s["sp_unknown"] += 1
                elif sp and truth_sp:
                    s["sp_tp"] += 1
                elif sp:
                    s["sp_fp"] += 1
                elif truth_sp:
                    s["sp_fn"] += 1
                pair_rows.append({"capture": Path(str(capture)).name, "flow": k[0], "seq": k[1], "t_ns": int(t["t_ns"]), "ts_ns": ts,
                                  "truth_cause": want, "analyzer_cause": cause, "truth_spurious": truth_sp,
                                  "analyzer_spurious": sp})
            s["not_visible"] += len(tv) - used
        name = Path(str(capture)).name  # the file's name (the column holds the path as given)
        scores.append({"capture": name, **_rates(s)})
        confusion_rows.extend({"capture": name, "truth": a, "analyzer": b, "count": n}
                              for (a, b), n in sorted(confusion.items()))
    total = defaultdict(int)
    for row in scores:
        for k, v in row.items():
            if isinstance(v, int) and not isinstance(v, bool):
                total[k] += v
    scores.append({"capture": "all", **_rates(total)})
    conf = pd.DataFrame(confusion_rows, columns=["capture", "truth", "analyzer", "count"])
    return CompareResult(pd.DataFrame(scores), conf, pd.DataFrame(pair_rows), _analysis_model(adir))


def _analysis_model(analyze_dir: Path) -> str | None:
    try:
        return str(json.loads((analyze_dir / "summary.json").read_text(encoding="utf-8"))["model"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def analyze_run(run_dir: str | os.PathLike, out: str | os.PathLike):
    """Analyse every capture of RUN_DIR (``*.pcap``, from ``tcplab run --pcap``) into ``out``
    with the run's own senders as the model (``tcplab.analyze(..., scenario=RUN_DIR)``: the
    scenario recorded in RUN_DIR's provenance), for ``tcplab compare RUN_DIR`` without an
    analysis. Returns the :class:`tcplab.analyze.AnalysisResult`."""
    from .analyze import analyze

    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise CompareError(f"{run_dir}: not a directory (expected the output of tcplab run)")
    pcaps = sorted(run_dir.glob("*.pcap"))
    if not pcaps:
        raise CompareError(f"{run_dir}: no captures; run it with --pcap LINK")
    return analyze(pcaps, scenario=run_dir, out=out)


def _ratio(a: int, b: int) -> float:
    return a / b if b else math.nan


def _rates(s: dict) -> dict:
    keys = ("truth", "found", "matched", "not_visible", "extra", "cause_ok", "cause_unknown",
            "sp_truth", "sp_tp", "sp_fp", "sp_fn", "sp_unknown")
    out = {k: int(s.get(k, 0)) for k in keys}
    out["cause_accuracy"] = _ratio(out["cause_ok"], out["matched"])
    out["spurious_precision"] = _ratio(out["sp_tp"], out["sp_tp"] + out["sp_fp"])
    # Recall: undecided truly spurious rows are misses (the validation's "R").
    missed_unknown = out["sp_truth"] - out["sp_tp"] - out["sp_fn"]
    out["spurious_recall"] = _ratio(out["sp_tp"], out["sp_tp"] + out["sp_fn"] + missed_unknown)
    out["spurious_recall_decided"] = _ratio(out["sp_tp"], out["sp_tp"] + out["sp_fn"])
    return out


def _f(x: float) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3f}"


def format_result(res: CompareResult) -> str:
    """The per-capture scores and the per-cause confusion (truth rows × analyzer columns)."""
    lines = []
    if res.model is not None:
        lines.append(f"analysis replayed sender model {res.model}")
    head = f"{'capture':<24} {'truth':>6} {'seen':>6} {'matched':>7} {'extra':>6} {'unseen':>6} {'cause acc':>9} {'sp P':>6} {'sp R':>6} {'sp undecided':>12}"
    lines.append(head)
    for r in res.scores.to_dict("records"):
        lines.append(
            f"{r['capture'][:24]:<24} {r['truth']:>6} {r['found']:>6} {r['matched']:>7} {r['extra']:>6} "
            f"{r['not_visible']:>6} {_f(r['cause_accuracy']):>9} {_f(r['spurious_precision']):>6} "
            f"{_f(r['spurious_recall']):>6} {r['sp_unknown']:>12}"
        )
    conf = res.confusion.groupby(["truth", "analyzer"])["count"].sum() if len(res.confusion) else pd.Series(dtype=int)
    truths = [c for c in (*CAUSES, "probe") if c in set(conf.index.get_level_values(0))] if len(conf) else []
    cols = list(CAUSES)
    lines.append("")
    lines.append("confusion over matched retransmissions (rows: simulator's cause, columns: analyzer's), all captures")
    corner = "truth / analyzer"
    lines.append(f"{corner:<18}" + "".join(f"{c:>16}" for c in cols))
    for t in truths:
        lines.append(f"{t:<18}" + "".join(f"{int(conf.get((t, c), 0)):>16}" for c in cols))
    if not truths:
        lines.append("(no matched retransmissions)")
    return "\n".join(lines)


def to_json(res: CompareResult) -> str:
    def clean(v):
        return None if isinstance(v, float) and math.isnan(v) else v

    return json.dumps(
        {
            "model": res.model,
            "scores": [{k: clean(v) for k, v in r.items()} for r in res.scores.to_dict("records")],
            "confusion": res.confusion.to_dict("records"),
        },
        indent=2,
    )
