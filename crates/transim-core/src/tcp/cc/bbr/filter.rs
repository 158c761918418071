//! BBR's bottleneck-bandwidth filter: the exact maximum of the delivery-rate samples taken
//! in the last `N` round trips, kept as one slot per round in a ring.

/// Windowed maximum over the last `N` rounds.
#[derive(Clone, Debug)]
pub struct RoundMax<const N: usize> {
    /// (round, largest sample in that round); `None` for unused slots.
    slots: [Option<(u64, f64)>; N],
}

impl<const N: usize> Default for RoundMax<N> {
    fn default() -> Self {
        RoundMax { slots: [None; N] }
    }
}

impl<const N: usize> RoundMax<N> {
    /// Add a sample taken in `round`; returns the maximum over rounds `round − N + 1 ..= round`.
    #[inline]
    pub fn update(&mut self, round: u64, value: f64) -> f64 {
        let slot = &mut self.slots[(round % N as u64) as usize];
        *slot = match *slot {
            Some((r, v)) if r == round => Some((r, v.max(value))),
            _ => Some((round, value)),
        };
        self.max(round)
    }

    /// The maximum over the `N` rounds ending with `round` (0 when there is no sample).
    #[inline]
    pub fn max(&self, round: u64) -> f64 {
        self.max_within(round, N as u64)
    }

    /// The maximum over the `n` (at most `N`) rounds ending with `round`.
    #[inline]
    pub fn max_within(&self, round: u64, n: u64) -> f64 {
        self.slots
            .iter()
            .flatten()
            .filter(|(r, _)| *r + n > round && *r <= round)
            .fold(0.0, |m, (_, v)| m.max(*v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_largest_sample_of_the_last_n_rounds() {
        let mut f = RoundMax::<3>::default();
        assert_eq!(f.max(0), 0.0);
        assert_eq!(f.update(0, 5.0), 5.0);
        assert_eq!(f.update(0, 7.0), 7.0);
        assert_eq!(f.update(1, 2.0), 7.0);
        assert_eq!(f.update(2, 1.0), 7.0);
        // Round 3: round 0's 7 falls out of the window; rounds 1..3 hold 2, 1, 3.
        assert_eq!(f.update(3, 3.0), 3.0);
        assert_eq!(f.update(4, 0.5), 3.0);
        // Rounds 4..6 after a gap with no samples in round 5.
        assert_eq!(f.update(6, 0.25), 0.5);
        assert_eq!(f.max(9), 0.0);
        // A narrower window over the same slots: round 6 alone, then rounds 5..6.
        assert_eq!(f.max_within(6, 1), 0.25);
        assert_eq!(f.max_within(6, 3), 0.5);
    }
}
