//! SKELETON (to be implemented): the TCP endpoint state machine.
//! The public API below is the contract the simulator codes against.

use crate::segment::Segment;
use crate::seq::SeqNo;
use crate::tcp::TcpConfig;
use crate::time::{Duration, Instant};

/// Connection state (RFC 9293 section 3.3.2), collapsed to what tcplab needs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EndpointState {
    Closed,
    Listen,
    SynSent,
    SynReceived,
    Established,
    /// We sent FIN (after all written data); the peer may still send.
    FinWait,
    /// The peer sent FIN; we may still send.
    CloseWait,
    /// Both FINs sent and acknowledged.
    Done,
}

/// A piece of the byte stream handed to the application by `read`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ReadChunk {
    /// Stream offset of the first byte (0 = first byte after the SYN).
    pub offset: u64,
    pub len: u64,
}

/// Counters, monotonically increasing over the connection's life.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TcpStats {
    pub segments_sent: u64,
    pub data_segments_sent: u64,
    pub data_bytes_sent: u64,
    pub retransmitted_segments: u64,
    pub retransmitted_bytes: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub segments_received: u64,
    pub dup_acks_received: u64,
    pub bytes_acked: u64,
    /// Times the peer's advertised window became zero while we had data to send.
    pub zero_window_events: u64,
    pub zero_window_probes_sent: u64,
    /// Times we advertised a zero window.
    pub zero_windows_advertised: u64,
    pub window_updates_sent: u64,
    pub acks_sent: u64,
    pub rtt_samples: u64,
    /// The most recent RTT sample (valid when `rtt_samples > 0`).
    pub last_rtt: Duration,
    /// Segments dropped as invalid (out of window, bad ACK, payload tag mismatch).
    pub invalid_segments: u64,
    pub payload_tag_mismatches: u64,
    /// Bytes handed to the application by `read`.
    pub bytes_read: u64,
}

pub struct Endpoint {
    _private: (),
}

impl Endpoint {
    pub fn new(_cfg: TcpConfig, _isn: SeqNo) -> Self {
        todo!()
    }
    pub fn connect(&mut self, _now: Instant) {
        todo!()
    }
    pub fn listen(&mut self) {
        todo!()
    }
    pub fn handle_segment(&mut self, _now: Instant, _seg: &Segment) {
        todo!()
    }
    pub fn handle_timeout(&mut self, _now: Instant) {
        todo!()
    }
    pub fn poll_transmit(&mut self, _now: Instant) -> Option<Segment> {
        todo!()
    }
    pub fn poll_timeout(&self) -> Option<Instant> {
        todo!()
    }
    pub fn write(&mut self, _now: Instant, _bytes: u64) -> u64 {
        todo!()
    }
    pub fn close(&mut self, _now: Instant) {
        todo!()
    }
    pub fn read(&mut self, _now: Instant, _max: u64) -> Option<ReadChunk> {
        todo!()
    }
    pub fn readable_bytes(&self) -> u64 {
        todo!()
    }
    pub fn state(&self) -> EndpointState {
        todo!()
    }
    pub fn stats(&self) -> &TcpStats {
        todo!()
    }
    pub fn cwnd(&self) -> u64 {
        todo!()
    }
    pub fn bytes_in_flight(&self) -> u64 {
        todo!()
    }
    pub fn peer_window(&self) -> u64 {
        todo!()
    }
    pub fn advertised_window(&self) -> u64 {
        todo!()
    }
    pub fn srtt(&self) -> Option<Duration> {
        todo!()
    }
    pub fn send_buffer_free(&self) -> u64 {
        todo!()
    }
    pub fn all_data_acked(&self) -> bool {
        todo!()
    }
}
