//! Generic resources (GRES): node-locked consumable resources such as GPUs,
//! tape drives or licences, by name as the RM and maui.cfg give them, and
//! as counts per interned name inside [`Resources`](super::Resources).
//!
//! A name may carry a type after a colon, as Slurm's do (`gpu:a100`). A
//! node with `gpu:a100:4` has four `gpu:a100` and, implied, four `gpu`; a
//! request for `gpu:a100:1` takes one of each, a request for `gpu:1` one
//! `gpu` of any type. The untyped total then bounds every typed request,
//! so nothing is over-committed.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Most distinct generic resource names (typed names and their implied
/// untyped totals count separately) one cluster may have. Maui 3.3
/// allowed three (`MAX_MGRES` 4, index 0 unused).
pub const MAX_GRES: usize = 4;

/// Most of one generic resource a count holds (on a node, in a request).
pub const MAX_GRES_COUNT: u32 = u16::MAX as u32;

/// Counts per generic resource id (the position of the name in
/// [`Cluster::gres_names`](super::Cluster::gres_names)), at most
/// [`MAX_GRES_COUNT`] each: kept small, as every resource vector of the
/// availability profile carries them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GresCounts(pub [u16; MAX_GRES]);

impl GresCounts {
    /// No generic resources.
    pub const ZERO: GresCounts = GresCounts([0; MAX_GRES]);

    /// True when every count is zero.
    #[inline]
    pub fn is_zero(&self) -> bool {
        self.0 == [0; MAX_GRES]
    }

    /// The count of id `k`.
    #[inline]
    pub fn get(&self, k: usize) -> u32 {
        self.0[k] as u32
    }

    /// Sets the count of id `k` (at most [`MAX_GRES_COUNT`]).
    #[inline]
    pub fn set(&mut self, k: usize, v: u32) {
        self.0[k] = v.min(MAX_GRES_COUNT) as u16;
    }

    /// Every count at its most.
    pub const MAX: GresCounts = GresCounts([u16::MAX; MAX_GRES]);

    #[inline]
    pub(crate) fn zip(&self, o: &GresCounts, f: impl Fn(u32, u32) -> Option<u32>) -> Option<Self> {
        let mut out = [0; MAX_GRES];
        for ((r, a), b) in out.iter_mut().zip(&self.0).zip(&o.0) {
            let v = f(*a as u32, *b as u32)?;
            *r = u16::try_from(v).ok()?;
        }
        Some(GresCounts(out))
    }

    /// Sum, or `None` on overflow; without branches per count, as the
    /// profile adds resource vectors in its innermost loops.
    #[inline]
    pub fn checked_add(&self, o: &GresCounts) -> Option<Self> {
        let mut out = [0; MAX_GRES];
        let mut over = false;
        for ((r, a), b) in out.iter_mut().zip(&self.0).zip(&o.0) {
            let (v, c) = a.overflowing_add(*b);
            *r = v;
            over |= c;
        }
        (!over).then_some(GresCounts(out))
    }

    /// Difference, or `None` below zero (see [`GresCounts::checked_add`]).
    #[inline]
    pub fn checked_sub(&self, o: &GresCounts) -> Option<Self> {
        let mut out = [0; MAX_GRES];
        let mut under = false;
        for ((r, a), b) in out.iter_mut().zip(&self.0).zip(&o.0) {
            let (v, c) = a.overflowing_sub(*b);
            *r = v;
            under |= c;
        }
        (!under).then_some(GresCounts(out))
    }

    /// Count by count `f` of the two, on the counts themselves: the
    /// profile's innermost loops use these, and the compiler turns them
    /// into single vector instructions.
    #[inline]
    fn each(&self, o: &GresCounts, f: impl Fn(u16, u16) -> u16) -> Self {
        let mut out = [0; MAX_GRES];
        for ((r, a), b) in out.iter_mut().zip(&self.0).zip(&o.0) {
            *r = f(*a, *b);
        }
        GresCounts(out)
    }

    /// Sum clamped at [`MAX_GRES_COUNT`].
    #[inline]
    pub fn saturating_add(&self, o: &GresCounts) -> Self {
        self.each(o, u16::saturating_add)
    }

    /// Difference clamped at zero.
    #[inline]
    pub fn saturating_sub(&self, o: &GresCounts) -> Self {
        self.each(o, u16::saturating_sub)
    }

    /// Count-wise minimum.
    #[inline]
    pub fn min_each(&self, o: &GresCounts) -> Self {
        self.each(o, u16::min)
    }

    /// Count-wise maximum.
    #[inline]
    pub fn max_each(&self, o: &GresCounts) -> Self {
        self.each(o, u16::max)
    }

    #[inline]
    pub(crate) fn map(&self, o: &GresCounts, f: impl Fn(u32, u32) -> u32) -> Self {
        let mut out = [0; MAX_GRES];
        for ((r, a), b) in out.iter_mut().zip(&self.0).zip(&o.0) {
            *r = f(*a as u32, *b as u32).min(MAX_GRES_COUNT) as u16;
        }
        GresCounts(out)
    }

    /// True when each count is at most `o`'s.
    #[inline]
    pub fn fits_in(&self, o: &GresCounts) -> bool {
        self.0
            .iter()
            .zip(&o.0)
            .fold(true, |ok, (a, b)| ok & (a <= b))
    }

    /// How many whole copies fit in `avail` (`u64::MAX` when none is asked).
    #[inline]
    pub fn times_fits_in(&self, avail: &GresCounts) -> u64 {
        if self.is_zero() {
            return u64::MAX;
        }
        let mut n = u64::MAX;
        for (need, have) in self.0.iter().zip(&avail.0) {
            if let Some(q) = have.checked_div(*need) {
                n = n.min(q as u64);
            }
        }
        n
    }
}

/// Generic resources by name with their counts, as written in maui.cfg
/// (`GRES=tape:4,matlab:2`), by Slurm (`gpu:a100:4`) and in snapshots: a
/// comma-separated list of `name[:type]:count`; a bare `name` means one.
/// Kept in the order given, each name once (a later count replaces an
/// earlier one, as a repeated NODECFG GRES does in Maui).
///
/// One pointer wide, and no allocation when empty: every job carries three
/// (per task, per node, per job), nearly always empty, and the engine
/// holds each queued job twice.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[allow(clippy::box_collection)] // one pointer in the job instead of a vector's three words
pub struct GresList(Option<Box<Vec<(String, u32)>>>);

impl From<Vec<(String, u32)>> for GresList {
    fn from(items: Vec<(String, u32)>) -> GresList {
        GresList((!items.is_empty()).then(|| Box::new(items)))
    }
}

impl GresList {
    /// True when no resource is listed.
    pub fn is_empty(&self) -> bool {
        self.items().is_empty()
    }

    /// The (name, count) items, in the order given.
    pub fn items(&self) -> &[(String, u32)] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }

    /// Parses `name[:type]:count[,...]`; the error says which item is wrong.
    pub fn parse(s: &str) -> Result<GresList, String> {
        let mut out = GresList::default();
        for item in s.split(',').map(str::trim) {
            if item.is_empty() {
                if s.trim().is_empty() {
                    break;
                }
                return Err(format!("empty item in generic resource list \"{s}\""));
            }
            let (name, count) = match item.rsplit_once(':') {
                Some((n, c)) if c.bytes().all(|b| b.is_ascii_digit()) && !c.is_empty() => {
                    let count = c.parse::<u32>().map_err(|_| {
                        format!("count \"{c}\" of generic resource \"{n}\" is too large")
                    })?;
                    (n, count)
                }
                Some((_, c)) if c.bytes().next().is_some_and(|b| b.is_ascii_digit()) => {
                    return Err(format!(
                        "\"{item}\": the count \"{c}\" is not a whole number"
                    ))
                }
                _ => (item, 1),
            };
            if let Some(bad) = name.split(':').find(|part| {
                !part
                    .bytes()
                    .next()
                    .is_some_and(|b| b.is_ascii_alphanumeric())
                    || !part.bytes().all(name_byte)
            }) {
                return Err(format!(
                    "\"{item}\" is not name[:type]:count (bad name part \"{bad}\")"
                ));
            }
            if name.split(':').count() > 2 {
                return Err(format!(
                    "\"{item}\" is not name[:type]:count (more than one type)"
                ));
            }
            out.set(name, count);
        }
        Ok(out)
    }

    /// Sets `name`'s count (replacing an earlier one).
    pub fn set(&mut self, name: &str, count: u32) {
        let items = self.0.get_or_insert_with(Default::default);
        match items.iter_mut().find(|(n, _)| n == name) {
            Some(e) => e.1 = count,
            None => items.push((name.to_string(), count)),
        }
    }

    /// The count of `name`, if listed.
    pub fn get(&self, name: &str) -> Option<u32> {
        self.items().iter().find(|(n, _)| n == name).map(|e| e.1)
    }

    /// The list with each typed name's count also added to its untyped
    /// total (`gpu:a100:2,gpu:v100:2` gives `gpu` 4 as well), unless the
    /// untyped name is listed itself, with at least that many. This is
    /// what a node offers and what a request takes.
    pub fn with_totals(&self) -> Vec<(String, u32)> {
        let mut out: Vec<(String, u32)> = self.items().to_vec();
        let mut totals: Vec<(String, u32)> = Vec::new();
        for (n, c) in self.items() {
            if let Some((base, _)) = n.split_once(':') {
                match totals.iter_mut().find(|(b, _)| b == base) {
                    Some(e) => e.1 = e.1.saturating_add(*c),
                    None => totals.push((base.to_string(), *c)),
                }
            }
        }
        for (base, c) in totals {
            match out.iter_mut().find(|(n, _)| *n == base) {
                Some(e) => e.1 = e.1.max(c),
                None => out.push((base, c)),
            }
        }
        out
    }
}

fn name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/')
}

impl std::fmt::Display for GresList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (k, (n, c)) in self.items().iter().enumerate() {
            if k > 0 {
                f.write_str(",")?;
            }
            write!(f, "{n}:{c}")?;
        }
        Ok(())
    }
}

impl Serialize for GresList {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for GresList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        GresList::parse(&s).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An empty list is one value however it was made, so that jobs
    /// compare equal whether their lists were parsed, built or defaulted.
    #[test]
    fn an_empty_list_is_the_default_however_made() {
        let empty = [
            GresList::from(Vec::new()),
            GresList::parse("").unwrap(),
            GresList::parse(" ").unwrap(),
        ];
        for l in &empty {
            assert_eq!(*l, GresList::default());
            assert!(l.is_empty() && l.items().is_empty());
            assert_eq!(l.to_string(), "");
        }
        let mut g = GresList::default();
        g.set("gpu", 2);
        assert_eq!(g, GresList::from(vec![("gpu".to_string(), 2)]));
        assert_eq!(g, GresList::parse("gpu:2").unwrap());
    }

    #[test]
    fn guide_examples_parse() {
        let g = GresList::parse("matlab:2,prime:4").unwrap();
        assert_eq!(g.get("matlab"), Some(2));
        assert_eq!(g.get("prime"), Some(4));
        assert_eq!(GresList::parse("tape:4").unwrap().to_string(), "tape:4");
        let g = GresList::parse("gpu:a100:4").unwrap();
        assert_eq!(g.get("gpu:a100"), Some(4));
        assert_eq!(GresList::parse("gpu").unwrap().get("gpu"), Some(1));
        assert!(GresList::parse("").unwrap().is_empty());
    }

    #[test]
    fn malformed_lists_say_what_is_wrong() {
        for (s, want) in [
            ("gpu:x:y:2", "more than one type"),
            ("gpu:2x", "not a whole number"),
            ("gpu:,tape:1", "bad name part"),
            ("gpu:1,,tape:2", "empty item"),
            ("gpu:99999999999", "too large"),
            ("g pu:1", "bad name part"),
            ("tape:-1", "bad name part \"-1\""),
        ] {
            let e = GresList::parse(s).unwrap_err();
            assert!(e.contains(want), "{s}: {e}");
        }
    }

    #[test]
    fn typed_names_add_to_their_untyped_total() {
        let g = GresList::parse("gpu:a100:2,gpu:v100:2,tape:1").unwrap();
        let t = g.with_totals();
        assert!(t.contains(&("gpu".into(), 4)));
        assert!(t.contains(&("gpu:a100".into(), 2)));
        let g = GresList::parse("gpu:8,gpu:a100:2").unwrap();
        assert!(g.with_totals().contains(&("gpu".into(), 8)));
    }
}
