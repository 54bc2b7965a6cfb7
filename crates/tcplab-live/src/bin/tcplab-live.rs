//! `tcplab-live JOB.json RESULT.json`: one live run (crate docs), driven by `tcplab
//! emulate`. Exit codes as `tcplab run`: 0 ok, 2 bad input or missing privileges (one
//! `error:` line), 3 an invariant broke, 130 interrupted; the result is written whenever
//! the run got as far as starting the clock.

use tcplab_live::job;

fn main() {
    // Before any thread exists, so all of them inherit the blocked signals.
    let sigfd = job::block_signals();
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: tcplab-live JOB.json RESULT.json");
        std::process::exit(2);
    }
    let text = match std::fs::read_to_string(&args[1]) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {}: {e}", args[1]);
            std::process::exit(2);
        }
    };
    let j: job::Job = match serde_json::from_str(&text) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("error: {}: {e}", args[1]);
            std::process::exit(2);
        }
    };
    match job::run(j, sigfd) {
        Ok(o) => {
            if let Err(e) = std::fs::write(&args[2], serde_json::to_string(&o.output).unwrap()) {
                eprintln!("error: {}: {e}", args[2]);
                std::process::exit(1);
            }
            std::process::exit(o.code);
        }
        Err(job::Failure(m, code)) => {
            eprintln!("error: {m}");
            std::process::exit(code);
        }
    }
}
