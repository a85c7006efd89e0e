//! Typed values of parameters and attributes, with Maui's value syntax.

use crate::model::time::{fmt_duration, parse_duration};
use crate::model::Secs;
use serde::Serialize;

/// A value read from text: parse from one string, render back for showconfig.
pub trait Scalar: Sized {
    /// Parses one value (already unquoted).
    fn parse_str(s: &str) -> Result<Self, String>;
    /// Renders the value in maui.cfg syntax.
    fn render(&self) -> String;
    /// A note for values that are accepted but not canonical (aliases).
    fn alias_note(_s: &str) -> Option<String> {
        None
    }
}

/// A value made of all the tokens after a parameter name.
pub trait ParamValue: Sized {
    /// Parses the tokens; on error, returns the column and the message.
    /// Non-fatal remarks go to `notes`.
    fn parse_tokens(
        toks: &[super::lexer::Token],
        notes: &mut Vec<(u32, String)>,
    ) -> Result<Self, (u32, String)>;
    /// Renders the value in maui.cfg syntax.
    fn render_value(&self) -> String;
}

impl<T: Scalar> ParamValue for T {
    fn parse_tokens(
        toks: &[super::lexer::Token],
        notes: &mut Vec<(u32, String)>,
    ) -> Result<Self, (u32, String)> {
        match toks {
            [] => Err((0, "missing value".into())),
            [t] => {
                let v = T::parse_str(&t.text).map_err(|m| (t.col, m))?;
                if let Some(n) = T::alias_note(&t.text) {
                    notes.push((t.col, n));
                }
                Ok(v)
            }
            [_, t, ..] => Err((
                t.col,
                format!(
                    "expected a single value, got {} (quote a value that contains blanks)",
                    toks.len()
                ),
            )),
        }
    }
    fn render_value(&self) -> String {
        self.render()
    }
}

fn got(s: &str) -> String {
    let shown: String = s.chars().take(40).collect();
    if s.chars().count() > 40 {
        format!("\"{shown}...\"")
    } else {
        format!("\"{shown}\"")
    }
}

impl Scalar for i64 {
    fn parse_str(s: &str) -> Result<Self, String> {
        let t = s.strip_prefix('+').unwrap_or(s);
        t.parse()
            .map_err(|_| format!("expected an integer, got {}", got(s)))
    }
    fn render(&self) -> String {
        self.to_string()
    }
}

impl Scalar for u32 {
    fn parse_str(s: &str) -> Result<Self, String> {
        s.parse()
            .map_err(|_| format!("expected a non-negative integer, got {}", got(s)))
    }
    fn render(&self) -> String {
        self.to_string()
    }
}

impl Scalar for u64 {
    fn parse_str(s: &str) -> Result<Self, String> {
        s.parse()
            .map_err(|_| format!("expected a non-negative integer, got {}", got(s)))
    }
    fn render(&self) -> String {
        self.to_string()
    }
}

/// Parses a decimal number as sites write it (`.01`, `10.0`, `1e3`).
pub fn parse_f64(s: &str) -> Option<f64> {
    let v: f64 = s.parse().ok()?;
    v.is_finite().then_some(v)
}

/// Renders a float without noise (`1`, `0.8`, `0.01`).
pub fn render_f64(v: f64) -> String {
    let s = format!("{v}");
    if s.contains('e') {
        format!("{v:.6}")
    } else if !s.contains('.') {
        format!("{s}.0")
    } else {
        s
    }
}

impl Scalar for f64 {
    fn parse_str(s: &str) -> Result<Self, String> {
        parse_f64(s).ok_or_else(|| format!("expected a number, got {}", got(s)))
    }
    fn render(&self) -> String {
        render_f64(*self)
    }
}

/// A number in [0,1] (decay factors).
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Serialize)]
pub struct Unit(pub f64);

impl Scalar for Unit {
    fn parse_str(s: &str) -> Result<Self, String> {
        match parse_f64(s) {
            Some(v) if (0.0..=1.0).contains(&v) => Ok(Unit(v)),
            _ => Err(format!("expected a number in [0,1], got {}", got(s))),
        }
    }
    fn render(&self) -> String {
        render_f64(self.0)
    }
}

/// Maui's boolean: TRUE/FALSE, ON/OFF, YES/NO, 1/0 (any case).
pub fn parse_bool(s: &str) -> Option<bool> {
    match s.to_ascii_uppercase().as_str() {
        "TRUE" | "ON" | "YES" | "1" => Some(true),
        "FALSE" | "OFF" | "NO" | "0" => Some(false),
        _ => None,
    }
}

impl Scalar for bool {
    fn parse_str(s: &str) -> Result<Self, String> {
        parse_bool(s).ok_or_else(|| {
            format!(
                "expected TRUE or FALSE (also ON/OFF, YES/NO, 1/0), got {}",
                got(s)
            )
        })
    }
    fn render(&self) -> String {
        if *self { "TRUE" } else { "FALSE" }.into()
    }
}

impl Scalar for String {
    fn parse_str(s: &str) -> Result<Self, String> {
        if s.eq_ignore_ascii_case("[NONE]") {
            return Ok(String::new());
        }
        Ok(s.to_string())
    }
    fn render(&self) -> String {
        if self.is_empty() {
            "[NONE]".into()
        } else if self.contains(char::is_whitespace) {
            format!("'{self}'")
        } else {
            self.clone()
        }
    }
}

/// A non-negative duration in seconds (`[[[DD:]HH:]MM:]SS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Duration(pub Secs);

impl Scalar for Duration {
    fn parse_str(s: &str) -> Result<Self, String> {
        match parse_duration(s)? {
            Some(v) if v >= 0 => Ok(Duration(v)),
            Some(_) => Err(format!(
                "expected a duration that is not negative, got {}",
                got(s)
            )),
            None => Err(format!("expected a finite duration, got {}", got(s))),
        }
    }
    fn render(&self) -> String {
        fmt_duration(self.0)
    }
}

/// A duration where `-1`, `INFINITY` or `0` in some parameters mean "no limit".
/// `None` is no limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Limit(pub Option<Secs>);

impl Scalar for Limit {
    fn parse_str(s: &str) -> Result<Self, String> {
        match parse_duration(s)? {
            None | Some(-1) => Ok(Limit(None)),
            Some(v) if v >= 0 => Ok(Limit(Some(v))),
            Some(_) => Err(format!(
                "expected a duration, -1 or INFINITY, got {}",
                got(s)
            )),
        }
    }
    fn render(&self) -> String {
        match self.0 {
            None => "INFINITY".into(),
            Some(v) => fmt_duration(v),
        }
    }
}

/// A count where `-1` (or `INFINITY`) means no limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CountLimit(pub Option<u64>);

impl Scalar for CountLimit {
    fn parse_str(s: &str) -> Result<Self, String> {
        let u = s.to_ascii_uppercase();
        if s == "-1" || u == "INFINITY" || u == "UNLIMITED" {
            return Ok(CountLimit(None));
        }
        s.parse()
            .map(|v| CountLimit(Some(v)))
            .map_err(|_| format!("expected a non-negative integer or -1, got {}", got(s)))
    }
    fn render(&self) -> String {
        match self.0 {
            None => "-1".into(),
            Some(v) => v.to_string(),
        }
    }
}

/// Splits a list value on Maui's list delimiters `,`, `|` and `:` (and blanks).
pub fn split_list(s: &str) -> impl Iterator<Item = &str> {
    s.split([',', '|', ':', ' ', '\t'])
        .filter(|x| !x.is_empty())
}

/// A list of names; `[ALL]`/`[NONE]` are kept as written.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Names(pub Vec<String>);

impl Names {
    /// True when the list says `ALL` (or `[ALL]`).
    pub fn is_all(&self) -> bool {
        self.0
            .iter()
            .any(|n| n.eq_ignore_ascii_case("ALL") || n.eq_ignore_ascii_case("[ALL]"))
    }

    /// True when the list holds `name` exactly (or is ALL).
    pub fn contains(&self, name: &str) -> bool {
        self.is_all() || self.0.iter().any(|n| n == name)
    }
}

impl ParamValue for Names {
    fn parse_tokens(
        toks: &[super::lexer::Token],
        _: &mut Vec<(u32, String)>,
    ) -> Result<Self, (u32, String)> {
        let v: Vec<String> = toks
            .iter()
            .flat_map(|t| split_list(&t.text))
            .filter(|n| !n.eq_ignore_ascii_case("[NONE]"))
            .map(str::to_string)
            .collect();
        Ok(Names(v))
    }
    fn render_value(&self) -> String {
        if self.0.is_empty() {
            "[NONE]".into()
        } else {
            self.0.join(" ")
        }
    }
}

/// Declares an enum of Maui keywords ([`crate::keyword_enum`]) that is also
/// a maui.cfg value (`Scalar`).
///
/// `keywords!(Name { Variant = "KEYWORD", ... } aliases { "ALIAS" => Variant })`
#[macro_export]
macro_rules! keywords {
    ($($t:tt)*) => {
        $crate::keyword_enum!($($t)*);
        $crate::keyword_scalar!($($t)*);
    };
}

/// Makes an enum of `keyword_enum!` a maui.cfg value (`Scalar`);
/// takes the enum's declaration, or only its name.
#[macro_export]
macro_rules! keyword_scalar {
    ($(#[$m:meta])* $name:ident $($rest:tt)*) => {
        impl $crate::config::value::Scalar for $name {
            fn parse_str(s: &str) -> Result<Self, String> {
                Self::from_keyword(s).ok_or_else(|| {
                    format!(
                        "expected one of {}, got \"{}\"",
                        Self::KEYWORDS.join(", "),
                        s
                    )
                })
            }
            fn render(&self) -> String {
                self.keyword().to_string()
            }
            fn alias_note(s: &str) -> Option<String> {
                let up = s.to_ascii_uppercase();
                Self::ALIASES.iter().find(|(a, _)| up == *a).map(|(_, v)| {
                    format!(
                        "\"{}\" is not a Maui keyword here; read as {}",
                        s,
                        v.keyword()
                    )
                })
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_parse_and_render() {
        assert_eq!(i64::parse_str("-1000"), Ok(-1000));
        assert_eq!(f64::parse_str(".01"), Ok(0.01));
        assert_eq!(
            Unit::parse_str("x").unwrap_err(),
            "expected a number in [0,1], got \"x\""
        );
        assert_eq!(
            Unit::parse_str("1.5").unwrap_err(),
            "expected a number in [0,1], got \"1.5\""
        );
        assert_eq!(bool::parse_str("on"), Ok(true));
        assert_eq!(bool::parse_str("0"), Ok(false));
        assert_eq!(Duration::parse_str("168:00:00"), Ok(Duration(7 * 86400)));
        assert_eq!(
            Duration::parse_str("168:00:00").unwrap().render(),
            "7:00:00:00"
        );
        assert_eq!(Limit::parse_str("-1"), Ok(Limit(None)));
        assert_eq!(CountLimit::parse_str("-1").unwrap().render(), "-1");
        assert_eq!(render_f64(1.0), "1.0");
        assert_eq!(render_f64(0.8), "0.8");
    }
}
