//! Web page loads (`PageSpec`, docs/scenarios.md "Pages"; the RSFC paper's section IV-C
//! workload): a browser fetches a page's objects over up to N persistent connections,
//! HTTP/1.1 without pipelining: the HTML alone on the first connection, then the other
//! objects, each connection sending its next request once the previous response has fully
//! arrived. The page has loaded when the last byte of the last object is read.
//!
//! Each connection is a flow of the world whose data direction is the responses (server to
//! client: `written` / `read` and every per-flow statistic are about them); the requests
//! travel the other way as a second byte stream on the same connection, checked the same
//! way (contiguous, never more read than written). The client opens the connection.

use super::{FlowState, Reader, World};
use crate::config::PageSpec;
use crate::SimError;
use tcplab_core::tcp::Endpoint;
use tcplab_core::Instant;

/// A flow that is one connection of a page load.
#[derive(Clone, Debug, Default)]
pub(super) struct PageConn {
    pub(super) page: usize,
    /// Its place among the page's connections (0 fetches the HTML).
    pub(super) idx: usize,
    pub(super) opened: bool,
    /// The object whose response this connection waits for.
    cur: Option<usize>,
    /// The flow's `read` once the current response has fully arrived.
    resp_end: u64,
    /// Response bytes the server has yet to write.
    resp_pending: u64,
    /// The request stream (client to server).
    req_written: u64,
    req_pending: u64,
    req_read: u64,
    /// Requests the server has answered.
    req_served: u64,
}

/// One page load.
#[derive(Clone, Debug)]
pub(super) struct PageState {
    name: String,
    start: Instant,
    objects: Vec<u64>,
    request: u64,
    /// Flow indices of its connections, `idx` order.
    conns: Vec<usize>,
    /// The next object to request.
    next: usize,
    /// Objects fully read.
    done: usize,
    completed_at: Option<Instant>,
}

/// A page's numbers for the summary.
pub(super) struct PageReport {
    pub(super) name: String,
    pub(super) start_s: f64,
    pub(super) objects: usize,
    pub(super) bytes: u64,
    pub(super) objects_done: usize,
    pub(super) connections_opened: usize,
    pub(super) load_time_s: Option<f64>,
}

/// Builds the flows and endpoints of every page, after the scenario's own flows.
pub(super) fn build(
    scn: &crate::config::Scenario,
    graph: &crate::topology::Graph,
    exact: bool,
    flows: &mut Vec<FlowState>,
    eps: &mut Vec<super::EpSlot>,
) -> Result<Vec<PageState>, SimError> {
    let mut pages = Vec::with_capacity(scn.pages.len());
    for (pi, p) in scn.pages.iter().enumerate() {
        let at = |k: &str| format!("pages[{pi}] ('{}').{k}", p.name);
        // The responses go from the server to the client.
        let (server, client, route_fwd, route_rev) =
            super::connection_ends(graph, &at, ("server", &p.server), ("client", &p.client))?;
        let scfg = server_tcp(p);
        let mut conns = Vec::with_capacity(p.connections as usize);
        for c in 0..p.connections as usize {
            let fi = flows.len();
            let isn = super::initial_seqnos(scn.seed, fi);
            // The server sends the responses (the flow's sender) and listens; the client
            // opens the connection when the page needs it.
            let mut srv = Endpoint::new(scfg.clone(), isn[0]);
            srv.set_peer_ts_granularity(p.tcp.ts_granularity);
            srv.set_rng_seed(scn.seed, fi as u64);
            srv.listen();
            let mut cli = Endpoint::new(p.tcp.clone(), isn[1]);
            cli.set_peer_ts_granularity(scfg.ts_granularity);
            eps.push(super::EpSlot {
                ep: srv,
                wake: Instant::MAX,
            });
            eps.push(super::EpSlot {
                ep: cli,
                wake: Instant::MAX,
            });
            let mut fl = FlowState::new(
                format!("{}/{c}", p.name),
                (server, client),
                p.start,
                (route_fwd.clone(), route_rev.clone()),
                (super::serde_name(&scfg.cc), super::serde_name(&p.tcp.fc)),
                Reader::Unlimited,
                exact,
                isn,
            );
            fl.page = Some(Box::new(PageConn {
                page: pi,
                idx: c,
                ..PageConn::default()
            }));
            flows.push(fl);
            conns.push(fi);
        }
        pages.push(PageState {
            name: p.name.clone(),
            start: p.start,
            objects: p.objects.clone(),
            request: p.request_bytes,
            conns,
            next: 0,
            done: 0,
            completed_at: None,
        });
    }
    Ok(pages)
}

fn server_tcp(p: &PageSpec) -> tcplab_core::tcp::TcpConfig {
    p.server_tcp.clone().unwrap_or_else(|| p.tcp.clone())
}

impl World {
    fn conn(&mut self, f: usize) -> &mut PageConn {
        self.flows[f].page.as_mut().expect("a page connection")
    }

    /// The client opens connection `f` and requests the page's next object on it.
    pub(super) fn page_open(&mut self, now: Instant, f: usize) {
        self.flows[f].started = true;
        self.conn(f).opened = true;
        self.open(now, 2 * f + 1, 2 * f);
        self.page_request_next(now, f);
        self.drain(now, 2 * f + 1);
    }

    /// Connection `f` takes the page's next object, if any, and sends its request.
    fn page_request_next(&mut self, now: Instant, f: usize) {
        let pi = self.conn(f).page;
        let pg = &mut self.pages[pi];
        if pg.next >= pg.objects.len() {
            return;
        }
        let obj = pg.next;
        pg.next += 1;
        let (size, req) = (pg.objects[obj], pg.request);
        let c = self.conn(f);
        c.cur = Some(obj);
        c.resp_end += size;
        c.req_pending += req;
        self.page_client_write(now, f);
    }

    /// The client's pending request bytes, as the send buffer takes them.
    fn page_client_write(&mut self, now: Instant, f: usize) {
        let pending = self.conn(f).req_pending;
        if pending == 0 {
            return;
        }
        let ep = &mut self.eps[2 * f + 1].ep;
        let n = pending.min(ep.send_buffer_free());
        let w = if n > 0 { ep.write(now, n) } else { 0 };
        let c = self.conn(f);
        c.req_written += w;
        c.req_pending -= w;
    }

    /// The server's pending response bytes, as the send buffer takes them.
    pub(super) fn page_server_write(&mut self, now: Instant, f: usize) {
        let pending = self.conn(f).resp_pending;
        if pending == 0 || self.flows[f].closed {
            return;
        }
        let ep = &mut self.eps[2 * f].ep;
        let n = pending.min(ep.send_buffer_free());
        let w = if n > 0 { ep.write(now, n) } else { 0 };
        self.flows[f].written += w;
        self.conn(f).resp_pending -= w;
    }

    /// After input to the server's endpoint: read the requests (checking their byte
    /// stream), answer each complete one with its object, and keep writing.
    pub(super) fn page_server_input(&mut self, now: Instant, f: usize) {
        loop {
            let Some(chunk) = self.eps[2 * f].ep.read(now, u64::MAX) else {
                break;
            };
            let c = self.conn(f);
            let expected = c.req_read;
            c.req_read = chunk.offset.max(c.req_read) + chunk.len;
            let over = c.req_read > c.req_written;
            let (read, written) = (c.req_read, c.req_written);
            if chunk.offset != expected {
                let msg = format!(
                    "flow '{}': the server read {} request bytes at stream offset {} but expected offset {expected} (bytes lost, duplicated or reordered)",
                    self.flows[f].name, chunk.len, chunk.offset
                );
                self.violation(msg);
            }
            if over {
                let msg = format!(
                    "flow '{}': the server read {read} request bytes but only {written} were written",
                    self.flows[f].name
                );
                self.violation(msg);
            }
        }
        let pi = self.conn(f).page;
        let pg = &self.pages[pi];
        let c = self.flows[f].page.as_mut().expect("a page connection");
        // One request at a time per connection: a complete one asks for the current object.
        while (c.req_served + 1) * pg.request <= c.req_read {
            c.req_served += 1;
            if let Some(obj) = c.cur {
                c.resp_pending += pg.objects[obj];
            }
        }
        self.page_server_write(now, f);
    }

    /// After input to the client's endpoint (its responses were just read by `app_read`):
    /// finish the current object, move on, open more connections after the HTML, and note
    /// the page complete with its last byte.
    pub(super) fn page_client_input(&mut self, now: Instant, f: usize) {
        self.page_client_write(now, f);
        let read = self.flows[f].read;
        let c = self.conn(f);
        let Some(obj) = c.cur else {
            return;
        };
        if read < c.resp_end {
            return;
        }
        if read != c.resp_end {
            // A response is read only after its request, so nothing beyond it can be here.
            let (end, name) = (c.resp_end, self.flows[f].name.clone());
            self.violation(format!(
                "flow '{name}': read {read} response bytes where the current response ends at {end}"
            ));
        }
        let c = self.conn(f);
        c.cur = None;
        let pi = c.page;
        self.pages[pi].done += 1;
        self.page_request_next(now, f);
        if obj == 0 {
            // The HTML is in: the browser opens its other connections for the rest.
            let conns = self.pages[pi].conns.clone();
            for &g in &conns[1..] {
                let pg = &self.pages[pi];
                if pg.next >= pg.objects.len() {
                    break;
                }
                self.page_open(now, g);
            }
        }
        let pg = &self.pages[pi];
        if pg.done == pg.objects.len() && pg.completed_at.is_none() {
            let total: u64 = pg.objects.iter().sum();
            let read: u64 = pg.conns.iter().map(|&g| self.flows[g].read).sum();
            if read != total {
                let msg = format!(
                    "page '{}': loaded with {read} of its {total} response bytes read",
                    pg.name
                );
                self.violation(msg);
            }
            self.pages[pi].completed_at = Some(now);
            let conns = self.pages[pi].conns.clone();
            for g in conns {
                if self.conn(g).opened {
                    self.eps[2 * g + 1].ep.close(now);
                    self.close_app(now, g);
                    self.drain(now, 2 * g);
                    if g != f {
                        self.drain(now, 2 * g + 1);
                    }
                } else {
                    // Never needed: finished with nothing sent.
                    self.flows[g].closed = true;
                    self.check_finished(now, g);
                }
            }
        }
    }

    /// End-of-run checks of the request streams.
    pub(super) fn page_checks(&self, msgs: &mut Vec<String>) {
        for fl in &self.flows {
            if let Some(c) = &fl.page {
                if c.req_read > c.req_written {
                    msgs.push(format!(
                        "flow '{}': the server read {} request bytes of {} written",
                        fl.name, c.req_read, c.req_written
                    ));
                }
                let pg = &self.pages[c.page];
                if pg.completed_at.is_some() && c.req_read != c.req_written {
                    msgs.push(format!(
                        "flow '{}': the page loaded with {} of {} request bytes read",
                        fl.name, c.req_read, c.req_written
                    ));
                }
            }
        }
        for pg in &self.pages {
            let total: u64 = pg.objects.iter().sum();
            let read: u64 = pg.conns.iter().map(|&g| self.flows[g].read).sum();
            if read > total || (pg.completed_at.is_some() && read != total) {
                msgs.push(format!(
                    "page '{}': {read} response bytes read of the page's {total}",
                    pg.name
                ));
            }
        }
    }

    pub(super) fn page_reports(&self) -> Vec<PageReport> {
        self.pages
            .iter()
            .map(|pg| PageReport {
                name: pg.name.clone(),
                start_s: pg.start.as_secs_f64(),
                objects: pg.objects.len(),
                bytes: pg.objects.iter().sum(),
                objects_done: pg.done,
                connections_opened: pg
                    .conns
                    .iter()
                    .filter(|&&g| self.flows[g].page.as_ref().is_some_and(|c| c.opened))
                    .count(),
                load_time_s: pg
                    .completed_at
                    .map(|t| t.saturating_since(pg.start).as_secs_f64()),
            })
            .collect()
    }
}
