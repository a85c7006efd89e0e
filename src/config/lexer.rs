//! maui.cfg lexer: lines into a name, an optional `[index]` and value tokens.
//!
//! Rules (Maui's, as sites write them): one parameter per line; `#` outside
//! quotes starts a comment anywhere; tokens are separated by blanks; `'` or
//! `"` quote any part of a token, so `PRIORITYF='SPEED + .01 * AMEM'` is
//! one token whose text has the quotes removed. Columns are 1-based
//! character positions, so messages point where an editor does.

/// One value token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// Text with quotes removed.
    pub text: String,
    /// Column of the token's first character.
    pub col: u32,
    /// True when some part of it was quoted.
    pub quoted: bool,
    /// Source column of each character of `text` (quotes removed).
    pub cols: Vec<u32>,
}

impl Token {
    /// A token whose characters sit on consecutive columns from `col`.
    pub fn plain(text: String, col: u32) -> Token {
        let cols = (0..text.chars().count() as u32).map(|i| col + i).collect();
        Token {
            text,
            col,
            quoted: false,
            cols,
        }
    }

    /// Source column of the byte offset `off` within the text.
    pub fn col_at(&self, off: usize) -> u32 {
        let idx = self
            .text
            .get(..off)
            .map_or(self.cols.len(), |s| s.chars().count());
        match self.cols.get(idx) {
            Some(c) => *c,
            None => self.cols.last().map_or(self.col, |c| c + 1),
        }
    }
}

/// One parameter line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// 1-based line number.
    pub line: u32,
    /// Parameter name as written (case preserved).
    pub name: String,
    /// Column of the name.
    pub col: u32,
    /// `[index]` text and its column, if present.
    pub index: Option<(String, u32)>,
    /// Value tokens after the name.
    pub tokens: Vec<Token>,
}

/// A lexical problem: line, column, message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LexError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// What is wrong.
    pub message: String,
}

/// Splits a whole file into parameter lines, reporting bad lines separately
/// so that one broken line never hides the others.
pub fn lex(text: &str) -> (Vec<Line>, Vec<LexError>) {
    let mut lines = Vec::new();
    let mut errors = Vec::new();
    for (i, raw) in text.split('\n').enumerate() {
        let n = (i + 1) as u32;
        match lex_line(n, raw.strip_suffix('\r').unwrap_or(raw)) {
            Ok(Some(l)) => lines.push(l),
            Ok(None) => {}
            Err(e) => errors.push(e),
        }
    }
    (lines, errors)
}

fn lex_line(n: u32, raw: &str) -> Result<Option<Line>, LexError> {
    let err = |col: u32, message: String| LexError {
        line: n,
        col,
        message,
    };
    let mut tokens: Vec<Token> = Vec::new();
    let mut cur: Option<Token> = None;
    let mut quote: Option<(char, u32)> = None;
    for (ci, c) in raw.chars().enumerate() {
        let col = ci as u32 + 1;
        if let Some((q, _)) = quote {
            if c == q {
                quote = None;
            } else if let Some(t) = cur.as_mut() {
                t.text.push(c);
                t.cols.push(col);
            }
            continue;
        }
        match c {
            '#' => break,
            '\'' | '"' => {
                quote = Some((c, col));
                let t = cur.get_or_insert_with(|| Token {
                    text: String::new(),
                    col,
                    quoted: true,
                    cols: Vec::new(),
                });
                t.quoted = true;
            }
            c if c.is_whitespace() => {
                if let Some(t) = cur.take() {
                    tokens.push(t);
                }
            }
            c if c.is_control() => {
                return Err(err(
                    col,
                    format!("unexpected control character U+{:04X}", c as u32),
                ));
            }
            c => {
                let t = cur.get_or_insert_with(|| Token {
                    text: String::new(),
                    col,
                    quoted: false,
                    cols: Vec::new(),
                });
                t.text.push(c);
                t.cols.push(col);
            }
        }
    }
    if let Some((q, col)) = quote {
        return Err(err(col, format!("unterminated quote {q}")));
    }
    if let Some(t) = cur.take() {
        tokens.push(t);
    }
    if tokens.is_empty() {
        return Ok(None);
    }
    let first = tokens.remove(0);
    if first.quoted {
        return Err(err(
            first.col,
            "expected a parameter name, got a quoted value".into(),
        ));
    }
    let (name, index) = match first.text.find('[') {
        None => (first.text.clone(), None),
        Some(open) => {
            let Some(close) = first.text.rfind(']') else {
                return Err(err(first.col_at(open), "missing ] after index".into()));
            };
            if close < open {
                return Err(err(first.col_at(open), "missing ] after index".into()));
            }
            if close + 1 != first.text.len() {
                let col = first.col_at(close + 1);
                return Err(err(
                    col,
                    "expected a blank between the parameter and its value".into(),
                ));
            }
            let idx = first.text[open + 1..close].to_string();
            if idx.trim().is_empty() {
                return Err(err(first.col_at(open), "empty index []".into()));
            }
            (
                first.text[..open].to_string(),
                Some((idx, first.col_at(open + 1))),
            )
        }
    };
    let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
    if !valid {
        return Err(err(
            first.col,
            format!("expected a parameter name, got \"{}\"", first.text),
        ));
    }
    Ok(Some(Line {
        line: n,
        name,
        col: first.col,
        index,
        tokens,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(s: &str) -> Line {
        let (l, e) = lex(s);
        assert!(e.is_empty(), "{e:?}");
        l.into_iter().next().unwrap()
    }

    #[test]
    fn names_indexes_and_comments() {
        let l = one("  USERCFG[john]   PRIORITY=100 FSTARGET=10.0-  # boss");
        assert_eq!((l.name.as_str(), l.col), ("USERCFG", 3));
        assert_eq!(l.index, Some(("john".into(), 11)));
        assert_eq!(l.tokens.len(), 2);
        assert_eq!(l.tokens[1].text, "FSTARGET=10.0-");
        assert_eq!(l.tokens[1].col, 32);
        let l = one("BACKFILLPOLICY  ON #FIRSTFIT by default");
        assert_eq!(l.tokens.len(), 1);
        assert!(lex("# only a comment\n\n   \n").0.is_empty());
    }

    #[test]
    fn quotes_hold_spaces_and_hashes() {
        let l = one("NODECFG[DEFAULT] PRIORITYF='SPEED + .01 * AMEM - 10 * JOBCOUNT'");
        assert_eq!(
            l.tokens[0].text,
            "PRIORITYF=SPEED + .01 * AMEM - 10 * JOBCOUNT"
        );
        assert!(l.tokens[0].quoted);
        let l = one("X A=\"a # b\" # real comment");
        assert_eq!(l.tokens[0].text, "A=a # b");
        let l = one("QOSCFG[e] TRIGGER=EType=x,Action=\"$T/a.py --id $JOBID\",Threshold=B>500");
        assert_eq!(l.tokens.len(), 1);
    }

    #[test]
    fn errors_have_positions() {
        let (_, e) = lex("OK 1\nFOO 'bar\n");
        assert_eq!((e[0].line, e[0].col), (2, 5));
        let (_, e) = lex("USERCFG[john PRIORITY=1");
        assert_eq!((e[0].line, e[0].col), (1, 8));
        let (_, e) = lex("3FOO 1");
        assert_eq!(e[0].message, "expected a parameter name, got \"3FOO\"");
        let (_, e) = lex("USERCFG[a]PRIORITY=1");
        assert_eq!(e[0].col, 11);
    }

    #[test]
    fn crlf_is_tolerated() {
        let (l, e) = lex("RMPOLLINTERVAL 00:00:30\r\nLOGLEVEL 3\r\n");
        assert!(e.is_empty());
        assert_eq!(l[1].tokens[0].text, "3");
    }
}
