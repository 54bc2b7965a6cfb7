//! Every rule a canonical scenario must satisfy, in one place (issue 20: "one source of
//! truth for validation"): `World::build` calls it before building anything, and the
//! Python layer calls it (through `check_scenario_json`) for `tcplab validate` and every
//! `tcplab.load`, so validating and running accept exactly the same scenarios.
//!
//! Pure: it allocates in proportion to the scenario (never to a configured maximum),
//! creates no file, and reads no trace (trace files are parsed by `MahimahiTrace::parse`
//! when a scenario is loaded and again when it is built).

use crate::config::{RateSpec, ReadProfile, Scenario};
use crate::engine::MAX_INDEX;
use crate::link::RateModel;
use crate::loss::LossModel;
use crate::topology::Graph;
use crate::world::SimError;
use std::collections::BTreeSet;
use tcplab_core::Duration;

/// Most flows a scenario may have (docs/reliability.md): each costs two endpoints and
/// their events; a larger run needs a workload that creates flows as they start.
pub const MAX_FLOWS: usize = 1_000_000;

/// Checks `scn` and returns its expanded graph (which the caller may build from).
pub fn validate(scn: &Scenario) -> Result<Graph, SimError> {
    let cfg = |m: String| SimError::Config(m);
    if scn.duration == Duration::ZERO {
        return Err(cfg("duration: must be greater than zero".into()));
    }
    if scn.record.interval == Duration::ZERO {
        return Err(cfg("record.interval: must be greater than zero".into()));
    }
    if scn.flows.is_empty() {
        return Err(cfg("flows: a scenario needs at least one flow".into()));
    }
    if scn.flows.len() > MAX_FLOWS {
        return Err(cfg(format!(
            "flows: {} flows; at most {MAX_FLOWS} are supported",
            scn.flows.len()
        )));
    }
    let graph = Graph::from_spec(&scn.topology)?;
    let most = graph.links.len().max(2 * scn.flows.len());
    if most > MAX_INDEX as usize {
        return Err(cfg(format!(
            "the scenario has {most} links or endpoints; at most {MAX_INDEX} are supported"
        )));
    }
    for l in &graph.links {
        let at = |e: SimError| prefix(e, &format!("link '{}': ", l.name));
        match &l.spec.rate {
            RateSpec::Trace {
                opportunity_bytes, ..
            } => {
                if *opportunity_bytes == 0 {
                    return Err(cfg(format!(
                        "link '{}': opportunity must be at least 1 byte",
                        l.name
                    )));
                }
            }
            spec => {
                RateModel::from_spec(spec).map_err(at)?;
            }
        }
        LossModel::from_spec(&l.spec.loss).map_err(at)?;
        if let Some(w) = l.spec.delay_changes.windows(2).find(|w| w[1].at <= w[0].at) {
            return Err(cfg(format!(
                "link '{}': delay_changes must be in increasing time order ({} ns after {} ns)",
                l.name,
                w[1].at.as_nanos(),
                w[0].at.as_nanos()
            )));
        }
        if l.spec.queue.limit_packets == Some(0) || l.spec.queue.limit_bytes == Some(0) {
            return Err(cfg(format!(
                "link '{}': queue limit must be at least 1",
                l.name
            )));
        }
    }
    for p in &scn.record.pcap {
        if graph.link(&p.link).is_none() {
            let names: Vec<_> = graph.links.iter().map(|l| l.name.as_str()).collect();
            return Err(cfg(format!(
                "record.pcap: unknown link '{}' (links: {})",
                p.link,
                names.join(", ")
            )));
        }
    }
    let mut names = BTreeSet::new();
    for (fi, f) in scn.flows.iter().enumerate() {
        let at = |k: &str| format!("flows[{fi}] ('{}').{k}", f.name);
        if !names.insert(f.name.as_str()) {
            return Err(cfg(format!("{}: flow name used twice", at("name"))));
        }
        let node = |key: &str, name: &str| {
            graph.node(name).ok_or_else(|| {
                cfg(format!(
                    "{}: unknown node '{name}' (nodes: {})",
                    at(key),
                    graph.nodes.join(", ")
                ))
            })
        };
        let src = node("src", &f.src)?;
        let dst = node("dst", &f.dst)?;
        if src == dst {
            return Err(cfg(format!(
                "{}: source and destination are the same node",
                at("dst")
            )));
        }
        if graph.route(src, dst).is_none() {
            return Err(cfg(format!(
                "{}: no route from '{}' to '{}'",
                at("dst"),
                f.src,
                f.dst
            )));
        }
        if graph.route(dst, src).is_none() {
            return Err(cfg(format!(
                "{}: no route back from '{}' to '{}'",
                at("src"),
                f.dst,
                f.src
            )));
        }
        if f.bytes == Some(0) {
            return Err(cfg(format!(
                "{}: must be at least 1 byte (omit it for unlimited)",
                at("bytes")
            )));
        }
        if f.connect.is_some_and(|c| c > f.start) {
            return Err(cfg(format!("{}: must not be after start", at("connect"))));
        }
        if f.stop.is_some_and(|stop| stop <= f.start) {
            return Err(cfg(format!("{}: must be after start", at("stop"))));
        }
        match &f.read {
            ReadProfile::Unlimited => {}
            ReadProfile::Constant { tick, .. } => {
                if *tick == Duration::ZERO {
                    return Err(cfg(format!(
                        "{}: tick must be greater than zero",
                        at("read")
                    )));
                }
            }
            // A pattern of zero rates reads nothing, as a constant zero rate does: both are
            // valid (a receiver that never reads).
            ReadProfile::Pattern {
                rates_bps,
                slot,
                tick,
                ..
            } => {
                if rates_bps.is_empty() || *slot == Duration::ZERO || *tick == Duration::ZERO {
                    return Err(cfg(format!(
                        "{}: a pattern needs at least one rate and a non-zero slot and tick",
                        at("read")
                    )));
                }
            }
        }
        let rcfg = f.receiver_tcp.as_ref().unwrap_or(&f.tcp);
        for (side, c) in [("tcp", &f.tcp), ("receiver_tcp", rcfg)] {
            // 65535 - 20 (IPv4) - 20 (TCP) - 40 (the most TCP options a segment carries):
            // every segment then fits one IPv4 datagram.
            if c.mss < 64 || c.mss > 65_455 {
                return Err(cfg(format!(
                    "{}.mss: must be between 64 and 65455 bytes",
                    at(side)
                )));
            }
            if c.rcv_buf_bytes == 0 || c.snd_buf_bytes == 0 {
                return Err(cfg(format!(
                    "{}: buffers must be at least 1 byte",
                    at(side)
                )));
            }
            if c.ts_granularity == Duration::ZERO {
                return Err(cfg(format!(
                    "{}.ts_granularity: must be greater than zero",
                    at(side)
                )));
            }
        }
    }
    if !scn.elements.is_empty() {
        let mut routes = |f: usize| {
            let fl = &scn.flows[f];
            match (graph.node(&fl.src), graph.node(&fl.dst)) {
                (Some(s), Some(d)) => graph.route(s, d).unwrap_or_default(),
                _ => Vec::new(),
            }
        };
        crate::element::build_all(scn, &graph, &mut routes)?;
    }
    Ok(graph)
}

fn prefix(e: SimError, p: &str) -> SimError {
    match e {
        SimError::Config(m) => SimError::Config(format!("{p}{m}")),
        SimError::Trace(m) => SimError::Trace(format!("{p}{m}")),
        other => other,
    }
}
