//! What `transim run` prints of a run's summary, picked out of the summary's JSON text: the
//! run's own fields, the first flows, the busiest link directions, and totals over all flows.
//!
//! A run of 100,000 flows has a summary of some 250 MB of JSON. Reading it all into Python
//! objects to print fifty rows took three seconds; this reads the text once, keeps the rows
//! it prints as they are written, and reads only a few numbers from each of the others.

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::fmt;

/// The digest of the summary `json` (a JSON object with `flows` and `links` arrays), as JSON
/// text: every other key of the summary as it is, then
/// - `flows`: the first `limit` flows (all of them without a limit);
/// - `links`: the link directions that carried packets (`packets_in` > 0), in the
///   summary's order, or, when more than `limit` did, the `limit` busiest by utilisation
///   and then packets carried (ties in the summary's order);
/// - `flows_total`: how many flows the summary has;
/// - `flows_all`: over all flows, `goodput_bps` as `total` (summed in order), `min` and
///   `max` (null without flows), the sum of `bytes_delivered` (`bytes`), Jain's fairness
///   index `jain` (null without flows or without goodput), the sums of `retransmissions`
///   and `timeouts`, how many flows `completed`, and their completion times by size
///   (`fct`: [`super::fct::by_size`]);
/// - `links_carried`: how many link directions carried packets.
pub fn digest(json: &str, limit: Option<usize>) -> Result<String, serde_json::Error> {
    let limit = limit.unwrap_or(usize::MAX);
    let mut de = serde_json::Deserializer::from_str(json);
    let parts = SummarySeed { limit }.deserialize(&mut de)?;
    de.end()?;
    Ok(parts.write())
}

/// The pieces of a digest, borrowing their text from the summary.
#[derive(Default)]
struct Parts<'de> {
    /// Every key of the summary but `flows` and `links`, in order.
    other: Vec<(String, &'de RawValue)>,
    flows: Flows<'de>,
    links: Vec<&'de RawValue>,
    links_carried: usize,
}

impl Parts<'_> {
    fn write(&self) -> String {
        let mut out = String::from("{");
        for (key, value) in &self.other {
            out += &serde_json::to_string(key).expect("a string serialises");
            out.push(':');
            out += value.get();
            out.push(',');
        }
        out += "\"flows\":";
        list(&mut out, &self.flows.kept);
        out += ",\"links\":";
        list(&mut out, &self.links);
        let f = &self.flows;
        let all = serde_json::json!({
            "total": f.goodputs.iter().sum::<f64>(),
            "min": f.goodputs.iter().copied().reduce(f64::min),
            "max": f.goodputs.iter().copied().reduce(f64::max),
            "bytes": f.bytes,
            "jain": crate::fairness::jain(&f.goodputs),
            "retransmissions": f.retransmissions,
            "timeouts": f.timeouts,
            "completed": f.done.len(),
            "fct": super::fct::by_size(&f.done),
        });
        out += &format!(
            ",\"flows_total\":{},\"flows_all\":{all},\"links_carried\":{}}}",
            f.goodputs.len(),
            self.links_carried
        );
        out
    }
}

/// `items` as a JSON array of their own text.
fn list(out: &mut String, items: &[&RawValue]) {
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(item.get());
    }
    out.push(']');
}

/// The flows kept and what is summed over all of them.
#[derive(Default)]
struct Flows<'de> {
    kept: Vec<&'de RawValue>,
    goodputs: Vec<f64>,
    /// Bytes delivered to the applications.
    bytes: u64,
    retransmissions: u64,
    timeouts: u64,
    /// Completed flows.
    done: Vec<super::fct::Done>,
}

/// What the totals read of a flow.
#[derive(Deserialize)]
struct FlowNumbers {
    goodput_bps: f64,
    retransmissions: u64,
    timeouts: u64,
    #[serde(default)]
    completion_time: Option<f64>,
    #[serde(default)]
    ideal_completion_time: Option<f64>,
    #[serde(default)]
    bytes_delivered: u64,
}

/// What choosing the busiest link directions reads of one.
#[derive(Deserialize)]
struct LinkNumbers {
    packets_in: u64,
    utilisation: f64,
}

/// The summary object.
struct SummarySeed {
    limit: usize,
}

impl<'de> DeserializeSeed<'de> for SummarySeed {
    type Value = Parts<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Parts<'de>, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for SummarySeed {
    type Value = Parts<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a run's summary (an object)")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Parts<'de>, A::Error> {
        let mut parts = Parts::default();
        let (mut flows, mut links) = (false, false);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "flows" => {
                    parts.flows = map.next_value_seed(FlowsSeed { limit: self.limit })?;
                    flows = true;
                }
                "links" => {
                    let carried = map.next_value_seed(LinksSeed)?;
                    parts.links_carried = carried.len();
                    parts.links = busiest(carried, self.limit);
                    links = true;
                }
                _ => {
                    let value = map.next_value::<&RawValue>()?;
                    parts.other.push((key, value));
                }
            }
        }
        if !flows {
            return Err(de::Error::missing_field("flows"));
        }
        if !links {
            return Err(de::Error::missing_field("links"));
        }
        Ok(parts)
    }
}

/// The `flows` array.
struct FlowsSeed {
    limit: usize,
}

impl<'de> DeserializeSeed<'de> for FlowsSeed {
    type Value = Flows<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Flows<'de>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for FlowsSeed {
    type Value = Flows<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("the flows (an array of objects)")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Flows<'de>, A::Error> {
        let mut flows = Flows::default();
        while let Some(raw) = seq.next_element::<&RawValue>()? {
            let n: FlowNumbers = numbers(raw, "flow", flows.goodputs.len())?;
            flows.goodputs.push(n.goodput_bps);
            flows.bytes += n.bytes_delivered;
            flows.retransmissions += n.retransmissions;
            flows.timeouts += n.timeouts;
            if let Some(t) = n.completion_time {
                flows.done.push(super::fct::Done {
                    bytes: n.bytes_delivered,
                    time: t,
                    ideal: n.ideal_completion_time,
                });
            }
            if flows.kept.len() < self.limit {
                flows.kept.push(raw);
            }
        }
        Ok(flows)
    }
}

/// A link direction that carried packets: its place in the summary, what ranks it, and its
/// text.
struct Carried<'de> {
    utilisation: f64,
    packets_in: u64,
    raw: &'de RawValue,
}

/// The `links` array: the directions that carried packets.
struct LinksSeed;

impl<'de> DeserializeSeed<'de> for LinksSeed {
    type Value = Vec<Carried<'de>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for LinksSeed {
    type Value = Vec<Carried<'de>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("the link directions (an array of objects)")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut carried = Vec::new();
        let mut i = 0;
        while let Some(raw) = seq.next_element::<&RawValue>()? {
            let n: LinkNumbers = numbers(raw, "link direction", i)?;
            i += 1;
            if n.packets_in > 0 {
                carried.push(Carried {
                    utilisation: n.utilisation,
                    packets_in: n.packets_in,
                    raw,
                });
            }
        }
        Ok(carried)
    }
}

/// The numbers a digest reads of item `i` of a list, or an error that names the item.
fn numbers<'a, T: Deserialize<'a>, E: de::Error>(
    raw: &'a RawValue,
    what: &str,
    i: usize,
) -> Result<T, E> {
    serde_json::from_str(raw.get()).map_err(|e| E::custom(format!("{what} {i}: {e}")))
}

/// The `limit` busiest of `carried` (by utilisation, then packets, ties in order), or all of
/// them in order when they are no more than `limit`.
fn busiest(mut carried: Vec<Carried<'_>>, limit: usize) -> Vec<&RawValue> {
    if carried.len() > limit {
        // A stable sort: ties keep the summary's order.
        carried.sort_by(|a, b| {
            b.utilisation
                .total_cmp(&a.utilisation)
                .then(b.packets_in.cmp(&a.packets_in))
        });
        carried.truncate(limit);
    }
    carried.into_iter().map(|c| c.raw).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn summary() -> Value {
        let flow = |name: &str, goodput: f64, rtx: u64, rtos: u64| {
            json!({"name": name, "goodput_bps": goodput, "retransmissions": rtx,
                   "timeouts": rtos, "paths": [1, 2], "completion_time": null,
                   "bytes_delivered": 5_000})
        };
        let link = |name: &str, util: f64, packets: u64| json!({"name": name, "utilisation": util, "packets_in": packets});
        json!({
            "name": "s", "seed": 7, "events": 12,
            "flows": [flow("f0", 4.0, 1, 0), flow("f1", 2.0, 0, 2), flow("f2", 0.5, 3, 1)],
            "links": [link("a", 0.1, 5), link("idle", 0.0, 0), link("b", 0.9, 7),
                      link("c", 0.1, 9), link("d", 0.1, 5)],
            "conservation": {"sent": 3}
        })
    }

    fn digest_of(s: &Value, limit: Option<usize>) -> Value {
        serde_json::from_str(&digest(&s.to_string(), limit).unwrap()).unwrap()
    }

    fn names(v: &Value) -> Vec<&str> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x["name"].as_str().unwrap())
            .collect()
    }

    #[test]
    fn the_first_flows_the_busiest_links_and_totals_over_all() {
        let d = digest_of(&summary(), Some(2));
        assert_eq!(names(&d["flows"]), ["f0", "f1"]);
        // Kept flows are whole, lists included.
        assert_eq!(d["flows"][0], summary()["flows"][0]);
        // b (0.9), then c (0.1, 9 packets); a and d tie and a comes first.
        assert_eq!(names(&d["links"]), ["b", "c"]);
        assert_eq!(d["flows_total"], 3);
        assert_eq!(d["links_carried"], 4);
        let all = &d["flows_all"];
        assert_eq!(all["total"], 6.5);
        assert_eq!(all["min"], 0.5);
        assert_eq!(all["max"], 4.0);
        assert_eq!(all["bytes"], 15_000);
        assert_eq!(all["retransmissions"], 4);
        assert_eq!(all["timeouts"], 3);
        assert_eq!(all["completed"], 0);
        assert_eq!(all["fct"], json!([]));
        let jain = 6.5 * 6.5 / (3.0 * (16.0 + 4.0 + 0.25));
        assert!((all["jain"].as_f64().unwrap() - jain).abs() < 1e-15);
        // The run's own fields, as they were.
        for key in ["name", "seed", "events", "conservation"] {
            assert_eq!(d[key], summary()[key], "{key}");
        }
        assert_eq!(
            names(&digest_of(&summary(), Some(3))["links"]),
            ["b", "c", "a"]
        );
    }

    #[test]
    fn without_a_limit_or_within_it_everything_in_order() {
        for limit in [None, Some(4), Some(100)] {
            let d = digest_of(&summary(), limit);
            assert_eq!(names(&d["flows"]), ["f0", "f1", "f2"]);
            assert_eq!(names(&d["links"]), ["a", "b", "c", "d"], "{limit:?}");
        }
    }

    /// Completion times over every flow that completed, kept or not, by bytes delivered;
    /// slowdowns where the flow has an ideal completion time.
    #[test]
    fn completion_times_of_all_completed_flows() {
        let mut s = summary();
        s["flows"][0]["completion_time"] = json!(0.25);
        s["flows"][2]["completion_time"] = json!(0.75);
        s["flows"][2]["ideal_completion_time"] = json!(0.25);
        s["flows"][2]["bytes_delivered"] = json!(2_000_000);
        let d = digest_of(&s, Some(1));
        let all = &d["flows_all"];
        assert_eq!(all["completed"], 2);
        let none = Value::Null;
        assert_eq!(
            all["fct"],
            json!([
                {"label": "under 100 kB", "flows": 1, "mean": 0.25, "median": 0.25, "p99": 0.25,
                 "slowdown_mean": none, "slowdown_median": none, "slowdown_p99": none,
                 "slowdown_flows": 0},
                {"label": "1 MB to 10 MB", "flows": 1, "mean": 0.75, "median": 0.75, "p99": 0.75,
                 "slowdown_mean": 3.0, "slowdown_median": 3.0, "slowdown_p99": 3.0,
                 "slowdown_flows": 1}
            ])
        );
    }

    #[test]
    fn no_flows_no_extremes() {
        let mut s = summary();
        s["flows"] = json!([]);
        let d = digest_of(&s, Some(5));
        assert_eq!(d["flows_total"], 0);
        assert_eq!(d["flows_all"]["min"], Value::Null);
        assert_eq!(d["flows_all"]["jain"], Value::Null);
    }

    #[test]
    fn a_summary_without_its_numbers_is_refused_by_name() {
        let mut s = summary();
        s["flows"][1] = json!({"name": "f1"});
        let e = digest(&s.to_string(), Some(1)).unwrap_err().to_string();
        assert!(e.contains("flow 1") && e.contains("goodput_bps"), "{e}");
        let mut s = summary();
        s.as_object_mut().unwrap().remove("links");
        let e = digest(&s.to_string(), Some(1)).unwrap_err().to_string();
        assert!(e.contains("links"), "{e}");
        assert!(digest("[1, 2]", None).is_err());
    }
}
