//! The order in which each policy offers nodes to the placement step.
//!
//! Every policy but PRIORITY first honours reservation affinity (positive
//! before neutral or none before negative: "use reserved resources first" /
//! "only as a last resort") and then the job's preferred features (more
//! before fewer), and ends with the node index so the order is total. Under
//! PRIORITY the site's PRIORITYF decides alone; RESAFFINITY and PREF are its
//! terms for that.

use super::{Candidate, Slot, TaskRequest};
use crate::config::priorityf::Term;
use crate::config::{Affinity, NodeAllocationPolicy};
use crate::model::EffNode;
use std::cmp::Reverse;

fn affinity_rank(a: Option<Affinity>) -> u8 {
    match a {
        Some(Affinity::Positive) => 0,
        None | Some(Affinity::Neutral) => 1,
        Some(Affinity::Negative) => 2,
    }
}

/// The value of each PRIORITYF term for the node, the candidate window and
/// the job. PREF counts the job's preferred features the node has;
/// RESAFFINITY is 1 / 0 / -1 for positive / neutral or none / negative;
/// SPEED is PROCSPEED when set, else the relative SPEED.
pub fn priority_terms<'a>(
    node: &'a EffNode,
    cand: &'a Candidate,
    req: &'a TaskRequest,
) -> impl Fn(Term) -> f64 + 'a {
    move |t| match t {
        Term::ADisk => cand.free.disk as f64,
        Term::AGres => node.gres_devices(&cand.free.gres) as f64,
        Term::AMem => cand.free.mem as f64,
        Term::AProcs => cand.free.procs as f64,
        Term::ASwap => cand.free.swap as f64,
        Term::CDisk => node.configured.disk as f64,
        Term::CGres => node.gres_devices(&node.configured.gres) as f64,
        Term::CMem => node.configured.mem as f64,
        Term::CProcs => node.configured.procs as f64,
        Term::CSwap => node.configured.swap as f64,
        Term::JobCount => cand.job_count as f64,
        Term::Load => node.load,
        Term::Pref => req.pref_count(node) as f64,
        Term::Priority => node.priority as f64,
        Term::ResAffinity => match cand.affinity {
            Some(Affinity::Positive) => 1.0,
            None | Some(Affinity::Neutral) => 0.0,
            Some(Affinity::Negative) => -1.0,
        },
        Term::Speed => node.procspeed.map_or(node.speed, |p| p as f64),
        Term::Usage => node.usage,
    }
}

/// The node's allocation priority for the job: its PRIORITYF (`NODECFG[node]`
/// over `NODECFG[DEFAULT]`), or its admin PRIORITY when it has none.
pub fn priority_value(node: &EffNode, cand: &Candidate, req: &TaskRequest) -> f64 {
    match &node.priorityf {
        Some(f) => f.eval(&priority_terms(node, cand, req)),
        None => node.priority as f64,
    }
}

/// A fixed pseudo-random rank per node (splitmix64 of the index), for
/// FASTEST when nodes have no speed to tell them apart.
fn shuffle_rank(index: u32) -> u64 {
    let mut z = (index as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A float as a `u64` whose order is `f64::total_cmp`'s.
fn total_bits(x: f64) -> u64 {
    let b = x.to_bits() as i64;
    ((b ^ ((((b >> 63) as u64) >> 1) as i64)) as u64) ^ (1 << 63)
}

/// MINRESOURCE's memory tier of a node with `mem` MB configured: the
/// smallest of 64, 128, ..., 8,192 MB that holds it, 8,192 for any larger.
pub(crate) fn memory_tier(mem: u64) -> u64 {
    mem.clamp(64, 8192).next_power_of_two().min(8192)
}

/// Sort key of a slot under a policy other than PRIORITY: reservation
/// affinity, preferred features (more first), the policy's own criteria,
/// node index. Computed once per slot instead of once per comparison.
type Key = (u8, Reverse<usize>, [u64; 8], u32);

fn key(req: &TaskRequest, s: &Slot<'_>, policy: NodeAllocationPolicy) -> Key {
    use NodeAllocationPolicy as P;
    let mut k = [0u64; 8];
    match policy {
        P::Contiguous | P::MaxBalance | P::Local | P::Priority => {}
        P::LastAvailable => match s.cand.maui_avail {
            // Maui's code: available longest first, then the highest
            // index (MNodeSelectIdleTasks sorts by availability,
            // MJobAllocMNL walks the list from its end). Generic resources
            // lead, fewest first, as under MINRESOURCE (a mauisched
            // addition).
            Some(a) => {
                let gres = s.node.gres_devices(&s.node.configured.gres);
                k[..3].copy_from_slice(&[
                    gres,
                    !(a.max(0) as u64),
                    u64::from(u32::MAX - s.node.index),
                ]);
            }
            // The guide's reading: best fit in time, then best fit in
            // space (pack SMP nodes).
            None => {
                let (none, g) = gap_key(s);
                let f = free_key(s);
                k[..6].copy_from_slice(&[none as u64, g as u64, f.0 as u64, f.1, f.2, f.3]);
            }
        },
        _ => {
            let lead = node_rank(s.node, policy).expect("a policy led by the node");
            k[..4].copy_from_slice(&lead);
        }
    }
    (
        affinity_rank(s.cand.affinity),
        Reverse(req.pref_count(s.node)),
        k,
        s.node.index,
    )
}

/// The part of a slot's key, after reservation affinity and preferred
/// features, that the node alone decides (the node index comes next):
/// FIRSTAVAILABLE (nothing),
/// MINRESOURCE (generic resources, fewest first, then Maui's memory tier,
/// then the highest index: what is free does not count),
/// CPULOAD (most unloaded processors first), FASTEST (speed, PROCSPEED, a
/// fixed shuffle). `None` for the policies whose order the node alone does
/// not lead: LASTAVAILABLE (availability, or the gap after the job), PRIORITY (the
/// site's expression), and those that place by their own search.
pub(crate) fn node_rank(node: &EffNode, policy: NodeAllocationPolicy) -> Option<[u64; 4]> {
    use NodeAllocationPolicy as P;
    match policy {
        P::FirstAvailable => Some([0; 4]),
        P::MinResource => {
            // Maui's walk (MJobAllocMNL): memory tiers of 64, 128, ...,
            // 8,192 MB, the last taking every larger node; within a tier
            // the feasible list is walked from its end, so the highest
            // node index first. Generic resources lead, a mauisched
            // addition Maui had no rule for: a job goes to a node without
            // GPUs while one is free.
            let c = &node.configured;
            let gres = node.gres_devices(&c.gres);
            Some([
                gres,
                memory_tier(c.mem),
                u64::from(u32::MAX - node.index),
                0,
            ])
        }
        // Highest (configured processors - load) first.
        P::CpuLoad => Some([
            !total_bits(node.configured.procs as f64 - node.load),
            0,
            0,
            0,
        ]),
        P::Fastest => {
            // Higher PROCSPEED first, unknown last (None < Some, reversed).
            let procspeed = match node.procspeed {
                Some(p) => u64::MAX - 1 - p as u64,
                None => u64::MAX,
            };
            Some([
                !total_bits(node.speed),
                procspeed,
                shuffle_rank(node.index),
                0,
            ])
        }
        P::LastAvailable | P::Contiguous | P::MaxBalance | P::Local | P::Priority => None,
    }
}

/// Slots in the order the policy prefers them. CONTIGUOUS and MAXBALANCE
/// use this with FIRSTAVAILABLE inside their own search.
pub(crate) fn ordered<'a>(
    req: &TaskRequest,
    slots: &[Slot<'a>],
    policy: NodeAllocationPolicy,
) -> Vec<Slot<'a>> {
    use NodeAllocationPolicy as P;
    if policy == P::Priority {
        let mut v: Vec<(Slot<'a>, f64)> = slots
            .iter()
            .map(|s| (*s, priority_value(s.node, s.cand, req)))
            .collect();
        v.sort_by(|(a, sa), (b, sb)| sb.total_cmp(sa).then(a.node.index.cmp(&b.node.index)));
        return v.into_iter().map(|(s, _)| s).collect();
    }
    // Keys end with the node index, so they are distinct: an unstable sort
    // gives the one order a comparison sort would.
    let mut v: Vec<(Key, Slot<'a>)> = slots.iter().map(|s| (key(req, s, policy), *s)).collect();
    v.sort_unstable_by_key(|a| a.0);
    v.into_iter().map(|(_, s)| s).collect()
}

/// RESERVATIONNODEPOLICY LATESTFREED: reservation affinity first, then
/// the nodes that free up last before the start, each group in the
/// policy's order: a future reservation leaves the nodes idle now, and
/// those freeing early, to backfill.
pub(crate) fn latest_freed_first<'a>(
    req: &TaskRequest,
    slots: &[Slot<'a>],
    policy: NodeAllocationPolicy,
) -> Vec<Slot<'a>> {
    let mut v = ordered(req, slots, policy);
    v.sort_by_key(|s| (affinity_rank(s.cand.affinity), Reverse(s.cand.freed_at)));
    v
}

/// The first `k` slots of [`ordered`] (any policy but PRIORITY): keys are
/// distinct, so selecting the `k` smallest and sorting them gives exactly
/// the head of the full order.
pub(crate) fn ordered_prefix<'a>(
    req: &TaskRequest,
    slots: &[Slot<'a>],
    policy: NodeAllocationPolicy,
    k: usize,
) -> Vec<Slot<'a>> {
    debug_assert!(policy != NodeAllocationPolicy::Priority);
    let mut v: Vec<(Key, u32)> = slots
        .iter()
        .enumerate()
        .map(|(i, s)| (key(req, s, policy), i as u32))
        .collect();
    if k < v.len() {
        v.select_nth_unstable(k);
        v.truncate(k);
    }
    v.sort_unstable();
    v.into_iter().map(|(_, i)| slots[i as usize]).collect()
}

fn gap_key(s: &Slot<'_>) -> (bool, i64) {
    match s.cand.gap {
        Some(g) => (false, g.max(0)),
        None => (true, 0),
    }
}

fn free_key(s: &Slot<'_>) -> (u32, u64, u64, u64) {
    let f = &s.cand.free;
    (f.procs, f.mem, f.swap, f.disk)
}
