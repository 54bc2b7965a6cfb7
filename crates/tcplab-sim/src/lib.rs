//! tcplab-sim: a deterministic discrete-event packet simulator (DESIGN.md "Engine").
//!
//! One binary heap of events ordered by (time, insertion seq); only the head-of-line
//! departure of each link is scheduled, so the heap grows with elements, not packets.

pub mod config;
pub mod element;
pub mod engine;
pub mod error;
pub mod link;
pub mod loss;
pub mod output;
pub mod packet;
pub mod pcap;
pub mod queue;
pub mod stats;
pub mod topology;
pub mod validate;

pub use config::Scenario;
pub use output::{RunOutput, Summary};
pub use packet::Packet;
pub mod world;

pub use world::{run, Progress, SimError};
