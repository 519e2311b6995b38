#!/bin/bash
# usage: bench_measure.sh LABEL PYTHONPATH STUDY OUT  (docs/benchmarks.md, "Parameter studies", session 8)
# Runs `tcplab sweep STUDY -o OUT --workers 2` under /usr/bin/time with PYTHONPATH (the code to measure)
# and prints the CPU split: job CPU, simulator CPU (ledger), driver CPU, and both wall measures.
label=$1; pp=$2; study=$3; out=$4
[ -e "$out" ] && { echo "bench_measure.sh: $out exists; give a new directory" >&2; exit 2; }
. ${VENV:-.venv}/bin/activate
export PYTHONWARNINGS=ignore
l0=$(cut -d' ' -f1 /proc/loadavg)
PYTHONPATH=$pp /usr/bin/time -o $out.time -f "%U %S %e" tcplab sweep $study -o $out --workers 2 > $out.log 2>&1
l1=$(cut -d' ' -f1 /proc/loadavg)
python - "$label" "$out" "$l0" "$l1" <<'PY'
import json, sys, re
label, out, l0, l1 = sys.argv[1:]
u, s, e = map(float, open(out + ".time").read().split()[-3:])
L = [json.loads(x) for x in open(out + "/ledger.jsonl")]
sim_cpu = sum(x["sim_cpu_s"] for x in L); sim_wall = sum(x["sim_wall_s"] for x in L)
tmo = sum(x["task_cpu_s"] - x["sim_cpu_s"] for x in L)
log = open(out + ".log").read()
drv = float(re.search(r"driver process ([\d.]+) s CPU", log).group(1))
m = re.search(r"runs: .*?; ([\d.]+) s on 2 workers: ([\d.]+) of ([\d.]+) worker-seconds in the simulator, ([\d.]+) % outside", log)
t = re.search(r"time: (.*)", log).group(1)
job = u + s
print(f"{label}: runs {len(L)} load {l0}->{l1} | job CPU {job:.2f} s (user {u} sys {s}) wall {e:.1f} s | sim CPU {sim_cpu:.2f} s, sim wall {sim_wall:.2f} s"
      f" | outside sim CPU {job - sim_cpu:.2f} s = {100*(job-sim_cpu)/job:.1f} % of job CPU | worker task-sim {tmo:.3f} s | driver {drv} s"
      f" | stats: wall {m.group(1)} s, {m.group(4)} % outside | whole-process wall measure {100*(1 - sim_wall/(2*e)):.1f} % outside\n   {t}")
PY
