//! tcplab-core: sans-IO TCP endpoints, congestion control and receiver flow control.
//!
//! No clock reads, no sockets, no global RNG (DESIGN.md "Contracts"): every input takes
//! `now: Instant`, and the same code drives the simulator and (later) real sockets.

pub mod cc;
pub mod fc;
pub mod rate;
pub mod rng;
pub mod segment;
pub mod seq;
pub mod tcp;
pub mod time;
pub mod units;

pub use rng::Rng;
pub use segment::{Ecn, Flags, SackBlock, Segment, TcpOptions, Timestamps};
pub use seq::SeqNo;
pub use time::{Duration, Instant};
pub use units::Bandwidth;
