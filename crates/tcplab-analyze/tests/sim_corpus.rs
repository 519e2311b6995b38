//! A slice of the validation corpus as a test: simulated captures with exact ground truth
//! (the full table is `cargo run --release -p tcplab-analyze --example validate`).
#![allow(clippy::unwrap_used)]

#[path = "common/corpus.rs"]
mod corpus;

fn check(name: &str, min_cause: f64) {
    let case = corpus::cases().into_iter().find(|c| c.name == name).unwrap();
    let dir = std::env::temp_dir().join(format!("tcplab-analyze-corpus-{}-{}", std::process::id(), name.replace(['/', '%', '+'], "_")));
    std::fs::create_dir_all(&dir).unwrap();
    let truth = corpus::simulate(&case, &dir, 1);
    for (v, _) in corpus::VANTAGES {
        let s = corpus::score(&case, &dir.join(format!("{v}.pcap")), &truth);
        assert!(s.matched > 0, "{name} {v}: nothing matched");
        assert_eq!(s.extra, 0, "{name} {v}: retransmissions the simulator never sent");
        let acc = s.cause_accuracy().unwrap();
        assert!(acc >= min_cause, "{name} {v}: cause accuracy {acc}");
        assert_eq!(s.sp_fp, 0, "{name} {v}: a needed retransmission called spurious");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn random_loss_with_sack_and_timestamps_is_classified_from_every_vantage() {
    check("random-1%/sack+ts", 0.93);
}

/// RFC 8985 TLP sender (`tcp.tlp`): the probe retransmission of the last segment is `tlp` in
/// the ground truth and must be classified `tlp` (the model has TLP because the engine does).
#[test]
fn a_tail_loss_probe_is_classified_tlp_from_every_vantage() {
    check("tail-loss/sack+ts/tlp", 1.0);
}

#[test]
fn congestion_losses_of_newreno_senders_are_classified_from_every_vantage() {
    check("congestion-8-flows/newreno", 0.98);
}

#[test]
fn a_standing_queue_does_not_turn_recovery_retransmissions_into_timeouts() {
    check("queue-delay-rto200ms/newreno", 0.98);
}

/// Delay spikes on both directions of the bottleneck, long enough (3 s) that the RTO fires
/// during each: the retransmissions queue behind the held originals, so the ground truth
/// marks them spurious. Nothing is lost on the path (no loss model; 100-packet buffer, and a
/// spike holds packets without dropping them), so by construction the receiver-side capture
/// sees every original before its copy: there the analyzer must decide every retransmission
/// and call every truly spurious one spurious (`receiver_capture` evidence), and at no
/// vantage may a needed retransmission be called spurious.
#[test]
fn delay_spikes_make_spurious_timeouts_that_the_receiver_capture_proves() {
    let name = "spikes-3s-both/sack+ts";
    let case = corpus::cases().into_iter().find(|c| c.name == name).unwrap();
    let dir = std::env::temp_dir().join(format!("tcplab-analyze-corpus-{}-spikes", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let truth = corpus::simulate(&case, &dir, 1);
    assert!(truth.iter().filter(|t| t.spurious == Some(true) && t.cause == "rto").count() > 0, "no spurious timeout");
    for (v, _) in corpus::VANTAGES {
        let s = corpus::score(&case, &dir.join(format!("{v}.pcap")), &truth);
        assert!(s.matched > 0, "{name} {v}: nothing matched");
        assert_eq!(s.extra, 0, "{name} {v}: retransmissions the simulator never sent");
        assert_eq!(s.sp_fp, 0, "{name} {v}: a needed retransmission called spurious");
        if v == "receiver" {
            assert!(s.sp_truth > 0, "{name}: no spurious retransmission reached the receiver");
            assert_eq!(s.sp_unknown, 0, "{name} receiver: undecided");
            assert_eq!(s.sp_fn, 0, "{name} receiver: a spurious retransmission called needed");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
