//! Drops by cause as results report them: a fixed array of counters (no allocation per
//! flow or link — a run with 100,000 flows has 500,000 of these), serialised as a JSON
//! object with the reported causes' names in alphabetical order.

use crate::net::DropCause;
use serde::ser::{Serialize, SerializeMap, Serializer};

/// Which drop causes a run reports: the ATM causes only in runs with ATM links, the AQM
/// cause only in runs with an active queue manager.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Causes {
    /// ATM links exist (early/partial packet discard, frames lost to cell drops).
    pub atm: bool,
    /// An active queue manager runs some queue.
    pub aqm: bool,
}

impl Causes {
    fn shows(self, c: DropCause) -> bool {
        match c {
            DropCause::Epd | DropCause::Ppd | DropCause::Cells => self.atm,
            DropCause::Aqm => self.aqm,
            _ => true,
        }
    }
}

/// The causes in alphabetical order of their names (the order of the JSON keys).
const BY_NAME: [DropCause; DropCause::COUNT] = [
    DropCause::Aqm,
    DropCause::Cells,
    DropCause::Epd,
    DropCause::Filtered,
    DropCause::LinkDown,
    DropCause::LossModel,
    DropCause::Ppd,
    DropCause::Queue,
    DropCause::Script,
];

/// Drops by cause, for the causes a run reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Drops {
    counts: [u64; DropCause::COUNT],
    causes: Causes,
}

impl Drops {
    /// The counters `counts` (indexed by [`DropCause::index`]) of the causes `causes` shows.
    pub fn new(counts: &[u64; DropCause::COUNT], causes: Causes) -> Self {
        Drops {
            counts: *counts,
            causes,
        }
    }

    /// (name, count) of every reported cause, in alphabetical order of names.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        BY_NAME
            .iter()
            .filter(|&&c| self.causes.shows(c))
            .map(|&c| (c.name(), self.counts[c.index()]))
    }

    /// The counts of the reported causes.
    pub fn values(&self) -> impl Iterator<Item = u64> + '_ {
        self.iter().map(|(_, n)| n)
    }

    /// True when the run reports the cause named `name`.
    pub fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// The count of the cause named `name`, if the run reports it.
    pub fn get(&self, name: &str) -> Option<u64> {
        self.iter().find(|&(n, _)| n == name).map(|(_, v)| v)
    }
}

impl std::ops::Index<&str> for Drops {
    type Output = u64;

    /// The count of the cause named `name`; panics (as a map would) if the run does not
    /// report it.
    fn index(&self, name: &str) -> &u64 {
        let c = BY_NAME
            .iter()
            .find(|&&c| c.name() == name && self.causes.shows(c))
            .unwrap_or_else(|| panic!("no drop cause {name:?} in these results"));
        &self.counts[c.index()]
    }
}

impl Serialize for Drops {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        for (name, n) in self.iter() {
            m.serialize_entry(name, &n)?;
        }
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_name_is_every_cause_once_in_alphabetical_order() {
        let names: Vec<&str> = BY_NAME.iter().map(|c| c.name()).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(names, sorted);
        assert_eq!(names.len(), DropCause::ALL.len());
    }

    #[test]
    fn serialises_the_reported_causes_sorted_by_name() {
        let mut counts = [0u64; DropCause::COUNT];
        counts[DropCause::Queue.index()] = 7;
        counts[DropCause::Aqm.index()] = 3;
        let plain = Drops::new(
            &counts,
            Causes {
                atm: false,
                aqm: false,
            },
        );
        assert_eq!(
            serde_json::to_string(&plain).unwrap(),
            r#"{"filtered":0,"link_down":0,"loss_model":0,"queue":7,"script":0}"#
        );
        assert_eq!(plain["queue"], 7);
        assert_eq!(plain.get("aqm"), None);
        let aqm = Drops::new(
            &counts,
            Causes {
                atm: false,
                aqm: true,
            },
        );
        assert_eq!(aqm.values().sum::<u64>(), 10);
        assert!(serde_json::to_string(&aqm)
            .unwrap()
            .starts_with(r#"{"aqm":3,"#));
    }
}
