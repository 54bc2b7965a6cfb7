//! SKELETON: the simulation loop (being written in main).

use crate::config::Scenario;
use crate::output::RunOutput;
use std::fmt;
use tcplab_core::{Duration, Instant};

/// Reported to the progress callback every few thousand events.
#[derive(Copy, Clone, Debug)]
pub struct Progress {
    pub sim_time: Instant,
    pub duration: Duration,
    pub events: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SimError {
    /// The scenario is inconsistent (unknown node, no route, zero rate, ...).
    Config(String),
    /// A trace file is missing or malformed.
    Trace(String),
    /// The event budget ran out: a livelock or a runaway scenario.
    EventBudget { events: u64, at: Instant },
    /// An output file could not be written.
    Io(String),
    /// The progress callback asked to stop.
    Cancelled,
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Config(m) => write!(f, "invalid scenario: {m}"),
            SimError::Trace(m) => write!(f, "trace error: {m}"),
            SimError::EventBudget { events, at } => {
                write!(f, "event budget exhausted after {events} events at {at} (livelock?)")
            }
            SimError::Io(m) => write!(f, "I/O error: {m}"),
            SimError::Cancelled => write!(f, "cancelled"),
        }
    }
}

impl std::error::Error for SimError {}

/// Runs a scenario to completion. `progress` is called every few thousand events; returning
/// false cancels the run. Invariant violations do not make this fail: they are listed in
/// `summary.invariants` and callers must refuse the result loudly.
pub fn run(_scenario: &Scenario, _progress: &mut dyn FnMut(Progress) -> bool) -> Result<RunOutput, SimError> {
    Err(SimError::Config("the simulation loop is not implemented yet".into()))
}
