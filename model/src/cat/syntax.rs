//! The cat language's syntax (herd7's model language): tokens, the abstract syntax tree and a
//! recursive-descent parser.
//!
//! A model is a sequence of statements: `let` bindings (`let rec … and …` for mutually recursive
//! ones, `let f(a, b) = …` for functions), `include "file.cat"`, checks (`acyclic`,
//! `irreflexive`, `empty`, optionally negated with `~` and named with `as NAME`), flags (`flag`
//! before a check: a condition reported, such as a data race, not a consistency failure), and
//! `show`/`unshow` (display directives, accepted and ignored). An optional string first names
//! the model, and model options may follow it as herd7's do (ours: `withoutthinair`, see
//! [`ModelOption`]). Comments are `(* … *)` (nesting) and `// …` to the end of the line.
//!
//! Operators, loosest first: `|` union, `;` sequence, `\` difference, `&` intersection, `*`
//! cartesian product of two sets, prefix `~` complement, and postfix `^-1` (inverse), `^+` or
//! `+` (transitive closure), `^*` or `*` (reflexive-transitive closure), `?` (reflexive
//! closure). `[S]` is the identity on the set `S`; `0` the empty relation; `_` every event;
//! `domain(r)` and `range(r)` the sets a relation leaves from and arrives at.

use super::CatError;

/// A place in a model file: 1-based line and column.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Pos {
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1, in characters.
    pub col: usize,
}

/// An expression with the place it starts.
#[derive(Clone, Debug)]
pub struct Expr {
    /// Where the expression starts.
    pub pos: Pos,
    /// What the expression is.
    pub kind: ExprKind,
}

/// The forms of a cat expression.
#[derive(Clone, Debug)]
pub enum ExprKind {
    /// A name bound by `let`, a parameter or a name the engine gives (`po`, `W`, …).
    Name(String),
    /// `0`: the empty relation.
    Zero,
    /// `f(args)`: a function (or `domain`/`range`) applied.
    Call(String, Vec<Expr>),
    /// Two operands joined by an infix operator.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// A prefix (`~`) or postfix (`^-1`, `+`, `*`, `?`) operator applied to its operand.
    Unary(UnOp, Box<Expr>),
    /// `[S]`.
    Identity(Box<Expr>),
}

/// cat's infix operators.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `r | s`: pairs (or events) in either.
    Union,
    /// `r ; s`: relational composition.
    Seq,
    /// `r \ s`: pairs in `r` and not in `s`.
    Diff,
    /// `r & s`: pairs in both.
    Inter,
    /// `S * T`: every pair of an event of `S` and an event of `T`.
    Cross,
}

/// cat's prefix and postfix operators.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `~r`: the pairs (or events) not in `r`.
    Complement,
    /// `r^-1`: every pair reversed.
    Inverse,
    /// `r+`: the transitive closure.
    Plus,
    /// `r*`: the reflexive-transitive closure.
    Star,
    /// `r?`: `r` with the identity added.
    Opt,
}

/// The three checks cat has.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CheckKind {
    /// `acyclic r`: `r` has no cycle.
    Acyclic,
    /// `irreflexive r`: no event is related to itself.
    Irreflexive,
    /// `empty r`: no pair at all.
    Empty,
}

/// One binding of a `let`: a value (`params` empty and `function` false) or a function.
#[derive(Clone, Debug)]
pub struct Binding {
    /// Where the bound name is written.
    pub pos: Pos,
    /// The bound name.
    pub name: String,
    /// Whether it is a function (`let f(x) = …`), even one without parameters.
    pub function: bool,
    /// The function's parameters, in order.
    pub params: Vec<String>,
    /// The expression bound.
    pub body: Expr,
}

/// A statement of a model file.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// `let a = … and b = …`, or with `rec` the least fixed point of the bindings together.
    Let {
        /// `let rec`: the bindings may refer to each other (and themselves).
        rec: bool,
        /// The bindings joined by `and`.
        bindings: Vec<Binding>,
    },
    /// `include "file.cat"`: the file's statements, read in place.
    Include {
        /// Where the statement is.
        pos: Pos,
        /// The file name as written.
        file: String,
    },
    /// A check (`acyclic`, `irreflexive`, `empty`) or a `flag`.
    Check {
        /// Where the statement is.
        pos: Pos,
        /// Which of cat's three conditions it tests.
        kind: CheckKind,
        /// `~acyclic …`: the check passes when the condition fails.
        negated: bool,
        /// `flag …`: reported, never a consistency failure.
        flag: bool,
        /// The relation the condition is tested on.
        expr: Expr,
        /// The name after `as`, if any.
        name: Option<String>,
    },
}

/// A parsed file: its optional title, the model options after it and its statements.
#[derive(Clone, Debug)]
pub struct File {
    /// The quoted string the file starts with, if any.
    pub title: Option<String>,
    /// The model options written after the title.
    pub options: Vec<ModelOption>,
    /// The statements, in order.
    pub stmts: Vec<Stmt>,
}

/// A model option, written after the title as herd7's (`withinit`, `withoutco`, …) are.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ModelOption {
    /// `withoutthinair`: the model has no No-Thin-Air axiom (dependencies need not order
    /// anything), yet its executions take no value out of thin air: a read on a cycle of
    /// reads-from and data flow takes only values the program's writes produce, never one the
    /// cycle alone justifies.
    WithoutThinAir,
}

/// The model options by name.
const MODEL_OPTIONS: &[(&str, ModelOption)] = &[("withoutthinair", ModelOption::WithoutThinAir)];

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Str(String),
    Zero,
    Bar,
    Amp,
    Backslash,
    Semi,
    Star,
    Plus,
    Question,
    Tilde,
    HatInv,
    HatPlus,
    HatStar,
    LParen,
    RParen,
    LBrack,
    RBrack,
    Eq,
    Comma,
    Eof,
}

const KEYWORDS: [&str; 11] = [
    "let",
    "rec",
    "and",
    "include",
    "acyclic",
    "irreflexive",
    "empty",
    "as",
    "flag",
    "show",
    "unshow",
];

fn describe(t: &Tok) -> String {
    match t {
        Tok::Ident(s) => format!("`{s}`"),
        Tok::Str(s) => format!("\"{s}\""),
        Tok::Zero => "`0`".into(),
        Tok::Bar => "`|`".into(),
        Tok::Amp => "`&`".into(),
        Tok::Backslash => "`\\`".into(),
        Tok::Semi => "`;`".into(),
        Tok::Star => "`*`".into(),
        Tok::Plus => "`+`".into(),
        Tok::Question => "`?`".into(),
        Tok::Tilde => "`~`".into(),
        Tok::HatInv => "`^-1`".into(),
        Tok::HatPlus => "`^+`".into(),
        Tok::HatStar => "`^*`".into(),
        Tok::LParen => "`(`".into(),
        Tok::RParen => "`)`".into(),
        Tok::LBrack => "`[`".into(),
        Tok::RBrack => "`]`".into(),
        Tok::Eq => "`=`".into(),
        Tok::Comma => "`,`".into(),
        Tok::Eof => "the end of the file".into(),
    }
}

fn lex(file: &str, src: &str) -> Result<Vec<(Tok, Pos)>, CatError> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line, mut col) = (0, 1, 1);
    let err = |pos: Pos, message: String| CatError::at(file, pos, message);
    // Advances over one character, keeping line and column.
    let step = |i: &mut usize, line: &mut usize, col: &mut usize| {
        if chars[*i] == '\n' {
            *line += 1;
            *col = 1;
        } else {
            *col += 1;
        }
        *i += 1;
    };
    while i < chars.len() {
        let c = chars[i];
        let pos = Pos { line, col };
        let next = chars.get(i + 1).copied();
        if c.is_whitespace() {
            step(&mut i, &mut line, &mut col);
            continue;
        }
        if c == '(' && next == Some('*') {
            let mut depth = 0;
            loop {
                if i >= chars.len() {
                    return Err(err(pos, "unterminated comment `(*`".into()));
                }
                if chars[i] == '(' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    step(&mut i, &mut line, &mut col);
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&')') {
                    depth -= 1;
                    step(&mut i, &mut line, &mut col);
                    if depth == 0 {
                        step(&mut i, &mut line, &mut col);
                        break;
                    }
                }
                step(&mut i, &mut line, &mut col);
            }
            continue;
        }
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                step(&mut i, &mut line, &mut col);
            }
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let mut s = String::new();
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric()
                    || chars[i] == '_'
                    || (chars[i] == '-'
                        && chars
                            .get(i + 1)
                            .is_some_and(|d| d.is_ascii_alphanumeric() || *d == '_')))
            {
                s.push(chars[i]);
                step(&mut i, &mut line, &mut col);
            }
            out.push((Tok::Ident(s), pos));
            continue;
        }
        if c == '"' {
            let mut s = String::new();
            step(&mut i, &mut line, &mut col);
            loop {
                match chars.get(i) {
                    None | Some('\n') => {
                        return Err(err(pos, "unterminated string".into()));
                    }
                    Some('"') => {
                        step(&mut i, &mut line, &mut col);
                        break;
                    }
                    Some(&ch) => {
                        s.push(ch);
                        step(&mut i, &mut line, &mut col);
                    }
                }
            }
            out.push((Tok::Str(s), pos));
            continue;
        }
        let (tok, len) = match (c, next) {
            ('^', Some('-')) if chars.get(i + 2) == Some(&'1') => (Tok::HatInv, 3),
            ('^', Some('+')) => (Tok::HatPlus, 2),
            ('^', Some('*')) => (Tok::HatStar, 2),
            ('0', _) => (Tok::Zero, 1),
            ('|', _) => (Tok::Bar, 1),
            ('&', _) => (Tok::Amp, 1),
            ('\\', _) => (Tok::Backslash, 1),
            (';', _) => (Tok::Semi, 1),
            ('*', _) => (Tok::Star, 1),
            ('+', _) => (Tok::Plus, 1),
            ('?', _) => (Tok::Question, 1),
            ('~', _) => (Tok::Tilde, 1),
            ('(', _) => (Tok::LParen, 1),
            (')', _) => (Tok::RParen, 1),
            ('[', _) => (Tok::LBrack, 1),
            (']', _) => (Tok::RBrack, 1),
            ('=', _) => (Tok::Eq, 1),
            (',', _) => (Tok::Comma, 1),
            _ => return Err(err(pos, format!("unexpected character `{c}`"))),
        };
        for _ in 0..len {
            step(&mut i, &mut line, &mut col);
        }
        out.push((tok, pos));
    }
    out.push((Tok::Eof, Pos { line, col }));
    Ok(out)
}

/// How deeply an expression may nest: parentheses, brackets, calls and prefix `~` each open one
/// level, and so does each operator of a chain (`a | b | c` is a tree two levels deep). The
/// compiler and the evaluator walk expressions recursively; this bound keeps their stack
/// bounded on hostile input (a 10,000-deep parenthesis or a 100,000-term union) and is far
/// above what a model needs (the built-in ones stay under 40).
pub const MAX_DEPTH: usize = 500;

struct Parser<'a> {
    file: &'a str,
    toks: Vec<(Tok, Pos)>,
    at: usize,
    /// The nesting of the expression being parsed (see [`MAX_DEPTH`]).
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> &Tok {
        &self.toks[self.at].0
    }

    fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.at + k).min(self.toks.len() - 1)].0
    }

    fn pos(&self) -> Pos {
        self.toks[self.at].1
    }

    fn bump(&mut self) -> (Tok, Pos) {
        let t = self.toks[self.at].clone();
        if self.at + 1 < self.toks.len() {
            self.at += 1;
        }
        t
    }

    fn error<T>(&self, message: String) -> Result<T, CatError> {
        Err(CatError::at(self.file, self.pos(), message))
    }

    /// Opens one more level of nesting at the current token, or fails past [`MAX_DEPTH`].
    fn enter(&mut self) -> Result<(), CatError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.error(format!(
                "expression nested more than {MAX_DEPTH} levels deep (parentheses, calls and chained operators count)"
            ));
        }
        Ok(())
    }

    fn is_keyword(&self, word: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if s == word)
    }

    fn expect(&mut self, t: Tok) -> Result<Pos, CatError> {
        if *self.peek() == t {
            Ok(self.bump().1)
        } else {
            self.error(format!(
                "expected {}, found {}",
                describe(&t),
                describe(self.peek())
            ))
        }
    }

    /// A name that is not a keyword.
    fn ident(&mut self, what: &str) -> Result<(String, Pos), CatError> {
        match self.peek().clone() {
            Tok::Ident(s) if !KEYWORDS.contains(&s.as_str()) => {
                let pos = self.bump().1;
                Ok((s, pos))
            }
            t => self.error(format!("expected {what}, found {}", describe(&t))),
        }
    }

    fn file(&mut self) -> Result<File, CatError> {
        let title = match self.peek().clone() {
            Tok::Str(s) => {
                self.bump();
                Some(s)
            }
            _ => None,
        };
        let mut options = Vec::new();
        while title.is_some() {
            let option = match self.peek() {
                Tok::Ident(word) => MODEL_OPTIONS.iter().find(|(name, _)| name == word),
                _ => None,
            };
            let Some(&(_, option)) = option else {
                break;
            };
            self.bump();
            options.push(option);
        }
        let mut stmts = Vec::new();
        while *self.peek() != Tok::Eof {
            if let Some(s) = self.stmt()? {
                stmts.push(s);
            }
        }
        Ok(File {
            title,
            options,
            stmts,
        })
    }

    fn stmt(&mut self) -> Result<Option<Stmt>, CatError> {
        let pos = self.pos();
        let word = match self.peek() {
            Tok::Ident(s) => s.clone(),
            Tok::Tilde => String::new(),
            t => {
                return self.error(format!(
                    "expected a statement (`let`, `include`, a check), found {}",
                    describe(t)
                ))
            }
        };
        match word.as_str() {
            "let" => {
                self.bump();
                let rec = self.is_keyword("rec");
                if rec {
                    self.bump();
                }
                let mut bindings = vec![self.binding()?];
                while self.is_keyword("and") {
                    self.bump();
                    bindings.push(self.binding()?);
                }
                Ok(Some(Stmt::Let { rec, bindings }))
            }
            "include" => {
                self.bump();
                match self.bump() {
                    (Tok::Str(file), _) => Ok(Some(Stmt::Include { pos, file })),
                    (t, p) => Err(CatError::at(
                        self.file,
                        p,
                        format!("expected a file name in quotes, found {}", describe(&t)),
                    )),
                }
            }
            "show" | "unshow" => {
                // Display directives: `show e [as name], …` / `unshow name, …`.
                self.bump();
                loop {
                    self.expr()?;
                    if self.is_keyword("as") {
                        self.bump();
                        self.ident("a name")?;
                    }
                    if *self.peek() != Tok::Comma {
                        break;
                    }
                    self.bump();
                }
                Ok(None)
            }
            _ => {
                let flag = self.is_keyword("flag");
                if flag {
                    self.bump();
                }
                let negated = *self.peek() == Tok::Tilde;
                if negated {
                    self.bump();
                }
                let kind = match self.peek() {
                    Tok::Ident(s) if s == "acyclic" => CheckKind::Acyclic,
                    Tok::Ident(s) if s == "irreflexive" => CheckKind::Irreflexive,
                    Tok::Ident(s) if s == "empty" => CheckKind::Empty,
                    t => {
                        return self.error(format!(
                            "expected a statement (`let`, `include`, `acyclic`, `irreflexive`, `empty`, `flag`), found {}",
                            describe(t)
                        ))
                    }
                };
                self.bump();
                let expr = self.expr()?;
                let name = if self.is_keyword("as") {
                    self.bump();
                    Some(self.ident("a name after `as`")?.0)
                } else {
                    None
                };
                Ok(Some(Stmt::Check {
                    pos,
                    kind,
                    negated,
                    flag,
                    expr,
                    name,
                }))
            }
        }
    }

    fn binding(&mut self) -> Result<Binding, CatError> {
        let (name, pos) = self.ident("a name to bind")?;
        let mut params = Vec::new();
        let function = *self.peek() == Tok::LParen;
        if function {
            self.bump();
            if *self.peek() != Tok::RParen {
                loop {
                    params.push(self.ident("a parameter name")?.0);
                    if *self.peek() != Tok::Comma {
                        break;
                    }
                    self.bump();
                }
            }
            self.expect(Tok::RParen)?;
        }
        self.expect(Tok::Eq)?;
        let body = self.expr()?;
        Ok(Binding {
            pos,
            name,
            function,
            params,
            body,
        })
    }

    fn expr(&mut self) -> Result<Expr, CatError> {
        self.binary(0)
    }

    /// Binary operators by level, loosest first; each level right-associative except `\`.
    fn binary(&mut self, level: usize) -> Result<Expr, CatError> {
        const LEVELS: [(Tok, BinOp); 5] = [
            (Tok::Bar, BinOp::Union),
            (Tok::Semi, BinOp::Seq),
            (Tok::Backslash, BinOp::Diff),
            (Tok::Amp, BinOp::Inter),
            (Tok::Star, BinOp::Cross),
        ];
        if level == LEVELS.len() {
            return self.prefix();
        }
        let (tok, op) = &LEVELS[level];
        let depth = self.depth;
        let mut lhs = self.binary(level + 1)?;
        while self.peek() == tok && (*op != BinOp::Cross || self.starts_operand(1)) {
            self.enter()?;
            self.bump();
            let rhs = self.binary(level + 1)?;
            lhs = Expr {
                pos: lhs.pos,
                kind: ExprKind::Binary(*op, Box::new(lhs), Box::new(rhs)),
            };
        }
        self.depth = depth;
        Ok(lhs)
    }

    /// Whether the token `k` ahead can start an operand (so a `*` before it is a product, not
    /// a closure).
    fn starts_operand(&self, k: usize) -> bool {
        match self.peek_at(k) {
            Tok::Ident(s) => !KEYWORDS.contains(&s.as_str()),
            Tok::Zero | Tok::LParen | Tok::LBrack | Tok::Tilde => true,
            _ => false,
        }
    }

    fn prefix(&mut self) -> Result<Expr, CatError> {
        if *self.peek() == Tok::Tilde {
            self.enter()?;
            let pos = self.bump().1;
            let e = self.prefix()?;
            self.depth -= 1;
            return Ok(Expr {
                pos,
                kind: ExprKind::Unary(UnOp::Complement, Box::new(e)),
            });
        }
        let depth = self.depth;
        let mut e = self.primary()?;
        loop {
            let op = match self.peek() {
                Tok::HatInv => UnOp::Inverse,
                Tok::HatPlus | Tok::Plus => UnOp::Plus,
                Tok::HatStar => UnOp::Star,
                Tok::Star if !self.starts_operand(1) => UnOp::Star,
                Tok::Question => UnOp::Opt,
                _ => break,
            };
            // Postfix operators nest too (`po^-1^-1…`), though this loop builds them.
            self.enter()?;
            self.bump();
            e = Expr {
                pos: e.pos,
                kind: ExprKind::Unary(op, Box::new(e)),
            };
        }
        self.depth = depth;
        Ok(e)
    }

    fn primary(&mut self) -> Result<Expr, CatError> {
        let call = matches!((self.peek(), self.peek_at(1)), (Tok::Ident(_), Tok::LParen));
        if call || matches!(self.peek(), Tok::LParen | Tok::LBrack) {
            self.enter()?;
            let e = self.nested();
            self.depth -= 1;
            return e;
        }
        self.nested()
    }

    /// A primary expression, its nesting level entered.
    fn nested(&mut self) -> Result<Expr, CatError> {
        let (tok, pos) = self.bump();
        let kind = match tok {
            Tok::Zero => ExprKind::Zero,
            Tok::LParen => {
                let e = self.expr()?;
                self.expect(Tok::RParen)?;
                return Ok(e);
            }
            Tok::LBrack => {
                let e = self.expr()?;
                self.expect(Tok::RBrack)?;
                ExprKind::Identity(Box::new(e))
            }
            Tok::Ident(s) if !KEYWORDS.contains(&s.as_str()) => {
                if *self.peek() == Tok::LParen {
                    self.bump();
                    let mut args = Vec::new();
                    if *self.peek() != Tok::RParen {
                        loop {
                            args.push(self.expr()?);
                            if *self.peek() != Tok::Comma {
                                break;
                            }
                            self.bump();
                        }
                    }
                    self.expect(Tok::RParen)?;
                    ExprKind::Call(s, args)
                } else {
                    ExprKind::Name(s)
                }
            }
            t => {
                return Err(CatError::at(
                    self.file,
                    pos,
                    format!("expected an expression, found {}", describe(&t)),
                ))
            }
        };
        Ok(Expr { pos, kind })
    }
}

/// Parses one model file; `file` names it in errors.
pub fn parse(file: &str, src: &str) -> Result<File, CatError> {
    let toks = lex(file, src)?;
    Parser {
        file,
        toks,
        at: 0,
        depth: 0,
    }
    .file()
}
