"""Issue 15 items 1, 2 and 6: every path a user can type works or gets one line and exit 2;
output directories are local, never half-written, never mixed with another run's files; a
multi-file analysis names each unusable input; the CLI starts without pandas/pyarrow."""

from __future__ import annotations

import gzip
import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import tcplab_cli
from tcplab.outdir import MANIFEST, show

#: pcap-savefile(5) header: magic, v2.4, thiszone, sigfigs, snaplen, LINKTYPE_RAW (101).
EMPTY_PCAP = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 101)


def _pcap_with_one_segment() -> bytes:
    """A pcap holding one IPv4 TCP SYN (raw IP link), built byte by byte."""
    tcp = struct.pack("!HHIIBBHHH", 40000, 80, 1000, 0, 5 << 4, 0x02, 65535, 0, 0)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 1, 0, 64, 6, 0, bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    pkt = ip + tcp
    return EMPTY_PCAP + struct.pack("<IIII", 1_600_000_000, 0, len(pkt), len(pkt)) + pkt


def _cli_bytes(*args, cwd: Path) -> subprocess.CompletedProcess:
    """Runs the CLI with argv given as bytes (names that are not UTF-8)."""
    cmd = [os.fsencode(sys.executable), b"-m", b"tcplab.cli", *[os.fsencode(a) for a in args]]
    return subprocess.run(cmd, capture_output=True, cwd=cwd, timeout=120)


@pytest.fixture
def cap(tmp_path: Path) -> Path:
    p = tmp_path / "t.pcap"
    p.write_bytes(_pcap_with_one_segment())
    return p


@pytest.mark.parametrize("name", ["run:1", "s3:bucket", "hdfs:y", "file:z", "c:"])
def test_output_names_that_look_like_uris_are_plain_directories(cap: Path, tmp_path: Path, name: str):
    r = tcplab_cli("analyze", str(cap), "-o", name, "-q", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    out = tmp_path / name
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o777 & ~umask, "the mode mkdir would give, not mkdtemp's 0700"
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [MANIFEST, "summary.json", "retransmissions.parquet", "retransmissions.csv", "connections.parquet", "connections.csv"]
    )


def test_names_that_are_not_utf8_work_and_are_shown_escaped(tmp_path: Path):
    capture = os.fsencode(tmp_path) + b"/caf\xe9.pcap"
    with open(capture, "wb") as fh:
        fh.write(_pcap_with_one_segment())
    out = os.fsencode(tmp_path) + b"/out\xff"
    r = _cli_bytes("analyze", capture, "-o", out, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert b"out\\xff/" in r.stdout, r.stdout
    summary = json.loads(open(out + b"/summary.json", "rb").read())
    # `path` is lossless (surrogate escapes), `shown` the escaped form of the messages.
    assert os.fsencode(summary["captures"][0]["path"]) == capture
    assert summary["captures"][0]["shown"] == show(capture) and show(capture).endswith("caf\\xe9.pcap")
    assert summary["captures"][0]["file"] == "caf\\xe9.pcap"
    missing = os.fsencode(tmp_path) + b"/n\xe9ant.pcap"
    r = _cli_bytes("analyze", missing, "-o", os.fsencode(tmp_path) + b"/o2", cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr.decode() == f"tcplab: error: {show(missing)}: cannot read: no such file\n"


def test_a_non_empty_output_is_refused_and_overwrite_replaces_only_tcplab_s_files(cap: Path, tmp_path: Path):
    out = tmp_path / "o"
    assert tcplab_cli("analyze", str(cap), "-o", str(out), "-q").returncode == 0
    first = (out / "summary.json").read_bytes()
    r = tcplab_cli("analyze", str(cap), "-o", str(out))
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "output directory is not empty; pass --overwrite" in r.stderr
    # A file the user added stays; a file the previous run wrote (per its manifest) goes.
    (out / "notes.txt").write_text("mine")
    manifest = json.loads((out / MANIFEST).read_text())
    manifest["files"].append("stale.csv")
    (out / MANIFEST).write_text(json.dumps(manifest))
    (out / "stale.csv").write_text("old run")
    r = tcplab_cli("analyze", str(cap), "-o", str(out), "--overwrite", "-q")
    assert r.returncode == 0, r.stderr
    assert (out / "notes.txt").read_text() == "mine"
    assert not (out / "stale.csv").exists()
    assert (out / "summary.json").read_bytes() == first
    assert [p.name for p in tmp_path.iterdir() if ".tmp-" in p.name or ".old-" in p.name] == []


def test_overwrite_never_clears_a_directory_tcplab_did_not_write(cap: Path, tmp_path: Path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("precious")
    r = tcplab_cli("analyze", str(cap), "-o", str(out), "--overwrite")
    assert r.returncode == 2 and "not written by tcplab" in r.stderr and r.stderr.count("\n") == 1
    assert [p.name for p in out.iterdir()] == ["thesis.tex"]


def test_a_failed_run_leaves_nothing_behind(small_scenario: Path, tmp_path: Path):
    out = tmp_path / "o"
    r = tcplab_cli("run", str(small_scenario), "-o", str(out), "--pcap", "nosuchlink")
    assert r.returncode == 2, r.stderr
    assert list(tmp_path.iterdir()) == [small_scenario], "no output, no temporary directory"


def test_run_writes_atomically_with_a_manifest(small_scenario: Path, tmp_path: Path):
    out = tmp_path / "s3:x"
    r = tcplab_cli("run", str(small_scenario), "-o", str(out), "--no-trace", "-q", "--pcap", "bottleneck")
    assert r.returncode == 0, r.stderr
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["command"] == "run"
    assert sorted(manifest["files"]) == sorted(p.name for p in out.iterdir() if p.name != MANIFEST)
    assert "bottleneck.pcap" in manifest["files"]


def test_an_existing_file_as_output_is_a_usage_error_in_the_project_style(tmp_path: Path, cap: Path):
    r = tcplab_cli("analyze", str(cap), "-o", str(cap))
    assert r.returncode == 2
    assert r.stderr == f"tcplab: error: -o/--out: {cap}: exists and is not a directory (see 'tcplab analyze --help')\n"


def test_an_empty_output_path_is_refused_not_taken_as_the_current_directory(tmp_path: Path, cap: Path):
    # `-o "$OUT"` with OUT unset: Path("") would be ".", and a non-empty cwd the message.
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    r = tcplab_cli("analyze", str(cap), "-o", "", cwd=cwd)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "empty path" in r.stderr, r.stderr
    assert list(cwd.iterdir()) == []


def test_each_unusable_input_is_named_and_one_good_one_is_enough(cap: Path, tmp_path: Path):
    (tmp_path / "notes.txt").write_text("not a capture")
    (tmp_path / "dir").mkdir()
    (tmp_path / "unreadable.pcap").write_bytes(EMPTY_PCAP)
    (tmp_path / "unreadable.pcap").chmod(0)
    bad = ["missing.pcap", "dir", "notes.txt", "unreadable.pcap"]
    r = tcplab_cli("analyze", *bad, "t.pcap", "-o", "out", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stderr.splitlines()
    assert lines[0] == "tcplab: skipped: missing.pcap: cannot read: no such file"
    assert lines[1] == "tcplab: skipped: dir: is a directory, not a capture file"
    assert lines[2].startswith("tcplab: skipped: notes.txt: not a pcap or pcapng capture (unrecognised magic number")
    if os.geteuid() != 0:  # root reads a mode-0 file
        assert lines[3] == "tcplab: skipped: unreadable.pcap: cannot read: permission denied"
    assert "captures, 1 packets" in r.stdout and "of 5 captures" in r.stdout
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["anomalies"]["unreadable_files"] == len([c for c in summary["captures"] if c["error"]])


def test_when_no_input_can_be_analysed_each_is_named_and_the_exit_is_2(tmp_path: Path):
    (tmp_path / "dir").mkdir()
    r = tcplab_cli("analyze", "missing.pcap", "dir", "-o", "out", cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr.splitlines() == [
        "tcplab: skipped: missing.pcap: cannot read: no such file",
        "tcplab: skipped: dir: is a directory, not a capture file",
        "tcplab: error: none of the 2 captures could be analysed",
    ]
    assert not (tmp_path / "out").exists()


def test_damaged_and_compressed_captures_get_messages_naming_the_cause(cap: Path, tmp_path: Path):
    gz = tmp_path / "t.pcap.gz"
    gz.write_bytes(gzip.compress(cap.read_bytes()))
    r = tcplab_cli("analyze", str(gz), "-o", str(tmp_path / "o"), "-q")
    assert r.returncode == 0, r.stderr
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["captures"][0]["compression"] == "gzip" and summary["captures"][0]["frames"] == 1
    ng = tmp_path / "bad.pcapng"
    ng.write_bytes(bytes([0x0A, 0x0D, 0x0D, 0x0A]) + struct.pack("<II", 7, 0x1A2B3C4D) + bytes(20))
    r = tcplab_cli("analyze", str(ng), "-o", str(tmp_path / "o2"))
    assert r.stderr == f"tcplab: error: {ng}: damaged capture: pcapng: impossible section header length 7\n"
    assert "os error" not in r.stderr


def test_capture_columns_tell_two_files_of_the_same_name_apart(tmp_path: Path):
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "t.pcap").write_bytes(_pcap_with_one_segment())
    r = tcplab_cli("analyze", "a/t.pcap", "b/t.pcap", "-o", "out", "-q", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    import pyarrow.parquet as pq

    conns = pq.read_table(tmp_path / "out" / "connections.parquet").to_pydict()
    assert conns["capture"] == ["a/t.pcap", "b/t.pcap"]
    assert conns["capture_name"] == ["t.pcap", "t.pcap"]
    assert conns["end_reason"] == ["end_of_capture", "end_of_capture"]


_PROBE = (
    "import sys, atexit\n"
    "atexit.register(lambda: print('HEAVY', sorted(m for m in ('numpy', 'pandas', 'pyarrow', 'matplotlib') "
    "if m in sys.modules), file=sys.stderr))\n"
    "from tcplab.cli import main\n"
    "main(sys.argv[1:])\n"
)


def _heavy_imports(*args, cwd: Path) -> list[str]:
    r = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, cwd=cwd, timeout=120)
    line = [l for l in r.stderr.splitlines() if l.startswith("HEAVY")][-1]
    return eval(line.split(" ", 1)[1])  # a list literal printed by the probe


def test_the_cli_starts_without_pandas_pyarrow_or_matplotlib(cap: Path, tmp_path: Path):
    assert _heavy_imports("--help", cwd=tmp_path) == []
    assert _heavy_imports("scenarios", cwd=tmp_path) == []
    # analyze writes its Parquet and CSV files from Rust (issue 15 item 6): not even numpy.
    assert _heavy_imports("analyze", str(cap), "-o", "o", "-q", cwd=tmp_path) == []
    assert (tmp_path / "o" / "retransmissions.parquet").exists()


def test_click_s_path_checks_speak_the_project_s_style(tmp_path: Path, cap: Path):
    r = tcplab_cli("plot", str(cap), "-o", str(tmp_path / "x.png"))
    assert r.returncode == 2
    assert r.stderr == f"tcplab: error: RESULTS: {cap}: is a file, not a directory (see 'tcplab plot --help')\n"


def test_run_takes_scenario_and_output_names_that_are_not_utf8(small_scenario: Path, tmp_path: Path):
    scenario = os.fsencode(tmp_path) + b"/sc\xe9nario.toml"
    with open(scenario, "wb") as fh:
        fh.write(small_scenario.read_bytes())
    out = os.fsencode(tmp_path) + b"/r\xe9sultats"
    r = _cli_bytes("run", scenario, "-o", out, "--no-trace", "--pcap", "bottleneck", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert os.path.getsize(out + b"/bottleneck.pcap") > 24
    assert f"results in {show(out)}/".encode() in r.stdout


def test_plot_reopens_a_capture_whose_name_is_not_utf8(tmp_path: Path):
    """qa finding: summary.json stored the escaped path, so `tcplab plot ANALYZE_DIR` could
    not open the capture again. The path is stored losslessly and the plot finds it."""
    from conftest import ROOT

    capture = os.fsencode(tmp_path) + b"/caf\xe9 x.pcap"
    with open(capture, "wb") as fh:
        fh.write((ROOT / "tests" / "fixtures" / "linux" / "burst-loss" / "sender.pcap").read_bytes())
    r = _cli_bytes("analyze", b"caf\xe9 x.pcap", "-o", "a", "-q", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    summary = json.loads((tmp_path / "a" / "summary.json").read_text(encoding="ascii"))
    assert os.fsencode(summary["captures"][0]["path"]) == b"caf\xe9 x.pcap"
    r = _cli_bytes("plot", "a", "-o", "p.png", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_link_types_seen_across_files_are_a_set_not_a_sum(tmp_path: Path):
    """Issue 15 "Why": two captures with link types 284 and 281 reported 565. The count of
    packets on unknown link types is summed; the link types seen are their own field, a set."""
    from tcplab.analyze import analyze

    paths = []
    for lt in (284, 281):
        p = tmp_path / f"lt{lt}.pcap"
        p.write_bytes(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, lt)
                      + struct.pack("<IIII", 1_600_000_000, 0, 4, 4) + b"\x01\x02\x03\x04")
        paths.append(str(p))
    summary = analyze(paths).summary
    assert summary["anomalies"]["unknown_link_types"] == [281, 284]
    assert summary["anomalies"]["unknown_link_type"] == 2
    assert "last_unknown_link_type" not in summary["anomalies"]
