//! mauisched: a Maui-compatible scheduling policy engine.
//!
//! The resource manager (Slurm, PBS/Torque) keeps node state and runs jobs;
//! mauisched decides priority, reservations, backfill and placement, as the
//! Maui Scheduler's administrator's guide documents them. See DESIGN.md in
//! the project's shared folder for the architecture.
//!
//! The API: [`Engine`] runs one scheduling iteration on a [`Snapshot`] under
//! a [`Config`] (maui.cfg) and returns a [`Plan`]; [`commands`] renders
//! Maui's command views from the last iteration; [`sim`] is the trace-driven
//! simulator; [`admin`] the local admin socket's protocol, server and
//! client; [`ffi`] the C ABI. [`config`], [`model`] and [`engine`] hold the
//! types these take and return. Everything else is internal.

#![deny(missing_docs)]
// `unsafe` lives only in the C ABI (`ffi`) and in `admin::sys`, the few
// libc calls the admin socket needs.
#![deny(unsafe_code)]

pub mod admin;
pub(crate) mod allocation;
pub(crate) mod backfill;
pub mod commands;
pub mod config;
pub mod engine;
pub(crate) mod fairshare;
pub mod ffi;
pub mod model;
pub(crate) mod persist;
pub(crate) mod priority;
pub(crate) mod profile;
pub(crate) mod reservation;
pub mod service;
pub mod sim;
pub(crate) mod throttle;
pub(crate) mod util;

pub use commands::{CommandError, Output, Viewer};
pub use config::{Config, Loaded};
pub use engine::{Engine, Plan};
pub use model::Snapshot;
pub use util::atomic_write;

/// The crate version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
