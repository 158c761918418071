//! Max-min fair allocation by progressive filling, and Jain's fairness index.
//!
//! Progressive filling (Bertsekas & Gallager, *Data Networks*, §6.5): raise the rate of every
//! flow not yet frozen at the same pace; when a link saturates, freeze the flows crossing it;
//! when a flow reaches its demand, freeze it; repeat until every flow is frozen. Each round
//! freezes at least one flow or saturates one link, so there are at most flows + links rounds.

/// A flow for the max-min solver: the links it crosses and the most it can use.
#[derive(Clone, Debug)]
pub struct Demand {
    /// Indices of the links (into the capacity vector) the flow crosses.
    pub links: Vec<usize>,
    /// The most the flow can use (`f64::INFINITY` when only the network limits it).
    pub max: f64,
}

/// The max-min fair rate of each flow, given link capacities.
pub fn max_min_fair(capacity: &[f64], flows: &[Demand]) -> Vec<f64> {
    let mut rate = vec![0.0; flows.len()];
    let mut frozen = vec![false; flows.len()];
    let mut remaining = capacity.to_vec();
    let mut crossing = vec![0usize; capacity.len()];
    for (i, f) in flows.iter().enumerate() {
        if f.max <= 0.0 {
            frozen[i] = true;
            continue;
        }
        for &l in &f.links {
            crossing[l] += 1;
        }
    }
    let eps = |x: f64| 1e-12 * x.abs().max(1.0);
    loop {
        let mut step = f64::INFINITY;
        for (l, &n) in crossing.iter().enumerate() {
            if n > 0 {
                step = step.min(remaining[l] / n as f64);
            }
        }
        for (i, f) in flows.iter().enumerate() {
            if !frozen[i] {
                step = step.min(f.max - rate[i]);
            }
        }
        if !step.is_finite() {
            // Flows crossing no link with unbounded demand: nothing limits them.
            for (i, fr) in frozen.iter().enumerate() {
                if !fr {
                    rate[i] = f64::INFINITY;
                }
            }
            return rate;
        }
        let step = step.max(0.0);
        for (i, f) in flows.iter().enumerate() {
            if !frozen[i] {
                rate[i] += step;
                for &l in &f.links {
                    remaining[l] -= step;
                }
            }
        }
        let mut any = false;
        for (i, f) in flows.iter().enumerate() {
            if frozen[i] {
                continue;
            }
            let saturated = f.links.iter().any(|&l| remaining[l] <= eps(capacity[l]));
            if saturated || rate[i] >= f.max - eps(f.max) {
                frozen[i] = true;
                any = true;
                for &l in &f.links {
                    crossing[l] -= 1;
                }
            }
        }
        if !any || frozen.iter().all(|&f| f) {
            return rate;
        }
    }
}

/// Jain's fairness index `(Σx)² / (n·Σx²)`, in [1/n, 1]; None for no values or all zero.
pub fn jain(x: &[f64]) -> Option<f64> {
    let sum: f64 = x.iter().sum();
    let sq: f64 = x.iter().map(|v| v * v).sum();
    (!x.is_empty() && sq > 0.0).then(|| sum * sum / (x.len() as f64 * sq))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(links: &[usize], max: f64) -> Demand {
        Demand {
            links: links.to_vec(),
            max,
        }
    }

    fn close(a: &[f64], b: &[f64]) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() < 1e-9, "{a:?} vs {b:?}");
        }
    }

    #[test]
    fn one_link_equal_shares() {
        let r = max_min_fair(&[9.0], &vec![flow(&[0], f64::INFINITY); 3]);
        close(&r, &[3.0, 3.0, 3.0]);
    }

    #[test]
    fn a_small_demand_leaves_the_rest_to_others() {
        // Capacity 10, demands 2, ∞, ∞ → 2, 4, 4.
        let r = max_min_fair(
            &[10.0],
            &[
                flow(&[0], 2.0),
                flow(&[0], f64::INFINITY),
                flow(&[0], f64::INFINITY),
            ],
        );
        close(&r, &[2.0, 4.0, 4.0]);
    }

    #[test]
    fn parking_lot() {
        // Bertsekas & Gallager's example: links A and B of capacity 1; flow 0 crosses both,
        // flow 1 only A, flow 2 only B → each gets 1/2.
        let r = max_min_fair(
            &[1.0, 1.0],
            &[
                flow(&[0, 1], f64::INFINITY),
                flow(&[0], f64::INFINITY),
                flow(&[1], f64::INFINITY),
            ],
        );
        close(&r, &[0.5, 0.5, 0.5]);
    }

    #[test]
    fn bottleneck_elsewhere_frees_capacity() {
        // Link 0 (capacity 10) shared by flows 0 and 1; flow 1 also crosses link 1
        // (capacity 2) → flow 1 gets 2, flow 0 the remaining 8.
        let r = max_min_fair(
            &[10.0, 2.0],
            &[flow(&[0], f64::INFINITY), flow(&[0, 1], f64::INFINITY)],
        );
        close(&r, &[8.0, 2.0]);
    }

    #[test]
    fn jain_bounds() {
        assert_eq!(jain(&[1.0, 1.0, 1.0]), Some(1.0));
        // One of n gets everything: 1/n.
        assert!((jain(&[1.0, 0.0, 0.0, 0.0]).unwrap() - 0.25).abs() < 1e-12);
        // (1+2)²/(2·5) = 0.9
        assert!((jain(&[1.0, 2.0]).unwrap() - 0.9).abs() < 1e-12);
        assert_eq!(jain(&[]), None);
    }
}
