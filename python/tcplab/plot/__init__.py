"""``tcplab plot``: a simulation run's flow (:mod:`.run`), an analyzed capture's connection
(:mod:`.capture`); ``tcplab plot sweep`` is :mod:`tcplab.sweep.plot`. Shared pieces in
:mod:`.common`."""

from __future__ import annotations

from .common import CAUSE_COLOURS, IMAGE_FORMATS, KB, RUG_MAX_MARKS
from .capture import capture_figure, plot_capture
from .run import _check_image_path, _check_range, _rug, flow_figure, plot_flow

__all__ = ["CAUSE_COLOURS", "IMAGE_FORMATS", "KB", "RUG_MAX_MARKS", "capture_figure", "flow_figure", "plot_capture",
           "plot_flow", "_check_image_path", "_check_range", "_rug"]
