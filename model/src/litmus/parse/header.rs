//! The header (`PTX NAME`, herd's quoted comment lines) and the initial state: the `{ }` block
//! of location and register declarations, Vulkan's `ssw` block, and the names and values in them.

use super::parser::{split_words, Parser, Piece, Result, MAX_DECLARATIONS};
use crate::litmus::ir::*;

impl<'a> Parser<'a> {
    /// `PTX NAME` (or `VULKAN NAME`: a Vulkan test) on the first non-blank line.
    pub(super) fn header(&mut self) -> Result<String> {
        self.skip_ws();
        let line_end = self
            .rest()
            .find('\n')
            .map_or(self.src.len(), |i| self.pos + i);
        let line = Piece {
            text: &self.src[self.pos..line_end],
            at: self.pos,
        }
        .trim();
        let mut words = line.text.split_whitespace();
        match words.next() {
            Some("PTX") | Some("ptx") => {}
            Some(word) if word.eq_ignore_ascii_case("vulkan") => self.vulkan = true,
            Some(word) if word.eq_ignore_ascii_case("opencl") => self.opencl = true,
            Some(_) => {
                return self.err(
                    line.at,
                    "expected `PTX <name>`, `VULKAN <name>` or `OPENCL <name>` header",
                )
            }
            None => return self.err(self.pos, "empty file: expected `PTX <name>` header"),
        }
        // The name runs up to a quoted description on the same line (herd: `X86 SB "..."`),
        // which the description reader takes.
        let quote_at = line.text.find('"');
        let named = &line.text[..quote_at.unwrap_or(line.text.len())];
        let name: Vec<&str> = named.split_whitespace().skip(1).collect();
        if name.is_empty() {
            return self.err(
                line.at + line.text.len(),
                "missing test name after the dialect",
            );
        }
        self.pos = quote_at.map_or(line_end, |q| line.at + q);
        Ok(name.join(" "))
    }

    /// Quoted comment strings (which may span lines) before the init block.
    pub(super) fn comments(&mut self) -> Result<Vec<String>> {
        let mut out = Vec::new();
        loop {
            self.skip_ws();
            if !self.rest().starts_with('"') {
                return Ok(out);
            }
            let open = self.pos;
            // `\"` is a quote inside the string, `\\` a backslash.
            match crate::litmus::opencl::parse::string(self.rest()) {
                Some((text, len)) => {
                    out.push(text);
                    self.pos = open + len;
                }
                None => return self.err(open, "unterminated comment string"),
            }
        }
    }

    /// The text between `{` and `}`.
    pub(super) fn init_block(&mut self) -> Result<Piece<'a>> {
        self.skip_ws();
        if !self.rest().starts_with('{') {
            return self.err(self.pos, "expected `{` opening the initial state");
        }
        let open = self.pos;
        let Some(len) = self.rest().find('}') else {
            return self.err(open, "unterminated initial state: missing `}`");
        };
        let body = Piece {
            text: &self.src[open + 1..open + len],
            at: open + 1,
        };
        self.pos = open + len + 1;
        self.skip_ws();
        if self.rest().starts_with(';') {
            self.pos += 1;
        }
        Ok(body)
    }

    /// A Vulkan test's optional second block: `{ ssw 0 1; ssw 1 2; }`, each pair with where
    /// it was written.
    pub(super) fn ssw_block(&mut self) -> Result<Vec<(ThreadId, ThreadId, usize)>> {
        self.skip_ws();
        if !self.rest().starts_with('{') {
            return Ok(Vec::new());
        }
        let body = self.init_block()?;
        let mut out = Vec::new();
        for decl in body.split(';') {
            let decl = decl.trim();
            if decl.text.is_empty() {
                continue;
            }
            let words = split_words(decl);
            if words.len() != 3 || words[0].text != "ssw" {
                return self.err(
                    decl.at,
                    format!("expected `ssw <thread> <thread>`, found `{}`", decl.text),
                );
            }
            let thread = |p: Piece<'a>| -> Result<ThreadId> {
                match p.text.parse::<ThreadId>() {
                    Ok(t) if p.text.chars().all(|c| c.is_ascii_digit()) => Ok(t),
                    _ => self.err(
                        p.at,
                        format!("expected a thread number, found `{}`", p.text),
                    ),
                }
            };
            out.push((thread(words[1])?, thread(words[2])?, decl.at));
        }
        Ok(out)
    }

    /// The thread table runs from after the init block to the first line starting with
    /// `locations`, `filter` or the condition's quantifier.
    pub(super) fn thread_section(&mut self) -> Result<(Piece<'a>, usize)> {
        let start = self.pos;
        let mut offset = start;
        for line in self.rest().split_inclusive('\n') {
            let trimmed = line.trim_start();
            let word: String = trimmed
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '~' || *c == '_')
                .collect();
            // A label may be called `exists`; only the keyword itself starts the condition.
            let is_label = trimmed[word.len()..].trim_start().starts_with(':');
            if matches!(
                word.as_str(),
                "exists" | "~exists" | "forall" | "~" | "locations" | "filter"
            ) && !trimmed.contains('|')
                && !is_label
            {
                let at = offset + (line.len() - trimmed.len());
                return Ok((
                    Piece {
                        text: &self.src[start..at],
                        at: start,
                    },
                    at,
                ));
            }
            offset += line.len();
        }
        self.err(
            self.src.len(),
            "missing final condition (`exists`, `~exists` or `forall`)",
        )
    }

    /// Fills `locations` and `regs`; returns where each register initialisation was written.
    pub(super) fn declarations(
        &self,
        init: &Piece<'a>,
        locations: &mut Vec<Location>,
        regs: &mut Vec<RegInit>,
    ) -> Result<Vec<usize>> {
        let mut reg_at = Vec::new();
        // `y @ generic aliases x` keeps its textual place; its target may be declared later.
        let mut targets = Vec::new();
        for decl in init.split(';') {
            // Each declaration stands alone: a bad one is noted and the others still read.
            let mut one = || -> Result<()> {
                let decl = decl.trim();
                if decl.text.is_empty() {
                    return Ok(());
                }
                if locations.len() + regs.len() >= MAX_DECLARATIONS {
                    return self.err(
                        decl.at,
                        format!("more than {MAX_DECLARATIONS} declarations in the initial state"),
                    );
                }
                if let Some(at_sign) = decl.text.find('@') {
                    let lhs = Piece {
                        text: &decl.text[..at_sign],
                        at: decl.at,
                    }
                    .trim();
                    let rhs = Piece {
                        text: &decl.text[at_sign + 1..],
                        at: decl.at + at_sign + 1,
                    }
                    .trim();
                    let words: Vec<Piece> = split_words(rhs);
                    if words.first().is_some_and(|w| w.text == "shared") {
                        let (name, shared, init) = self.shared_declaration(lhs, rhs)?;
                        if locations.iter().any(|l| l.name == name) {
                            return self
                                .err(lhs.at, format!("location `{name}` is declared twice"));
                        }
                        locations.push(Location {
                            name,
                            kind: LocationKind::Plain { init },
                            span: self.span(lhs.at),
                            shared: Some(shared),
                        });
                        return Ok(());
                    }
                    if words.len() != 3 || words[1].text != "aliases" {
                        return self.err(rhs.at, "expected `<name> @ <proxy> aliases <location>`");
                    }
                    let Some(proxy) =
                        Proxy::from_name(words[0].text).filter(|p| *p != Proxy::Async)
                    else {
                        return self.err(
                            words[0].at,
                            format!(
                                "unknown proxy `{}` (generic, surface, texture, constant)",
                                words[0].text
                            ),
                        );
                    };
                    let name = self.identifier(lhs, "alias name")?;
                    if locations.iter().any(|l| l.name == name) {
                        return self.err(lhs.at, format!("location `{name}` is declared twice"));
                    }
                    targets.push((locations.len(), words[2]));
                    locations.push(Location {
                        name,
                        kind: LocationKind::Alias {
                            proxy,
                            of: usize::MAX,
                        },
                        span: self.span(lhs.at),
                        shared: None,
                    });
                    return Ok(());
                }
                if let (Some(k), None) = (decl.text.find(" aliases "), decl.text.find('=')) {
                    // `y aliases x` (Vulkan tests): another reference to x's location.
                    let lhs = Piece {
                        text: &decl.text[..k],
                        at: decl.at,
                    }
                    .trim();
                    let target = Piece {
                        text: &decl.text[k + " aliases ".len()..],
                        at: decl.at + k + " aliases ".len(),
                    }
                    .trim();
                    let name = self.identifier(lhs, "alias name")?;
                    if locations.iter().any(|l| l.name == name) {
                        return self.err(lhs.at, format!("location `{name}` is declared twice"));
                    }
                    targets.push((locations.len(), target));
                    locations.push(Location {
                        name,
                        kind: LocationKind::Alias {
                            proxy: Proxy::Generic,
                            of: usize::MAX,
                        },
                        span: self.span(lhs.at),
                        shared: None,
                    });
                    return Ok(());
                }
                let Some(eq) = decl.text.find('=') else {
                    return self.err(
                        decl.at,
                        format!("expected `name = value`, found `{}`", decl.text),
                    );
                };
                let lhs = Piece {
                    text: &decl.text[..eq],
                    at: decl.at,
                }
                .trim();
                let rhs = Piece {
                    text: &decl.text[eq + 1..],
                    at: decl.at + eq + 1,
                }
                .trim();
                let value = self.integer(rhs)?;
                if let Some((thread, reg)) = self.thread_reg(lhs)? {
                    if regs
                        .iter()
                        .any(|r: &RegInit| r.thread == thread && r.reg == reg)
                    {
                        return self.err(lhs.at, format!("P{thread}:{reg} is initialised twice"));
                    }
                    regs.push(RegInit { thread, reg, value });
                    reg_at.push(lhs.at);
                } else {
                    let name = self.identifier(lhs, "location name")?;
                    if locations.iter().any(|l| l.name == name) {
                        return self.err(lhs.at, format!("location `{name}` is declared twice"));
                    }
                    locations.push(Location {
                        name,
                        kind: LocationKind::Plain { init: value },
                        span: self.span(lhs.at),
                        shared: None,
                    });
                }
                Ok(())
            };
            if let Err(e) = one() {
                self.recover(e);
            }
        }
        for (alias, target) in targets {
            let Some(mut of) = locations.iter().position(|l| l.name == target.text) else {
                return self.err(
                    target.at,
                    format!("alias of undeclared location `{}`", target.text),
                );
            };
            // An alias of an alias names the same physical location; `of` keeps the direct
            // target, whose generic address a surface/texture/constant alias shares.
            let direct = of;
            for _ in 0..locations.len() {
                match locations[of].kind {
                    LocationKind::Alias { of: next, .. } if next != usize::MAX && next != alias => {
                        of = next
                    }
                    _ => break,
                }
            }
            if of == alias || !matches!(locations[of].kind, LocationKind::Plain { .. }) {
                return self.err(
                    target.at,
                    format!("alias `{}` does not lead to a plain location", target.text),
                );
            }
            if let LocationKind::Alias { of: slot, .. } = &mut locations[alias].kind {
                *slot = direct;
            }
        }
        Ok(reg_at)
    }

    /// `P1:r0` → (1, r0); anything else → None.
    pub(super) fn thread_reg(&self, p: Piece<'a>) -> Result<Option<(ThreadId, Reg)>> {
        let Some(colon) = p.text.find(':') else {
            return Ok(None);
        };
        let thread_part = Piece {
            text: &p.text[..colon],
            at: p.at,
        }
        .trim();
        let reg_part = Piece {
            text: &p.text[colon + 1..],
            at: p.at + colon + 1,
        }
        .trim();
        let thread = self.thread_id(thread_part)?;
        let reg = Reg(self.identifier(reg_part, "register")?);
        if !p.text[colon + 1..]
            .trim_start()
            .starts_with(|c: char| c.is_ascii_alphabetic())
        {
            return self.err(reg_part.at, "expected a register after `:`");
        }
        Ok(Some((thread, reg)))
    }

    pub(super) fn thread_id(&self, p: Piece<'a>) -> Result<ThreadId> {
        // Dartagnan writes `P1:r0`; herd7 also `1:r0`.
        let digits = p.text.strip_prefix('P').unwrap_or(p.text);
        match digits.parse::<usize>() {
            Ok(n) if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) => Ok(n),
            _ => self.err(
                p.at,
                format!("expected a thread name like `P0`, found `{}`", p.text),
            ),
        }
    }

    pub(super) fn identifier(&self, p: Piece<'a>, what: &str) -> Result<String> {
        let ok = p
            .text
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && p.text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_');
        if ok {
            Ok(p.text.to_string())
        } else if p.text.is_empty() {
            self.err(p.at, format!("missing {what}"))
        } else {
            self.err(p.at, format!("expected a {what}, found `{}`", p.text))
        }
    }

    pub(super) fn integer(&self, p: Piece<'a>) -> Result<Value> {
        match p.text.parse::<Value>() {
            Ok(v) => Ok(v),
            Err(_) if p.text.is_empty() => self.err(p.at, "missing value"),
            Err(_) => self.err(p.at, format!("expected an integer, found `{}`", p.text)),
        }
    }
}
