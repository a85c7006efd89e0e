//! Placing whole tasks on ordered nodes, respecting the request's shape.
//!
//! Shapes:
//! - exact tasks per node X (EXACTNODE with ppn): every node takes X tasks,
//!   one node may take the remainder when the task count is not a multiple;
//! - blocks of X tasks per node (Maui's default reading of ppn; X = 1
//!   without ppn): every node used takes a multiple of X, but for one that
//!   may take what is left when the task count is not a multiple;
//! - an exact node count N (EXACTNODE with a node count): N distinct nodes;
//! - one node only (ENABLEMULTINODEJOBS FALSE).

use super::order::ordered;
use super::{Slot, TaskRequest};
use crate::config::NodeAllocationPolicy;
use crate::model::NodeIdx;
use std::collections::BTreeMap;

type Placement = Vec<(NodeIdx, u32)>;

/// Places the request on `slots` taken in the given order. With `block`
/// set the nodes used must be a prefix of `slots` (CONTIGUOUS): a node that
/// cannot take its share ends the attempt.
pub(crate) fn place(req: &TaskRequest, slots: &[Slot<'_>], block: bool) -> Option<Placement> {
    let tasks = req.tasks;
    let max_nodes = if req.single_node { 1 } else { u32::MAX };
    if let (Some(x), true) = (req.tasks_per_node, req.exact_tpn) {
        return exact_tpn(req, slots, block, x, max_nodes);
    }
    let x = req.min_tasks_per_node();
    if let Some(n) = req.node_count {
        if n == 0 || n > max_nodes || n as u64 * x as u64 > tasks as u64 {
            return None;
        }
        return exact_count(req, slots, block, x, n);
    }
    if max_nodes == 1 {
        let s = slots.iter().find(|s| s.cap >= tasks)?;
        return Some(vec![(s.node.index, tasks)]);
    }
    // Maui's walk (MJobAllocMNL, MJobDistributeTasks): each node in order
    // gives what it has room for in whole blocks of the tasks per node,
    // the last node only what is still needed.
    let mut out = Vec::new();
    let mut remaining = tasks;
    for s in slots {
        let take = (s.cap - s.cap % x).min(remaining);
        if take == 0 {
            if block {
                return None;
            }
            continue;
        }
        out.push((s.node.index, take));
        remaining -= take;
        if remaining == 0 {
            return Some(out);
        }
    }
    None
}

fn exact_tpn(
    req: &TaskRequest,
    slots: &[Slot<'_>],
    block: bool,
    x: u32,
    max_nodes: u32,
) -> Option<Placement> {
    let (full, rem) = (req.tasks / x, req.tasks % x);
    let need = full + u32::from(rem > 0);
    if need > max_nodes || req.node_count.is_some_and(|n| n != need) {
        return None;
    }
    let (mut full_left, mut rem_left) = (full, rem > 0);
    let mut out = Vec::new();
    for s in slots {
        if full_left > 0 && s.cap >= x {
            out.push((s.node.index, x));
            full_left -= 1;
        } else if rem_left && s.cap >= rem {
            out.push((s.node.index, rem));
            rem_left = false;
        } else if block {
            return None;
        }
        if full_left == 0 && !rem_left {
            return Some(out);
        }
    }
    None
}

/// Sum of the `k` largest caps in a multiset of caps.
fn top_sum(caps: &BTreeMap<u32, usize>, k: usize) -> u64 {
    let mut left = k;
    let mut sum = 0u64;
    for (&cap, &count) in caps.iter().rev() {
        if left == 0 {
            break;
        }
        let take = count.min(left);
        sum += cap as u64 * take as u64;
        left -= take;
    }
    sum
}

fn exact_count(
    req: &TaskRequest,
    slots: &[Slot<'_>],
    block: bool,
    x: u32,
    n: u32,
) -> Option<Placement> {
    let tasks = req.tasks as u64;
    let n = n as usize;
    let chosen: Vec<&Slot<'_>> = if block {
        let first: Vec<&Slot<'_>> = slots.iter().take(n).collect();
        if first.len() < n || first.iter().any(|s| s.cap < x) {
            return None;
        }
        first
    } else {
        let usable: Vec<&Slot<'_>> = slots.iter().filter(|s| s.cap >= x).collect();
        let first: Vec<&Slot<'_>> = usable.iter().take(n).copied().collect();
        if first.len() < n {
            return None;
        }
        if first.iter().map(|s| s.cap as u64).sum::<u64>() >= tasks {
            first
        } else {
            // Keep the policy's order but skip a node whenever taking it
            // would leave the rest unable to reach the task count.
            let mut caps: BTreeMap<u32, usize> = BTreeMap::new();
            for s in &usable {
                *caps.entry(s.cap).or_default() += 1;
            }
            if top_sum(&caps, n) < tasks {
                return None;
            }
            let mut picked = Vec::with_capacity(n);
            let mut sum = 0u64;
            for s in &usable {
                if let Some(c) = caps.get_mut(&s.cap) {
                    *c -= 1;
                    if *c == 0 {
                        caps.remove(&s.cap);
                    }
                }
                let rest = n - picked.len() - 1;
                if sum + s.cap as u64 + top_sum(&caps, rest) >= tasks {
                    picked.push(*s);
                    sum += s.cap as u64;
                    if picked.len() == n {
                        break;
                    }
                }
            }
            picked
        }
    };
    if chosen.iter().map(|s| s.cap as u64).sum::<u64>() < tasks {
        return None;
    }
    let mut rest = req.tasks - x * n as u32;
    let mut out = Vec::with_capacity(n);
    for s in chosen {
        let extra = (s.cap - x).min(rest);
        rest -= extra;
        out.push((s.node.index, x + extra));
    }
    Some(out)
}

/// CONTIGUOUS: the first run of consecutive node indices, lowest first,
/// that can hold the job.
pub(crate) fn contiguous(req: &TaskRequest, slots: &[Slot<'_>]) -> Option<Placement> {
    for start in 0..slots.len() {
        let mut end = start + 1;
        while end < slots.len() && slots[end].node.index == slots[end - 1].node.index + 1 {
            end += 1;
        }
        if let Some(p) = place(req, &slots[start..end], true) {
            return Some(p);
        }
    }
    None
}

/// MAXBALANCE: nodes of one speed if possible, else the set with the
/// smallest speed span (ties: the faster set).
pub(crate) fn max_balance(req: &TaskRequest, slots: &[Slot<'_>]) -> Option<Placement> {
    let mut speeds: Vec<f64> = slots.iter().map(|s| s.node.speed).collect();
    speeds.sort_by(f64::total_cmp);
    speeds.dedup();
    let within = |lo: f64, hi: f64| -> Vec<Slot<'_>> {
        let inside: Vec<Slot<'_>> = slots
            .iter()
            .filter(|s| s.node.speed >= lo && s.node.speed <= hi)
            .copied()
            .collect();
        ordered(req, &inside, NodeAllocationPolicy::FirstAvailable)
    };
    let mut best: Option<(f64, f64, Placement)> = None;
    let mut j = 0;
    for i in 0..speeds.len() {
        j = j.max(i);
        // Feasibility only grows with the window, so the smallest fitting
        // upper end never moves left as the lower end moves right.
        while j < speeds.len() {
            if let Some(p) = place(req, &within(speeds[i], speeds[j]), false) {
                let span = speeds[j] - speeds[i];
                let better = match &best {
                    None => true,
                    Some((bs, blo, _)) => span < *bs || (span == *bs && speeds[i] > *blo),
                };
                if better {
                    best = Some((span, speeds[i], p));
                }
                break;
            }
            j += 1;
        }
        if j == speeds.len() {
            break;
        }
    }
    best.map(|(_, _, p)| p)
}

/// True when `nodes` (sorted by index) is a correct placement of the
/// request on `slots` (sorted by index).
pub(crate) fn valid(req: &TaskRequest, slots: &[Slot<'_>], nodes: &[(NodeIdx, u32)]) -> bool {
    if nodes.is_empty() || nodes.windows(2).any(|w| w[0].0 == w[1].0) {
        return false;
    }
    let mut sum = 0u64;
    for &(idx, t) in nodes {
        let Ok(i) = slots.binary_search_by_key(&idx, |s| s.node.index) else {
            return false;
        };
        if t == 0 || t > slots[i].cap {
            return false;
        }
        sum += t as u64;
    }
    if sum != req.tasks as u64 {
        return false;
    }
    if req.single_node && nodes.len() != 1 {
        return false;
    }
    if req.node_count.is_some_and(|n| n as usize != nodes.len()) {
        return false;
    }
    match (req.tasks_per_node, req.exact_tpn) {
        (Some(x), true) => {
            let rem = req.tasks % x;
            let odd: Vec<u32> = nodes.iter().map(|n| n.1).filter(|t| *t != x).collect();
            odd.is_empty() || (odd.len() == 1 && odd[0] == rem)
        }
        (x, _) => {
            // Blocks of the tasks per node, but for the node that takes
            // what is left.
            let x = x.unwrap_or(1).clamp(1, req.tasks);
            nodes.iter().filter(|n| n.1 % x != 0).count() <= 1
        }
    }
}
