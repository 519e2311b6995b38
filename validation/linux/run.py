"""Real-kernel validation harness: run the scenarios of scenarios.py on this machine's kernel.

    sudo python3 validation/linux/run.py -o DIR [--scenario NAME ...]

Per scenario, in DIR/NAME/: ``sender.pcap`` and ``receiver.pcap`` (tcpdump on the sender's
and the receiver's veth, headers only), ``retransmit_trace.txt`` (bpftrace on
``tcp:tcp_retransmit_skb`` with kernel stacks), ``forwarder.json`` (every frame through the
middle and what was done to it), ``meta.json`` (scenario, kernel, sysctls, timings), then
``truth.csv`` / ``truth.json`` (ground truth per retransmission, truth.py).

Topology (three network namespaces, two veth pairs, offloads off):

    tl-snd [s0 10.77.0.1] ==veth== [ms] tl-mid [mr] ==veth== [r0 10.77.0.2] tl-rcv
                                 forwarder.py (AF_PACKET)   tbf on mr (the bottleneck)

Needs root, iproute2, ethtool, tcpdump, bpftrace (setup.sh). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from scenarios import BY_NAME, SCENARIOS, Scenario  # noqa: E402

NS_SND, NS_MID, NS_RCV = "tl-snd", "tl-mid", "tl-rcv"
SND_IP, RCV_IP, PREFIX = "10.77.0.1", "10.77.0.2", "10.77.0.0/24"
PORT = 5001
#: How long tcpdump and bpftrace may take to exit after SIGINT before they are killed.
STOP_TIMEOUT_S = 120
#: The forwarder and both endpoints run under SCHED_FIFO: on a shared, loaded machine (load
#: average 13 on 2 cores when this was written) a normal-priority forwarder was 10-15 ms
#: late releasing packets (p99), which is the emulated path's own timing error.
RT = ["chrt", "-f", "20"]
#: offsetof(struct sk_buff, cb) on x86_64 (bpftrace 0.17 has no offsetof and casting the
#: array member reads its bytes, not its address); checked per run by truth.py: every traced
#: seq must lie in [snd_una, snd_nxt).
SKB_CB_OFFSET = 40
#: Headers only: Ethernet 14 + IPv4 20 + TCP with options 60.
SNAPLEN = 96


def sh(*args: str, check: bool = True) -> str:
    r = subprocess.run(list(args), capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {r.stderr.strip()}")
    return r.stdout


def nsx(ns: str, *args: str, check: bool = True) -> str:
    return sh("ip", "netns", "exec", ns, *args, check=check)


def teardown() -> None:
    for ns in (NS_SND, NS_MID, NS_RCV):
        sh("ip", "netns", "del", ns, check=False)


def mac(ns: str, dev: str) -> str:
    return nsx(ns, "cat", f"/sys/class/net/{dev}/address").strip()


def build(sc: Scenario) -> None:
    """The three namespaces, veths without offloads, static ARP, tbf, sysctls, route."""
    teardown()
    for ns in (NS_SND, NS_MID, NS_RCV):
        sh("ip", "netns", "add", ns)
        nsx(ns, "ip", "link", "set", "lo", "up")
    sh("ip", "link", "add", "s0", "netns", NS_SND, "type", "veth", "peer", "name", "ms", "netns", NS_MID)
    sh("ip", "link", "add", "r0", "netns", NS_RCV, "type", "veth", "peer", "name", "mr", "netns", NS_MID)
    for ns, dev in ((NS_SND, "s0"), (NS_MID, "ms"), (NS_MID, "mr"), (NS_RCV, "r0")):
        nsx(ns, "sysctl", "-qw", f"net.ipv6.conf.{dev}.disable_ipv6=1")
        # One wire packet per TCP segment on every hop, and finished checksums (a frame
        # forwarded over AF_PACKET must not carry a partial checksum).
        nsx(ns, "ethtool", "-K", dev, "tso", "off", "gso", "off", "gro", "off", "tx", "off", "rx", "off",
            check=False)
        nsx(ns, "ip", "link", "set", dev, "up")
    nsx(NS_SND, "ip", "addr", "add", f"{SND_IP}/24", "dev", "s0")
    nsx(NS_RCV, "ip", "addr", "add", f"{RCV_IP}/24", "dev", "r0")
    nsx(NS_SND, "ip", "neigh", "replace", RCV_IP, "lladdr", mac(NS_RCV, "r0"), "dev", "s0", "nud", "permanent")
    nsx(NS_RCV, "ip", "neigh", "replace", SND_IP, "lladdr", mac(NS_SND, "s0"), "dev", "r0", "nud", "permanent")
    # The bottleneck: tbf toward the receiver. stab overhead -14 makes tbf count IP bytes
    # (the simulator's bandwidth counts IP packets), burst = one full frame.
    limit = sc.queue_pkts * 1514
    nsx(NS_MID, "tc", "qdisc", "add", "dev", "mr", "root", "stab", "overhead", "-14", "linklayer", "ethernet",
        "tbf", "rate", f"{sc.rate_mbit}mbit", "burst", "1514", "limit", str(limit))
    for ns in (NS_SND, NS_RCV):
        for k, v in sc.sysctls().items():
            if k == "tcp_congestion_control":
                # A namespace other than the initial one may only default to a controller
                # in tcp_allowed_congestion_control (EPERM otherwise): the client sets it
                # per socket (TCP_CONGESTION) instead, see endpoint.py.
                continue
            nsx(ns, "sysctl", "-qw", f"net.ipv4.{k}={v}")
    if sc.route:
        attrs = [x for kv in sc.route.items() for x in kv]
        nsx(NS_SND, "ip", "route", "replace", PREFIX, "dev", "s0", "proto", "kernel", "scope", "link",
            "src", SND_IP, *attrs)


BT_PROG = r"""
tracepoint:tcp:tcp_retransmit_skb /args->dport == %(port)d/ {
  $sk = (struct sock *)args->skaddr;
  $icsk = (struct inet_connection_sock *)$sk;
  $tp = (struct tcp_sock *)$sk;
  $cb = (struct tcp_skb_cb *)((uint64)args->skbaddr + %(cb_off)d);
  printf("RETX t=%%llu seq=%%u end=%%u una=%%u nxt=%%u rto=%%u ca=%%u backoff=%%u retrans=%%u high=%%u cwnd=%%u err=%%d\n",
    nsecs, $cb->seq, $cb->end_seq, $tp->snd_una, $tp->snd_nxt, $icsk->icsk_rto, $icsk->icsk_ca_state,
    $icsk->icsk_backoff, $icsk->icsk_retransmits, $tp->high_seq, $tp->snd_cwnd, args->err);
  printf("STACK%%sEND\n", kstack);
}
"""


def start(ns: str | None, args: list[str], out: Path, ready: str | None, stream: str = "stderr") -> subprocess.Popen:
    """Start ARGS in namespace NS (None: this one), wait until it prints READY."""
    fh = open(out, "w")
    if ns is not None:
        args = ["ip", "netns", "exec", ns, *args]
    errpath = out.with_suffix(out.suffix + ".err")
    if stream == "stderr":
        p = subprocess.Popen(args, stdout=fh, stderr=subprocess.PIPE, text=True)
        pipe = p.stderr
    else:
        p = subprocess.Popen(args, stdout=subprocess.PIPE,
                             stderr=open(errpath, "w"), text=True)
        pipe = p.stdout
    if ready:
        deadline = time.monotonic() + 20
        seen = []
        while time.monotonic() < deadline:
            line = pipe.readline()
            if not line:
                break
            seen.append(line)
            if ready in line:
                break
        else:
            raise RuntimeError(f"{args[0]} did not start: {''.join(seen)}")
        if not seen or ready not in seen[-1]:
            raise RuntimeError(f"{args[0]} did not start: {''.join(seen)}")
    # keep draining the pipe so the child never blocks on it
    import threading

    sink = open(errpath, "a") if stream == "stderr" else fh

    def drain():
        for line in pipe:
            sink.write(line)
        sink.flush()

    threading.Thread(target=drain, daemon=True).start()
    return p


def wait_stable(paths: list[Path], quiet: float = 1.2, limit: float = 20.0) -> None:
    """Return once no file in PATHS has grown for QUIET seconds (at most LIMIT)."""
    t_end = time.monotonic() + limit
    last, t_last = None, time.monotonic()
    while time.monotonic() < t_end:
        sizes = [p.stat().st_size if p.exists() else 0 for p in paths]
        if sizes != last:
            last, t_last = sizes, time.monotonic()
        elif time.monotonic() - t_last >= quiet:
            return
        time.sleep(0.1)


def kernel_hz() -> int | None:
    """CONFIG_HZ of the running kernel (icsk_rto in the trace is in jiffies)."""
    import gzip

    try:
        for line in gzip.open("/proc/config.gz", "rt"):
            if line.startswith("CONFIG_HZ="):
                return int(line.split("=")[1])
    except OSError:
        pass
    return None


def run_one(sc: Scenario, out: Path) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    build(sc)
    procs = []
    try:
        fwd_cfg = {
            "a": "ms", "b": "mr", "mss": sc.mss,
            "delay_ab": sc.delay_ms / 1000, "delay_ba": sc.delay_ms / 1000,
            "drop_seg": sc.drop_seg, "reorder_seg": sc.reorder_seg,
            "spikes": sc.spikes,
        }
        if sc.random:
            fwd_cfg["random"] = {"p": sc.random[0], "seed": sc.random[1]}
        (out / "forwarder_config.json").write_text(json.dumps(fwd_cfg, indent=1))
        for ns, dev, name in ((NS_SND, "s0", "sender"), (NS_RCV, "r0", "receiver")):
            procs.append(start(ns, [*RT, "tcpdump", "-U", "--immediate-mode", "-i", dev, "-n", "-s", str(SNAPLEN), "-B", "16384",
                                    "--time-stamp-precision=nano", "-w", str(out / f"{name}.pcap"), "tcp"],
                               out / f"tcpdump_{name}.log", "listening on"))
        bt = out / "retransmit.bt"
        bt.write_text(BT_PROG % {"port": PORT, "cb_off": SKB_CB_OFFSET})
        mono0, real0 = time.monotonic_ns(), time.time_ns()
        # bpftrace runs in the initial namespace: `ip netns exec` remounts /sys, which hides
        # tracefs; tracepoints are global anyway (the program filters on the port).
        procs.append(start(None, ["bpftrace", "-B", "none", str(bt)], out / "retransmit_trace.txt", "Attaching",
                           stream="stdout"))
        fwd = start(NS_MID, [*RT, sys.executable, str(HERE / "forwarder.py"), str(out / "forwarder_config.json"),
                             str(out / "forwarder.json")], out / "forwarder.log", "ready", stream="stdout")
        srv = subprocess.Popen(["ip", "netns", "exec", NS_RCV, *RT, sys.executable, str(HERE / "endpoint.py"),
                                "server", RCV_IP, str(PORT)], stdout=subprocess.PIPE, text=True)
        assert srv.stdout is not None
        if "listening" not in srv.stdout.readline():
            raise RuntimeError("server did not start")
        time.sleep(0.2)
        cli = subprocess.run(["ip", "netns", "exec", NS_SND, *RT, sys.executable, str(HERE / "endpoint.py"),
                              "client", RCV_IP, str(PORT), str(sc.size),
                              str(sc.sysctls()["tcp_congestion_control"])], capture_output=True, text=True,
                             timeout=120)
        if cli.returncode != 0:
            raise RuntimeError(f"client failed: {cli.stderr.strip()}")
        srv_out, _ = srv.communicate(timeout=30)
        # tcpdump may still be working through its ring buffer (a SIGINT then loses the
        # rest): wait until both files stop growing.
        wait_stable([out / "sender.pcap", out / "receiver.pcap"])
        fwd.send_signal(signal.SIGTERM)
        fwd.wait(timeout=30)
        for p in procs:
            p.send_signal(signal.SIGINT)
        for p in procs:
            try:
                # bpftrace can take long to detach on a loaded machine; what it printed is
                # already in its output file
                p.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        meta = {
            "scenario": sc.name,
            "kernel": platform.release(),
            "sysctl": sc.sysctls(),
            "route": sc.route,
            "client": json.loads(cli.stdout.strip().splitlines()[-1]),
            "server": json.loads(srv_out.strip().splitlines()[-1]),
            "mono_ns_at": mono0,
            "real_ns_at": real0,
            "hz": kernel_hz(),
            # The receiver's buffer limits (its window's ceiling and scale; simulate.py uses them).
            "tcp_rmem": " ".join(nsx(NS_RCV, "sysctl", "-n", "net.ipv4.tcp_rmem").split()),
        }
        (out / "meta.json").write_text(json.dumps(meta, indent=1))
        return meta
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
        teardown()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--out", required=True, type=Path)
    ap.add_argument("--scenario", action="append", help="run only these (repeatable)")
    ap.add_argument("--no-truth", action="store_true", help="skip truth.py after each run")
    ap.add_argument("--repeat", type=int, default=1, metavar="K",
                    help="run each scenario K times; runs 2..K go to NAME/repeat-K/ (the report shows their spread)")
    a = ap.parse_args(argv)
    if os.geteuid() != 0:
        print("run.py: error: needs root (network namespaces, tc, bpftrace)", file=sys.stderr)
        return 2
    names = a.scenario or [s.name for s in SCENARIOS]
    for n in names:
        if n not in BY_NAME:
            print(f"run.py: error: unknown scenario {n!r}; known: {', '.join(BY_NAME)}", file=sys.stderr)
            return 2
    for n in names:
        for k in range(1, a.repeat + 1):
            d = a.out / n if k == 1 else a.out / n / f"repeat-{k}"
            t = time.monotonic()
            run_one(BY_NAME[n], d)
            msg = f"{n}{'' if k == 1 else f' (repeat {k})'}: {time.monotonic() - t:.1f} s"
            if not a.no_truth:
                import truth

                tr = truth.write(d, BY_NAME[n])
                msg += f", {tr['retransmissions']} retransmissions ({tr['by_cause']}), spurious {tr['spurious']}"
            print(msg, flush=True)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (RuntimeError, OSError, ValueError) as e:  # one line, no traceback
        print(f"run.py: error: {e}", file=sys.stderr)
        sys.exit(2)
