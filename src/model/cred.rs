//! Credentials: the five kinds of identity a job carries.

use serde::{Deserialize, Serialize};

/// A kind of credential, in Maui's order of the credential priority factor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum CredKind {
    /// The submitting user.
    User,
    /// The user's group.
    Group,
    /// The account (project) charged.
    Account,
    /// The quality of service.
    Qos,
    /// The class (queue, Slurm partition).
    Class,
}

impl CredKind {
    /// All kinds, in Maui's order.
    pub const ALL: [CredKind; 5] = [
        CredKind::User,
        CredKind::Group,
        CredKind::Account,
        CredKind::Qos,
        CredKind::Class,
    ];

    /// Upper-case name as Maui prints it (`USER`, `ACCOUNT`, ...).
    pub fn name(self) -> &'static str {
        match self {
            CredKind::User => "USER",
            CredKind::Group => "GROUP",
            CredKind::Account => "ACCOUNT",
            CredKind::Qos => "QOS",
            CredKind::Class => "CLASS",
        }
    }

    /// The `*CFG` parameter that configures this kind.
    pub fn cfg_param(self) -> &'static str {
        match self {
            CredKind::User => "USERCFG",
            CredKind::Group => "GROUPCFG",
            CredKind::Account => "ACCOUNTCFG",
            CredKind::Qos => "QOSCFG",
            CredKind::Class => "CLASSCFG",
        }
    }

    /// Reads a kind name as sites write it (`USER`, `ACCT`, `QUEUE`, any case).
    pub fn parse(s: &str) -> Option<CredKind> {
        match s.to_ascii_uppercase().as_str() {
            "USER" | "U" => Some(CredKind::User),
            "GROUP" | "G" => Some(CredKind::Group),
            "ACCOUNT" | "ACCT" | "A" => Some(CredKind::Account),
            "QOS" | "Q" => Some(CredKind::Qos),
            "CLASS" | "QUEUE" | "C" => Some(CredKind::Class),
            _ => None,
        }
    }
}

impl std::fmt::Display for CredKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
