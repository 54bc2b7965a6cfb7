//! What a run reports: the time series samples, the end-of-run invariants (the byte stream
//! delivered exactly once and in order, packets conserved at every link and across the
//! network, no flow or link beyond capacity) and the summary (`World::finish`).

use super::*;

impl World {
    pub(super) fn sample(&mut self, now: Instant) {
        let dt = now.saturating_since(self.sample_prev).as_secs_f64();
        self.sample_prev = now;
        let t = now.as_nanos();
        // The scenario's own connections only: workload flows come and go (their table is
        // `workload_flows`), and the series' entities are fixed at build.
        for f in 0..self.static_flows {
            let fl = &mut self.flows[f];
            let snd = &self.eps[2 * f].ep;
            let rcv = &self.eps[2 * f + 1].ep;
            let goodput = mbps(fl.read - fl.sampled_read, dt);
            fl.sampled_read = fl.read;
            let owd_ms = if fl.interval_owd_count > 0 {
                fl.interval_owd_sum_ns as f64 / fl.interval_owd_count as f64 * 1e-6
            } else {
                f64::NAN
            };
            fl.interval_owd_sum_ns = 0;
            fl.interval_owd_count = 0;
            let sent = snd.stats().data_bytes_sent;
            let sent_mbps = mbps(sent - fl.sampled_sent, dt);
            fl.sampled_sent = sent;
            let cc = snd.congestion_control();
            let pacing = cc
                .pacing_rate()
                .map(|r| r.as_mbps_f64())
                .unwrap_or(f64::NAN);
            let rate_state = cc.rate_state().map(rate_state_code).unwrap_or(f64::NAN);
            let vals = [
                goodput,
                snd.cwnd() as f64,
                rcv.advertised_window() as f64,
                snd.peer_window() as f64,
                snd.bytes_in_flight() as f64,
                snd.srtt().map(|d| d.as_millis_f64()).unwrap_or(f64::NAN),
                fl.read as f64,
                owd_ms,
                sent_mbps,
                pacing,
                rate_state,
            ];
            for (m, v) in vals.into_iter().enumerate() {
                self.ts.time_ns.push(t);
                self.ts.entity.push(f as u32);
                self.ts.metric.push(m as u16);
                self.ts.value.push(v);
            }
        }
        let nf = self.static_flows;
        for (li, l) in self.links.iter_mut().enumerate() {
            for (m, v) in l.sample(dt).into_iter().enumerate() {
                self.ts.time_ns.push(t);
                self.ts.entity.push((nf + li) as u32);
                self.ts.metric.push((FLOW_METRICS.len() + m) as u16);
                self.ts.value.push(v);
            }
        }
    }

    pub(super) fn check_invariants(&mut self) {
        let end = self.finished_at;
        let mut in_network = 0u64;
        let mut dropped = 0u64;
        let mut msgs = Vec::new();
        for l in &self.links {
            in_network += l.inside();
            dropped += l.dropped_queue + l.dropped_loss;
            l.check(end, &mut msgs);
        }
        // Each element kept count of what it saw, and what it holds is what it kept.
        let (mut absorbed, mut held) = (0u64, 0u64);
        for (i, e) in self.elements.iter().enumerate() {
            let now_held = e.elem.held();
            if let Err(m) = e.c.check(now_held) {
                msgs.push(format!(
                    "element {i} ({}) on node '{}': {m}",
                    e.elem.kind(),
                    self.nodes[e.node]
                ));
            }
            dropped += e.c.dropped;
            absorbed += e.c.absorbed;
            held += now_held;
        }
        // Packets are conserved over the whole network: every packet an endpoint or an
        // element created was consumed by an endpoint, dropped, absorbed by an element, or
        // is still inside a link or held by an element.
        if self.next_packet_id != self.packets_consumed + dropped + absorbed + in_network + held {
            msgs.push(format!(
                "network: packets not conserved: {} created != {} received + {} dropped + {} absorbed + {} in flight + {} held",
                self.next_packet_id, self.packets_consumed, dropped, absorbed, in_network, held
            ));
        }
        // Per connection: every packet created for it is delivered, gone or still inside.
        let alive = |f: &&FlowState| !f.released;
        let inflight: u64 = self
            .flows
            .iter()
            .filter(alive)
            .map(|f| f.inflight as u64)
            .sum();
        if inflight != in_network + held {
            msgs.push(format!(
                "network: connections count {inflight} packets in flight but {in_network} are inside links and {held} held by elements"
            ));
        }
        for f in 0..self.flows.len() {
            if !self.flows[f].released {
                self.flow_checks(f, end, &mut msgs);
            }
        }
        self.page_checks(&mut msgs);
        for m in msgs {
            self.violation(m);
        }
    }

    /// One connection's checks: its byte stream against what its application wrote, and
    /// its goodput against what its path could carry while it was active (`until` is the
    /// end of the run, or the moment a workload flow ended).
    pub(super) fn flow_checks(&self, f: usize, end: Instant, msgs: &mut Vec<String>) {
        let fl = &self.flows[f];
        for side in 0..2 {
            let st = self.eps[2 * f + side].ep.stats();
            if st.payload_tag_mismatches > 0 {
                msgs.push(format!(
                    "flow '{}': {} segments arrived with a payload that does not match their sequence numbers",
                    fl.name, st.payload_tag_mismatches
                ));
            }
        }
        // The byte stream against what the application wrote (`written`), and the
        // configured `bytes` only as what completion means.
        if let Some(b) = fl.bytes {
            if fl.written > b {
                msgs.push(format!(
                    "flow '{}': the application wrote {} bytes but only {} were configured",
                    fl.name, fl.written, b
                ));
            }
        }
        if fl.finished_at.is_some() && fl.read != fl.written {
            msgs.push(format!(
                "flow '{}': finished with {} bytes read of {} written",
                fl.name, fl.read, fl.written
            ));
        }
        if fl.completed_at.is_some() {
            match fl.bytes {
                Some(b) if fl.written == b && fl.read == b => {}
                Some(b) => msgs.push(format!(
                    "flow '{}': completed with {} bytes read and {} written of {} configured",
                    fl.name, fl.read, fl.written, b
                )),
                None => msgs.push(format!(
                    "flow '{}': an unlimited flow completed ({} bytes read, {} written)",
                    fl.name, fl.read, fl.written
                )),
            }
        }
        // Goodput can never exceed what the slowest link of the path could carry while
        // the flow was active: every byte read crossed every link after the flow started.
        let until = fl.finished_at.unwrap_or(end);
        if until > fl.start {
            for &l in &fl.route_fwd {
                // By `until` itself: a trace link may have carried the last byte read
                // in an opportunity at that very instant.
                let cap = self.links[l as usize]
                    .rate
                    .capacity_bytes_through(fl.start, until);
                if fl.read > cap {
                    msgs.push(format!(
                        "flow '{}': read {} bytes but link '{}' could carry only {} bytes while it was active",
                        fl.name, fl.read, self.links[l as usize].name, cap
                    ));
                }
            }
        }
    }

    pub(super) fn finish(mut self) -> RunOutput {
        self.check_invariants();
        for l in &mut self.links {
            if let Some(w) = l.pcap.as_mut() {
                if let Err(e) = w.flush() {
                    let msg = format!("pcap of link '{}': {e}", l.name);
                    self.violations.push(msg);
                }
            }
        }
        let end = self.finished_at;
        let (workloads, workload_flows) = self.workload_reports();
        let mut flows = Vec::with_capacity(self.static_flows);
        let mut cdfs = Vec::with_capacity(self.static_flows);
        // The scenario's own connections; workload flows are in `workload_flows`.
        for (f, fl) in self.flows.iter_mut().enumerate().take(self.static_flows) {
            let snd = self.eps[2 * f].ep.stats();
            let rcv = self.eps[2 * f + 1].ep.stats();
            if fl.fc == "afc" && !self.eps[2 * f + 1].ep.afc_negotiated() {
                // AFC on one side only: both ends run classic flow control (section 4.2.1).
                fl.fc = serde_name(&FcKind::Classic);
            }
            // Active until the flow finished (for a stopped flow: the later of its stop and
            // its last read), else until the end of the run.
            let until = fl.finished_at.unwrap_or(end);
            let active = until.saturating_since(fl.start).as_secs_f64();
            let goodput = if active > 0.0 {
                fl.read as f64 * 8.0 / active * 1e-6
            } else {
                0.0
            };
            cdfs.push((
                fl.name.clone(),
                fl.owd
                    .cdf()
                    .into_iter()
                    .map(|(v, c)| (v as f64 * 1e-6, c))
                    .collect::<Vec<_>>(),
            ));
            let (s_ep, r_ep) = (&self.eps[2 * f].ep, &self.eps[2 * f + 1].ep);
            flows.push(FlowSummary {
                id: f as u32,
                name: fl.name.clone(),
                direction: format!("{}->{}", self.nodes[fl.src], self.nodes[fl.dst]),
                cc: fl.cc.clone(),
                fc: fl.fc.clone(),
                cc_effective: serde_name(&s_ep.cc_effective()),
                fc_effective: serde_name(&r_ep.fc_effective()),
                fallbacks: fallbacks(s_ep, r_ep),
                goodput_mbps: goodput,
                bytes_delivered: fl.read,
                bytes_written: fl.written,
                data_packets_delivered: fl.data_pkts_delivered,
                retransmits: snd.retransmitted_segments,
                timeouts: snd.timeouts,
                spurious_timeouts: snd.spurious_timeouts,
                fast_retransmits: snd.fast_retransmits,
                zero_window_events: snd.zero_window_events.max(rcv.zero_windows_advertised),
                stall_window_events: snd.stall_window_events,
                zero_window_probes: snd.zero_window_probes_sent,
                rcv_buffer_drops: rcv.afc_overflow_drops,
                proactive_acks: rcv.afc_proactive_acks,
                owd_ms: fl.owd.summary_ms(),
                rtt_ms: fl.rtt.summary_ms(),
                start_s: fl.start.as_secs_f64(),
                completion_s: fl.completed_at.map(|t| t.as_secs_f64()),
                ecn: crate::output::EcnSummary::of(&self.eps[2 * f].ep, &self.eps[2 * f + 1].ep),
                rsfc: crate::output::RsfcSummary::of(&self.eps[2 * f + 1].ep, end),
            });
        }
        let links = self
            .links
            .iter()
            .map(|l| l.summary(&self.nodes, end))
            .collect();
        let g: Vec<f64> = flows.iter().map(|f| f.goodput_mbps).collect();
        let summary = Summary {
            schema: SUMMARY_SCHEMA,
            scenario: self.name.clone(),
            seed: self.seed,
            scenario_sha256: String::new(),
            duration_s: end.as_secs_f64(),
            events: self.events,
            wall_s: 0.0,
            invariants: Invariants {
                ok: self.violations.is_empty(),
                violations: self.violations.clone(),
            },
            flows,
            links,
            elements: self
                .elements
                .iter()
                .map(|e| ElementSummary::of(e, &self.nodes))
                .collect(),
            jain_fairness: jain(&g),
            pages: self
                .page_reports()
                .into_iter()
                .map(|p| crate::output::PageSummary {
                    name: p.name,
                    start_s: p.start_s,
                    objects: p.objects as u64,
                    bytes: p.bytes,
                    objects_done: p.objects_done as u64,
                    connections_opened: p.connections_opened as u64,
                    load_time_s: p.load_time_s,
                })
                .collect(),
            workloads,
        };
        RunOutput {
            summary,
            timeseries: self.ts,
            owd_cdf_ms: cdfs,
            workload_flows,
        }
    }
}

/// Jain's fairness index (Jain, Chiu, Hawe 1984): (sum x)^2 / (n sum x^2).
pub fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    if x.is_empty() || s2 == 0.0 {
        return 1.0;
    }
    s * s / (x.len() as f64 * s2)
}

/// Per-flow time-series metrics, in the order `sample` records them.
pub const FLOW_METRICS: [&str; 11] = [
    "goodput_mbps",
    "cwnd_bytes",
    "rwnd_bytes",
    "peer_window_bytes",
    "in_flight_bytes",
    "srtt_ms",
    "delivered_bytes",
    "owd_ms",
    "sent_mbps",
    "pacing_rate_mbps",
    "rate_state",
];

/// `bytes` over `dt_s` seconds, in Mbit/s (the time series' rates).
fn mbps(bytes: u64, dt_s: f64) -> f64 {
    bytes as f64 * 8.0 / dt_s * 1e-6
}

/// `rate_state` in the time series: the rate-based framework's state as a number (thesis
/// Figure 4.2(b)); window-based senders record NaN.
fn rate_state_code(s: tcplab_core::rate::RateState) -> f64 {
    use tcplab_core::rate::RateState::*;
    match s {
        SlowStart => 0.0,
        BufferFill => 1.0,
        BufferDrain => 2.0,
        Monitor => 3.0,
    }
}

/// What ran as another than configured on one flow (issue 35): the sender's controller,
/// the receiver's policy, and the sender's own AFC half (AFC needs both ends' option).
fn fallbacks(snd: &Endpoint, rcv: &Endpoint) -> Vec<crate::output::Fallback> {
    let mut out = Vec::new();
    let mut note = |end: &str, key: &str, configured: String, effective: String, why: &str| {
        out.push(crate::output::Fallback {
            end: end.into(),
            key: key.into(),
            configured,
            effective,
            why: why.into(),
        })
    };
    if let Some(why) = snd.cc_fallback() {
        let c = snd.config().cc;
        note(
            "sender",
            "cc",
            serde_name(&c),
            serde_name(&snd.cc_effective()),
            why,
        );
    }
    for (end, ep) in [("receiver", rcv), ("sender", snd)] {
        if let Some(why) = ep.fc_fallback() {
            let c = ep.config().fc;
            note(
                end,
                "fc",
                serde_name(&c),
                serde_name(&ep.fc_effective()),
                why,
            );
        }
    }
    out
}
