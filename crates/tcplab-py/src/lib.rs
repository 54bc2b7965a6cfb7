//! Thin PyO3 bindings: the Python layer (python/tcplab) parses TOML into the canonical
//! `Scenario` JSON (integer ns, bit/s, bytes) and calls `run_json`; only JSON strings cross
//! the boundary, so the contract is `tcplab_sim::config::Scenario` and `output::RunOutput`.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use tcplab_sim::config::{QueueSpec, RecordSpec, Scenario};
use tcplab_sim::{Progress, SimError};

create_exception!(
    _tcplab,
    SimulationError,
    PyException,
    "A `tcplab_sim::SimError`: args are (kind, message), kind one of \"config\", \"trace\", \
     \"event_budget\", \"io\", \"cancelled\", \"scenario_json\"."
);

fn sim_error(e: &SimError) -> PyErr {
    let (kind, msg) = match e {
        SimError::Config(m) => ("config", m.clone()),
        SimError::Trace(m) => ("trace", m.clone()),
        SimError::EventBudget { .. } => ("event_budget", e.to_string()),
        SimError::Io(m) => ("io", m.clone()),
        SimError::Cancelled => ("cancelled", e.to_string()),
    };
    SimulationError::new_err((kind, msg))
}

fn parse_scenario(canonical_json: &str) -> PyResult<Scenario> {
    // The path of the offending field ("topology.downlink.rate.opportunity_bytes") comes
    // with the error, so a value the Rust field cannot hold is reported at its key.
    Scenario::from_json(canonical_json).map_err(|e| SimulationError::new_err(("scenario_json", e)))
}

/// Check that `canonical_json` deserialises into `tcplab_sim::config::Scenario` (the
/// Python/Rust contract) and satisfies every rule `run_json` applies
/// (`tcplab_sim::validate`), and return it re-serialised with every default filled in.
#[pyfunction]
fn check_scenario_json(canonical_json: &str) -> PyResult<String> {
    let sc = parse_scenario(canonical_json)?;
    tcplab_sim::validate::validate(&sc).map_err(|e| sim_error(&e))?;
    Ok(serde_json::to_string(&sc).expect("Scenario serialises"))
}

/// The stack profiles as JSON: `{"default": name, "keys": [...], "profiles": {name: {key:
/// value}}}`, each profile's values of `TcpConfig::PROFILE_KEYS` (docs/profiles.md). The
/// Python layer resolves a TCP table's profile with them, so canonical scenarios are
/// explicit.
#[pyfunction]
fn profiles_json() -> String {
    use tcplab_core::tcp::{Profile, TcpConfig};
    let mut profiles = serde_json::Map::new();
    for p in Profile::ALL {
        let all = serde_json::to_value(TcpConfig::for_profile(p)).expect("TcpConfig serialises");
        let rows: serde_json::Map<String, serde_json::Value> = TcpConfig::PROFILE_KEYS
            .iter()
            .map(|k| (k.to_string(), all[*k].clone()))
            .collect();
        profiles.insert(p.name().to_string(), rows.into());
    }
    serde_json::json!({
        "default": Profile::default().name(),
        "keys": TcpConfig::PROFILE_KEYS,
        "profiles": profiles,
    })
    .to_string()
}

/// Defaults of the Rust side as JSON: `{"tcp": TcpConfig, "record": RecordSpec, "queue": QueueSpec}`.
/// The Python layer fills them in so canonical scenarios are fully explicit.
#[pyfunction]
fn defaults_json() -> String {
    serde_json::json!({
        "tcp": tcplab_core::tcp::TcpConfig::default(),
        "record": RecordSpec::default(),
        "queue": QueueSpec::default(),
    })
    .to_string()
}

/// The variant names serde accepts for an enum, read off serde's own "unknown variant"
/// error so the list follows the Rust enum without a second copy in Python.
fn variants_of<T: serde::de::DeserializeOwned>() -> Vec<String> {
    let Err(e) = serde_json::from_str::<T>("\"\\u0000\"") else {
        return Vec::new();
    };
    let msg = e.to_string();
    let Some(tail) = msg.split("expected").nth(1) else {
        return Vec::new();
    };
    tail.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// Names accepted for the enumerated scenario keys: `{"cc": [...], "fc": [...], "discipline": [...]}`.
#[pyfunction]
fn variants_json() -> String {
    serde_json::json!({
        "cc": variants_of::<tcplab_core::cc::CcKind>(),
        "fc": variants_of::<tcplab_core::fc::FcKind>(),
        "window_update": variants_of::<tcplab_core::fc::classic::WindowUpdate>(),
        "window_granularity": variants_of::<tcplab_core::fc::classic::WindowGranularity>(),
        "recovery": variants_of::<tcplab_core::tcp::Recovery>(),
        "cubic_variant": variants_of::<tcplab_core::cc::cubic::CubicVariant>(),
        "vegas_variant": variants_of::<tcplab_core::cc::vegas::VegasVariant>(),
        "profile": variants_of::<tcplab_core::tcp::Profile>(),
        "rtt_source": variants_of::<tcplab_core::tcp::RttSource>(),
        "rto_rule": variants_of::<tcplab_core::tcp::RtoRule>(),
        "ssthresh_rule": variants_of::<tcplab_core::tcp::SsthreshRule>(),
        "rto_restart": variants_of::<tcplab_core::tcp::RtoRestart>(),
        "rto_on_fast_retransmit": variants_of::<tcplab_core::tcp::RtoOnFastRetransmit>(),
        "prr": variants_of::<tcplab_core::tcp::PrrRule>(),
        "pipe_rule": variants_of::<tcplab_core::tcp::PipeRule>(),
        "loss_detection": variants_of::<tcplab_core::tcp::LossDetection>(),
        "discipline": variants_of::<tcplab_sim::config::Discipline>(),
    })
    .to_string()
}

/// Run one canonical scenario and return `RunOutput` as JSON.
///
/// The GIL is released while simulating and re-acquired only to call
/// `progress(sim_time_s, duration_s, events) -> bool | None`; returning False (or the callback
/// raising, or a pending KeyboardInterrupt) cancels the run and the exception propagates.
#[pyfunction]
#[pyo3(signature = (canonical_json, progress=None))]
fn run_json(py: Python<'_>, canonical_json: &str, progress: Option<PyObject>) -> PyResult<String> {
    let scenario = parse_scenario(canonical_json)?;
    let mut pending: Option<PyErr> = None;
    let result = py.allow_threads(|| {
        let mut cb = |p: Progress| -> bool {
            Python::with_gil(|py| {
                if let Err(e) = py.check_signals() {
                    pending = Some(e);
                    return false;
                }
                let Some(f) = progress.as_ref() else {
                    return true;
                };
                let args = (p.sim_time.as_secs_f64(), p.duration.as_secs_f64(), p.events);
                match f.call1(py, args) {
                    Ok(v) => v.is_none(py) || v.is_truthy(py).unwrap_or(true),
                    Err(e) => {
                        pending = Some(e);
                        false
                    }
                }
            })
        };
        tcplab_sim::run(&scenario, &mut cb)
    });
    if let Some(e) = pending {
        return Err(e);
    }
    match result {
        Ok(out) => Ok(serde_json::to_string(&out).expect("RunOutput serialises")),
        Err(e) => Err(sim_error(&e)),
    }
}

// ---------------------------------------------------------------------------------------
/// Parses a Mahimahi trace with the simulator's own reader (errors name file and line) and
/// returns its statistics as JSON (`TraceInfo`) for `opportunity_bytes` per line.
#[pyfunction]
#[pyo3(signature = (path, opportunity_bytes = 1500))]
fn trace_info_json(py: Python<'_>, path: &str, opportunity_bytes: u32) -> PyResult<String> {
    let info = py
        .allow_threads(|| {
            tcplab_sim::link::MahimahiTrace::load(path).map(|t| t.info(opportunity_bytes))
        })
        .map_err(|e| sim_error(&e))?;
    Ok(serde_json::to_string(&info).expect("TraceInfo serialises"))
}
// ---------------------------------------------------------------------------------------

#[pymodule]
fn _tcplab(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add("SUMMARY_SCHEMA", tcplab_sim::output::SUMMARY_SCHEMA)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(check_scenario_json, m)?)?;
    m.add_function(wrap_pyfunction!(defaults_json, m)?)?;
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(variants_json, m)?)?;
    m.add_function(wrap_pyfunction!(profiles_json, m)?)?;
    m.add_function(wrap_pyfunction!(trace_info_json, m)?)?;
    Ok(())
}
