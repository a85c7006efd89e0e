//! Trace-driven simulation (`mauictl simulate`, docs/simulator.md).
//!
//! Workloads come from the Parallel Workloads Archive's Standard Workload
//! Format ([`swf`]) or from Maui's own workload traces ([`mauitrace`]);
//! clusters from a small text format ([`cluster`], documented in
//! `docs/cluster-format.md`), from Maui's resource traces, or synthesised
//! from an SWF header. [`workload`] turns trace records into engine jobs
//! with the actual runtime kept beside them, and applies `--jobs`,
//! `--start-at` and `--scale-load`. [`demo`] holds the bundled data behind
//! `mauictl simulate --demo`; [`info`] the `mauictl trace-info` report.
//! [`run`] is the event loop that drives `Engine::iterate`, [`report`] the
//! metrics, `jobs.csv` and `summary.json`, [`stats`] the per-credential
//! tables, Maui's showgrid matrix and the rejected jobs, [`svg`] the plots;
//! [`operators`] reads operators' commands to apply during a run;
//! [`compare`] runs several configurations side by side.
//! [`synth`] and [`bench`](mod@bench) are the synthetic scenario of `mauictl bench`,
//! [`synth_trace`] the synthetic cluster and trace of `simulate --synthetic`;
//! [`whatif`] compares the plans of two configurations on one snapshot
//! (`mauictl whatif`).
//!
//! Nothing in a simulation is random, so it takes no seed: the same files
//! and options give the same jobs, the same schedule and a byte-identical
//! `jobs.csv`. Only the synthetic scenario and traces are drawn, from a seed.

pub mod bench;
pub mod cluster;
pub mod compare;
pub mod convert;
pub mod demo;
pub mod info;
pub mod input;
pub mod mauitrace;
pub mod operators;
pub mod report;
pub mod run;
pub mod stats;
pub mod svg;
pub mod sweep;
pub mod swf;
pub mod synth;
pub mod synth_trace;
pub mod whatif;
pub mod workload;

pub use input::{InputError, ReadOptions, ReadStats};
pub use swf::{SwfHeader, SwfReader, SwfRecord, SwfStatus};
pub use workload::{MapOptions, NoRequest, SimJob, SkipReason, Workload};

/// A trace of the Parallel Workloads Archive in `../shared/traces`, for
/// the tests that read one: `None`, saying so, when it is absent.
#[cfg(test)]
pub(crate) fn shared_trace(name: &str) -> Option<std::path::PathBuf> {
    let p =
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/traces")).join(name);
    if p.exists() {
        Some(p)
    } else {
        eprintln!("skipping: {} is absent", p.display());
        None
    }
}
