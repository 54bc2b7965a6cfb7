//! BSF, Buffer State based Flow control (Choi, Yoo and Yoo; BSF paper section III), as a
//! node element at the base station.
//!
//! On each packet arriving for the wireless link (the TCP buffer), BSF updates the average
//! buffer length `avg = (1 - w) avg + w q` (eq. 1, q the instantaneous queue in packets).
//! Below `BSF_thresh` it collects, per flow, what it needs to forge an ACK; below
//! `FLUSH_thresh` it sends a zero-window advertisement (ZWA) to every collected sender
//! whose recent packets carried no ECN signal and forgets what it collected (Fig. 4). The
//! sender enters persist mode with its congestion window intact and resumes when a probe,
//! or the receiver's next ACK, brings an open window.
//!
//! Thresholds (eqs. 2-5): `TCP_buff = TOTAL_buff - UDP_buff`,
//! `BSF_thresh = N + ceil(TCP_buff / N)`, `FLUSH_thresh = floor(N - ceil(TCP_buff / N))`,
//! and `FLUSH_thresh < BSF_thresh < TCP_buff` must hold (checked when the scenario is
//! validated).
//!
//! What the paper leaves open, decided here (each a parameter where it is a number):
//! - The forged ACK acknowledges only what the receiver itself acknowledged last: its
//!   sequence and acknowledgement numbers (and timestamps) are those of the latest ACK the
//!   receiver sent through the base station, with a zero window. The paper collects "the
//!   most recent TCP sequence number ... for sending an ACK"; acknowledging data the
//!   receiver has not acknowledged would break the end-to-end semantics the paper keeps
//!   (section II-A). With the receiver's own numbers the ZWA is a window update the sender
//!   accepts (RFC 9293 3.10.7.4: SND.UNA <= SEG.ACK <= SND.NXT, and SND.WL1/WL2 no newer),
//!   and not a duplicate ACK (RFC 5681: the window changed).
//! - "ECN bit history": the last n packets of the flow seen at the base station, data
//!   carrying CE or ACKs carrying ECE (the receiver's echo of a CE mark anywhere on the
//!   path, the base station's own RED included).
//! - A flow record is collected from the flow's data packets (and kept fresh by them); one
//!   whose last data packet is older than `record_ttl` at a flush is dropped unused.
//! - `zwa_copies` ZWAs per flow per flush (default one).

use super::{Actions, Arrival, Element, Fate, Forged, NodeView};
use crate::config::BsfSpec;
use crate::packet::Packet;
use tcplab_core::{Duration, Flags, Instant, Segment, TcpOptions, Timestamps};

/// The thresholds of eqs. 2-4, in packets.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Thresholds {
    pub tcp_buffer: u64,
    pub bsf: f64,
    pub flush: f64,
}

impl Thresholds {
    /// Eqs. 2-4, with explicit thresholds taking the place of the formulas; errors name
    /// the key and the values when eq. 5 fails.
    pub fn new(spec: &BsfSpec, total_buffer: u64, sessions: u64) -> Result<Thresholds, String> {
        if spec.udp_buffer >= total_buffer {
            return Err(format!(
                "udp_buffer ({}) must be smaller than total_buffer ({total_buffer}): eq. 2 leaves no TCP buffer",
                spec.udp_buffer
            ));
        }
        let tcp_buffer = total_buffer - spec.udp_buffer;
        let n = sessions.max(1);
        let share = tcp_buffer.div_ceil(n) as f64;
        let bsf = spec.bsf_thresh.unwrap_or(n as f64 + share);
        let flush = spec.flush_thresh.unwrap_or((n as f64 - share).floor());
        if !(flush < bsf && bsf < tcp_buffer as f64) {
            return Err(format!(
                "thresholds must satisfy FLUSH_thresh < BSF_thresh < TCP_buff (eq. 5); with N = {n} \
                 sessions and TCP_buff = {tcp_buffer} packets they are FLUSH_thresh = {flush}, \
                 BSF_thresh = {bsf} (set bsf_thresh and flush_thresh, or change the buffer)"
            ));
        }
        if flush <= 0.0 {
            return Err(format!(
                "FLUSH_thresh = {flush} packets: the average buffer can never fall below it, so BSF \
                 would never act (N = {n}, TCP_buff = {tcp_buffer}: eq. 4 needs TCP_buff <= N(N-1))"
            ));
        }
        Ok(Thresholds {
            tcp_buffer,
            bsf,
            flush,
        })
    }
}

/// What BSF knows of one flow.
#[derive(Copy, Clone, Default)]
struct FlowRecord {
    /// Collected (between the thresholds) since the last flush.
    collected: bool,
    /// The flow's latest data packet at the base station.
    last_data: Instant,
    /// The receiver's latest ACK through the base station (None: none seen yet).
    last_ack: Option<Segment>,
    /// ECN signals of the flow's last packets, newest in bit 0.
    ecn_bits: u32,
    /// How many packets `ecn_bits` covers (saturating at the history length).
    ecn_seen: u32,
}

#[derive(Copy, Clone, Default, serde::Serialize)]
struct BsfStats {
    /// Packets for the wireless link that updated the average.
    arrivals: u64,
    /// Arrivals with avg below BSF_thresh (collecting) and below FLUSH_thresh.
    below_bsf: u64,
    below_flush: u64,
    /// Flushes that sent at least one ZWA, and the ZWAs sent.
    flushes: u64,
    zwas_sent: u64,
    /// Collected flows left out of a flush: an ECN signal in their history, no ACK seen
    /// yet to copy numbers from, or a stale record.
    skipped_ecn: u64,
    skipped_no_ack: u64,
    skipped_stale: u64,
}

pub struct Bsf {
    link: u32,
    weight: f64,
    th: Thresholds,
    history: u32,
    copies: u32,
    ttl: Duration,
    avg: f64,
    flows: Vec<FlowRecord>,
    /// Flows collected since the last flush, in the order first collected (a flush walks
    /// these, not every flow of the run).
    collected: Vec<u32>,
    stats: BsfStats,
}

impl Bsf {
    pub fn new(spec: &BsfSpec, link: u32, th: Thresholds, n_flows: usize) -> Bsf {
        Bsf {
            link,
            weight: spec.weight,
            th,
            history: spec.ecn_history,
            copies: spec.zwa_copies,
            ttl: spec.record_ttl,
            avg: 0.0,
            flows: vec![FlowRecord::default(); n_flows],
            collected: Vec::new(),
            stats: BsfStats::default(),
        }
    }

    /// The current average buffer length (eq. 1), in packets.
    pub fn avg(&self) -> f64 {
        self.avg
    }

    fn note_ecn(&mut self, f: usize, signal: bool) {
        if self.history == 0 {
            return;
        }
        let r = &mut self.flows[f];
        let mask = if self.history >= 32 {
            u32::MAX
        } else {
            (1u32 << self.history) - 1
        };
        r.ecn_bits = ((r.ecn_bits << 1) | signal as u32) & mask;
        r.ecn_seen = (r.ecn_seen + 1).min(self.history);
    }

    /// Sends a ZWA to every collected flow that qualifies, and forgets the collection.
    fn flush(&mut self, now: Instant, act: &mut Actions) {
        let mut sent_any = false;
        for i in 0..self.collected.len() {
            let f = self.collected[i] as usize;
            let r = &mut self.flows[f];
            r.collected = false;
            if r.ecn_bits != 0 {
                self.stats.skipped_ecn += 1;
                continue;
            }
            if now.saturating_since(r.last_data) > self.ttl {
                self.stats.skipped_stale += 1;
                continue;
            }
            let Some(ack) = r.last_ack else {
                self.stats.skipped_no_ack += 1;
                continue;
            };
            let seg = zero_window_ack(&ack);
            for _ in 0..self.copies {
                act.emit(Forged {
                    flow: f as u32,
                    from_sender: false,
                    seg,
                });
                self.stats.zwas_sent += 1;
            }
            sent_any = true;
        }
        self.collected.clear();
        self.stats.flushes += sent_any as u64;
    }
}

/// The receiver's latest ACK with its window closed: the same sequence and acknowledgement
/// numbers and timestamps (so PAWS and the window-update rules accept it), no SACK blocks
/// (they would repeat old news), no payload, not ECN-capable (RFC 3168: pure ACKs are not).
fn zero_window_ack(ack: &Segment) -> Segment {
    let mut options = TcpOptions::default();
    if let Some(Timestamps { tsval, tsecr }) = ack.options.timestamps {
        options.timestamps = Some(Timestamps { tsval, tsecr });
    }
    Segment {
        seq: ack.seq,
        ack: ack.ack,
        // An ECE the receiver is echoing stays: the ZWA must not hide a congestion signal.
        flags: Flags(Flags::ACK.0 | (ack.flags.0 & Flags::ECE.0)),
        window: 0,
        options,
        payload_len: 0,
        payload_tag: 0,
        ecn: tcplab_core::Ecn::NotEct,
    }
}

impl Element for Bsf {
    fn kind(&self) -> &'static str {
        "bsf"
    }

    fn on_packet(
        &mut self,
        now: Instant,
        pkt: &mut Packet,
        at: Arrival,
        view: &dyn NodeView,
        act: &mut Actions,
    ) -> Fate {
        let f = pkt.flow as usize;
        if !pkt.from_sender {
            // The receiver's ACKs on their way back: the numbers a ZWA must carry.
            if !pkt.seg.flags.syn() && pkt.seg.flags.ack() {
                self.flows[f].last_ack = Some(pkt.seg);
                self.note_ecn(f, pkt.seg.flags.ece());
            }
            return Fate::Forward;
        }
        if at.next_link != Some(self.link) {
            return Fate::Forward;
        }
        // Fig. 4, for each packet arriving at the TCP buffer.
        self.stats.arrivals += 1;
        let q = view.queue_packets(self.link) as f64;
        self.avg = (1.0 - self.weight) * self.avg + self.weight * q;
        self.note_ecn(f, pkt.seg.ecn == tcplab_core::Ecn::Ce);
        if pkt.seg.payload_len > 0 {
            self.flows[f].last_data = now;
        }
        if self.avg < self.th.bsf {
            self.stats.below_bsf += 1;
            if self.avg < self.th.flush {
                self.stats.below_flush += 1;
                if !self.collected.is_empty() {
                    self.flush(now, act);
                }
            } else if pkt.seg.payload_len > 0 && !self.flows[f].collected {
                self.flows[f].collected = true;
                self.collected.push(f as u32);
            }
        }
        Fate::Forward
    }

    fn report(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self.stats).expect("plain counters");
        let o = v.as_object_mut().expect("a struct");
        o.insert("tcp_buffer".into(), self.th.tcp_buffer.into());
        o.insert("bsf_thresh".into(), self.th.bsf.into());
        o.insert("flush_thresh".into(), self.th.flush.into());
        o.insert("final_avg".into(), self.avg.into());
        v
    }
}
