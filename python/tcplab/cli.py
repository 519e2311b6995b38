"""The ``tcplab`` command line.

Every user error ends in one line on stderr, ``tcplab: error: ...``, and exit code 2; that
includes click's usage errors (a missing option, a bad choice or number), which click itself
would print as three lines. Nothing a user can type produces a Python traceback.

Output directories (``run``, ``analyze``, ``reproduce``) are written through
:mod:`tcplab.outdir`: a non-empty directory is refused unless ``--overwrite`` is given, and
nothing half-written is ever left behind. Paths are shown escaped (``caf\\xe9``).

Start-up is lazy: only click and the compiled core are imported before a command runs;
pandas, pyarrow and matplotlib are imported by the commands that need them.

When the reader of stdout goes away (``tcplab scenarios | head -1``), tcplab stops quietly,
with nothing on stderr and exit code 141 (128 + SIGPIPE), the status a shell reports for
``cat``, ``git`` and other tools stopped by the broken pipe.
"""

from __future__ import annotations

import errno
import functools
import json
import os
import shutil
import sys
from pathlib import Path

import click

from .analyze_report import plural as _plural, print_analysis
from .errors import ScenarioError, TcplabError

EXIT_USER_ERROR = 2
#: Exit status when stdout is a pipe whose reader has gone (128 + SIGPIPE, as a shell reports).
EXIT_BROKEN_PIPE = 141


class _StdoutClosed(Exception):
    """stdout's reader went away (EPIPE); raised past click, which would exit 1 on its own."""


def _is_epipe(e: BaseException) -> bool:
    return isinstance(e, BrokenPipeError) or (isinstance(e, OSError) and e.errno == errno.EPIPE)


def _exit_stdout_closed() -> None:
    # Point stdout at /dev/null so the interpreter's final flush cannot fail again
    # (https://docs.python.org/3/library/signal.html#note-on-sigpipe).
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    sys.exit(EXIT_BROKEN_PIPE)


#: click.Path's checks, reworded in the project's style ``PATH: what is wrong``.
_CLICK_PATH_PROBLEMS = {
    "does not exist": "no such file or directory",
    "is a file": "is a file, not a directory",
    "is a directory": "is a directory, not a file",
    "is not readable": "permission denied (not readable)",
    "is not writable": "permission denied (not writable)",
    "is not executable": "permission denied (not executable)",
}


def _path_problem(message: str) -> str | None:
    """click.Path's ``File 'x' is a directory.`` as ``x: is a directory, not a file``."""
    import re

    m = re.fullmatch(r"(?:File|Directory|Path|Executable) '(.*)' (.+?)\.?", message.strip(), re.S)
    if m and m.group(2) in _CLICK_PATH_PROBLEMS:
        from .outdir import show

        return f"{show(m.group(1))}: {_CLICK_PATH_PROBLEMS[m.group(2)]}"
    return None


def _usage_line(e: click.UsageError) -> str:
    """click's usage error as one line: ``--vantage: 'client' is not one of ...``."""
    param = getattr(e, "param", None)
    name = None
    if param is not None:
        name = "/".join(param.opts) if isinstance(param, click.Option) else param.human_readable_name
    if isinstance(e, click.MissingParameter) and name:
        kind = e.param_type or param.param_type_name
        msg = f"missing {kind} {name}"
    elif isinstance(e, click.BadParameter) and name:
        msg = f"{name}: {_path_problem(e.message) or e.message}"
    else:
        msg = e.format_message()
    msg = msg.strip().rstrip(".")
    if len(msg) > 1 and msg[0].isupper() and msg[1].islower():
        msg = msg[0].lower() + msg[1:]
    msg = " ".join(msg.split()).replace(". (", " (")
    if e.ctx is not None:
        msg += f" (see '{e.ctx.command_path} --help')"
    return msg


class _TcplabGroup(click.Group):
    """The ``tcplab`` group: one-line usage errors and a quiet exit on a closed stdout."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except OSError as e:
            if _is_epipe(e):
                raise _StdoutClosed() from None
            raise

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        try:
            rv = super().main(args, prog_name or "tcplab", complete_var, standalone_mode=False, **extra)
            sys.stdout.flush()
        except _StdoutClosed:
            _exit_stdout_closed()
        except OSError as e:
            if not _is_epipe(e):
                raise
            _exit_stdout_closed()
        except click.UsageError as e:
            if type(e).__name__ == "NoArgsIsHelpError":  # bare `tcplab`: click prints the help
                e.show()
                sys.exit(e.exit_code)
            click.echo(f"tcplab: error: {_one_line(_usage_line(e))}", err=True)
            sys.exit(EXIT_USER_ERROR)
        except click.ClickException as e:
            click.echo(f"tcplab: error: {_one_line(e.format_message())}", err=True)
            sys.exit(e.exit_code)
        except click.Abort:
            click.echo("tcplab: interrupted", err=True)
            sys.exit(130)
        if not standalone_mode:
            return rv
        sys.exit(rv if isinstance(rv, int) else 0)


def _user_errors(fn):
    """Turn tcplab's user errors (and unwritable outputs) into one line + exit 2."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except TcplabError as e:
            click.echo(f"tcplab: error: {_one_line(str(e))}", err=True)
            sys.exit(EXIT_USER_ERROR)
        except OSError as e:
            if _is_epipe(e):
                raise
            from .outdir import show

            where = f" {show(e.filename)}:" if getattr(e, "filename", None) else ""
            click.echo(_one_line(f"tcplab: error:{where} {e.strerror or e}"), err=True)
            sys.exit(EXIT_USER_ERROR)
        except KeyboardInterrupt:
            click.echo("tcplab: interrupted", err=True)
            sys.exit(130)

    return wrapper


@click.group(cls=_TcplabGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tcplab")
def main() -> None:
    """tcplab: how TCP starts up and recovers from loss.

    \b
    tcplab run scenarios/dumbbell.toml -o out      simulate, write results
    tcplab plot out --flow 0 -o out/flow0.png      time-sequence + window trace + RTT/RTO
    tcplab plot out/analysis -o conn.png           time-sequence of an analyzed connection
    tcplab bench                                   simulator speed suite
    tcplab schema                                  JSON Schema of scenario files
    tcplab analyze trace.pcap -o out               classify retransmissions in a capture
    tcplab whatif trace.pcap -o out                replay it under other D, k, minRTO, ...
    tcplab sweep min_rto_3g -o out/rto             parameter study (points x seeds) on Dask
    tcplab compare out out/analysis                analyzer verdicts vs the simulator's truth
    tcplab reproduce aron98 --quick                a source paper's experiments (--list: all)
    """


def _fmt_rate(bps: float) -> str:
    for unit, div in (("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3)):
        if bps >= div:
            return f"{bps / div:.2f} {unit}"
    return f"{bps:.0f} b/s"




class _Path(click.Path):
    """click.Path that refuses the empty string: ``tcplab run "$SCENARIO"`` with SCENARIO
    unset would otherwise read ``.`` (the current directory) and report something about it."""

    def convert(self, value, param, ctx):
        if isinstance(value, (str, bytes)) and not value:
            self.fail("empty path", param, ctx)
        return super().convert(value, param, ctx)


def _one_line(message: str) -> str:
    """An error message as the one line it must be, with every name in it escaped as
    :func:`tcplab.outdir.show` escapes paths: bytes that are not UTF-8 (surrogate escapes, as
    Python carries them) as ``\\xNN``, control characters (a newline in a file name) as
    ``\\xNN``. Messages built by others (click, pyarrow, a library's ``OSError``) may hold a
    name unescaped; this is the last place to catch it."""
    out = []
    for c in message:
        o = ord(c)
        if 0xDC80 <= o <= 0xDCFF:  # a byte that was not UTF-8, as os.fsdecode carries it
            out.append(f"\\x{o - 0xDC00:02x}")
        elif c.isprintable() or c == " ":
            out.append(c)
        else:
            out.append(f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}")
    return "".join(out)


class _OutDir(click.ParamType):
    """An output directory: a local path whatever it looks like (``run:1``, ``s3:bucket`` are
    directory names, not URIs); an existing non-directory is a usage error in the project's
    style (``-o/--out: README.md: exists and is not a directory``). Emptiness and
    ``--overwrite`` are checked by :mod:`tcplab.outdir` when the command starts."""

    name = "directory"

    def convert(self, value, param, ctx):
        if isinstance(value, (str, bytes)) and not value:
            # `-o "$OUT"` with OUT unset: Path("") is ".", the current directory; refuse it.
            self.fail("empty path (give a directory name; '.' for the current directory)", param, ctx)
        path = Path(os.fsdecode(value)) if not isinstance(value, Path) else value
        if path.exists() and not path.is_dir():
            self.fail(f"{_shown(path)}: exists and is not a directory", param, ctx)
        return path


def _out_option(help_text: str = "Output directory (created if missing; must be empty unless --overwrite)."):
    """The ``-o/--out`` option of a command that writes a directory."""
    return click.option("-o", "--out", "out", required=True, type=_OutDir(), help=help_text)


_overwrite_option = click.option(
    "--overwrite", is_flag=True,
    help="Replace what an earlier tcplab command wrote in the output directory (other files are kept).",
)


def _shown(path) -> str:
    from .outdir import show

    return show(path)


def _print_summary(summary: dict, out: Path) -> None:
    flows = summary["flows"]
    click.echo(
        f"{summary['scenario']}: {_plural(len(flows), 'flow')}, {summary['sim_time_s']:.3f} s simulated, "
        f"{summary['events']} events in {summary['wall_s']:.2f} s wall"
    )
    header = f"{'flow':>4} {'src':>6} {'dst':>6} {'delivered':>12} {'fct_s':>9} {'goodput':>12} {'rexmit':>7} {'spur':>5} {'rto':>4}"
    click.echo(header)
    for f in flows[:50]:
        fct = "-" if f["fct_s"] is None else f"{f['fct_s']:.3f}"
        click.echo(
            f"{f['id']:>4} {f['src']:>6} {f['dst']:>6} {f['bytes_delivered']:>12} {fct:>9} "
            f"{_fmt_rate(f['goodput_bps']):>12} {f['retransmissions']:>7} "
            f"{f['spurious_retransmissions']:>5} {f['timeouts']:>4}"
        )
    if len(flows) > 50:
        click.echo(f"... and {len(flows) - 50} more flows (see flows.parquet)")
    click.echo(f"results in {_shown(out)}/")


@main.command()
@click.argument("scenario", type=_Path(path_type=Path))
@_out_option()
@_overwrite_option
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None,
              help="Run seed (default: the scenario's simulation.seed).")
@click.option("--set", "overrides", multiple=True, metavar="PATH=VALUE",
              help="Override a scenario key, e.g. --set links.bottleneck.bandwidth=10Mbps.")
@click.option("--pcap", "pcap", multiple=True, metavar="LINK",
              help="Write OUT/LINK.pcap with every packet crossing that link.")
@click.option("--no-trace", is_flag=True, help="Skip the events and timeseries tables.")
@click.option("--max-trace", "max_trace", default=None, metavar="SIZE",
              help="Warn before the run when its trace (events + timeseries) would be larger than "
                   "SIZE on disk (e.g. 500MB, 10GB; default 1GB).")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing on success (and no progress bar).")
@_user_errors
def run(scenario: Path, out: Path, overwrite: bool, seed, overrides, pcap, no_trace: bool, max_trace, quiet: bool) -> None:
    """Simulate SCENARIO (a file, or a shipped scenario's name) and write summary.json and
    flows/events/timeseries.parquet to OUT.

    Ctrl-C stops the run within a second: the results so far are written, marked
    "partial": true in summary.json, and tcplab exits with status 130."""
    from . import longrun, outdir
    from .api import load_scenario
    from .api import run as api_run

    try:
        limit = longrun.DEFAULT_MAX_TRACE if max_trace is None else longrun.parse_size(max_trace)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--max-trace") from None
    outdir.check(out, overwrite=overwrite)
    sc = load_scenario(scenario, overrides)
    if not no_trace:
        est = longrun.trace_estimate(sc)
        if est["bytes"] > limit:
            click.echo(
                f"tcplab: warning: this run's trace would be about {longrun.fmt_bytes(est['bytes'])} "
                f"({est['event_rows']:.3g} event rows), more than --max-trace {longrun.fmt_bytes(limit)}; "
                f"--no-trace skips it",
                err=True,
            )
    progress = not quiet and sys.stderr.isatty()
    with outdir.staged(out, overwrite=overwrite, command="run") as tmp:
        res = api_run(sc, seed=seed, out=tmp, pcap=pcap, trace=not no_trace, progress=progress,
                      partial_on_interrupt=True)
    if not quiet:
        _print_summary(res.summary, out)
    if res.summary["partial"]:
        click.echo(
            f"tcplab: interrupted at {res.summary['sim_time_s']:.3f} s simulated; "
            f"partial results in {_shown(out)}/ (\"partial\": true in summary.json)",
            err=True,
        )
        # Everything is written and closed: leave without the interpreter's teardown
        # (freeing every module's objects: 0.05 s of CPU, half a second of wall time on a
        # loaded machine), which a user who pressed Ctrl-C is waiting for.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)


@main.command()
@click.argument("scenario", type=_Path(path_type=Path))
@click.option("--set", "overrides", multiple=True, metavar="PATH=VALUE",
              help="Override a scenario key before checking, as `tcplab run --set` "
                   "(e.g. --set links.bottleneck.bandwidth=10Mbps). Each is checked alone, "
                   "then all together.")
@_user_errors
def check(scenario: Path, overrides) -> None:
    """Validate SCENARIO (a file, or a shipped scenario's name) and any overrides without
    running it."""
    from .api import check as api_check

    import tomllib

    sc = api_check(scenario, overrides)
    # Workloads start their connections during the run: count them beside the fixed flows, or
    # a web-only scenario reads as "0 flows".
    n_workloads = len(tomllib.loads(sc.resolved_toml).get("workloads") or [])
    parts = [_plural(sc._spec.num_flows, "flow")]
    if n_workloads:
        parts.append(_plural(n_workloads, "workload"))
    parts.append(_plural(len(sc.link_names), "link"))
    click.echo(f"{_shown(scenario)}: ok ({', '.join(parts)})")


@main.command()
@click.argument("results", type=_Path(file_okay=False, path_type=Path))
@click.argument("sweep_dir", required=False, metavar="[DIR]", type=_Path(file_okay=False, path_type=Path))
@click.option("--flow", type=int, default=None, help="Run: the flow id to draw (default 0).")
@click.option("--conn", type=int, default=None,
              help="Analysis: the connection id to draw (default: the one with most retransmissions). "
                   "Ids are per capture: to pick one of an analysis of several captures, analyse "
                   "that capture alone.")
@click.option("-o", "--out", "out", required=True, type=_Path(dir_okay=False, path_type=Path),
              help="Image file (.png, .pdf, .svg).")
@click.option("--start", type=float, default=None,
              help="Start of the time axis (s; for an analysis, since the connection's first packet).")
@click.option("--end", type=float, default=None, help="End of the time axis (s).")
@click.option("--metric", default=None, help="plot sweep: the flows column to draw (per-run mean over flows).")
@click.option("--x", "x_key", default=None, metavar="KEY", help="plot sweep: the swept key on the x axis.")
@_user_errors
def plot(results: Path, sweep_dir, flow, conn, out: Path, start, end, metric, x_key) -> None:
    """Draw one flow of a run's RESULTS directory (time-sequence, window trace, RTT/RTO), or
    one connection of a `tcplab analyze` directory (time-sequence with SACK blocks and
    retransmissions by cause and verdict, RTT/RTO).

    `tcplab plot sweep DIR --metric M --x KEY -o IMG`: a metric of a sweep against one swept
    key, with 95 % confidence bands, one series per combination of the other keys."""
    if sweep_dir is not None or (results == Path("sweep") and (metric or x_key)):
        if results != Path("sweep") or sweep_dir is None:
            raise click.UsageError("one directory only; for a sweep write: tcplab plot sweep DIR --metric M --x KEY -o IMG")
        if not metric or not x_key:
            raise click.UsageError("plot sweep needs --metric and --x")
        from .sweep.plot import plot_sweep

        plot_sweep(sweep_dir, metric, x_key, out)
        click.echo(f"wrote {_shown(out)}")
        return
    if not results.is_dir():
        raise ScenarioError(f"{_shown(results)}: no such directory (a `tcplab run` or `tcplab analyze` output)")
    from .plot.capture import is_analysis_dir, plot_capture

    if is_analysis_dir(results):
        if flow is not None:
            raise click.UsageError(f"{results} is an analysis: choose a connection with --conn, not --flow")
        _, what = plot_capture(results, out, conn, t_start=start, t_end=end)
        click.echo(f"wrote {_shown(out)} ({what})")
        return
    if conn is not None:
        raise click.UsageError(f"{results} is not an analysis directory: --conn is for `tcplab analyze` output")
    from .plot import plot_flow

    plot_flow(results, 0 if flow is None else flow, out, t_start=start, t_end=end)
    click.echo(f"wrote {_shown(out)}")


@main.command()
@click.option("--case", "cases", multiple=True, help="Run only this case (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per case on stdout.")
@_user_errors
def bench(cases, as_json: bool) -> None:
    """Run the simulator speed suite (release build, tracing off)."""
    from .bench import run_bench

    run_bench(list(cases) or None, as_json=as_json)


def _profile_cell(value) -> str:
    """A profile value for the table: clocks compactly, the rest as written in scenarios."""
    if isinstance(value, dict):
        kind = value.get("kind")
        if kind == "periodic":
            return f"periodic {value['period']}@{value['phase']}"
        if kind == "oneshot":
            return f"oneshot {value['granularity']}"
        if kind == "fine":
            return "fine"
        return ",".join(f"{k}={v}" for k, v in value.items())
    if value is False:
        return "off"
    if value is True:
        return "on"
    return str(value)


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print the profiles as a JSON list.")
def profiles(as_json: bool) -> None:
    """List the named OS profiles (scenario key `profile`) and every value they set."""
    from . import _core

    items = _core.profiles()
    if as_json:
        click.echo(json.dumps(items, indent=2))
        return
    keys = [k for k in items[0] if k not in ("name", "description")]
    cols = [[_profile_cell(p[k]) for k in keys] for p in items]
    width0 = max(len(k) for k in keys)
    widths = [max(len(p["name"]), *(len(c) for c in col)) for p, col in zip(items, cols)]
    header = " " * width0 + "  " + "  ".join(p["name"].ljust(w) for p, w in zip(items, widths))
    click.echo(header.rstrip())
    for i, k in enumerate(keys):
        line = k.ljust(width0) + "  " + "  ".join(col[i].ljust(w) for col, w in zip(cols, widths))
        click.echo(line.rstrip())
    click.echo("")
    for p in items:
        click.echo(f"{p['name']}: {p['description']}")


@main.command()
@click.argument("name", required=False)
@click.option("-o", "--out", "out", type=_OutDir(), default=None,
              help="Output directory (default: reproduce-NAME; must be empty unless --overwrite).")
@_overwrite_option
@click.option("--quick", is_flag=True, help="Short runs and few seeds (for CI); the full run is the reference.")
@click.option("--runs", type=click.IntRange(1, 10_000), default=None,
              help="Repetitions per configuration where the paper used several (default: the paper's).")
@click.option("--list", "list_", is_flag=True, help="List the experiment sets.")
@click.option("--workers", type=click.IntRange(0, 4096), default=None,
              help="Local worker processes for the runs (0: in this process; default: one per core, "
                   "0 with --quick). Sets built on the experiment layer only.")
@_user_errors
def reproduce(name, out, overwrite: bool, quick: bool, runs, list_: bool, workers) -> None:
    """Re-run a source paper's experiments: writes OUT/report.md and OUT/results.csv."""
    from . import reproduce as rp

    if list_ or name is None:
        for n in rp.names():
            try:
                title = rp.load(n).TITLE
            except KeyError:
                title = "(not built yet)"
            click.echo(f"{n:<10} {title}")
        return
    try:
        mod = rp.load(name)
    except KeyError:
        raise ScenarioError(f"reproduce: no experiment set \"{_shown(name)}\"; sets are: {', '.join(rp.names())}") from None
    out = out or Path(f"reproduce-{name}")
    from tqdm import tqdm

    from . import outdir

    with outdir.staged(out, overwrite=overwrite, command="reproduce") as tmp:
        with tqdm(desc=f"reproduce {name}", unit="run", disable=None) as bar:
            kw = {}
            if workers is not None:
                import inspect

                if "workers" not in inspect.signature(mod.run).parameters:
                    raise click.UsageError(f"--workers: reproduce {name} does not run on the experiment layer")
                kw["workers"] = workers
            report = mod.run(tmp, quick=quick, runs=runs, progress=bar, **kw)
        path = report.write()
    click.echo(f"wrote {_shown(out / path.name)} and {_shown(out / 'results.csv')}")

@main.command()
@click.argument("study", type=_Path(path_type=Path))
@click.option("-o", "--out", "out", type=_Path(file_okay=False, path_type=Path), default=None,
              help="Sweep directory (created if missing; an existing one is resumed).")
@click.option("--dry-run", is_flag=True, help="Validate every point, print the expansion and the number of runs; run nothing.")
@click.option("--workers", type=click.IntRange(1, 4096), default=None,
              help="Local worker processes (default: one per core).")
@click.option("--scheduler", metavar="ADDR", default=None,
              help="Use the Dask cluster of this scheduler (tcp://host:8786) instead of local workers.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar and no table.")
@_user_errors
def sweep(study: Path, out, dry_run: bool, workers, scheduler, quiet: bool) -> None:
    """Run a parameter study: every point of STUDY (a study file, or a shipped study's name)
    times every seed, on Dask; writes OUT/runs/, OUT/flows.parquet and OUT/summary.csv.

    Runs already filed in OUT are not run again: re-run the same command to resume."""
    from .sweep import timeline
    from .sweep.study import load_study

    timeline.mark("cli: sweep command entered")
    st = load_study(study)
    timeline.mark("study loaded")
    if not dry_run and out is not None and scheduler is None:
        # Local workers fork from a server that imports tcplab once; started first, it
        # imports while this process does (docs/sweeps.md, "Running").
        from .sweep.workers import start

        start()
        timeline.mark("fork server started")
    from .sweep.runner import dry_run_text, run_study, validate

    timeline.mark("runner imported")

    if dry_run:
        click.echo(dry_run_text(st, validate(st), out))
        return
    if out is None:
        raise click.UsageError("missing option -o/--out (or use --dry-run)")
    if workers is not None and scheduler is not None:
        raise click.UsageError("--workers and --scheduler exclude each other (the cluster has its own workers)")
    try:
        res = run_study(st, out, workers=workers, scheduler=scheduler, progress=False if quiet else None,
                        echo=None if quiet else click.echo)
    finally:
        from .sweep.workers import stop

        stop()
        timeline.mark("fork server stopped")
    if quiet:
        _leave_sweep()
    s = res.stats
    click.echo(res.table())
    line = f"{_plural(s.runs, 'run')}: {s.executed} ran now, {s.reused} reused; {s.wall_s:.1f} s"
    if s.outside_fraction is not None:
        # The measure and what it is made of, so that a short study's ~100 % reads as what it is.
        line += (f" on {_plural(s.workers, 'worker')}: {s.sim_s:.2f} of {s.workers * s.wall_s:.1f} worker-seconds "
                 f"in the simulator, {100 * s.outside_fraction:.1f} % outside it")
    click.echo(line)
    if s.executed:
        click.echo(f"time: {s.start_s:.1f} s starting workers, {s.exec_wall_s:.1f} s running, {s.close_s:.1f} s "
                   f"stopping them, {s.tabulate_s:.1f} s tabulating; {s.sim_s:.1f} s inside the simulator "
                   f"({s.sim_cpu_s:.1f} s CPU); driver process {s.driver_cpu_s:.1f} s CPU")
    click.echo(f"results in {out}/ (flows.parquet, summary.csv)")
    timeline.mark("report printed")
    timeline.dump()
    _leave_sweep()


def _leave_sweep() -> None:
    """The end of a sweep that succeeded: every file is written, fsynced and renamed, the
    cluster closed and the fork server reaped, so leave without the interpreter's teardown
    (freeing Dask's, pandas' and pyarrow's objects: 0.65 s of wall for such a process on
    the loaded project machine, measured), which is part of the command's wall time. As
    `tcplab run` does after a Ctrl-C."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError as e:
        if _is_epipe(e):
            _exit_stdout_closed()
        raise
    os._exit(0)


def _naming_skipped(read):
    """``read()`` (analyze or whatif of captures), naming on stderr each capture it skipped,
    ``tcplab: skipped: PATH: reason`` (one for each of several unreadable captures before the
    error when none could be read, else those the result's summary records)."""
    from .analyze import CaptureError

    try:
        res = read()
    except CaptureError as e:
        if len(e.errors) > 1:
            for line in e.errors:
                click.echo(_one_line(f"tcplab: skipped: {line}"), err=True)
        raise
    for c in res.summary["captures"]:
        if c.get("error"):
            click.echo(_one_line(f"tcplab: skipped: {c['error']}"), err=True)
    return res


def _print_analysis(summary: dict, out: Path) -> None:
    print_analysis(summary, out, click.echo)


@main.command()
@click.argument("captures", nargs=-1, required=True, type=_Path(path_type=Path, readable=False))
@_out_option()
@_overwrite_option
@click.option("--vantage", type=click.Choice(["auto", "sender", "receiver", "middle"]), default="auto",
              show_default=True, help="Where the capture was taken (auto: from each handshake).")
@click.option("--model", default="auto", show_default=True, metavar="NAME",
              help="Sender the replay emulates: auto (infer it per connection among the OS "
                   "profiles), rfc, or an engine profile (tcplab profiles).")
@click.option("--tlp/--no-tlp", default=None,
              help="The sender sends tail loss probes (RFC 8985 §7). Default: the model's setting.")
@click.option("--scenario", "scenario", default=None, metavar="RUN_DIR|SCENARIO",
              type=_Path(path_type=Path),
              help="The capture was simulated: replay the senders of this scenario (a tcplab run "
                   "output directory, whose provenance names it, or a scenario file) instead of --model.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing on success.")
@_user_errors
def analyze(captures, out: Path, overwrite: bool, vantage: str, model: str, tlp, scenario, quiet: bool) -> None:
    """Classify the retransmissions in CAPTURES (pcap/pcapng, also gzip/zstd/xz-compressed):
    cause, spurious, durations.

    Writes retransmissions.parquet/.csv, connections.parquet/.csv and summary.json to OUT.
    A file that cannot be analysed (missing, unreadable, a directory, not a capture) is named
    on stderr with its reason and skipped; the exit status is 0 when at least one capture was
    analysed, 2 when none was. Directories are not searched: give the files (dir/*.pcap).
    """
    from . import outdir
    from .analyze import analyze as api_analyze

    if scenario is not None and click.get_current_context().get_parameter_source("model") == click.core.ParameterSource.COMMANDLINE:
        raise click.UsageError("--model and --scenario exclude each other (the scenario names the senders)")
    outdir.check(out, overwrite=overwrite)  # refuse a bad output path before reading anything
    res = _naming_skipped(lambda: api_analyze(list(captures), vantage=vantage, model=model, tlp=tlp,
                                              scenario=scenario))
    with outdir.staged(out, overwrite=overwrite, command="analyze") as tmp:
        res.write(tmp)
    if not quiet:
        _print_analysis(res.summary, out)
        models = res.summary.get("model_from_scenario", {}).get("models", [])
        if len(models) > 1:
            click.echo(f"note: the scenario's flows have {len(models)} different [tcp] settings; each connection "
                       f"was replayed with its own flow's (connections.csv, column model)")


@main.command()
@click.argument("run_dir", type=_Path(file_okay=False, path_type=Path))
@click.argument("analyze_dir", required=False, type=_Path(file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the scores and the confusion as JSON.")
@_user_errors
def compare(run_dir: Path, analyze_dir, as_json: bool) -> None:
    """Score an analysis of a simulated capture against the simulator's ground truth.

    RUN_DIR: a `tcplab run --pcap LINK` output (with its trace); ANALYZE_DIR: `tcplab analyze`
    of that run's captures. Without ANALYZE_DIR, RUN_DIR's captures are analysed first with the
    run's own senders as the model (the scenario in its provenance, as `tcplab analyze
    --scenario RUN_DIR`). Prints per capture the retransmissions found, matched, cause
    accuracy and spurious precision/recall, and the per-cause confusion (docs/validation.md)."""
    import tempfile

    from .compare import analyze_run, compare as api_compare, format_result, to_json

    if analyze_dir is None:
        with tempfile.TemporaryDirectory(prefix="tcplab-compare-") as tmp:
            analyze_run(run_dir, Path(tmp) / "analysis")
            res = api_compare(run_dir, Path(tmp) / "analysis")
    else:
        res = api_compare(run_dir, analyze_dir)
    click.echo(to_json(res) if as_json else format_result(res))


@main.command()
@click.argument("captures", nargs=-1, required=True, type=_Path(path_type=Path, readable=False))
@_out_option()
@_overwrite_option
@click.option("--grid", "grid_file", type=_Path(path_type=Path, dir_okay=False), default=None,
              help="TOML grid of [[point]] tables (D, a, b, m, k, min_rto). Default: 003's 725-point study.")
@click.option("--only", default=None, metavar="PARAMS",
              help="Cross 003's values of these parameters only, e.g. D,k (others the model's own).")
@click.option("--model", default="auto", show_default=True, metavar="NAME",
              help="Sender model: auto (inferred per connection), rfc, or an engine profile (tcplab profiles).")
@click.option("--vantage", type=click.Choice(["auto", "sender", "receiver", "middle"]), default="auto",
              show_default=True, help="Where the capture was taken (auto: from each handshake).")
@click.option("--no-report", is_flag=True, help="Write the tables only (no figures, no report.md).")
@click.option("--workers", type=click.IntRange(1, 4096), default=None,
              help="Local worker processes, one capture each at a time (default: one per core; one capture runs in-process).")
@click.option("--scheduler", metavar="ADDR", default=None,
              help="Use the Dask cluster of this scheduler (tcp://host:8786) instead of local workers.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing on success (no progress bar).")
@_user_errors
def whatif(captures, out: Path, overwrite: bool, grid_file, only, model: str, vantage: str, no_report: bool, workers,
           scheduler, quiet: bool) -> None:
    """Replay every connection in CAPTURES (files, or directories of captures) under other
    loss-detection parameters (D, a, b, m, k, minRTO; Rewaskar, Kaur & Smith §IV-C/D) and
    estimate how much sooner or later it would have finished.

    Each capture is one task of the sweep engine (local worker processes, or a Dask cluster
    with --scheduler), filed in OUT/runs/ with a ledger line as it finishes: re-run the same
    command to resume; nothing finished is computed again. Writes whatif.parquet/.csv (one
    row per connection and grid point), retransmissions and connections tables,
    summary.json and a report (report.md, Table IV/V CSVs, Figs 2-7) to OUT. Exit status 2
    when no capture could be read or the grid is bad.
    """
    from .whatif.engine import run_whatif

    if workers is not None and scheduler is not None:
        raise click.UsageError("--workers and --scheduler exclude each other (the cluster has its own workers)")
    run = _naming_skipped(lambda: run_whatif(list(captures), out, model=model, vantage=vantage, grid=grid_file,
                                             only=only, workers=workers, scheduler=scheduler,
                                             progress=False if quiet else None, overwrite=overwrite,
                                             report=not no_report, echo=None if quiet else click.echo).result)
    if not quiet:
        s = run.summary
        click.echo(f"{_plural(s['connections'], 'connection')} x {_plural(s['grid_points'], 'grid point')} = {_plural(s['rows'], 'row')}")
        click.echo(f"results in {_shown(out)}/")


@main.command()
def scenarios() -> None:
    """List the shipped scenarios (usable by name: `tcplab run dumbbell -o out`), each with the
    first sentence of its file's header comment (cut to the terminal's width on a terminal)."""
    from . import scenarios as shipped

    # On a terminal, one line per scenario; into a pipe or file, the whole first sentence.
    width = max(shutil.get_terminal_size().columns, 60) - 21 if sys.stdout.isatty() else None
    for name in shipped.names():
        click.echo(f"{name:<20} {_describe(shipped.path(name).read_text(encoding='utf-8'), width)}".rstrip())


def _first_sentence(text: str) -> str:
    """The first sentence of ``text``: up to a full stop followed by white space and a capital
    letter (or the end), so "Ch. 4" or "Fig. 4.1" do not end it."""
    import re

    m = re.search(r"[.!?](?=\s+[A-Z\"(`]|\s*$)", text)
    return text[: m.end()] if m else text


def _describe(toml_text: str, width: int | None = None) -> str:
    """A scenario's description for `tcplab scenarios`: the first sentence of the file's first
    comment paragraph, on one line; cut at a word boundary with "…" if wider than ``width``."""
    para: list[str] = []
    for line in toml_text.splitlines():
        if not line.startswith("#"):
            if para:
                break
            continue
        body = line.lstrip("#").strip()
        if not body:
            if para:
                break
            continue
        para.append(body)
    sentence = _first_sentence(" ".join(para))
    if width is None or len(sentence) <= width:
        return sentence
    cut = sentence[: width].rsplit(" ", 1)[0].rstrip(" ,;:–—-(")
    return cut + "…"


@main.command()
@click.option("--markdown", is_flag=True,
              help="Print the key tables of docs/scenarios.md instead (generated from the same types).")
def schema(markdown: bool) -> None:
    """Print the JSON Schema of scenario files (for editor completion), generated from the
    loader's types and their doc comments."""
    from . import _core

    click.echo(_core.schema_markdown() if markdown else _core.schema())


if __name__ == "__main__":  # pragma: no cover
    # `python -m tcplab.cli` (the tests' way in) takes the console script's path
    # (tcplab.analyze_prefetch.main): click is already imported here, so this gains no time,
    # but the same code runs.
    from .analyze_prefetch import main as console_script

    console_script()
