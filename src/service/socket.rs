//! A service shared between its front end and the admin socket's threads.

use super::{lock, LogLevel, Notes, Service};
use crate::admin::{
    Backend, Caller, Done, ErrorCode, Failed, Mutation, Published, PublishedSlot, Server,
};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// Messages the admin socket's threads queue at most between two host calls.
const MAX_NOTES: usize = 1000;

/// A service behind a lock, with the flag that says a panic broke it (a
/// poisoned service takes no more changes; its front end stops using it).
#[derive(Clone)]
pub struct Shared {
    service: Arc<Mutex<Service>>,
    poisoned: Arc<AtomicBool>,
}

impl Shared {
    /// Shares a service.
    pub fn new(service: Service) -> Shared {
        Shared {
            service: Arc::new(Mutex::new(service)),
            poisoned: Arc::new(AtomicBool::new(false)),
        }
    }

    /// The service, for one call (the admin socket holds it only for the
    /// short time a change takes).
    pub fn lock(&self) -> MutexGuard<'_, Service> {
        lock(&self.service)
    }

    /// True once a panic broke the service.
    pub fn is_poisoned(&self) -> bool {
        self.poisoned.load(Ordering::SeqCst)
    }

    /// Marks the service broken by a panic.
    pub fn poison(&self) {
        self.poisoned.store(true, Ordering::SeqCst);
    }

    /// Serves the admin socket at `path` on threads of its own, which
    /// never hold the service while talking to a client and never call the
    /// host: what they have to say is queued in the service's notes.
    pub fn serve_admin(&self, path: &Path) -> std::io::Result<Server> {
        Server::start(path, self.backend())
    }

    /// What the admin dispatcher asks: the published view, and changes
    /// made under the lock.
    pub fn backend(&self) -> Arc<dyn Backend> {
        let (published, notes) = {
            let s = self.lock();
            (s.published_handle(), s.notes().clone())
        };
        Arc::new(SocketBackend {
            shared: self.clone(),
            published,
            notes,
        })
    }
}

/// The admin socket's view of a shared service.
struct SocketBackend {
    shared: Shared,
    published: Arc<PublishedSlot>,
    notes: Notes,
}

impl Backend for SocketBackend {
    fn published(&self) -> Arc<Published> {
        self.published.now()
    }

    fn settled(&self) -> Arc<Published> {
        self.published.settled(crate::admin::ITERATION_WAIT)
    }

    fn note(&self, level: LogLevel, message: String) {
        // Refusals are noted per request: a client looping on them must not
        // fill memory (or the host's log) before the host's next call.
        let mut q = lock(&self.notes);
        match q.len() {
            n if n < MAX_NOTES => q.push((level, message)),
            MAX_NOTES => q.push((
                LogLevel::Warn,
                "admin socket: too many messages since the last call; further ones are dropped"
                    .into(),
            )),
            _ => {}
        }
    }

    fn mutate(&self, caller: &Caller, m: Mutation) -> Result<Done, Failed> {
        let poisoned = || {
            Failed::new(
                ErrorCode::Internal,
                "the scheduler's handle failed earlier (internal error) and takes no changes",
            )
        };
        if self.shared.is_poisoned() {
            return Err(poisoned());
        }
        let mut svc = self.shared.lock();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| svc.apply(caller, m)));
        r.unwrap_or_else(|_| {
            self.shared.poison();
            svc.log(
                LogLevel::Error,
                "internal error (panic) in an admin command; this handle is poisoned and can only be freed",
            );
            Err(poisoned())
        })
    }
}
