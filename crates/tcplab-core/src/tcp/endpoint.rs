//! The TCP endpoint state machine (RFC 9293 sections 3.5-3.10) with timestamps and window
//! scaling (RFC 7323), SACK (RFC 2018) and SACK-based recovery (RFC 6675), NewReno recovery
//! (RFC 6582), classic Reno recovery (RFC 5681 3.2, `Recovery::Reno`), RTO (RFC 6298) with
//! F-RTO (RFC 5682, `tcp::frto`), delayed ACKs and silly-window avoidance (RFC 1122 4.2.3),
//! and ECN (RFC 3168 section 6.1: negotiation, ECT on new data, ECE/CWR).

use crate::cc::{sprout_config, AckSample, Cc, CcKind, CongestionControl, CongestionEvent};
use crate::fc::classic::WindowGranularity;
use crate::fc::{
    afc::AfcReceiver, classic, rsfc, DataArrival, Fc, FcKind, RcvView, ReceiverPolicy, TsClocks,
};
use crate::rate::pacer::Pacer;
use crate::rate::sprout::SproutReceiver;
use crate::segment::{
    payload_tag, Ecn, Flags, SackBlock, Segment, TcpOptions, Timestamps, MAX_SACK_BLOCKS,
};
use crate::seq::SeqNo;
use crate::tcp::frto::{Frto, FrtoAck, FrtoPhase, FrtoVerdict};
use crate::tcp::prr::{Prr, PrrAck};
use crate::tcp::rack::{self, Rack};
use crate::tcp::reassembly::Reassembly;
use crate::tcp::rtt::RttEstimator;
use crate::tcp::sack::{note_latest, Scoreboard, SentSeg};
use crate::tcp::timers::{Timer, TimerTable};
use crate::tcp::{
    LossDetection, Recovery, RtoOnFastRetransmit, RtoRestart, RttSource, SsthreshRule, TcpConfig,
};
use crate::time::{Duration, Instant};

mod afc;

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
    /// Payload bytes sent, retransmissions and probes included.
    pub data_bytes_sent: u64,
    pub retransmitted_segments: u64,
    pub retransmitted_bytes: u64,
    /// Recovery episodes entered (each starts with one fast retransmission).
    pub fast_retransmits: u64,
    /// Retransmission timer expiries (SYN and data).
    pub timeouts: u64,
    /// Data timeouts F-RTO (RFC 5682) found spurious and undid.
    pub spurious_timeouts: u64,
    /// Tail loss probes sent (RFC 8985 7.3).
    pub loss_probes: u64,
    /// RACK reordering timer expiries that marked a loss (RFC 8985 6.3).
    pub rack_reorder_timeouts: u64,
    pub segments_received: u64,
    pub dup_acks_received: u64,
    pub bytes_acked: u64,
    /// Times the peer's advertised window became zero while we had data to send.
    pub zero_window_events: u64,
    /// Advertised windows that fell below one segment (zero included) while data waited:
    /// a sender with silly-window avoidance stalls on them as on a zero window, and a
    /// packet-granular stack (ns-2) would have advertised zero (issue 17).
    pub stall_window_events: u64,
    pub zero_window_probes_sent: u64,
    /// Times we advertised a zero window (transitions from non-zero to zero).
    pub zero_windows_advertised: u64,
    /// Pure ACKs sent because reading opened the window (unsolicited window updates).
    pub window_updates_sent: u64,
    /// Segments without payload, SYN or FIN (pure ACKs, window updates included).
    pub acks_sent: u64,
    pub rtt_samples: u64,
    /// The most recent RTT sample (valid when `rtt_samples > 0`).
    pub last_rtt: Duration,
    /// Segments dropped as invalid (out of window, bad ACK, payload tag mismatch).
    pub invalid_segments: u64,
    pub payload_tag_mismatches: u64,
    /// Bytes handed to the application by `read`.
    pub bytes_read: u64,
    /// Recovery episodes (fast recovery) completed by a full ACK (a classic Reno recovery
    /// that a partial ACK ends, `Recovery::Reno`, is not counted).
    pub recoveries_completed: u64,
    /// AFC receiver: data segments (or their tails) dropped because the receive buffer
    /// was full (Algorithm 1 lines 2-3).
    pub afc_overflow_drops: u64,
    /// AFC receiver: proactive ACKs sent, and those made unnecessary by another ACK
    /// within the delay (section 4.1.3).
    pub afc_proactive_acks: u64,
    pub afc_proactive_acks_suppressed: u64,
    /// AFC sender: zero-window flags raised and open windows that reset `snd_nxt`
    /// (Algorithm 4 lines 6-18).
    pub afc_zero_window_flags: u64,
    pub afc_open_windows: u64,
    /// AFC sender: duplicate ACKs and timeouts not reported to congestion control (4.1.2).
    pub afc_ignored_congestion_signals: u64,
    /// AFC sender: segments sent under burst control (4.1.4).
    pub afc_paced_segments: u64,
    /// ECN (RFC 3168 6.1), all zero unless ECN was negotiated. Data segments sent as
    /// ECT(0) (new data only: no retransmission or zero-window probe is ECT).
    pub ecn_ect_sent: u64,
    /// Receiver: data segments that arrived marked CE.
    pub ecn_ce_received: u64,
    /// Receiver: segments sent with ECE (every ACK from a CE until the peer's CWR).
    pub ecn_ece_sent: u64,
    /// Receiver: data segments received with CWR (each ends an ECE echo).
    pub ecn_cwr_received: u64,
    /// Sender: ACKs received with ECE, and the window reductions they caused (at most one
    /// per window of data, RFC 3168 6.1.2).
    pub ecn_ece_received: u64,
    pub ecn_reductions: u64,
    /// Sender: data segments sent with CWR (the first new one after each reduction).
    pub ecn_cwr_sent: u64,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Conn {
    Closed,
    Listen,
    SynSent,
    SynReceived,
    Established,
}

/// The pacing tick (thesis 4.3.1: the kernel decides "at every kernel tick interval" how
/// many packets to send; 1 ms is a HZ=1000 kernel). Send times are rounded onto it.
const PACING_TICK: Duration = Duration::from_millis(1);

/// RFC 9293 3.7.1: the MSS assumed when the peer sends no MSS option.
const DEFAULT_PEER_MSS: u32 = 536;

/// One end of a TCP connection, as a pull-based sans-IO state machine (quinn-proto style).
///
/// Calling order, for the driver (simulator or socket glue):
///
/// 1. Create with [`Endpoint::new`], then [`connect`](Self::connect) (active open) or
///    [`listen`](Self::listen) (passive open).
/// 2. After *every* input -- [`handle_segment`](Self::handle_segment),
///    [`handle_timeout`](Self::handle_timeout), [`write`](Self::write),
///    [`read`](Self::read), [`close`](Self::close), `connect` -- call
///    [`poll_transmit`](Self::poll_transmit) with the same `now` until it returns `None`,
///    and put the segments on the wire in that order.
/// 3. Then ask [`poll_timeout`](Self::poll_timeout) for the earliest deadline and call
///    `handle_timeout(deadline)` when it is reached (unless another input comes first).
///    Calling `handle_timeout` early or twice is harmless.
/// 4. `now` never decreases between calls.
///
/// After `handle_segment`, `stats().rtt_samples` / `stats().last_rtt` expose any new RTT
/// sample.
pub struct Endpoint {
    cfg: TcpConfig,
    conn: Conn,
    stats: TcpStats,
    timers: TimerTable,
    rtt: RttEstimator,
    cc: Cc,

    // Negotiated at the handshake.
    mss: u32,
    /// SACK negotiated: the receiver half sends SACK blocks.
    sack_ok: bool,
    /// The sender half reads SACK blocks and recovers by RFC 6675: SACK negotiated and
    /// `recovery = auto` (`Recovery::NewReno` and `Recovery::Reno` ignore SACK).
    snd_sack: bool,
    /// [`Endpoint::rack_on`], fixed once SACK is agreed: it is asked several times per ACK.
    rack_active: bool,
    ts_ok: bool,
    snd_wscale: u8,
    rcv_wscale: u8,
    /// The shift we offer: smallest s with rcv_buf >> s <= 65535 (RFC 7323 2.3), at most 14.
    our_wscale: u8,

    // Handshake.
    iss: SeqNo,
    irs: SeqNo,
    syn_pending: bool,
    syn_sent_at: Option<Instant>,
    syn_retransmitted: bool,
    peer_offered_ws: Option<u8>,
    peer_offered_sack: bool,
    peer_offered_ts: bool,

    // Sender: positions are stream offsets, the FIN one past the last data byte.
    snd_una: u64,
    /// Next new data offset (the highest data ever sent: retransmissions come from `sb`).
    snd_nxt: u64,
    written: u64,
    fin_queued: bool,
    fin_sent: bool,
    fin_acked: bool,
    sb: Scoreboard,
    peer_wnd: u64,
    max_peer_wnd: u64,
    snd_wl1: SeqNo,
    snd_wl2: SeqNo,
    dupacks: u32,
    in_recovery: bool,
    /// Linux's `tcp_cwnd_validate` state (`cwnd_limited_growth`): whether the window
    /// limited the sender in the current window of data, the most in flight then, and the
    /// position whose acknowledgement ends that window.
    is_cwnd_limited: bool,
    max_in_flight: u64,
    cwnd_usage_seq: u64,
    /// A partial ACK of the current recovery restarted the retransmission timer already
    /// (`rto_restart = "impatient"`).
    partial_ack_seen: bool,
    /// RFC 6582 `recover` / RFC 6675 RecoveryPoint (position one past HighData).
    recover: u64,
    /// The inflated window while in NewReno (RFC 6582) or Reno (RFC 5681 3.2) recovery.
    recovery_cwnd: Option<u64>,
    /// Proportional Rate Reduction (RFC 6937) during SACK recovery (`cfg.prr`).
    prr: Prr,
    /// `recovery = "ns2_linux"`: ns-2.35 TCP-Linux's `next_pkts_in_flight_` in bytes, the
    /// rate-halving allowance (tcp/tcp-linux.cc: the sender may fill the pipe up to the
    /// larger of cwnd and this); 0 outside a recovery.
    ns2_next_in_flight: u64,
    /// `recovery = "ns2_linux"`: TCP-Linux's `TCP_CA_Loss` state, from a timeout until
    /// `recover` is acknowledged or a newly marked loss starts a recovery.
    ns2_loss_state: bool,
    /// `rtt_source = "one_per_rtt"`: the end of the segment being timed and its send time.
    timed_segment: Option<(u64, Instant)>,
    /// A fast retransmission that ignores cwnd (RFC 6675 5 step 4.3, RFC 6582 3.2 step 2/4).
    force_rtx: bool,
    /// AFC: a retransmission timeout fired and its retransmission goes at once (RFC 6298
    /// 5.4), whatever the pacer holds. AFC does not tell congestion control of timeouts
    /// (section 4.1.2), so a rate-based sender keeps pacing at the rate it had, which a
    /// receiver with a small buffer can drive to a few kbit/s: without this, each
    /// retransmission waited seconds for the pacer and the transfer crawled (property seed
    /// 208: 86 of 122 kB in 3000 s). Senders whose congestion control hears the timeout
    /// (every non-AFC sender) reset their pacing with it and are not affected.
    rto_rtx_due: bool,
    probe_pending: bool,
    /// Offset of the outstanding 1-byte zero-window probe.
    probe_at: Option<u64>,
    persist_backoff: u32,
    /// Paces the rate-based controllers (thesis 4.3.1); unused while `pacing_rate()` is None.
    pacer: Pacer,
    /// The receiver's TSval tick, for the rate-based estimators (thesis 4.1.2).
    peer_ts_granularity: Duration,
    /// (seed, component) of this endpoint's random streams (rate-estimation error injection).
    rng_seed: (u64, u64),

    // Receiver.
    rcv_nxt: u64,
    read_off: u64,
    peer_fin_at: Option<u64>,
    fin_received: bool,
    reasm: Reassembly,
    /// Right edge we advertised (offset); never moves left.
    adv_right: u64,
    last_adv_wnd: u64,
    unique_accepted: u64,
    ack_now: bool,
    window_update_due: bool,
    pending_ack_bytes: u64,
    ts_recent: u32,
    last_ack_sent: SeqNo,

    /// The receiver policy deciding the advertised window (`fc`): classic until the
    /// connection is established, then the configured one (AFC only if both ends offered
    /// it, RSFC only with timestamps).
    fc: Fc,
    /// The sender half of adaptive flow control (AFC paper section 4.2); inert unless both
    /// ends enable it.
    afc: afc::AfcState,
    /// Spurious timeout detection (RFC 5682); idle unless `cfg.frto` and a timeout fired.
    frto: Frto,
    /// RACK-TLP (RFC 8985) state; unused unless [`Endpoint::rack_on`].
    rack: Rack,
    /// The probe timeout fired: the next transmission is a tail loss probe (RFC 8985 7.3).
    loss_probe_due: bool,

    // ECN (RFC 3168 section 6.1); all false / None unless `cfg.ecn`.
    /// ECN negotiated: both ends sent an ECN-setup SYN or SYN-ACK (6.1.1).
    ecn_ok: bool,
    /// Receiver: a CE mark arrived; ECE goes on every segment until a CWR arrives (6.1.3).
    ece_pending: bool,
    /// Sender: the window was reduced; CWR goes on the next new data segment (6.1.2).
    cwr_pending: bool,
    /// Sender: `snd_nxt` at the last ECE reduction while ECEs are still ignored: the
    /// window of data that was in flight then must be acknowledged, and something beyond
    /// it (only data sent after the reduction carries CWR back to the receiver, as Linux
    /// holds its CWR state until an ACK above `high_seq`), before another ECE counts.
    ecn_hold_until: Option<u64>,

    /// The controller `establish` built, and why it is not the configured one when it is
    /// not (issue 35: a fallback is reported, `cc_effective`, never silent). The configured
    /// controller until the connection is established.
    cc_effective: CcKind,
    cc_fallback: Option<&'static str>,
    /// `zero_window_freeze`: the highest offset sent when the sender last froze, until an
    /// ACK covers it; no RTT sample is taken meanwhile (`rtt_sample`).
    freeze_high: Option<u64>,
    /// The receiver policy `establish` installed (None before).
    fc_effective: Option<FcKind>,

    // Sprout (`cc = "sprout"`, rate::sprout): both ends offered its option on the SYN.
    sprout_peer_offered: bool,
    sprout_ok: bool,
    /// The receiver half: counts arrivals per 20 ms tick and forecasts (boxed: its belief
    /// is allocated once per connection; `None` without Sprout).
    sprout_rx: Option<Box<SproutReceiver>>,
    /// The sender half: the receiver's count (highest offset received) on the last ACK
    /// that carried Sprout's option; without SACK it tells a duplicate ACK (data arrived
    /// above a hole) from the reply to a heartbeat (nothing arrived).
    sprout_count_seen: Option<u32>,
    /// `cc.has_tick()`, kept with the controller: `sync_timers` runs on every input.
    cc_ticks: bool,
    /// `cc_ticks` or a Sprout receiver: one test in `sync_timers` for connections with
    /// neither tick (the common case; it saves ~3 instructions on each of its ~6 calls
    /// per data packet).
    any_tick: bool,
}

/// ns-2.35 TCP-Linux's `tcp_max_burst` (tcp/linux/ns-linux-param.c: 3), the segments
/// `tcp_moderate_cwnd` allows above what is in flight at the end of a recovery.
const NS2_TCP_MAX_BURST: u64 = 3;

/// Opens a connection without a handshake on the network, as ns-2's one-way agents start
/// (`handshake = false`): the SYN, SYN-ACK and ACK are exchanged between the two endpoints
/// at `now`, directly, so both are established with the options their configurations
/// agree on, but no packet enters the network, neither keeps the exchange's zero RTT
/// sample (their estimators start afresh) and their counters start at zero. The client's
/// first data then goes with the RTO at `initial_rto`, as ns-2's first segment goes with
/// `rtxcur_init_`.
pub fn open_without_handshake(client: &mut Endpoint, server: &mut Endpoint, now: Instant) {
    debug_assert!(!client.cfg.handshake);
    debug_assert!(client.conn == Conn::Closed && server.conn == Conn::Listen);
    client.connect(now);
    let syn = client.poll_transmit(now).expect("a SYN");
    server.handle_segment(now, &syn);
    let syn_ack = server.poll_transmit(now).expect("a SYN-ACK");
    client.handle_segment(now, &syn_ack);
    let ack = client.poll_transmit(now).expect("the handshake's ACK");
    server.handle_segment(now, &ack);
    debug_assert!(client.conn == Conn::Established && server.conn == Conn::Established);
    for ep in [client, server] {
        ep.stats = TcpStats::default();
        ep.rtt = fresh_rtt(&ep.cfg);
        ep.sync_timers(now);
    }
}

/// The RTT estimator before any sample (RFC 6298 2.1: RTO = `initial_rto`).
fn fresh_rtt(cfg: &TcpConfig) -> RttEstimator {
    RttEstimator::new(
        cfg.initial_rto,
        cfg.min_rto,
        cfg.max_rto,
        cfg.ts_granularity,
    )
    .with_rule(cfg.rto_rule)
}

/// RFC 7323 section 2.3: the smallest shift that lets the window field cover the buffer.
fn wscale_for(buf: u64) -> u8 {
    let mut s = 0u8;
    while s < 14 && (buf >> s) > 65535 {
        s += 1;
    }
    s
}

impl Endpoint {
    pub fn new(cfg: TcpConfig, isn: SeqNo) -> Self {
        let mss = cfg.mss.max(1);
        let rtt = fresh_rtt(&cfg);
        let mut cc = Cc::with_config(cfg.cc, mss, cfg.initial_cwnd_pkts as u64 * mss as u64, &cfg);
        cc.set_peer_ts_granularity(cfg.ts_granularity);
        cc.set_rate_error(cfg.rate_error_cv, 0, 0);
        let our_wscale = wscale_for(cfg.rcv_buf_bytes);
        // Nothing up front: the scoreboard grows with what is in flight (a few doublings in
        // a flow's life), not with the send buffer's size, and a receiver never fills it
        // (10^4 idle flows must not hold 10^4 windows; issue 18).
        let mut sb = Scoreboard::default();
        sb.set_pipe_rule(cfg.pipe_rule);
        sb.set_ns2_linux(cfg.recovery == Recovery::Ns2Linux);
        Endpoint {
            conn: Conn::Closed,
            stats: TcpStats::default(),
            timers: TimerTable::default(),
            rtt,
            cc,
            mss,
            sack_ok: false,
            snd_sack: false,
            rack_active: false,
            ts_ok: false,
            snd_wscale: 0,
            rcv_wscale: 0,
            our_wscale,
            iss: isn,
            irs: SeqNo(0),
            syn_pending: false,
            syn_sent_at: None,
            syn_retransmitted: false,
            peer_offered_ws: None,
            peer_offered_sack: false,
            peer_offered_ts: false,
            snd_una: 0,
            snd_nxt: 0,
            written: 0,
            fin_queued: false,
            fin_sent: false,
            fin_acked: false,
            sb,
            peer_wnd: 0,
            max_peer_wnd: 0,
            snd_wl1: SeqNo(0),
            snd_wl2: SeqNo(0),
            dupacks: 0,
            in_recovery: false,
            ns2_next_in_flight: 0,
            ns2_loss_state: false,
            partial_ack_seen: false,
            is_cwnd_limited: false,
            max_in_flight: 0,
            cwnd_usage_seq: 0,
            recover: 0,
            recovery_cwnd: None,
            force_rtx: false,
            rto_rtx_due: false,
            probe_pending: false,
            probe_at: None,
            persist_backoff: 0,
            pacer: Pacer::new(PACING_TICK),
            peer_ts_granularity: cfg.ts_granularity,
            rng_seed: (0, 0),
            rcv_nxt: 0,
            read_off: 0,
            peer_fin_at: None,
            fin_received: false,
            reasm: Reassembly::default(),
            adv_right: 0,
            last_adv_wnd: 0,
            unique_accepted: 0,
            ack_now: false,
            window_update_due: false,
            pending_ack_bytes: 0,
            ts_recent: 0,
            last_ack_sent: SeqNo(0),
            fc: Fc::Classic(classic::Classic {
                rule: cfg.window_update,
            }),
            afc: afc::AfcState::new(),
            frto: Frto::default(),
            rack: Rack::default(),
            loss_probe_due: false,
            prr: Prr::new(cfg.prr),
            timed_segment: None,
            ecn_ok: false,
            ece_pending: false,
            cwr_pending: false,
            ecn_hold_until: None,
            cc_effective: cfg.cc,
            cc_fallback: None,
            freeze_high: None,
            fc_effective: None,
            sprout_peer_offered: false,
            sprout_ok: false,
            sprout_rx: None,
            sprout_count_seen: None,
            cc_ticks: false,
            any_tick: false,
            cfg,
        }
    }

    /// The tick of the peer's TSval clock (default: our own `ts_granularity`). The sender
    /// cannot read it off the wire; the rate-based estimators need it (thesis 4.1.2), so a
    /// driver that knows the receiver's host sets it before the handshake completes.
    pub fn set_peer_ts_granularity(&mut self, g: Duration) {
        self.peer_ts_granularity = g;
        self.cc.set_peer_ts_granularity(g);
    }

    /// Seeds this endpoint's random streams, `Rng::derive(seed, component, purpose)`
    /// (only the rate-estimation error injection draws from one). Call before connecting.
    pub fn set_rng_seed(&mut self, seed: u64, component: u64) {
        self.rng_seed = (seed, component);
        self.cc
            .set_rate_error(self.cfg.rate_error_cv, seed, component);
    }

    /// Active open: the SYN goes out on the next `poll_transmit`.
    pub fn connect(&mut self, _now: Instant) {
        if self.conn == Conn::Closed {
            self.conn = Conn::SynSent;
            self.syn_pending = true;
        }
    }

    /// Passive open: wait for a SYN.
    pub fn listen(&mut self) {
        if self.conn == Conn::Closed {
            self.conn = Conn::Listen;
        }
    }

    // ---------------------------------------------------------------- input: segments

    pub fn handle_segment(&mut self, now: Instant, seg: &Segment) {
        self.stats.segments_received += 1;
        if seg.flags.rst() {
            // RST is not modelled: a peer in tcplab never needs to send one.
            self.stats.invalid_segments += 1;
            return;
        }
        match self.conn {
            Conn::Closed => self.stats.invalid_segments += 1,
            Conn::Listen => {
                if seg.flags.syn() && !seg.flags.ack() {
                    self.accept_syn(seg);
                    self.conn = Conn::SynReceived;
                    self.syn_pending = true;
                } else {
                    self.stats.invalid_segments += 1;
                }
            }
            Conn::SynSent => {
                if seg.flags.syn() && seg.flags.ack() && seg.ack == self.iss + 1 {
                    self.accept_syn(seg);
                    self.establish(now);
                    // The third segment of the handshake goes out at once.
                    self.ack_now = true;
                } else {
                    self.stats.invalid_segments += 1;
                }
            }
            Conn::SynReceived => {
                if seg.flags.syn() && !seg.flags.ack() {
                    if seg.seq == self.irs {
                        // Our SYN-ACK was lost: the peer repeats its SYN.
                        self.syn_pending = true;
                    } else {
                        self.stats.invalid_segments += 1;
                    }
                } else if seg.flags.ack() && !seg.flags.syn() && seg.ack == self.iss + 1 {
                    self.establish(now);
                    self.handle_established(now, seg);
                } else {
                    self.stats.invalid_segments += 1;
                }
            }
            Conn::Established => self.handle_established(now, seg),
        }
        self.sync_timers(now);
    }

    /// Records the peer's SYN or SYN-ACK and settles the options (each used only if both
    /// sides offer it: RFC 7323 sections 2.2 and 3.2, RFC 2018 section 2).
    fn accept_syn(&mut self, seg: &Segment) {
        self.irs = seg.seq;
        let o = &seg.options;
        self.peer_offered_ws = o.window_scale;
        self.peer_offered_sack = o.sack_permitted;
        self.peer_offered_ts = o.timestamps.is_some();
        let peer_mss = o.mss.map_or(DEFAULT_PEER_MSS, |m| m as u32);
        self.mss = self.cfg.mss.min(peer_mss).max(1);
        self.sack_ok = self.cfg.sack && o.sack_permitted;
        self.snd_sack =
            self.sack_ok && matches!(self.cfg.recovery, Recovery::Auto | Recovery::Ns2Linux);
        // RACK-TLP runs with `loss_detection = "rack_tlp"` and SACK in use (RACK needs SACK
        // to see what was delivered; Linux falls back to duplicate ACKs too); ns-2's
        // TCP-Linux has its own scoreboard and no RACK.
        self.rack_active = self.cfg.loss_detection == LossDetection::RackTlp
            && self.snd_sack
            && self.cfg.recovery != Recovery::Ns2Linux;
        self.ts_ok = self.cfg.timestamps && o.timestamps.is_some();
        // RFC 3168 6.1.1: an ECN-setup SYN has ECE and CWR set, an ECN-setup SYN-ACK ECE
        // without CWR (a SYN-ACK with both is a peer reflecting the flags, not agreeing).
        // ECN is used only if we asked too: the passive side answers with an ECN-setup
        // SYN-ACK exactly when this holds.
        let peer_ecn_setup = if seg.flags.ack() {
            seg.flags.ece() && !seg.flags.cwr()
        } else {
            seg.flags.ece() && seg.flags.cwr()
        };
        self.ecn_ok = self.cfg.ecn && peer_ecn_setup;
        self.afc_accept_syn(o);
        // Sprout's option is used only when both ends offer it (a classic peer ignores it).
        self.sprout_peer_offered = o.sprout_permitted;
        self.sprout_ok = self.cfg.cc == CcKind::Sprout && o.sprout_permitted;
        if let Some(ts) = o.timestamps {
            self.ts_recent = ts.tsval;
        }
        match (self.cfg.window_scale, o.window_scale) {
            (true, Some(s)) => {
                // RFC 7323 2.3: a shift above 14 is treated as 14.
                self.snd_wscale = s.min(14);
                self.rcv_wscale = self.our_wscale;
            }
            _ => {
                self.snd_wscale = 0;
                self.rcv_wscale = 0;
            }
        }
        // RFC 7323 2.2: the window field of a SYN is never scaled.
        self.peer_wnd = seg.window as u64;
        self.max_peer_wnd = self.peer_wnd;
        self.snd_wl1 = seg.seq;
        self.snd_wl2 = if seg.flags.ack() { seg.ack } else { self.iss };
    }

    fn establish(&mut self, now: Instant) {
        self.conn = Conn::Established;
        self.timers.disarm(Timer::Retransmit);
        if let (Some(t), false) = (self.syn_sent_at, self.syn_retransmitted) {
            self.rtt_sample(now - t, now - t);
        }
        if self.syn_retransmitted {
            // RFC 6298 5.7: after a SYN timeout, data transmission starts with RTO >= 3 s.
            self.rtt.reinit_after_syn_timeout();
        }
        self.rtt.reset_backoff();
        // RFC 5681 3.1: a lost SYN or SYN-ACK leaves an initial window of one segment.
        let iw = if self.syn_retransmitted {
            self.mss as u64
        } else {
            self.cfg.initial_cwnd_pkts.max(1) as u64 * self.mss as u64
        };
        // A controller the handshake leaves without what it reads falls back to CUBIC, the
        // default it is meant to replace, and says so (`cc_effective`, `cc_fallback`; the
        // simulator's summary and `tcplab run` report it). A scenario that makes this
        // certain (timestamps off at either end, a receiver that is not Sprout) is refused
        // before it runs (tcplab-sim validate.rs `check_ends`); what is left is a peer that
        // did not answer as configured.
        let (kind, why) = if self.cfg.cc.is_rate_based() && !self.ts_ok {
            // Thesis 4.3.4: the framework "does require the TCP timestamp option to be
            // enabled"; it reads the receiver's clock from its TSval.
            let why = if self.cfg.timestamps {
                "the peer's SYN carried no timestamp option: the rate-based framework reads \
                 the receiver's TSval (thesis 4.3.4)"
            } else {
                "timestamps off: the rate-based framework reads the receiver's TSval \
                 (thesis 4.3.4)"
            };
            (CcKind::Cubic, Some(why))
        } else if self.cfg.cc == CcKind::Sprout && !self.sprout_ok {
            // Sprout's window needs the receiver's forecast (NSDI 2013 section 4).
            (
                CcKind::Cubic,
                Some(
                    "the peer did not echo Sprout's option: Sprout's window needs the \
                     receiver's forecast (Sprout, NSDI 2013 section 4)",
                ),
            )
        } else {
            (self.cfg.cc, None)
        };
        self.cc_effective = kind;
        self.cc_fallback = why;
        self.cc = Cc::with_config(kind, self.mss, iw, &self.cfg);
        self.cc_ticks = self.cc.has_tick();
        self.cc.set_peer_ts_granularity(self.peer_ts_granularity);
        let (seed, component) = self.rng_seed;
        self.cc
            .set_rate_error(self.cfg.rate_error_cv, seed, component);
        self.fc = self.receiver_policy_for(now);
        self.fc_effective = Some(match self.fc {
            Fc::Classic(_) => FcKind::Classic,
            Fc::Afc(_) => FcKind::Afc,
            Fc::Rsfc(_) => FcKind::Rsfc,
        });
        self.sync_fc_timer();
        if self.sprout_ok {
            self.sprout_rx = Some(Box::new(SproutReceiver::new(
                &sprout_config(&self.cfg),
                self.mss,
            )));
        }
        self.any_tick = self.cc_ticks || self.sprout_rx.is_some();
    }

    /// The receiver policy once the handshake is done (section 4.2.1 of the AFC paper:
    /// AFC only when both ends offered it; RSFC reads delays off timestamps, III-D: "it
    /// does require the TCP timestamp option", and is classic without them).
    fn receiver_policy_for(&self, now: Instant) -> Fc {
        let classic = classic::Classic {
            rule: self.cfg.window_update,
        };
        match self.cfg.fc {
            FcKind::Afc if self.afc.ok => Fc::Afc(AfcReceiver::new(&self.cfg, now)),
            FcKind::Rsfc if self.ts_ok => {
                let cfg = rsfc::RsfcConfig {
                    threshold: self.cfg.rsfc_threshold,
                    minima_updates: self.cfg.rsfc_minima_updates,
                    initial_window_pkts: self.cfg.rsfc_initial_window_pkts,
                    rho_increase: self.cfg.rsfc_rho_increase,
                };
                let clocks = TsClocks {
                    ours: self.cfg.ts_granularity,
                    peer: self.peer_ts_granularity,
                };
                Fc::Rsfc(Box::new(rsfc::Rsfc::new(cfg, self.mss, clocks, now)))
            }
            _ => Fc::Classic(classic),
        }
    }

    /// The receive buffer as the policy sees it.
    fn rcv_view(&self) -> RcvView {
        RcvView {
            rcv_nxt: self.rcv_nxt,
            read_off: self.read_off,
            rcv_buf: self.cfg.rcv_buf_bytes,
            adv_right: self.adv_right,
            last_adv_wnd: self.last_adv_wnd,
            mss: self.mss,
            fin_received: self.fin_received,
        }
    }

    /// The highest stream offset the receive buffer keeps (the policy's `rcv_limit`).
    fn rcv_limit(&self) -> u64 {
        self.fc.rcv_limit(&self.rcv_view())
    }

    /// The policy's own timer follows its deadline.
    fn sync_fc_timer(&mut self) {
        match self.fc.poll_timeout() {
            Some(at) => self.timers.arm(Timer::FlowControl, at),
            None => self.timers.disarm(Timer::FlowControl),
        }
    }

    /// One RTT measurement: `rto` feeds the RFC 6298 estimator, `cc` (returned) is
    /// congestion control's sample (they differ only under `rtt_source = "linux"`).
    /// One RTT measurement; None when it is not taken: a segment outstanding through a
    /// freeze (`zero_window_freeze`) measures the freeze, not the path (Karn's reasoning,
    /// RFC 6298 section 5: an ambiguous sample is not taken).
    fn rtt_sample(&mut self, rto: Duration, cc: Duration) -> Option<Duration> {
        if self.freeze_high.is_some() {
            return None;
        }
        self.rtt.on_sample_at(rto, self.snd_una, self.snd_nxt);
        // Karn's algorithm (RFC 6298 section 5, last paragraph): the backed-off RTO is kept
        // until a new RTT measurement recomputes it. Resetting it on any ACK of new data
        // would let an RTT above the initial RTO time out every flight forever, since
        // retransmitted segments never yield a sample.
        self.rtt.reset_backoff();
        self.stats.rtt_samples += 1;
        self.stats.last_rtt = rto;
        Some(cc)
    }

    /// Linux `tcp_cwnd_validate` (net/ipv4/tcp_output.c), after each send and each stop
    /// for want of window: remember for the current window of data whether the congestion
    /// window limited the sender, or else the most that was in flight.
    fn cwnd_validate(&mut self, limited: bool) {
        if !self.cfg.cwnd_limited_growth {
            return;
        }
        let pipe = self.sb.pipe();
        if self.snd_una >= self.cwnd_usage_seq
            || limited
            || (!self.is_cwnd_limited && pipe > self.max_in_flight)
        {
            self.is_cwnd_limited = limited;
            self.max_in_flight = pipe;
            self.cwnd_usage_seq = self.snd_nxt;
        }
    }

    /// Linux `tcp_is_cwnd_limited`: the window limited the sender in this window of data,
    /// or, in slow start, it is below twice the most that was in flight.
    fn is_cwnd_limited(&self) -> bool {
        let cwnd = self.cc.congestion_window();
        self.is_cwnd_limited || (cwnd < self.cc.ssthresh() && cwnd < 2 * self.max_in_flight)
    }

    /// The amount ssthresh halves on a loss, a timeout or an ECN echo (`ssthresh_rule`).
    fn ssthresh_basis(&self) -> u64 {
        match self.cfg.ssthresh_rule {
            SsthreshRule::FlightSize => self.sb.flight_size(),
            SsthreshRule::Pipe => self.sb.pipe(),
            SsthreshRule::Cwnd => self.cc.congestion_window(),
            SsthreshRule::Window => self.cc.congestion_window().min(self.peer_wnd),
        }
    }

    /// Where this connection's RTT samples come from: `cfg.rtt_source`, except that
    /// without negotiated timestamps `tsecr` falls back to the send time (Karn's rule).
    /// ns-2's `rtt_update` without timestamps: the number of `tcpTick_` boundaries between
    /// the send time and now (the simulation clock starts at a tick), at least one tick.
    fn tick_rtt(&self, sent: Instant, now: Instant) -> Duration {
        let g = self.cfg.ts_granularity.as_nanos().max(1);
        let ticks = (now.as_nanos() / g)
            .saturating_sub(sent.as_nanos() / g)
            .max(1);
        Duration::from_nanos(ticks * g)
    }

    fn rtt_source(&self) -> RttSource {
        match self.cfg.rtt_source {
            RttSource::Tsecr if !self.ts_ok => RttSource::SendTime,
            s => s,
        }
    }

    /// RFC 7323 section 4.1: the RTT measured by an echoed TSval, in whole timestamp ticks
    /// (a zero difference counts as one tick, as Linux's `tcp_ack_update_rtt`), and the
    /// echoed send time on our clock. None without timestamps or for an echo from the
    /// future.
    /// RFC 3522 (Eifel detection): the ACK's TSecr is older than the sender's TSval at
    /// `sent`, the last transmission of a retransmitted segment, so the receiver reported an
    /// earlier transmission of it.
    fn echo_predates(&self, seg: &Segment, sent: Option<Instant>) -> bool {
        match (seg.options.timestamps.filter(|_| self.ts_ok), sent) {
            (Some(ts), Some(sent)) => (self.tsval(sent).wrapping_sub(ts.tsecr) as i32) > 0,
            _ => false,
        }
    }

    fn tsecr_rtt(&self, now: Instant, seg: &Segment) -> Option<(Duration, Instant)> {
        let ts = seg.options.timestamps.filter(|_| self.ts_ok)?;
        let ticks = self.tsval(now).wrapping_sub(ts.tsecr);
        if (ticks as i32) < 0 {
            return None;
        }
        let g = self.cfg.ts_granularity.as_nanos().max(1);
        let echo_tick =
            ((now.as_nanos() + self.cfg.ts_offset.as_nanos()) / g).saturating_sub(ticks as u64);
        let sent = (echo_tick * g).saturating_sub(self.cfg.ts_offset.as_nanos());
        Some((Duration(ticks.max(1) as u64 * g), Instant::from_nanos(sent)))
    }

    fn snd_seq(&self, pos: u64) -> SeqNo {
        self.iss + 1 + pos as u32
    }
    fn rcv_seq(&self, off: u64) -> SeqNo {
        self.irs + 1 + off as u32
    }
    fn rcv_ack_seq(&self) -> SeqNo {
        self.rcv_seq(self.rcv_nxt) + self.fin_received as u32
    }
    fn snd_max(&self) -> u64 {
        self.snd_nxt + self.fin_sent as u64
    }

    fn handle_established(&mut self, now: Instant, seg: &Segment) {
        if seg.flags.syn() {
            if seg.seq == self.irs {
                // A repeated SYN-ACK: our ACK of it was lost.
                self.ack_now = true;
            } else {
                self.stats.invalid_segments += 1;
            }
            return;
        }
        if !seg.flags.ack() {
            // RFC 9293 3.10.7.4 fifth check: "if the ACK bit is off, drop the segment".
            self.stats.invalid_segments += 1;
            return;
        }
        // Unwrap the sequence number around rcv_nxt into a 64-bit stream offset.
        let off = self.rcv_nxt as i64 + seg.seq.diff(self.rcv_seq(self.rcv_nxt)) as i64;
        if seg.payload_len > 0
            && (off < 0 || payload_tag(off as u64, seg.payload_len) != seg.payload_tag)
        {
            self.stats.payload_tag_mismatches += 1;
            self.stats.invalid_segments += 1;
            return;
        }
        if seg.flags.fin() && off < 0 {
            self.stats.invalid_segments += 1;
            return;
        }
        if self.ts_ok {
            if let Some(ts) = seg.options.timestamps {
                // RFC 7323 4.3 (2): TS.Recent <- SEG.TSval if SEG.TSval >= TS.Recent and
                // SEG.SEQ <= Last.ACK.sent.
                if ts.tsval.wrapping_sub(self.ts_recent) as i32 >= 0
                    && seg.seq <= self.last_ack_sent
                {
                    self.ts_recent = ts.tsval;
                }
            }
        }
        if !self.process_ack(now, seg) {
            return;
        }
        if let (Some(f), Cc::Sprout(s)) = (seg.options.sprout(), &mut self.cc) {
            // The receiver's forecast and count, after the ACK updated the scoreboard.
            s.on_forecast(now, &f, self.snd_nxt, self.sb.pipe());
        }
        self.process_data(now, seg, off);
    }

    /// The sender's half of an incoming segment. False when the segment must be dropped.
    fn process_ack(&mut self, now: Instant, seg: &Segment) -> bool {
        let ack = self.snd_una as i64 + seg.ack.diff(self.snd_seq(self.snd_una)) as i64;
        let snd_max = self.snd_max();
        if ack > snd_max as i64 {
            // RFC 9293 3.10.7.4: an ACK of something not yet sent: ACK back and drop.
            self.stats.invalid_segments += 1;
            self.ack_now = true;
            return false;
        }
        if ack < self.snd_una as i64 {
            // An old ACK (reordered): nothing to learn, but its data is still processed.
            return true;
        }
        let ack = ack as u64;
        if self.ecn_hold_until.is_some_and(|p| ack > p) {
            // RFC 3168 6.1.2: data sent after the last ECE reduction (with CWR) is
            // acknowledged: the next ECE or loss is a new window's congestion.
            self.ecn_hold_until = None;
        }
        let una_before = self.snd_una;
        let prior_pipe = self.sb.pipe();
        let prior_wnd = self.peer_wnd;
        let wnd = (seg.window as u64) << self.snd_wscale;
        // RFC 9293 3.10.7.4: window update only from a segment newer than the last one used.
        if self.snd_wl1 < seg.seq || (self.snd_wl1 == seg.seq && self.snd_wl2 <= seg.ack) {
            self.peer_wnd = wnd;
            self.max_peer_wnd = self.max_peer_wnd.max(wnd);
            self.snd_wl1 = seg.seq;
            self.snd_wl2 = seg.ack;
        }

        let mut bytes_acked = 0;
        let mut rtt = None;
        // For the rate-based framework (thesis 4.1.2-4.1.3): bytes the receiver had already
        // reported by SACK, and the send time of the latest-sent segment newly reported.
        let mut acked_prev_sacked = 0;
        let mut echo_sent_at: Option<Instant> = None;
        // The segment of `echo_sent_at` had been retransmitted (its report may be of an
        // earlier transmission).
        let mut echo_retransmitted = false;
        // PRR (RFC 6937) inputs: a retransmission cumulatively acknowledged, a new loss marked.
        let mut retransmission_acked = false;
        let mut newly_lost = false;
        // F-RTO step 3: the lowest never-retransmitted segment this ACK newly reports.
        let mut first_original: Option<u64> = None;
        let mut linux_seq_rtt: Option<(Instant, Instant)> = None;
        // Linux's TSecr sample, taken only from an ACK of new data (FLAG_ACKED).
        let mut linux_tsecr: Option<(Duration, Instant)> = None;
        // RACK: the highest SACKed position before this ACK (Linux `prior_fack`), and the
        // latest send time a retransmission may have to give RACK a sample.
        let prior_high_sacked = self.sb.high_sacked();
        if self.rack_on() {
            let min_rtt = self.rtt.min_rtt.unwrap_or(Duration::ZERO);
            let by =
                (self.rtt.min_rtt.is_some() && now.as_nanos() >= min_rtt.0).then(|| now - min_rtt);
            self.sb.start_rack_ack(by);
        }
        if ack > self.snd_una {
            let a = self.sb.ack_to(ack);
            first_original = a.first_original;
            bytes_acked = a.bytes;
            acked_prev_sacked = a.previously_sacked;
            retransmission_acked = a.any_retransmitted;
            echo_sent_at = a.latest_sent;
            echo_retransmitted = a.latest_retransmitted;
            self.fin_acked |= a.fin;
            self.snd_una = ack;
            self.stats.bytes_acked += bytes_acked;
            match self.rtt_source() {
                RttSource::SendTime => {
                    // Karn's rule on the newest newly acknowledged segment.
                    if let Some(t) = a.rtt_from {
                        rtt = self.rtt_sample(now - t, now - t);
                    }
                }
                RttSource::Tsecr => {
                    // RFC 7323 section 4.1: from the echoed TSval of an ACK that advances
                    // SND.UNA; no Karn rule is needed (section 4.2's TS.Recent rules make
                    // the echo that of the segment that filled the hole).
                    if let Some((r, sent)) = self.tsecr_rtt(now, seg) {
                        rtt = self.rtt_sample(r, r);
                        echo_sent_at = Some(sent);
                        echo_retransmitted = false;
                    }
                }
                RttSource::OnePerRtt => {
                    // ns-2's `newack`: the ACK covers the timed segment.
                    if let Some((_, sent)) = self.timed_segment.filter(|&(end, _)| ack >= end) {
                        self.timed_segment = None;
                        let r = self.tick_rtt(sent, now);
                        rtt = self.rtt_sample(r, r);
                    }
                }
                RttSource::Ns2Linux => {
                    // tcp-linux.cc `time_processing`: the timed segment feeds the RTO
                    // (`rtt_update`)...
                    if let Some((_, sent)) = self.timed_segment.filter(|&(end, _)| ack >= end) {
                        self.timed_segment = None;
                        let r = self.tick_rtt(sent, now);
                        self.rtt_sample(r, r);
                    }
                    // ...and `recv` hands the module `pkts_acked(.., last_ackt)` on every ACK
                    // of new data: the newest acknowledged segment's send time, unless
                    // retransmitted data was acknowledged (`FLAG_UNSURE_TSTAMP`).
                    if !a.any_retransmitted {
                        rtt = a.newest_sent.map(|t| now - t);
                    }
                }
                RttSource::Linux => {
                    // tcp_clean_rtx_queue: seq_rtt from the lowest never-retransmitted
                    // segment acknowledged (first_ackt), congestion control's ca_rtt from
                    // the highest (last_ackt), none if any acked data was retransmitted.
                    if !a.any_retransmitted {
                        linux_seq_rtt = a.first_original_sent.zip(a.last_original_sent);
                    }
                    linux_tsecr = self.tsecr_rtt(now, seg);
                    if let Some((_, sent)) = linux_tsecr {
                        echo_sent_at = Some(sent);
                        echo_retransmitted = false;
                    }
                }
            }
        }

        let mut sacked = 0;
        let mut linux_sack_rtt: Option<(Instant, Instant)> = None;
        let ns2 = self.cfg.recovery == Recovery::Ns2Linux;
        // ns-2 TCP-Linux: each block's start and the retransmission id it SACKed.
        let mut ns2_blocks = [(0u64, None); MAX_SACK_BLOCKS];
        let mut ns2_nblocks = 0;

        if self.snd_sack && !self.sb.is_empty() {
            for b in seg.options.sack() {
                let s = self.snd_una as i64 + b.start.diff(self.snd_seq(self.snd_una)) as i64;
                let e = self.snd_una as i64 + b.end.diff(self.snd_seq(self.snd_una)) as i64;
                if e <= s || e <= self.snd_una as i64 || e > snd_max as i64 {
                    // Below the cumulative ACK (D-SACK, not used) or nonsense: ignore the block.
                    continue;
                }
                let n = self
                    .sb
                    .sack_block(s.max(self.snd_una as i64) as u64, e as u64);
                if ns2 && ns2_nblocks < ns2_blocks.len() {
                    ns2_blocks[ns2_nblocks] = (s.max(self.snd_una as i64) as u64, n.ns2_rtx_id);
                    ns2_nblocks += 1;
                }
                sacked += n.bytes;
                // A SACK reports segments above a hole, whose ACK echoes the stale TSval of
                // the last in-sequence one: their recorded send times stand in (thesis 4.1.3).
                if let Some(t) = n.latest_sent {
                    note_latest(
                        &mut echo_sent_at,
                        &mut echo_retransmitted,
                        t,
                        n.latest_retransmitted,
                    );
                }
                if let (Some(f), Some(l)) = (n.first_original_sent, n.last_original_sent) {
                    linux_sack_rtt = Some(linux_sack_rtt.map_or((f, l), |(f0, _)| (f0.min(f), l)));
                }
                first_original = match (first_original, n.first_original) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
            }
            if sacked > 0 && !self.rack_on() && !ns2 {
                newly_lost = self.sb.mark_losses(self.cfg.dupack_threshold, self.mss);
            }
        }
        if ns2 && self.snd_sack && !self.sb.is_empty() {
            // tcp-linux.cc `recv`: `UpdateScoreBoard` on every ACK with SACK blocks or while
            // the board is not empty (its `FLAG_DATA_ACKED &&` is always true).
            newly_lost = self
                .sb
                .ns2_mark_losses(&mut ns2_blocks[..ns2_nblocks], self.cfg.dupack_threshold);
        }
        if self.rack_on() {
            // Linux `tcp_check_sack_reordering`: an original transmission delivered below
            // the highest SACK arrived out of order.
            if first_original.is_some_and(|f| f < prior_high_sacked) {
                self.rack.reordering_seen = true;
            }
            self.rack.on_delivered(now, self.sb.rack_delivered());
            if self.rack.take_advanced() {
                newly_lost |= self.rack_detect_loss(now);
            }
        }
        if self.rtt_source() == RttSource::Linux {
            // tcp_ack_update_rtt: seq_rtt, else the SACK sample (first_sackt; ca_rtt from
            // last_sackt whenever new data was SACKed), else, on an ACK of new data, TSecr.
            let seq = linux_seq_rtt.map(|(f, l)| (now - f, now - l));
            let sack = linux_sack_rtt.map(|(f, l)| (now - f, now - l));
            let ca = sack.or(seq).map(|(_, c)| c);
            let sample = match (seq, sack) {
                (Some((r, _)), _) | (None, Some((r, _))) => Some((r, ca.unwrap_or(r))),
                (None, None) => linux_tsecr.map(|(r, _)| (r, r)),
            };
            if let Some((r, c)) = sample {
                rtt = self.rtt_sample(r, c);
            }
        }
        if ack > una_before {
            // RFC 6582 section 4's Impatient variant: of the partial ACKs of one recovery,
            // only the first restarts the timer.
            let partial = self.in_recovery && ack < self.recover;
            let restart =
                !partial || self.cfg.rto_restart != RtoRestart::Impatient || !self.partial_ack_seen;
            self.partial_ack_seen |= partial;
            if self.sb.is_empty() {
                self.timers.disarm(Timer::Retransmit);
            } else if restart {
                self.timers.arm(Timer::Retransmit, now + self.rtt.rto());
            }
            if self.probe_at.is_some_and(|p| p < ack) {
                self.probe_at = None;
            }
            // RFC 8985 7.4's bookkeeping without its D-SACK-based response: the probe's
            // round is over once everything sent up to it is acknowledged.
            if self.rack.probe_high.is_some_and(|h| ack >= h) {
                self.rack.probe_high = None;
            }
        } else if self.cfg.rto_restart == RtoRestart::AnyAck
            && !self.sb.is_empty()
            && self.probe_at.is_none()
        {
            // ns-2.35 TCP-Linux `time_processing`: `renew_timer` on a duplicate ACK too.
            self.timers.arm(Timer::Retransmit, now + self.rtt.rto());
        }
        // AFC (Algorithm 4): flow window inputs, zero-window flag, open-window reset, and
        // whether this ACK's congestion indicators are to be ignored.
        let afc_quiet = self.afc_on_ack(now, seg, ack);

        // Sprout's receiver answers every heartbeat with an ACK (rate::sprout, "Heartbeats")
        // that, while data is outstanding and nothing new arrived, matches RFC 5681 section
        // 2's duplicate ACK: without SACK, three of them during a stall started a spurious
        // fast retransmit. A receiver sends a true one when data arrives out of order, which
        // raises the count of its option: a Sprout ACK whose count did not move is no
        // duplicate (as with SACK, where a duplicate must newly SACK data).
        // The peer's own heartbeats (an empty segment with PSH from its sender, when data
        // flows both ways) carry its ACK too, and no option before its receiver's first
        // forecast: they are its sender's, never a duplicate ACK (issue 13: three of them,
        // held in a slow uplink, arrived while our data was outstanding and started a fast
        // retransmit of data already delivered).
        let sprout_news = match (seg.options.sprout(), &self.cc) {
            (_, Cc::Sprout(_))
                if self.sprout_ok
                    && seg.payload_len == 0
                    && !seg.flags.fin()
                    && seg.flags.contains(Flags::PSH) =>
            {
                false
            }
            (Some(f), Cc::Sprout(_)) => {
                self.sprout_count_seen.replace(f.received()) != Some(f.received())
            }
            _ => true,
        };
        let is_dup = ack == una_before
            && !self.sb.is_empty()
            && if self.snd_sack {
                // RFC 6675 section 2: a duplicate ACK newly SACKs data.
                sacked > 0
            } else {
                // RFC 5681 section 2: no data, no SYN/FIN, same window, data outstanding.
                seg.payload_len == 0 && !seg.flags.fin() && wnd == prior_wnd && sprout_news
            }
            // A frozen sender (`zero_window_freeze`) reads a zero-window ACK for its window
            // only (M-TCP's persist mode): no fast retransmit from repeated ones.
            && !(self.cfg.zero_window_freeze && wnd == 0);
        // RFC 5681 section 2's duplicate ACK, whatever SACK says (thesis 4.1.2 counts one MSS
        // per duplicate ACK that carries no SACK blocks).
        let dup_5681 = ack == una_before
            && !self.sb.is_empty()
            && seg.payload_len == 0
            && !seg.flags.fin()
            && wnd == prior_wnd;
        if is_dup && afc_quiet {
            self.stats.dup_acks_received += 1;
            self.stats.afc_ignored_congestion_signals += 1;
        } else if is_dup {
            self.dupacks += 1;
            self.stats.dup_acks_received += 1;
        } else if ack > una_before {
            self.dupacks = 0;
        }

        if self.frto.active() {
            let fa = FrtoAck {
                ack,
                una_before,
                dup: is_dup,
                first_original,
                can_send_new: self.frto_can_send_new(),
            };
            match self.frto.on_ack(&fa, self.snd_max()) {
                FrtoVerdict::Wait | FrtoVerdict::SendNew => {}
                FrtoVerdict::Conventional => self.frto.stop(),
                FrtoVerdict::Spurious => self.frto_undo(now),
            }
        }

        let was_in_recovery = self.in_recovery;
        let mut exit_grows = false;
        let reno = self.cfg.recovery == Recovery::Reno;
        if ns2 {
            self.ns2_fastretrans_alert(now, ack, newly_lost && !afc_quiet);
        } else if self.in_recovery {
            if ack >= self.recover || (reno && ack > una_before) {
                // Full ACK: RFC 6582 3.2 step 3 / RFC 6675 section 5. Classic Reno (RFC 5681
                // 3.2 step 6) leaves on the first ACK of new data, partial or not: cwnd
                // deflates to ssthresh and a hole left above it waits for the RTO, since
                // `recover` keeps duplicate ACKs below it from starting another recovery.
                self.in_recovery = false;
                self.recovery_cwnd = None;
                self.dupacks = 0;
                if ack >= self.recover {
                    self.stats.recoveries_completed += 1;
                }
                self.cc.on_recovery_exit(now);
                exit_grows = self.cfg.grow_on_recovery_exit && !self.snd_sack;
            } else if ack > una_before {
                if !self.snd_sack {
                    // RFC 6582 3.2 step 4: retransmit the first unacknowledged segment,
                    // deflate by the newly acked amount, add back one SMSS if >= SMSS acked.
                    self.sb.mark_front_lost();
                    self.force_rtx = true;
                    let mss = self.mss as u64;
                    let add = if bytes_acked >= mss { mss } else { 0 };
                    self.recovery_cwnd = self
                        .recovery_cwnd
                        .map(|c| (c.saturating_sub(bytes_acked) + add).max(mss));
                }
            } else if is_dup && !self.snd_sack {
                // RFC 6582 3.2 step 3 (RFC 5681 fast recovery step 4): inflate per dupack.
                self.recovery_cwnd = self.recovery_cwnd.map(|c| c + self.mss as u64);
            }
        } else if ack >= self.recover && !self.sb.is_empty() {
            // RFC 6582 3.2 step 1: only ACKs beyond `recover` may start a new recovery (ns-2's
            // Reno too, with its default `bugFix_`).
            let front_lost = self.sb.front().is_some_and(|f| f.lost && !f.sacked);
            let enter = if self.rack_on() {
                // Linux `tcp_time_to_recover` with RACK: a loss is proven (`lost_out`).
                self.sb.any_awaiting_rtx()
            } else {
                self.dupacks >= self.cfg.dupack_threshold || (self.snd_sack && front_lost)
            };
            if enter && !afc_quiet {
                self.enter_recovery(now);
                newly_lost = true;
            }
        }
        if self.in_recovery {
            // RFC 6937 section 3: every ACK of the recovery, the entering one included, sets
            // the window from what it delivered (no-op while PRR is off for this recovery).
            let pa = PrrAck {
                delivered: bytes_acked - acked_prev_sacked + sacked,
                dup_ack: is_dup,
                una_advanced: ack > una_before,
                newly_lost,
                retransmission_acked,
                pipe: self.sb.pipe(),
                ssthresh: self.cc.ssthresh(),
                mss: self.mss as u64,
            };
            self.prr.on_ack(&pa);
        }

        let ece = self.ecn_ok && seg.flags.ece();
        if ece {
            self.ecn_on_ece(now, ack);
        }

        // The rate-based framework counts every ACK's TSval, duplicates and recovery ACKs
        // included (thesis 4.1.2, 4.3.2); window-based algorithms only see ACKs of new data.
        if bytes_acked > 0 || sacked > 0 || self.cc.wants_dup_acks() {
            let sample = AckSample {
                bytes_acked,
                bytes_sacked: sacked,
                rtt,
                prior_in_flight: prior_pipe,
                in_flight: self.sb.pipe(),
                // RFC 3168 6.1.2: "The sending TCP SHOULD NOT increase the congestion window
                // in response to the receipt of an ECN-Echo ACK packet": the window-based
                // algorithms grow on no ACK in recovery, so an ECE ACK is given as one.
                in_recovery: (was_in_recovery && !exit_grows) || self.in_recovery || ece,
                app_limited: self.written == self.snd_nxt && prior_pipe < self.cwnd(),
                not_cwnd_limited: self.cfg.cwnd_limited_growth && !self.is_cwnd_limited(),
                peer_tsval: seg.options.timestamps.map(|t| t.tsval),
                dup_ack: dup_5681 || is_dup,
                has_sack_blocks: self.snd_sack && !seg.options.sack().is_empty(),
                bytes_acked_previously_sacked: acked_prev_sacked,
                echo_sent_at,
                echo_earlier_transmission: echo_retransmitted
                    && self.echo_predates(seg, echo_sent_at),
            };
            self.cc.on_ack(now, &sample, &self.rtt);
        }

        if self.freeze_high.is_some_and(|h| self.snd_una >= h) {
            // Everything outstanding through the freeze is acknowledged: RTT samples again.
            self.freeze_high = None;
        }
        if self.peer_wnd == 0 && prior_wnd > 0 && self.written > self.snd_nxt {
            self.stats.zero_window_events += 1;
        }
        let mss = self.mss as u64;
        if self.peer_wnd < mss && prior_wnd >= mss && self.written > self.snd_nxt {
            self.stats.stall_window_events += 1;
        }
        if self.peer_wnd > 0 {
            if let Some(p) = self.probe_at.take() {
                // The window reopened and the probe byte was not acknowledged: the receiver
                // discarded it (RFC 9293 3.8.6.1), so send it again now.
                if self.sb.front().is_some_and(|f| f.start == p) {
                    self.sb.mark_front_lost();
                }
            }
        }
        if self.rack_on() {
            // Linux `tcp_ack`: an ACK cancels a pending probe; one that acknowledges new
            // data schedules the next (`tcp_set_xmit_timer`).
            self.timers.disarm(Timer::LossProbe);
            if ack > una_before {
                self.schedule_loss_probe(now);
            }
        }
        true
    }

    /// RACK-TLP runs on this connection (set with SACK at the handshake, `accept_syn`).
    #[inline]
    fn rack_on(&self) -> bool {
        self.rack_active
    }

    /// RFC 8985 6.2 step 5 with Linux's reordering window; arms or disarms the reordering
    /// timer (6.3) for the segments not yet overdue. True if a segment was newly marked lost.
    fn rack_detect_loss(&mut self, now: Instant) -> bool {
        let Some(newest) = self.rack.newest_delivered() else {
            return false;
        };
        // Linux's `icsk_ca_state >= TCP_CA_Recovery`: fast recovery, or the recovery after
        // a timeout (until everything sent before it is acknowledged).
        let recovering = self.in_recovery || self.snd_una < self.recover;
        let dupthresh_sacked =
            self.sb.sacked_bytes() >= self.cfg.dupack_threshold as u64 * self.mss as u64;
        let delay = self.rack.loss_delay(
            recovering,
            dupthresh_sacked,
            self.rtt.min_rtt,
            self.rtt.srtt,
        );
        let (lost, wait) = self.sb.rack_mark_lost(now, newest, delay);
        match wait {
            // Linux `tcp_rack_mark_lost`: TCP_TIMEOUT_MIN of slack, at most one RTO away.
            Some(w) => self.timers.arm(
                Timer::RackReorder,
                now + (w + rack::TIMEOUT_MIN).min(self.rtt.rto()),
            ),
            None => self.timers.disarm(Timer::RackReorder),
        }
        lost
    }

    /// Linux `tcp_rack_reo_timeout`: the reordering timer re-runs the loss scan; a loss
    /// starts a recovery if none is under way (with PRR's first step for one delivered
    /// segment, as Linux's `tcp_cwnd_reduction(sk, 1, ...)`).
    fn on_rack_reorder_timeout(&mut self, now: Instant) {
        if !self.rack_on() || self.conn != Conn::Established || self.sb.is_empty() {
            return;
        }
        if !self.rack_detect_loss(now) {
            return;
        }
        self.stats.rack_reorder_timeouts += 1;
        if !self.in_recovery && self.snd_una >= self.recover {
            self.enter_recovery(now);
            let pa = PrrAck {
                delivered: self.mss as u64,
                newly_lost: true,
                pipe: self.sb.pipe(),
                ssthresh: self.cc.ssthresh(),
                mss: self.mss as u64,
                ..PrrAck::default()
            };
            self.prr.on_ack(&pa);
        }
    }

    /// TLP may probe now (RFC 8985 7.2, Linux `tcp_schedule_loss_probe`): RACK-TLP on,
    /// data outstanding, no recovery or F-RTO under way (Linux's Open state), no probe
    /// outstanding and no zero-window probing.
    fn loss_probe_allowed(&self) -> bool {
        self.rack_on()
            && self.conn == Conn::Established
            && !self.sb.is_empty()
            && !self.in_recovery
            && self.snd_una >= self.recover
            && self.frto.phase == FrtoPhase::Idle
            && self.probe_at.is_none()
            && self.rack.probe_high.is_none()
    }

    /// Arms the probe timeout, no later than the retransmission timer (RFC 8985 7.2).
    fn schedule_loss_probe(&mut self, now: Instant) {
        if !self.loss_probe_allowed() {
            self.timers.disarm(Timer::LossProbe);
            return;
        }
        let pto = Rack::probe_timeout(self.rtt.srtt, self.sb.len() == 1, self.cfg.min_rto);
        let rto_at = self.timers.get(Timer::Retransmit).unwrap_or(Instant::MAX);
        self.timers.arm(Timer::LossProbe, (now + pto).min(rto_at));
    }

    /// RFC 8985 7.3, Linux `tcp_send_loss_probe`: one new segment if the peer's window
    /// allows (the congestion window does not matter), else the highest segment again;
    /// then the retransmission timer restarts from now.
    fn send_loss_probe(&mut self, now: Instant) -> Option<Segment> {
        let unsent = self.written - self.snd_nxt;
        let len = unsent.min(self.mss as u64).min(self.wnd_avail());
        let seg = if len > 0 {
            self.send_new(now, len as u32)
        } else if unsent == 0 && self.fin_queued && !self.fin_sent {
            self.send_new(now, 0)
        } else {
            // Linux `__tcp_retransmit_skb`: nothing beyond a shrunken window is sent again,
            // except the first unacknowledged segment (then a zero-window probe).
            let last = self.sb.len().checked_sub(1)?;
            let start = self.sb.get(last).start;
            if start >= self.snd_una + self.peer_wnd && start != self.snd_una {
                return None;
            }
            self.retransmit(now, last)
        };
        self.rack.probe_high = Some(self.snd_max());
        self.stats.loss_probes += 1;
        self.timers.arm(Timer::Retransmit, now + self.rtt.rto());
        Some(seg)
    }

    /// RFC 5682 step 3b with RFC 4015's response, as Linux undoes a spurious timeout: the
    /// controller returns to its pre-timeout state, the segments the timeout marked lost
    /// count as in flight again, and `recover` moves to SND.UNA so that a later loss may
    /// start fast recovery at once.
    fn frto_undo(&mut self, now: Instant) {
        self.stats.spurious_timeouts += 1;
        if let Some(prior) = self.frto.prior_cc.take() {
            self.cc.on_spurious_timeout(now, &prior);
        }
        self.frto.stop();
        self.sb.undo_rto();
        if self.snd_sack && !self.rack_on() {
            // Losses the SACK information shows on its own still stand (RFC 6675 IsLost).
            self.sb.mark_losses(self.cfg.dupack_threshold, self.mss);
        }
        self.recover = self.snd_una;
        self.dupacks = 0;
    }

    /// RFC 5682 step 2b's condition: previously unsent data (or the FIN) may go now.
    fn frto_can_send_new(&self) -> bool {
        if self.written > self.snd_nxt {
            self.wnd_avail() > 0
        } else {
            self.fin_queued && !self.fin_sent
        }
    }

    /// RFC 5682 step 2b: one new segment (at most an MSS, within the peer's window),
    /// Nagle overridden as the RFC allows.
    fn frto_send_new(&mut self, now: Instant) -> Option<Segment> {
        let unsent = self.written - self.snd_nxt;
        if unsent == 0 {
            return (self.fin_queued && !self.fin_sent).then(|| self.send_new(now, 0));
        }
        let len = unsent.min(self.mss as u64).min(self.wnd_avail());
        (len > 0).then(|| self.send_new(now, len as u32))
    }

    /// ns-2.35 TCP-Linux's `tcp_fastretrans_alert` (tcp/tcp-linux.cc), `recovery =
    /// "ns2_linux"`, on every ACK (ns-2 calls it on every "dubious" ACK: a duplicate, one
    /// with SACK information, or any outside the Open state, which covers every ACK that
    /// can change its state):
    /// - E. Out of Recovery or Loss once `recover` (SND.NXT at entry, ns-2's `maxseq_`) is
    ///   acknowledged: the scoreboard is cleared (`ClearScoreBoard`), a window below
    ///   ssthresh is raised to it and moderated to in flight + `tcp_max_burst` 3 segments
    ///   (`tcp_moderate_cwnd`), and rate halving stops.
    /// - F. In Open or Loss, a loss the scoreboard newly marked (`FLAG_DATA_LOST`) enters
    ///   Recovery ([`Endpoint::enter_recovery`]); in Recovery nothing more happens: the
    ///   window is cut once per recovery.
    ///
    /// Then, as `send_much` does first, the rate-halving allowance is held to in flight +
    /// one segment.
    fn ns2_fastretrans_alert(&mut self, now: Instant, ack: u64, newly_lost: bool) {
        if (self.in_recovery || self.ns2_loss_state) && ack >= self.recover {
            if self.in_recovery {
                self.stats.recoveries_completed += 1;
            }
            self.in_recovery = false;
            self.ns2_loss_state = false;
            self.dupacks = 0;
            self.sb.ns2_clear();
            let limit = self.sb.pipe() + NS2_TCP_MAX_BURST * self.mss as u64;
            self.cc.ns2_linux_recovery_exit(now, limit);
            self.ns2_next_in_flight = 0;
            return;
        }
        if !self.in_recovery && newly_lost {
            self.ns2_loss_state = false;
            self.enter_recovery(now);
        }
        self.ns2_next_in_flight = self
            .ns2_next_in_flight
            .min(self.sb.pipe() + self.mss as u64);
    }

    /// `send_much` after each transmission: `next_pkts_in_flight_ = min(next, max(in
    /// flight - 1, 1))`, so that in Recovery one segment goes for every second segment that
    /// leaves the network until the pipe is down to cwnd (tcp/tcp-linux.cc).
    fn ns2_after_send(&mut self) {
        if self.cfg.recovery == Recovery::Ns2Linux {
            let mss = self.mss as u64;
            self.ns2_next_in_flight = self
                .ns2_next_in_flight
                .min(self.sb.pipe().saturating_sub(mss).max(mss));
        }
    }

    /// The congestion response on entering a fast recovery, unless an ECE reduction still
    /// held answered this window already: the lost segment (the first unacknowledged one)
    /// was sent before it. RFC 3168 6.1.2: "the congestion window should be reduced only
    /// once in response to a series of dropped and/or CE packets from a single window of
    /// data" (Linux too keeps ssthresh when it enters Recovery from its CWR state). The
    /// segment is still retransmitted and recovery runs as usual at the reduced window. A
    /// segment sent after the reduction -- the one carrying CWR, say -- is a new window's
    /// loss.
    fn reduce_for_recovery(&mut self, now: Instant) {
        let reduced_for_it = self.ecn_hold_until.is_some_and(|p| self.snd_una < p);
        if !reduced_for_it {
            let flight = self.ssthresh_basis();
            self.cc
                .on_congestion_event(now, CongestionEvent::FastRecovery, flight, &self.rtt);
            // RFC 3168 6.1.2: a reduction for any reason is followed by CWR.
            self.cwr_pending = self.ecn_ok;
        }
    }

    fn enter_recovery(&mut self, now: Instant) {
        let prior_cwnd = self.cwnd();
        if self.cfg.rto_on_fast_retransmit == RtoOnFastRetransmit::Restart {
            // ns-2's `reset_rtx_timer(1,0)` in `dupack_action`, Linux's re-arm when the
            // head is resent: the fast retransmission about to leave gets a full RTO.
            self.timers.arm(Timer::Retransmit, now + self.rtt.rto());
        }
        if self.cfg.recovery == Recovery::Ns2Linux {
            // ns-2.35 `tcp_fastretrans_alert`, F: `recover_ = maxseq_`, rate halving from
            // the window before the cut (`next_pkts_in_flight_ = snd_cwnd`), ssthresh from
            // the module and cwnd = ssthresh at once. The scoreboard marked the losses; what
            // goes first is its lowest LOST segment, under rate halving (no forced
            // retransmission, no PRR, no RFC 6675 rule 3).
            self.ns2_next_in_flight = self.cc.congestion_window();
            self.in_recovery = true;
            self.recover = self.snd_max();
            self.reduce_for_recovery(now);
            self.stats.fast_retransmits += 1;
            self.prr.deactivate();
            return;
        }
        self.in_recovery = true;
        self.partial_ack_seen = false;
        // RFC 6675 section 5 step 4.1: RecoveryPoint = HighData.
        self.recover = self.snd_max();
        self.reduce_for_recovery(now);
        if !self.rack_on() {
            // With RACK the losses that start a recovery are marked already (Linux's
            // `tcp_enter_recovery` marks nothing).
            self.sb.mark_front_lost();
        }
        self.force_rtx = true;
        self.stats.fast_retransmits += 1;
        self.rack.probe_high = None;
        self.timers.disarm(Timer::LossProbe);
        let own_window = self.cfg.cc.is_rate_based() || matches!(self.cc, Cc::Sprout(_));
        if self.snd_sack && !own_window {
            let (flight, pipe) = (self.sb.flight_size(), self.sb.pipe());
            self.prr.enter(flight, pipe, prior_cwnd);
        } else {
            // Window inflation (below) without SACK; the rate-based senders pace themselves.
            self.prr.deactivate();
        }
        if !self.snd_sack && !matches!(self.cc, Cc::Sprout(_)) {
            // RFC 6582 3.2 step 2 / RFC 5681 3.2 step 3: cwnd = ssthresh + 3*SMSS.
            // (Sprout's window is the forecast's, in recovery too.)
            self.recovery_cwnd = Some(self.cc.congestion_window() + 3 * self.mss as u64);
        }
    }

    /// RFC 3168 6.1.3, the data receiver: a CWR ends the ECE echo, a CE mark starts one
    /// (in this order, as Linux: a CWR segment that is itself marked keeps ECE on).
    fn ecn_on_data(&mut self, seg: &Segment) {
        if seg.flags.cwr() {
            self.stats.ecn_cwr_received += 1;
            self.ece_pending = false;
        }
        if seg.ecn == Ecn::Ce {
            self.stats.ecn_ce_received += 1;
            if !self.ece_pending {
                // RFC 3168 allows delayed ACKs to hold the echo back ("the ECN-Echo flag in
                // the ACK packet will be set to '1' if the CE codepoint is set in any of the
                // data packets being acknowledged", 6.1.3). We ACK at once when an echo
                // starts, as Linux (`tcp_ecn_check_ce` enters quick-ACK mode): the sender
                // learns of the congestion a delayed-ACK timeout sooner. Later CE marks of
                // the same echo follow the delayed-ACK policy; their ACKs carry ECE anyway.
                self.ack_now = true;
            }
            self.ece_pending = true;
        }
    }

    /// RFC 3168 6.1.2, the data sender, for an ACK carrying ECE that acknowledges up to
    /// `ack`: the congestion window and ssthresh are reduced as for a fast retransmit, once
    /// per window of data, without entering fast recovery or retransmitting anything.
    fn ecn_on_ece(&mut self, now: Instant, ack: u64) {
        self.stats.ecn_ece_received += 1;
        if self.ecn_hold_until.is_some() {
            // The receiver echoes ECE until our CWR reaches it, so ACKs for data sent
            // before the reduction (up to and including the hold point) may repeat the old
            // mark. (`process_ack` ends the hold on an ACK beyond it.)
            return;
        }
        // A loss reduction covers this window of data already: in fast recovery, or after
        // a timeout until everything sent before it is acknowledged (`recover`).
        if self.in_recovery || ack < self.recover {
            return;
        }
        let flight = self.ssthresh_basis();
        // "The indication of congestion should be treated just as a congestion loss in
        // non-ECN-Capable TCP": the controller is told of a fast-recovery congestion event,
        // whose reduction every algorithm implements (halving for NewReno, beta for CUBIC,
        // Westwood's BWE window, the rate-based Buffer Drain), and of the end of a recovery
        // that, with nothing to retransmit, ends at once.
        self.cc
            .on_congestion_event(now, CongestionEvent::FastRecovery, flight, &self.rtt);
        self.cc.on_recovery_exit(now);
        self.stats.ecn_reductions += 1;
        self.ecn_hold_until = Some(self.snd_nxt);
        self.cwr_pending = true;
    }

    /// The receiver's half: reassembly, FIN and the ACK policy.
    fn process_data(&mut self, now: Instant, seg: &Segment, off: i64) {
        let len = seg.payload_len as u64;
        let mut fin = seg.flags.fin();
        if len == 0 && !fin {
            if seg.flags.contains(Flags::PSH) {
                if let Some(rx) = self.sprout_rx.as_deref_mut() {
                    // Sprout's empty heartbeat (rate::sprout, "Heartbeats").
                    rx.on_heartbeat(now);
                }
            }
            return;
        }
        if len > 0 && self.ecn_ok {
            self.ecn_on_data(seg);
        }
        if len > 0 {
            if let Some(rx) = self.sprout_rx.as_deref_mut() {
                // Every arrival counts (Sprout counts packets, not new bytes); PSH is the
                // sender's "the flight ended here" (rate::sprout, "Censoring").
                rx.on_data(
                    now,
                    len,
                    (off.max(0) as u64) + len,
                    seg.flags.contains(Flags::PSH),
                );
            }
        }
        if self.fin_received {
            // Everything after the FIN is a retransmission: re-ACK (RFC 9293 3.10.7.4).
            self.ack_now = true;
            return;
        }
        let start = off as u64;
        let end = start + len;
        let mut in_order = false;
        let mut clean = false;
        let accepted_before = self.unique_accepted;
        if len > 0 {
            if end <= self.rcv_nxt {
                // A duplicate: ACK at once so the sender learns our state (RFC 5681 4.2);
                // AFC ignores it (Algorithm 1 line 32), unless repeated.
                self.ack_now |= self.afc_ack_duplicate(start);
            } else if start >= self.rcv_limit() {
                // Beyond the right edge (a zero-window probe, say) or, with AFC, beyond the
                // buffer (Algorithm 1 lines 2-3): drop but ACK.
                self.ack_now = true;
                fin = false;
                self.stats.afc_overflow_drops += self.afc.ok as u64;
            } else {
                let s = start.max(self.rcv_nxt);
                let e = end.min(self.rcv_limit());
                if e < end {
                    fin = false;
                    self.ack_now = true;
                    self.stats.afc_overflow_drops += self.afc.ok as u64;
                }
                if s > self.rcv_nxt {
                    // Out of order: immediate ACK (RFC 5681 4.2) carrying the SACK blocks;
                    // under AFC none for data already held (Algorithm 1 lines 13-15, 32).
                    let new = self.reasm.insert(s, e, true);
                    self.unique_accepted += new;
                    self.ack_now |= new > 0 || self.afc_ack_duplicate(start);
                } else {
                    let had_gaps = self.reasm.has_gaps();
                    self.unique_accepted += self.reasm.insert(s, e, false);
                    clean = !had_gaps && s == start && e == end;
                    while let Some(top) = self.reasm.pop_contiguous(self.rcv_nxt) {
                        self.rcv_nxt = top;
                    }
                    if had_gaps {
                        // Filling (part of) a gap: ACK at once (RFC 5681 4.2).
                        self.ack_now = true;
                    }
                    in_order = true;
                    self.pending_ack_bytes += e - s;
                }
            }
        }
        if fin {
            match self.peer_fin_at {
                None => self.peer_fin_at = Some(end),
                Some(f) if f != end => self.stats.invalid_segments += 1,
                _ => {}
            }
            self.ack_now = true;
        }
        if let Some(f) = self.peer_fin_at {
            if f == self.rcv_nxt && !self.fin_received {
                self.fin_received = true;
                self.ack_now = true;
                if let Some(rx) = self.sprout_rx.as_deref_mut() {
                    rx.stop();
                }
            }
        }
        debug_assert_eq!(self.unique_accepted, self.rcv_nxt + self.reasm.ooo_bytes());
        if len > 0 && self.fc.observes_data() {
            let ts = seg.options.timestamps.filter(|_| self.ts_ok);
            let arrival = DataArrival {
                len,
                new_bytes: self.unique_accepted - accepted_before,
                clean,
                tsval: ts.map(|t| t.tsval),
                tsecr: ts.map(|t| t.tsecr),
                our_tsval: self.tsval(now),
            };
            let view = self.rcv_view();
            self.fc.on_data(now, &arrival, &view);
            self.sync_fc_timer();
        }
        if in_order && !self.ack_now {
            // RFC 1122 4.2.3.2 / RFC 5681 4.2: ACK every `delayed_ack_count` full-sized
            // segments' worth of bytes, else within `delayed_ack_timeout`.
            let full = self.cfg.delayed_ack_count.max(1) as u64 * self.mss as u64;
            if !self.cfg.delayed_ack || self.pending_ack_bytes >= full {
                self.ack_now = true;
            } else if !self.timers.is_armed(Timer::DelayedAck) {
                self.timers
                    .arm(Timer::DelayedAck, now + self.cfg.delayed_ack_timeout);
            }
        }
    }

    // ---------------------------------------------------------------- input: timers

    /// Fires every timer due at `now`; a call with nothing due does nothing.
    pub fn handle_timeout(&mut self, now: Instant) {
        if self.timers.take_expired(Timer::Retransmit, now) {
            self.on_rto(now);
        }
        if self.timers.take_expired(Timer::Persist, now) && self.conn == Conn::Established {
            self.probe_pending = true;
            self.persist_backoff = self.persist_backoff.saturating_add(1);
        }
        if self.timers.take_expired(Timer::DelayedAck, now) && self.conn == Conn::Established {
            self.fc.on_delayed_ack_timer(self.pending_ack_bytes);
            self.ack_now = true;
        }
        self.timers.take_expired(Timer::Pacing, now);
        if self.timers.take_expired(Timer::RackReorder, now) {
            self.on_rack_reorder_timeout(now);
        }
        if self.timers.take_expired(Timer::LossProbe, now) && self.loss_probe_allowed() {
            self.loss_probe_due = true;
        }
        if self.timers.take_expired(Timer::FlowControl, now) {
            self.fc.on_timeout(now);
            self.sync_fc_timer();
        }
        if self.timers.take_expired(Timer::CcTick, now) && self.conn == Conn::Established {
            // Thesis 4.2.2: the rate module runs on its tick even when no ACK arrives (an
            // outage); a new rate takes effect at the next `poll_transmit`.
            self.cc.on_tick(now);
        }
        if self.timers.take_expired(Timer::SproutTick, now) {
            if let Some(rx) = self.sprout_rx.as_deref_mut() {
                rx.on_tick(now);
                // Sprout's receiver sends its new forecast every tick: an ACK still held by
                // the delayed-ACK rule goes now, so the count and forecast are at most a
                // tick old (rate::sprout, "Where we depart"); so does the answer to a
                // heartbeat that arrived in the tick ("Heartbeats").
                let reply = rx.take_reply_due();
                if (self.pending_ack_bytes > 0 || reply) && self.conn == Conn::Established {
                    self.ack_now = true;
                }
            }
        }
        self.sync_timers(now);
    }

    fn on_rto(&mut self, now: Instant) {
        if self.conn == Conn::Established && !self.sb.is_empty() && self.afc_negotiated() {
            self.rto_rtx_due = true;
        }
        match self.conn {
            Conn::SynSent | Conn::SynReceived => {
                self.syn_pending = true;
                self.syn_retransmitted = true;
                self.stats.timeouts += 1;
                self.rtt.back_off();
                self.timers.arm(Timer::Retransmit, now + self.rtt.rto());
            }
            Conn::Established => {
                if self.sb.is_empty() || self.afc_on_rto(now) {
                    return;
                }
                self.stats.timeouts += 1;
                // RFC 5682 step 1: F-RTO starts unless a recovery (fast, or the conventional
                // one after an earlier timeout) is under way; a repeated timeout while
                // waiting for step 2 starts step 1 again, keeping the first snapshot.
                let frto = self.cfg.frto
                    && (self.frto.phase == FrtoPhase::AwaitFirstAck
                        || self.snd_una >= self.recover);
                if !frto {
                    self.frto.stop();
                }
                // RFC 5681 3.1: ssthresh is held when the segment already timed out once.
                // ns-2.35 TCP-Linux's `enter_loss` asks the module for ssthresh on every
                // timeout (Linux's guard on `icsk_ca_state` is commented out there).
                let ns2 = self.cfg.recovery == Recovery::Ns2Linux;
                if (self.rtt.backoff() == 0 || ns2) && !self.afc_rto_is_quiet() {
                    if frto {
                        self.frto.prior_cc = Some(Box::new(self.cc.clone()));
                    }
                    let flight = self.ssthresh_basis();
                    self.cc
                        .on_congestion_event(now, CongestionEvent::Timeout, flight, &self.rtt);
                    // RFC 3168 6.1.2: "because of a retransmit timeout, a Fast Retransmit, or
                    // in response to an ECN Notification", CWR on the next new data.
                    self.cwr_pending = self.ecn_ok;
                }
                self.sb.on_rto();
                // ns-2 TCP-Linux `timeout`: `TCP_CA_Loss`, rate halving off.
                self.ns2_loss_state = ns2;
                self.ns2_next_in_flight = 0;
                // RFC 6675 5.1 / RFC 6582: no fast recovery until everything sent so far is
                // acknowledged.
                self.in_recovery = false;
                self.recovery_cwnd = None;
                self.recover = self.snd_max();
                self.dupacks = 0;
                self.force_rtx = false;
                self.probe_at = None;
                self.rack.probe_high = None;
                self.loss_probe_due = false;
                self.timers.disarm(Timer::LossProbe);
                self.timers.disarm(Timer::RackReorder);
                if frto {
                    let front_end = self.sb.front().map_or(self.snd_una, |f| f.end());
                    self.frto.on_rto(self.snd_max(), front_end, self.snd_sack);
                }
                // RFC 6298 5.5 and 5.6.
                self.rtt.back_off();
                self.timers.arm(Timer::Retransmit, now + self.rtt.rto());
            }
            _ => {}
        }
    }

    /// Arms or disarms the retransmit and persist timers from the current state.
    fn sync_timers(&mut self, now: Instant) {
        if self.conn != Conn::Established {
            return;
        }
        // The controller's tick (only the rate modules that ask for one have it): it follows
        // the controller's own schedule, so every input re-reads it (a field read; nothing is
        // allocated). Never in the past: a tick due now fires at the next `handle_timeout`.
        if self.any_tick {
            if self.cc_ticks {
                match self.cc.next_tick() {
                    Some(at) => self.timers.arm(Timer::CcTick, at.max(now)),
                    None => self.timers.disarm(Timer::CcTick),
                }
            }
            if let Some(rx) = self.sprout_rx.as_deref() {
                match rx.next_tick() {
                    Some(at) => self.timers.arm(Timer::SproutTick, at.max(now)),
                    None => self.timers.disarm(Timer::SproutTick),
                }
            }
        }
        let probe_only = self.probe_at.is_some() && self.sb.len() == 1;
        let frozen = self.frozen();
        if frozen {
            self.freeze_high = Some(self.snd_max());
        }
        // RFC 6298 5.1/5.2: the timer runs while data is outstanding; a lone zero-window
        // probe is covered by the persist timer instead, and so is a frozen sender
        // (`zero_window_freeze`, M-TCP's persist mode). Unfrozen, the timer starts again
        // from the RTO the freeze kept (no backoff was taken during it).
        if self.sb.is_empty() || probe_only || frozen {
            self.timers.disarm(Timer::Retransmit);
            self.timers.disarm(Timer::LossProbe);
            self.timers.disarm(Timer::RackReorder);
        } else if !self.timers.is_armed(Timer::Retransmit) {
            self.timers.arm(Timer::Retransmit, now + self.rtt.rto());
        }
        // RFC 9293 3.8.6.1 (and RFC 1122 4.2.3.4's override timer): data waits, the peer's
        // window is too small to send it, and nothing is in flight to bring an update.
        let unsent = self.written - self.snd_nxt;
        let blocked = (unsent > 0
            && self.wnd_avail() < unsent.min(self.mss as u64)
            && (self.sb.is_empty() || probe_only))
            || frozen;
        if blocked {
            if !self.timers.is_armed(Timer::Persist) {
                self.timers
                    .arm(Timer::Persist, now + self.persist_interval());
            }
        } else {
            self.timers.disarm(Timer::Persist);
            self.persist_backoff = 0;
        }
    }

    /// M-TCP's persist mode (Brown and Singh 1997, section 3; the BSF paper's frozen sender,
    /// section III-D), with `zero_window_freeze`: the peer advertises a zero window while
    /// data is outstanding. The sender then keeps all its state: the retransmission timer
    /// is stopped (no timeout, no backoff, cwnd and ssthresh untouched), ACKs of the zero
    /// window are not duplicate ACKs, and the persist timer probes the window with the
    /// first unacknowledged byte. Without the key (RFC 9293 3.8.6.1) the retransmission
    /// timer keeps running under a zero window and persist starts only once nothing is
    /// outstanding. A lone classic probe byte is the classic persist rule's.
    fn frozen(&self) -> bool {
        self.cfg.zero_window_freeze
            && self.conn == Conn::Established
            && self.peer_wnd == 0
            && !self.sb.is_empty()
            && !(self.probe_at.is_some() && self.sb.len() == 1)
    }

    /// RTO-based interval doubled per unanswered probe, capped at `max_persist`.
    fn persist_interval(&self) -> Duration {
        let mut d = self.rtt.base_rto();
        for _ in 0..self.persist_backoff {
            d = d.saturating_mul(2);
            if d >= self.cfg.max_persist {
                break;
            }
        }
        d.min(self.cfg.max_persist)
    }

    // ---------------------------------------------------------------- output

    /// The next segment to send at `now`, if any. Call until `None` after every input.
    pub fn poll_transmit(&mut self, now: Instant) -> Option<Segment> {
        let out = match self.conn {
            Conn::Closed | Conn::Listen => None,
            Conn::SynSent | Conn::SynReceived => {
                if self.syn_pending {
                    Some(self.make_syn(now))
                } else {
                    None
                }
            }
            Conn::Established => {
                let mut out = None;
                if self.probe_pending {
                    self.probe_pending = false;
                    out = self.send_probe(now);
                }
                if out.is_none() {
                    out = self.send_data(now);
                }
                if out.is_none() {
                    out = self.sprout_heartbeat(now);
                }
                if out.is_none() && self.ack_now {
                    out = Some(self.make_ack(now));
                }
                out
            }
        };
        if out.is_some() {
            self.stats.segments_sent += 1;
        }
        self.sync_timers(now);
        out
    }

    /// The earliest armed deadline (retransmit, persist, delayed ACK or pacing).
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.timers.earliest()
    }

    fn tsval(&self, now: Instant) -> u32 {
        let g = self.cfg.ts_granularity.as_nanos().max(1);
        ((now.as_nanos() + self.cfg.ts_offset.as_nanos()) / g) as u32
    }

    fn make_syn(&mut self, now: Instant) -> Segment {
        self.syn_pending = false;
        let active = self.conn == Conn::SynSent;
        let mut o = TcpOptions {
            mss: Some(self.cfg.mss.min(65535) as u16),
            ..Default::default()
        };
        o.afc_permitted = self.afc_offer(active);
        o.sprout_permitted = self.cfg.cc == CcKind::Sprout && (active || self.sprout_peer_offered);
        let ws = self.cfg.window_scale && (active || self.peer_offered_ws.is_some());
        if ws {
            o.window_scale = Some(self.our_wscale);
        }
        o.sack_permitted = self.cfg.sack && (active || self.peer_offered_sack);
        if self.cfg.timestamps && (active || self.peer_offered_ts) {
            let tsecr = if active { 0 } else { self.ts_recent };
            o.timestamps = Some(Timestamps {
                tsval: self.tsval(now),
                tsecr,
            });
        }
        let mut window = self.cfg.rcv_buf_bytes.min(65535);
        if self.cfg.fc == FcKind::Rsfc && self.cfg.timestamps {
            // RSFC's window from the first segment on (it starts at its initial window, as
            // Linux's SYN-ACK offers TCP_INIT_CWND segments).
            window = window.min(self.cfg.rsfc_initial_window_pkts.max(1) as u64 * self.mss as u64);
        }
        self.adv_right = window;
        self.last_adv_wnd = window;
        if self.syn_sent_at.is_none() {
            self.syn_sent_at = Some(now);
        }
        if !self.timers.is_armed(Timer::Retransmit) {
            self.timers.arm(Timer::Retransmit, now + self.rtt.rto());
        }
        let (mut flags, ack) = if active {
            (Flags::SYN, SeqNo(0))
        } else {
            self.last_ack_sent = self.irs + 1;
            (Flags::SYN | Flags::ACK, self.irs + 1)
        };
        // RFC 3168 6.1.1: the ECN-setup SYN carries ECE and CWR; the ECN-setup SYN-ACK, sent
        // only in answer to an ECN-setup SYN, carries ECE alone. (Retransmitted SYNs keep
        // asking: the optional fallback of 6.1.1.1 for middleboxes that drop them is not
        // modelled, tcplab has none.)
        if active && self.cfg.ecn {
            flags = flags | Flags::ECE | Flags::CWR;
        } else if !active && self.ecn_ok {
            flags = flags | Flags::ECE;
        }
        Segment {
            seq: self.iss,
            ack,
            flags,
            window: window as u16,
            options: o,
            payload_len: 0,
            payload_tag: 0,
            // RFC 3168 6.1.1: SYNs and SYN-ACKs are never ECN-capable.
            ecn: crate::segment::Ecn::NotEct,
        }
    }

    fn wnd_avail(&self) -> u64 {
        (self.snd_una + self.flow_window()).saturating_sub(self.snd_nxt)
    }

    fn send_probe(&mut self, now: Instant) -> Option<Segment> {
        if self.frozen() {
            // M-TCP's persist probe with data outstanding: the first unacknowledged byte
            // again. Delivered or not, it draws an ACK carrying the receiver's window (a
            // duplicate, in-order data, or data beyond a zero window: RFC 9293 3.10.7.4).
            // Its segment counts as retransmitted for Karn's rule, and stays out of the pipe.
            let f = *self.sb.front().expect("frozen with data outstanding");
            self.sb.touch(0, now);
            self.stats.zero_window_probes_sent += 1;
            let len = f.len.min(1);
            return Some(self.data_segment(now, f.start, len, f.fin && f.len <= 1));
        }
        if let Some(p) = self.probe_at {
            if self.sb.front().is_some_and(|f| f.start == p) {
                // Repeat the same probe byte; it stays out of the pipe accounting.
                self.sb.touch(0, now);
                let s = *self.sb.get(0);
                self.stats.zero_window_probes_sent += 1;
                return Some(self.data_segment(now, s.start, s.len, s.fin));
            }
            self.probe_at = None;
        }
        let unsent = self.written - self.snd_nxt;
        if unsent == 0 || !self.sb.is_empty() {
            return None;
        }
        let wnd = self.wnd_avail();
        if wnd == 0 {
            // RFC 9293 3.8.6.1: probe a zero window with one byte of new data.
            self.probe_at = Some(self.snd_nxt);
            self.stats.zero_window_probes_sent += 1;
            Some(self.send_new(now, 1))
        } else {
            // RFC 1122 4.2.3.4 override: send what the small window allows.
            let len = unsent.min(self.mss as u64).min(wnd);
            Some(self.send_new(now, len as u32))
        }
    }

    /// RFC 6675 NextSeg() (rules 1-3) under cwnd, the peer's window and Nagle/SWS.
    fn send_data(&mut self, now: Instant) -> Option<Segment> {
        if let Some(rate) = self.cc.pacing_rate() {
            // Thesis 4.3.1: rate-paced, not ACK-clocked; the rounding of the send times
            // follows the state (up in Buffer Fill, down in Drain and Monitor).
            let at = self.pacer.next_send_time(self.cc.pacing_rounding(), rate);
            let rto_rtx = self.rto_rtx_due && self.sb.next_lost().is_some();
            if now < at && !rto_rtx {
                if at != Instant::MAX
                    && (self.written > self.snd_nxt
                        || self.force_rtx
                        || self.sb.pipe() < self.sb.flight_size())
                {
                    self.timers.arm(Timer::Pacing, at);
                }
                return None;
            }
        }
        if self.afc_burst_hold(now) {
            return None;
        }
        match self.frto.phase {
            FrtoPhase::Idle => {}
            FrtoPhase::AwaitFirstAck => {
                // RFC 5682 step 1: only the first unacknowledged segment, once, until the
                // first ACK tells whether the timeout may be spurious.
                if self.frto.rtx_due {
                    if let Some(i) = self.sb.next_lost() {
                        if self.afc_rtx_allowed(i) {
                            self.frto.rtx_due = false;
                            return Some(self.retransmit(now, i));
                        }
                    }
                }
                return None;
            }
            FrtoPhase::AwaitSecondAck => {
                // Step 2b: up to two new segments instead of retransmissions (RFC 5681
                // allows them: the sender only chooses other segments to send).
                if self.frto.quota > 0 {
                    if let Some(seg) = self.frto_send_new(now) {
                        self.frto.quota -= 1;
                        return Some(seg);
                    }
                }
                return None;
            }
        }
        if std::mem::take(&mut self.loss_probe_due) && self.loss_probe_allowed() {
            if let Some(seg) = self.send_loss_probe(now) {
                return Some(seg);
            }
        }
        let avail = self.cwnd().saturating_sub(self.sb.pipe());
        if self.force_rtx {
            self.force_rtx = false;
            if let Some(i) = self.sb.next_lost() {
                return Some(self.retransmit(now, i));
            }
        }
        // Rule 1: the first lost segment.
        if let Some(i) = self.sb.next_lost() {
            let l = self.sb.get(i).len as u64;
            if (l == 0 || avail >= l.min(self.mss as u64)) && self.afc_rtx_allowed(i) {
                return Some(self.retransmit(now, i));
            }
            return None;
        }
        // Rule 2: new data.
        let unsent = self.written - self.snd_nxt;
        let mss = self.mss as u64;
        if unsent == 0 {
            if self.fin_queued && !self.fin_sent {
                let seg = self.send_new(now, 0);
                self.schedule_loss_probe(now);
                return Some(seg);
            }
        } else {
            let len = unsent.min(mss).min(self.wnd_avail());
            if len > 0 && avail < unsent.min(mss) {
                // Data and the peer's window are there, the congestion window is not.
                self.cwnd_validate(true);
            }
            // cwnd must hold a full segment, or all the remaining data if that is smaller.
            if len > 0 && avail >= unsent.min(mss) {
                let idle = self.sb.is_empty() || !self.cfg.nagle;
                // RFC 1122 4.2.3.4 sender SWS avoidance (with Nagle when enabled):
                // a full segment, or all queued data, or at least half the largest window.
                let ok =
                    len >= mss || (idle && len == unsent) || (idle && len >= self.max_peer_wnd / 2);
                if ok {
                    let seg = self.send_new(now, len as u32);
                    // Linux `tcp_write_xmit`: new data (re)schedules the probe timeout.
                    self.schedule_loss_probe(now);
                    return Some(seg);
                }
            }
        }
        // Rule 3: in SACK recovery, an un-SACKed segment below the highest SACK.
        if self.in_recovery
            && self.snd_sack
            && avail >= mss
            && self.cfg.recovery != Recovery::Ns2Linux
        {
            if let Some(i) = self.sb.next_rule3() {
                return Some(self.retransmit(now, i));
            }
        }
        None
    }

    fn send_new(&mut self, now: Instant, len: u32) -> Segment {
        let start = self.snd_nxt;
        let fin = self.fin_queued && start + len as u64 == self.written;
        self.sb.push(SentSeg {
            start,
            len,
            fin,
            sent_at: now,
            sacked: false,
            lost: false,
            rtx_in_pipe: false,
            retransmitted: false,
            tx_order: 0,
            ns2_rtx_id: 0,
        });
        self.snd_nxt += len as u64;
        self.fin_sent |= fin;
        self.ns2_after_send();
        if matches!(
            self.cfg.rtt_source,
            RttSource::OnePerRtt | RttSource::Ns2Linux
        ) && self.timed_segment.is_none()
            && len > 0
        {
            self.timed_segment = Some((self.snd_nxt, now));
        }
        self.cc.on_packet_sent(now, len, self.sb.pipe(), false);
        if self.cfg.cwnd_limited_growth {
            let full = self.sb.pipe() >= self.cwnd();
            self.cwnd_validate(full);
        }
        let mut seg = self.data_segment(now, start, len, fin);
        // RFC 3168 6.1.5 and 6.1.6: only new data is ECT. A bare FIN has no data (as Linux,
        // which marks only segments with payload) and a zero-window probe must not be ECT
        // (6.1.6: a CE mark on it could not be acted on; `send_probe` sets `probe_at`
        // before calling us).
        if self.ecn_ok && len > 0 && self.probe_at != Some(start) {
            seg.ecn = Ecn::Ect0;
            self.stats.ecn_ect_sent += 1;
            // 6.1.2: "the TCP sender sets the CWR flag in the TCP header of the first new
            // data packet sent after the window reduction".
            if self.cwr_pending {
                self.cwr_pending = false;
                seg.flags = seg.flags | Flags::CWR;
                self.stats.ecn_cwr_sent += 1;
            }
        }
        seg
    }

    /// RFC 3168 6.1.5: a retransmission is never ECT (nor carries CWR): the segment was
    /// probably dropped, and a drop is the signal to react to. `data_segment` leaves it
    /// Not-ECT.
    fn retransmit(&mut self, now: Instant, i: usize) -> Segment {
        self.rto_rtx_due = false;
        // ns-2's `reset_rtx_timer` (timeout and fast retransmit alike): Karn's rule for the
        // one timed segment.
        self.timed_segment = None;
        self.sb.on_retransmit(i, now);
        self.ns2_after_send();
        let s = *self.sb.get(i);
        self.stats.retransmitted_segments += 1;
        self.stats.retransmitted_bytes += s.len as u64;
        self.cc.on_packet_sent(now, s.len, self.sb.pipe(), true);
        self.data_segment(now, s.start, s.len, s.fin)
    }

    fn data_segment(&mut self, now: Instant, start: u64, len: u32, fin: bool) -> Segment {
        let mut seg = Segment {
            seq: self.snd_seq(start),
            flags: if fin {
                Flags::ACK | Flags::FIN
            } else {
                Flags::ACK
            },
            payload_len: len,
            payload_tag: if len > 0 { payload_tag(start, len) } else { 0 },
            ..Default::default()
        };
        if len > 0 {
            self.stats.data_segments_sent += 1;
            self.stats.data_bytes_sent += len as u64;
            if self.in_recovery {
                self.prr.on_sent(len as u64);
            }
        }
        self.finish(now, &mut seg);
        if len > 0 && matches!(self.cc, Cc::Sprout(_)) && !self.sprout_flight_continues() {
            seg.flags = seg.flags | Flags::PSH;
        }
        if !self.timers.is_armed(Timer::Retransmit) && self.probe_at.is_none() {
            // RFC 6298 5.1.
            self.timers.arm(Timer::Retransmit, now + self.rtt.rto());
        }
        if let Some(rate) = self.cc.pacing_rate() {
            // Payload bytes: the framework's rates are payload rates (rho counts payload).
            self.pacer.on_sent(now, len as u64, rate);
        }
        self.afc_after_send(now);
        seg
    }

    /// Sprout's sender: will another segment go right after this one (the window and the
    /// data allow it)? If not, this one ends the flight and carries PSH (rate::sprout,
    /// "Censoring": the implementation's `time_to_next` of zero or not).
    fn sprout_flight_continues(&mut self) -> bool {
        let avail = self.cwnd().saturating_sub(self.sb.pipe());
        let unsent = self.written - self.snd_nxt;
        let mss = self.mss as u64;
        (self.sb.next_lost().is_some() && avail >= mss)
            || (unsent > 0 && self.wnd_avail() > 0 && avail >= unsent.min(mss))
    }

    /// Sprout's heartbeat (rate::sprout, "Heartbeats"): after 50 ms in which nothing was
    /// sent, an empty segment (the implementation's bulk sender sends a packet of no data)
    /// marked PSH, the end of a flight of nothing, which the receiver counts and answers
    /// with its forecast. At SND.NXT with no payload it takes no sequence space and no
    /// retransmission; RFC 9293 accepts it as any pure ACK. It carries our ACK, so it
    /// replaces an ACK that is due.
    fn sprout_heartbeat(&mut self, now: Instant) -> Option<Segment> {
        let Cc::Sprout(s) = &mut self.cc else {
            return None;
        };
        if !s.heartbeat_due() || self.fin_sent {
            return None;
        }
        s.on_heartbeat_sent(now);
        let mut seg = Segment {
            seq: self.snd_seq(self.snd_nxt),
            flags: Flags::ACK | Flags::PSH,
            ..Default::default()
        };
        self.finish(now, &mut seg);
        Some(seg)
    }

    fn make_ack(&mut self, now: Instant) -> Segment {
        let mut seg = Segment {
            seq: self.snd_seq(self.snd_max()),
            flags: Flags::ACK,
            ..Default::default()
        };
        self.stats.acks_sent += 1;
        if self.window_update_due {
            self.stats.window_updates_sent += 1;
        }
        self.finish(now, &mut seg);
        seg
    }

    /// Fills ACK, window and options; every segment carries the current ACK.
    fn finish(&mut self, now: Instant, seg: &mut Segment) {
        seg.ack = self.rcv_ack_seq();
        seg.window = self.window_field();
        if self.ts_ok {
            seg.options.timestamps = Some(Timestamps {
                tsval: self.tsval(now),
                tsecr: self.ts_recent,
            });
        }
        // AFC's rate option first: the SACK blocks take the option space that is left
        // (they were sized before it, and an ACK could carry 44 bytes of options).
        self.fc.fill_option(seg, &mut self.stats);
        if let Some(rx) = self.sprout_rx.as_deref() {
            // Sprout's forecast on every segment once there is one (before the SACK blocks,
            // like AFC's option).
            seg.options.set_sprout(rx.option());
        }
        if self.sack_ok && self.reasm.has_gaps() {
            let mut blocks = [(0u64, 0u64); 4];
            let n = self.reasm.sack_blocks(
                seg.options
                    .max_sack_blocks()
                    .min(self.cfg.max_sack_blocks as usize),
                &mut blocks,
            );
            for &(s, e) in &blocks[..n] {
                seg.options.push_sack(SackBlock {
                    start: self.rcv_seq(s),
                    end: self.rcv_seq(e),
                });
            }
        }
        if self.ece_pending {
            // RFC 3168 6.1.3: ECE on every ACK (data segments included) until CWR arrives.
            seg.flags = seg.flags | Flags::ECE;
            self.stats.ecn_ece_sent += 1;
        }
        self.last_ack_sent = seg.ack;
        self.ack_now = false;
        self.window_update_due = false;
        self.pending_ack_bytes = 0;
        self.timers.disarm(Timer::DelayedAck);
    }

    /// The window to advertise now, with receiver SWS avoidance (RFC 1122 4.2.3.3): the
    /// right edge advances only when it can move by min(rcv_buf / 2, MSS), and never
    /// retreats; when the scale factor would round it back, it is rounded up instead
    /// (RFC 7323 2.4 allows extending).
    fn window_field(&mut self) -> u16 {
        // A policy's smaller edge (RSFC's clamp) is offered as data fills the window.
        let mut edge = self.fc.right_edge(&self.rcv_view());
        if self.cfg.window_granularity == WindowGranularity::Segments {
            // ns-2's windows count packets: the space for a partial segment is not offered.
            let mss = self.mss as u64;
            edge = self.rcv_nxt + edge.saturating_sub(self.rcv_nxt) / mss * mss;
        }
        let edge = edge.max(self.adv_right).max(self.rcv_nxt);
        let ws = self.rcv_wscale as u32;
        let mut field = (edge - self.rcv_nxt) >> ws;
        if self.rcv_nxt + (field << ws) < self.adv_right {
            field += 1;
        }
        let field = field.min(65535);
        let wnd = field << ws;
        debug_assert!(
            self.rcv_nxt + wnd >= self.adv_right,
            "advertised right edge moved left"
        );
        self.adv_right = self.adv_right.max(self.rcv_nxt + wnd);
        if wnd == 0 && self.last_adv_wnd != 0 {
            self.stats.zero_windows_advertised += 1;
        }
        self.last_adv_wnd = wnd;
        field as u16
    }

    // ---------------------------------------------------------------- application

    /// Accepts up to `bytes` virtual bytes into the send buffer; returns how many.
    pub fn write(&mut self, now: Instant, bytes: u64) -> u64 {
        if self.fin_queued || self.conn == Conn::Closed {
            return 0;
        }
        let n = bytes.min(self.send_buffer_free());
        self.written += n;
        self.sync_timers(now);
        n
    }

    /// Queues a FIN after all written data.
    pub fn close(&mut self, now: Instant) {
        self.fin_queued = true;
        self.sync_timers(now);
    }

    /// Hands the next in-order bytes (up to `max`) to the application, freeing buffer space.
    pub fn read(&mut self, now: Instant, max: u64) -> Option<ReadChunk> {
        let n = (self.rcv_nxt - self.read_off).min(max);
        if n == 0 {
            return None;
        }
        let chunk = ReadChunk {
            offset: self.read_off,
            len: n,
        };
        self.read_off += n;
        self.stats.bytes_read += n;
        let view = self.rcv_view();
        let established = self.conn == Conn::Established && !self.fin_received;
        let action = self.fc.on_read(now, n, &view, established);
        if let Some(at) = action.ack_by {
            // A policy's ACK (AFC's proactive ACK) rides the delayed-ACK timer.
            let at = self.timers.get(Timer::DelayedAck).map_or(at, |d| d.min(at));
            self.timers.arm(Timer::DelayedAck, at);
        }
        if action.window_update {
            // Unsolicited window update (RFC 9293 3.8.6.2.2, the rule in the policy).
            self.window_update_due = true;
            self.ack_now = true;
        }
        self.sync_timers(now);
        Some(chunk)
    }

    pub fn readable_bytes(&self) -> u64 {
        self.rcv_nxt - self.read_off
    }

    pub fn state(&self) -> EndpointState {
        match self.conn {
            Conn::Closed => EndpointState::Closed,
            Conn::Listen => EndpointState::Listen,
            Conn::SynSent => EndpointState::SynSent,
            Conn::SynReceived => EndpointState::SynReceived,
            Conn::Established => {
                if self.fin_acked && self.fin_received {
                    EndpointState::Done
                } else if self.fin_received {
                    EndpointState::CloseWait
                } else if self.fin_sent {
                    EndpointState::FinWait
                } else {
                    EndpointState::Established
                }
            }
        }
    }

    pub fn stats(&self) -> &TcpStats {
        &self.stats
    }

    /// The sending window in bytes: the CC's window, or the inflated window during NewReno
    /// (RFC 6582) or Reno (RFC 5681 3.2) recovery, plus RFC 3042 limited transmit on the
    /// first duplicate ACKs.
    pub fn cwnd(&self) -> u64 {
        if let Some(c) = self.recovery_cwnd {
            return c;
        }
        if self.in_recovery {
            if let Some(w) = self.prr.window() {
                return w;
            }
        }
        let mut c = self.cc.congestion_window();
        if self.cfg.recovery == Recovery::Ns2Linux {
            // tcp-linux.cc `send_much`: `packets_in_flight() < max(win, next_pkts_in_flight_)`;
            // no limited transmit.
            return c.max(self.ns2_next_in_flight);
        }
        // (Not for Sprout: its window is the forecast's, as in recovery; reported as pipe
        // plus what the forecast allows, it grows with every segment sent, so two segments
        // more than it was a whole send buffer more.)
        if !self.snd_sack
            && !self.in_recovery
            && self.dupacks < self.cfg.dupack_threshold
            && self.snd_una >= self.recover
            && !matches!(self.cc, Cc::Sprout(_))
        {
            c += self.dupacks.min(2) as u64 * self.mss as u64;
        }
        c
    }

    /// RFC 6675 pipe: bytes believed in the network (retransmissions counted).
    pub fn bytes_in_flight(&self) -> u64 {
        self.sb.pipe()
    }

    pub fn peer_window(&self) -> u64 {
        self.peer_wnd
    }

    pub fn advertised_window(&self) -> u64 {
        self.last_adv_wnd
    }

    pub fn srtt(&self) -> Option<Duration> {
        self.rtt.srtt
    }

    pub fn send_buffer_free(&self) -> u64 {
        let unacked = self.written - self.snd_una.min(self.written);
        self.cfg.snd_buf_bytes.saturating_sub(unacked)
    }

    pub fn all_data_acked(&self) -> bool {
        self.snd_una >= self.written && (!self.fin_queued || self.fin_acked)
    }

    // ---------------------------------------------------------------- introspection

    /// The RTT estimator (congestion controllers and tracing read it).
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }

    /// The congestion controller (tests and tracing read its state).
    /// Whether Sprout's option was negotiated (both ends `cc = "sprout"`).
    pub fn sprout_negotiated(&self) -> bool {
        self.sprout_ok
    }

    /// The congestion controller that runs (issue 35): the configured one, or CUBIC when
    /// the handshake left a rate-based or Sprout sender without what it reads; the
    /// configured one before the connection is established.
    pub fn cc_effective(&self) -> CcKind {
        self.cc_effective
    }

    /// Why [`Endpoint::cc_effective`] differs from the configured `cc` (None when it does
    /// not).
    pub fn cc_fallback(&self) -> Option<&'static str> {
        self.cc_fallback
    }

    /// The receiver policy that runs (issue 35): the configured `fc`, or classic when the
    /// handshake left RSFC without timestamps or AFC without the peer's option; the
    /// configured one before the connection is established.
    pub fn fc_effective(&self) -> FcKind {
        self.fc_effective.unwrap_or(self.cfg.fc)
    }

    /// Why [`Endpoint::fc_effective`] differs from the configured `fc` (None when it does
    /// not).
    pub fn fc_fallback(&self) -> Option<&'static str> {
        if self.fc_effective() == self.cfg.fc {
            return None;
        }
        Some(match self.cfg.fc {
            FcKind::Rsfc if self.cfg.timestamps => {
                "the peer's SYN carried no timestamp option: RSFC reads delays off TCP \
                 timestamps (RSFC paper III-D)"
            }
            FcKind::Rsfc => {
                "timestamps off: RSFC reads delays off TCP timestamps (RSFC paper III-D)"
            }
            FcKind::Afc => {
                "the peer did not offer AFC: AFC is used only when both ends agree (AFC paper \
                 4.2.1)"
            }
            FcKind::Classic => "classic flow control did not run",
        })
    }

    /// Sprout's receiver half, once the connection negotiated it.
    pub fn sprout_receiver(&self) -> Option<&SproutReceiver> {
        self.sprout_rx.as_deref()
    }

    pub fn congestion_control(&self) -> &Cc {
        &self.cc
    }

    /// The congestion controller's slow-start threshold.
    pub fn ssthresh(&self) -> u64 {
        self.cc.ssthresh()
    }

    /// Whether fast recovery (RFC 6675, RFC 6582 or RFC 5681 3.2) is in progress.
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    /// The negotiated effective MSS.
    pub fn mss(&self) -> u32 {
        self.mss
    }

    /// The configuration this endpoint was created with.
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }

    /// Whether ECN is in use on this connection (RFC 3168 6.1.1: both ends asked).
    pub fn ecn_negotiated(&self) -> bool {
        self.ecn_ok
    }

    /// Negotiated options: (SACK, timestamps, our receive shift, peer's shift).
    pub fn negotiated(&self) -> (bool, bool, u8, u8) {
        (self.sack_ok, self.ts_ok, self.rcv_wscale, self.snd_wscale)
    }

    /// The right edge of the window we advertised, as a stream offset (never decreases).
    pub fn rcv_right_edge(&self) -> u64 {
        self.adv_right
    }

    /// A deadline of one timer (dialogue tests).
    pub fn timer(&self, t: Timer) -> Option<Instant> {
        self.timers.get(t)
    }

    /// Checks internal invariants; the error names the first one violated.
    pub fn check_invariants(&self, now: Instant) -> Result<(), String> {
        for t in Timer::ALL {
            if let Some(d) = self.timers.get(t) {
                if d < now {
                    return Err(format!("{t:?} timer armed in the past: {d:?} < {now:?}"));
                }
            }
        }
        if self.conn != Conn::Established {
            return Ok(());
        }
        self.sb.check(self.snd_una, self.snd_max())?;
        if self.sb.pipe() > 2 * self.sb.flight_size() {
            return Err(format!(
                "pipe {} exceeds twice the flight {}",
                self.sb.pipe(),
                self.sb.flight_size()
            ));
        }
        if self.unique_accepted != self.rcv_nxt + self.reasm.ooo_bytes() {
            return Err(format!(
                "reassembly: accepted {} != delivered {} + buffered {}",
                self.unique_accepted,
                self.rcv_nxt,
                self.reasm.ooo_bytes()
            ));
        }
        // The advertised window never exceeds the free buffer: no policy asks for more, and
        // without window scaling none is offered. (With scaling, keeping the right edge
        // while rcv_nxt moves by less than a unit rounds it up, RFC 7323 2.4, as Linux's
        // `tcp_select_window` does: the edge can creep past the buffer by a few units.)
        let buffer_edge = self.read_off + self.cfg.rcv_buf_bytes;
        let asked = self.fc.right_edge(&self.rcv_view());
        if asked > buffer_edge.max(self.adv_right) {
            return Err(format!(
                "{} asks for right edge {asked} beyond the buffer's {buffer_edge}",
                self.fc.name()
            ));
        }
        if self.rcv_wscale == 0
            && self.adv_right > buffer_edge.max(self.cfg.rcv_buf_bytes.min(65535))
        {
            return Err(format!(
                "advertised right edge {} beyond the buffer's {buffer_edge}",
                self.adv_right
            ));
        }
        if let Some(&(_, e)) = self.reasm.ranges().last() {
            // With AFC the sender may exceed the advertised edge, never the buffer.
            if e > self.rcv_limit() {
                return Err(format!(
                    "out-of-order data at {e} beyond right edge {}",
                    self.rcv_limit()
                ));
            }
        }
        if self.snd_una > self.snd_max() || self.snd_nxt > self.written {
            return Err("sender positions out of order".into());
        }
        Ok(())
    }
}
