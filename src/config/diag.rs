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

/// Tokens longer than this many characters are cut in messages.
const TOKEN_SHOWN: usize = 64;

/// `message` with every whitespace-separated token longer than
/// [`TOKEN_SHOWN`] characters cut to its start and its length: a line of
/// 300,000 characters is named, not echoed.
pub fn clip_tokens(message: String) -> String {
    if message.len() <= TOKEN_SHOWN
        || message
            .split_whitespace()
            .all(|t| t.chars().nth(TOKEN_SHOWN).is_none())
    {
        return message;
    }
    let mut out = String::with_capacity(message.len().min(4096));
    let mut rest = message.as_str();
    while !rest.is_empty() {
        let blank = rest.len() - rest.trim_start().len();
        out.push_str(&rest[..blank]);
        rest = &rest[blank..];
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        // Punctuation after a word is the message's, not the input's.
        let token = rest[..end].trim_end_matches([';', ',', ':', '.', ')', '"']);
        match token.char_indices().nth(TOKEN_SHOWN) {
            Some(_) => {
                let cut = token
                    .char_indices()
                    .nth(TOKEN_SHOWN / 2)
                    .map_or(0, |(i, _)| i);
                out.push_str(&format!(
                    "{}... ({} characters)",
                    &token[..cut],
                    token.chars().count()
                ));
            }
            None => out.push_str(token),
        }
        out.push_str(&rest[token.len()..end]);
        rest = &rest[end..];
    }
    out
}

/// Closest known name to `name`, if one is close enough to be a typo. A
/// name is compared only with names of about its length (the distance is
/// at least the difference), so that any input is answered at once.
pub fn did_you_mean<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    const MAX_EDITS: usize = 3;
    // Longer than any parameter or attribute name by more than the edits.
    const LONGEST: usize = 64;
    let mut best: Option<(usize, &str)> = None;
    if name.len() > LONGEST {
        return None;
    }
    let up = name.to_ascii_uppercase();
    // Bytes counted: an edit changes two counts by one at most, so half
    // the counts' difference bounds the distance from below, cheaply.
    let counts = |s: &str| {
        let mut c = [0i16; 64];
        for b in s.bytes() {
            c[(b & 63) as usize] += 1;
        }
        c
    };
    let mine = counts(&up);
    for k in known {
        let limit = (k.len() / 4).clamp(1, MAX_EDITS);
        if up.len().abs_diff(k.len()) > limit {
            continue;
        }
        let theirs = counts(k);
        let apart: u32 = mine
            .iter()
            .zip(&theirs)
            .map(|(a, b)| a.abs_diff(*b) as u32)
            .sum();
        if apart.div_ceil(2) as usize > limit {
            continue;
        }
        let d = strsim::osa_distance(&up, k);
        if d <= limit && best.is_none_or(|(bd, bk)| d < bd || (d == bd && k < bk)) {
            best = Some((d, k));
        }
    }
    best.map(|(_, k)| k)
}
