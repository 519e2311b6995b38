"""The CLI's messages: usage errors in one line, a quiet exit on a closed pipe, and the small
listings (`scenarios`, `profiles`, `bench`, `check`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, tcplab_cli
from tcplab import cli


@pytest.mark.parametrize(
    "args,needle",
    [
        (["run", "dumbbell"], "missing option -o/--out"),
        (["run", "dumbbell", "-o", "README.md"], "-o/--out:"),
        (["run", "dumbbell", "-o", "x", "--seed", "-1"], "--seed: -1 is not in the range"),
        (["analyze", "x.pcap", "-o", "a", "--vantage", "client"], "--vantage: 'client' is not one of"),
        (["plot", "out", "-o", "p.png", "--flow", "x"], "--flow: 'x' is not a valid integer"),
        (["run", "dumbbell", "-o", "x", "--sed", "1"], "no such option"),
        (["nosuchcommand"], "no such command"),
    ],
)
def test_usage_errors_are_one_line_exit_2(args, needle):
    r = tcplab_cli(*args)
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("tcplab: error: "), lines[0]
    assert needle in lines[0], lines[0]
    assert "--help" in lines[0], "points at the command's help"
    assert "Usage:" not in r.stderr and "Traceback" not in r.stderr


def test_help_and_version_still_exit_0():
    for args in (["--help"], ["run", "--help"], ["--version"]):
        r = tcplab_cli(*args)
        assert r.returncode == 0 and r.stdout and not r.stderr, (args, r.stderr)


@pytest.mark.parametrize(
    "args",
    [["scenarios"], ["reproduce", "--list"], ["profiles"], ["schema"], ["run", "{small}", "-o", "{tmp}/o"]],
    ids=["scenarios", "reproduce-list", "profiles", "schema", "run"],
)
def test_a_closed_stdout_ends_quietly_with_141(args, small_scenario: Path, tmp_path: Path):
    args = [a.format(small=small_scenario, tmp=tmp_path) for a in args]
    p = subprocess.Popen(
        [sys.executable, "-m", "tcplab.cli", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
    )
    p.stdout.close()  # the reader is gone before tcplab writes anything (`| head -0`)
    err = p.stderr.read().decode()
    assert p.wait(timeout=600) == cli.EXIT_BROKEN_PIPE, err
    assert err == ""


def test_an_os_error_without_a_file_name_has_no_double_colon(capsys):
    @cli._user_errors
    def fails():
        raise OSError(28, "No space left on device")

    with pytest.raises(SystemExit) as e:
        fails()
    assert e.value.code == 2
    assert capsys.readouterr().err == "tcplab: error: No space left on device\n"


def test_an_os_error_with_a_file_name_names_it(capsys):
    @cli._user_errors
    def fails():
        raise PermissionError(13, "Permission denied", "/x/y")

    with pytest.raises(SystemExit):
        fails()
    assert capsys.readouterr().err == "tcplab: error: /x/y: Permission denied\n"


def test_scenarios_shows_whole_first_sentences():
    r = tcplab_cli("scenarios")  # stdout is a pipe: no cutting to a terminal width
    assert r.returncode == 0, r.stderr
    lines = dict(l.split(None, 1) for l in r.stdout.strip().splitlines())
    assert lines["dumbbell"] == (
        "Dumbbell: three senders and three receivers on either side of a 10 Mb/s, 20 ms bottleneck."
    )
    assert lines["aron98-fig1"].endswith("Figure 1: the high speed WAN.")
    for name, text in lines.items():
        assert text.endswith("."), (name, text)
        assert "…" not in text


def test_scenario_descriptions_are_cut_at_a_word_boundary_on_a_narrow_terminal():
    toml = "# One two three four five six. Second sentence.\n# more\n\nname = 'x'\n"
    assert cli._describe(toml) == "One two three four five six."
    assert cli._describe(toml, 80) == "One two three four five six."
    assert cli._describe(toml, 16) == "One two three…"
    assert cli._describe("# Ch. 4, Fig. 4.1 of the thesis. Next.\n") == "Ch. 4, Fig. 4.1 of the thesis."
    assert cli._describe("# first paragraph\n#\n# second\n") == "first paragraph"


def test_profiles_table_prints_on_and_off_not_python_bools():
    r = tcplab_cli("profiles")
    assert r.returncode == 0, r.stderr
    table = r.stdout.split("\n\n")[0]
    assert "True" not in table and "False" not in table
    row = next(l for l in table.splitlines() if l.startswith("pacing"))
    assert "on" in row.split() and "off" in row.split()


def test_unknown_bench_case_prints_nothing_on_stdout():
    r = tcplab_cli("bench", "--case", "1x100M", "--case", "nosuch")
    assert r.returncode == 2 and "nosuch" in r.stderr
    assert r.stdout == "", "no table header before the error"


def test_check_documents_set_and_says_flow_in_the_singular(small_scenario: Path):
    r = tcplab_cli("check", "--help")
    assert "--set PATH=VALUE" in r.stdout and "Override a scenario key" in r.stdout
    r = tcplab_cli("check", str(small_scenario))
    assert r.returncode == 0 and "(1 flow, 2 links)" in r.stdout, r.stdout
    r = tcplab_cli("run", str(small_scenario), "-o", str(small_scenario.parent / "o"))
    assert r.returncode == 0 and "small: 1 flow," in r.stdout, r.stdout
