"""`tcplab analyze` writes its Parquet and CSV files from Rust (crates/tcplab-py/src/
analyze_write.rs) so that the command imports neither numpy nor pyarrow (issue 15 item 6).
These tests hold the files to what pyarrow writes from the same tables
(`tcplab.tables.to_arrow` + `TableResult.write`): same Arrow schema (types, nullability,
dictionaries), same Parquet column types, zstd, same values, and CSV byte for byte."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from conftest import ROOT, tcplab_cli

pq = pytest.importorskip("pyarrow.parquet")
import pyarrow as pa  # noqa: E402
import pyarrow.csv as pacsv  # noqa: E402

from tcplab.analyze import TABLES, analyze  # noqa: E402
from tcplab.tables import parquet_options, to_arrow  # noqa: E402

#: Real Linux captures with retransmissions (tests/fixtures/linux, issue 10's harness).
CAPTURES = [ROOT / "tests" / "fixtures" / "linux" / name / "sender.pcap" for name in ("burst-loss", "reorder")]


def _pyarrow_files(captures, out: Path, **kw) -> None:
    """The files the Python writer makes from the same analysis (the reference)."""
    from tcplab import _core

    raw = _core.analyze([str(c) for c in captures], kw.get("vantage", "auto"), kw.get("model", "auto"), None, None)
    out.mkdir()
    for name in TABLES:
        table = to_arrow(raw.table(name))
        with open(out / f"{name}.parquet", "wb") as fh:
            pq.write_table(table, fh, **parquet_options(table.schema))
        with open(out / f"{name}.csv", "wb") as fh:
            pacsv.write_csv(table, fh)


def _column_types(path: Path) -> list[tuple]:
    f = pq.ParquetFile(path)
    s = f.schema
    return [
        (s.column(i).name, s.column(i).physical_type, str(s.column(i).logical_type), s.column(i).max_definition_level)
        for i in range(len(s))
    ]


@pytest.mark.parametrize("model", ["auto", "linux"])
def test_rust_written_files_equal_what_pyarrow_writes(tmp_path: Path, model: str):
    r = tcplab_cli("analyze", *map(str, CAPTURES), "-o", str(tmp_path / "rust"), "-q", "--model", model)
    assert r.returncode == 0, r.stderr
    _pyarrow_files(CAPTURES, tmp_path / "py", model=model)
    for name in TABLES:
        rust, py = tmp_path / "rust" / f"{name}.parquet", tmp_path / "py" / f"{name}.parquet"
        a, b = pq.read_table(rust), pq.read_table(py)
        assert a.schema.equals(b.schema, check_metadata=True), f"{name}:\n{a.schema}\n---\n{b.schema}"
        assert a.equals(b), name
        assert a.num_rows > 0, name  # the captures have retransmissions and connections
        assert _column_types(rust) == _column_types(py), name
        meta = pq.ParquetFile(rust).metadata
        assert set(meta.metadata) == {b"ARROW:schema"}
        assert {meta.row_group(0).column(i).compression for i in range(meta.num_columns)} == {"ZSTD"}
        assert (tmp_path / "rust" / f"{name}.csv").read_bytes() == (tmp_path / "py" / f"{name}.csv").read_bytes(), name
    # The dictionary columns come back as dictionaries (pandas: categories).
    cause = pq.read_table(tmp_path / "rust" / "retransmissions.parquet").schema.field("cause").type
    assert pa.types.is_dictionary(cause) and cause.index_type == pa.int32() and cause.value_type == pa.string()


def test_an_empty_retransmissions_table_is_written_with_its_schema(tmp_path: Path):
    from test_paths_and_outdirs import _pcap_with_one_segment

    cap = tmp_path / "one.pcap"
    cap.write_bytes(_pcap_with_one_segment())
    r = tcplab_cli("analyze", str(cap), "-o", str(tmp_path / "rust"), "-q")
    assert r.returncode == 0, r.stderr
    _pyarrow_files([cap], tmp_path / "py")
    a, b = pq.read_table(tmp_path / "rust" / "retransmissions.parquet"), pq.read_table(tmp_path / "py" / "retransmissions.parquet")
    assert a.num_rows == 0 and a.schema.equals(b.schema, check_metadata=True)
    assert (tmp_path / "rust" / "retransmissions.csv").read_bytes() == (tmp_path / "py" / "retransmissions.csv").read_bytes()
    assert (tmp_path / "rust" / "connections.csv").read_bytes() == (tmp_path / "py" / "connections.csv").read_bytes()


def test_a_result_whose_table_was_converted_still_writes_both(tmp_path: Path):
    res = analyze(CAPTURES[0], model="linux")
    conns = res.arrow("connections")  # now in Arrow: written by pyarrow, the other by Rust
    res.write(tmp_path / "o")
    assert pq.read_table(tmp_path / "o" / "connections.parquet").equals(conns)
    assert pq.read_table(tmp_path / "o" / "retransmissions.parquet").equals(res.arrow("retransmissions"))
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == [
        "connections.csv", "connections.parquet", "retransmissions.csv", "retransmissions.parquet", "summary.json",
    ]
    buf = io.BytesIO()
    pacsv.write_csv(res.arrow("retransmissions"), buf)
    assert (tmp_path / "o" / "retransmissions.csv").read_bytes() == buf.getvalue()


def test_the_files_written_in_parallel_report_the_first_failure_in_table_order(tmp_path: Path):
    """The four files are written on four threads (`analyze_write::write_tables`); when
    several fail, the error names the first in table order (Parquet before CSV), whichever
    thread failed first, and the files that could be written are complete."""
    res = analyze([str(CAPTURES[0])], model="linux")
    out = tmp_path / "out"
    out.mkdir()
    for blocked in ("retransmissions.csv", "connections.parquet"):
        (out / blocked).mkdir()  # a directory where the file should go: the write fails
    with pytest.raises(OSError) as e:
        res.write(out)
    assert "retransmissions.csv" in str(e.value) and "connections" not in str(e.value), str(e.value)
    written = pq.read_table(out / "retransmissions.parquet")
    assert written.num_rows > 0
    assert (out / "connections.csv").read_text().count("\n") == res.summary["connections"] + 1
