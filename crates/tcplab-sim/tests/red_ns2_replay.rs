//! RED alone against ns-2.35's Queue/RED (queue/red.cc) on identical arrivals: every packet
//! that reached ns-2's RED bottleneck in bench/red/red.tcl (variant plain, seed 1: 111,091
//! arrivals in 100 s, stored in bench/red/ns2-arrivals-plain-1.txt) is replayed through
//! tcplab's RED in front of the same 10 Mbit/s link. Without TCP in the loop, the drop rate
//! and the mean of the average queue must match ns-2's (bench/red/ns2-reference.json)
//! within 10%, averaged over five RED seeds (only the random draws differ from ns-2's).

#[path = "support/red_replay.rs"]
mod red_replay;

use std::path::PathBuf;

fn bench() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../bench/red")
}

#[test]
fn red_on_ns2_arrivals_matches_ns2() {
    let text = std::fs::read_to_string(bench().join("ns2-arrivals-plain-1.txt")).unwrap();
    let arrivals = red_replay::parse_arrivals(&text);
    let reference: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(bench().join("ns2-reference.json")).unwrap())
            .unwrap();
    let ns2 = &reference["variants"]["plain"]["runs"][0];
    assert_eq!(ns2["seed"], 1);
    assert_eq!(ns2["arrivals"].as_u64().unwrap(), arrivals.len() as u64);
    let ns2_drop_rate = ns2["drop_rate"].as_f64().unwrap();
    let ns2_ave = ns2["mean_ave_pkts"].as_f64().unwrap();

    // red.tcl: 10 Mbit/s, limit 100, min_th 5, max_th 15, q_weight 0.002, max_p 0.1.
    let p = red_replay::params(10e6, 5.0, 15.0, 0.002, 0.1, false);
    let (mut drop_rate, mut ave) = (0.0, 0.0);
    let seeds = [1u64, 2, 3, 4, 5];
    for &seed in &seeds {
        let s = red_replay::replay(&arrivals, 10e6, 100, p, seed);
        assert_eq!(s.arrivals, arrivals.len() as u64);
        drop_rate += (s.early_drops + s.forced_drops) as f64 / s.arrivals as f64;
        ave += s.ave_sum / s.arrivals as f64;
    }
    drop_rate /= seeds.len() as f64;
    ave /= seeds.len() as f64;
    eprintln!(
        "replay: drop rate {drop_rate:.5} (ns-2 {ns2_drop_rate:.5}), mean ave {ave:.4} (ns-2 {ns2_ave:.4})"
    );
    assert!(
        (drop_rate - ns2_drop_rate).abs() <= 0.10 * ns2_drop_rate,
        "drop rate {drop_rate} vs ns-2 {ns2_drop_rate}"
    );
    assert!(
        (ave - ns2_ave).abs() <= 0.10 * ns2_ave,
        "mean ave {ave} vs ns-2 {ns2_ave}"
    );
}
