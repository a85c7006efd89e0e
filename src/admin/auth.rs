//! Who is asking, and what they may do: Maui's admin levels.
//!
//! The peer of a Unix socket is known to the kernel (`SO_PEERCRED`): its
//! uid cannot be forged by the client. The uid's name (`getpwuid_r`) is
//! looked up in ADMIN1, ADMIN2 and ADMIN3 of the configuration in force
//! (`ALL` admits everyone); root and the uid the scheduler runs as (the
//! resource manager's own user: slurm, or root for pbs_server) are ADMIN1.

use crate::config::Config;

/// Maui's administrator levels, lowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Not an administrator: own jobs, public views.
    User,
    /// ADMIN3: reads everything.
    Admin3,
    /// ADMIN2: also changes jobs and reservations.
    Admin2,
    /// ADMIN1: full control of the scheduler.
    Admin1,
}

impl Level {
    /// The name used in messages and responses.
    pub fn name(self) -> &'static str {
        match self {
            Level::User => "user",
            Level::Admin3 => "ADMIN3",
            Level::Admin2 => "ADMIN2",
            Level::Admin1 => "ADMIN1",
        }
    }
}

/// A connected client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    /// User id (from the kernel).
    pub uid: u32,
    /// Process id of the client, for the log.
    pub pid: i32,
    /// User name (`#<uid>` when the uid has no name).
    pub user: String,
    /// Admin level.
    pub level: Level,
}

impl Caller {
    /// `steve (uid 1000, pid 4711)`, for log lines.
    pub fn describe(&self) -> String {
        format!("{} (uid {}, pid {})", self.user, self.uid, self.pid)
    }
}

/// The admin level of a user under `cfg`. `host_uid` is the uid the
/// scheduler runs as (the resource manager's own user).
pub fn level_of(cfg: &Config, uid: u32, user: &str, host_uid: u32) -> Level {
    let p = &cfg.params;
    if uid == 0 || uid == host_uid || p.admin1.contains(user) {
        Level::Admin1
    } else if p.admin2.contains(user) {
        Level::Admin2
    } else if p.admin3.contains(user) {
        Level::Admin3
    } else {
        Level::User
    }
}

/// The level a command needs (Maui's defaults; ADMIN2 may change jobs and
/// reservations, only ADMIN1 controls the scheduler and forces starts).
pub fn required(cmd: &str) -> Level {
    match cmd {
        // canceljob: anyone, for their own jobs (checked per job).
        "showq" | "showbf" | "showstart" | "checkjob" | "showres" | "showhold" | "canceljob" => {
            Level::User
        }
        "checknode" | "diagnose" | "showstats" | "showconfig" | "showstate" | "snapshot" => {
            Level::Admin3
        }
        "setres" | "releaseres" | "sethold" | "releasehold" | "setspri" => Level::Admin2,
        _ => Level::Admin1,
    }
}

pub use super::sys::{own_uid, peer_credentials, user_name};

/// The name a caller goes by: its user name, or `#<uid>` when the uid has
/// none.
pub fn name_of(uid: u32) -> String {
    user_name(uid).unwrap_or_else(|| format!("#{uid}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_from_the_configuration() {
        let cfg = Config::parse(
            "ADMIN1 boss\nADMIN2 helper\nADMIN3 auditor viewer\n",
            "test",
        )
        .config;
        assert_eq!(level_of(&cfg, 0, "root", 500), Level::Admin1);
        assert_eq!(level_of(&cfg, 500, "slurm", 500), Level::Admin1);
        assert_eq!(level_of(&cfg, 1001, "boss", 500), Level::Admin1);
        assert_eq!(level_of(&cfg, 1002, "helper", 500), Level::Admin2);
        assert_eq!(level_of(&cfg, 1003, "viewer", 500), Level::Admin3);
        assert_eq!(level_of(&cfg, 1004, "steve", 500), Level::User);
        let all = Config::parse("ADMIN3 ALL\n", "test").config;
        assert_eq!(level_of(&all, 1004, "steve", 500), Level::Admin3);
        assert!(Level::Admin1 > Level::Admin2 && Level::Admin3 > Level::User);
        assert_eq!(required("showq"), Level::User);
        assert_eq!(required("diagnose"), Level::Admin3);
        assert_eq!(required("snapshot"), Level::Admin3);
        assert_eq!(required("setres"), Level::Admin2);
        assert_eq!(required("schedctl"), Level::Admin1);
        assert_eq!(required("runjob"), Level::Admin1);
    }

    #[test]
    fn names_of_uids() {
        assert_eq!(user_name(0).as_deref(), Some("root"));
        let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
        let (pid, uid, _) = peer_credentials(&a).unwrap();
        assert_eq!(pid as u32, std::process::id());
        assert_eq!(uid, own_uid());
        drop(b);
    }
}
