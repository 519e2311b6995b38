"""The harness's scenarios: one definition drives the real run (run.py) and the simulator's
scenario TOML (simulate.py), so both see the same path and the same impairments.

Path: sender -- middle -- receiver. ``rate`` is the bottleneck (tbf on the middle's egress
toward the receiver; the simulator's link middle -> receiver), ``delay`` the one-way delay
added by the forwarder in each direction (RTT = 2 * delay + a few tens of microseconds of
veth and forwarder time). ``queue`` is the bottleneck's buffer in packets (tbf ``limit``).

Impairments (forwarder.py): ``drop_seg`` [(i, c)] drops copy c (0 = original) of the i-th
MSS-sized data segment; ``random`` = (p, seed) drops data packets by a seeded Bernoulli
stream per occurrence; ``reorder_seg`` [(i, extra_s)] delays the original of segment i;
``spikes`` [(t0, t1, dir)] holds what would be delivered in [t0, t1) s after the SYN,
``dir`` "ab" (data) or "ba" (ACKs).

Sender settings: ``sysctl`` (net.ipv4.*, set in the sender's and the receiver's namespaces),
``route`` (``ip route`` attributes of the sender's route: initcwnd, rto_min, ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Linux's defaults of today (6.x) that the `linux` profile models, set explicitly in every
#: namespace so the machine's own defaults (this one boots with bbr) do not leak in.
BASE_SYSCTL = {
    "tcp_congestion_control": "cubic",
    "tcp_sack": 1,
    "tcp_dsack": 1,
    "tcp_timestamps": 1,
    "tcp_frto": 2,
    "tcp_recovery": 1,
    "tcp_early_retrans": 3,
    "tcp_no_metrics_save": 1,
    "tcp_window_scaling": 1,
}


@dataclass
class Scenario:
    name: str
    what: str
    size: int
    rate_mbit: float = 10.0
    delay_ms: float = 10.0
    queue_pkts: int = 1000
    drop_seg: list = field(default_factory=list)
    random: tuple | None = None
    reorder_seg: list = field(default_factory=list)
    spikes: list = field(default_factory=list)
    sysctl: dict = field(default_factory=dict)
    route: dict = field(default_factory=dict)
    #: random-loss scenario: the simulator replays the real run's own losses (by occurrence)
    deterministic: bool = True

    def sysctls(self) -> dict:
        d = dict(BASE_SYSCTL)
        d.update(self.sysctl)
        return d

    @property
    def mss(self) -> int:
        return 1448 if int(self.sysctls()["tcp_timestamps"]) else 1460


MSS = 1448

SCENARIOS = [
    Scenario("baseline", "no impairment: calibrates the emulated path (rate, delay) and slow start, 1 MB",
             size=1_000_000),
    Scenario("baseline-large-bdp", "no impairment on a 40 Mb/s, 80 ms RTT path, 4 MB",
             size=4_000_000, rate_mbit=40.0, delay_ms=40.0),
    Scenario("random-1pct", "1 % Bernoulli data loss, 10 Mb/s, RTT 20 ms, 2 MB",
             size=2_000_000, random=(0.01, 1), deterministic=False),
    Scenario("burst-loss", "segments 200-209 lost (a burst of 10), 10 Mb/s, RTT 20 ms, 1 MB",
             size=1_000_000, drop_seg=[(i, 0) for i in range(200, 210)]),
    Scenario("tail-loss", "the last two of 100 segments lost: a tail loss probe's job",
             size=100 * MSS, drop_seg=[(99, 0), (100, 0)]),
    Scenario("lost-retransmission", "segment 300 lost and its first retransmission too, 1 MB",
             size=1_000_000, drop_seg=[(300, 0), (300, 1)]),
    Scenario("reorder", "segments 150, 350, 550 delayed 8 ms (later ones overtake), no loss, 1 MB",
             size=1_000_000, reorder_seg=[(150, 0.008), (350, 0.008), (550, 0.008)]),
    Scenario("reorder-many", "8 segments delayed 20 ms each (1 every 60), no loss: D-SACK undo, RACK's "
             "reordering window", size=1_000_000, reorder_seg=[(100 + 60 * k, 0.020) for k in range(8)]),
    Scenario("spike-data", "data held 0.6-1.6 s after the SYN (a 1 s delay spike), 2 MB",
             size=2_000_000, spikes=[(0.6, 1.6, "ab")]),
    Scenario("spike-ack", "ACKs held 0.6-1.4 s after the SYN (a 0.8 s delay spike), 2 MB",
             size=2_000_000, spikes=[(0.6, 1.4, "ba")]),
    Scenario("small-bdp", "1 % loss on a 10 Mb/s, 2 ms RTT path, 1 MB",
             size=1_000_000, delay_ms=1.0, random=(0.01, 2), deterministic=False),
    Scenario("large-bdp", "0.2 % loss on a 40 Mb/s, 80 ms RTT path (400 KB BDP), 4 MB",
             size=4_000_000, rate_mbit=40.0, delay_ms=40.0, random=(0.002, 3),
             deterministic=False),
    Scenario("sack-off", "burst-loss with tcp_sack=0 (NewReno recovery)",
             size=1_000_000, drop_seg=[(i, 0) for i in range(200, 205)],
             sysctl={"tcp_sack": 0}),
    Scenario("timestamps-off", "1 % loss with tcp_timestamps=0 (MSS 1460)",
             size=2_000_000, random=(0.01, 1), sysctl={"tcp_timestamps": 0},
             deterministic=False),
    Scenario("tail-loss-no-tlp", "tail-loss with tcp_early_retrans=0 (no TLP): the RTO repairs it",
             size=100 * MSS, drop_seg=[(99, 0), (100, 0)], sysctl={"tcp_early_retrans": 0}),
    Scenario("rack-off", "burst-loss with tcp_recovery=0 (no RACK: DupThresh / SACK marking only)",
             size=1_000_000, drop_seg=[(i, 0) for i in range(200, 210)], sysctl={"tcp_recovery": 0}),
    Scenario("initcwnd-4", "burst-loss with route initcwnd 4 (instead of IW10)",
             size=1_000_000, drop_seg=[(i, 0) for i in range(200, 210)], route={"initcwnd": "4"}),
    Scenario("rto-min-50ms", "tail loss of the last 3 segments with route rto_min 50ms",
             size=60 * MSS, drop_seg=[(58, 0), (59, 0), (60, 0), (60, 1)],
             route={"rto_min": "50ms"}),
]

BY_NAME = {s.name: s for s in SCENARIOS}
