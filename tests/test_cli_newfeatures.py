"""A demanding user's checks of this session's new features (qa): the richer
``tcplab plot RUN_DIR``, ``tcplab plot ANALYZE_DIR`` on odd inputs, the web workload and
``[pathlet]``/``[host_cache]`` keys under bad ``--set`` values. Each test takes a few seconds."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib.pyplot as plt
import pytest

from conftest import tcplab_cli
from tcplab import api
from tcplab import scenarios as shipped
from tcplab.errors import ScenarioError
from tcplab import plot as tplot

#: dumbbell's flow 3 (s3 -> d3, 100 KB from 6 s) loses its first three data segments, which
#: also carry the handshake's ACK: the sender times out once, and the receiver, still in
#: SYN-RCVD, retransmits its SYN-ACK on its own timer (seed 1).
FLOW = 3
#: The run goes on well past the flow's end (about 8.8 s).
DURATION_S = 12


@pytest.fixture(scope="module")
def dumbbell_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("qa") / "run d"  # a space in the path
    api.run("dumbbell", overrides=[f"simulation.duration={DURATION_S}s"], out=out, pcap=["bottleneck"])
    return out


def _summary_flow(run: Path, flow: int) -> dict:
    return json.loads((run / "summary.json").read_text())["flows"][flow]


def test_run_plot_axis_fits_the_flow_not_the_whole_run(dumbbell_run: Path):
    fig = tplot.flow_figure(dumbbell_run, FLOW)
    try:
        lo, hi = fig.axes[0].get_xlim()
    finally:
        plt.close(fig)
    f = _summary_flow(dumbbell_run, FLOW)
    end = f["start_s"] + f["fct_s"]
    # The timeseries is sampled until the run ends (12 s); the axis must stop near the flow's end.
    assert lo <= f["start_s"] and end <= hi < end + 0.5, (lo, hi, end)


def test_run_plot_draws_the_senders_timeouts_not_the_receivers(dumbbell_run: Path):
    f = _summary_flow(dumbbell_run, FLOW)
    assert f["timeouts"] == 1 and f["retransmissions"] == 3, f  # the scenario still shows the case
    fig = tplot.flow_figure(dumbbell_run, FLOW)
    try:
        ax_seq, ax_win = fig.axes[0], fig.axes[1]
        timeouts = [ln for ln in ax_win.get_lines() if ln.get_label() == "timeout"]
        assert len(timeouts) == 1 and len(timeouts[0].get_xdata()) == f["timeouts"]
        marked = sum(len(c.get_offsets()) for c in ax_seq.collections if str(c.get_label()).startswith("retransmit"))
        assert marked == f["retransmissions"]
    finally:
        plt.close(fig)


@pytest.fixture(scope="module")
def analysis(dumbbell_run: Path) -> Path:
    from tcplab.analyze import analyze

    out = dumbbell_run.parent / "an d"
    analyze([str(dumbbell_run / "bottleneck.pcap")]).write(out)
    return out


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--conn", "99"], "--conn: no connection 99"),
        (["--start", "500"], "--start 500: after the connection's last packet"),
    ],
)
def test_plot_of_an_analysis_rejects_bad_options_in_one_line(analysis: Path, tmp_path: Path, args, needle):
    from click.testing import CliRunner

    from tcplab.cli import main

    # In-process (click's runner): a CLI process would spend seconds importing. `output` is
    # stdout and stderr together (click >= 8.2; stderr alone in 8.1), and must be one line.
    r = CliRunner().invoke(main, ["plot", str(analysis), *args, "-o", str(tmp_path / "p.png")])
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tcplab: error: ") and needle in lines[0], r.output
    assert not (tmp_path / "p.png").exists()


WEB = """
[[workloads]]
name = "web"
kind = "web"
senders = ["s1", "s2"]
receivers = ["d1", "d2"]
sessions = 2
pages_per_session = 3
object_size = { mean = 20, shape = 1.2, max = 200 }

[pathlet]
routers = ["r1", "r2"]
"""


@pytest.fixture(scope="module")
def web_scenario(tmp_path_factory) -> Path:
    src = shipped.path("dumbbell").read_text()
    src = src[: src.index("[[flows]]")]
    p = tmp_path_factory.mktemp("qa") / "web scen.toml"
    p.write_text(src + WEB)
    return p


@pytest.mark.parametrize(
    "override,needle",
    [
        ("workloads.web.sessions=0", "workloads[0].sessions: must be at least 1"),
        ("workloads.web.object_size.shape=1", "workloads[0].object_size.shape: must be greater than 1"),
        ("workloads.web.kind=ftp", 'workloads[0].kind: unknown value "ftp"'),
        ("pathlet.slots=9", "pathlet.slots: 9 is out of range"),
        ('pathlet.routers=["s1"]', 'pathlet.routers[0]: "s1" is a host'),
        ("pathlet.share=bogus", 'pathlet.share: unknown share "bogus"'),
        ("host_cache.cwnd=maybe", "host_cache.cwnd: expected true or false"),
        ("tcp.sharing=bogus", 'tcp.sharing: unknown state sharing "bogus"'),
    ],
)
def test_bad_web_pathlet_and_sharing_values_are_one_line(web_scenario: Path, override: str, needle: str):
    with pytest.raises(ScenarioError) as e:
        api.check(web_scenario, [override])
    msg = str(e.value)
    assert "\n" not in msg and needle in msg and f"(from --set {override})" in msg, msg


def test_check_counts_workloads_beside_flows(web_scenario: Path):
    r = tcplab_cli("check", str(web_scenario))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith(": ok (0 flows, 1 workload, 7 links)"), r.stdout


def test_analyze_scenario_notes_that_flows_with_other_settings_have_their_own_model(dumbbell_run: Path, tmp_path: Path):
    # dumbbell's flow 5 has its own [tcp] settings; the others share the scenario's.
    r = tcplab_cli("analyze", str(dumbbell_run / "bottleneck.pcap"), "-o", str(tmp_path / "a"),
                   "--scenario", str(dumbbell_run))
    assert r.returncode == 0, r.stderr
    assert ("note: the scenario's flows have 2 different [tcp] settings; each connection was replayed "
            "with its own flow's (connections.csv, column model)") in r.stdout, r.stdout


def test_plot_of_a_multi_capture_analysis_says_how_to_pick_another(dumbbell_run: Path, tmp_path: Path):
    import shutil

    from tcplab.analyze import analyze
    from tcplab.plot.capture import capture_figure

    second = tmp_path / "copy.pcap"
    shutil.copy(dumbbell_run / "bottleneck.pcap", second)
    an = tmp_path / "an"
    analyze([str(dumbbell_run / "bottleneck.pcap"), str(second)]).write(an)
    fig, what = capture_figure(an)
    plt.close(fig)
    # 6 connections per capture with ids 0..5 in each: --conn alone cannot name them all.
    assert "(12 in the analysis; analyse one capture to pick another with --conn N)" in what, what
    with pytest.raises(ScenarioError, match=r"connection 0 is in several captures"):
        capture_figure(an, conn=0)


def test_plot_reads_a_run_whose_directory_name_is_not_utf8(dumbbell_run: Path, tmp_path: Path):
    import os
    import shutil

    odd = tmp_path / os.fsdecode(b"r\xff un")
    shutil.copytree(dumbbell_run, odd)
    fig = tplot.flow_figure(odd, FLOW)  # pyarrow's own path handling refused this name
    plt.close(fig)
