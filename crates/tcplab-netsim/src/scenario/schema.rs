//! Hand-written JSON Schema (draft 2020-12) of the scenario format, for `tcplab schema` and
//! editor completion (e.g. taplo / Even Better TOML). Hand-written, so it must be kept in step
//! with the `Raw*` structs by hand; a test checks that every top-level table and every key of the
//! shipped scenarios' top-level tables (`[simulation]`, `[tcp]`, `[topology]`) is described.
//!
//! Unit strings are described with `pattern`s that match the `tcplab-time` parsers' accepted
//! spellings closely enough for completion; the loader remains the authority.

use serde_json::{json, Value};

/// A number with optional decimals, optional space, then the unit alternatives.
fn unit_pattern(units: &str) -> String {
    format!(r"^[0-9]+(\.[0-9]+)?\s*({units})$")
}

const DURATION_UNITS: &str = "ns|us|µs|μs|ms|s|sec|min";
const BANDWIDTH_UNITS: &str =
    "bps|bit/s|b/s|kbps|Kbps|kbit/s|Kbit/s|kb/s|Kb/s|Mbps|Mbit/s|Mb/s|Gbps|Gbit/s|Gb/s|Tbps|Tbit/s|Tb/s|B/s|KB/s|kB/s|MB/s|GB/s";
const BYTE_UNITS: &str = "B|bytes|byte|KB|kB|MB|GB|TB|KiB|MiB|GiB|TiB";
const PACKET_UNITS: &str = "pkt|pkts|p|packet|packets";

fn duration(desc: &str) -> Value {
    json!({"type": "string", "pattern": unit_pattern(DURATION_UNITS), "description": desc, "examples": ["30ms", "1.5s"]})
}
fn bandwidth(desc: &str) -> Value {
    json!({"type": "string", "pattern": unit_pattern(BANDWIDTH_UNITS), "description": desc, "examples": ["10Mbps", "1.5Mbit/s"]})
}
fn bytes(desc: &str) -> Value {
    json!({"type": "string", "pattern": unit_pattern(BYTE_UNITS), "description": desc, "examples": ["64KB", "1460B"]})
}
fn bytes_or(word: &str, desc: &str) -> Value {
    json!({"description": desc, "anyOf": [
        {"type": "string", "pattern": unit_pattern(BYTE_UNITS)},
        {"const": word}
    ]})
}
fn probability(desc: &str) -> Value {
    json!({"type": "number", "minimum": 0, "maximum": 1, "description": desc})
}
fn name(desc: &str) -> Value {
    json!({"type": "string", "minLength": 1, "pattern": r"^[^\s.]+$", "description": desc})
}

fn loss_model() -> Value {
    json!({
        "description": "Loss model of a link direction",
        "oneOf": [
            {"type": "object", "additionalProperties": false, "required": ["model"],
             "properties": {"model": {"const": "none"}}},
            {"type": "object", "additionalProperties": false, "required": ["model", "p"],
             "properties": {"model": {"const": "bernoulli"}, "p": probability("Loss probability per packet")}},
            {"type": "object", "additionalProperties": false, "required": ["model", "p_gb", "p_bg"],
             "properties": {
                "model": {"const": "gilbert_elliott"},
                "p_gb": probability("Per-packet probability Good → Bad"),
                "p_bg": probability("Per-packet probability Bad → Good"),
                "loss_good": probability("Loss probability in Good (default 0)"),
                "loss_bad": probability("Loss probability in Bad (default 1)")}},
            {"type": "object", "additionalProperties": false, "required": ["model", "flow", "nth"],
             "properties": {
                "model": {"const": "drop_nth"},
                "flow": {"type": "integer", "minimum": 0, "description": "Flow index (after count expansion)"},
                "nth": {"type": "array", "items": {"type": "integer", "minimum": 1}, "minItems": 1,
                        "description": "1-based occurrences of the flow's data segments to drop"}}},
            {"type": "object", "additionalProperties": false, "required": ["model"],
             "properties": {
                "model": {"const": "outages"},
                "good": duration_dist("Length of Good periods (default uniform 0.1 s..20 s, Sarolahti Ch. 4)"),
                "bad": duration_dist("Length of Bad periods, every packet lost (default exponential 3.5 s)")}}
        ]
    })
}

/// `reorder`, `reorder_ab`, `reorder_ba` (see `sim::reorder`).
fn reorder_model(desc: &str) -> Value {
    json!({"type": "object", "additionalProperties": false, "description": desc,
           "properties": {
               "p": probability("Share of packets held back by extra (netem reorder, inverted: the share displaced)"),
               "extra": duration("Extra propagation delay of a held-back packet; later packets overtake it"),
               "jitter": duration("Every packet arrives a further U[0, jitter) later (default 0)")}})
}

fn duration_dist(desc: &str) -> Value {
    json!({"description": desc, "anyOf": [
        {"type": "string", "pattern": unit_pattern(DURATION_UNITS)},
        {"type": "object", "additionalProperties": false, "required": ["exponential"],
         "properties": {"exponential": duration("Mean of an exponential distribution")}},
        {"type": "object", "additionalProperties": false, "required": ["uniform"],
         "properties": {"uniform": {"type": "array", "minItems": 2, "maxItems": 2,
            "items": {"type": "string", "pattern": unit_pattern(DURATION_UNITS)},
            "description": "Uniform on [lo, hi]"}}}
    ]})
}

/// `delay_spikes`, `spike_direction`, `link_buffer`, `bandwidth_schedule` and the reordering
/// keys (see docs/scenarios.md).
fn wireless_properties() -> serde_json::Map<String, Value> {
    let process = |name: &str, required: &[&str], props: Value| {
        json!({"type": "object", "additionalProperties": false, "required": [name],
               "properties": {name: {"type": "object", "additionalProperties": false,
                                     "required": required, "properties": props}}})
    };
    let v = json!({
        "delay_spikes": {"description": "Delay spikes: the link delivers nothing during a spike and releases what it held, in order, at its end", "anyOf": [
            {"type": "array", "minItems": 1, "description": "Spikes at fixed times", "items": {
                "type": "object", "additionalProperties": false, "required": ["at", "duration"],
                "properties": {"at": duration("Start (time from the start of the run)"), "duration": duration("Length, > 0")}}},
            process("periodic", &["first", "period", "duration"], json!({
                "first": duration("Start of the first spike"),
                "period": duration("Start-to-start interval, > 0"),
                "duration": duration("Length of each spike, > 0"),
                "count": {"type": "integer", "minimum": 1, "description": "Number of spikes (default: until the end of the run)"}})),
            process("random", &["duration"], json!({
                "interval": duration_dist("Gap from the end of one spike to the start of the next"),
                "mean_interval": duration("Shorthand for interval = { exponential = ... }"),
                "duration": duration_dist("Spike length")})),
            process("per_packet", &["p", "duration"], json!({
                "p": probability("Probability that a packet starts a spike (when it would arrive)"),
                "duration": duration_dist("Spike length")})),
            process("handover", &["period", "p", "duration", "bandwidths"], json!({
                "period": duration("A hand-over may happen at the end of each period"),
                "p": probability("Probability of a hand-over per period"),
                "duration": duration_dist("Delay of a hand-over"),
                "bandwidths": {"type": "array", "minItems": 1, "items": {"type": "string", "pattern": unit_pattern(BANDWIDTH_UNITS)},
                               "description": "The bandwidth after a hand-over is drawn uniformly from these"}})),
            {"type": "object", "additionalProperties": false, "required": ["preset"], "properties": {
                "preset": {"enum": ["sudden_delays", "type1", "type2"],
                           "description": "Sarolahti's processes: Ch. 4 sudden delays (p = 0.02, Exp(3.5 s)), type I (p = 0.01), type II (hand-over every 2 s with p = 0.3, 28.8/64/128 kb/s)"}}}
        ]},
        "spike_direction": {"enum": ["a->b", "b->a", "both"], "description": "Direction(s) delay spikes hit (default both)"},
        "link_buffer": bytes_or("inf", "Bytes the link can take in while a spike holds its output (default inf)"),
        "bandwidth_schedule": {"type": "array", "minItems": 1, "description": "Rate changes (both directions)", "items": {
            "type": "object", "additionalProperties": false, "required": ["at", "bandwidth"],
            "properties": {"at": duration("From this time on"), "bandwidth": bandwidth("The new rate")}}},
        "reorder": reorder_model("Packet reordering of both directions (like loss)"),
        "reorder_ab": reorder_model("Packet reordering a → b"),
        "reorder_ba": reorder_model("Packet reordering b → a")
    });
    match v {
        Value::Object(m) => m,
        _ => serde_json::Map::new(),
    }
}

fn event_clock(desc: &str) -> Value {
    json!({"description": desc, "anyOf": [
        {"const": "fine"},
        {"type": "string", "pattern": unit_pattern(DURATION_UNITS)},
        {"type": "object", "additionalProperties": false, "required": ["kind", "period"],
         "properties": {"kind": {"const": "periodic"},
                        "period": duration("Tick period (BSD slow timer 500ms, fast timer 200ms)"),
                        "phase": duration("Offset of the tick boundaries (default 0s)")}},
        {"type": "object", "additionalProperties": false, "required": ["kind", "granularity"],
         "properties": {"kind": {"const": "oneshot"},
                        "granularity": duration("Deadlines are rounded up to a multiple of this")}},
        {"type": "object", "additionalProperties": false, "required": ["kind"],
         "properties": {"kind": {"const": "fine"}}}
    ]})
}
fn ratio(desc: &str) -> Value {
    json!({"description": desc, "anyOf": [
        {"type": "number", "minimum": 0},
        {"type": "string", "pattern": r"^\s*[0-9]+(\.[0-9]+)?\s*(/\s*[0-9]+\s*)?$"}
    ]})
}

fn tcp_table() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "description": "TCP settings (TcpConfig); unset keys use the RFC defaults",
        "properties": {
            "mss": bytes("Maximum segment size, payload bytes (default 1460B; 64B..65495B)"),
            "initial_window": {"description": "Initial cwnd: segments, or a rule (default rfc3390)",
                "anyOf": [{"type": "integer", "minimum": 1}, {"enum": ["rfc3390", "rfc6928"]}]},
            "initial_ssthresh": bytes_or("inf", "Initial ssthresh (default inf, RFC 5681 §3.1)"),
            "sack": {"type": "boolean", "description": "Offer SACK (RFC 2018), default true"},
            "timestamps": {"type": "boolean", "description": "Offer timestamps (RFC 7323), default true"},
            "window_scale": {"type": "boolean", "description": "Offer window scaling (RFC 7323), default true"},
            "recv_buffer": bytes("Receive buffer = largest advertised window (default 65535B)"),
            "send_buffer": bytes_or("inf", "Send buffer (default inf)"),
            "min_rto": duration("RTO lower bound (default 1s, RFC 6298 (2.4))"),
            "initial_rto": duration("Initial RTO (default 1s, RFC 6298 (2.1))"),
            "max_rto": duration("RTO upper bound (default 60s, RFC 6298 (2.5))"),
            "clock_granularity": duration("Clock granularity G of RFC 6298 (default 1ms)"),
            "delayed_ack": {"description": "Delayed-ACK timeout, or false (default 200ms)",
                "anyOf": [{"type": "string", "pattern": unit_pattern(DURATION_UNITS)}, {"const": false}]},
            "ack_every": {"type": "integer", "minimum": 1, "description": "ACK at least every N full segments (default 2)"},
            "dupack_threshold": {"description": "Fast retransmit threshold D (default 3), or \"adaptive\": D = max(1, min(3, F - 2))",
                "anyOf": [{"type": "integer", "minimum": 1}, {"const": "adaptive"}]},
            "limited_transmit": {"type": "boolean", "description": "RFC 3042 Limited Transmit (default true)"},
            "recovery": {"enum": ["sack", "newreno", "reno"], "description": "Loss recovery (default sack; reno = RFC 5681 / 4.4BSD-Lite, a partial ACK ends fast recovery)"},
            "profile": {"enum": tcplab_tcp::Profile::names().collect::<Vec<_>>(),
                "description": "Named OS profile (tcplab profiles); the table's other keys override it"},
            "rto_estimator": {"enum": tcplab_tcp::RtoEstimatorKind::ALL.iter().map(|k| k.name()).collect::<Vec<_>>(),
                "description": "Retransmission-timeout estimator (default rfc6298)"},
            "rtt_sampling": {"enum": tcplab_tcp::RttSampling::ALL.iter().map(|k| k.name()).collect::<Vec<_>>(),
                "description": "Which ACKs give RTT samples (default auto)"},
            "rtt_clock": {"description": "RTT measurement clock f_rtt: \"fine\", a tick, or { tick, phase } (default fine)",
                "anyOf": [{"const": "fine"}, {"type": "string", "pattern": unit_pattern(DURATION_UNITS)},
                          {"type": "object", "additionalProperties": false, "required": ["tick"],
                           "properties": {"tick": duration("Tick length"), "phase": duration("Offset of the tick boundaries")}}]},
            "timer_clock": event_clock("Event clock of the retransmission and persist timers (default fine)"),
            "fast_timer": event_clock("Event clock of the delayed-ACK timer (default fine)"),
            "rto_gain_a": ratio("RTTVAR gain a (RFC 6298 beta, default 1/4)"),
            "rto_gain_b": ratio("SRTT gain b (RFC 6298 alpha, default 1/8)"),
            "rto_m": ratio("SRTT multiplier m in RTO = m*srtt + k*rttvar (default 1)"),
            "rto_k": ratio("RTTVAR multiplier k (default 4)"),
            "spurious_detection": {"enum": tcplab_tcp::SpuriousDetection::ALL.iter().map(|k| k.name()).collect::<Vec<_>>(),
                "description": "Spurious-timeout detector: none, F-RTO (RFC 5682 §2), SACK-enhanced F-RTO (§3), Eifel timestamps (RFC 3522), D-SACK (RFC 3708); default none"},
            "spurious_response": {"enum": tcplab_tcp::SpuriousResponse::ALL.iter().map(|k| k.name()).collect::<Vec<_>>(),
                "description": "Response to a spurious timeout: conventional (F-RTO keeps cwnd = ssthresh = half), cc1 (halve), cc2 (revert, burst-limited), cc3 (cwnd 1, wait), eifel (RFC 4015), linux-undo (Linux 2.4 undo); default conventional"},
            "frto_require_full_ack": {"type": "boolean", "description": "Basic F-RTO: an ACK covering all data sent before the RTO is not taken as spurious (RFC 4138 condition; default false, as in the thesis)"},
            "ssthresh_estimation": {"type": "boolean", "description": "Aron & Druschel ssthresh estimation from ACK trains in the initial slow start (default false)"},
            "pacing": {"type": "boolean", "description": "Aron & Druschel pacing in slow start up to pthresh = ssthresh/2 on the event clock; needs ssthresh_estimation (default false)"},
            "quickack": {"type": "boolean", "description": "Linux quick ACKs: the receiver acknowledges the first min(rcv_wnd/(2*MSS), 16) data segments at once instead of delaying (dissertation L1725-1738; default false)"},
            "rate_halving": {"type": "boolean", "description": "Linux sender: rate-halving in Recovery (cwnd -1 per two ACKs; default true). false = cwnd = ssthresh at once, as the thesis' Ch. 4 hosts ran (L2471-2472)"},
            "fack": {"type": "boolean", "description": "Linux sender: FACK loss marking (holes more than reordering below the forward-most SACK are lost; Linux 2.4's default); default false = conservative SACK"},
            "tlp": {"type": "boolean", "description": "RFC 8985 §7 Tail Loss Probe in the RFC sender: after 2*SRTT (+200 ms with one segment in flight, never later than the RTO) without an ACK, send one new segment or retransmit the last one (cause tlp); default false. Not with sender = \"linux\""},
            "handshake_ack": {"enum": tcplab_tcp::HandshakeAck::ALL.iter().map(|k| k.name()).collect::<Vec<_>>(),
                "description": "Active open: the ACK of the SYN-ACK rides on the first data segment (piggyback, 4.4BSD; default) or is sent at once as a bare ACK (immediate, Linux tcp_send_ack), so a lost first flight does not make the server retransmit its SYN-ACK (RFC 9293 §3.10.7.3 allows both)"},
            "sender": {"enum": tcplab_tcp::SenderModel::ALL.iter().map(|k| k.name()).collect::<Vec<_>>(),
                "description": "Sender model: rfc (RFC 5681/6582/6675 with the detector seams; default) or linux (Linux 2.4 congestion-control engine of the dissertation Ch. 3: packet-counted cwnd, Open/Disorder/CWR/Recovery/Loss, rate-halving, timestamp/D-SACK undo, CWV)"},
            "quick_start": quick_start_tcp()
        }
    })
}

/// `[tcp.quick_start]` (scenario/quickstart.rs).
fn quick_start_tcp() -> Value {
    json!({
        "type": "object", "additionalProperties": false,
        "description": "Quick-Start (RFC 4782) at this endpoint; see docs/scenarios.md",
        "properties": {
            "request": {"type": "boolean", "description": "Send a Quick-Start Request on the SYN (default false)"},
            "rate": bandwidth("Requested rate (default 2MB/s), rounded down to 40kbps·2^N"),
            "size": {"enum": ["static", "data"], "description": "static: always `rate`; data: the data to send in one RTT, at most `rate`, none if it fits in the IW"},
            "rtt_guess": duration("RTT assumed by size = \"data\" before a measurement (default 100ms)"),
            "after_idle": duration("Request again after this long idle (default: never)"),
            "on_handoff": {"enum": ["ignore", "slowstart", "quickstart"], "description": "Response to a hand-off notification (default ignore)"},
            "qsthresh": {"type": "boolean", "description": "Also set ssthresh from the approved rate (Ch. 7; default false)"},
            "header_overhead": {"type": "integer", "minimum": 0, "maximum": 120, "description": "H of eq. 6.1 in bytes (default 40)"},
            "failure": {"enum": ["initial-window", "halve"], "description": "Response to a lost/ECN-marked QS packet (default initial-window)"},
            "echo": {"type": "boolean", "description": "Echo Requests received (default true)"}
        }
    })
}

/// `[quick_start]` (scenario/quickstart.rs).
fn quick_start_table() -> Value {
    json!({
        "type": "object", "additionalProperties": false,
        "description": "Quick-Start routers and vertical hand-offs; see docs/scenarios.md",
        "properties": {
            "routers": {"type": "array", "items": {
                "type": "object", "additionalProperties": false, "required": ["node"],
                "properties": {
                    "node": {"type": "string", "description": "Router node"},
                    "links": {"type": "array", "items": {"type": "string"}, "description": "Interfaces (links) that process Requests (default: all)"},
                    "algorithm": {"enum": ["target", "share", "broken"]},
                    "qs_thresh": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                    "alloc_rate": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                    "estimator": {"enum": ["peak", "ewma"]},
                    "intervals": {"type": "integer", "minimum": 1, "maximum": 64},
                    "interval": duration("Peak estimator interval (default 150ms)"),
                    "ewma_weight": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                    "approval_memory": duration("recent_qs_approvals memory (default 150ms)"),
                    "memory": {"enum": ["two-buckets", "sliding"]},
                    "reject": {"enum": ["zero", "untouched"]},
                    "count_quantised": {"type": "boolean"},
                    "extreme": {"type": "boolean"},
                    "flow_rtt": duration("Extreme QS per-flow RTT estimate (default 100ms)"),
                    "usage_score": {"type": "boolean"},
                    "usage_weight": probability("w of eq. 6.5 (default 0.2)")
                }
            }},
            "handoffs": {"type": "array", "items": {
                "type": "object", "additionalProperties": false, "required": ["at", "mobile", "routes"],
                "properties": {
                    "at": duration("Hand-off time"),
                    "gap": duration("Break-before-make gap (default 0)"),
                    "mobile": {"type": "string"},
                    "down": {"type": "array", "items": {"type": "string"}},
                    "routes": {"type": "array", "items": {
                        "type": "object", "additionalProperties": false, "required": ["node", "dst", "link"],
                        "properties": {"node": {"type": "string"}, "dst": {"type": "string"}, "link": {"type": "string"}}}},
                    "notify": {"type": "boolean"},
                    "notify_delay": duration("Delay of the notification after the new routes (default 0)")
                }
            }}
        }
    })
}

fn link_params(desc: &str) -> Value {
    let packet_or_bytes = unit_pattern(&format!("{PACKET_UNITS}|{BYTE_UNITS}"));
    with_wireless(json!({
        "type": "object", "additionalProperties": false, "required": ["bandwidth", "delay"],
        "description": desc,
        "properties": {
            "bandwidth": bandwidth("Rate of each direction"),
            "delay": duration("One-way propagation delay"),
            "queue": {"description": "Drop-tail limit per direction (default 100pkt)", "anyOf": [
                {"type": "string", "pattern": packet_or_bytes},
                {"type": "object", "additionalProperties": false, "required": ["limit"],
                 "properties": {"kind": {"const": "droptail"}, "limit": {"type": "string", "pattern": packet_or_bytes}}}
            ]},
            "loss": loss_model(),
            "loss_ab": loss_model(),
            "loss_ba": loss_model()
        }
    }))
}

/// Adds the wireless keys to a link object schema.
fn with_wireless(mut link: Value) -> Value {
    if let Some(props) = link.get_mut("properties").and_then(Value::as_object_mut) {
        props.extend(wireless_properties());
    }
    link
}

/// The JSON Schema of the scenario file format, pretty-printed.
pub fn json_schema() -> String {
    let link_item = with_wireless(json!({
        "type": "object", "additionalProperties": false,
        "required": ["a", "b", "bandwidth", "delay"],
        "properties": {
            "name": name("Link name (default \"a-b\")"),
            "a": {"type": "string", "description": "Node at one end"},
            "b": {"type": "string", "description": "Node at the other end"},
            "bandwidth": bandwidth("Rate of each direction"),
            "delay": duration("One-way propagation delay"),
            "queue": {"description": "Drop-tail limit per direction (default 100pkt)", "anyOf": [
                {"type": "string", "pattern": unit_pattern(&format!("{PACKET_UNITS}|{BYTE_UNITS}"))},
                {"type": "object", "additionalProperties": false, "required": ["limit"],
                 "properties": {"kind": {"const": "droptail"},
                                "limit": {"type": "string", "pattern": unit_pattern(&format!("{PACKET_UNITS}|{BYTE_UNITS}"))}}}
            ]},
            "loss": loss_model(),
            "loss_ab": loss_model(),
            "loss_ba": loss_model()
        }
    }));
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://tcplab.invalid/scenario.schema.json",
        "title": "tcplab scenario",
        "description": "A tcplab simulation scenario (TOML). See docs/scenarios.md.",
        "type": "object",
        "additionalProperties": false,
        "required": ["simulation"],
        "properties": {
            "name": {"type": "string", "description": "Scenario name (default: file stem)"},
            "simulation": {
                "type": "object", "additionalProperties": false, "required": ["duration"],
                "properties": {
                    "duration": duration("Simulated time at which the run stops"),
                    "seed": {"type": "integer", "minimum": 0, "description": "Default RNG seed (default 1; --seed overrides)"},
                    "timeseries_interval": duration("Sampling interval of the per-flow time series (default: on every change)")
                }
            },
            "tcp": tcp_table(),
            "quick_start": quick_start_table(),
            "topology": {
                "type": "object", "additionalProperties": false,
                "required": ["kind", "senders", "bottleneck", "access"],
                "description": "Generate a dumbbell: s1..sN - r1 = bottleneck = r2 - d1..dM",
                "properties": {
                    "kind": {"const": "dumbbell"},
                    "senders": {"type": "integer", "minimum": 1, "description": "Hosts s1..sN attached to r1"},
                    "receivers": {"type": "integer", "minimum": 1, "description": "Hosts d1..dM attached to r2 (default: senders)"},
                    "bottleneck": link_params("The r1-r2 link, named \"bottleneck\""),
                    "access": link_params("Each host's link to its router")
                }
            },
            "nodes": {"type": "array", "items": {
                "type": "object", "additionalProperties": false, "required": ["name", "kind"],
                "properties": {"name": name("Node name"), "kind": {"enum": ["host", "router"]}}
            }},
            "links": {"type": "array", "items": link_item},
            "routes": {"type": "array", "items": {
                "type": "object", "additionalProperties": false, "required": ["node", "dst", "link"],
                "properties": {
                    "node": {"type": "string", "description": "Node where the route applies"},
                    "dst": {"type": "string", "description": "Destination node"},
                    "link": {"type": "string", "description": "Outgoing link (must attach to node)"}
                }
            }},
            "flows": {"type": "array", "items": {
                "type": "object", "additionalProperties": false, "required": ["src", "dst", "size"],
                "properties": {
                    "name": name("Label for --set and messages"),
                    "src": {"type": "string", "description": "Sending host"},
                    "dst": {"type": "string", "description": "Receiving host"},
                    "start": duration("When the SYN is sent (default 0s)"),
                    "size": bytes_or("unlimited", "Bytes to send, or unlimited"),
                    "tcp": tcp_table(),
                    "count": {"type": "integer", "minimum": 1, "description": "Number of identical flows (default 1)"}
                }
            }}
        }
    });
    serde_json::to_string_pretty(&schema).unwrap_or_default()
}
