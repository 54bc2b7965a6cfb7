//! What a run can fail with. Its own module, below everything that reports it (the links'
//! models, the loss models, the topology, validation, the world), so none of them imports
//! the simulation loop for its error type.

use std::fmt;
use tcplab_core::Instant;

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
                write!(
                    f,
                    "event budget exhausted after {events} events at {at} (livelock?)"
                )
            }
            SimError::Io(m) => write!(f, "I/O error: {m}"),
            SimError::Cancelled => write!(f, "cancelled"),
        }
    }
}

impl std::error::Error for SimError {}
