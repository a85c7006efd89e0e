//! What an operator may change in an engine between iterations, as typed
//! methods: the service ([`crate::service`]) validates a change, then makes
//! it through these, never through the remembered state's fields. Each
//! takes effect at the next [`Engine::iterate`].

use super::plan::{Action, ActionKind};
use super::state::{EngineState, ForcedStart, StopInfo};
use super::Engine;
use crate::allocation::LocalAllocator;
use crate::config::Config;
use crate::model::HoldKind;
use crate::reservation::admin::AdminRecord;
use crate::reservation::{AdminError, AdminStore};

impl Engine {
    /// The remembered state, read-only (the checkpoint is written from it).
    pub fn remembered(&self) -> &EngineState {
        &self.state
    }

    /// Calls `f` with the remembered state less its fairshare windows (the
    /// `FS.<epoch>` files hold those): what the checkpoint carries.
    pub fn with_checkpoint_state<R>(&mut self, f: impl FnOnce(&EngineState) -> R) -> R {
        let fs = std::mem::take(&mut self.state.fairshare);
        let r = f(&self.state);
        self.state.fairshare = fs;
        r
    }

    /// Puts a new configuration in force.
    pub fn set_config(&mut self, cfg: Config) {
        self.cfg = cfg;
    }

    /// Registers (or, with `None`, removes) the site's LOCAL allocator.
    pub fn set_local_allocator(&mut self, local: Option<Box<dyn LocalAllocator + Send>>) {
        self.local = local;
    }

    /// The administrative reservations (setres).
    pub fn admin_reservations(&self) -> &AdminStore {
        &self.state.admin
    }

    /// Replaces the administrative reservations with `store`, a copy the
    /// caller changed and checked.
    pub fn set_admin_reservations(&mut self, store: AdminStore) {
        self.state.admin = store;
    }

    /// Releases an administrative reservation (releaseres).
    pub fn release_admin_reservation(&mut self, id: &str) -> Result<AdminRecord, AdminError> {
        self.state.admin.release(id)
    }

    /// Sets a job's system priority (setspri); returns the one replaced.
    pub fn set_system_priority(&mut self, job: &str, priority: i64) -> Option<i64> {
        self.state.system_priority.insert(job.to_string(), priority)
    }

    /// Clears a job's system priority; returns the one it had.
    pub fn clear_system_priority(&mut self, job: &str) -> Option<i64> {
        self.state.system_priority.remove(job)
    }

    /// True when a hold or release of `job` waits for the next plan.
    pub fn action_pending(&self, job: &str, kind: ActionKind) -> bool {
        self.state
            .pending_actions
            .iter()
            .any(|a| a.job == job && a.kind == kind)
    }

    /// Asks the RM, through the next plan, to place a hold of `kind` on
    /// `job` (sethold): a release of that hold waiting for the same job is
    /// dropped, a hold is asked once. False for a batch hold, which no RM
    /// action places.
    pub fn queue_hold(&mut self, job: &str, kind: HoldKind, by: &str) -> bool {
        let Some((hold, release)) = hold_actions(kind) else {
            return false;
        };
        self.drop_action(job, release);
        self.queue_action(job, hold, by);
        true
    }

    /// Asks the RM, through the next plan, to remove the hold of `kind`
    /// from `job` (releasehold); a hold not sent yet is withdrawn instead.
    /// True when it withdrew one.
    pub fn queue_release(&mut self, job: &str, kind: HoldKind, by: &str) -> bool {
        let Some((hold, release)) = hold_actions(kind) else {
            return false;
        };
        if self.action_pending(job, hold) {
            self.drop_action(job, hold);
            return true;
        }
        self.queue_action(job, release, by);
        false
    }

    /// Asks the RM, through the next plan, to cancel `job` (canceljob):
    /// holds and releases not sent yet for it are dropped (the job goes),
    /// and so is a forced start (runjob) waiting for it.
    pub fn queue_cancel(&mut self, job: &str, by: &str) {
        self.state.pending_actions.retain(|a| a.job != job);
        self.state.forced_starts.retain(|f| f.job != job);
        self.queue_action(job, ActionKind::Cancel, by);
    }

    fn queue_action(&mut self, job: &str, kind: ActionKind, by: &str) {
        if !self.action_pending(job, kind) {
            self.state.pending_actions.push(Action {
                kind,
                job: job.to_string(),
                by: by.to_string(),
            });
        }
    }

    fn drop_action(&mut self, job: &str, kind: ActionKind) {
        self.state
            .pending_actions
            .retain(|a| !(a.job == job && a.kind == kind));
    }

    /// Starts a job at the next iteration where the operator said (runjob),
    /// replacing an earlier forced start of the same job.
    pub fn force_start(&mut self, start: ForcedStart) {
        let forced = &mut self.state.forced_starts;
        forced.retain(|f| f.job != start.job);
        forced.push(start);
    }

    /// Who stopped scheduling and when, while it is stopped (schedctl -s).
    pub fn stopped(&self) -> Option<&StopInfo> {
        self.state.stopped.as_ref()
    }

    /// Stops scheduling: plans carry no starts but forced ones.
    pub fn stop(&mut self, info: StopInfo) {
        self.state.stopped = Some(info);
    }

    /// Resumes scheduling (schedctl -r); returns the stop it ended.
    pub fn resume(&mut self) -> Option<StopInfo> {
        self.state.stopped.take()
    }

    /// The fairshare usage, for writing its `FS.<epoch>` files (which
    /// remember what they wrote, so changed windows only are rewritten).
    pub fn fairshare_mut(&mut self) -> &mut crate::fairshare::Fairshare {
        &mut self.state.fairshare
    }
}

/// The actions that place and remove a hold of `kind` (none for a batch
/// hold).
fn hold_actions(kind: HoldKind) -> Option<(ActionKind, ActionKind)> {
    Some((
        ActionKind::for_hold(kind, true)?,
        ActionKind::for_hold(kind, false)?,
    ))
}
