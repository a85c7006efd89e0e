//! mauisched: a Maui-compatible scheduling policy engine.
//!
//! The resource manager (Slurm, PBS/Torque) keeps node state and runs jobs;
//! mauisched decides priority, reservations, backfill and placement, as the
//! Maui Scheduler's administrator's guide documents them. See DESIGN.md in
//! the project's shared folder for the architecture.

#![deny(missing_docs)]
// `unsafe` lives only in the C ABI (`ffi`) and in `admin::sys`, the few
// libc calls the admin socket needs.
#![deny(unsafe_code)]

pub mod admin;
pub mod allocation;
pub mod backfill;
pub mod commands;
pub mod config;
pub mod engine;
pub mod fairshare;
pub mod ffi;
pub mod model;
pub mod persist;
pub mod priority;
pub mod profile;
pub mod reservation;
pub mod sim;
pub mod throttle;
pub mod util;

/// The crate version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
