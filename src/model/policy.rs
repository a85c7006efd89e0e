//! Node policies as the model carries them: NODEALLOCATIONPOLICY (a job may
//! override it), NODEACCESSPOLICY and PRIORITYF, a node's allocation
//! priority function. maui.cfg reads them (`config`); the model only holds
//! and evaluates them.

crate::keyword_enum!(
    /// NODEALLOCATIONPOLICY.
    NodeAllocationPolicy {
        FirstAvailable = "FIRSTAVAILABLE",
        LastAvailable = "LASTAVAILABLE",
        MinResource = "MINRESOURCE",
        CpuLoad = "CPULOAD",
        Priority = "PRIORITY",
        Contiguous = "CONTIGUOUS",
        MaxBalance = "MAXBALANCE",
        Fastest = "FASTEST",
        Local = "LOCAL",
    }
);

crate::keyword_enum!(
    /// NODEACCESSPOLICY.
    NodeAccessPolicy { Shared = "SHARED", SingleJob = "SINGLEJOB", SingleTask = "SINGLETASK", SingleUser = "SINGLEUSER" }
    aliases { "DEDICATED" => SingleJob }
);

crate::keyword_enum!(
    /// A node term usable in PRIORITYF.
    Term {
        ADisk = "ADISK",
        AGres = "AGRES",
        AMem = "AMEM",
        AProcs = "APROCS",
        ASwap = "ASWAP",
        CDisk = "CDISK",
        CGres = "CGRES",
        CMem = "CMEM",
        CProcs = "CPROCS",
        CSwap = "CSWAP",
        JobCount = "JOBCOUNT",
        Load = "LOAD",
        Pref = "PREF",
        Priority = "PRIORITY",
        ResAffinity = "RESAFFINITY",
        Speed = "SPEED",
        Usage = "USAGE",
    }
);

/// A parsed expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A constant.
    Num(f64),
    /// A node term.
    Term(Term),
    /// Unary minus.
    Neg(Box<Expr>),
    /// Binary operation: one of `+ - * /`.
    Bin(char, Box<Expr>, Box<Expr>),
}

/// A PRIORITYF function: its source text and parsed form.
#[derive(Clone, Debug, PartialEq)]
pub struct PriorityF {
    /// The expression as written.
    pub source: String,
    /// Parsed form.
    pub expr: Expr,
}

impl PriorityF {
    /// Evaluates with the node's term values; division by zero gives 0.
    pub fn eval(&self, term: &dyn Fn(Term) -> f64) -> f64 {
        fn go(e: &Expr, t: &dyn Fn(Term) -> f64) -> f64 {
            match e {
                Expr::Num(v) => *v,
                Expr::Term(x) => t(*x),
                Expr::Neg(a) => -go(a, t),
                Expr::Bin(op, a, b) => {
                    let (x, y) = (go(a, t), go(b, t));
                    match op {
                        '+' => x + y,
                        '-' => x - y,
                        '*' => x * y,
                        _ => {
                            if y == 0.0 {
                                0.0
                            } else {
                                x / y
                            }
                        }
                    }
                }
            }
        }
        let v = go(&self.expr, term);
        if v.is_finite() {
            v
        } else {
            0.0
        }
    }

    /// True when the expression uses `t`.
    pub fn uses(&self, t: Term) -> bool {
        fn go(e: &Expr, t: Term) -> bool {
            match e {
                Expr::Num(_) => false,
                Expr::Term(x) => *x == t,
                Expr::Neg(a) => go(a, t),
                Expr::Bin(_, a, b) => go(a, t) || go(b, t),
            }
        }
        go(&self.expr, t)
    }
}
