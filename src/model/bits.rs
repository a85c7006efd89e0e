//! A set of small integer ids (node indices, feature ids), one bit each.

/// A set of ids, one bit each. Words are added only to hold a set bit, so
/// two equal sets have equal words (equality and hashing are the sets').
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Bits(Vec<u64>);

impl Bits {
    /// Adds `id`.
    pub fn insert(&mut self, id: u32) {
        let w = id as usize / 64;
        if self.0.len() <= w {
            self.0.resize(w + 1, 0);
        }
        self.0[w] |= 1 << (id % 64);
    }

    /// True when `id` is in the set.
    #[inline]
    pub fn contains(&self, id: u32) -> bool {
        self.0
            .get(id as usize / 64)
            .is_some_and(|w| w & (1 << (id % 64)) != 0)
    }

    /// True when every id of this set is in `other`.
    #[inline]
    pub fn is_subset(&self, other: &Bits) -> bool {
        self.0
            .iter()
            .enumerate()
            .all(|(k, w)| w & !other.0.get(k).copied().unwrap_or(0) == 0)
    }

    /// Number of ids in both sets.
    #[inline]
    pub fn common(&self, other: &Bits) -> usize {
        self.0
            .iter()
            .zip(&other.0)
            .map(|(a, b)| (a & b).count_ones() as usize)
            .sum()
    }

    /// True when the set has no id.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl FromIterator<u32> for Bits {
    fn from_iter<I: IntoIterator<Item = u32>>(ids: I) -> Bits {
        let mut b = Bits::default();
        for id in ids {
            b.insert(id);
        }
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_of_the_same_ids_are_equal_whatever_was_added_first() {
        let a: Bits = [3, 70, 3].into_iter().collect();
        let b: Bits = [70, 3].into_iter().collect();
        assert_eq!(a, b);
        assert!(a.contains(70) && a.contains(3) && !a.contains(4) && !a.contains(700));
        assert_eq!(a.common(&[3, 5].into_iter().collect()), 1);
        assert!(Bits::default().is_subset(&a));
        assert!(!a.is_subset(&[3].into_iter().collect()));
        assert!(Bits::from_iter([3]).is_subset(&a));
        assert_ne!(Bits::from_iter([1]), Bits::default());
    }
}
