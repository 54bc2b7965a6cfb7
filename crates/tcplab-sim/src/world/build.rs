//! Building a world from a valid scenario: links and their pcaps, flows and their endpoints,
//! applications, elements, the time series' layout and the event budget (`World::build`).

use super::*;

impl World {
    pub(super) fn build(scn: &Scenario) -> Result<World, SimError> {
        // Every rule lives in `validate`; what follows may rely on a valid scenario.
        let graph = crate::validate::validate(scn)?;
        let links = build_lines(scn, &graph)?;

        let mut flows = Vec::with_capacity(scn.flows.len());
        let mut eps = Vec::with_capacity(2 * scn.flows.len());
        for (fi, f) in scn.flows.iter().enumerate() {
            let at = |k: &str| format!("flows[{fi}] ('{}').{k}", f.name);
            let (src, dst, route_fwd, route_rev) =
                connection_ends(&graph, &at, ("src", &f.src), ("dst", &f.dst))?;
            let reader = match &f.read {
                ReadProfile::Unlimited => Reader::Unlimited,
                ReadProfile::Constant {
                    bps,
                    tick,
                    blocking,
                } => Reader::Paced {
                    rates_bps: vec![*bps],
                    slot: Duration::from_secs(1),
                    tick: *tick,
                    acc: 0,
                    blocking: *blocking,
                    leftover: 0,
                    tick_end: Instant::ZERO,
                    phase: Duration::ZERO,
                },
                ReadProfile::Pattern {
                    rates_bps,
                    slot,
                    tick,
                    blocking,
                    phase,
                } => Reader::Paced {
                    rates_bps: rates_bps.clone(),
                    slot: *slot,
                    tick: *tick,
                    acc: 0,
                    blocking: *blocking,
                    leftover: 0,
                    tick_end: Instant::ZERO,
                    phase: *phase,
                },
            };
            let rcfg = f.receiver_tcp.clone().unwrap_or_else(|| f.tcp.clone());
            let isn = initial_seqnos(scn.seed, fi);
            let mut snd = Endpoint::new(f.tcp.clone(), isn[0]);
            // The rate-based sender reads the receiver's TSval clock (thesis 4.1.2): it is
            // configured with that host's tick, as a deployment would be per client OS.
            snd.set_peer_ts_granularity(rcfg.ts_granularity);
            snd.set_rng_seed(scn.seed, fi as u64);
            let mut rcv = Endpoint::new(rcfg.clone(), isn[1]);
            rcv.listen();
            eps.push(EpSlot {
                ep: snd,
                wake: Instant::MAX,
            });
            eps.push(EpSlot {
                ep: rcv,
                wake: Instant::MAX,
            });
            let mut fl = FlowState::new(
                f.name.clone(),
                (src, dst),
                f.start,
                (route_fwd, route_rev),
                (serde_name(&f.tcp.cc), serde_name(&rcfg.fc)),
                reader,
                scn.record.exact_percentiles,
                isn,
            );
            fl.connect = f.connect.filter(|&c| c < f.start);
            fl.stop = f.stop;
            fl.pauses = f.pauses.iter().map(|p| (p.at, p.until)).collect();
            fl.bytes = f.bytes;
            flows.push(fl);
        }
        let pages = pages::build(
            scn,
            &graph,
            scn.record.exact_percentiles,
            &mut flows,
            &mut eps,
        )?;

        let workloads = workload::build(scn, &graph, Instant(scn.duration.as_nanos()))?;

        let elements = crate::element::build_all(scn, &graph, &mut |f| flows[f].route_fwd.clone())?
            .into_iter()
            .map(|(node, elem)| Slot::new(node, elem))
            .collect();

        let end = Instant(scn.duration.as_nanos());
        // A generous bound: a few events per packet each link can carry, plus timers and
        // application ticks per flow. Exceeding it means a livelock, not a busy network.
        let auto_budget = {
            let mut pkts: u128 = 0;
            for l in &links {
                pkts += l.rate.capacity_bytes(Instant::ZERO, end) as u128 / 40;
            }
            let ticks: u128 =
                scn.connection_count() as u128 * (end.as_nanos() as u128 / 100_000 + 10_000);
            // Workload flows are short-lived: timers and handshakes, per expected arrival.
            let arrivals: u128 = scn
                .workloads
                .iter()
                .map(|w| {
                    let window = w.stop.map_or(end, |s| s.min(end)).as_nanos();
                    let span = window.saturating_sub(w.start.as_nanos()) as f64 * 1e-9;
                    let n = match &w.arrivals {
                        crate::config::Arrivals::Poisson { per_second } => {
                            (per_second * span * 2.0 + 100.0).min(1e18) as u128
                        }
                        crate::config::Arrivals::Times { times } => times.len() as u128,
                    };
                    n.min(w.max_flows.unwrap_or(u64::MAX) as u128)
                })
                .sum();
            let ticks = ticks + arrivals * 10_000;
            (1_000_000 + 4 * pkts + 4 * ticks).min(u64::MAX as u128) as u64
        };
        let mut ts = TimeSeries::default();
        if scn.record.timeseries {
            ts.metrics = FLOW_METRICS
                .iter()
                .chain(LINK_METRICS.iter())
                .map(|s| s.to_string())
                .collect();
            ts.entities = flows
                .iter()
                .map(|f| ("flow".to_string(), f.name.clone()))
                .chain(links.iter().map(|l| ("link".to_string(), l.name.clone())))
                .collect();
        }
        let mut w = World {
            name: scn.name.clone(),
            seed: scn.seed,
            end,
            stop_when_done: scn.stop_when_done,
            budget: scn.event_budget.unwrap_or(auto_budget),
            q: EventQueue::new(),
            links,
            nodes: graph.nodes.clone(),
            flows,
            eps,
            pages,
            static_flows: 0,
            workloads,
            free_slots: Vec::new(),
            workload_serial: 0,
            elements,
            node_elements: vec![(0, 0); graph.nodes.len()],
            acts: Actions::default(),
            next_packet_id: 0,
            packets_consumed: 0,
            events: 0,
            violations: Vec::new(),
            record: scn.record.clone(),
            ts,
            sample_prev: Instant::ZERO,
            finished_at: end,
        };
        for fi in 0..w.flows.len() {
            let f = &w.flows[fi];
            if f.page.as_ref().is_some_and(|c| c.idx > 0) {
                // A page's other connections open once its HTML has arrived.
                continue;
            }
            let (start, stop) = (f.start, f.stop);
            if let Some(c) = f.connect {
                w.q.schedule(c, Event::FlowConnect(fi as u32));
            }
            // Before the start: of two events at one instant the one scheduled first runs
            // first, so a pause from `start` on holds from the very first write.
            if let Some(&(at, _)) = f.pauses.first() {
                if at < end {
                    w.q.schedule(at, Event::FlowPause(fi as u32));
                }
            }
            if start < end {
                w.q.schedule(start, Event::FlowStart(fi as u32));
                if let Reader::Paced { .. } = f.reader {
                    w.q.schedule(start, Event::AppRead(fi as u32));
                }
            }
            if let Some(s) = stop {
                if s < end {
                    w.q.schedule(s, Event::FlowStop(fi as u32));
                }
            }
        }
        w.static_flows = w.flows.len();
        w.schedule_first_arrivals();
        if w.record.timeseries {
            w.q.schedule(Instant::ZERO + w.record.interval, Event::Sample);
        }
        w.group_elements();
        Ok(w)
    }
}
