//! Open-loop workloads (issue 18; `WorkloadSpec`, docs/scenarios.md "Workloads"): flows
//! that arrive whatever the network does, as a Poisson process or at given times, each
//! sending one size drawn from a distribution (fixed, exponential, Pareto or an empirical
//! CDF, as flow-completion-time studies use) and leaving once its last byte is read.
//!
//! A flow takes a connection slot of the world (its `FlowState` and two endpoints) when it
//! arrives and gives it back when it is over: completed, its FIN acknowledged and none of
//! its packets left anywhere in the network (`FlowState::inflight`). Only then can a later
//! arrival reuse the slot, so no packet, timer or element ever mistakes one occupant for
//! another, and a run of 10^6 flows holds memory for those alive at once. An ended flow
//! is checked against the same per-flow invariants as any flow at the moment it ends; what
//! is kept of it is its completion time in the workload's histograms (exact samples with
//! `record.exact_percentiles`) and, unless `record.workload_flows` is off, its row of
//! `WorkloadFlows` (64 bytes).

use super::{FlowState, Reader, World};
use crate::config::{Arrivals, Scenario, SizeDist};
use crate::engine::{Event, MAX_INDEX};
use crate::output::{FctBucket, FctStats, WorkloadFlows, WorkloadSummary};
use crate::stats::DelayStats;
use crate::SimError;
use tcplab_core::rng::Rng;
use tcplab_core::tcp::{Endpoint, TcpConfig};
use tcplab_core::{Duration, Instant, SeqNo};

/// A flow of a workload: which one, and its place among the workload's arrivals.
#[derive(Clone, Copy, Debug)]
pub(super) struct WorkloadConn {
    pub(super) workload: u32,
    pub(super) id: u64,
}

/// What is kept of a workload flow once it has ended (or at the end of the run).
#[derive(Clone, Copy, Debug)]
struct FlowRecord {
    id: u64,
    size: u64,
    start: Instant,
    finished: Option<Instant>,
    read: u64,
    data_pkts: u64,
    retransmits: u64,
    timeouts: u64,
}

pub(super) struct WorkloadState {
    name: String,
    src: usize,
    dst: usize,
    route_fwd: Vec<u32>,
    route_rev: Vec<u32>,
    snd_cfg: TcpConfig,
    rcv_cfg: TcpConfig,
    cc: String,
    fc: String,
    arrivals: Arrivals,
    /// The next of `Arrivals::Times` to use.
    next_time: usize,
    sizes: SizeDist,
    start: Instant,
    /// No arrival at or after this (the workload's stop, or the end of the run).
    stop: Instant,
    max_flows: u64,
    buckets: Vec<u64>,
    arrival_rng: Rng,
    size_rng: Rng,
    /// Arrivals scheduled (the next included) and arrived.
    scheduled: u64,
    arrived: u64,
    active: u64,
    max_active: u64,
    bytes_arrived: u64,
    /// No further arrival will come (the last one has been scheduled or none is left).
    exhausted: bool,
    /// Completion times of the ended flows, all and per size bucket, with the flows that
    /// arrived per bucket and the bytes read by ended flows.
    fct: DelayStats,
    fct_buckets: Vec<DelayStats>,
    arrived_buckets: Vec<u64>,
    ended_bytes_read: u64,
    ended_data_pkts: u64,
    /// Rows of the ended flows (`record.workload_flows`).
    keep_rows: bool,
    records: Vec<FlowRecord>,
}

/// The workloads of `scn`, ready for their first arrivals (`World::schedule_first_arrivals`).
pub(super) fn build(
    scn: &Scenario,
    graph: &crate::topology::Graph,
    end: Instant,
) -> Result<Vec<WorkloadState>, SimError> {
    let mut out = Vec::with_capacity(scn.workloads.len());
    for (wi, w) in scn.workloads.iter().enumerate() {
        let at = |k: &str| format!("workloads[{wi}] ('{}').{k}", w.name);
        let (src, dst, route_fwd, route_rev) =
            super::connection_ends(graph, &at, ("src", &w.src), ("dst", &w.dst))?;
        let rcv_cfg = w.receiver_tcp.clone().unwrap_or_else(|| w.tcp.clone());
        out.push(WorkloadState {
            name: w.name.clone(),
            src,
            dst,
            route_fwd,
            route_rev,
            cc: super::serde_name(&w.tcp.cc),
            fc: super::serde_name(&rcv_cfg.fc),
            snd_cfg: w.tcp.clone(),
            rcv_cfg,
            arrivals: w.arrivals.clone(),
            next_time: 0,
            sizes: w.sizes.clone(),
            start: w.start,
            stop: w.stop.map_or(end, |s| s.min(end)),
            max_flows: w.max_flows.unwrap_or(u64::MAX),
            buckets: w.size_buckets.clone(),
            arrival_rng: Rng::derive(scn.seed, wi as u64, "workload-arrivals"),
            size_rng: Rng::derive(scn.seed, wi as u64, "workload-sizes"),
            scheduled: 0,
            arrived: 0,
            active: 0,
            max_active: 0,
            bytes_arrived: 0,
            exhausted: false,
            fct: DelayStats::new(scn.record.exact_percentiles),
            fct_buckets: vec![
                DelayStats::new(scn.record.exact_percentiles);
                w.size_buckets.len() + 1
            ],
            arrived_buckets: vec![0; w.size_buckets.len() + 1],
            ended_bytes_read: 0,
            ended_data_pkts: 0,
            keep_rows: scn.record.workload_flows,
            records: Vec::new(),
        });
    }
    Ok(out)
}

impl WorkloadState {
    /// Keeps what is kept of an ended flow (or, at the end of the run, a live one).
    fn end_flow(&mut self, rec: FlowRecord) {
        if let Some(t) = rec.finished {
            let ns = t.as_nanos() - rec.start.as_nanos();
            self.fct.record(ns);
            let b = self.bucket_of(rec.size);
            self.fct_buckets[b].record(ns);
        }
        self.ended_bytes_read += rec.read;
        self.ended_data_pkts += rec.data_pkts;
        if self.keep_rows {
            self.records.push(rec);
        }
    }

    /// The arrival after the one at `prev` (None: the first), or None when the workload has
    /// no more: past its stop, out of given times, or at `max_flows`.
    fn next_arrival(&mut self, prev: Option<Instant>) -> Option<Instant> {
        if self.exhausted || self.scheduled >= self.max_flows {
            self.exhausted = true;
            return None;
        }
        let t = match &self.arrivals {
            Arrivals::Poisson { per_second } => {
                // Exponential gaps: -ln(1 - u) / rate, u in [0, 1).
                let gap_s = -(1.0 - self.arrival_rng.next_f64()).ln() / per_second;
                let gap_ns = (gap_s * 1e9).round().min(u64::MAX as f64) as u64;
                prev.unwrap_or(self.start).saturating_add(Duration(gap_ns))
            }
            Arrivals::Times { times } => loop {
                let Some(&t) = times.get(self.next_time) else {
                    self.exhausted = true;
                    return None;
                };
                self.next_time += 1;
                if t >= self.start {
                    break t;
                }
            },
        };
        if t >= self.stop {
            self.exhausted = true;
            return None;
        }
        self.scheduled += 1;
        Some(t)
    }

    /// One flow's size in bytes (at least 1), from the workload's size stream.
    fn draw_size(&mut self) -> u64 {
        let u = self.size_rng.next_f64();
        let bytes = match &self.sizes {
            SizeDist::Fixed { bytes } => *bytes as f64,
            SizeDist::Exponential { mean_bytes } => -mean_bytes * (1.0 - u).ln(),
            SizeDist::Pareto { mean_bytes, shape } => {
                // Scale x_m = mean (a - 1) / a; x = x_m / (1 - u)^(1/a), 1 - u in (0, 1].
                let xm = mean_bytes * (shape - 1.0) / shape;
                xm / (1.0 - u).powf(1.0 / shape)
            }
            SizeDist::Empirical { points } => empirical(points, u),
        };
        (bytes.round().min(u64::MAX as f64) as u64).max(1)
    }

    /// The size bucket of `bytes`: the first edge at or above it, else the last bucket.
    fn bucket_of(&self, bytes: u64) -> usize {
        self.buckets.partition_point(|&edge| edge < bytes)
    }
}

/// Inverse of an empirical CDF at `u`, linear between points (ns-2's
/// EmpiricalRandomVariable with interpolation): below the first point's probability, the
/// first size.
fn empirical(points: &[(u64, f64)], u: f64) -> f64 {
    let i = points.partition_point(|&(_, p)| p < u);
    if i == 0 {
        return points[0].0 as f64;
    }
    let Some(&(x1, p1)) = points.get(i) else {
        return points[points.len() - 1].0 as f64;
    };
    // p0 < u <= p1 here (the search's partition), so the span is never empty.
    let (x0, p0) = points[i - 1];
    x0 as f64 + (x1 as f64 - x0 as f64) * (u - p0) / (p1 - p0)
}

impl World {
    /// Schedules each workload's first arrival (at build).
    pub(super) fn schedule_first_arrivals(&mut self) {
        for wi in 0..self.workloads.len() {
            if let Some(t) = self.workloads[wi].next_arrival(None) {
                self.q.schedule(t, Event::WorkloadArrival(wi as u32));
            }
        }
    }

    /// A flow of workload `wi` arrives: it takes a free connection slot (or a new one),
    /// connects and writes its size; the workload's next arrival is scheduled first.
    pub(super) fn on_workload_arrival(&mut self, now: Instant, wi: usize) {
        if let Some(t) = self.workloads[wi].next_arrival(Some(now)) {
            self.q.schedule(t, Event::WorkloadArrival(wi as u32));
        }
        let f = match self.free_slots.pop() {
            Some(f) => f as usize,
            None => {
                let f = self.flows.len();
                if 2 * f + 1 > MAX_INDEX as usize {
                    let msg = format!(
                        "workload '{}': a flow arrived with {} connections alive; at most {} \
                         fit (it was not started)",
                        self.workloads[wi].name,
                        f,
                        MAX_INDEX / 2
                    );
                    self.violation(msg);
                    return;
                }
                f
            }
        };
        let serial = self.workload_serial;
        self.workload_serial += 1;
        let w = &mut self.workloads[wi];
        let size = w.draw_size();
        let id = w.arrived;
        w.arrived += 1;
        w.active += 1;
        w.max_active = w.max_active.max(w.active);
        w.bytes_arrived += size;
        let b = w.bucket_of(size);
        w.arrived_buckets[b] += 1;
        // ISNs and the sender's random stream come from the flow's serial number among all
        // workload flows (after the scenario's own connections): never from the slot, which
        // is reused.
        let conn = (self.static_flows as u64).saturating_add(serial);
        let isn = [
            SeqNo(Rng::derive(self.seed, conn, "isn-sender").next_u32()),
            SeqNo(Rng::derive(self.seed, conn, "isn-receiver").next_u32()),
        ];
        let mut snd = Endpoint::new(w.snd_cfg.clone(), isn[0]);
        snd.set_peer_ts_granularity(w.rcv_cfg.ts_granularity);
        snd.set_rng_seed(self.seed, conn);
        let mut rcv = Endpoint::new(w.rcv_cfg.clone(), isn[1]);
        rcv.listen();
        let mut fl = FlowState::new(
            format!("{}#{id}", w.name),
            (w.src, w.dst),
            now,
            (w.route_fwd.clone(), w.route_rev.clone()),
            (w.cc.clone(), w.fc.clone()),
            Reader::Unlimited,
            self.record.exact_percentiles,
            isn,
        );
        fl.bytes = Some(size);
        fl.workload = Some(WorkloadConn {
            workload: wi as u32,
            id,
        });
        if f == self.flows.len() {
            self.flows.push(fl);
            for ep in [snd, rcv] {
                self.eps.push(super::EpSlot {
                    ep,
                    wake: Instant::MAX,
                });
            }
        } else {
            self.flows[f] = fl;
            self.eps[2 * f].ep = snd;
            self.eps[2 * f + 1].ep = rcv;
        }
        self.flows[f].started = true;
        self.eps[2 * f].ep.connect(now);
        self.bulk_write(now, f);
        self.drain(now, 2 * f);
    }

    /// Ends workload flow `f` if it is over: its last byte read, its FIN acknowledged and
    /// no packet of it left in the network. Its row is kept, its checks run, and its slot
    /// is free for a later arrival.
    pub(super) fn maybe_release(&mut self, now: Instant, f: usize) {
        let fl = &self.flows[f];
        let Some(wc) = fl.workload else { return };
        if fl.released
            || fl.finished_at.is_none()
            || fl.inflight != 0
            || !self.eps[2 * f].ep.all_data_acked()
        {
            return;
        }
        let mut msgs = Vec::new();
        self.flow_checks(f, now, &mut msgs);
        for m in msgs {
            self.violation(m);
        }
        let rec = self.record_of(f);
        let w = &mut self.workloads[wc.workload as usize];
        w.end_flow(rec);
        w.active -= 1;
        let fl = &mut self.flows[f];
        fl.released = true;
        // Its timer events still in the heap are stale from now on.
        self.eps[2 * f].wake = Instant::MAX;
        self.eps[2 * f + 1].wake = Instant::MAX;
        self.free_slots.push(f as u32);
    }

    fn record_of(&self, f: usize) -> FlowRecord {
        let fl = &self.flows[f];
        let snd = self.eps[2 * f].ep.stats();
        FlowRecord {
            id: fl.workload.map_or(0, |w| w.id),
            size: fl.bytes.unwrap_or(0),
            start: fl.start,
            finished: fl.completed_at,
            read: fl.read,
            data_pkts: fl.data_pkts_delivered,
            retransmits: snd.retransmitted_segments,
            timeouts: snd.timeouts,
        }
    }

    /// True once no workload has an arrival to come or a flow alive.
    pub(super) fn workloads_done(&self) -> bool {
        self.workloads.iter().all(|w| w.exhausted && w.active == 0)
    }

    /// The workloads' summaries and flow table, the flows alive at the end included (not
    /// complete unless their last byte was read: released or not).
    pub(super) fn workload_reports(&mut self) -> (Vec<WorkloadSummary>, WorkloadFlows) {
        for f in self.static_flows..self.flows.len() {
            if !self.flows[f].released {
                let rec = self.record_of(f);
                let wi = self.flows[f].workload.expect("a workload flow").workload as usize;
                self.workloads[wi].end_flow(rec);
            }
        }
        let mut table = WorkloadFlows::default();
        let mut out = Vec::with_capacity(self.workloads.len());
        for (wi, w) in self.workloads.iter_mut().enumerate() {
            w.records.sort_unstable_by_key(|r| r.id);
            for r in &w.records {
                table.workload.push(wi as u32);
                table.id.push(r.id);
                table.size_bytes.push(r.size);
                table.start_ns.push(r.start.as_nanos());
                table
                    .fct_ns
                    .push(r.finished.map(|t| t.as_nanos() - r.start.as_nanos()));
                table.bytes_delivered.push(r.read);
                table.retransmits.push(r.retransmits);
                table.timeouts.push(r.timeouts);
            }
            let window = w.stop.as_nanos().saturating_sub(w.start.as_nanos()) as f64 * 1e-9;
            let buckets = (0..w.fct_buckets.len())
                .map(|b| FctBucket {
                    min_bytes: if b == 0 { 1 } else { w.buckets[b - 1] + 1 },
                    max_bytes: w.buckets.get(b).copied(),
                    fct_ms: fct_stats(&mut w.fct_buckets[b], w.arrived_buckets[b]),
                })
                .collect();
            let completed = w.fct.count();
            out.push(WorkloadSummary {
                name: w.name.clone(),
                direction: format!("{}->{}", self.nodes[w.src], self.nodes[w.dst]),
                cc: w.cc.clone(),
                fc: w.fc.clone(),
                arrived: w.arrived,
                completed,
                // Not complete (a flow whose last byte was read but whose FIN is still
                // unacknowledged holds its slot, yet is complete).
                active_at_end: w.arrived - completed,
                max_active: w.max_active,
                bytes_arrived: w.bytes_arrived,
                offered_mbps: if window > 0.0 {
                    w.bytes_arrived as f64 * 8.0 / window * 1e-6
                } else {
                    0.0
                },
                bytes_delivered: w.ended_bytes_read,
                data_packets_delivered: w.ended_data_pkts,
                fct_ms: fct_stats(&mut w.fct, w.arrived),
                buckets,
            });
            // Every flow that arrived has its row: ended ones from their release, the rest
            // from just above.
            if w.keep_rows && w.records.len() as u64 != w.arrived {
                let msg = format!(
                    "workload '{}': {} flows arrived but {} have a row",
                    w.name,
                    w.arrived,
                    w.records.len()
                );
                if self.violations.len() < super::MAX_VIOLATIONS {
                    self.violations.push(msg);
                }
            }
        }
        (out, table)
    }
}

/// Completion times in milliseconds, from a workload's histogram (or exact samples).
fn fct_stats(h: &mut DelayStats, arrived: u64) -> FctStats {
    let n = h.count();
    if n == 0 {
        return FctStats {
            arrived,
            ..FctStats::default()
        };
    }
    let p = h.summary_ms();
    FctStats {
        arrived,
        completed: n,
        mean: p.mean,
        p50: p.p50,
        p95: p.p95,
        p99: h.quantile(0.99) as f64 * 1e-6,
        max: h.quantile(1.0) as f64 * 1e-6,
    }
}

#[cfg(test)]
mod tests {
    use super::empirical;

    #[test]
    fn empirical_cdf_interpolates_between_points() {
        let pts = [(100, 0.5), (300, 0.75), (1300, 1.0)];
        assert_eq!(empirical(&pts, 0.0), 100.0);
        assert_eq!(empirical(&pts, 0.5), 100.0);
        assert_eq!(empirical(&pts, 0.625), 200.0);
        assert_eq!(empirical(&pts, 0.875), 800.0);
        assert!((empirical(&pts, 0.999_999) - (1300.0 - 1000.0 * 0.000_001 / 0.25)).abs() < 1e-9);
        // A step (two points at one probability) jumps.
        let step = [(10, 0.5), (20, 0.5), (30, 1.0)];
        assert_eq!(empirical(&step, 0.5), 10.0);
        assert_eq!(empirical(&step, 0.75), 25.0);
    }
}
