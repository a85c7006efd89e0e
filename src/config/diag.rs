//! Diagnostics: errors, warnings and notes with file, line and column.

use serde::Serialize;

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The file is wrong; the configuration is not used.
    Error,
    /// Maui would ignore this too, but it is probably a mistake.
    Warning,
    /// Accepted; worth knowing (aliases, not applicable parameters).
    Note,
}

/// One message about a configuration file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// Error, warning or note.
    pub severity: Severity,
    /// File name as given.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// Parameter (and attribute) concerned, as `FSDECAY` or `SRCFG[x] TASKCOUNT`.
    pub param: Option<String>,
    /// What is wrong, in one sentence.
    pub message: String,
}

impl std::fmt::Display for Diagnostic {
    /// `maui.cfg:12:9: FSDECAY: expected a number in [0,1], got "x"` for
    /// errors; warnings and notes say so after the position.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line == 0 {
            // About the file as a whole (or its setting on this host).
            write!(f, "{}: ", self.file)?;
        } else {
            write!(f, "{}:{}:{}: ", self.file, self.line, self.col)?;
        }
        match self.severity {
            Severity::Error => {}
            Severity::Warning => f.write_str("warning: ")?,
            Severity::Note => f.write_str("note: ")?,
        }
        if let Some(p) = &self.param {
            write!(f, "{p}: ")?;
        }
        f.write_str(&self.message)
    }
}

/// Closest known name to `name`, if one is close enough to be a typo.
pub fn did_you_mean<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let up = name.to_ascii_uppercase();
    let mut best: Option<(usize, &str)> = None;
    for k in known {
        let d = strsim::damerau_levenshtein(&up, k);
        let limit = (k.len() / 4).clamp(1, 3);
        if d <= limit && best.is_none_or(|(bd, bk)| d < bd || (d == bd && k < bk)) {
            best = Some((d, k));
        }
    }
    best.map(|(_, k)| k)
}
