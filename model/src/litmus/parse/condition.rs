//! The tail of a test: herd's `locations [...]` and `filter PROP`, then the final condition
//! (`exists`, `~exists`, `forall`), read by recursive descent.

use super::parser::{Parser, Piece, Result, MAX_NESTING, MAX_OPERATORS};
use crate::litmus::ir::*;

impl<'a> Parser<'a> {
    /// herd's tail of a test: `locations [...]`, `filter PROP` (both optional, in this order),
    /// then the final condition `exists|~exists|forall PROP`.
    pub(super) fn tail(&self, at: usize, p: &mut Program) -> Result<()> {
        let text = Piece {
            text: &self.src[at..],
            at,
        };
        let tokens = self.cond_tokens(text)?;
        let mut cp = CondParser {
            p: self,
            prog: p,
            tokens: &tokens,
            i: 0,
            end: self.src.len(),
            nesting: 0,
            operators: 0,
        };
        let mut observed = Vec::new();
        if cp.peek() == Some("locations") {
            cp.i += 1;
            if cp.peek() != Some("[") {
                return self.err(cp.here(), "expected `[` after `locations`");
            }
            cp.i += 1;
            while cp.peek() != Some("]") {
                if cp.peek().is_none() {
                    return self.err(cp.here(), "missing `]` closing `locations [`");
                }
                observed.push(cp.term()?);
            }
            cp.i += 1;
        }
        let filter = if cp.peek() == Some("filter") {
            cp.i += 1;
            Some(cp.or()?)
        } else {
            None
        };
        let quantifier_at = cp.here();
        if filter.is_some() && cp.peek().is_none() {
            // A filter alone (Dat3M's data-race tests): every admitted execution counts.
            p.observed = observed;
            p.filter = filter;
            p.condition = Condition {
                quantifier: Quantifier::Exists,
                prop: Prop::True,
                span: self.span(quantifier_at),
            };
            return Ok(());
        }
        let quantifier = match (cp.peek(), cp.tokens.get(cp.i + 1).map(|t| t.text)) {
            (Some("exists"), _) => Quantifier::Exists,
            (Some("forall"), _) => Quantifier::Forall,
            (Some("~"), Some("exists")) => {
                cp.i += 1;
                Quantifier::NotExists
            }
            (Some("locations"), _) if filter.is_some() => {
                return self.err(quantifier_at, "`locations [...]` comes before `filter`")
            }
            (Some(word @ ("locations" | "filter")), _) => {
                return self.err(quantifier_at, format!("`{word}` is given twice"))
            }
            (Some(other), _) => {
                return self.err(
                    quantifier_at,
                    format!("expected `exists`, `~exists` or `forall`, found `{other}`"),
                )
            }
            (None, _) => {
                return self.err(
                    quantifier_at,
                    "missing final condition (`exists`, `~exists` or `forall`)",
                )
            }
        };
        cp.i += 1;
        let prop = cp.or()?;
        if let Some(tok) = tokens.get(cp.i) {
            return self.err(
                tok.at,
                format!("unexpected `{}` after the condition", tok.text),
            );
        }
        p.observed = observed;
        p.filter = filter;
        p.condition = Condition {
            quantifier,
            prop,
            span: self.span(quantifier_at),
        };
        Ok(())
    }

    pub(super) fn cond_tokens(&self, body: Piece<'a>) -> Result<Vec<Piece<'a>>> {
        let mut out = Vec::new();
        let s = body.text;
        let mut i = 0;
        while i < s.len() {
            let c = s[i..].chars().next().expect("in bounds");
            let at = body.at + i;
            let two = s.get(i..i + 2).unwrap_or("");
            let len = if c.is_whitespace() {
                i += c.len_utf8();
                continue;
            } else if matches!(two, "/\\" | "\\/" | "==" | "!=" | "<=" | ">=") {
                2
            } else if matches!(c, '(' | ')' | '~' | '=' | ';' | '[' | ']' | '<' | '>') {
                1
            } else if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                let word_end = |from: usize| {
                    s[from..]
                        .char_indices()
                        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_' || *c == ':'))
                        .map_or(s.len(), |(j, _)| from + j)
                };
                let mut end = word_end(i + 1);
                // `P3: r0` is one term.
                if s[..end].ends_with(':') {
                    let next = end + (s[end..].len() - s[end..].trim_start().len());
                    end = word_end(next);
                }
                end - i
            } else {
                return self.err(at, format!("unexpected character `{c}` in the condition"));
            };
            if &s[i..i + len] != ";" {
                out.push(Piece {
                    text: &s[i..i + len],
                    at,
                });
            }
            i += len;
        }
        Ok(out)
    }
}

/// Recursive descent over `~` (tightest), `/\`, `\/` (loosest). Recursion follows only
/// parentheses, at most [`MAX_NESTING`] deep; chains of operators are loops, and at most
/// [`MAX_OPERATORS`] operators make the whole proposition (so its tree is at most that deep).
struct CondParser<'p, 'a> {
    p: &'p Parser<'a>,
    prog: &'p Program,
    tokens: &'p [Piece<'a>],
    i: usize,
    end: usize,
    /// Parentheses open at this point.
    nesting: usize,
    /// Operators read so far.
    operators: usize,
}

impl<'a> CondParser<'_, 'a> {
    fn peek(&self) -> Option<&'a str> {
        self.tokens.get(self.i).map(|t| t.text)
    }

    fn here(&self) -> usize {
        self.tokens.get(self.i).map_or(self.end, |t| t.at)
    }

    /// Counts one more operator, at the current token.
    fn operator(&mut self) -> Result<()> {
        self.operators += 1;
        if self.operators > MAX_OPERATORS {
            return self.p.err(
                self.here(),
                format!(
                    "condition too large: more than {MAX_OPERATORS} operators (`/\\`, `\\/`, `~`); split the test"
                ),
            );
        }
        Ok(())
    }

    fn or(&mut self) -> Result<Prop> {
        let mut left = self.and()?;
        while self.peek() == Some("\\/") {
            self.operator()?;
            self.i += 1;
            left = Prop::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Prop> {
        let mut left = self.not()?;
        while self.peek() == Some("/\\") {
            self.operator()?;
            self.i += 1;
            left = Prop::And(Box::new(left), Box::new(self.not()?));
        }
        Ok(left)
    }

    fn not(&mut self) -> Result<Prop> {
        let mut negations = 0;
        while self.peek() == Some("~") {
            self.operator()?;
            self.i += 1;
            negations += 1;
        }
        let mut prop = self.atom()?;
        for _ in 0..negations {
            prop = Prop::Not(Box::new(prop));
        }
        Ok(prop)
    }

    fn atom(&mut self) -> Result<Prop> {
        match self.peek() {
            Some("(") => {
                if self.nesting == MAX_NESTING {
                    return self.p.err(
                        self.here(),
                        format!("condition nested too deep: more than {MAX_NESTING} parentheses"),
                    );
                }
                self.nesting += 1;
                self.i += 1;
                let inner = self.or()?;
                if self.peek() != Some(")") {
                    return self.p.err(self.here(), "expected `)`");
                }
                self.i += 1;
                self.nesting -= 1;
                Ok(inner)
            }
            Some("true") => {
                self.i += 1;
                Ok(Prop::True)
            }
            None => self.p.err(self.here(), "condition ends too early"),
            Some(_) => {
                let left = self.term()?;
                // Dat3M's `LitmusAssertions` compares with `==` (or herd's `=`), `!=`, `<`,
                // `<=`, `>`, `>=`, signed ([`Cmp::holds`]).
                let cmp = match self.peek() {
                    Some("=") => Cmp::Eq,
                    Some(op) => match Cmp::ALL.into_iter().find(|c| c.symbol() == op) {
                        Some(cmp) => cmp,
                        None => {
                            return self
                                .p
                                .err(self.here(), "expected `==`, `!=`, `<`, `<=`, `>` or `>=`")
                        }
                    },
                    None => {
                        return self
                            .p
                            .err(self.here(), "expected `==`, `!=`, `<`, `<=`, `>` or `>=`")
                    }
                };
                self.i += 1;
                let right = self.term()?;
                Ok(Prop::Cmp(cmp, left, right))
            }
        }
    }

    fn term(&mut self) -> Result<Term> {
        let Some(tok) = self.tokens.get(self.i).copied() else {
            return self.p.err(self.end, "condition ends too early");
        };
        self.i += 1;
        if tok
            .text
            .starts_with(|c: char| c.is_ascii_digit() || c == '-')
            && !tok.text.contains(':')
        {
            return Ok(Term::Const(self.p.integer(tok)?));
        }
        if let Some((thread, reg)) = self.p.thread_reg(tok)? {
            let Some(t) = self.prog.threads.get(thread) else {
                return self.p.err(
                    tok.at,
                    format!(
                        "the condition names thread P{thread}, but the program has {} threads",
                        self.prog.threads.len()
                    ),
                );
            };
            let known = self
                .prog
                .reg_init
                .iter()
                .any(|i| i.thread == thread && i.reg == reg)
                || t.body.iter().any(|s| s.instr.written_reg() == Some(&reg));
            if !known {
                return self.p.err(tok.at, format!("the condition names register `{reg}` which P{thread} never writes or initialises"));
            }
            return Ok(Term::Reg(thread, reg));
        }
        // `assertionValue : varName LBracket DigitSequence RBracket | varName | LBracket
        // varName RBracket | ...`: an array element `y[1]`, a location `x` or `[x]`.
        let bracketed = tok.text == "[";
        let tok = match bracketed {
            true => {
                let Some(inner) = self.tokens.get(self.i).copied() else {
                    return self.p.err(self.end, "condition ends too early");
                };
                if self.tokens.get(self.i + 1).map(|t| t.text) != Some("]") {
                    return self.p.err(inner.at, "expected `[location]`");
                }
                self.i += 2;
                inner
            }
            false => tok,
        };
        let mut name = self.p.identifier(tok, "register, location or integer")?;
        let index = (
            self.peek(),
            self.tokens.get(self.i + 1),
            self.tokens.get(self.i + 2),
        );
        if let (Some("["), Some(k), Some(close)) = index {
            if !bracketed && close.text == "]" && k.text.bytes().all(|b| b.is_ascii_digit()) {
                name = format!("{name}[{}]", k.text);
                self.i += 3;
            }
        }
        match self.prog.location_named(&name) {
            Some(loc) => Ok(Term::Loc(loc)),
            None => self.p.err(
                tok.at,
                format!("the condition names undefined location `{name}`"),
            ),
        }
    }
}
