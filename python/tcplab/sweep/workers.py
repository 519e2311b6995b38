"""Local Dask workers forked from one process that imported what they need once.

Dask's ``LocalCluster`` starts each worker process with multiprocessing's ``spawn`` by
default: a fresh interpreter that imports Python's standard library, ``dask.distributed``,
pyarrow and tcplab again, one such import per worker (and another for a worker the nanny
restarts after it was killed). Measured in session 7, that was most of the ~3 s of CPU a
study paid before its first run (docs/benchmarks.md, "The floor").

With multiprocessing's ``forkserver`` start method (Dask's
``distributed.worker.multiprocessing-method``), a server process is started once, imports
:data:`PRELOAD` (``multiprocessing.set_forkserver_preload``) and forks every worker from
itself: one import for all the workers of a process's life (a restarted worker is a fork
too), and a fork of a process that runs no Python thread, which is safe where forking the
driver (Dask's event loop, tqdm's monitor and Arrow's thread pools run in it) would not be. The
server is started as soon as the driver knows it will need local workers (:func:`start`,
called by ``tcplab sweep`` before it imports pandas and by :func:`tcplab.sweep.runner.execute`),
so its imports run on the other core while the driver imports Dask and validates the study.

Ctrl-C belongs to the driver (docs/design.md, "Ctrl-C belongs to the driver"): the server is
started with SIGINT ignored, a disposition inherited across ``exec`` that Python keeps at
start-up, and multiprocessing's fork server gives each child the server's own disposition
(``multiprocessing.forkserver._serve_one`` restores the handlers ``main`` replaced), so a
worker never sees a terminal's Ctrl-C, from its first instruction on. The worker preload
(``_worker.py``) still ignores it too, for the spawn method and remote-style setups.

The server lives as long as the process that started it (it exits when the last holder of
its "alive" pipe does), so a second study in the same process (the Python API, the
reproductions' several experiments, the test suite) forks its workers at once.
"""

from __future__ import annotations

import multiprocessing
import signal
import threading

#: Dask's setting of the local workers' start method (``distributed.worker.multiprocessing-method``).
START_METHOD = "forkserver"

#: What the fork server imports once, before forking any worker: what a worker process
#: imports to start (``distributed``'s nanny and worker) and to run a study's runs
#: (``tcplab.sweep.task``: ``tcplab.api`` with the compiled core, pyarrow and numpy). Not
#: pandas: a study's run never imports it (it would add ~0.3 s of CPU to the server); a
#: reproduction's measurement that needs it imports it in each worker, as with ``spawn``.
#: Nothing here starts a Python thread at import (two native threads do exist: numpy's
#: OpenBLAS pool and pyarrow's jemalloc background thread, and both libraries register
#: ``pthread_atfork`` handlers that make a fork safe); ``tests/test_sweep.py::
#: test_local_workers_fork_from_a_server_without_python_threads_and_ignore_ctrl_c`` checks it.
PRELOAD = (
    "distributed",
    "distributed.nanny",
    "distributed.worker",
    "pyarrow",
    "tcplab",
    "tcplab.api",
    "tcplab.sweep._worker",
    "tcplab.sweep.task",
)

_lock = threading.Lock()


def available() -> bool:
    """Whether this platform has multiprocessing's fork server (POSIX does, Windows not)."""
    return START_METHOD in multiprocessing.get_all_start_methods()


def start() -> bool:
    """Start the fork server now (if not running yet) with :data:`PRELOAD`, SIGINT ignored,
    and return True; False where there is no fork server (Dask then spawns its workers).
    Returns at once: the server imports in the background and queues the fork requests
    that arrive meanwhile."""
    if not available():
        return False
    from multiprocessing import forkserver

    with _lock:
        ctx = multiprocessing.get_context(START_METHOD)
        ctx.set_forkserver_preload(list(PRELOAD))
        in_main = threading.current_thread() is threading.main_thread()
        old = signal.signal(signal.SIGINT, signal.SIG_IGN) if in_main else None
        try:
            forkserver.ensure_running()
        finally:
            if in_main:
                signal.signal(signal.SIGINT, old)
    return True


def stop() -> None:
    """Stop the fork server this process started (if any) and reap it, so that its CPU time
    and that of the workers it forked and reaped count in this process's children's
    (``/usr/bin/time``, ``getrusage(RUSAGE_CHILDREN)``): ``tcplab sweep`` calls it once its
    cluster is closed. The server holds nothing to flush, so it is ended with SIGTERM rather
    than by closing its "alive" pipe, on which it would take the 0.5 s of a Python
    interpreter's orderly exit after importing pandas and Dask (measured)."""
    import os
    from multiprocessing import forkserver, util

    fs = forkserver._forkserver
    with _lock:
        pid = getattr(fs, "_forkserver_pid", None)
        fd = getattr(fs, "_forkserver_alive_fd", None)
        if pid is None or fd is None:
            return
        os.close(fd)
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:  # pragma: no cover - it died already; reaped below
            pass
        os.waitpid(pid, 0)
        address = fs._forkserver_address
        fs._forkserver_alive_fd = fs._forkserver_pid = fs._forkserver_address = None
        if address and not util.is_abstract_socket_namespace(address) and os.path.exists(address):
            os.unlink(address)


def claim_dask_preload() -> None:
    """Tell Dask that the fork server's preload is set (to :data:`PRELOAD`, by :func:`start`).
    Otherwise Dask's first use of the forkserver context (``distributed.utils.get_mp_context``)
    imports its own preload list (numpy, pandas, lz4, ...) into the driver to set it: 0.3 s of
    pandas before the first run, which the driver otherwise imports while the workers simulate
    (``runner.warm_up``). The flag is Dask's private one; where it is missing, nothing changes
    but that import."""
    try:
        import distributed.utils as du
    except ImportError:  # pragma: no cover - dask is a dependency
        return
    if hasattr(du, "_forkserver_preload_set"):
        du._forkserver_preload_set = True


def server_pid() -> int | None:
    """The running fork server's process id (None before :func:`start`); for tests."""
    from multiprocessing import forkserver

    return getattr(forkserver._forkserver, "_forkserver_pid", None)
