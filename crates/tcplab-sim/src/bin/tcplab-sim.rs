//! `tcplab-sim`: runs one canonical (JSON) scenario without Python, for benchmarks and
//! profiling. Users normally run `tcplab run scenario.toml`, which produces the canonical
//! form and calls the same `tcplab_sim::run`; `tcplab validate scenario.toml --canonical`
//! writes that form to a file for this binary (`tcplab.load(path).to_canonical_json()` in
//! Python).
//!
//!     tcplab-sim SCENARIO.json [--seed N] [--repeat K] [--no-timeseries]
//!
//! Prints one JSON line per run: the summary plus `wall_s` and `data_pkts_per_wall_s`.
//! This binary, not the library, reads the wall clock.

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant as WallClock;
use tcplab_sim::Scenario;

const USAGE: &str = "usage: tcplab-sim SCENARIO.json [--seed N] [--repeat K] [--no-timeseries]";

fn usage() -> ExitCode {
    eprintln!("{USAGE}");
    ExitCode::from(2)
}

/// What the binary prints per run: the summary and the delivered data packets per
/// wall-second of the run (flows and workloads).
#[derive(serde::Serialize)]
struct Printed<'a> {
    #[serde(flatten)]
    summary: &'a tcplab_sim::output::Summary,
    data_pkts_per_wall_s: f64,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        println!();
        println!("Runs one canonical scenario (JSON, every quantity in base units) and prints one");
        println!("JSON line per run: the summary plus wall_s and data_pkts_per_wall_s.");
        println!("Write the JSON of a scenario file with:");
        println!("  tcplab validate SCENARIO.toml --canonical > SCENARIO.json");
        return ExitCode::SUCCESS;
    }
    let Some(path) = args.first() else {
        return usage();
    };
    let mut seed = None;
    let mut repeat = 1;
    let mut timeseries = true;
    let mut i = 1;
    while i < args.len() {
        match args[i].as_str() {
            "--seed" => {
                i += 1;
                match args.get(i).and_then(|s| s.parse().ok()) {
                    Some(v) => seed = Some(v),
                    None => return usage(),
                }
            }
            "--repeat" => {
                i += 1;
                match args.get(i).and_then(|s| s.parse().ok()) {
                    Some(v) if v > 0 => repeat = v,
                    _ => return usage(),
                }
            }
            "--no-timeseries" => timeseries = false,
            _ => return usage(),
        }
        i += 1;
    }
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{path}: cannot read: {e}");
            return ExitCode::from(2);
        }
    };
    let mut scn: Scenario = match Scenario::from_json(&text) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{path}: not a canonical scenario: {e}");
            return ExitCode::from(2);
        }
    };
    // The text is as large as the scenario (about 1.7 kB a flow): not kept through the run.
    drop(text);
    if let Some(s) = seed {
        scn.seed = s;
    }
    scn.record.timeseries &= timeseries;
    for _ in 0..repeat {
        let t0 = WallClock::now();
        let out = match tcplab_sim::run(&scn, &mut |_| true) {
            Ok(o) => o,
            Err(e) => {
                eprintln!("{path}: {e}");
                return ExitCode::from(2);
            }
        };
        let wall = t0.elapsed().as_secs_f64();
        let mut summary = out.summary;
        summary.wall_s = wall;
        let pkts: u64 = summary
            .flows
            .iter()
            .map(|f| f.data_packets_delivered)
            .chain(summary.workloads.iter().map(|w| w.data_packets_delivered))
            .sum();
        // Written as it is serialised: a tree of JSON values first would hold a second copy
        // of a 10^4-flow summary (about 5 kB a flow) at the run's peak.
        let printed = Printed {
            summary: &summary,
            data_pkts_per_wall_s: pkts as f64 / wall,
        };
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        if serde_json::to_writer(&mut out, &printed)
            .map_err(std::io::Error::from)
            .and_then(|_| writeln!(out))
            .and_then(|_| out.flush())
            .is_err()
        {
            return ExitCode::from(2);
        }
        if !summary.invariants.ok {
            eprintln!(
                "{path}: INVARIANTS VIOLATED: {:?}",
                summary.invariants.violations
            );
            return ExitCode::from(3);
        }
    }
    ExitCode::SUCCESS
}
