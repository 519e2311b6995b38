"""Dask worker preload (``LocalCluster(preload=[...])``): local workers ignore SIGINT.

A Ctrl-C at the terminal goes to the whole foreground process group, local workers
included. The driver handles it (files nothing more, closes the cluster, exits 130); a worker
that took it too would die with a traceback on the terminal and, if it were restarted, run
its task again for nothing. The driver already starts its workers with SIGINT ignored (the
disposition is inherited across exec); this preload does the same for a worker the nanny
restarts later (after a worker was killed), which inherits the driver's Python handler.
"""

from __future__ import annotations

import signal
import threading


def dask_setup(worker) -> None:  # noqa: ARG001 - Dask's preload hook signature
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
