//! Receiver-side flow control as one trait (DESIGN.md "Receiver-side flow control is a
//! trait"), the way congestion control is: a [`ReceiverPolicy`] decides the window a
//! receiver advertises and reacts to data arrivals, application reads and its own timer.
//! The endpoint owns the receive buffer, reassembly and the ACK clock, and enforces the
//! rules every policy shares: the right edge never moves left (RFC 9293 3.8.6.2.2; see
//! `Endpoint::window_field`) and no data beyond [`ReceiverPolicy::rcv_limit`] is kept.
//!
//! Built in: classic TCP (RFC 9293 3.8.6.2.2, RFC 1122 4.2.3.3), the receiver half of AFC
//! (Sanadhya & Sivakumar 2014, Algorithms 1-3; its sender half, the flow window, lives in
//! the endpoint's sender) and RSFC (Xu, Leong, Leong & Razeen, section III).

pub mod afc;
pub mod classic;
pub mod rsfc;

use crate::segment::Segment;
use crate::tcp::TcpStats;
use crate::time::{Duration, Instant};
use serde::{Deserialize, Serialize};

/// Which receiver policy a flow uses (scenario key `fc`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum FcKind {
    #[default]
    Classic,
    /// Adaptive flow control: the receiver reports its application's read rate and the
    /// sender's flow window is `awnd + rate x RTT`. Used only when both ends enable it.
    Afc,
    /// Receiver-side flow control: the receiver clamps its window to the uplink's estimated
    /// bandwidth-delay product (RSFC paper section III). Needs TCP timestamps.
    Rsfc,
}

/// The receive buffer as the endpoint sees it when it consults its policy. Positions are
/// 64-bit stream offsets.
#[derive(Copy, Clone, Debug)]
pub struct RcvView {
    /// Next in-order byte expected.
    pub rcv_nxt: u64,
    /// Everything before this was handed to the application.
    pub read_off: u64,
    /// Receive buffer size in bytes (`rcv_buf`).
    pub rcv_buf: u64,
    /// The right edge advertised so far (never moves left).
    pub adv_right: u64,
    /// The window carried by the last segment sent.
    pub last_adv_wnd: u64,
    pub mss: u32,
    /// The peer's FIN arrived (in order).
    pub fin_received: bool,
}

impl RcvView {
    /// The right edge the buffer alone allows: `read_off + rcv_buf`.
    pub fn buffer_edge(&self) -> u64 {
        self.read_off + self.rcv_buf
    }
}

/// One data segment, after the endpoint accepted it (RSFC's inputs, section III-A).
#[derive(Copy, Clone, Debug)]
pub struct DataArrival {
    /// Payload bytes in the segment.
    pub len: u64,
    /// Bytes of it the buffer had not held before (0 for a duplicate).
    pub new_bytes: u64,
    /// Arrived in order with no hole before or after it and carried new data: no loss and
    /// no reordering is visible (III-A: "we only estimate t_buff ... when there are no
    /// packet losses and no re-ordering").
    pub clean: bool,
    /// The segment's TSval and TSecr (RFC 7323), when timestamps are in use.
    pub tsval: Option<u32>,
    pub tsecr: Option<u32>,
    /// Our own timestamp clock now (the value our next TSval carries).
    pub our_tsval: u32,
}

/// What a policy asks of the endpoint after a read.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadAction {
    /// Send a window update now (an unsolicited ACK, RFC 9293 3.8.6.2.2).
    pub window_update: bool,
    /// Send an ACK by this time at the latest (it rides the delayed-ACK timer, so any ACK
    /// sent before it makes it unnecessary).
    pub ack_by: Option<Instant>,
}

/// The timestamp clocks of both ends, for policies that read delays off TSval / TSecr.
#[derive(Copy, Clone, Debug)]
pub struct TsClocks {
    /// Our TSval tick.
    pub ours: Duration,
    /// The peer's TSval tick (the driver knows it; `Endpoint::set_peer_ts_granularity`).
    pub peer: Duration,
}

/// A receiver-side flow control policy.
pub trait ReceiverPolicy {
    fn name(&self) -> &'static str;
    /// The right edge to advertise now. The endpoint offers at least the edge it already
    /// advertised (a smaller value is a clamp that takes effect as data fills the window).
    fn right_edge(&self, v: &RcvView) -> u64;
    /// The highest stream offset the buffer keeps (classic TCP: the advertised edge).
    fn rcv_limit(&self, v: &RcvView) -> u64;
    /// Whether the policy wants `on_data` and has a timer (false: the endpoint builds no
    /// `DataArrival` per segment, which costs a timestamp-clock division).
    fn observes_data(&self) -> bool {
        true
    }
    /// A data segment was accepted; `v` is the buffer after it.
    fn on_data(&mut self, now: Instant, d: &DataArrival, v: &RcvView);
    /// The application read `n` bytes; `v` is the buffer after the read. `established` is
    /// false before the handshake completes and after the peer's FIN.
    fn on_read(&mut self, now: Instant, n: u64, v: &RcvView, established: bool) -> ReadAction;
    /// The delayed-ACK timer fired with `pending_ack_bytes` unacknowledged in-order bytes.
    fn on_delayed_ack_timer(&mut self, _pending_ack_bytes: u64) {}
    /// Fill the policy's own option into an outgoing segment (AFC's rate option).
    fn fill_option(&mut self, _seg: &mut Segment, _stats: &mut TcpStats) {}
    /// The policy's own timer.
    fn poll_timeout(&self) -> Option<Instant> {
        None
    }
    fn on_timeout(&mut self, _now: Instant) {}
    /// Copies the policy's counters into the endpoint's statistics.
    fn report(&self, _stats: &mut TcpStats) {}
}

/// The built-in policies (enum dispatch, like `cc::Cc`: no virtual call on the
/// per-segment path). RSFC's state (360 bytes) is boxed once per receiver so that classic
/// and AFC endpoints do not carry its size (issue 18: memory per flow).
#[derive(Clone, Debug)]
pub enum Fc {
    Classic(classic::Classic),
    Afc(afc::AfcReceiver),
    Rsfc(Box<rsfc::Rsfc>),
}

macro_rules! dispatch {
    ($s:expr, $p:ident => $e:expr) => {
        match $s {
            Fc::Classic($p) => $e,
            Fc::Afc($p) => $e,
            Fc::Rsfc($p) => $e,
        }
    };
}

impl ReceiverPolicy for Fc {
    fn name(&self) -> &'static str {
        dispatch!(self, p => p.name())
    }
    #[inline]
    fn right_edge(&self, v: &RcvView) -> u64 {
        dispatch!(self, p => p.right_edge(v))
    }
    #[inline]
    fn rcv_limit(&self, v: &RcvView) -> u64 {
        dispatch!(self, p => p.rcv_limit(v))
    }
    #[inline]
    fn observes_data(&self) -> bool {
        dispatch!(self, p => p.observes_data())
    }
    #[inline]
    fn on_data(&mut self, now: Instant, d: &DataArrival, v: &RcvView) {
        dispatch!(self, p => p.on_data(now, d, v))
    }
    #[inline]
    fn on_read(&mut self, now: Instant, n: u64, v: &RcvView, established: bool) -> ReadAction {
        dispatch!(self, p => p.on_read(now, n, v, established))
    }
    fn on_delayed_ack_timer(&mut self, pending_ack_bytes: u64) {
        dispatch!(self, p => p.on_delayed_ack_timer(pending_ack_bytes))
    }
    #[inline]
    fn fill_option(&mut self, seg: &mut Segment, stats: &mut TcpStats) {
        dispatch!(self, p => p.fill_option(seg, stats))
    }
    #[inline]
    fn poll_timeout(&self) -> Option<Instant> {
        dispatch!(self, p => p.poll_timeout())
    }
    fn on_timeout(&mut self, now: Instant) {
        dispatch!(self, p => p.on_timeout(now))
    }
    fn report(&self, stats: &mut TcpStats) {
        dispatch!(self, p => p.report(stats))
    }
}
