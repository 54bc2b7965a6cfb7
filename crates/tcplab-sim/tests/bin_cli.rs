//! The `tcplab-sim` binary's command line: help on request (exit 0), usage errors on one
//! line (exit 2), a clear message for a missing file.

use std::process::Command;

fn sim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tcplab-sim"))
        .args(args)
        .output()
        .expect("run tcplab-sim");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn help_prints_the_usage_and_succeeds() {
    for flag in ["--help", "-h"] {
        let (code, out, err) = sim(&[flag]);
        assert_eq!(code, 0, "{flag}: {err}");
        assert!(out.starts_with("usage: tcplab-sim SCENARIO.json"), "{out}");
        // It names the command that writes its input, and that command exists (tested in
        // tests/test_cli.py).
        assert!(
            out.contains("tcplab validate SCENARIO.toml --canonical"),
            "{out}"
        );
    }
}

#[test]
fn bad_usage_is_one_line_and_exit_2() {
    for args in [
        &[][..],
        &["a.json", "--repeat", "0"][..],
        &["a.json", "--frobnicate"][..],
    ] {
        let (code, out, err) = sim(args);
        assert_eq!((code, out.as_str()), (2, ""), "{args:?}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("usage:"), "{err}");
    }
    let (code, _, err) = sim(&["/nonexistent/scenario.json"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("/nonexistent/scenario.json: cannot read"),
        "{err}"
    );
}
