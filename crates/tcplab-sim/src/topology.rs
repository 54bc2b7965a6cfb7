//! Topology expansion and static routing: the point-to-point cellular path (separate
//! uplink and downlink, as the cellular papers model ACKs stuck behind an upload), the
//! dumbbell, and custom graphs, all reduced to nodes plus unidirectional links. Routes are
//! shortest paths in hops (BFS), ties broken by link order, so they are deterministic.
//!
//! Cost (issue 18): a node with a single outgoing link starts every route from it with that
//! link, and a node with a single incoming link ends every route to it with that one, so a
//! route first walks those stubs off both ends and only the core between the remaining
//! nodes is searched, once per distinct pair (memoised): every flow of a dumbbell shares the
//! core left -> right, and setting up 10^4 flows costs one search, not 10^4 searches of the
//! whole graph. The result is the route the plain search finds (the stub's link is the first
//! or last hop of every path; the search from the stub's neighbour discovers every other
//! node from the same predecessors), tested against it on random graphs.

use crate::config::{LinkSpec, TopologySpec};
use crate::error::SimError;
use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};

const NONE: u32 = u32::MAX;

/// One unidirectional link of the expanded topology.
#[derive(Clone, Debug)]
pub struct LinkDef {
    pub name: String,
    pub from: usize,
    pub to: usize,
    pub spec: LinkSpec,
}

#[derive(Clone, Debug)]
pub struct Graph {
    pub nodes: Vec<String>,
    pub links: Vec<LinkDef>,
    /// Per node, its outgoing links in link order (the BFS's tie-break), and node names to
    /// indices: routing a flow costs O(nodes + links), not O(nodes x links).
    out: Vec<Vec<u32>>,
    index: BTreeMap<String, usize>,
    /// Per node, its only outgoing (incoming) link, or NONE when it has none or several.
    only_out: Vec<u32>,
    only_in: Vec<u32>,
    /// Searched cores by (from, to), and the search's reusable buffers.
    memo: RefCell<BTreeMap<(usize, usize), Option<Vec<u32>>>>,
    scratch: RefCell<Scratch>,
}

/// The breadth-first search's buffers, kept between searches: `seen[n] == stamp` marks the
/// nodes of the current search, so starting one costs nothing per node.
#[derive(Clone, Debug, Default)]
struct Scratch {
    via: Vec<u32>,
    seen: Vec<u32>,
    stamp: u32,
    queue: VecDeque<usize>,
}

impl Graph {
    pub fn from_spec(spec: &TopologySpec) -> Result<Graph, SimError> {
        let mut g = Graph {
            nodes: Vec::new(),
            links: Vec::new(),
            out: Vec::new(),
            index: BTreeMap::new(),
            only_out: Vec::new(),
            only_in: Vec::new(),
            memo: RefCell::new(BTreeMap::new()),
            scratch: RefCell::new(Scratch::default()),
        };
        match spec {
            TopologySpec::PointToPoint { downlink, uplink } => {
                g.nodes = vec!["server".into(), "client".into()];
                g.add("downlink", 0, 1, downlink);
                g.add("uplink", 1, 0, uplink);
            }
            TopologySpec::Dumbbell {
                pairs,
                bottleneck,
                bottleneck_rev,
                sender_access,
                receiver_access,
            } => {
                if *pairs == 0 {
                    return Err(SimError::Config(
                        "topology.pairs: a dumbbell needs at least one pair".into(),
                    ));
                }
                let n = *pairs as usize;
                g.nodes.push("left".into());
                g.nodes.push("right".into());
                for i in 0..n {
                    g.nodes.push(format!("s{i}"));
                }
                for i in 0..n {
                    g.nodes.push(format!("r{i}"));
                }
                g.add("bottleneck", 0, 1, bottleneck);
                g.add("bottleneck_rev", 1, 0, bottleneck_rev);
                for i in 0..n {
                    let (s, r) = (2 + i, 2 + n + i);
                    g.add(&format!("s{i}->left"), s, 0, sender_access);
                    g.add(&format!("left->s{i}"), 0, s, sender_access);
                    g.add(&format!("right->r{i}"), 1, r, receiver_access);
                    g.add(&format!("r{i}->right"), r, 1, receiver_access);
                }
            }
            TopologySpec::Custom { nodes, links } => {
                for (i, n) in nodes.iter().enumerate() {
                    if g.index.insert(n.clone(), i).is_some() {
                        return Err(SimError::Config(format!(
                            "topology.nodes: node '{n}' is listed twice"
                        )));
                    }
                }
                g.nodes = nodes.clone();
                let mut link_names = std::collections::BTreeSet::new();
                for (i, l) in links.iter().enumerate() {
                    let from = g.node(&l.from).ok_or_else(|| {
                        SimError::Config(format!(
                            "topology.links[{i}].from: unknown node '{}'",
                            l.from
                        ))
                    })?;
                    let to = g.node(&l.to).ok_or_else(|| {
                        SimError::Config(format!("topology.links[{i}].to: unknown node '{}'", l.to))
                    })?;
                    if from == to {
                        return Err(SimError::Config(format!(
                            "topology.links[{i}]: a link from '{}' to itself",
                            l.from
                        )));
                    }
                    if !link_names.insert(l.name.as_str()) {
                        return Err(SimError::Config(format!(
                            "topology.links[{i}].name: '{}' is used twice",
                            l.name
                        )));
                    }
                    g.add(&l.name, from, to, &l.spec);
                }
            }
        }
        g.out = vec![Vec::new(); g.nodes.len()];
        let mut ins = vec![0u32; g.nodes.len()];
        g.only_in = vec![NONE; g.nodes.len()];
        for (li, l) in g.links.iter().enumerate() {
            g.out[l.from].push(li as u32);
            ins[l.to] += 1;
            g.only_in[l.to] = li as u32;
        }
        for (n, &k) in ins.iter().enumerate() {
            if k != 1 {
                g.only_in[n] = NONE;
            }
        }
        g.only_out = g
            .out
            .iter()
            .map(|o| if o.len() == 1 { o[0] } else { NONE })
            .collect();
        g.index = g
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i))
            .collect();
        Ok(g)
    }

    fn add(&mut self, name: &str, from: usize, to: usize, spec: &LinkSpec) {
        self.links.push(LinkDef {
            name: name.to_string(),
            from,
            to,
            spec: spec.clone(),
        });
    }

    pub fn node(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    pub fn link(&self, name: &str) -> Option<usize> {
        self.links.iter().position(|l| l.name == name)
    }

    /// Shortest route in hops from `src` to `dst` as link indices, or None if unreachable.
    /// Ties go to the route whose links come first in listing order, hop by hop from `src`
    /// (breadth-first, each node's links in listing order; docs/scenarios.md "custom").
    pub fn route(&self, src: usize, dst: usize) -> Option<Vec<u32>> {
        let (mut s, mut d) = (src, dst);
        let mut head = Vec::new();
        let mut tail = Vec::new();
        // Walk the stubs off both ends; a chain longer than the graph is a loop of stubs
        // that never meets `d`: search the whole thing instead.
        while s != d && self.only_out[s] != NONE && head.len() <= self.nodes.len() {
            let li = self.only_out[s];
            head.push(li);
            s = self.links[li as usize].to;
        }
        while s != d && self.only_in[d] != NONE && tail.len() <= self.nodes.len() {
            let li = self.only_in[d];
            tail.push(li);
            d = self.links[li as usize].from;
        }
        if head.len() > self.nodes.len() || tail.len() > self.nodes.len() {
            return self.search(src, dst);
        }
        let core = self
            .memo
            .borrow_mut()
            .entry((s, d))
            .or_insert_with(|| self.search(s, d))
            .clone()?;
        head.extend_from_slice(&core);
        head.extend(tail.iter().rev());
        Some(head)
    }

    /// Breadth-first search from `src`, links in order, stopping at `dst`.
    fn search(&self, src: usize, dst: usize) -> Option<Vec<u32>> {
        let mut sc = self.scratch.borrow_mut();
        let sc = &mut *sc;
        if sc.seen.len() != self.nodes.len() {
            sc.seen = vec![0; self.nodes.len()];
            sc.via = vec![NONE; self.nodes.len()];
            sc.stamp = 0;
        }
        sc.stamp = sc.stamp.wrapping_add(1);
        if sc.stamp == 0 {
            // After 2^32 searches: clear the marks once.
            sc.seen.fill(0);
            sc.stamp = 1;
        }
        let stamp = sc.stamp;
        sc.queue.clear();
        sc.seen[src] = stamp;
        sc.queue.push_back(src);
        while let Some(n) = sc.queue.pop_front() {
            if n == dst {
                break;
            }
            for &li in &self.out[n] {
                let to = self.links[li as usize].to;
                if sc.seen[to] != stamp {
                    sc.seen[to] = stamp;
                    sc.via[to] = li;
                    sc.queue.push_back(to);
                }
            }
        }
        if sc.seen[dst] != stamp {
            return None;
        }
        let mut path = Vec::new();
        let mut n = dst;
        while n != src {
            let li = sc.via[n];
            path.push(li);
            n = self.links[li as usize].from;
        }
        path.reverse();
        Some(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RateSpec;

    fn link() -> LinkSpec {
        LinkSpec {
            rate: RateSpec::Fixed { bps: 1_000_000 },
            delay: Default::default(),
            delay_changes: Vec::new(),
            rate_changes: Vec::new(),
            queue: Default::default(),
            loss: Default::default(),
            header_bytes: 0,
        }
    }

    #[test]
    fn dumbbell_routes_cross_the_bottleneck() {
        let g = Graph::from_spec(&TopologySpec::Dumbbell {
            pairs: 3,
            bottleneck: link(),
            bottleneck_rev: link(),
            sender_access: link(),
            receiver_access: link(),
        })
        .unwrap();
        let s1 = g.node("s1").unwrap();
        let r1 = g.node("r1").unwrap();
        let names: Vec<_> = g
            .route(s1, r1)
            .unwrap()
            .iter()
            .map(|&l| g.links[l as usize].name.clone())
            .collect();
        assert_eq!(names, ["s1->left", "bottleneck", "right->r1"]);
        let back: Vec<_> = g
            .route(r1, s1)
            .unwrap()
            .iter()
            .map(|&l| g.links[l as usize].name.clone())
            .collect();
        assert_eq!(back, ["r1->right", "bottleneck_rev", "left->s1"]);
    }

    /// The plain search the stub walk and the memo must agree with.
    fn plain_bfs(g: &Graph, src: usize, dst: usize) -> Option<Vec<u32>> {
        let mut via: Vec<Option<usize>> = vec![None; g.nodes.len()];
        let mut seen = vec![false; g.nodes.len()];
        let mut q = VecDeque::new();
        seen[src] = true;
        q.push_back(src);
        while let Some(n) = q.pop_front() {
            if n == dst {
                break;
            }
            for (li, l) in g.links.iter().enumerate().filter(|(_, l)| l.from == n) {
                if !seen[l.to] {
                    seen[l.to] = true;
                    via[l.to] = Some(li);
                    q.push_back(l.to);
                }
            }
        }
        if !seen[dst] {
            return None;
        }
        let mut path = Vec::new();
        let mut n = dst;
        while n != src {
            let li = via[n].unwrap();
            path.push(li as u32);
            n = g.links[li].from;
        }
        path.reverse();
        Some(path)
    }

    #[test]
    fn stub_walks_and_memo_give_the_plain_searchs_routes() {
        // Random sparse graphs with stubs, chains, loops of stubs, parallel paths (ties) and
        // unreachable pairs, from a fixed-seed generator.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for case in 0..300 {
            let n = 2 + next(12) as usize;
            let nodes: Vec<String> = (0..n).map(|i| format!("n{i}")).collect();
            let mut links = Vec::new();
            for k in 0..next(3 * n as u64 + 1) {
                let (a, b) = (next(n as u64) as usize, next(n as u64) as usize);
                if a != b {
                    links.push(crate::config::NamedLinkSpec {
                        name: format!("l{k}"),
                        from: nodes[a].clone(),
                        to: nodes[b].clone(),
                        spec: link(),
                    });
                }
            }
            let g = Graph::from_spec(&TopologySpec::Custom {
                nodes: nodes.clone(),
                links,
            })
            .unwrap();
            for _ in 0..2 {
                // Twice: the second pass reads the memo.
                for a in 0..n {
                    for b in 0..n {
                        if a != b {
                            assert_eq!(
                                g.route(a, b),
                                plain_bfs(&g, a, b),
                                "case {case}: {a} -> {b}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn ten_thousand_dumbbell_pairs_route_in_one_search() {
        let g = Graph::from_spec(&TopologySpec::Dumbbell {
            pairs: 10_000,
            bottleneck: link(),
            bottleneck_rev: link(),
            sender_access: link(),
            receiver_access: link(),
        })
        .unwrap();
        for i in 0..10_000 {
            let (s, r) = (
                g.node(&format!("s{i}")).unwrap(),
                g.node(&format!("r{i}")).unwrap(),
            );
            assert_eq!(g.route(s, r).unwrap().len(), 3);
            assert_eq!(g.route(r, s).unwrap().len(), 3);
        }
        // Both directions share one core each: left -> right and right -> left.
        assert_eq!(g.memo.borrow().len(), 2);
    }

    #[test]
    fn unreachable_is_none() {
        let g = Graph::from_spec(&TopologySpec::Custom {
            nodes: vec!["a".into(), "b".into()],
            links: vec![],
        })
        .unwrap();
        assert!(g.route(0, 1).is_none());
    }
}
