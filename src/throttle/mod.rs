//! Node access and throttling policies.
//!
//! - [`access`]: how many of a job's tasks a node's access rules let it
//!   place there (NODEACCESSPOLICY / NODECFG ACCESS, MAXJOB, MAXJOBPERUSER);
//! - [`limits`]: per-credential and system throttling limits (6.2), with
//!   usage that is updated incrementally as the scheduler starts jobs.

pub mod access;
pub mod limits;

pub use access::{access_limit, AccessDenial, AccessRequest, Occupant};
pub use limits::{
    check_active, check_idle, check_job_size, processor_equivalents, QosFlags, Scope,
    SizeViolation, Totals, Usage, Verdict, Violation,
};
