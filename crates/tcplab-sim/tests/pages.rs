//! Web page loads (`[[pages]]`, the RSFC paper's section IV-C workload): the HTML alone,
//! then the other objects over up to N persistent connections, one request at a time per
//! connection; the page has loaded with the last byte of its last object.

mod common;
use common::*;
use tcplab_sim::config::*;

fn page(objects: Vec<u64>, connections: u32) -> PageSpec {
    PageSpec {
        name: "web".into(),
        client: "client".into(),
        server: "server".into(),
        start: tcplab_core::Instant::from_millis(100),
        connections,
        request_bytes: 500,
        objects,
        tcp: tcplab_core::tcp::TcpConfig::default(),
        server_tcp: None,
    }
}

/// 8 Mbit/s down, 1 Mbit/s up, 20 ms each way; the page alone (a flow is not required).
fn scenario(objects: Vec<u64>, connections: u32) -> Scenario {
    let mut s = p2p(
        "pages",
        fixed(8_000_000, 20, 100),
        fixed(1_000_000, 20, 100),
        60,
    );
    s.flows.clear();
    s.pages.push(page(objects, connections));
    s.record.timeseries = false;
    s.stop_when_done = true;
    s
}

#[test]
fn a_page_loads_every_object_once_over_its_connections() {
    let objects: Vec<u64> = (0..20).map(|i| 2_000 + 1_000 * i).collect();
    let total: u64 = objects.iter().sum();
    let out = run_ok(&scenario(objects.clone(), 6));
    let p = &out.summary.pages[0];
    assert_eq!((p.objects, p.objects_done, p.bytes), (20, 20, total));
    assert_eq!(p.connections_opened, 6);
    let t = p.load_time_s.expect("the page loaded");
    // Every connection's responses were read in full, and nothing else.
    let read: u64 = out.summary.flows.iter().map(|f| f.bytes_delivered).sum();
    assert_eq!(read, total);
    assert_eq!(out.summary.flows.len(), 6);
    assert!(out
        .summary
        .flows
        .iter()
        .all(|f| f.direction == "server->client"));
    // Lower bound: the HTML takes a handshake and a request round trip (3 x 40 ms) and
    // then at least one more request round trip; upper: a few seconds.
    assert!(t > 0.2 && t < 5.0, "{t}");
    // The run ends when the page has loaded (stop_when_done) and the connections close.
    assert!(out.summary.duration_s < 0.1 + t + 2.0);
}

#[test]
fn one_connection_fetches_serially_and_more_connections_are_faster() {
    let objects: Vec<u64> = vec![30_000; 24];
    let one = run_ok(&scenario(objects.clone(), 1)).summary.pages[0].clone();
    let six = run_ok(&scenario(objects, 6)).summary.pages[0].clone();
    assert_eq!(one.connections_opened, 1);
    assert_eq!(six.connections_opened, 6);
    let (t1, t6) = (one.load_time_s.unwrap(), six.load_time_s.unwrap());
    // One connection waits a request round trip per object (24 x 40 ms at least).
    assert!(t1 > 24.0 * 0.04, "{t1}");
    assert!(t6 < t1, "{t6} vs {t1}");
}

#[test]
fn a_page_with_fewer_objects_than_connections_opens_only_what_it_needs() {
    let out = run_ok(&scenario(vec![10_000, 5_000, 5_000], 6));
    let p = &out.summary.pages[0];
    assert_eq!(p.objects_done, 3);
    // The HTML's connection takes the second object; one more opens for the third.
    assert_eq!(p.connections_opened, 2);
    assert!(p.load_time_s.is_some());
}

#[test]
fn a_page_that_cannot_load_in_time_has_no_load_time() {
    let mut s = scenario(vec![5_000_000], 1);
    s.duration = tcplab_core::Duration::from_secs(2);
    let out = run_ok(&s);
    let p = &out.summary.pages[0];
    assert_eq!(p.objects_done, 0);
    assert_eq!(p.load_time_s, None);
}

#[test]
fn bad_pages_are_refused_with_the_key() {
    let mut s = scenario(vec![1000], 6);
    s.pages[0].connections = 0;
    let e = tcplab_sim::validate::validate(&s).unwrap_err().to_string();
    assert!(e.contains("pages[0] ('web').connections"), "{e}");
    let mut s = scenario(vec![], 6);
    s.pages[0].name = "w".into();
    let e = tcplab_sim::validate::validate(&s).unwrap_err().to_string();
    assert!(e.contains("pages[0] ('w').objects"), "{e}");
    let mut s = scenario(vec![1000], 6);
    s.pages[0].client = "nowhere".into();
    let e = tcplab_sim::validate::validate(&s).unwrap_err().to_string();
    assert!(
        e.contains("pages[0] ('web').client: unknown node 'nowhere'"),
        "{e}"
    );
}
