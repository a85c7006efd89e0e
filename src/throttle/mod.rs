//! Throttling policies.
//!
//! - [`limits`]: per-credential and system throttling limits (6.2), with
//!   usage that is updated incrementally as the scheduler starts jobs.
//!
//! Node access (NODEACCESSPOLICY) is a question of where a job may go, not
//! of how much a credential may run: it lives in [`crate::allocation::access`].

#[cfg(test)]
mod guide_tests;
pub mod limits;

pub use limits::{check_active, check_idle, check_job_size, QosFlags, Totals, Usage, Verdict};
