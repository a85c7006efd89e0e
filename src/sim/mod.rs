//! Trace-driven simulation: the input side.
//!
//! Workloads come from the Parallel Workloads Archive's Standard Workload
//! Format ([`swf`]) or from Maui's own workload traces ([`mauitrace`]);
//! clusters from a small text format ([`cluster`], documented in
//! `docs/cluster-format.md`), from Maui's resource traces, or synthesised
//! from an SWF header. [`workload`] turns trace records into engine jobs
//! with the actual runtime kept beside them, and applies `--jobs`,
//! `--start-at` and `--scale-load`. [`demo`] holds the bundled data behind
//! `mauictl simulate --demo`; [`info`] the `mauictl trace-info` report.
//!
//! Nothing here is random, so no seed is needed: the same files and options
//! give the same jobs and nodes, in the same order.

pub mod cluster;
pub mod demo;
pub mod info;
pub mod input;
pub mod mauitrace;
pub mod swf;
pub mod workload;

pub use input::{InputError, ReadOptions, ReadStats};
pub use swf::{SwfHeader, SwfReader, SwfRecord, SwfStatus};
pub use workload::{MapOptions, NoRequest, SimJob, SkipReason, Workload};
