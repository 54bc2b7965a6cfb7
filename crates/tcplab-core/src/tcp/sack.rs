//! The sender's scoreboard (RFC 6675 sections 2-4): one record per transmitted segment,
//! the pipe estimate kept incrementally, IsLost() via DupThresh, and the NextSeg() rules.
//! Positions are 64-bit stream offsets (0 = first byte after the SYN); a FIN occupies one
//! position after the last data byte.

use crate::time::{Duration, Instant};
use std::collections::VecDeque;

/// What counts in the pipe (scenario key `pipe_rule`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PipeRule {
    /// RFC 6675 SetPipe(): no SACKed octet is in the pipe.
    #[default]
    Rfc6675,
    /// ns-3 3.44 `TcpTxBuffer::BytesInFlight()` = sent - (SACKed + lost) + retransmitted:
    /// SACKing a segment does not clear its retransmitted flag, so a retransmission
    /// stays in flight until the cumulative ACK passes it or a timeout resets the flags
    /// (`SetSentListLost`). A sender whose retransmission was itself lost and SACKed
    /// around then sends less than RFC 6675 allows.
    Ns3,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SentSeg {
    pub start: u64,
    /// Payload bytes.
    pub len: u32,
    pub fin: bool,
    /// Time of the latest transmission.
    pub sent_at: Instant,
    pub sacked: bool,
    /// IsLost() held (or an RTO declared it lost).
    pub lost: bool,
    /// Retransmitted since it was last declared lost: counts in pipe again
    /// (RFC 6675 SetPipe rule (b), "S1 <= HighRxt").
    pub rtx_in_pipe: bool,
    /// Ever retransmitted: Karn's rule forbids RTT samples from it.
    pub retransmitted: bool,
    /// Position of the latest transmission in the order of all transmissions (set by the
    /// scoreboard): RACK's "sent after" (RFC 8985 6.2) without ties, where RFC 8985 breaks
    /// a tie of send times by end sequence; a simulator sends many segments at one instant,
    /// retransmissions after new data as often as before.
    pub tx_order: u64,
    /// `recovery = "ns2_linux"` only: the id of the latest retransmission (ns-2.35
    /// `ScoreBoardNode1::retran_`, from the scoreboard's running `rtx_id_`; set by
    /// [`Scoreboard::on_retransmit`]).
    pub ns2_rtx_id: u64,
}

impl SentSeg {
    pub fn end(&self) -> u64 {
        self.start + self.len as u64 + self.fin as u64
    }
    /// Lost and not yet retransmitted: what NextSeg() rule 1 looks for.
    fn awaits_rtx(&self) -> bool {
        self.lost && !self.sacked && !self.rtx_in_pipe
    }
    /// RFC 6675 SetPipe() contribution, in payload bytes. With `sacked_rtx_in_flight`
    /// (`pipe_rule = "ns3"`) a SACKed segment whose retransmission is still counted adds
    /// that retransmission, as ns-3 3.44's `TcpTxBuffer::BytesInFlight` does.
    fn pipe(&self, sacked_rtx_in_flight: bool) -> u64 {
        if self.sacked {
            (sacked_rtx_in_flight && self.rtx_in_pipe) as u64 * self.len as u64
        } else {
            let l = self.len as u64;
            (!self.lost as u64) * l + (self.rtx_in_pipe as u64) * l
        }
    }
}

/// What a cumulative ACK removed from the scoreboard.
#[derive(Copy, Clone, Debug, Default)]
pub struct Acked {
    pub bytes: u64,
    /// Send time of the newest newly-acknowledged segment, when Karn's rule allows a sample.
    pub rtt_from: Option<Instant>,
    pub fin: bool,
    /// The part of `bytes` that had been SACKed before (the receiver reported it earlier).
    pub previously_sacked: u64,
    /// Latest send time among the removed segments that had not been SACKed: the segment
    /// whose arrival this ACK reports (thesis 4.1.3, RD = t_r - t_s; Karn does not apply,
    /// a retransmission's own send time is what the receiver's TSval is paired with).
    pub latest_sent: Option<Instant>,
    /// The segment of `latest_sent` had been retransmitted: the receiver's report may be of
    /// an earlier transmission (a spurious retransmission), which only the ACK's TSecr can
    /// tell (RFC 3522).
    pub latest_retransmitted: bool,
    /// Start of the lowest removed segment that was neither retransmitted nor SACKed: the
    /// ACK reports an original transmission (F-RTO, RFC 5682 step 3b).
    pub first_original: Option<u64>,
    /// Send times of the lowest and the highest removed segments that were neither
    /// retransmitted nor SACKed before (Linux `tcp_clean_rtx_queue`'s `first_ackt` and
    /// `last_ackt`: the RTO's and congestion control's samples of `rtt_source = "linux"`).
    pub first_original_sent: Option<Instant>,
    pub last_original_sent: Option<Instant>,
    /// Some removed segment had been retransmitted (Linux `FLAG_RETRANS_DATA_ACKED`: Karn's
    /// rule then forbids a send-time sample from this ACK).
    pub any_retransmitted: bool,
    /// Latest send time of the highest wholly removed segment, SACKed or not (ns-2.35
    /// TCP-Linux's `tss[seqno]` for `rtt_source = "ns2_linux"`).
    pub newest_sent: Option<Instant>,
}

/// Keeps the latest send time seen and whether its segment had been retransmitted (any of
/// the segments sent at that instant).
pub(crate) fn note_latest(
    latest: &mut Option<Instant>,
    rtx: &mut bool,
    sent: Instant,
    retransmitted: bool,
) {
    match *latest {
        Some(l) if l > sent => {}
        Some(l) if l == sent => *rtx |= retransmitted,
        _ => {
            *latest = Some(sent);
            *rtx = retransmitted;
        }
    }
}

/// What one SACK block newly reported.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Sacked {
    pub bytes: u64,
    /// Latest send time among the newly SACKed segments.
    pub latest_sent: Option<Instant>,
    /// The segment of `latest_sent` had been retransmitted (as [`Acked::latest_retransmitted`]).
    pub latest_retransmitted: bool,
    /// Start of the lowest newly SACKed segment never retransmitted (RFC 5682 section 3).
    pub first_original: Option<u64>,
    /// Send times of the lowest and highest newly SACKed segments never retransmitted
    /// (Linux `tcp_sacktag_one`'s `first_sackt` / `last_sackt`).
    pub first_original_sent: Option<Instant>,
    pub last_original_sent: Option<Instant>,
    /// `recovery = "ns2_linux"`: the retransmission id of the highest newly SACKed segment
    /// whose retransmission was in flight (ns-2.35 `UpdateScoreBoard`, the case
    /// `SKB_FLAG_RETRANSMITTED` of a SACKed node: `acked_rtx_id_ = now->GetRtx()`).
    pub ns2_rtx_id: Option<u64>,
}

/// ns-2.35 TCP-Linux's scoreboard rules (`recovery = "ns2_linux"`): tcp/scoreboard1.cc
/// `ScoreBoard1` and tcp/scoreboard1.h `ScoreBoardNode1`, in packet positions as ns-2
/// counts them (one tcplab segment is one ns-2 packet). ns-2 keeps run-length nodes
/// flagged INFLIGHT, SACKED, LOST or RETRANSMITTED; here they are the segments' own
/// marks: INFLIGHT = neither lost nor SACKed, LOST = lost and awaiting retransmission,
/// RETRANSMITTED = its retransmission in the pipe (`rtx_in_pipe`), SACKED = `sacked`.
/// What ns-2 adds over those marks lives here.
#[derive(Clone, Debug, Default)]
struct Ns2Board {
    on: bool,
    /// Retransmissions that may still be in flight, oldest first: (retransmission id,
    /// segment start, SND.NXT when it was sent) -- a RETRANSMITTED node's `retran_`,
    /// `seq_` and `nxt_`. Entries go stale when the segment is SACKed, acknowledged or
    /// marked lost again (its `ns2_rtx_id` or marks then no longer match) and are dropped
    /// when they reach the front. Ids and SND.NXT only grow along the queue, which bounds
    /// the loss scan ([`Scoreboard::ns2_mark_losses`]).
    rtx: VecDeque<(u64, u64, u64)>,
    /// The next retransmission id (`rtx_id_`). ns-2 restarts it at 0 whenever it clears
    /// the board; ids here keep growing, which compares the same since every
    /// retransmission of the cleared board is gone with it.
    next_id: u64,
    /// `acked_rtx_id_`: the id of a retransmission SACKed or acknowledged (None: -1).
    acked_id: Option<u64>,
    /// Every INFLIGHT segment starting below this position was marked lost already (the
    /// FACK threshold only grows until the board is cleared).
    floor: u64,
    /// Where ns-2's board ends after a timeout (`MarkLoss` extends it to SND.NXT); with
    /// the highest SACK it decides when a cumulative ACK empties the board.
    rto_end: u64,
}

#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    segs: VecDeque<SentSeg>,
    pipe: u64,
    sacked_bytes: u64,
    /// End of the highest SACKed segment (RFC 6675 "highest octet covered by any SACK" + 1).
    high_sacked: u64,
    /// No lost, not-yet-retransmitted segment starts below this offset.
    rtx_cursor: u64,
    /// How many segments are lost and not yet retransmitted, so that the common case of
    /// NextSeg() rule 1 (nothing to retransmit) costs no search on every transmission.
    awaiting_rtx: u64,
    /// Every un-SACKed segment starting below this offset is lost (IsLost() held for it,
    /// or an RTO or fast retransmit declared it). Losses are a prefix of the un-SACKed
    /// segments, so `mark_losses` and `next_rule3` need not look below it: in a long
    /// recovery they would otherwise walk the whole SACKed run on every ACK.
    loss_floor: u64,
    /// The latest SACK blocks applied, `[start, end)`: every segment wholly inside one is
    /// SACKed (marks are never cleared), so a block that repeats or grows one skips them
    /// (a receiver repeats its blocks on every ACK, each a segment longer).
    applied: [(u64, u64); 4],
    applied_next: usize,
    /// RACK (RFC 8985 6.2 step 2): the newest (send time, transmission order) among the
    /// segments newly delivered since [`Scoreboard::start_rack_ack`], and the latest send
    /// time a retransmission may have to count (a younger one was probably delivered by
    /// its original transmission: its RTT would be below min_RTT).
    rack_delivered: Option<(Instant, u64)>,
    rack_rtx_sent_by: Option<Instant>,
    /// RACK is in use: [`Scoreboard::start_rack_ack`] was called (else nothing is noted).
    rack_tracking: bool,
    /// Transmissions so far (the next `SentSeg::tx_order`).
    tx_count: u64,
    /// `pipe_rule = "ns3"`: SACKed segments keep their retransmission in the pipe.
    sacked_rtx_in_flight: bool,
    /// `recovery = "ns2_linux"`'s state (unused otherwise).
    ns2: Ns2Board,
}

impl Scoreboard {
    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }
    pub fn len(&self) -> usize {
        self.segs.len()
    }
    pub fn pipe(&self) -> u64 {
        self.pipe
    }
    /// Which pipe the scoreboard keeps ([`PipeRule`]); set before the first segment.
    pub fn set_pipe_rule(&mut self, rule: PipeRule) {
        debug_assert!(self.segs.is_empty());
        self.sacked_rtx_in_flight = rule == PipeRule::Ns3;
    }
    /// Keeps ns-2.35 TCP-Linux's scoreboard state (`recovery = "ns2_linux"`); set before
    /// the first segment.
    pub fn set_ns2_linux(&mut self, on: bool) {
        debug_assert!(self.segs.is_empty());
        self.ns2.on = on;
    }
    pub fn sacked_bytes(&self) -> u64 {
        self.sacked_bytes
    }
    pub fn high_sacked(&self) -> u64 {
        self.high_sacked
    }
    pub fn front(&self) -> Option<&SentSeg> {
        self.segs.front()
    }
    pub fn get(&self, i: usize) -> &SentSeg {
        &self.segs[i]
    }
    /// Payload bytes outstanding (RFC 5681 FlightSize: sent and not cumulatively acked).
    pub fn flight_size(&self) -> u64 {
        match (self.segs.front(), self.segs.back()) {
            (Some(f), Some(b)) => b.start + b.len as u64 - f.start,
            _ => 0,
        }
    }

    /// Applies `f` to segment `i` keeping pipe and the SACK total exact.
    fn update(&mut self, i: usize, f: impl FnOnce(&mut SentSeg)) {
        let ns3 = self.sacked_rtx_in_flight;
        let s = &mut self.segs[i];
        let (p0, sk0, r0) = (s.pipe(ns3), s.sacked, s.awaits_rtx());
        f(s);
        let (p1, sk1, r1) = (s.pipe(ns3), s.sacked, s.awaits_rtx());
        self.pipe = self.pipe - p0 + p1;
        self.awaiting_rtx = self.awaiting_rtx - r0 as u64 + r1 as u64;
        if sk0 != sk1 {
            if sk1 {
                self.sacked_bytes += s.len as u64;
            } else {
                self.sacked_bytes -= s.len as u64;
            }
        }
    }

    pub fn push(&mut self, mut seg: SentSeg) {
        debug_assert!(self.segs.back().is_none_or(|b| b.end() == seg.start));
        seg.tx_order = self.next_tx_order();
        self.pipe += seg.pipe(self.sacked_rtx_in_flight);
        self.awaiting_rtx += seg.awaits_rtx() as u64;
        self.segs.push_back(seg);
    }

    /// Removes everything below the cumulative ACK at position `ack`.
    pub fn ack_to(&mut self, ack: u64) -> Acked {
        let mut out = Acked::default();
        while let Some(f) = self.segs.front().copied() {
            if f.end() <= ack {
                if self.ns2.on && f.rtx_in_pipe && !f.sacked {
                    // ns-2 `CleanRtxQueue`: a RETRANSMITTED node acknowledged raises
                    // `acked_rtx_id_`.
                    self.ns2.acked_id = self.ns2.acked_id.max(Some(f.ns2_rtx_id));
                }
                self.pipe -= f.pipe(self.sacked_rtx_in_flight);
                self.awaiting_rtx -= f.awaits_rtx() as u64;
                if f.sacked {
                    self.sacked_bytes -= f.len as u64;
                }
                out.bytes += f.len as u64;
                out.fin |= f.fin;
                out.any_retransmitted |= f.retransmitted;
                if f.sacked {
                    out.previously_sacked += f.len as u64;
                } else {
                    note_latest(
                        &mut out.latest_sent,
                        &mut out.latest_retransmitted,
                        f.sent_at,
                        f.retransmitted,
                    );
                    self.note_rack_delivered(&f);
                    if !f.retransmitted {
                        if out.first_original.is_none() {
                            out.first_original = Some(f.start);
                            out.first_original_sent = Some(f.sent_at);
                        }
                        out.last_original_sent = Some(f.sent_at);
                    }
                }
                // Karn: the newest segment decides; a SACKed one was delivered at an unknown
                // earlier time, a retransmitted one is ambiguous.
                out.rtt_from = (!f.retransmitted && !f.sacked).then_some(f.sent_at);
                out.newest_sent = Some(f.sent_at);
                self.segs.pop_front();
            } else {
                if f.start < ack {
                    // A cumulative ACK inside a segment (the peer trimmed it): keep the tail.
                    let n = (ack - f.start) as u32;
                    out.bytes += n as u64;
                    out.any_retransmitted |= f.retransmitted;
                    if f.sacked {
                        out.previously_sacked += n as u64;
                    } else {
                        note_latest(
                            &mut out.latest_sent,
                            &mut out.latest_retransmitted,
                            f.sent_at,
                            f.retransmitted,
                        );
                        if !f.retransmitted {
                            if out.first_original.is_none() {
                                out.first_original = Some(f.start);
                                out.first_original_sent = Some(f.sent_at);
                            }
                            out.last_original_sent = Some(f.sent_at);
                        }
                    }
                    self.update(0, |s| {
                        s.start = ack;
                        s.len -= n;
                    });
                    if f.sacked {
                        // sacked_bytes tracked the old length.
                        self.sacked_bytes -= n as u64;
                    }
                    out.rtt_from = None;
                }
                break;
            }
        }
        if self.segs.is_empty() {
            self.high_sacked = ack.max(self.high_sacked);
        }
        self.rtx_cursor = self.rtx_cursor.max(ack);
        if self.ns2.on && ack >= self.high_sacked.max(self.ns2.rto_end) {
            // ns-2 `UpdateScoreBoard`: the cumulative ACK emptied the board (`head_ ==
            // NULL`) and `ClearScoreBoard` restarts the retransmission ids; every
            // retransmission it knew of is acknowledged.
            self.ns2.acked_id = None;
            self.ns2.rtx.clear();
            self.ns2.floor = self.ns2.floor.max(ack);
        }
        out
    }

    /// Marks segments wholly inside `[start, end)` as SACKed; returns newly SACKed bytes.
    pub fn sack(&mut self, start: u64, end: u64) -> u64 {
        self.sack_block(start, end).bytes
    }

    /// [`Scoreboard::sack`] that also reports the latest send time of the newly SACKed
    /// segments (the rate-based framework's RD sample, thesis 4.1.3).
    pub fn sack_block(&mut self, start: u64, end: u64) -> Sacked {
        let mut i = self.segs.partition_point(|s| s.start < start);
        let mut newly = Sacked::default();
        // A segment counts as SACKed when its data is: a block never covers the FIN's
        // sequence number, but a receiver holding the last segment's data holds its FIN
        // too (the loss right before a FIN is then seen, by RACK a tail loss probe's too).
        while i < self.segs.len() && self.segs[i].start + self.segs[i].len as u64 <= end {
            let s = self.segs[i];
            if s.sacked {
                // Inside a block applied before: jump past every segment it wholly covers
                // (all SACKed already), instead of visiting them one by one.
                if let Some(&(_, de)) = self
                    .applied
                    .iter()
                    .find(|&&(ds, de)| ds <= s.start && s.end() <= de)
                {
                    i = self.segs.partition_point(|x| x.end() <= de).max(i + 1);
                    continue;
                }
            }
            if !s.sacked && s.len > 0 {
                if self.ns2.on && s.rtx_in_pipe {
                    newly.ns2_rtx_id = Some(s.ns2_rtx_id);
                }
                self.note_rack_delivered(&s);
                newly.bytes += self.segs[i].len as u64;
                note_latest(
                    &mut newly.latest_sent,
                    &mut newly.latest_retransmitted,
                    self.segs[i].sent_at,
                    self.segs[i].retransmitted,
                );
                if !self.segs[i].retransmitted {
                    if newly.first_original.is_none() {
                        newly.first_original = Some(self.segs[i].start);
                        newly.first_original_sent = Some(self.segs[i].sent_at);
                    }
                    newly.last_original_sent = Some(self.segs[i].sent_at);
                }
                self.update(i, |s| s.sacked = true);
                self.high_sacked = self.high_sacked.max(self.segs[i].end());
            }
            i += 1;
        }
        // Remember the block as far as the scoreboard reaches (a block beyond what was sent
        // must not vouch for segments sent later).
        let top = self.segs.back().map_or(start, |b| b.end());
        let block = (start, end.min(top));
        if block.0 < block.1 && !self.applied.contains(&block) {
            self.applied[self.applied_next] = block;
            self.applied_next = (self.applied_next + 1) % self.applied.len();
        }
        newly
    }

    /// RFC 6675 IsLost(): a segment is lost once DupThresh SACKed segments, or more than
    /// (DupThresh - 1) * SMSS SACKed bytes, lie above it. Losses form a prefix of the
    /// un-SACKed segments, so the backward scan stops at the first one already marked.
    ///
    /// The scan starts at the highest SACKed segment (nothing above it has a SACK above
    /// it) and, once the threshold is reached, runs down only to `loss_floor`: below it
    /// every un-SACKed segment is lost already. Exactly the full backward scan's marks.
    pub fn mark_losses(&mut self, dupthresh: u32, mss: u32) -> bool {
        if self.sacked_bytes == 0 {
            return false;
        }
        let (mut cnt, mut bytes, mut any) = (0u32, 0u64, false);
        let byte_thresh = (dupthresh.saturating_sub(1) as u64) * mss as u64;
        let top = self.segs.partition_point(|s| s.start < self.high_sacked);
        let floor = self.segs.partition_point(|s| s.start < self.loss_floor);
        let mut threshold_at = None;
        for i in (0..top).rev() {
            let s = self.segs[i];
            if s.sacked {
                cnt += 1;
                bytes += s.len as u64;
                if threshold_at.is_none() && (cnt >= dupthresh || bytes > byte_thresh) {
                    threshold_at = Some(i);
                }
                if threshold_at.is_some() && i <= floor {
                    break;
                }
                continue;
            }
            if threshold_at.is_some() {
                if s.lost {
                    break;
                }
                self.update(i, |s| s.lost = true);
                self.rtx_cursor = self.rtx_cursor.min(s.start);
                any = true;
            }
            if threshold_at.is_some() && i <= floor {
                break;
            }
        }
        if let Some(t) = threshold_at {
            // Every un-SACKed segment below the threshold is lost now.
            self.loss_floor = self.loss_floor.max(self.segs[t].start);
        }
        any
    }

    /// ns-2.35 `ScoreBoard1::UpdateScoreBoard`'s loss marking (`recovery = "ns2_linux"`),
    /// once this ACK's cumulative point ([`Scoreboard::ack_to`]) and SACK blocks
    /// ([`Scoreboard::sack_block`]) are applied. `blocks` holds each block's start and the
    /// [`Sacked::ns2_rtx_id`] it reported. Returns whether a loss was newly marked
    /// (`FLAG_DATA_LOST`).
    ///
    /// - An INFLIGHT segment (never retransmitted since the board was last cleared) is
    ///   lost once it lies DupThresh + 1 positions or more below the highest SACKed one
    ///   (`lost_seq_threshold = fack_ - (dupack_threshold + 1)`: with DupThresh 3, at the
    ///   fourth segment SACKed above a single loss, one later than RFC 6675's IsLost()).
    /// - A RETRANSMITTED segment is lost again when a segment at or above SND.NXT of its
    ///   retransmission, i.e. sent after it, is SACKed (`GetSndNxt() <= fack_`), or when a
    ///   retransmission DupThresh + 2 or more ids younger was SACKed or acknowledged
    ///   (`GetRtx() + dupack_threshold + 1 < acked_rtx_id_`). ns-2 walks its board once in
    ///   sequence order and sets `acked_rtx_id_` at each SACKed retransmission it passes,
    ///   so a retransmission below that one is judged by the id before it ("1 will be
    ///   marked as lost when the next SACK arrives", scoreboard1.cc): the same here, each
    ///   candidate judged by the ids of the blocks below it.
    ///
    /// Nothing is allocated: the INFLIGHT marks start at the previous threshold, and the
    /// retransmission queue is walked only as far as a later entry could still be lost.
    pub fn ns2_mark_losses(&mut self, blocks: &mut [(u64, Option<u64>)], dupthresh: u32) -> bool {
        let mut any = false;
        let dt = dupthresh as u64 + 1;
        blocks.sort_unstable_by_key(|b| b.0);
        let prior = self.ns2.acked_id;
        // `acked_rtx_id_` as the pass finds it at position `pos`.
        let acked_at = |pos: u64| {
            blocks
                .iter()
                .take_while(|b| b.0 < pos)
                .fold(prior, |a, b| b.1.or(a))
        };
        let acked_end = acked_at(u64::MAX);
        let acked_max = blocks.iter().fold(prior, |a, b| a.max(b.1));
        // INFLIGHT segments below the FACK threshold.
        let top = self.segs.partition_point(|s| s.start < self.high_sacked);
        if top as u64 > dt {
            let last = top - 1 - dt as usize;
            let from = self.segs.partition_point(|s| s.start < self.ns2.floor);
            for i in from..=last {
                let s = self.segs[i];
                if !s.sacked && !s.lost && !s.rtx_in_pipe {
                    self.update(i, |s| s.lost = true);
                    self.rtx_cursor = self.rtx_cursor.min(s.start);
                    any = true;
                }
            }
            self.ns2.floor = self.ns2.floor.max(self.segs[last].end());
        }
        // RETRANSMITTED segments, oldest retransmission first.
        let mut k = 0;
        while k < self.ns2.rtx.len() {
            let (id, start, snd_nxt) = self.ns2.rtx[k];
            let i = self.segs.partition_point(|s| s.start < start);
            let live = i < self.segs.len() && {
                let s = &self.segs[i];
                s.start == start && s.ns2_rtx_id == id && s.rtx_in_pipe && !s.sacked
            };
            let lost = live
                && (snd_nxt < self.high_sacked || acked_at(start).is_some_and(|a| id + dt < a));
            if lost {
                self.update(i, |s| s.rtx_in_pipe = false);
                self.rtx_cursor = self.rtx_cursor.min(start);
                any = true;
            }
            if !live || lost {
                if k == 0 {
                    self.ns2.rtx.pop_front();
                } else {
                    k += 1;
                }
                continue;
            }
            // Ids and SND.NXT only grow along the queue: no later entry can be lost.
            if snd_nxt >= self.high_sacked && acked_max.is_none_or(|a| id + dt >= a) {
                break;
            }
            k += 1;
        }
        self.ns2.acked_id = acked_end;
        any
    }

    /// ns-2.35 `ScoreBoard1::ClearScoreBoard` at the end of a recovery or of the loss state
    /// after a timeout (`tcp_fastretrans_alert`): the board forgets every SACK and loss it
    /// knew. Until the next ACK's blocks re-SACK them, every outstanding segment counts in
    /// flight (`packets_in_flight` = SND.NXT - SND.UNA), and one the receiver no longer
    /// reports (ns-2's sink repeats its 3 most recent blocks) may later be marked lost
    /// under the FACK threshold and sent again.
    pub fn ns2_clear(&mut self) {
        for s in self.segs.iter_mut() {
            s.sacked = false;
            s.lost = false;
            s.rtx_in_pipe = false;
        }
        let una = self.segs.front().map_or(self.high_sacked, |s| s.start);
        self.pipe = self.recompute_pipe();
        self.sacked_bytes = 0;
        self.awaiting_rtx = 0;
        self.high_sacked = una;
        self.rtx_cursor = una;
        self.loss_floor = una;
        self.applied = [(0, 0); 4];
        self.applied_next = 0;
        self.ns2.rtx.clear();
        self.ns2.acked_id = None;
        self.ns2.floor = una;
        self.ns2.rto_end = 0;
    }

    /// Starts collecting one ACK's RACK sample: retransmissions sent after `rtx_sent_by`
    /// (None: every retransmission, before any RTT sample) are left out.
    pub fn start_rack_ack(&mut self, rtx_sent_by: Option<Instant>) {
        self.rack_delivered = None;
        self.rack_rtx_sent_by = rtx_sent_by;
        self.rack_tracking = true;
    }

    fn next_tx_order(&mut self) -> u64 {
        self.tx_count += 1;
        self.tx_count
    }

    /// The newest (send time, transmission order) newly delivered since
    /// [`Scoreboard::start_rack_ack`].
    pub fn rack_delivered(&self) -> Option<(Instant, u64)> {
        self.rack_delivered
    }

    fn note_rack_delivered(&mut self, s: &SentSeg) {
        if !self.rack_tracking {
            return;
        }
        if s.retransmitted && self.rack_rtx_sent_by.is_none_or(|by| s.sent_at > by) {
            return;
        }
        let key = (s.sent_at, s.tx_order);
        if self.rack_delivered.is_none_or(|d| key.1 > d.1) {
            self.rack_delivered = Some(key);
        }
    }

    /// RFC 8985 6.2 step 5 (RACK_detect_loss): every un-SACKed segment sent before
    /// `newest` (send time, transmission order) whose send time plus `loss_delay` has passed is
    /// lost, retransmissions included (a lost retransmission, which IsLost() cannot see).
    /// Returns whether any was newly marked, and how long until the last of the others
    /// is due (the reordering timer; RFC 8985 and Linux take the latest, not the
    /// earliest, and re-scan then).
    ///
    /// Segments already lost and awaiting retransmission are skipped. Originals go out in
    /// sequence order, so the scan stops at the first never-retransmitted segment sent
    /// after `newest`: everything above it was sent later still.
    pub fn rack_mark_lost(
        &mut self,
        now: Instant,
        newest: (Instant, u64),
        loss_delay: Duration,
    ) -> (bool, Option<Duration>) {
        let (mut any, mut wait) = (false, None);
        for i in 0..self.segs.len() {
            let s = self.segs[i];
            if s.sacked || s.awaits_rtx() {
                continue;
            }
            if s.tx_order >= newest.1 {
                if s.retransmitted {
                    continue;
                }
                break;
            }
            let due = s.sent_at + loss_delay;
            if due <= now {
                self.update(i, |s| {
                    s.lost = true;
                    s.rtx_in_pipe = false;
                });
                self.rtx_cursor = self.rtx_cursor.min(s.start);
                any = true;
            } else {
                wait = wait.max(Some(due - now));
            }
        }
        (any, wait)
    }

    /// Any segment lost and not yet retransmitted (Linux `lost_out > 0` for the purpose
    /// of `tcp_time_to_recover`).
    pub fn any_awaiting_rtx(&self) -> bool {
        self.awaiting_rtx > 0
    }

    /// Declares the first outstanding segment lost (fast retransmit, NewReno partial ACK).
    pub fn mark_front_lost(&mut self) -> bool {
        if self.segs.is_empty() || self.segs[0].sacked {
            return false;
        }
        self.update(0, |s| {
            s.lost = true;
            s.rtx_in_pipe = false;
        });
        self.rtx_cursor = self.rtx_cursor.min(self.segs[0].start);
        true
    }

    /// RTO (RFC 6675 section 5.1, RFC 5681 go-back-N): every un-SACKed segment is lost and
    /// no retransmission is in the pipe any more. SACK marks are kept (our peer never reneges).
    pub fn on_rto(&mut self) {
        self.awaiting_rtx = 0;
        for s in self.segs.iter_mut() {
            s.lost = !s.sacked;
            s.rtx_in_pipe = false;
            self.awaiting_rtx += s.awaits_rtx() as u64;
        }
        self.pipe = 0;
        self.rtx_cursor = self.segs.front().map_or(0, |s| s.start);
        self.loss_floor = self.segs.back().map_or(self.loss_floor, |s| s.end());
        if self.ns2.on {
            // ns-2 `MarkLoss`: every node not SACKed is LOST (a retransmission too), the
            // board reaches SND.NXT, and the retransmission ids start again.
            let end = self.segs.back().map_or(0, |s| s.end());
            self.ns2.rto_end = end;
            self.ns2.floor = end;
            self.ns2.acked_id = None;
            self.ns2.rtx.clear();
        }
    }

    /// Undoes [`Scoreboard::on_rto`] after F-RTO found the timeout spurious (RFC 5682 3b,
    /// RFC 4015): the segments the timeout declared lost are in flight after all, so every
    /// un-SACKed segment counts in the pipe once and none awaits retransmission.
    pub fn undo_rto(&mut self) {
        for s in self.segs.iter_mut() {
            s.lost = false;
            s.rtx_in_pipe = false;
        }
        self.awaiting_rtx = 0;
        self.pipe = self.recompute_pipe();
        self.rtx_cursor = self.segs.front().map_or(0, |s| s.start);
        self.loss_floor = 0;
    }

    /// NextSeg() rule 1: the first lost segment not yet retransmitted. Inline: the sender
    /// asks on every transmit opportunity and nearly always nothing awaits retransmission
    /// (out of line the call cost ~12 instructions per data packet on dumbbell-10).
    #[inline]
    pub fn next_lost(&mut self) -> Option<usize> {
        if self.awaiting_rtx == 0 {
            return None;
        }
        self.next_lost_scan()
    }

    fn next_lost_scan(&mut self) -> Option<usize> {
        let mut i = self.segs.partition_point(|s| s.start < self.rtx_cursor);
        while i < self.segs.len() {
            let s = &self.segs[i];
            if s.awaits_rtx() {
                self.rtx_cursor = s.start;
                return Some(i);
            }
            // One is waiting at or above the cursor (`awaiting_rtx` > 0). Under RFC 6675
            // it is the first un-SACKed segment not in the pipe twice (losses are a prefix
            // of those); RACK marks by send time, so a segment retransmitted and then
            // found in flight after all (an undone timeout) may sit below it unmarked.
            i += 1;
        }
        None
    }

    /// NextSeg() rule 3: an un-SACKed, not-lost, not-retransmitted segment below the
    /// highest SACKed octet.
    pub fn next_rule3(&self) -> Option<usize> {
        // Below the loss floor every un-SACKed segment is lost: no candidate there.
        let from = self.rtx_cursor.max(self.loss_floor);
        let mut i = self.segs.partition_point(|s| s.start < from);
        while i < self.segs.len() && self.segs[i].end() <= self.high_sacked {
            let s = &self.segs[i];
            if !s.sacked && !s.lost && !s.rtx_in_pipe {
                return Some(i);
            }
            i += 1;
        }
        None
    }

    /// Records the retransmission of segment `i` at `now`.
    pub fn on_retransmit(&mut self, i: usize, now: Instant) {
        let order = self.next_tx_order();
        let id = self.ns2.next_id;
        self.update(i, |s| {
            s.tx_order = order;
            s.rtx_in_pipe = true;
            s.retransmitted = true;
            s.sent_at = now;
            s.ns2_rtx_id = id;
        });
        if self.ns2.on {
            // ns-2 `MarkRetran(seq, t_seqno_)`: the node remembers its id and SND.NXT.
            let snd_nxt = self.segs.back().map_or(0, |s| s.end());
            self.ns2.rtx.push_back((id, self.segs[i].start, snd_nxt));
            self.ns2.next_id += 1;
        }
    }

    /// Re-sends segment `i` without changing its loss state (a repeated zero-window probe).
    pub fn touch(&mut self, i: usize, now: Instant) {
        let order = self.next_tx_order();
        let s = &mut self.segs[i];
        s.retransmitted = true;
        s.sent_at = now;
        s.tx_order = order;
    }

    /// The pipe recomputed from scratch (for invariant checks).
    pub fn recompute_pipe(&self) -> u64 {
        self.segs
            .iter()
            .map(|s| s.pipe(self.sacked_rtx_in_flight))
            .sum()
    }

    /// Structural invariants; an error string names the first violation.
    pub fn check(&self, una: u64, max: u64) -> Result<(), String> {
        let pipe = self.recompute_pipe();
        if pipe != self.pipe {
            return Err(format!("pipe {} != recomputed {}", self.pipe, pipe));
        }
        let sacked: u64 = self
            .segs
            .iter()
            .filter(|s| s.sacked)
            .map(|s| s.len as u64)
            .sum();
        if sacked != self.sacked_bytes {
            return Err(format!(
                "sacked {} != recomputed {}",
                self.sacked_bytes, sacked
            ));
        }
        let awaiting = self.segs.iter().filter(|s| s.awaits_rtx()).count() as u64;
        if awaiting != self.awaiting_rtx {
            return Err(format!(
                "awaiting retransmission {} != recomputed {}",
                self.awaiting_rtx, awaiting
            ));
        }
        let mut at = una;
        for s in &self.segs {
            if s.start != at {
                return Err(format!(
                    "scoreboard gap at {at}: next segment starts at {}",
                    s.start
                ));
            }
            at = s.end();
        }
        if !self.segs.is_empty() && at != max {
            return Err(format!("scoreboard ends at {at}, snd_max is {max}"));
        }
        Ok(())
    }

    /// Age of the oldest outstanding transmission (diagnostics).
    pub fn oldest_age(&self, now: Instant) -> Option<Duration> {
        self.segs.front().map(|s| now.saturating_since(s.sent_at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Appends `n` fresh 1000-byte segments sent at time 0.
    fn push_segments(sb: &mut Scoreboard, n: u64) {
        for i in 0..n {
            sb.push(SentSeg {
                start: i * 1000,
                len: 1000,
                fin: false,
                sent_at: Instant::ZERO,
                sacked: false,
                lost: false,
                rtx_in_pipe: false,
                retransmitted: false,
                tx_order: 0,
                ns2_rtx_id: 0,
            });
        }
    }

    fn board(n: u64) -> Scoreboard {
        let mut sb = Scoreboard::default();
        push_segments(&mut sb, n);
        sb
    }

    #[test]
    fn is_lost_after_dupthresh_sacked_segments_rfc6675_4() {
        // RFC 6675 section 4, IsLost(SeqNum): "DupThresh discontiguous SACKed sequences have
        // arrived above 'SeqNum'" (we count SACKed segments) or more than
        // (DupThresh - 1) * SMSS bytes above it are SACKed.
        let mut sb = board(10);
        sb.sack(6000, 8000);
        assert!(!sb.mark_losses(3, 1000));
        assert_eq!(sb.pipe(), 8000);
        sb.sack(8000, 9000);
        assert!(sb.mark_losses(3, 1000));
        // Segments 0..=5 are lost: out of the pipe (SetPipe rule (a)).
        assert!((0..6).all(|i| sb.get(i).lost) && !sb.get(9).lost);
        assert_eq!(sb.pipe(), 1000);
        assert_eq!(sb.next_lost(), Some(0));
        sb.on_retransmit(0, Instant::ZERO);
        // Rule (b): the retransmission is in the pipe again.
        assert_eq!(sb.pipe(), 2000);
        assert_eq!(sb.next_lost(), Some(1));
        assert_eq!(sb.check(0, 10_000), Ok(()));
    }

    #[test]
    fn cumulative_ack_trims_and_applies_karn() {
        let mut sb = board(3);
        sb.on_retransmit(0, Instant::from_millis(5));
        let a = sb.ack_to(1000);
        assert_eq!((a.bytes, a.rtt_from), (1000, None));
        let a = sb.ack_to(1500);
        assert_eq!((a.bytes, a.rtt_from), (500, None));
        assert_eq!(sb.pipe(), 1500);
        let a = sb.ack_to(3000);
        assert_eq!((a.bytes, a.rtt_from), (1500, Some(Instant::ZERO)));
        assert!(sb.is_empty());
    }

    #[test]
    fn acks_report_previously_sacked_bytes_and_the_latest_send_time() {
        // Thesis 4.1.2-4.1.3: the receiver's newly received bytes exclude what it SACKed
        // before, and RD pairs the ACK's TSval with the send time of the latest-sent segment
        // newly reported (a retransmission's own time: Karn does not apply here).
        let mut sb = board(4);
        for i in 0..4 {
            sb.touch(i, Instant::from_millis(10 * i as u64));
        }
        let n = sb.sack_block(2000, 4000);
        assert_eq!(n.bytes, 2000);
        assert_eq!(n.latest_sent, Some(Instant::from_millis(30)));
        assert_eq!(sb.sack_block(2000, 4000), Sacked::default());
        sb.on_retransmit(0, Instant::from_millis(50));
        let a = sb.ack_to(4000);
        assert_eq!((a.bytes, a.previously_sacked), (4000, 2000));
        assert_eq!(a.latest_sent, Some(Instant::from_millis(50)));
        // The latest-sent segment is a retransmission: the ACK's TSecr must say which
        // transmission it reports (RFC 3522).
        assert!(a.latest_retransmitted);
        assert_eq!(a.rtt_from, None);
    }

    #[test]
    fn the_latest_sent_segment_says_whether_it_was_retransmitted() {
        // Segments 0..3 first sent at 0, 10, 20 ms; segment 0 retransmitted at 40 ms.
        let mut sb = board(3);
        for i in 0..3 {
            sb.update(i, |s| s.sent_at = Instant::from_millis(10 * i as u64));
        }
        sb.on_retransmit(0, Instant::from_millis(40));
        // SACK of 1..2: originals only.
        let n = sb.sack_block(1000, 3000);
        assert_eq!(n.latest_sent, Some(Instant::from_millis(20)));
        assert!(!n.latest_retransmitted);
        // The cumulative ACK: the retransmission is the latest sent.
        let a = sb.ack_to(3000);
        assert_eq!(a.latest_sent, Some(Instant::from_millis(40)));
        assert!(a.latest_retransmitted);
        // A retransmitted segment sent before the latest original leaves the flag clear.
        let mut sb = board(2);
        sb.on_retransmit(0, Instant::from_millis(40));
        sb.update(1, |s| s.sent_at = Instant::from_millis(60));
        let a = sb.ack_to(2000);
        assert_eq!(a.latest_sent, Some(Instant::from_millis(60)));
        assert!(!a.latest_retransmitted);
    }

    /// The scans before issue 18 (every SACKed segment visited on every ACK), kept as the
    /// reference the skipping versions must agree with.
    fn reference_sack_block(sb: &mut Scoreboard, start: u64, end: u64) -> Sacked {
        let mut i = sb.segs.partition_point(|s| s.start < start);
        let mut newly = Sacked::default();
        while i < sb.segs.len() && sb.segs[i].start + sb.segs[i].len as u64 <= end {
            if !sb.segs[i].sacked && sb.segs[i].len > 0 {
                newly.bytes += sb.segs[i].len as u64;
                note_latest(
                    &mut newly.latest_sent,
                    &mut newly.latest_retransmitted,
                    sb.segs[i].sent_at,
                    sb.segs[i].retransmitted,
                );
                if !sb.segs[i].retransmitted {
                    if newly.first_original.is_none() {
                        newly.first_original = Some(sb.segs[i].start);
                        newly.first_original_sent = Some(sb.segs[i].sent_at);
                    }
                    newly.last_original_sent = Some(sb.segs[i].sent_at);
                }
                sb.update(i, |s| s.sacked = true);
                sb.high_sacked = sb.high_sacked.max(sb.segs[i].end());
            }
            i += 1;
        }
        newly
    }

    fn reference_mark_losses(sb: &mut Scoreboard, dupthresh: u32, mss: u32) -> bool {
        if sb.sacked_bytes == 0 {
            return false;
        }
        let (mut cnt, mut bytes, mut any) = (0u32, 0u64, false);
        let byte_thresh = (dupthresh.saturating_sub(1) as u64) * mss as u64;
        for i in (0..sb.segs.len()).rev() {
            let s = sb.segs[i];
            if s.sacked {
                cnt += 1;
                bytes += s.len as u64;
                continue;
            }
            if cnt >= dupthresh || bytes > byte_thresh {
                if s.lost {
                    break;
                }
                sb.update(i, |s| s.lost = true);
                sb.rtx_cursor = sb.rtx_cursor.min(s.start);
                any = true;
            }
        }
        any
    }

    fn reference_next_rule3(sb: &Scoreboard) -> Option<usize> {
        let mut i = sb.segs.partition_point(|s| s.start < sb.rtx_cursor);
        while i < sb.segs.len() && sb.segs[i].end() <= sb.high_sacked {
            let s = &sb.segs[i];
            if !s.sacked && !s.lost && !s.rtx_in_pipe {
                return Some(i);
            }
            i += 1;
        }
        None
    }

    /// Issue 18: `sack_block`, `mark_losses` and `next_rule3` skip what earlier calls
    /// settled; on random histories of sends, SACKs (growing and repeated blocks, as a
    /// receiver sends them, and arbitrary ones), cumulative ACKs, retransmissions, RTOs and
    /// their undoing, they give the full scans' results and leave the same marks.
    #[test]
    fn skipping_scans_agree_with_the_full_scans() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut rnd = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n.max(1)
        };
        for _history in 0..400 {
            let (mut fast, mut slow) = (Scoreboard::default(), Scoreboard::default());
            let (mut sent, mut una) = (0u64, 0u64);
            let mss = [1000u32, 536, 1448][rnd(3) as usize];
            let dupthresh = 1 + rnd(4) as u32;
            let mut grow: Option<(u64, u64)> = None;
            for step in 0..300 {
                match rnd(12) {
                    0..=2 => {
                        for _ in 0..1 + rnd(8) {
                            let len = if rnd(10) == 0 {
                                1 + rnd(mss as u64) as u32
                            } else {
                                mss
                            };
                            let seg = SentSeg {
                                start: sent,
                                len,
                                fin: false,
                                sent_at: Instant(step),
                                sacked: false,
                                lost: false,
                                rtx_in_pipe: false,
                                retransmitted: false,
                                tx_order: 0,
                                ns2_rtx_id: 0,
                            };
                            fast.push(seg);
                            slow.push(seg);
                            sent += len as u64;
                        }
                    }
                    3..=5 => {
                        // A receiver's block: the previous one grown, or a new one.
                        let (a, b) = match grow {
                            Some((a, b)) if rnd(4) != 0 => (a, (b + rnd(3 * mss as u64)).min(sent)),
                            _ => {
                                let a = una + rnd(sent - una + 1);
                                (a, a + rnd(sent - a + 1))
                            }
                        };
                        grow = Some((a, b));
                        let (f, s) = (fast.sack_block(a, b), reference_sack_block(&mut slow, a, b));
                        assert_eq!(f, s, "sack [{a}, {b})");
                    }
                    6 => {
                        // Anything, beyond what was sent included.
                        let a = rnd(sent + 2 * mss as u64);
                        let b = a + rnd(5 * mss as u64);
                        assert_eq!(fast.sack_block(a, b), reference_sack_block(&mut slow, a, b));
                    }
                    7 => {
                        assert_eq!(
                            fast.mark_losses(dupthresh, mss),
                            reference_mark_losses(&mut slow, dupthresh, mss)
                        );
                    }
                    8 => {
                        let ack = una + rnd(sent - una + 1);
                        let (f, s) = (fast.ack_to(ack), slow.ack_to(ack));
                        assert_eq!(
                            (f.bytes, f.previously_sacked),
                            (s.bytes, s.previously_sacked)
                        );
                        una = ack;
                    }
                    9 => {
                        if let Some(i) = fast.next_lost() {
                            assert_eq!(slow.next_lost(), Some(i));
                            fast.on_retransmit(i, Instant(step));
                            slow.on_retransmit(i, Instant(step));
                        } else {
                            assert_eq!(slow.next_lost(), None);
                        }
                    }
                    10 => {
                        if rnd(3) == 0 {
                            fast.on_rto();
                            slow.on_rto();
                        } else if rnd(2) == 0 {
                            fast.undo_rto();
                            slow.undo_rto();
                        } else {
                            assert_eq!(fast.mark_front_lost(), slow.mark_front_lost());
                        }
                    }
                    _ => {
                        let r = fast.next_rule3();
                        assert_eq!(r, reference_next_rule3(&slow));
                        if let Some(i) = r {
                            fast.on_retransmit(i, Instant(step));
                            slow.on_retransmit(i, Instant(step));
                        }
                    }
                }
                assert_eq!(fast.segs, slow.segs, "step {step}");
                assert_eq!(
                    (
                        fast.pipe,
                        fast.sacked_bytes,
                        fast.high_sacked,
                        fast.awaiting_rtx
                    ),
                    (
                        slow.pipe,
                        slow.sacked_bytes,
                        slow.high_sacked,
                        slow.awaiting_rtx
                    )
                );
                assert_eq!(fast.check(una, sent), Ok(()));
            }
        }
    }

    /// ns-3 3.44's BytesInFlight keeps a SACKed segment's retransmission in flight until
    /// the cumulative ACK passes it or a timeout; RFC 6675's pipe drops it at the SACK.
    #[test]
    fn ns3_pipe_keeps_sacked_retransmissions() {
        let t = Instant::ZERO;
        let pipes = |rule| {
            let mut sb = Scoreboard::default();
            sb.set_pipe_rule(rule);
            push_segments(&mut sb, 4);
            // Segment 1 is lost and retransmitted, then the retransmission is SACKed with
            // segments 2 and 3; segment 0 is still outstanding.
            sb.sack(2000, 4000);
            sb.mark_losses(1, 1000);
            sb.on_retransmit(1, t);
            let before = sb.pipe();
            sb.sack(1000, 4000);
            let after = sb.pipe();
            assert_eq!(sb.pipe(), sb.recompute_pipe());
            sb.on_rto();
            (before, after, sb.recompute_pipe())
        };
        // Segment 0 is lost too (threshold 1) and not retransmitted: it counts nothing.
        let (b, a, r) = pipes(PipeRule::Rfc6675);
        let (b3, a3, r3) = pipes(PipeRule::Ns3);
        assert_eq!((b, b3), (1000, 1000));
        assert_eq!(
            (a, a3),
            (0, 1000),
            "the SACKed retransmission stays in ns-3's pipe"
        );
        assert_eq!((r, r3), (0, 0), "a timeout resets it");
    }

    /// ns-2.35 tcp/scoreboard1.cc `UpdateScoreBoard`: the FACK threshold, the
    /// retransmission-id rule judged in sequence order, and the SND.NXT rule.
    #[test]
    fn ns2_linux_scoreboard_rules() {
        let mut sb = Scoreboard::default();
        sb.set_ns2_linux(true);
        push_segments(&mut sb, 20);
        let t = Instant::ZERO;
        let mark = |sb: &mut Scoreboard, blocks: &[(u64, u64)]| {
            let mut b: Vec<(u64, Option<u64>)> = blocks
                .iter()
                .map(|&(x, y)| (x, sb.sack_block(x, y).ns2_rtx_id))
                .collect();
            sb.ns2_mark_losses(&mut b, 3)
        };
        // Segment 10 SACKed: 0-6 lie 4 or more positions below it (fack_ - 4), 7-9 not.
        assert!(mark(&mut sb, &[(10_000, 11_000)]));
        assert!((0..7).all(|i| sb.get(i).lost) && !(7..10).any(|i| sb.get(i).lost));
        for _ in 0..7 {
            let i = sb.next_lost().unwrap();
            sb.on_retransmit(i, t); // ids 0..=6
        }
        // The retransmission of 6 (id 6) is SACKed: ids 0 and 1 (+ 4 < 6) are lost, but the
        // pass reaches them before the block, with `acked_rtx_id_` still -1.
        assert!(!mark(&mut sb, &[(6000, 7000)]));
        assert!(sb.get(0).rtx_in_pipe && sb.get(1).rtx_in_pipe);
        // The next ACK judges them by id 6.
        assert!(mark(&mut sb, &[]));
        assert!(sb.get(0).awaits_rtx() && sb.get(1).awaits_rtx());
        assert!((2..6).all(|i| sb.get(i).rtx_in_pipe));
        assert_eq!(sb.next_lost(), Some(0));
        // A segment sent after the retransmissions (at SND.NXT = 20000) is SACKed: every
        // retransmission in flight is lost again, and the FACK threshold moves to 16.
        sb.on_retransmit(0, t);
        sb.push(SentSeg {
            start: 20_000,
            ..*sb.get(19)
        });
        assert!(mark(&mut sb, &[(20_000, 21_000)]));
        assert!((0..6).all(|i| sb.get(i).awaits_rtx()));
        assert!((7..17).all(|i| i == 10 || sb.get(i).awaits_rtx()));
        assert!(!(17..20).any(|i| sb.get(i).lost));
        assert_eq!(sb.pipe(), 3000, "17, 18, 19 in flight; 6, 10, 20 SACKed");
        assert_eq!(sb.check(0, 21_000), Ok(()));
        // The end of the recovery clears the board: everything outstanding is in flight.
        sb.ns2_clear();
        assert_eq!(sb.pipe(), 21_000);
        assert_eq!(sb.check(0, 21_000), Ok(()));
    }
}
