//! Host lists: exact names, numeric ranges and Maui host regular expressions.
//!
//! Maui's HOSTLIST takes host names and "host regular expressions" such as
//! `node0[1-9]`, `^compute-0-[0-9]` or `node0[1-4]$`. Sites coming from
//! Slurm or pdsh also write numeric ranges (`dccn-c0[10-18]`, `n[001-016]`)
//! meaning every number in the range, which a regular expression would read
//! as a character class. mauisched therefore reads an entry as:
//!
//! - an exact name when it has no special characters;
//! - a numeric range when its only special characters are `[...]` groups of
//!   decimal numbers and ranges (`[1-9]`, `[01-16]`, `[1,3,5-7]`): it
//!   matches exactly the expanded names (`node0[1-9]` is node01..node09);
//! - otherwise a regular expression searched anywhere in the name, as Maui
//!   did (`^compute-0-[0-9]`).

use regex::Regex;

/// Upper bound on names one range entry may expand to.
pub const MAX_EXPANSION: usize = 1_000_000;

/// One entry of a host list.
#[derive(Clone, Debug)]
pub enum HostPattern {
    /// A single host name.
    Exact(String),
    /// A numeric range such as `n[001-016]`, kept unexpanded.
    Range {
        /// The entry as written.
        text: String,
        /// Literal and numeric pieces in order.
        pieces: Vec<RangePiece>,
    },
    /// A host regular expression, searched anywhere in the name.
    Regex(Regex),
}

/// Part of a range pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RangePiece {
    /// Literal text.
    Lit(String),
    /// Alternatives `(lo, hi, width)`; width > 0 means zero-padded to width.
    Nums(Vec<(u64, u64, usize)>),
}

impl PartialEq for HostPattern {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl HostPattern {
    /// The entry as written.
    pub fn as_str(&self) -> &str {
        match self {
            HostPattern::Exact(s) => s,
            HostPattern::Range { text, .. } => text,
            HostPattern::Regex(r) => r.as_str(),
        }
    }

    /// Reads one entry.
    pub fn parse(entry: &str) -> Result<HostPattern, String> {
        let e = entry.trim();
        if e.is_empty() {
            return Err("empty host name".into());
        }
        const META: &[char] = &[
            '^', '$', '*', '+', '?', '(', ')', '|', '\\', '{', '}', '.', '[',
        ];
        if !e.contains(META) {
            return Ok(HostPattern::Exact(e.to_string()));
        }
        if let Some(pieces) = parse_range(e) {
            let n = expansion_len(&pieces);
            if n > MAX_EXPANSION as u128 {
                return Err(format!(
                    "host range \"{e}\" expands to {n} names (limit {MAX_EXPANSION})"
                ));
            }
            return Ok(HostPattern::Range {
                text: e.to_string(),
                pieces,
            });
        }
        // A dot alone is common in FQDNs (`dccn-c004.dccn.nl`): names with dots
        // but no other metacharacter are exact names.
        if !e.contains(&META[..META.len() - 2]) && !e.contains('[') {
            return Ok(HostPattern::Exact(e.to_string()));
        }
        Regex::new(e).map(HostPattern::Regex).map_err(|err| {
            format!(
                "invalid host expression \"{e}\": {}",
                first_line(&err.to_string())
            )
        })
    }

    /// True when `name` is selected by this entry.
    pub fn matches(&self, name: &str) -> bool {
        match self {
            HostPattern::Exact(s) => s == name,
            HostPattern::Range { pieces, .. } => range_matches(pieces, name),
            HostPattern::Regex(r) => r.is_match(name),
        }
    }

    /// The names an exact or range entry stands for, in order; `None` for a regex.
    pub fn expand(&self) -> Option<Vec<String>> {
        match self {
            HostPattern::Exact(s) => Some(vec![s.clone()]),
            HostPattern::Range { pieces, .. } => {
                let mut out = vec![String::new()];
                for p in pieces {
                    match p {
                        RangePiece::Lit(l) => out.iter_mut().for_each(|s| s.push_str(l)),
                        RangePiece::Nums(alts) => {
                            let mut next = Vec::new();
                            for s in &out {
                                for &(lo, hi, w) in alts {
                                    for v in lo..=hi {
                                        next.push(format!("{s}{v:0w$}"));
                                    }
                                }
                            }
                            out = next;
                        }
                    }
                }
                Some(out)
            }
            HostPattern::Regex(_) => None,
        }
    }
}

fn first_line(s: &str) -> String {
    s.lines()
        .rfind(|l| !l.trim().is_empty())
        .unwrap_or(s)
        .trim()
        .trim_start_matches("error: ")
        .to_string()
}

fn parse_range(e: &str) -> Option<Vec<RangePiece>> {
    let mut pieces = Vec::new();
    let mut rest = e;
    let mut saw_group = false;
    while !rest.is_empty() {
        match rest.find('[') {
            None => {
                if rest.contains(']') {
                    return None;
                }
                pieces.push(RangePiece::Lit(rest.to_string()));
                break;
            }
            Some(i) => {
                let lit = &rest[..i];
                if lit.contains(']') {
                    return None;
                }
                if !lit.is_empty() {
                    pieces.push(RangePiece::Lit(lit.to_string()));
                }
                let close = rest[i..].find(']')? + i;
                let body = &rest[i + 1..close];
                let mut alts = Vec::new();
                for part in body.split(',') {
                    let (a, b) = part.split_once('-').unwrap_or((part, part));
                    if a.is_empty()
                        || b.is_empty()
                        || !a.bytes().chain(b.bytes()).all(|c| c.is_ascii_digit())
                    {
                        return None;
                    }
                    let lo: u64 = a.parse().ok()?;
                    let hi: u64 = b.parse().ok()?;
                    if lo > hi {
                        return None;
                    }
                    let width =
                        if a.len() > 1 && a.starts_with('0') || a.len() == b.len() && a.len() > 1 {
                            a.len()
                        } else {
                            0
                        };
                    alts.push((lo, hi, width));
                }
                pieces.push(RangePiece::Nums(alts));
                saw_group = true;
                rest = &rest[close + 1..];
            }
        }
    }
    const OTHER_META: &[char] = &['^', '$', '*', '+', '?', '(', ')', '|', '\\', '{', '}'];
    let lits_clean = pieces.iter().all(|p| match p {
        RangePiece::Lit(l) => !l.contains(OTHER_META),
        RangePiece::Nums(_) => true,
    });
    (saw_group && lits_clean).then_some(pieces)
}

fn expansion_len(pieces: &[RangePiece]) -> u128 {
    pieces.iter().fold(1u128, |acc, p| match p {
        RangePiece::Lit(_) => acc,
        RangePiece::Nums(alts) => {
            acc.saturating_mul(alts.iter().map(|(lo, hi, _)| (hi - lo + 1) as u128).sum())
        }
    })
}

fn range_matches(pieces: &[RangePiece], name: &str) -> bool {
    fn go(pieces: &[RangePiece], s: &str) -> bool {
        match pieces.split_first() {
            None => s.is_empty(),
            Some((RangePiece::Lit(l), rest)) => {
                s.strip_prefix(l.as_str()).is_some_and(|t| go(rest, t))
            }
            Some((RangePiece::Nums(alts), rest)) => {
                let digits = s.bytes().take_while(|b| b.is_ascii_digit()).count();
                // Try every split of the leading digits: a literal after the
                // group may itself begin with a digit.
                (1..=digits).any(|k| {
                    let (num, tail) = s.split_at(k);
                    let Ok(v) = num.parse::<u64>() else {
                        return false;
                    };
                    alts.iter().any(|&(lo, hi, w)| {
                        v >= lo
                            && v <= hi
                            && (if w > 0 {
                                num.len() == w
                            } else {
                                !num.starts_with('0') || num == "0"
                            })
                    }) && go(rest, tail)
                })
            }
        }
    }
    go(pieces, name)
}

/// A list of host entries: a node is in the list when any entry selects it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HostList(pub Vec<HostPattern>);

impl HostList {
    /// Reads a comma-separated list (commas inside `[...]`/`{...}` belong to the entry).
    pub fn parse(text: &str) -> Result<HostList, String> {
        let mut out = Vec::new();
        let mut depth = 0i32;
        let mut start = 0;
        let bytes = text.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            match b {
                b'[' | b'{' => depth += 1,
                b']' | b'}' => depth -= 1,
                b',' if depth <= 0 => {
                    let e = &text[start..i];
                    if !e.trim().is_empty() {
                        out.push(HostPattern::parse(e)?);
                    }
                    start = i + 1;
                }
                _ => {}
            }
        }
        let e = &text[start..];
        if !e.trim().is_empty() {
            out.push(HostPattern::parse(e)?);
        }
        if out.is_empty() {
            return Err("empty host list".into());
        }
        Ok(HostList(out))
    }

    /// True when any entry selects `name`.
    pub fn matches(&self, name: &str) -> bool {
        self.0.iter().any(|p| p.matches(name))
    }

    /// True when the list names hosts exactly (no regular expressions).
    pub fn is_exact(&self) -> bool {
        self.0.iter().all(|p| !matches!(p, HostPattern::Regex(_)))
    }

    /// The named hosts in order without duplicates, if the list is exact.
    pub fn expand(&self) -> Option<Vec<String>> {
        let mut seen = std::collections::BTreeSet::new();
        let mut out = Vec::new();
        for p in &self.0 {
            for n in p.expand()? {
                if seen.insert(n.clone()) {
                    out.push(n);
                }
            }
        }
        Some(out)
    }
}

impl std::fmt::Display for HostList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<&str> = self.0.iter().map(|p| p.as_str()).collect();
        f.write_str(&parts.join(","))
    }
}

impl serde::Serialize for HostList {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_names_and_fqdns() {
        let h = HostList::parse("node001,node002,dccn-c004.dccn.nl").unwrap();
        assert!(h.is_exact());
        assert!(h.matches("dccn-c004.dccn.nl"));
        assert!(!h.matches("dccn-c004xdccnxnl"));
        assert_eq!(h.expand().unwrap().len(), 3);
    }

    #[test]
    fn numeric_ranges_expand_exactly() {
        let h = HostList::parse("node0[1-9]").unwrap();
        assert!(h.matches("node01") && h.matches("node09"));
        assert!(!h.matches("node010") && !h.matches("node10"));
        assert_eq!(h.expand().unwrap().len(), 9);
        let h = HostList::parse("dccn-c00[4-5],dccn-c0[10-18],dccn-c36[0-4]").unwrap();
        let names = h.expand().unwrap();
        assert_eq!(names.len(), 2 + 9 + 5);
        assert!(h.matches("dccn-c010") && h.matches("dccn-c018") && !h.matches("dccn-c019"));
        let h = HostList::parse("n[001-016]").unwrap();
        assert_eq!(h.expand().unwrap()[15], "n016");
        assert!(h.matches("n007") && !h.matches("n7") && !h.matches("n017"));
    }

    #[test]
    fn regular_expressions_search_like_maui() {
        let h = HostList::parse("^compute-0-[0-9]").unwrap();
        assert!(!h.is_exact());
        assert!(h.matches("compute-0-3") && h.matches("compute-0-12"));
        assert!(!h.matches("xcompute-0-1"));
        let h = HostList::parse("node0[1-4]$").unwrap();
        assert!(h.matches("node03") && !h.matches("node05"));
        assert!(HostList::parse("node[").is_err());
        assert!(HostList::parse("n[1-9999999999]").is_err());
    }
}
