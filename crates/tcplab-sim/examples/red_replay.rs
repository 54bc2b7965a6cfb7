//! Replays an arrival file (bench/red's format: one line per arrival, the gap in us, then
//! `,size` unless 1040 B) through tcplab's RED (queue/red.rs, after ns-2.35 queue/red.cc):
//! the queue alone on ns-2's arrivals (bench/red/README.md).
//!
//!   cargo run --release -p tcplab-sim --example red_replay -- FILE RATE_BPS LIMIT_PKTS \
//!       MIN_TH MAX_TH Q_WEIGHT MAX_P GENTLE(0|1) SEED

#[path = "../tests/support/red_replay.rs"]
mod red_replay;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a.len() != 10 {
        eprintln!(
            "usage: red_replay FILE RATE_BPS LIMIT_PKTS MIN_TH MAX_TH Q_WEIGHT MAX_P GENTLE SEED"
        );
        std::process::exit(2);
    }
    let f = |i: usize| a[i].parse::<f64>().expect("a number");
    let text = std::fs::read_to_string(&a[1]).expect("arrival file");
    let arr = red_replay::parse_arrivals(&text);
    let p = red_replay::params(f(2), f(4), f(5), f(6), f(7), a[8] == "1");
    let s = red_replay::replay(&arr, f(2), f(3) as u64, p, a[9].parse().expect("seed"));
    println!(
        "{{\"arrivals\": {}, \"early_drops\": {}, \"forced_drops\": {}, \"drop_rate\": {}, \"mean_ave_pkts\": {}, \"mean_curq_pkts\": {}}}",
        s.arrivals,
        s.early_drops,
        s.forced_drops,
        (s.early_drops + s.forced_drops) as f64 / s.arrivals as f64,
        s.ave_sum / s.arrivals as f64,
        s.curq_sum / s.arrivals as f64
    );
}
