//! Credential names interned to small ids.
//!
//! The engine gives each credential name of each kind a small integer the
//! first time it sees it and keeps the tables from one iteration to the
//! next (in the job memo, `accel::memo`), so a job's credentials are five
//! integers ([`CredIds`]) and what priority reads of a credential is a
//! vector indexed by its id ([`CredTable`]), looked up once per iteration.
//! Ids are given only to jobs that are new or changed: an unchanged job
//! keeps its ids, checked by comparing its names with the table's.

use crate::model::cred::CredNames;
use crate::model::Job;
use crate::priority::{self, CredTerm, CredTerms, PriorityContext, QosTerms, SUB_KINDS};

/// A job's credentials as ids, one per kind in the order of
/// [`SUB_KINDS`] (user, group, account, QOS, class). Id 0 is a
/// credential not given ([`Job::cred`] is `None`).
pub(in crate::engine) type CredIds = [u32; 5];

/// The position of the QOS in [`CredIds`].
const QOS: usize = 3;

/// Ids given so far beyond which the tables start afresh (with the memo
/// that holds their ids): a long-lived engine sees users come and go.
pub(in crate::engine) const NAMES_KEPT: usize = 1 << 16;

/// The credential names of every kind, by id (see the module's doc).
#[derive(Default)]
pub(in crate::engine) struct Names {
    kinds: [CredNames; 5],
}

impl Names {
    /// `job`'s credential ids, given to names on first sight.
    pub(in crate::engine) fn ids(&mut self, job: &Job) -> CredIds {
        std::array::from_fn(|k| self.kinds[k].id(job.cred(SUB_KINDS[k])))
    }

    /// True when `ids` name `job`'s credentials (no look-up: a comparison
    /// of each name with the table's).
    pub(in crate::engine) fn are(&self, ids: &CredIds, job: &Job) -> bool {
        (0..5).all(|k| self.kinds[k].is(ids[k], job.cred(SUB_KINDS[k])))
    }

    /// Ids given so far, over every kind.
    pub(in crate::engine) fn len(&self) -> usize {
        self.kinds.iter().map(CredNames::len).sum()
    }
}

/// What priority reads of each credential, by kind and id, looked up
/// once per iteration (configuration and fairshare usage change between
/// iterations), and the [`CredTerms`] of each requirement signature,
/// whose jobs share their credentials.
pub(in crate::engine) struct CredTable {
    each: [Vec<Option<CredTerm>>; 5],
    qos: Vec<Option<QosTerms>>,
    by_sig: Vec<Option<CredTerms>>,
}

impl CredTable {
    /// An empty table for the ids of `names` and `signatures` signatures.
    pub(in crate::engine) fn new(names: &Names, signatures: usize) -> CredTable {
        let len = |k: usize| names.kinds[k].len() + 1;
        CredTable {
            each: std::array::from_fn(|k| vec![None; len(k)]),
            qos: vec![None; len(QOS)],
            by_sig: vec![None; signatures],
        }
    }

    /// The [`CredTerms`] of credentials `ids` (named in `names`).
    pub(in crate::engine) fn terms(
        &mut self,
        ctx: &PriorityContext,
        names: &Names,
        ids: &CredIds,
    ) -> CredTerms {
        let each = std::array::from_fn(|k| {
            let id = ids[k];
            *self.each[k][id as usize].get_or_insert_with(|| {
                priority::cred_term(ctx, SUB_KINDS[k], names.kinds[k].name(id), None)
            })
        });
        let q = ids[QOS];
        let qos = *self.qos[q as usize]
            .get_or_insert_with(|| priority::qos_terms(ctx, names.kinds[QOS].name(q), false));
        CredTerms::new(each, qos)
    }

    /// The [`CredTerms`] of the jobs of signature `sig`, whose credentials
    /// are `ids`.
    pub(in crate::engine) fn of_signature(
        &mut self,
        ctx: &PriorityContext,
        names: &Names,
        sig: u32,
        ids: &CredIds,
    ) -> &CredTerms {
        if self.by_sig[sig as usize].is_none() {
            self.by_sig[sig as usize] = Some(self.terms(ctx, names, ids));
        }
        self.by_sig[sig as usize].as_ref().unwrap()
    }
}
