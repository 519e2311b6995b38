"""`tcplab analyze` starting its analysis before click parses the command line
(python/tcplab/analyze_prefetch.py): the early look understands the plain forms only, the
started analysis is used only by the very same call, and the command's files, messages and
exit statuses are those it gives without it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tcplab import analyze_prefetch as pf
from tcplab.analyze import analyze

ROOT = Path(__file__).resolve().parent.parent
#: A real Linux capture with retransmissions (committed by the validation harness).
CAPTURE = ROOT / "tests" / "fixtures" / "linux" / "burst-loss" / "sender.pcap"

#: The console script (`tcplab = tcplab.analyze_prefetch:main`) and the click group alone.
SCRIPT = "import sys; from tcplab.analyze_prefetch import main; sys.argv[0] = 'tcplab'; main()"
CLICK_ONLY = "import sys; from tcplab.cli import main; sys.argv[0] = 'tcplab'; main()"


@pytest.mark.parametrize(
    "args, parsed",
    [
        (["analyze", "a.pcap", "-o", "out"], (["a.pcap"], "auto", "auto", None)),
        (["analyze", "-oout", "a", "b", "--model=linux", "--tlp"], (["a", "b"], "auto", "linux", True)),
        (["analyze", "--out", "o", "--vantage", "sender", "-q", "--overwrite", "a", "--no-tlp"],
         (["a"], "sender", "auto", False)),
        (["analyze", "--model", "rfc", "--model", "linux", "-o", "o", "--", "-x.pcap"],
         (["-x.pcap"], "auto", "linux", None)),
    ],
)
def test_the_early_look_reads_the_plain_forms(args, parsed):
    assert pf._parse(args)[:4] == parsed


def test_the_early_look_reads_the_output_options():
    assert pf._parse(["analyze", "a", "-o", "o"])[4:] == ("o", False, False)
    assert pf._parse(["analyze", "a", "--out=o", "--overwrite", "-q"])[4:] == ("o", True, True)
    assert pf._parse(["analyze", "--quiet", "a", "-oo"])[4:] == ("o", False, True)


@pytest.mark.parametrize(
    "args",
    [
        ["run", "a.toml", "-o", "o"],
        ["analyze", "a.pcap"],  # no -o: click's usage error
        ["analyze", "-o", "o"],  # no capture
        ["analyze", "a.pcap", "-o"],
        ["analyze", "a.pcap", "-o", "o", "--scenario", "s.toml"],
        ["analyze", "a.pcap", "-o", "o", "--help"],
        ["analyze", "a.pcap", "-qo", "o"],
        ["--version"],
    ],
)
def test_the_early_look_leaves_everything_else_to_click(args):
    assert pf._parse(args) is None


def _tables(res) -> tuple:
    return (res.summary, res.arrow("retransmissions"), res.arrow("connections"))


def test_the_started_analysis_is_taken_only_by_the_same_call():
    plain = analyze(str(CAPTURE), model="linux")
    assert plain.summary["table_iv"]["total"]["total"] > 0, "the fixture has retransmissions"

    pf.start(["analyze", str(CAPTURE), "-o", "x", "--model", "linux"])
    assert pf._pending is not None
    # Another model: not the same call, so not taken (and nothing stays pending).
    assert pf.take([str(CAPTURE)], "auto", "rfc", None) is None
    assert pf._pending is None

    pf.start(["analyze", str(CAPTURE), "-o", "x", "--model", "linux"])
    pending = pf._pending[1]
    early = analyze(str(CAPTURE), model="linux")
    assert pf._pending is None
    with pytest.raises(RuntimeError, match="already taken"):
        pending.result()  # proves `analyze` above took this handle
    a, b = _tables(plain), _tables(early)
    assert a[0] == b[0]
    assert a[1].equals(b[1]) and a[2].equals(b[2])


def test_no_early_start_for_what_is_not_a_regular_file(tmp_path: Path):
    pf.start(["analyze", str(tmp_path), "-o", "x"])
    assert pf._pending is None
    pf.start(["analyze", str(tmp_path / "missing.pcap"), "-o", "x"])
    assert pf._pending is None
    pf.start(["analyze", str(CAPTURE), "-o", "x", "--model", "no-such-os"])  # the core refuses it
    assert pf._pending is None


def _cli(code: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=cwd, timeout=120)


def test_the_console_script_writes_what_the_click_command_writes(tmp_path: Path):
    early = _cli(SCRIPT, "analyze", str(CAPTURE), "-o", "early", "--model", "linux", cwd=tmp_path)
    late = _cli(CLICK_ONLY, "analyze", str(CAPTURE), "-o", "late", "--model", "linux", cwd=tmp_path)
    assert early.returncode == late.returncode == 0, early.stderr + late.stderr
    assert early.stdout.replace("early/", "late/") == late.stdout
    assert early.stderr == late.stderr == ""
    names = sorted(p.name for p in (tmp_path / "late").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "early").iterdir())
    for name in names:
        assert (tmp_path / "early" / name).read_bytes() == (tmp_path / "late" / name).read_bytes(), name


def test_a_refused_output_directory_is_refused_as_before(tmp_path: Path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("x")
    early = _cli(SCRIPT, "analyze", str(CAPTURE), "-o", "full", cwd=tmp_path)
    late = _cli(CLICK_ONLY, "analyze", str(CAPTURE), "-o", "full", cwd=tmp_path)
    assert early.returncode == late.returncode == 2
    assert early.stderr == late.stderr and early.stderr.startswith("tcplab: error: ")
    assert sorted(p.name for p in (tmp_path / "full").iterdir()) == ["keep.txt"]


@pytest.mark.parametrize(
    "given", ["a.pcap", "./a.pcap", "a//b/./c.pcap", "/x/y/", "//net/a", "///a", "../a/.", ".", "/", "//", "a\udce9.pcap"]
)
def test_capture_paths_are_normalised_as_click_s_pathlib_does(given: str):
    assert pf.as_click_path(given) == str(Path(given))


def test_a_plain_analyze_does_not_import_click(tmp_path: Path):
    r = subprocess.run([sys.executable, "-X", "importtime", "-c", SCRIPT, "analyze", str(CAPTURE), "-o", "o"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in r.stderr.splitlines() if line.startswith("import time:")}
    assert "tcplab.analyze" in imported
    assert "click" not in imported
    assert "results in o/" in r.stdout


def test_skipped_captures_and_write_errors_read_as_before(tmp_path: Path):
    garbage = tmp_path / "notes.pcap"
    garbage.write_bytes(b"not a capture at all\n" * 10)
    runs = []
    for code, out in ((SCRIPT, "early"), (CLICK_ONLY, "late")):
        r = _cli(code, "analyze", str(CAPTURE), str(garbage), "-o", out, cwd=tmp_path)
        runs.append((r.returncode, r.stderr, r.stdout.replace(f"{out}/", "OUT/")))
    assert runs[0] == runs[1]
    assert runs[0][0] == 0 and "tcplab: skipped: " in runs[0][1]
    runs = []
    for code, out in ((SCRIPT, "early2"), (CLICK_ONLY, "late2")):
        with open("/dev/full", "w") as full:
            r = subprocess.run([sys.executable, "-c", code, "analyze", str(CAPTURE), "-o", out], stdout=full,
                               stderr=subprocess.PIPE, text=True, cwd=tmp_path, timeout=120)
        runs.append((r.returncode, r.stderr))
    assert runs[0] == runs[1] == (2, "tcplab: error: No space left on device\n")
