//! Validation against simulated captures with exact ground truth (docs/validation.md).
//!
//! `cargo run --release -p tcplab-analyze --example validate [-- --verbose] [-- --only NAME|=NAME]`
//! prints one row per scenario × vantage: retransmissions in the truth / found / matched,
//! cause accuracy, spurious precision and recall, and the undecided counts. Captures are
//! written to a temporary directory and removed afterwards.
#![allow(clippy::unwrap_used)]

#[path = "../tests/common/corpus.rs"]
mod corpus;

fn f(x: Option<f64>) -> String {
    x.map_or("n/a".to_string(), |v| format!("{v:.3}"))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let verbose = args.iter().any(|a| a == "--verbose");
    let only = args.iter().position(|a| a == "--only").and_then(|i| args.get(i + 1)).cloned();
    let dir = std::env::temp_dir().join(format!("tcplab-validate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    println!("| scenario | vantage | truth | seen | matched | cause acc. | cause unknown | spurious (truth) | spurious P | spurious R | spurious R (decided) | spurious unknown | extra |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut total = corpus::Score::default();
    let mut per_vantage: Vec<(&str, corpus::Score)> = corpus::VANTAGES.iter().map(|(v, _)| (*v, corpus::Score::default())).collect();
    for case in corpus::cases() {
        // `--only NAME` keeps the cases whose name contains NAME; `--only =NAME` the one named.
        if only.as_deref().is_some_and(|o| o.strip_prefix('=').map_or(!case.name.contains(o), |exact| case.name != exact)) {
            continue;
        }
        let truth = corpus::simulate(&case, &dir, 1);
        for (v, _) in corpus::VANTAGES {
            let s = corpus::score(&case, &dir.join(format!("{v}.pcap")), &truth);
            println!(
                "| {} | {} ({}) | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                case.name,
                v,
                s.vantage,
                s.truth,
                s.found,
                s.matched,
                f(s.cause_accuracy()),
                s.cause_unknown,
                s.sp_truth,
                f(s.precision()),
                f(s.recall()),
                f(s.recall_decided()),
                s.sp_unknown,
                s.extra
            );
            if verbose {
                let mut c: Vec<_> = s.confusion.iter().filter(|((a, b), _)| a != b).collect();
                c.sort();
                for ((want, got), n) in c {
                    println!("    truth {want} → analyzer {got}: {n}");
                }
                println!("    spurious: tp {} fp {} fn {} unknown {}", s.sp_tp, s.sp_fp, s.sp_fn, s.sp_unknown);
            }
            for t in [&mut total, &mut per_vantage.iter_mut().find(|(name, _)| *name == v).unwrap().1] {
                t.truth += s.truth;
                t.found += s.found;
                t.matched += s.matched;
                t.extra += s.extra;
                t.cause_ok += s.cause_ok;
                t.cause_unknown += s.cause_unknown;
                t.sp_tp += s.sp_tp;
                t.sp_fp += s.sp_fp;
                t.sp_fn += s.sp_fn;
                t.sp_truth += s.sp_truth;
                t.sp_unknown += s.sp_unknown;
            }
        }
    }
    for (v, t) in &per_vantage {
        println!(
            "| **all, {v}** | | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            t.truth,
            t.found,
            t.matched,
            f(t.cause_accuracy()),
            t.cause_unknown,
            t.sp_truth,
            f(t.precision()),
            f(t.recall()),
            f(t.recall_decided()),
            t.sp_unknown,
            t.extra
        );
    }
    println!(
        "| **all** | | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
        total.truth,
        total.found,
        total.matched,
        f(total.cause_accuracy()),
        total.cause_unknown,
        total.sp_truth,
        f(total.precision()),
        f(total.recall()),
        f(total.recall_decided()),
        total.sp_unknown,
        total.extra
    );
    if std::env::var_os("TCPLAB_VALIDATE_KEEP").is_some() {
        eprintln!("captures kept in {}", dir.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
