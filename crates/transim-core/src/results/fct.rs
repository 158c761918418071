//! Flow completion times by flow size: what datacenter workload studies report (short flows'
//! tail latency, long flows' mean), over the flows that completed.

use serde_json::{json, Value};

/// Size classes by bytes delivered: [from, to) and a label.
const CLASSES: [(u64, u64, &str); 4] = [
    (0, 100_000, "under 100 kB"),
    (100_000, 1_000_000, "100 kB to 1 MB"),
    (1_000_000, 10_000_000, "1 MB to 10 MB"),
    (10_000_000, u64::MAX, "10 MB and more"),
];

/// A completed flow: the bytes it delivered, its completion time and, for a TCP transfer,
/// the ideal one ([`crate::tcp::results::TcpFlowResult::ideal_completion_time`]), in s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Done {
    /// Bytes delivered.
    pub bytes: u64,
    /// Completion time.
    pub time: f64,
    /// The transfer's completion time alone on idle links, if known.
    pub ideal: Option<f64>,
}

/// The completed flows by size class: for each class that has flows, its `label`, `flows`,
/// and the `mean`, `median` and `p99` completion time (percentiles by nearest rank: the
/// smallest value at or above which that share of the values lies, so the median of an
/// even count is the lower of the middle two), then the same three of the slowdown
/// (completion time over the ideal one) over the class's flows that have an ideal, as
/// `slowdown_mean`, `slowdown_median` and `slowdown_p99` (null when none has), and how many
/// flows that is, `slowdown_flows`.
pub fn by_size(done: &[Done]) -> Value {
    let mut out = Vec::new();
    for (from, to, label) in CLASSES {
        let class: Vec<&Done> = done
            .iter()
            .filter(|d| (from..to).contains(&d.bytes))
            .collect();
        let Some(times) = Stats::of(class.iter().map(|d| d.time).collect()) else {
            continue;
        };
        let slowdown = Stats::of(
            class
                .iter()
                .filter_map(|d| d.ideal.filter(|&i| i > 0.0).map(|i| d.time / i))
                .collect(),
        );
        let pick = |f: fn(&Stats) -> f64| slowdown.as_ref().map(f);
        out.push(json!({
            "label": label,
            "flows": times.n,
            "mean": times.mean,
            "median": times.median,
            "p99": times.p99,
            "slowdown_mean": pick(|s| s.mean),
            "slowdown_median": pick(|s| s.median),
            "slowdown_p99": pick(|s| s.p99),
            "slowdown_flows": slowdown.as_ref().map_or(0, |s| s.n),
        }));
    }
    Value::Array(out)
}

/// Count, mean and nearest-rank median and 99th percentile of some values.
struct Stats {
    n: usize,
    mean: f64,
    median: f64,
    p99: f64,
}

impl Stats {
    fn of(mut v: Vec<f64>) -> Option<Stats> {
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let rank = |p: f64| v[((p * n as f64).ceil() as usize).clamp(1, n) - 1];
        Some(Stats {
            n,
            mean: v.iter().sum::<f64>() / n as f64,
            median: rank(0.5),
            p99: rank(0.99),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_by_size_with_nearest_rank_percentiles() {
        // 100 short flows taking 1..=100 µs, two long ones, none in between.
        let d = |bytes, time, ideal| Done { bytes, time, ideal };
        let mut done: Vec<Done> = (1..=100).map(|i| d(1_000, i as f64 * 1e-6, None)).collect();
        done.push(d(10_000_000, 0.5, None));
        done.push(d(30_000_000, 1.5, None));
        let v = by_size(&done);
        let classes = v.as_array().unwrap();
        assert_eq!(classes.len(), 2);
        let short = &classes[0];
        assert_eq!(short["label"], "under 100 kB");
        assert_eq!(short["flows"], 100);
        assert!((short["mean"].as_f64().unwrap() - 50.5e-6).abs() < 1e-12);
        // Nearest rank: the 50th and the 99th of 100.
        assert_eq!(short["median"].as_f64().unwrap(), 50.0 * 1e-6);
        assert_eq!(short["p99"].as_f64().unwrap(), 99.0 * 1e-6);
        // 10 MB exactly is in the last class.
        let long = &classes[1];
        assert_eq!(long["label"], "10 MB and more");
        assert_eq!(long["flows"], 2);
        assert_eq!(long["mean"].as_f64().unwrap(), 1.0);
        assert_eq!(long["median"].as_f64().unwrap(), 0.5);
        assert_eq!(long["p99"].as_f64().unwrap(), 1.5);
        assert_eq!(long["slowdown_median"], Value::Null);
        assert_eq!(long["slowdown_flows"], 0);
        assert_eq!(by_size(&[]), json!([]));
    }

    /// Slowdowns over the flows with an ideal only: three short flows of ideal 10 µs taking
    /// 10, 30 and 20 µs (1, 3 and 2), and one without an ideal.
    #[test]
    fn slowdown_over_the_flows_with_an_ideal() {
        let d = |time: f64, ideal: Option<f64>| Done {
            bytes: 5_000,
            time: time * 1e-6,
            ideal: ideal.map(|i| i * 1e-6),
        };
        let v = by_size(&[
            d(10.0, Some(10.0)),
            d(30.0, Some(10.0)),
            d(20.0, Some(10.0)),
            d(99.0, None),
        ]);
        let c = &v[0];
        assert_eq!(c["flows"], 4);
        assert_eq!(c["slowdown_flows"], 3);
        assert!((c["slowdown_mean"].as_f64().unwrap() - 2.0).abs() < 1e-12);
        assert!((c["slowdown_median"].as_f64().unwrap() - 2.0).abs() < 1e-12);
        assert!((c["slowdown_p99"].as_f64().unwrap() - 3.0).abs() < 1e-12);
    }
}
