"""The idle-machine figures of ``bench-1000`` computed from the CPU split measured on a loaded
machine (docs/benchmarks.md, "Parameter studies", session 8).

usage: python -m tcplab.sweep.idle_estimate H_MS_PER_S RUN2_DIR... -- RUN200_DIR... -- RUN1000_DIR...
Each DIR is the output of ``bench_measure.sh LABEL PYTHONPATH STUDY DIR`` (beside this file):
``tcplab sweep STUDY -o DIR --workers 2`` under ``/usr/bin/time``, which leaves DIR.time (user,
sys, wall), DIR.log (the command's output) and DIR/ledger.jsonl (the simulator CPU per run).

Model (2 workers on an idle 2-core machine):
  O(N, W) = F + N*p + h*W         CPU outside the simulator, all processes (job CPU - simulator CPU)
  F: fixed CPU, p: per-run CPU, h: the local cluster's housekeeping CPU per second of wall
  (measured apart: an idle LocalCluster's driver CPU per second).
  From the 2-run and 200-run studies (loaded machine, their walls W2, W200):
    p = ((O200 - h W200) - (O2 - h W2)) / 198,  F = O2 - h W2 - 2p
  Idle: the simulator CPU S of the bench-1000 runs (measured); I = idle core-seconds, at most the
  driver's fixed CPU (its serial work before the first run and after the last, when one core
  may idle) plus one run's simulation (the last task is a single run).
    W = (S + F + N p + I) / (2 - h)      (two cores busy, h W of housekeeping)
    CPU measure  = (F + N p + h W) / (S + F + N p + h W)      (I = 0: every core-second used)
    wall measure <= 1 - S / (2 W)  with I at its bound       (the issue's measure, upper bound)
"""
import json, re, statistics, sys

def load(d):
    u, s, e = map(float, open(d + ".time").read().split()[-3:])
    L = [json.loads(x) for x in open(d + "/ledger.jsonl")]
    log = open(d + ".log").read()
    drv = float(re.search(r"driver process ([\d.]+) s CPU", log).group(1))
    sim = sum(x["sim_cpu_s"] for x in L)
    return dict(n=len(L), job=u + s, wall=e, sim=sim, out=u + s - sim, drv=drv)

def main() -> None:
    args = sys.argv[1:]
    h = float(args[0]) / 1000
    groups = " ".join(args[1:]).split(" -- ")
    r2, r200, r1000 = ([load(d) for d in g.split()] for g in groups)
    m = lambda rs, k: statistics.mean(r[k] for r in rs)
    O2, W2, O200, W200 = m(r2, "out"), m(r2, "wall"), m(r200, "out"), m(r200, "wall")
    n2, n200 = r2[0]["n"], r200[0]["n"]
    p = ((O200 - h * W200) - (O2 - h * W2)) / (n200 - n2)
    F = O2 - h * W2 - n2 * p
    Fdrv = m(r2, "drv")
    N = r1000[0]["n"]
    S = m(r1000, "sim")
    t_run = S / N
    I = Fdrv + t_run
    W_cpu = (S + F + N * p) / (2 - h)
    cpu_measure = (F + N * p + h * W_cpu) / (S + F + N * p + h * W_cpu)
    W = (S + F + N * p + I) / (2 - h)
    wall_upper = 1 - S / (2 * W)
    print(f"2-run studies: outside CPU {[round(r['out'], 2) for r in r2]} s, wall {[r['wall'] for r in r2]} s, driver {[r['drv'] for r in r2]} s")
    print(f"{n200}-run studies: outside CPU {[round(r['out'], 2) for r in r200]} s, wall {[r['wall'] for r in r200]} s")
    print(f"housekeeping h = {1000*h:.1f} ms per s of wall")
    print(f"fixed CPU F = {F:.2f} s (driver's part {Fdrv:.2f} s), per-run CPU p = {1000*p:.2f} ms")
    print(f"bench-1000 simulator CPU S = {S:.2f} s ({1000*t_run:.1f} ms per run)")
    print(f"idle machine, computed: wall ~ {W:.1f} s (at the idle bound), outside CPU {F + N*p + h*W_cpu:.2f} s")
    print(f"  CPU measure (share of all CPU outside the simulator): {100*cpu_measure:.1f} %")
    print(f"  issue's wall measure, upper bound (I = {I:.2f} core-s idle): {100*wall_upper:.1f} %")
    for r in r1000:
        print(f"  measured on the loaded machine: CPU share outside {100*r['out']/r['job']:.1f} %, wall {r['wall']} s")

    # A second estimate of F and p: least squares over every study given (2, 200 and 1000 runs).
    rows = [(r["n"], r["out"] - h * r["wall"]) for r in r2 + r200 + r1000]
    nb = statistics.mean(n for n, _ in rows); ob = statistics.mean(o for _, o in rows)
    p2 = sum((n - nb) * (o - ob) for n, o in rows) / sum((n - nb) ** 2 for n, _ in rows)
    F2 = ob - p2 * nb
    W2i = (S + F2 + N * p2 + I) / (2 - h)
    Wc = (S + F2 + N * p2) / (2 - h)
    print(f"least squares over all {len(rows)} studies: F = {F2:.2f} s, p = {1000*p2:.2f} ms -> idle CPU measure "
          f"{100*(F2 + N*p2 + h*Wc)/(S + F2 + N*p2 + h*Wc):.1f} %, wall measure upper bound {100*(1 - S/(2*W2i)):.1f} %")


if __name__ == "__main__":
    main()
