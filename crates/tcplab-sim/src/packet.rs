//! A packet in flight through the simulated network: a TCP segment plus the routing and
//! accounting fields the simulator needs. Plain data, `Copy`, no heap: queues move it by
//! value and nothing is allocated per packet.

use tcplab_core::{Instant, Segment};

#[derive(Copy, Clone, Debug)]
pub struct Packet {
    /// Unique per run, in creation order.
    pub id: u64,
    /// Index of the flow this packet belongs to.
    pub flow: u32,
    /// True for packets from the flow's sender (data direction), false for the receiver's.
    pub from_sender: bool,
    /// Index of the next link on the route (into the flow's route for this direction).
    pub hop: u16,
    /// IP datagram length in bytes (link headers are added by each link).
    pub ip_len: u32,
    /// When the endpoint emitted it (one-way delay = arrival - sent_at).
    pub sent_at: Instant,
    pub seg: Segment,
}
