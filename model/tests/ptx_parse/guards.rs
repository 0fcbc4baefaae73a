//! Guards: a 100,000-line file, and no panic on any mutated input.

use super::common::*;
use scopecheck_model::ptx::ast::*;
use scopecheck_model::ptx::parse;

#[test]
fn a_100000_line_file_parses() {
    let mut src = String::from(
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry big(\n.param .u64 p\n)\n{\n\
         .reg .b32 %r<100>;\n.reg .b64 %rd<100>;\n.reg .pred %p<4>;\n",
    );
    let mut lines = 10;
    let mut i = 0;
    while lines < 100_000 {
        src.push_str(&format!(
            "$L__BB0_{i}:\n\t.loc 1 {i} 3\n\tld.global.u32 %r{}, [%rd{}+{}];\n\
             \tsetp.ne.s32 %p1, %r{}, 0x{i:x};\n\t@!%p1 bra $L__BB0_{i};\n",
            i % 100,
            i % 100,
            4 * (i % 1000),
            i % 100
        ));
        lines += 5;
        i += 1;
    }
    src.push_str("\tret;\n}\n");
    let start = std::time::Instant::now();
    let m = ok(&src);
    eprintln!(
        "{} lines, {} bytes parsed in {:?}",
        src.lines().count(),
        src.len(),
        start.elapsed()
    );
    let Item::Func(f) = &m.items[0] else { panic!() };
    assert_eq!(f.body.as_ref().map(Vec::len), Some(3 + 5 * i + 1));
}

/// A small deterministic generator (64-bit LCG), so the mutations are the same on every run.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

#[test]
fn mutated_fixtures_never_panic() {
    // Bytes that matter to the grammar, swapped in at random places.
    const PIECES: &[&str] = &[
        "{", "}", "(", ")", "[", "]", ";", ",", ":", "@", "!", "|", "+", "-", "<", ">", "=", ".",
        "%", "$", "_", "\"", "/*", "//", "0x", "0f", "0d", "0b", "9", "U", "e", "\n", " ", "::",
        "é", "\0", ".loc", ".reg", ".section", "generic(",
    ];
    let mut rng = Lcg(0x5eed);
    let mut parsed = 0;
    let mut rejected = 0;
    for path in ptx_files() {
        let src = std::fs::read(&path).expect("readable fixture");
        for _ in 0..400 {
            let mut bytes = src.clone();
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(bytes.len() + 1);
                match rng.below(4) {
                    0 if at < bytes.len() => {
                        bytes.remove(at);
                    }
                    1 => bytes.truncate(at),
                    _ => {
                        let piece = PIECES[rng.below(PIECES.len())];
                        bytes.splice(at..at, piece.bytes());
                    }
                }
            }
            let text = String::from_utf8_lossy(&bytes);
            match parse(&text, "mutant.ptx") {
                Ok(m) => {
                    parsed += 1;
                    // What parses also round-trips.
                    let again =
                        parse(&m.to_string(), "printed.ptx").unwrap_or_else(|e| panic!("{e}\n{m}"));
                    assert_eq!(clear_positions(m), clear_positions(again));
                }
                Err(e) => {
                    rejected += 1;
                    assert!(e.pos.line >= 1 && e.pos.col >= 1, "{e}");
                    assert!(!e.to_string().contains('\n'), "{e}");
                }
            }
        }
    }
    eprintln!("mutants: {parsed} parsed, {rejected} rejected");
    assert!(rejected > 0);
}
