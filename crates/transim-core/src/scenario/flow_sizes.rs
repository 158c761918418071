//! Flow-size distributions for generated workloads: a cumulative distribution given at
//! points (bytes, fraction of flows no larger) and linear between them, the form in which
//! datacenter studies publish their workloads and simulators sample them.
//!
//! Two are built in, as the points that the DCTCP/pFabric/HPCC line of simulation studies
//! samples:
//! - `web_search`: the web-search cluster measured by Alizadeh et al. (DCTCP, SIGCOMM 2010):
//!   half the flows under 80 kB, a tail to 30 MB; 1.71 MB on average with these points.
//! - `hadoop`: Facebook's Hadoop cluster measured by Roy et al. (SIGCOMM 2015): most flows
//!   under 1 kB, a tail to 10 MB; 120 kB on average.

use super::error::ScenarioError;

/// `web_search`: (bytes, cumulative fraction).
const WEB_SEARCH: &[(f64, f64)] = &[
    (0.0, 0.0),
    (10e3, 0.15),
    (20e3, 0.20),
    (30e3, 0.30),
    (50e3, 0.40),
    (80e3, 0.53),
    (200e3, 0.60),
    (1e6, 0.70),
    (2e6, 0.80),
    (5e6, 0.90),
    (10e6, 0.97),
    (30e6, 1.0),
];

/// `hadoop`: (bytes, cumulative fraction).
const HADOOP: &[(f64, f64)] = &[
    (0.0, 0.0),
    (100.0, 0.01),
    (200.0, 0.02),
    (300.0, 0.05),
    (350.0, 0.15),
    (400.0, 0.20),
    (500.0, 0.30),
    (600.0, 0.40),
    (700.0, 0.50),
    (1e3, 0.60),
    (2e3, 0.67),
    (7e3, 0.70),
    (30e3, 0.72),
    (50e3, 0.82),
    (80e3, 0.87),
    (120e3, 0.90),
    (300e3, 0.95),
    (1e6, 0.975),
    (2e6, 0.99),
    (10e6, 1.0),
];

/// The names of the built-in distributions, as a scenario writes them.
pub const NAMED: &[&str] = &["web_search", "hadoop"];

/// Largest flow a table may give (1 TB): far beyond any run, and exact in an f64.
const MAX_BYTES: f64 = 1e12;

/// A flow-size distribution: a cumulative distribution function linear between points.
#[derive(Clone, Debug, PartialEq)]
pub struct SizeCdf {
    /// (bytes, fraction of flows of at most that size), both non-decreasing; the last
    /// fraction is 1.
    points: Vec<(f64, f64)>,
}

impl SizeCdf {
    /// The distribution a scenario's `sizes` names or tabulates (`field` names it in errors):
    /// one of [`NAMED`], or a table `[[bytes, fraction], ...]` of at least two points, both
    /// columns non-decreasing, fractions from 0 to 1 ending at 1.
    pub fn from_spec(value: &serde_json::Value, field: &str) -> Result<SizeCdf, ScenarioError> {
        let expected = "\"web_search\", \"hadoop\", or a table [[bytes, fraction of flows at most that size], ...] whose fractions rise to 1";
        let points = match value {
            serde_json::Value::String(name) => match name.as_str() {
                "web_search" => WEB_SEARCH.to_vec(),
                "hadoop" => HADOOP.to_vec(),
                _ => {
                    return Err(ScenarioError::new(
                        field,
                        format!("got {name:?}; expected {expected}"),
                    ))
                }
            },
            serde_json::Value::Array(rows) => table(rows, field)?,
            other => {
                return Err(ScenarioError::new(
                    field,
                    format!("got {other}; expected {expected}"),
                ))
            }
        };
        Ok(SizeCdf { points })
    }

    /// The mean flow size in bytes (of the linear distribution, before rounding a draw to
    /// whole bytes).
    pub fn mean(&self) -> f64 {
        let (x0, c0) = self.points[0];
        let mut mean = x0 * c0;
        for w in self.points.windows(2) {
            let ((xa, ca), (xb, cb)) = (w[0], w[1]);
            mean += (cb - ca) * (xa + xb) / 2.0;
        }
        mean
    }

    /// The size at cumulative fraction `u` (in [0, 1): a uniform draw), rounded to whole
    /// bytes and at least 1.
    pub fn sample(&self, u: f64) -> u64 {
        let i = self.points.partition_point(|&(_, c)| c <= u);
        let x = match (i.checked_sub(1), self.points.get(i)) {
            (None, _) => self.points[0].0,
            (Some(j), Some(&(xb, cb))) => {
                let (xa, ca) = self.points[j];
                xa + (u - ca) / (cb - ca) * (xb - xa)
            }
            (Some(_), None) => self.points[self.points.len() - 1].0,
        };
        (x.round() as u64).max(1)
    }
}

/// A table of (bytes, fraction) rows, checked.
fn table(rows: &[serde_json::Value], field: &str) -> Result<Vec<(f64, f64)>, ScenarioError> {
    if rows.len() < 2 {
        return Err(ScenarioError::new(
            field,
            format!(
                "has {} row(s); a table needs at least two [bytes, fraction] rows",
                rows.len()
            ),
        ));
    }
    let mut points: Vec<(f64, f64)> = Vec::with_capacity(rows.len());
    for (i, row) in rows.iter().enumerate() {
        let at = format!("{field}[{i}]");
        let pair = row
            .as_array()
            .filter(|r| r.len() == 2)
            .and_then(|r| Some((r[0].as_f64()?, r[1].as_f64()?)));
        let Some((bytes, frac)) = pair else {
            return Err(ScenarioError::new(
                at,
                format!("got {row}; expected [bytes, fraction], two numbers"),
            ));
        };
        if !(0.0..=MAX_BYTES).contains(&bytes) {
            return Err(ScenarioError::new(
                at,
                format!("has {bytes} bytes; expected 0 to 10^12"),
            ));
        }
        if !(0.0..=1.0).contains(&frac) {
            return Err(ScenarioError::new(
                at,
                format!("has fraction {frac}; expected 0 to 1 (a fraction, not a percentage)"),
            ));
        }
        if let Some(&(pb, pf)) = points.last() {
            if bytes < pb || frac < pf {
                return Err(ScenarioError::new(
                    at,
                    format!(
                        "[{bytes}, {frac}] comes after [{pb}, {pf}]; both columns must not decrease"
                    ),
                ));
            }
        }
        points.push((bytes, frac));
    }
    let last = points[points.len() - 1].1;
    if last != 1.0 {
        return Err(ScenarioError::new(
            format!("{field}[{}]", points.len() - 1),
            format!("ends at fraction {last}; the last row's fraction must be 1"),
        ));
    }
    Ok(points)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn named(n: &str) -> SizeCdf {
        SizeCdf::from_spec(&json!(n), "sizes").unwrap()
    }

    /// The means by hand, segment by segment: Σ (c_b − c_a)(x_a + x_b)/2.
    #[test]
    fn means_of_the_built_in_tables() {
        // 0.15·5k + 0.05·15k + 0.10·25k + 0.10·40k + 0.13·65k + 0.07·140k + 0.10·600k
        // + 0.10·1.5M + 0.10·3.5M + 0.07·7.5M + 0.03·20M
        let web = 750.0
            + 750.0
            + 2_500.0
            + 4_000.0
            + 8_450.0
            + 9_800.0
            + 60_000.0
            + 150_000.0
            + 350_000.0
            + 525_000.0
            + 600_000.0;
        assert!((named("web_search").mean() - web).abs() < 1e-6);
        assert!((named("web_search").mean() - 1_711_250.0).abs() < 1e-6);
        // 0.5 + 1.5 + 7.5 + 32.5 + 18.75 + 45 + 55 + 65 + 85 + 105 + 135 + 370 (to 30 kB)
        // + 4,000 + 3,250 + 3,000 + 10,500 + 16,250 + 22,500 + 60,000
        assert!((named("hadoop").mean() - 120_420.75).abs() < 1e-6);
    }

    /// The inverse of the CDF: at a table's points, halfway between two, and at the ends.
    #[test]
    fn a_draw_is_the_inverse_of_the_linear_cdf() {
        let w = named("web_search");
        assert_eq!(w.sample(0.0), 1); // 0 bytes rounds up to one byte
        assert_eq!(w.sample(0.15), 10_000);
        assert_eq!(w.sample(0.175), 15_000);
        assert_eq!(w.sample(0.565), 140_000);
        assert_eq!(w.sample(0.985), 20_000_000);
        assert_eq!(w.sample(1.0 - 1e-12), 30_000_000);
        // A first row above 0 is a point mass there.
        let t = SizeCdf::from_spec(&json!([[1000, 0.5], [3000, 1.0]]), "sizes").unwrap();
        assert_eq!(t.sample(0.2), 1000);
        assert_eq!(t.sample(0.75), 2000);
        assert!((t.mean() - (0.5 * 1000.0 + 0.5 * 2000.0)).abs() < 1e-9);
    }

    /// Many draws average to the mean (the rounding to whole bytes moves it by under a byte).
    #[test]
    fn draws_average_to_the_mean() {
        let h = named("hadoop");
        let mut rng = crate::sim::rng::Rng::stream(3, "sizes");
        let n = 400_000;
        let sum: f64 = (0..n).map(|_| h.sample(rng.uniform()) as f64).sum();
        let avg = sum / n as f64;
        // The standard deviation of one draw is under 1 MB: of the average, under 1.6 kB.
        assert!((avg - h.mean()).abs() < 5_000.0, "{avg} vs {}", h.mean());
    }

    #[test]
    fn bad_tables_are_named_with_what_is_allowed() {
        let err = |v: serde_json::Value| SizeCdf::from_spec(&v, "traffic.sizes").unwrap_err();
        let e = err(json!("websearch"));
        assert_eq!(e.path, "traffic.sizes");
        assert!(e.message.contains("\"web_search\", \"hadoop\""), "{e}");
        let e = err(json!([[0, 0]]));
        assert!(e.message.contains("at least two"), "{e}");
        let e = err(json!([[0, 0], [100, 50]]));
        assert_eq!(e.path, "traffic.sizes[1]");
        assert!(e.message.contains("not a percentage"), "{e}");
        let e = err(json!([[0, 0], [100, 0.6], [50, 1.0]]));
        assert_eq!(e.path, "traffic.sizes[2]");
        assert!(e.message.contains("must not decrease"), "{e}");
        let e = err(json!([[0, 0], [100, 0.9]]));
        assert!(e.message.contains("must be 1"), "{e}");
        let e = err(json!([[0, 0], ["1KB", 1.0]]));
        assert!(e.message.contains("two numbers"), "{e}");
        let e = err(json!(7));
        assert!(e.message.contains("got 7"), "{e}");
    }
}
