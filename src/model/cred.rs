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

/// The names of one credential kind by id, and ids by name: each name a
/// small integer (from 1) the first time it is seen. Id 0 is a
/// credential not given.
#[derive(Clone, Debug, Default)]
pub(crate) struct CredNames {
    ids: rustc_hash::FxHashMap<String, u32>,
    /// Name of id `k + 1`.
    names: Vec<String>,
}

impl CredNames {
    /// The id of `given`, given to it on first sight.
    #[inline]
    pub(crate) fn id(&mut self, given: Option<&str>) -> u32 {
        let Some(name) = given else { return 0 };
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        self.names.push(name.to_string());
        let id = self.names.len() as u32;
        self.ids.insert(name.to_string(), id);
        id
    }

    /// The id of `name` if it has one.
    #[inline]
    pub(crate) fn get(&self, name: &str) -> Option<u32> {
        self.ids.get(name).copied()
    }

    /// True when `id` stands for `given`.
    #[inline]
    pub(crate) fn is(&self, id: u32, given: Option<&str>) -> bool {
        match (id.checked_sub(1), given) {
            (Some(k), Some(name)) => self.names[k as usize] == name,
            (None, None) => true,
            _ => false,
        }
    }

    /// The name of `id` (`None` for id 0).
    #[inline]
    pub(crate) fn name(&self, id: u32) -> Option<&str> {
        id.checked_sub(1).map(|k| self.names[k as usize].as_str())
    }

    /// Ids given so far.
    pub(crate) fn len(&self) -> usize {
        self.names.len()
    }
}
