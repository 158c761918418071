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

/// The completion times (s) of completed flows, with the bytes each delivered, by size
/// class: for each class that has flows, its `label`, `flows`, and the `mean`, `median` and
/// `p99` completion time (percentiles by nearest rank: the smallest time at or above which
/// that share of the class's flows lies, so the median of an even count is the lower of the
/// middle two).
pub fn by_size(done: &[(u64, f64)]) -> Value {
    let mut out = Vec::new();
    for (from, to, label) in CLASSES {
        let mut times: Vec<f64> = done
            .iter()
            .filter(|(bytes, _)| (from..to).contains(bytes))
            .map(|&(_, t)| t)
            .collect();
        if times.is_empty() {
            continue;
        }
        times.sort_by(f64::total_cmp);
        let n = times.len();
        let rank = |p: f64| times[((p * n as f64).ceil() as usize).clamp(1, n) - 1];
        out.push(json!({
            "label": label,
            "flows": n,
            "mean": times.iter().sum::<f64>() / n as f64,
            "median": rank(0.5),
            "p99": rank(0.99),
        }));
    }
    Value::Array(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_by_size_with_nearest_rank_percentiles() {
        // 100 short flows taking 1..=100 µs, two long ones, none in between.
        let mut done: Vec<(u64, f64)> = (1..=100).map(|i| (1_000, i as f64 * 1e-6)).collect();
        done.push((10_000_000, 0.5));
        done.push((30_000_000, 1.5));
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
        assert_eq!(by_size(&[]), json!([]));
    }
}
