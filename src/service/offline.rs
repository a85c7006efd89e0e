//! Maui's reading commands without a running scheduler: `mauictl showq
//! --snapshot FILE` and the other offline forms run the same scheduler in
//! memory (it writes nothing), one iteration over the snapshot, and answer
//! through the same dispatcher as the admin socket. The output is the live
//! command's on the same state, by construction.

use super::{Service, Shared};
use crate::admin::{self, Caller, Level, Request, Response};
use crate::config::Config;
use crate::fairshare::Fairshare;
use crate::model::Snapshot;
use crate::reservation::AdminStore;

/// What an offline view is built from.
#[derive(Default)]
pub struct Inputs {
    /// The RM's nodes and jobs; `now` absent means the caller's clock
    /// (set by the caller before this). The scheduler's memory it carries
    /// (`mauictl snapshot`) is the one the iteration starts from.
    pub snapshot: Option<Snapshot>,
    /// Fairshare usage (`--fs-dir`), in place of the snapshot's.
    pub fairshare: Option<Fairshare>,
    /// Administrative reservations (`--store`), in place of the snapshot's.
    pub admin: Option<AdminStore>,
}

/// A scheduler in memory that has run one iteration (when given a
/// snapshot), ready to answer reading commands.
pub struct Offline {
    shared: Shared,
    caller: Caller,
}

impl Offline {
    /// Builds the scheduler and runs the snapshot's iteration. Errors name
    /// what is wrong with the snapshot.
    pub fn new(cfg: Config, mut inputs: Inputs) -> Result<Offline, String> {
        let mut svc = match inputs.snapshot.as_mut() {
            Some(snap) => Service::in_memory_from_snapshot(cfg, snap, Default::default()),
            None => Service::in_memory(cfg, Default::default()),
        };
        if let Some(fs) = inputs.fairshare {
            svc.engine.state.fairshare = fs;
        }
        if let Some(store) = inputs.admin {
            svc.engine.set_admin_reservations(store);
        }
        if let Some(mut snap) = inputs.snapshot {
            svc.iterate(&mut snap).map_err(|e| e.to_string())?;
        } else {
            // diagnose -f needs no iteration, only the usage.
            svc.publish(true);
        }
        let uid = admin::auth::own_uid();
        Ok(Offline {
            shared: Shared::new(svc),
            // The files are the caller's own: every view, as ADMIN1.
            caller: Caller {
                uid,
                pid: std::process::id() as i32,
                user: admin::auth::name_of(uid),
                level: Level::Admin1,
            },
        })
    }

    /// Answers one reading command as the admin socket would.
    pub fn ask(&self, cmd: &str, args: &[String], json: bool) -> Response {
        let req = Request {
            v: crate::admin::protocol::VERSION,
            cmd: cmd.to_string(),
            args: args.to_vec(),
            json,
        };
        admin::dispatch(&*self.shared.backend(), &self.caller, &req)
    }
}
