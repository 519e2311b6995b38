"""The shared reproduction report: figures drawn in quick mode say so in their titles."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from tcplab.reproduce.common import Report, mark_quick  # noqa: E402


def test_quick_figures_get_quick_in_their_titles(tmp_path: Path):
    rep = Report("t", "test", tmp_path, quick=True)
    fig, ax = plt.subplots()
    ax.set_title("Fig. 4.5: throughput")
    rep.figure("a", "A").plot(fig)
    assert ax.get_title() == "Fig. 4.5: throughput (quick)"
    assert (tmp_path / "a.png").exists()

    fig, axes = plt.subplots(1, 2)  # no title anywhere: the report's figure title, marked
    rep.figure("b", "Fig 7: low BDP").plot(fig)
    assert fig._suptitle.get_text() == "Fig 7: low BDP (quick)"

    fig, axes = plt.subplots(1, 2)
    fig.suptitle("Both panels")
    axes[0].set_title("left")
    mark_quick(fig, "x")
    mark_quick(fig, "x")  # idempotent
    assert fig._suptitle.get_text() == "Both panels (quick)" and axes[0].get_title() == "left"
    plt.close("all")


def test_full_run_figures_are_not_marked(tmp_path: Path):
    rep = Report("t", "test", tmp_path, quick=False)
    fig, ax = plt.subplots()
    ax.set_title("Fig. 4.5: throughput")
    rep.figure("a", "A").plot(fig)
    assert ax.get_title() == "Fig. 4.5: throughput" and fig._suptitle is None
    plt.close(fig)
