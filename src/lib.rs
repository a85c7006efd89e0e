//! mauisched: a Maui-compatible scheduling policy engine.
//!
//! The resource manager (Slurm, PBS/Torque) keeps node state and runs jobs;
//! mauisched decides priority, reservations, backfill and placement, as the
//! Maui Scheduler's administrator's guide documents them. See DESIGN.md in
//! the project's shared folder for the architecture.
//!
//! The API is small:
//!
//! - [`Engine`] runs one scheduling iteration on a [`Snapshot`] under a
//!   [`Config`] (maui.cfg) and returns a [`Plan`]: pure, no I/O.
//! - [`service`] is the scheduler a front end runs: a state directory, the
//!   iteration, operator changes checked against the caller's level,
//!   reconfigure, checkpoint. The C ABI and the admin socket serve it.
//! - [`sim`] is the trace-driven simulator.
//! - [`cfg`](mod@cfg) (maui.cfg's diagnostics, showconfig, the parameter reference),
//!   [`views`] (Maui's command views), [`socket`] (the admin socket's
//!   protocol and client) and [`time`] hold what `mauictl` and the tests
//!   use besides.
//! - [`ffi`] is the C ABI (`include/mauisched.h`), callable from Rust too.
//!
//! Everything else is internal (`pub(crate)`).

#![deny(missing_docs)]
// `unsafe` lives only in the C ABI (`ffi`) and in `admin::sys`, the few
// libc calls the admin socket and the state directory's lock need.
#![deny(unsafe_code)]

pub(crate) mod admin;
pub(crate) mod allocation;
pub(crate) mod backfill;
pub(crate) mod commands;
pub(crate) mod config;
pub(crate) mod engine;
pub(crate) mod fairshare;
pub mod ffi;
pub(crate) mod model;
pub(crate) mod persist;
pub(crate) mod priority;
pub(crate) mod profile;
pub(crate) mod reservation;
pub mod service;
pub mod sim;
pub(crate) mod throttle;
pub(crate) mod util;

pub use config::{Config, Loaded};
pub use engine::{Engine, Plan};
pub use model::{Cluster, Snapshot};

/// What a [`Snapshot`] is made of.
pub mod snapshot {
    pub use crate::model::memory;
    pub use crate::model::{
        HoldKind, Job, JobState, Node, NodeState, NodeTasks, Resources, SnapshotError,
    };
}

/// What a [`Plan`] is made of.
pub mod plan {
    pub use crate::engine::{
        Action, ActionKind, JobPlan, PlanReservation, PolicyBlock, Reason, Start, Stats,
    };
}
pub use service::Service;
pub use util::atomic_write;

/// maui.cfg beyond [`Config`]: diagnostics, the embedded default,
/// showconfig and the parameter reference.
pub mod cfg {
    pub use crate::config::{
        doc, render, Diagnostic, Severity, DEFAULT_CONFIG, DEFAULT_CONFIG_LABEL, SCALARS,
    };
}

/// Maui's command views (showq, showbf, checkjob, diagnose, showres, ...)
/// rendered from an engine's last iteration, and the offline pieces
/// `mauictl` renders from files.
pub mod views {
    pub use crate::commands::{
        offline, render, run, showres, spec, with_local_times, CommandError, Output, Viewer,
    };
    pub use crate::engine::LastIteration;
}

/// The admin socket as a client sees it: the protocol, the client, the
/// commands that change something and who may run them.
pub mod socket {
    pub use crate::admin::auth::{own_uid, user_name, Caller, Level};
    pub use crate::admin::ops::{synopsis, MUTATIONS};
    pub use crate::admin::server::{Server, MAX_CLIENTS, MAX_PER_USER};
    pub use crate::admin::{client, protocol, Done, ErrorCode, Failed, Mutation, SchedCtl};
}

/// Times as Maui writes and reads them.
pub mod time {
    pub use crate::model::time::{days_from_civil, parse_duration, Zone};
}

/// The crate version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
