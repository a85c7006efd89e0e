//! A map keyed by job index, for what the passes note per job.

/// A map from a job's index (or its position in the ranked queue) to a
/// value: a slot per index, so the look-ups the passes make for every idle
/// job (started? reserved? deferred?) are an index, not a tree search.
/// Iterated in key order, as the `BTreeMap` it replaces.
pub(in crate::engine) struct JobMap<T> {
    /// By key: the position of its entry in `entries` plus one; 0 when
    /// the key has none.
    at: Vec<u32>,
    entries: Vec<(usize, T)>,
}

impl<T> JobMap<T> {
    /// An empty map for keys below `keys` (larger keys are accepted too).
    pub(in crate::engine) fn with_keys(keys: usize) -> Self {
        JobMap {
            at: vec![0; keys],
            entries: Vec::new(),
        }
    }

    fn pos(&self, k: usize) -> Option<usize> {
        match self.at.get(k) {
            Some(&p) if p > 0 => Some(p as usize - 1),
            _ => None,
        }
    }

    /// The value of key `k`.
    pub(in crate::engine) fn get(&self, k: &usize) -> Option<&T> {
        self.pos(*k).map(|p| &self.entries[p].1)
    }

    /// True when key `k` has a value.
    pub(in crate::engine) fn contains_key(&self, k: &usize) -> bool {
        self.pos(*k).is_some()
    }

    /// Sets the value of key `k`; the one it had, if any.
    pub(in crate::engine) fn insert(&mut self, k: usize, v: T) -> Option<T> {
        if let Some(p) = self.pos(k) {
            return Some(std::mem::replace(&mut self.entries[p].1, v));
        }
        if k >= self.at.len() {
            self.at.resize(k + 1, 0);
        }
        self.entries.push((k, v));
        self.at[k] = self.entries.len() as u32;
        None
    }

    /// The values, in no particular order.
    pub(in crate::engine) fn values(&self) -> impl Iterator<Item = &T> {
        self.entries.iter().map(|(_, v)| v)
    }

    /// The entries in key order.
    pub(in crate::engine) fn iter(&self) -> impl Iterator<Item = (&usize, &T)> {
        let mut sorted: Vec<&(usize, T)> = self.entries.iter().collect();
        sorted.sort_unstable_by_key(|e| e.0);
        sorted.into_iter().map(|(k, v)| (k, v))
    }

    /// Number of entries.
    pub(in crate::engine) fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when there are no entries.
    pub(in crate::engine) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::JobMap;

    #[test]
    fn answers_as_a_btree_map() {
        let mut m = JobMap::with_keys(4);
        let mut b = std::collections::BTreeMap::new();
        for (k, v) in [(3, 'a'), (0, 'b'), (9, 'c'), (3, 'd'), (2, 'e')] {
            assert_eq!(m.insert(k, v), b.insert(k, v));
        }
        for k in 0..12 {
            assert_eq!(m.get(&k), b.get(&k));
            assert_eq!(m.contains_key(&k), b.contains_key(&k));
        }
        assert_eq!(m.len(), b.len());
        assert!(m.iter().eq(b.iter()));
        let mut values: Vec<char> = m.values().copied().collect();
        values.sort_unstable();
        assert_eq!(values, ['b', 'c', 'd', 'e']);
        assert!(!m.is_empty() && JobMap::<u8>::with_keys(3).is_empty());
    }
}
