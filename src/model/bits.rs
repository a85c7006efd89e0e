//! A set of small integer ids (node indices, feature ids), one bit each.

/// A set of ids, one bit each. Words are added only to hold a set bit, so
/// two equal sets have equal words (equality and hashing are the sets').
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Bits(Vec<u64>);

impl Bits {
    /// Adds `id`; true when it was not in yet.
    pub fn insert(&mut self, id: u32) -> bool {
        let w = id as usize / 64;
        if self.0.len() <= w {
            self.0.resize(w + 1, 0);
        }
        let bit = 1 << (id % 64);
        let new = self.0[w] & bit == 0;
        self.0[w] |= bit;
        new
    }

    /// True when `id` is in the set.
    #[inline]
    pub fn contains(&self, id: u32) -> bool {
        self.0
            .get(id as usize / 64)
            .is_some_and(|w| w & (1 << (id % 64)) != 0)
    }

    /// Takes `id` out; true when it was in. Trailing empty words go, so
    /// equal sets keep equal words.
    pub fn remove(&mut self, id: u32) -> bool {
        let w = id as usize / 64;
        let Some(word) = self.0.get_mut(w) else {
            return false;
        };
        let bit = 1 << (id % 64);
        let was = *word & bit != 0;
        *word &= !bit;
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
        was
    }

    /// The ids, smallest first; a word without ids is skipped whole.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().enumerate().flat_map(|(k, &word)| {
            let mut w = word;
            std::iter::from_fn(move || {
                (w != 0).then(|| {
                    let b = w.trailing_zeros();
                    w &= w - 1;
                    k as u32 * 64 + b
                })
            })
        })
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

    #[test]
    fn removing_ids_leaves_the_set_of_the_others_listed_in_order() {
        let mut a: Bits = [200, 3, 64, 130].into_iter().collect();
        assert_eq!(a.iter().collect::<Vec<_>>(), [3, 64, 130, 200]);
        assert!(a.remove(200) && !a.remove(200) && !a.remove(5000));
        assert!(a.remove(130));
        assert_eq!(a, Bits::from_iter([64, 3]));
        assert!(a.remove(3) && a.remove(64));
        assert!(a.is_empty() && a == Bits::default());
        assert_eq!(a.iter().count(), 0);
    }

    #[test]
    fn inserting_says_whether_the_id_was_new() {
        let mut a = Bits::default();
        assert!(a.insert(70) && !a.insert(70));
        assert!(a.insert(1) && !a.insert(1) && !a.insert(70));
        assert_eq!(a, Bits::from_iter([1, 70]));
    }
}
