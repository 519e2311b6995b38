#!/bin/sh
# One slot of a fuzzing campaign (docs/fuzzing.md): runs TARGET for SECONDS of wall time at
# the lowest CPU priority, new inputs into a scratch corpus (never among the committed seeds),
# and prints the figures docs/fuzzing.md records: CPU time obtained, executions, exec/s,
# cov/ft at start and end, corpus size, crashes.
#
#   fuzz/campaign.sh TARGET SECONDS [SCRATCH_ROOT]      (from the repository root)
#
# Needs `cargo +nightly fuzz build -O` first (the binaries in fuzz/target, or FUZZ_BIN_DIR:
# a copy, so that a rebuild does not replace a running binary). Seeds per target:
# the committed corpus/<target>, plus corpus/capture_reader for analyzer, corpus/analyzer
# and regressions/analyzer_structured for analyzer_structured, corpus/analyzer for
# analyzer_inference (any bytes decode to a script).
set -eu
T=$1
SECS=$2
ROOT=${3:-/tmp/tcplab-fuzz}
cd "$(dirname "$0")"
BIN=${FUZZ_BIN_DIR:-target/x86_64-unknown-linux-gnu/release}/$T
SCRATCH=$ROOT/corpus/$T
LOG=$ROOT/$T.$(date -u +%H%M).log
mkdir -p "$SCRATCH" "$ROOT/artifacts/$T"
case $T in
  analyzer) SEEDS="corpus/analyzer corpus/capture_reader" ;;
  analyzer_structured) SEEDS="corpus/analyzer regressions/analyzer_structured" ;;
  analyzer_inference) SEEDS="corpus/analyzer_inference corpus/analyzer" ;;
  *) SEEDS="corpus/$T" ;;
esac
# Seed directories that do not exist (a target without committed seeds) are left out.
DIRS=""
for d in $SEEDS; do [ -d "$d" ] && DIRS="$DIRS $d"; done
# -rss_limit_mb: an allocation driven by a length field shows as a crash; -timeout: a hang.
# libFuzzer's -timeout is wall-clock time: at nice 19 on a busy machine one input can wait
# many seconds for a core (15 s was seen), so the limit is 120 s, not libFuzzer's usual 20.
# Linux with sched_autogroup_enabled=1 shares the CPU between sessions first, so `nice` alone
# only ranks the fuzzer among its own session's processes: it runs in a session of its own
# (setsid) and that session's autogroup is set to nice 19 too, so it gets idle CPU only.
setsid /usr/bin/time -f "cpu_user_s=%U cpu_sys_s=%S wall_s=%e max_rss_kb=%M" \
  nice -n 19 "$BIN" "$SCRATCH" $DIRS \
  -max_total_time="$SECS" -rss_limit_mb=1024 -timeout=120 -print_final_stats=1 \
  -artifact_prefix="$ROOT/artifacts/$T/" >"$LOG" 2>&1 &
PID=$!
# Once setsid has made the new session (its autogroup differs from ours), lower it.
for _ in 1 2 3 4 5 6 7 8 9 10; do
  [ "$(cat /proc/$PID/autogroup 2>/dev/null | cut -d' ' -f1)" != "$(cut -d' ' -f1 /proc/$$/autogroup 2>/dev/null)" ] && break
  sleep 0.2
done
[ -w /proc/$PID/autogroup ] && echo 19 >/proc/$PID/autogroup 2>/dev/null || true
wait $PID || true
echo "== $T ($SECS s wall), log $LOG"
grep -m1 'INITED' "$LOG" || true
grep -E '^#[0-9]+' "$LOG" | tail -1 || true
grep -E 'stat::number_of_executed_units|stat::average_exec_per_sec|stat::new_units_added|stat::peak_rss_mb|cpu_user_s' "$LOG" || true
echo "corpus_files=$(ls "$SCRATCH" | wc -l) artifacts=$(ls "$ROOT/artifacts/$T" | wc -l)"
grep -E 'ERROR: |SUMMARY: |panicked at' "$LOG" | head -5 || true
