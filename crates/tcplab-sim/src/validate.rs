//! Every rule a canonical scenario must satisfy, in one place (issue 20: "one source of
//! truth for validation"): `World::build` calls it before building anything, and the
//! Python layer calls it (through `check_scenario_json`) for `tcplab validate` and every
//! `tcplab.load`, so validating and running accept exactly the same scenarios.
//!
//! Pure: it allocates in proportion to the scenario (never to a configured maximum),
//! creates no file, and reads no trace (trace files are parsed by `MahimahiTrace::parse`
//! when a scenario is loaded and again when it is built).

use crate::config::{Discipline, LinkSpec, RateSpec, ReadProfile, Scenario};
use crate::engine::MAX_INDEX;
use crate::error::SimError;
use crate::link::RateModel;
use crate::loss::LossModel;
use crate::topology::Graph;
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
    if scn.flows.is_empty() && scn.pages.is_empty() && scn.workloads.is_empty() {
        return Err(cfg(
            "flows: a scenario needs at least one flow (or page, or workload)".into(),
        ));
    }
    if scn.connection_count() > MAX_FLOWS {
        return Err(cfg(format!(
            "flows: {} flows and page connections; at most {MAX_FLOWS} are supported",
            scn.connection_count()
        )));
    }
    let graph = Graph::from_spec(&scn.topology)?;
    let most = graph.links.len().max(2 * scn.connection_count());
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
        // The link's own rules, shared with building it (no trace is read for them).
        crate::link::check_rate_changes(&l.spec.rate, &l.spec.rate_changes).map_err(at)?;
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
        check_red(&l.spec).map_err(|m| cfg(format!("link '{}': {m}", l.name)))?;
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
        // Pauses of the sending application: each a non-empty [at, until), in order and
        // apart (the flow toggles between writing and not at each edge), none before the
        // application starts. Past `stop` or the end of the run they do nothing, as `stop`
        // past the end does nothing.
        for (k, p) in f.pauses.iter().enumerate() {
            let key = |x: &str| at(&format!("pauses[{k}].{x}"));
            if p.at < f.start {
                return Err(cfg(format!(
                    "{}: a pause must not begin before the flow starts ({} ns before {} ns)",
                    key("at"),
                    p.at.as_nanos(),
                    f.start.as_nanos()
                )));
            }
            if let Some(prev) = k.checked_sub(1).map(|j| f.pauses[j]) {
                if p.at < prev.until {
                    return Err(cfg(format!(
                        "{}: pauses must be in increasing time order and must not overlap \
                         (this one begins at {} ns, before the previous one ends at {} ns)",
                        key("at"),
                        p.at.as_nanos(),
                        prev.until.as_nanos()
                    )));
                }
            }
            if p.until <= p.at {
                return Err(cfg(format!(
                    "{}: must be after at ({} ns is not after {} ns)",
                    key("until"),
                    p.until.as_nanos(),
                    p.at.as_nanos()
                )));
            }
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
                phase,
                ..
            } => {
                if rates_bps.is_empty() || *slot == Duration::ZERO || *tick == Duration::ZERO {
                    return Err(cfg(format!(
                        "{}: a pattern needs at least one rate and a non-zero slot and tick",
                        at("read")
                    )));
                }
                if phase.as_nanos() >= slot.as_nanos() * rates_bps.len() as u64 {
                    return Err(cfg(format!(
                        "{}: phase must be shorter than the pattern's cycle",
                        at("read")
                    )));
                }
            }
        }
        let rcfg = f.receiver_tcp.as_ref().unwrap_or(&f.tcp);
        for (side, c) in [("tcp", &f.tcp), ("receiver_tcp", rcfg)] {
            check_tcp(&at(side), c).map_err(cfg)?;
        }
        let rside = if f.receiver_tcp.is_some() {
            "receiver_tcp"
        } else {
            "tcp"
        };
        check_ends((&at("tcp"), &f.tcp), (&at(rside), rcfg)).map_err(cfg)?;
    }
    for (pi, p) in scn.pages.iter().enumerate() {
        let at = |k: &str| format!("pages[{pi}] ('{}').{k}", p.name);
        if !names.insert(p.name.as_str()) {
            return Err(cfg(format!(
                "{}: name used twice (flows and pages share names)",
                at("name")
            )));
        }
        for (key, name) in [("client", &p.client), ("server", &p.server)] {
            if graph.node(name).is_none() {
                return Err(cfg(format!(
                    "{}: unknown node '{name}' (nodes: {})",
                    at(key),
                    graph.nodes.join(", ")
                )));
            }
        }
        if p.client == p.server {
            return Err(cfg(format!(
                "{}: the client and the server are the same node",
                at("server")
            )));
        }
        if p.connections == 0 || p.connections > 64 {
            return Err(cfg(format!(
                "{}: must be between 1 and 64",
                at("connections")
            )));
        }
        if p.request_bytes == 0 {
            return Err(cfg(format!("{}: must be at least 1 byte", at("request"))));
        }
        if p.objects.is_empty() || p.objects.contains(&0) {
            return Err(cfg(format!(
                "{}: a page needs at least one object, each at least 1 byte",
                at("objects")
            )));
        }
        check_tcp(&at("tcp"), &p.tcp).map_err(cfg)?;
        if let Some(t) = &p.server_tcp {
            check_tcp(&at("server_tcp"), t).map_err(cfg)?;
        }
        // Data flows both ways on a page's connections (requests and objects): each end is
        // a sender and a receiver.
        let client = (at("tcp"), &p.tcp);
        let server = match &p.server_tcp {
            Some(t) => (at("server_tcp"), t),
            None => (at("tcp"), &p.tcp),
        };
        check_ends((&server.0, server.1), (&client.0, client.1)).map_err(cfg)?;
        check_ends((&client.0, client.1), (&server.0, server.1)).map_err(cfg)?;
    }
    for (wi, w) in scn.workloads.iter().enumerate() {
        if !names.insert(w.name.as_str()) {
            return Err(cfg(format!(
                "workloads[{wi}] ('{}').name: name used twice (flows, pages and workloads share names)",
                w.name
            )));
        }
        check_workload(scn, &graph, wi, w).map_err(cfg)?;
    }
    if !scn.elements.is_empty() {
        let mut routes = |f: usize| {
            let (src, dst) = scn.connection_ends(f);
            match (graph.node(src), graph.node(dst)) {
                (Some(s), Some(d)) => graph.route(s, d).unwrap_or_default(),
                _ => Vec::new(),
            }
        };
        crate::element::build_all(scn, &graph, &mut routes)?;
    }
    Ok(graph)
}

/// The rules of one open-loop workload (`WorkloadSpec`).
fn check_workload(
    scn: &Scenario,
    graph: &Graph,
    wi: usize,
    w: &crate::config::WorkloadSpec,
) -> Result<(), String> {
    use crate::config::{Arrivals, SizeDist};
    let at = |k: &str| format!("workloads[{wi}] ('{}').{k}", w.name);
    let mut ends = [0usize; 2];
    for (i, (key, name)) in [("src", &w.src), ("dst", &w.dst)].into_iter().enumerate() {
        ends[i] = graph.node(name).ok_or_else(|| {
            format!(
                "{}: unknown node '{name}' (nodes: {})",
                at(key),
                graph.nodes.join(", ")
            )
        })?;
    }
    if ends[0] == ends[1] {
        return Err(format!("{}: the same node as src", at("dst")));
    }
    let fwd = graph
        .route(ends[0], ends[1])
        .ok_or_else(|| format!("{}: no route from '{}' to '{}'", at("dst"), w.src, w.dst))?;
    let rev = graph.route(ends[1], ends[0]).ok_or_else(|| {
        format!(
            "{}: no route back from '{}' to '{}'",
            at("src"),
            w.dst,
            w.src
        )
    })?;
    // Elements keep per-connection state sized when the world is built (BSF's flow table,
    // DARCA's connection slots); connections created during the run have no place there.
    for &l in fwd.iter().chain(&rev) {
        let node = &graph.nodes[graph.links[l as usize].to];
        if scn.elements.iter().any(|e| &e.node == node) {
            return Err(format!(
                "{}: the workload's route passes node '{node}', which has an element; elements \
                 see only the scenario's [[flows]] and [[pages]] (workloads through elements are \
                 not supported yet)",
                at("dst")
            ));
        }
    }
    match &w.arrivals {
        Arrivals::Poisson { per_second } => {
            if !(per_second.is_finite() && *per_second > 0.0) {
                return Err(format!(
                    "{}: the arrival rate must be a positive number of flows per second",
                    at("arrivals.rate")
                ));
            }
        }
        Arrivals::Times { times } => {
            if times.is_empty() {
                return Err(format!("{}: no arrival times", at("arrivals")));
            }
            if let Some(i) = times.windows(2).position(|t| t[1] < t[0]) {
                return Err(format!(
                    "{}: arrival times must not decrease (time {} is {} s, before {} s)",
                    at("arrivals"),
                    i + 2,
                    times[i + 1].as_secs_f64(),
                    times[i].as_secs_f64()
                ));
            }
        }
    }
    let positive = |v: f64, key: &str, what: &str| {
        if v.is_finite() && v >= 1.0 {
            Ok(())
        } else {
            Err(format!("{}: {what} must be at least 1 byte", at(key)))
        }
    };
    match &w.sizes {
        SizeDist::Fixed { bytes } => positive(*bytes as f64, "sizes.bytes", "the size")?,
        SizeDist::Exponential { mean_bytes } => positive(*mean_bytes, "sizes.mean", "the mean")?,
        SizeDist::Pareto { mean_bytes, shape } => {
            positive(*mean_bytes, "sizes.mean", "the mean")?;
            if !(shape.is_finite() && *shape > 1.0) {
                return Err(format!(
                    "{}: must be greater than 1 (a Pareto law of shape <= 1 has no mean)",
                    at("sizes.shape")
                ));
            }
        }
        SizeDist::Empirical { points } => {
            if points.is_empty() {
                return Err(format!("{}: an empty CDF", at("sizes.cdf")));
            }
            for (i, &(b, p)) in points.iter().enumerate() {
                if b == 0 || !(0.0..=1.0).contains(&p) {
                    return Err(format!(
                        "{}: point {} ({b} bytes, {p}): sizes must be at least 1 byte and                          probabilities within [0, 1]",
                        at("sizes.cdf"),
                        i + 1
                    ));
                }
                if i > 0 && (b < points[i - 1].0 || p < points[i - 1].1) {
                    return Err(format!(
                        "{}: point {} ({b} bytes, {p}) is below the one before it; sizes and                          probabilities must not decrease",
                        at("sizes.cdf"),
                        i + 1
                    ));
                }
            }
            let last = points[points.len() - 1].1;
            if last != 1.0 {
                return Err(format!(
                    "{}: the last probability is {last}; a CDF ends at 1",
                    at("sizes.cdf")
                ));
            }
        }
    }
    if let Some(stop) = w.stop {
        if stop <= w.start {
            return Err(format!(
                "{}: must be after start ({} s)",
                at("stop"),
                w.start.as_secs_f64()
            ));
        }
    }
    if w.max_flows == Some(0) {
        return Err(format!("{}: must be at least 1", at("max_flows")));
    }
    if w.size_buckets.contains(&0) || w.size_buckets.windows(2).any(|b| b[1] <= b[0]) {
        return Err(format!(
            "{}: edges must be at least 1 byte and strictly increasing",
            at("size_buckets")
        ));
    }
    check_tcp(&at("tcp"), &w.tcp)?;
    let rcv = w.receiver_tcp.as_ref().unwrap_or(&w.tcp);
    if let Some(t) = &w.receiver_tcp {
        check_tcp(&at("receiver_tcp"), t)?;
    }
    let rside = if w.receiver_tcp.is_some() {
        "receiver_tcp"
    } else {
        "tcp"
    };
    check_ends((&at("tcp"), &w.tcp), (&at(rside), rcv))
}

/// The mechanisms a connection's two ends make impossible (issue 35: a sender that cannot
/// run as configured is refused here rather than quietly run as another at the handshake,
/// `Endpoint::establish`). `snd` sends the data and `rcv` receives it, each with the key
/// path of its table. Timestamps are used only when both ends offer them (RFC 7323 3.2).
/// The one place these rules live: `validate` and `run` (and the Python layer, through
/// `check_scenario_json`) all come here.
fn check_ends(
    snd: (&str, &tcplab_core::tcp::TcpConfig),
    rcv: (&str, &tcplab_core::tcp::TcpConfig),
) -> Result<(), String> {
    use tcplab_core::cc::CcKind;
    use tcplab_core::fc::FcKind;
    // The first end (sender, then receiver) with timestamps off, and why: a profile that
    // turns them off is named, since the table itself may not say `timestamps` at all.
    let why = |c: &tcplab_core::tcp::TcpConfig| {
        if tcplab_core::tcp::TcpConfig::for_profile(c.profile).timestamps {
            String::new()
        } else {
            format!(" (profile \"{}\" sets it false)", serde_name(&c.profile))
        }
    };
    let ts_off = [snd, rcv]
        .into_iter()
        .find(|(_, c)| !c.timestamps)
        .map(|(at, c)| (at, why(c)));
    let both = "timestamps are used only when both ends offer them (RFC 7323 3.2)";
    if let (true, Some((at, because))) = (snd.1.cc.is_rate_based(), &ts_off) {
        return Err(format!(
            "{at}.timestamps: cc = \"{}\" is rate-based: the framework reads the receiver's clock \
             from its TSval (thesis 4.3.4), and {both}; the sender and the receiver need \
             timestamps = true{because}",
            serde_name(&snd.1.cc)
        ));
    }
    if snd.1.cc == CcKind::Sprout && rcv.1.cc != CcKind::Sprout {
        return Err(format!(
            "{}.cc: cc = \"sprout\" needs the receiver's forecast, which only a receiver with \
             cc = \"sprout\" sends (its option is negotiated on the SYN: rate::sprout); the \
             receiver has cc = \"{}\"",
            rcv.0,
            serde_name(&rcv.1.cc)
        ));
    }
    if rcv.1.fc == FcKind::Rsfc {
        if !rcv.1.timestamps {
            return Err(format!(
                "{}.timestamps: fc = \"rsfc\" reads delays off TCP timestamps (RSFC paper III-D); \
                 the receiver needs timestamps = true{}",
                rcv.0,
                why(rcv.1)
            ));
        }
        if let Some((at, because)) = &ts_off {
            return Err(format!(
                "{at}.timestamps: fc = \"rsfc\" reads delays off TCP timestamps (RSFC paper \
                 III-D), and {both}; the sender and the receiver need timestamps = true{because}"
            ));
        }
    }
    Ok(())
}

/// A value's scenario name (its serde name: `proprate-high`, not `PropRateHigh`), for
/// messages and summaries.
pub(crate) fn serde_name<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::new(),
    }
}

/// The per-endpoint TCP rules; `at` names the table (`flows[0] ('f').tcp`).
fn check_tcp(at: &str, c: &tcplab_core::tcp::TcpConfig) -> Result<(), String> {
    // 65535 - 20 (IPv4) - 20 (TCP) - 40 (the most TCP options a segment carries):
    // every segment then fits one IPv4 datagram.
    if c.mss < 64 || c.mss > 65_455 {
        return Err(format!("{}.mss: must be between 64 and 65455 bytes", at));
    }
    if c.rcv_buf_bytes == 0 || c.snd_buf_bytes == 0 {
        return Err(format!("{}: buffers must be at least 1 byte", at));
    }
    if c.ts_granularity == Duration::ZERO {
        return Err(format!("{}.ts_granularity: must be greater than zero", at));
    }
    // M-TCP's freeze (TcpConfig::zero_window_freeze) and AFC's sender (its zero-window flag
    // turns a timeout into a probe, AFC paper Algorithm 4) both decide what a zero window
    // does to the retransmission timer: one of them at a time.
    if c.zero_window_freeze && c.fc == tcplab_core::fc::FcKind::Afc {
        return Err(format!(
            "{}.zero_window_freeze: not with fc = \"afc\": AFC's sender has its own \
             zero-window rule (AFC paper Algorithm 4); use one of them",
            at
        ));
    }
    // RSFC's parameters (fc::rsfc).
    if c.rsfc_threshold == Some(Duration::ZERO) {
        return Err(format!(
            "{}.rsfc_threshold: must be \"rtt_min\" or greater than zero",
            at
        ));
    }
    if c.rsfc_initial_window_pkts == 0 || c.rsfc_initial_window_pkts > 1 << 20 {
        return Err(format!(
            "{}.rsfc_initial_window_pkts: must be between 1 and 1048576",
            at
        ));
    }
    if !(1..=4).contains(&c.max_sack_blocks) {
        return Err(format!(
            "{}.max_sack_blocks: must be 1 to 4 (the SACK option's most), got {}",
            at, c.max_sack_blocks
        ));
    }
    if !(c.rsfc_rho_increase > 0.0 && c.rsfc_rho_increase <= 10.0) {
        return Err(format!(
            "{}.rsfc_rho_increase: must be above 0 and at most 10, got {}",
            at, c.rsfc_rho_increase
        ));
    }
    // Sprout-Rate's forecast (rate::sprout_forecast): the bounds keep its shared count table
    // (bins x horizon x packets per tick) to a few megabytes and its build to about a second.
    if !(c.sprout_percentile > 0.0 && c.sprout_percentile < 100.0) {
        return Err(format!(
            "{}.sprout_percentile: must be above 0 and below 100, got {}",
            at, c.sprout_percentile
        ));
    }
    if c.sprout_tick < Duration::from_millis(10) || c.sprout_tick > Duration::from_secs(1) {
        return Err(format!("{}.sprout_tick: must be between 10 ms and 1 s", at));
    }
    if !(c.sprout_sigma >= 0.0 && c.sprout_sigma <= 100_000.0) {
        return Err(format!(
            "{}.sprout_sigma: must be between 0 and 100000 packets/s per sqrt(s), got {}",
            at, c.sprout_sigma
        ));
    }
    let per_tick = c.sprout_max_rate * c.sprout_tick.as_nanos() as f64 / 1e9;
    if !(c.sprout_max_rate > 0.0 && per_tick <= 250.0) {
        return Err(format!(
            "{}.sprout_max_rate: must be above 0 and at most 250 packets per sprout_tick, got {} packets/s ({:.1} per tick)",
            at, c.sprout_max_rate, per_tick
        ));
    }
    // PropRate for a delay target: below 20 ms the one-way delay is mostly the path's base
    // delay and the 1 ms timestamp tick; above 2 s the 4 s histogram of the controller's
    // window would clip the tail it measures.
    if c.proprate_target_delay < Duration::from_millis(20)
        || c.proprate_target_delay > Duration::from_secs(2)
    {
        return Err(format!(
            "{}.proprate_target_delay: must be between 20 ms and 2 s",
            at
        ));
    }
    // PROTEUS-Rate (rate::proteus_rate): its tick is a tenth of the window, at least 10 ms;
    // the tree needs two samples (3 lags + 2 windows) and is refitted every window, so the
    // history is bounded to keep a refit cheap.
    if c.proteus_window < Duration::from_millis(10) || c.proteus_window > Duration::from_secs(10) {
        return Err(format!(
            "{}.proteus_window: must be between 10 ms and 10 s",
            at
        ));
    }
    if !(5..=1024).contains(&c.proteus_history) {
        return Err(format!(
            "{}.proteus_history: must be between 5 and 1024 windows, got {}",
            at, c.proteus_history
        ));
    }
    if c.proteus_threshold == Duration::ZERO {
        return Err(format!("{}.proteus_threshold: must be above 0", at));
    }
    if !(c.proteus_k_fill >= 1.0 && c.proteus_k_fill <= 10.0) {
        return Err(format!(
            "{}.proteus_k_fill: must be between 1 and 10, got {}",
            at, c.proteus_k_fill
        ));
    }
    if !(c.proteus_k_drain > 0.0 && c.proteus_k_drain < 1.0) {
        return Err(format!(
            "{}.proteus_k_drain: must be above 0 and below 1, got {}",
            at, c.proteus_k_drain
        ));
    }
    // Sprout's window looks at most 8 ticks of 20 ms ahead (rate::sprout).
    if c.sprout_target_delay < Duration::from_millis(20)
        || c.sprout_target_delay > Duration::from_millis(160)
    {
        return Err(format!(
            "{}.sprout_target_delay: must be between 20 ms and 160 ms (1 to 8 of Sprout's 20 ms ticks)",
            at
        ));
    }
    Ok(())
}

/// RED's parameters (config::RedSpec), each error naming the scenario key. Thresholds are
/// compared after ns-2's automatic values are resolved for this link, as RED will use them.
fn check_red(l: &LinkSpec) -> Result<(), String> {
    let q = &l.queue;
    let Some(r) = &q.red else {
        return Ok(());
    };
    if q.discipline != Discipline::Red {
        return Err("queue.red: RED parameters need discipline = \"red\"".into());
    }
    let finite = |k: &str, v: f64| {
        if v.is_finite() {
            Ok(())
        } else {
            Err(format!("queue.{k}: must be a finite number, got {v}"))
        }
    };
    for (k, v) in [
        ("min_th", r.min_th),
        ("max_th", r.max_th),
        ("max_p", r.max_p),
        ("weight", r.q_weight),
        ("mark_p", r.mark_p),
    ] {
        finite(k, v)?;
    }
    if r.min_th < 0.0 || r.max_th < 0.0 {
        let (k, v) = if r.min_th < 0.0 {
            ("min_th", r.min_th)
        } else {
            ("max_th", r.max_th)
        };
        return Err(format!(
            "queue.{k}: must be at least 0 packets (or \"auto\"), got {v}"
        ));
    }
    if !(r.max_p > 0.0 && r.max_p <= 1.0) {
        return Err(format!("queue.max_p: must be in (0, 1], got {}", r.max_p));
    }
    if !((r.q_weight > 0.0 && r.q_weight <= 1.0) || [0.0, -1.0, -2.0].contains(&r.q_weight)) {
        return Err(format!(
            "queue.weight: must be in (0, 1], \"auto\", or ns-2's automatic codes 0, -1, -2; got {}",
            r.q_weight
        ));
    }
    if !(0.0..=1.0).contains(&r.mark_p) {
        return Err(format!("queue.mark_p: must be in [0, 1], got {}", r.mark_p));
    }
    if r.mean_pktsize == 0 {
        return Err("queue.mean_pktsize: must be at least 1 byte".into());
    }
    // Automatic thresholds depend on the link's rate; a trace link's rate is known only
    // once its file is read, so there only explicit thresholds are compared here.
    let bps = match &l.rate {
        RateSpec::Trace { .. } => None, // (validation reads no trace file)
        spec => RateModel::from_spec(spec).ok().map(|m| m.mean_rate_bps()),
    };
    let explicit = r.min_th != 0.0 && r.max_th != 0.0;
    if let Some(bps) = bps.or(if explicit { Some(1e6) } else { None }) {
        let p = crate::queue::RedParams::resolve(r, bps, l.delay);
        if p.th_min >= p.th_max {
            let show = |v: f64, auto: bool| {
                if auto {
                    format!("{v} (automatic)")
                } else {
                    format!("{v}")
                }
            };
            let unit = if r.queue_in_bytes {
                r.mean_pktsize as f64
            } else {
                1.0
            };
            return Err(format!(
                "queue.min_th: must be less than queue.max_th, got min_th {} and max_th {} packets",
                show(p.th_min / unit, r.min_th == 0.0),
                show(p.th_max / unit, r.max_th == 0.0)
            ));
        }
    }
    Ok(())
}

fn prefix(e: SimError, p: &str) -> SimError {
    match e {
        SimError::Config(m) => SimError::Config(format!("{p}{m}")),
        SimError::Trace(m) => SimError::Trace(format!("{p}{m}")),
        other => other,
    }
}
