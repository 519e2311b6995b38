"""`tcplab reproduce pta`: the output contract, every figure with every variant, and effects that
hold on the Fig 6 topology. The mechanisms are tested in Rust (crates/tcplab-tcp/src/startup/
pathlet*.rs, host_cache.rs; crates/tcplab-netsim/tests/pathlet.rs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import reproduce_quick, results_rows

FIGURES = [f"fig{i}" for i in range(9, 25)]
SERIES = {"icw3", "icw10", "pta", "host-sharing"}


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory) -> Path:
    return reproduce_quick(tmp_path_factory, "pta")


rows = results_rows


def test_every_figure_has_every_variant_and_the_report_is_written(quick_run: Path):
    rs = rows(quick_run)
    assert (quick_run / "report.md").read_text().startswith("# Reproduction:")
    for f in FIGURES:
        mine = [r for r in rs if r["figure"] == f]
        assert mine, f
        if f != "fig15":
            assert {r["series"] for r in mine} == SERIES, f
    icw = [r for r in rs if r["figure"] == "fig15" and r["metric"] == "icw_segments"]
    assert {r["series"] for r in icw} == {"pta", "pta-profile2"}
    assert all(float(r["ours"]) >= 1 for r in icw)
    drops = [r for r in rs if r["figure"] == "fig20" and r["metric"] == "drops"]
    assert drops and all(r["x"].endswith("s") for r in drops), "x is the mean inter-arrival time"


def test_without_congestion_ten_segments_finish_sooner_than_three(quick_run: Path):
    # Fig 9: behind 4 Mb/s at 300 ms between arrivals the queue is nearly always empty, so a
    # 40-KB flow that starts with 10 segments needs fewer round trips than one with 3.
    med = {r["series"]: float(r["ours"]) for r in rows(quick_run)
           if r["figure"] == "fig9" and r["x"] == "0.5" and r["metric"] == "fct_s"}
    assert med["icw10"] < med["icw3"]


def test_workload_flows_are_named_after_their_workload():
    import tcplab

    res = tcplab.run("red-ecn-web", overrides=["simulation.duration=3s"], trace=False)
    names = res.flows.set_index("id")["flow_name"].astype(object)
    assert names[0] == "long"
    assert len(names) > 5 and all(n == "web" for n in names.iloc[1:])
    assert all(f["workload"] == "web" for f in res.summary["flows"][1:])
    assert "workload" not in res.summary["flows"][0]


def test_every_figure_has_a_png_and_the_sensitivity_figures_their_series(quick_run: Path):
    # Figs 9/10 are CDFs, 14/15 lines: every figure of 9-24 is drawn, not only tabulated.
    for f in FIGURES:
        assert (quick_run / f"{f}.png").stat().st_size > 0, f
    rs = rows(quick_run)
    series = lambda fig: {r["series"] for r in rs if r["figure"] == fig}  # noqa: E731
    assert series("readings") == {"pta share=even", "pta share=split", "pta share=budget", "pta share=none",
                                  "pta flight=at_signal", "pta loss=off"}
    assert series("table") == {"pta", "pta initial_rto", "pta ssthresh"}
    assert series("buffer43") == SERIES


def test_log_axes_are_labelled_as_plain_numbers():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from tcplab.reproduce.pta import _plain_log_ticks

    f, ax = plt.subplots()
    ax.plot([0.002, 0.05, 4.0], [1, 2, 3])
    ax.set_xscale("log")
    _plain_log_ticks(ax, [0.002, 0.05, 4.0])
    f.canvas.draw()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0.002", "0.05", "4"]
    plt.close(f)


def test_paired_differences_are_differences_of_the_same_seeds(quick_run: Path):
    # Fig 11's paired rows: with every seed run for every variant, the mean of the per-seed
    # differences is the difference of the means.
    rs = rows(quick_run)
    get = lambda fig, s, m: {r["x"]: float(r["ours"]) for r in rs  # noqa: E731
                             if r["figure"] == fig and r["series"] == s and r["metric"] == m}
    diff = get("fig11-paired", "pta-minus-icw3", "fct_mean_s")
    pta, icw3 = get("fig11", "pta", "fct_mean_s"), get("fig11", "icw3", "fct_mean_s")
    assert diff and set(diff) == set(pta)
    for x, d in diff.items():
        assert abs(d - (pta[x] - icw3[x])) < 0.01, x


def test_the_mechanism_rows_decompose_ptas_initial_window(quick_run: Path):
    # The window given is SAFE_CWND / k, at least one segment: never above the SAFE_CWND found.
    rs = [r for r in rows(quick_run) if r["figure"] == "mechanism" and r["series"] == "pta"]
    by = lambda m: {r["x"]: float(r["ours"]) for r in rs if r["metric"] == m}  # noqa: E731
    safe, k, given = by("pt_iw_safe_segments"), by("pt_iw_share_k"), by("pt_iw_given")
    assert given and set(given) == set(safe) == set(k)
    for x in given:
        assert 1 <= given[x] <= max(safe[x], 1) + 1e-9 and k[x] >= 1, x
    none = {r["x"]: float(r["ours"]) for r in rows(quick_run) if r["figure"] == "mechanism"
            and r["series"] == "pta share=none" and r["metric"] == "pt_iw_share_k"}
    assert none and all(v == 1 for v in none.values()), "without sharing k is 1"
