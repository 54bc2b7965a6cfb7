//! Topology expansion and static routing: the point-to-point cellular path (separate
//! uplink and downlink, as the cellular papers model ACKs stuck behind an upload), the
//! dumbbell, and custom graphs, all reduced to nodes plus unidirectional links. Routes are
//! shortest paths in hops (BFS), ties broken by link order, so they are deterministic.

use crate::config::{LinkSpec, TopologySpec};
use crate::world::SimError;
use std::collections::{BTreeMap, VecDeque};

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
}

impl Graph {
    pub fn from_spec(spec: &TopologySpec) -> Result<Graph, SimError> {
        let mut g = Graph {
            nodes: Vec::new(),
            links: Vec::new(),
            out: Vec::new(),
            index: BTreeMap::new(),
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
        for (li, l) in g.links.iter().enumerate() {
            g.out[l.from].push(li as u32);
        }
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
    pub fn route(&self, src: usize, dst: usize) -> Option<Vec<u32>> {
        let mut via: Vec<Option<usize>> = vec![None; self.nodes.len()];
        let mut seen = vec![false; self.nodes.len()];
        let mut q = VecDeque::new();
        seen[src] = true;
        q.push_back(src);
        while let Some(n) = q.pop_front() {
            if n == dst {
                break;
            }
            for &li in &self.out[n] {
                let to = self.links[li as usize].to;
                if !seen[to] {
                    seen[to] = true;
                    via[to] = Some(li as usize);
                    q.push_back(to);
                }
            }
        }
        if !seen[dst] {
            return None;
        }
        let mut path = Vec::new();
        let mut n = dst;
        while n != src {
            let li = via[n].expect("BFS predecessor");
            path.push(li as u32);
            n = self.links[li].from;
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
