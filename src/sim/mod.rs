//! Trace-driven simulation: the input side.
//!
//! Workloads come from the Parallel Workloads Archive's Standard Workload
//! Format ([`swf`]).
//!
//! Nothing here is random, so no seed is needed: the same files and options
//! give the same jobs and nodes, in the same order.

pub mod input;
pub mod swf;

pub use input::{InputError, ReadOptions, ReadStats};
pub use swf::{SwfHeader, SwfReader, SwfRecord, SwfStatus};
