//! NODECFG PRIORITYF: node allocation priority expressions.
//!
//! `'SPEED + .01 * AMEM - 10 * JOBCOUNT'`: numbers, node terms ([`Term`]),
//! `+ - * /`, unary minus and parentheses, with the usual precedence. The
//! expression itself ([`PriorityF`], [`Term`]) is part of the model.

pub use crate::model::policy::{Expr, PriorityF, Term};
crate::keyword_scalar!(Term);

impl PriorityF {
    /// Parses an expression; the error carries the 0-based character offset.
    pub fn parse(src: &str) -> Result<PriorityF, (usize, String)> {
        let chars: Vec<char> = src.chars().collect();
        let mut p = Parser { s: &chars, i: 0 };
        p.ws();
        if p.i == chars.len() {
            return Err((0, "empty priority function".into()));
        }
        let expr = p.expr(0)?;
        p.ws();
        if p.i < chars.len() {
            return Err((p.i, format!("unexpected \"{}\"", chars[p.i])));
        }
        Ok(PriorityF {
            source: src.to_string(),
            expr,
        })
    }
}

struct Parser<'a> {
    s: &'a [char],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_whitespace() {
            self.i += 1;
        }
    }

    fn expr(&mut self, depth: u32) -> Result<Expr, (usize, String)> {
        if depth > 64 {
            return Err((self.i, "expression nested too deeply".into()));
        }
        let mut lhs = self.term(depth)?;
        loop {
            self.ws();
            match self.s.get(self.i) {
                Some(&c @ ('+' | '-')) => {
                    self.i += 1;
                    let rhs = self.term(depth)?;
                    lhs = Expr::Bin(c, Box::new(lhs), Box::new(rhs));
                }
                _ => return Ok(lhs),
            }
        }
    }

    fn term(&mut self, depth: u32) -> Result<Expr, (usize, String)> {
        let mut lhs = self.factor(depth)?;
        loop {
            self.ws();
            match self.s.get(self.i) {
                Some(&c @ ('*' | '/')) => {
                    self.i += 1;
                    let rhs = self.factor(depth)?;
                    lhs = Expr::Bin(c, Box::new(lhs), Box::new(rhs));
                }
                _ => return Ok(lhs),
            }
        }
    }

    fn factor(&mut self, depth: u32) -> Result<Expr, (usize, String)> {
        self.ws();
        let start = self.i;
        match self.s.get(self.i) {
            None => Err((
                self.i,
                "expected a number, a node term or (, got the end".into(),
            )),
            Some('-') => {
                self.i += 1;
                Ok(Expr::Neg(Box::new(self.factor(depth + 1)?)))
            }
            Some('+') => {
                self.i += 1;
                self.factor(depth + 1)
            }
            Some('(') => {
                self.i += 1;
                let e = self.expr(depth + 1)?;
                self.ws();
                if self.s.get(self.i) != Some(&')') {
                    return Err((self.i, "expected )".into()));
                }
                self.i += 1;
                Ok(e)
            }
            Some(c) if c.is_ascii_digit() || *c == '.' => {
                while self.i < self.s.len()
                    && (self.s[self.i].is_ascii_digit() || self.s[self.i] == '.')
                {
                    self.i += 1;
                }
                let text: String = self.s[start..self.i].iter().collect();
                text.parse::<f64>()
                    .map(Expr::Num)
                    .map_err(|_| (start, format!("bad number \"{text}\"")))
            }
            Some(c) if c.is_ascii_alphabetic() => {
                while self.i < self.s.len()
                    && (self.s[self.i].is_ascii_alphanumeric() || self.s[self.i] == '_')
                {
                    self.i += 1;
                }
                let word: String = self.s[start..self.i].iter().collect();
                Term::from_keyword(&word).map(Expr::Term).ok_or_else(|| {
                    (
                        start,
                        format!(
                            "unknown term \"{word}\" (terms: {})",
                            Term::KEYWORDS.join(", ")
                        ),
                    )
                })
            }
            Some(c) => Err((start, format!("unexpected \"{c}\""))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(src: &str, f: &dyn Fn(Term) -> f64) -> f64 {
        PriorityF::parse(src).unwrap().eval(f)
    }

    #[test]
    fn seed_examples_parse_and_evaluate() {
        let node = |t: Term| match t {
            Term::Speed => 2.0,
            Term::AMem => 1000.0,
            Term::JobCount => 1.0,
            Term::Load => 0.5,
            Term::Usage => 10.0,
            Term::Priority => 1000.0,
            Term::AProcs => 4.0,
            Term::Pref => 1.0,
            _ => 0.0,
        };
        assert_eq!(eval("SPEED+ .01 * AMEM - 10 * JOBCOUNT", &node), 2.0);
        assert_eq!(eval("-LOAD - 5*USAGE", &node), -50.5);
        assert_eq!(eval("PRIORITY + APROCS", &node), 1004.0);
        assert_eq!(eval("JOBCOUNT", &node), 1.0);
        assert_eq!(eval("5 * PREF - LOAD", &node), 4.5);
        assert_eq!(eval("-1.00*AMEM-1.00*APROCS", &node), -1004.0);
        assert_eq!(eval("(SPEED + 1) * 2 / 0", &node), 0.0);
    }

    #[test]
    fn errors_point_at_the_problem() {
        assert_eq!(PriorityF::parse("SPEED + FEATURE").unwrap_err().0, 8);
        assert_eq!(PriorityF::parse("SPEED +").unwrap_err().0, 7);
        assert_eq!(PriorityF::parse("(SPEED").unwrap_err().0, 6);
        assert_eq!(PriorityF::parse("SPEED $").unwrap_err().0, 6);
        assert!(PriorityF::parse(&"(".repeat(500)).is_err());
    }
}
