//! tcplab-live: live mode (issue 36; DESIGN.md "Live mode and kernel mechanisms").
//!
//! One network, two clocks: the links, queues, loss models and node elements of
//! `tcplab-sim` are sans-IO, so this crate drives the very same objects from a monotonic
//! real-time clock, with real IP packets read from and written to TUN devices, one per
//! network namespace, one namespace per host of the topology. Flows are real kernel TCP
//! sockets opened in those namespaces (`flows`), sampled through TCP_INFO.
//!
//! Linux only: namespaces (`ip netns`), `/dev/net/tun`, `setns(2)`, `signalfd(2)`.

#[cfg(not(target_os = "linux"))]
compile_error!("tcplab-live needs Linux (network namespaces and TUN devices)");

pub mod clock;
pub mod emu;
pub mod flows;
pub mod job;
pub mod netns;
pub mod stats;
pub mod tcpinfo;
pub mod tun;
pub mod wire;
