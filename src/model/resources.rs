//! Resource vectors: processors and memory, swap and local disk in MB.

use super::gres::GresCounts;
use serde::{Deserialize, Serialize};

/// A quantity of node resources. Memory, swap and disk are in MB.
///
/// There are deliberately no `+`/`-` operators: every combination is either
/// checked (returns `None` on overflow or underflow) or saturating, so a
/// bad RM report can never wrap a counter silently.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(default, deny_unknown_fields)]
pub struct Resources {
    /// Processors.
    pub procs: u32,
    /// Real memory in MB.
    pub mem: u64,
    /// Virtual memory (swap) in MB.
    pub swap: u64,
    /// Local disk in MB.
    pub disk: u64,
    /// Generic resources by the cluster's ids (see [`super::gres`]). Not
    /// in snapshots or state files, which name them: the engine fills it
    /// from the names when it builds the cluster and normalises the jobs.
    #[serde(skip)]
    pub gres: GresCounts,
}

impl Resources {
    /// No resources at all.
    pub const ZERO: Resources = Resources {
        procs: 0,
        mem: 0,
        swap: 0,
        disk: 0,
        gres: GresCounts::ZERO,
    };

    /// Every dimension at its maximum (a saturated total).
    pub const MAX: Resources = Resources {
        procs: u32::MAX,
        mem: u64::MAX,
        swap: u64::MAX,
        disk: u64::MAX,
        gres: GresCounts::MAX,
    };

    /// Just processors.
    pub const fn procs(procs: u32) -> Self {
        Resources {
            procs,
            mem: 0,
            swap: 0,
            disk: 0,
            gres: GresCounts::ZERO,
        }
    }

    /// Processors and memory.
    pub const fn procs_mem(procs: u32, mem: u64) -> Self {
        Resources {
            procs,
            mem,
            swap: 0,
            disk: 0,
            gres: GresCounts::ZERO,
        }
    }

    /// True when every dimension is zero.
    #[inline]
    pub fn is_zero(&self) -> bool {
        *self == Self::ZERO
    }

    /// Sum, or `None` if any dimension overflows.
    #[inline]
    pub fn checked_add(&self, o: &Resources) -> Option<Resources> {
        Some(Resources {
            procs: self.procs.checked_add(o.procs)?,
            mem: self.mem.checked_add(o.mem)?,
            swap: self.swap.checked_add(o.swap)?,
            disk: self.disk.checked_add(o.disk)?,
            gres: self.gres.checked_add(&o.gres)?,
        })
    }

    /// Difference, or `None` if any dimension would go below zero.
    #[inline]
    pub fn checked_sub(&self, o: &Resources) -> Option<Resources> {
        Some(Resources {
            procs: self.procs.checked_sub(o.procs)?,
            mem: self.mem.checked_sub(o.mem)?,
            swap: self.swap.checked_sub(o.swap)?,
            disk: self.disk.checked_sub(o.disk)?,
            gres: self.gres.checked_sub(&o.gres)?,
        })
    }

    /// Sum clamped at the maximum of each dimension.
    #[inline]
    pub fn saturating_add(&self, o: &Resources) -> Resources {
        Resources {
            procs: self.procs.saturating_add(o.procs),
            mem: self.mem.saturating_add(o.mem),
            swap: self.swap.saturating_add(o.swap),
            disk: self.disk.saturating_add(o.disk),
            gres: self.gres.saturating_add(&o.gres),
        }
    }

    /// Difference clamped at zero in each dimension.
    #[inline]
    pub fn saturating_sub(&self, o: &Resources) -> Resources {
        Resources {
            procs: self.procs.saturating_sub(o.procs),
            mem: self.mem.saturating_sub(o.mem),
            swap: self.swap.saturating_sub(o.swap),
            disk: self.disk.saturating_sub(o.disk),
            gres: self.gres.saturating_sub(&o.gres),
        }
    }

    /// `n` copies of this vector, or `None` on overflow.
    pub fn checked_mul(&self, n: u32) -> Option<Resources> {
        Some(Resources {
            procs: self.procs.checked_mul(n)?,
            mem: self.mem.checked_mul(n as u64)?,
            swap: self.swap.checked_mul(n as u64)?,
            disk: self.disk.checked_mul(n as u64)?,
            gres: self.gres.zip(&GresCounts::ZERO, |a, _| a.checked_mul(n))?,
        })
    }

    /// True when `self` fits inside `avail` in every dimension.
    #[inline]
    pub fn fits_in(&self, avail: &Resources) -> bool {
        self.procs <= avail.procs
            && self.mem <= avail.mem
            && self.swap <= avail.swap
            && self.disk <= avail.disk
            && self.gres.fits_in(&avail.gres)
    }

    /// How many whole copies of `self` fit in `avail` (tasks are atomic).
    /// A zero vector fits an unbounded number of times: `u32::MAX`.
    pub fn times_fits_in(&self, avail: &Resources) -> u32 {
        fn dim(need: u64, have: u64) -> u64 {
            have.checked_div(need).unwrap_or(u64::MAX)
        }
        let n = dim(self.procs as u64, avail.procs as u64)
            .min(dim(self.mem, avail.mem))
            .min(dim(self.swap, avail.swap))
            .min(dim(self.disk, avail.disk))
            .min(self.gres.times_fits_in(&avail.gres));
        n.min(u32::MAX as u64) as u32
    }

    /// Dimension-wise minimum.
    #[inline]
    pub fn min_each(&self, o: &Resources) -> Resources {
        Resources {
            procs: self.procs.min(o.procs),
            mem: self.mem.min(o.mem),
            swap: self.swap.min(o.swap),
            disk: self.disk.min(o.disk),
            gres: self.gres.min_each(&o.gres),
        }
    }

    /// Dimension-wise maximum.
    #[inline]
    pub fn max_each(&self, o: &Resources) -> Resources {
        Resources {
            procs: self.procs.max(o.procs),
            mem: self.mem.max(o.mem),
            swap: self.swap.max(o.swap),
            disk: self.disk.max(o.disk),
            gres: self.gres.max_each(&o.gres),
        }
    }
}

impl std::fmt::Display for Resources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PROCS={}", self.procs)?;
        if self.mem > 0 {
            write!(f, ";MEM={}", self.mem)?;
        }
        if self.swap > 0 {
            write!(f, ";SWAP={}", self.swap)?;
        }
        if self.disk > 0 {
            write!(f, ";DISK={}", self.disk)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn arithmetic_never_wraps() {
        let big = Resources {
            procs: u32::MAX,
            mem: u64::MAX,
            swap: 0,
            disk: 0,
            ..Resources::ZERO
        };
        assert_eq!(big.checked_add(&Resources::procs(1)), None);
        assert_eq!(Resources::procs(1).checked_sub(&Resources::procs(2)), None);
        assert_eq!(
            Resources::procs(1).saturating_sub(&Resources::procs(2)),
            Resources::ZERO
        );
        assert_eq!(big.saturating_add(&big).procs, u32::MAX);
        assert_eq!(big.checked_mul(2), None);
    }

    #[test]
    fn whole_tasks_only() {
        let task = Resources::procs_mem(2, 512);
        let node = Resources::procs_mem(4, 1024);
        assert_eq!(task.times_fits_in(&node), 2);
        let node = Resources::procs_mem(8, 1024);
        assert_eq!(task.times_fits_in(&node), 2, "memory bounds it");
        assert_eq!(Resources::ZERO.times_fits_in(&node), u32::MAX);
    }

    proptest! {
        #[test]
        fn add_then_sub_roundtrips(a in 0u32..1_000_000, b in 0u32..1_000_000, m in 0u64..1<<40, n in 0u64..1<<40) {
            let x = Resources::procs_mem(a, m);
            let y = Resources::procs_mem(b, n);
            let s = x.checked_add(&y).unwrap();
            prop_assert_eq!(s.checked_sub(&y), Some(x));
            prop_assert!(x.fits_in(&s));
        }
    }
}
