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

#[test]
fn congestion_losses_of_newreno_senders_are_classified_from_every_vantage() {
    check("congestion-8-flows/newreno", 0.98);
}

#[test]
fn a_standing_queue_does_not_turn_recovery_retransmissions_into_timeouts() {
    check("queue-delay-rto200ms/newreno", 0.98);
}
