//! The regression tree PROTEUS forecasts with (Xu, Mehrotra, Mao & Li, "PROTEUS: network
//! performance forecast for real-time, interactive mobile applications", MobiSys 2013; thesis
//! section 6.1.2: "using a history of 64 time windows, it constructs a regression tree and uses
//! it together with the sending rate of the current window, to forecast the available
//! bandwidth ... in the next time slot").
//!
//! Neither the thesis nor the PROTEUS abstract (the only part of the paper we could find)
//! gives the tree's algorithm or hyperparameters, so this is plain CART (Breiman et al. 1984)
//! for a numeric target, our choices:
//! - binary splits `x[f] <= threshold` on one feature, the threshold halfway between two
//!   neighbouring distinct values of the node's samples;
//! - the split criterion is least squares: the split that most reduces the sum of squared
//!   deviations from the two children's means (variance reduction);
//! - a leaf predicts the mean of its samples;
//! - pre-pruning instead of cost-complexity pruning (a tree refitted every window has no
//!   held-out data to prune on): at most `max_depth` levels, at least `min_leaf` samples per
//!   child, and a split must remove at least `min_gain` of the root's sum of squares (rpart's
//!   complexity parameter cp, default 0.01);
//! - ties are broken deterministically: the lowest feature index, then the lowest threshold,
//!   wins among splits of equal gain.
//!
//! Fitting reuses the tree's buffers (nodes, sample order, sort scratch): after the first fit
//! of a given size it allocates nothing. It runs once per forecast window (500 ms), not per
//! packet.

/// Pre-pruning limits.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct TreeConfig {
    /// Levels of splits below the root (0: the tree is one leaf, the mean).
    pub max_depth: usize,
    /// Fewest samples in a child of a split.
    pub min_leaf: usize,
    /// A split must reduce the sum of squares by at least this fraction of the root's.
    pub min_gain: f64,
}

impl Default for TreeConfig {
    /// Our choices for 64 windows of history (module docs of `proteus_rate`): depth 4 (at
    /// most 16 leaves), 4 windows (2 s at 500 ms) per leaf, cp 0.01.
    fn default() -> Self {
        TreeConfig {
            max_depth: 4,
            min_leaf: 4,
            min_gain: 0.01,
        }
    }
}

/// A node of the fitted tree: a split sends `x[feature] <= threshold` left.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Node {
    Leaf {
        value: f64,
        samples: u32,
    },
    Split {
        feature: u16,
        threshold: f64,
        left: u32,
        right: u32,
    },
}

/// A CART regression tree with reusable buffers.
#[derive(Clone, Debug, Default)]
pub struct RegressionTree {
    cfg: TreeConfig,
    nodes: Vec<Node>,
    /// Sample indices, permuted in place so each node owns a contiguous range.
    order: Vec<u32>,
    /// (feature value, target) of a node's samples, sorted for the split search.
    scratch: Vec<(f64, f64)>,
    /// The stable partition's scratch.
    part: Vec<u32>,
    features: usize,
}

/// The best split of one node.
#[derive(Copy, Clone, Debug)]
struct Best {
    gain: f64,
    feature: usize,
    threshold: f64,
}

impl RegressionTree {
    pub fn new(cfg: TreeConfig) -> Self {
        RegressionTree {
            cfg,
            ..Default::default()
        }
    }

    /// Room for `samples` samples without reallocating.
    pub fn with_capacity(cfg: TreeConfig, samples: usize) -> Self {
        RegressionTree {
            cfg,
            nodes: Vec::with_capacity(2 * samples.max(1)),
            order: Vec::with_capacity(samples),
            scratch: Vec::with_capacity(samples),
            part: Vec::with_capacity(samples),
            features: 0,
        }
    }

    pub fn config(&self) -> &TreeConfig {
        &self.cfg
    }

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Whether a tree has been fitted (on at least one sample).
    pub fn is_fitted(&self) -> bool {
        !self.nodes.is_empty()
    }

    /// Fits the tree to `y.len()` samples whose features are the rows of `x` (row-major,
    /// `features` values per sample). Non-finite values are the caller's bug.
    pub fn fit(&mut self, x: &[f64], features: usize, y: &[f64]) {
        let n = y.len();
        assert!(features > 0 && x.len() == n * features, "x is n x features");
        self.features = features;
        self.nodes.clear();
        self.order.clear();
        self.order.extend(0..n as u32);
        if n == 0 {
            return;
        }
        let root_ss = sum_squares(y, &self.order);
        // Root at index 0; children are appended as nodes split (depth-first).
        self.nodes.push(Node::Leaf {
            value: 0.0,
            samples: 0,
        });
        self.grow(0, 0, n, 0, x, y, root_ss * self.cfg.min_gain);
    }

    /// Makes node `id` (samples `order[lo..hi]`, at `depth`) a leaf or a split.
    #[allow(clippy::too_many_arguments)]
    fn grow(
        &mut self,
        id: usize,
        lo: usize,
        hi: usize,
        depth: usize,
        x: &[f64],
        y: &[f64],
        min_gain: f64,
    ) {
        let n = hi - lo;
        let mean = self.order[lo..hi]
            .iter()
            .map(|&i| y[i as usize])
            .sum::<f64>()
            / n as f64;
        self.nodes[id] = Node::Leaf {
            value: mean,
            samples: n as u32,
        };
        if depth >= self.cfg.max_depth || n < 2 * self.cfg.min_leaf.max(1) {
            return;
        }
        let Some(best) = self.best_split(lo, hi, x, y) else {
            return;
        };
        // A split must remove a real share of the root's variance.
        if best.gain <= min_gain {
            return;
        }
        // Partition order[lo..hi], left (x <= threshold) first, each side in its previous
        // order (a stable partition through the scratch buffer).
        let f = self.features;
        self.part.clear();
        let goes_left = |i: &u32| x[*i as usize * f + best.feature] <= best.threshold;
        self.part
            .extend(self.order[lo..hi].iter().filter(|i| goes_left(i)));
        let mid = lo + self.part.len();
        self.part
            .extend(self.order[lo..hi].iter().filter(|i| !goes_left(i)));
        self.order[lo..hi].copy_from_slice(&self.part);
        let (left, right) = (self.nodes.len(), self.nodes.len() + 1);
        let leaf = Node::Leaf {
            value: 0.0,
            samples: 0,
        };
        self.nodes.push(leaf);
        self.nodes.push(leaf);
        self.grow(left, lo, mid, depth + 1, x, y, min_gain);
        self.grow(right, mid, hi, depth + 1, x, y, min_gain);
        self.nodes[id] = Node::Split {
            feature: best.feature as u16,
            threshold: best.threshold,
            left: left as u32,
            right: right as u32,
        };
    }

    /// The least-squares split of `order[lo..hi]` with at least `min_leaf` samples a side.
    fn best_split(&mut self, lo: usize, hi: usize, x: &[f64], y: &[f64]) -> Option<Best> {
        let n = hi - lo;
        let min_leaf = self.cfg.min_leaf.max(1);
        let f = self.features;
        let total: f64 = self.order[lo..hi].iter().map(|&i| y[i as usize]).sum();
        // Sum of squares = sum(y^2) - sum^2 / n; the reduction of a split is
        // sum_l^2 / n_l + sum_r^2 / n_r - sum^2 / n (the sum(y^2) terms cancel).
        let base = total * total / n as f64;
        let mut best: Option<Best> = None;
        for feat in 0..f {
            self.scratch.clear();
            self.scratch.extend(
                self.order[lo..hi]
                    .iter()
                    .map(|&i| (x[i as usize * f + feat], y[i as usize])),
            );
            // Equal pairs are indistinguishable, so an unstable sort is deterministic.
            self.scratch
                .sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
            let mut left_sum = 0.0;
            for k in 1..n {
                left_sum += self.scratch[k - 1].1;
                if k < min_leaf || n - k < min_leaf {
                    continue;
                }
                let (a, b) = (self.scratch[k - 1].0, self.scratch[k].0);
                if a == b {
                    continue; // no threshold separates equal values
                }
                let right_sum = total - left_sum;
                let gain =
                    left_sum * left_sum / k as f64 + right_sum * right_sum / (n - k) as f64 - base;
                // Rounding noise is no gain (constant targets must not split).
                if gain > 1e-12 * base.abs() && best.is_none_or(|bb| gain > bb.gain) {
                    best = Some(Best {
                        gain,
                        feature: feat,
                        threshold: a + (b - a) / 2.0,
                    });
                }
            }
        }
        best
    }

    /// The forecast for one sample's features (`None` before the first fit).
    pub fn predict(&self, x: &[f64]) -> Option<f64> {
        let mut id = 0usize;
        loop {
            match *self.nodes.get(id)? {
                Node::Leaf { value, .. } => return Some(value),
                Node::Split {
                    feature,
                    threshold,
                    left,
                    right,
                } => {
                    id = if x[feature as usize] <= threshold {
                        left
                    } else {
                        right
                    } as usize;
                }
            }
        }
    }
}

fn sum_squares(y: &[f64], idx: &[u32]) -> f64 {
    let n = idx.len() as f64;
    let mean = idx.iter().map(|&i| y[i as usize]).sum::<f64>() / n;
    idx.iter().map(|&i| (y[i as usize] - mean).powi(2)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Eight samples, two features, worked by hand.
    ///
    /// x0: 1 2 3 4 5 6 7 8, x1: 5 1 4 2 8 3 7 6, y: 1 1 2 2 10 10 11 11.
    /// Sum = 48, n = 8, so sum^2/n = 288. With min_leaf 2, on x0 the cut between 4 and 5
    /// gives left {1,1,2,2} (sum 6: 36/4 = 9) and right {10,10,11,11} (sum 42: 1764/4 = 441),
    /// gain 9 + 441 - 288 = 162, the whole between-group variance; the cuts after 2 (sum 2 /
    /// 46: 2 + 352.67 - 288 = 66.7) and after 6 (26 / 22: 112.67 + 242 - 288 = 66.7) are worse.
    /// On x1 (sorted 1 2 3 4 5 6 7 8 with y 1 2 10 2 1 11 11 10) the best is after 5
    /// (left 16: 51.2, right 32: 341.33, gain 104.5). So the root splits x0 at 4.5.
    /// Left {1,1,2,2}: the only allowed cut on x0 (after 2: y {1,1} / {2,2}) gains
    /// 2 + 8 - 9 = 1 (on x1 none: {1,2} / {2,1}), but the root's sum of squares is sum(y^2)
    /// - 288 = 452 - 288 = 164 and with min_gain 0.01 a split needs more than 1.64: the left
    /// child stays a leaf of mean 1.5. Right {10,10,11,11}: the same gain of 1, a leaf of
    /// mean 10.5.
    fn data() -> (Vec<f64>, Vec<f64>) {
        let x0 = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0];
        let x1 = [5.0, 1.0, 4.0, 2.0, 8.0, 3.0, 7.0, 6.0];
        let y = vec![1.0, 1.0, 2.0, 2.0, 10.0, 10.0, 11.0, 11.0];
        let x = x0.iter().zip(x1).flat_map(|(a, b)| [*a, b]).collect();
        (x, y)
    }

    #[test]
    fn best_split_and_leaf_means_of_a_known_dataset() {
        let (x, y) = data();
        let mut t = RegressionTree::new(TreeConfig {
            max_depth: 4,
            min_leaf: 2,
            min_gain: 0.01,
        });
        t.fit(&x, 2, &y);
        assert_eq!(
            t.nodes()[0],
            Node::Split {
                feature: 0,
                threshold: 4.5,
                left: 1,
                right: 2
            }
        );
        assert_eq!(
            t.nodes()[1],
            Node::Leaf {
                value: 1.5,
                samples: 4
            }
        );
        assert_eq!(
            t.nodes()[2],
            Node::Leaf {
                value: 10.5,
                samples: 4
            }
        );
        assert_eq!(t.nodes().len(), 3);
        assert_eq!(t.predict(&[4.0, 100.0]), Some(1.5));
        assert_eq!(t.predict(&[4.6, 0.0]), Some(10.5));
        // Without the complexity bar each child splits once more (gain 1 each, after 2 and
        // after 6 on x0), into the four pairs' means.
        let mut deep = RegressionTree::new(TreeConfig {
            max_depth: 4,
            min_leaf: 2,
            min_gain: 0.0,
        });
        deep.fit(&x, 2, &y);
        let p: Vec<f64> = [1.0, 3.0, 5.0, 8.0]
            .iter()
            .map(|&v| deep.predict(&[v, 0.0]).unwrap())
            .collect();
        assert_eq!(p, [1.0, 2.0, 10.0, 11.0]);
        assert_eq!(
            deep.nodes()[1],
            Node::Split {
                feature: 0,
                threshold: 2.5,
                left: 3,
                right: 4
            }
        );
    }

    #[test]
    fn limits_and_refits_reuse_the_buffers() {
        let (x, y) = data();
        // Depth 0: the mean, 6.
        let mut t = RegressionTree::new(TreeConfig {
            max_depth: 0,
            min_leaf: 1,
            min_gain: 0.0,
        });
        assert_eq!(t.predict(&[0.0, 0.0]), None);
        t.fit(&x, 2, &y);
        assert_eq!(t.predict(&[0.0, 0.0]), Some(6.0));
        // min_leaf 5 of 8 samples: no split can have 5 a side.
        let mut t = RegressionTree::with_capacity(
            TreeConfig {
                max_depth: 4,
                min_leaf: 5,
                min_gain: 0.0,
            },
            8,
        );
        t.fit(&x, 2, &y);
        assert_eq!(t.nodes().len(), 1);
        // Constant targets never split; a refit replaces the old tree.
        t.fit(&x, 2, &[3.0; 8]);
        assert_eq!(t.predict(&[8.0, 8.0]), Some(3.0));
        let cap = (t.nodes.capacity(), t.order.capacity(), t.scratch.capacity());
        t.fit(&x, 2, &y);
        assert_eq!(
            cap,
            (t.nodes.capacity(), t.order.capacity(), t.scratch.capacity())
        );
    }
}
