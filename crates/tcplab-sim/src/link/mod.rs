//! Link serialisation models: how long a packet occupies a link of fixed (possibly
//! changing at given times), scheduled (piecewise-constant) or trace-driven (Mahimahi)
//! capacity. Propagation delay, queueing
//! and loss are layered on top by `line`, which the simulation loop and the live emulator share.

pub mod line;
pub mod rate;
pub mod schedule;
pub mod steps;
pub mod trace;

pub use line::{build_lines, Line, LinksView, LINK_METRICS};
pub use rate::RateModel;
pub use schedule::Schedule;
pub use steps::{check_rate_changes, RateSteps};
pub use trace::{trace_info, MahimahiTrace, TraceInfo, TraceRate};
