//! Hostile litmus tests, in every dialect.

use super::harness::*;
use std::path::Path;

pub(super) fn litmus_cases(d: &Path, cases: &mut Vec<(String, Vec<String>, Expect)>) {
    let mut file = |name: &str, text: String, at: &str| {
        let path = write(d, name, text);
        let expect = match at {
            ANSWER => Expect::Answer("Test"),
            _ => Expect::Error(format!("{path}{at}")),
        };
        cases.push((name.to_string(), vec!["litmus".into(), path], expect));
    };
    let head = "PTX h\n{\nx=0;\n}\n P0@cta 0,gpu 0 ;\n";
    file(
        "rows-200000.litmus",
        format!(
            "{head}{}exists (x == 1)\n",
            " st.relaxed.cta x, 1 ;\n".repeat(200_000)
        ),
        ":5:",
    );
    file(
        "errors-40000.litmus",
        format!(
            "PTX h\n{{\n{}}}\n P0@cta 0,gpu 0 ;\n st.relaxed.cta x0, 1 ;\nexists (x0 == 1)\n",
            (0..40_000).map(|i| format!("x{i}=;\n")).collect::<String>()
        ),
        ":3:",
    );
    file(
        "locations-200000.litmus",
        format!(
            "PTX h\n{{\n{}}}\n P0@cta 0,gpu 0 ;\n st.relaxed.cta x0, 1 ;\nexists (x0 == 1)\n",
            (0..200_000)
                .map(|i| format!("x{i}=0;\n"))
                .collect::<String>()
        ),
        ":4099:1: more than 4096 declarations",
    );
    file(
        "threads-20000.litmus",
        format!(
            "PTX h\n{{\nx=0;\n}}\n{} ;\n{} ;\nexists (x == 1)\n",
            (0..20_000)
                .map(|i| format!("P{i}@cta 0,gpu 0"))
                .collect::<Vec<_>>()
                .join(" | "),
            vec!["st.relaxed.cta x, 1"; 20_000].join(" | ")
        ),
        ":5:",
    );
    file(
        "long-line.litmus",
        format!(
            "{head} st.relaxed.cta x, 1 {};\nexists (x == 1)\n",
            "a".repeat(5_000_000)
        ),
        ":6:",
    );
    file(
        "deep-condition.litmus",
        format!(
            "{head} st.relaxed.cta x, 1 ;\nexists {}x == 1{}\n",
            "(".repeat(100_000),
            ")".repeat(100_000)
        ),
        ":7:",
    );
    file(
        "flat-condition.litmus",
        format!(
            "{head} st.relaxed.cta x, 1 ;\nexists ({})\n",
            vec!["x == 1"; 100_000].join(" /\\ ")
        ),
        ":7:",
    );
    file(
        "negation-chain.litmus",
        format!(
            "{head} st.relaxed.cta x, 1 ;\nexists ({}x == 1)\n",
            "~".repeat(100_000)
        ),
        ":7:",
    );
    file(
        "unterminated-comment.litmus",
        format!("(* {head}"),
        ":1:1: unterminated comment",
    );
    file(
        "deep-comments.litmus",
        format!("{head}{}\n", "(*".repeat(100_000)),
        ":6:1: unterminated comment",
    );
    file("empty.litmus", String::new(), ":1:");
    file("bom-only.litmus", "\u{feff}".into(), ":1:");
    file("header-only.litmus", "PTX h\n".into(), ":");
    file(
        "no-condition.litmus",
        format!("{head} st.relaxed.cta x, 1 ;\n"),
        ":",
    );
    file("huge-value.litmus", "PTX h\n{\nx=99999999999999999999999999;\n}\n P0@cta 0,gpu 0 ;\n st.relaxed.cta x, 1 ;\nexists (x == 1)\n".into(), ":3:");
    file("huge-thread-id.litmus", "PTX h\n{\nx=0;\n}\n P99999999999999999999@cta 0,gpu 0 ;\n st.relaxed.cta x, 1 ;\nexists (x == 1)\n".into(), ":5:");
    file("huge-cta.litmus", "PTX h\n{\nx=0;\n}\n P0@cta 99999999999999999999,gpu 0 ;\n st.relaxed.cta x, 1 ;\nexists (x == 1)\n".into(), ":5:");
    file(
        "huge-register.litmus",
        format!("{head} ld.relaxed.cta r99999999999999999999999, x ;\nexists (x == 1)\n"),
        ANSWER,
    );
    file(
        "unknown-instruction.litmus",
        format!("{head} bogus x, 1 ;\nexists (x == 1)\n"),
        ":6:2: unknown instruction",
    );
    file(
        "bad-utf8.litmus",
        String::from_utf8_lossy(b"PTX h\n").into_owned(),
        ":",
    );
    file(
        "nul-bytes.litmus",
        "PTX h\n{\nx=0;\n}\n P0@cta 0,gpu 0 ;\n st.relaxed.cta x, \0 ;\nexists (x == 1)\n"
            .to_string(),
        ":6:",
    );
    file(
        "duplicate-location.litmus",
        "PTX h\n{\nx=0;\nx=1;\n}\n P0@cta 0,gpu 0 ;\n st.relaxed.cta x, 1 ;\nexists (x == 1)\n"
            .into(),
        ":4:1: location `x` is declared twice",
    );
    file(
        "undeclared-register-in-condition.litmus",
        format!("{head} st.relaxed.cta x, 1 ;\nexists (P0:r9 == 1)\n"),
        ":7:",
    );
    file(
        "label-loop.litmus",
        format!("{head}LC00: ;\n st.relaxed.cta x, 1 ;\n bra LC00 ;\nexists (x == 1)\n"),
        ANSWER,
    );
    file(
        "missing-row-end.litmus",
        "PTX h\n{\nx=0;\n}\n P0@cta 0,gpu 0 ;\n st.relaxed.cta x, 1\nexists (x == 1)\n".into(),
        ":",
    );
    file("vulkan-deep-condition.litmus", format!("VULKAN h\n{{\nx=0;\n}}\n P0@sg 0, wg 0, qf 0 ;\n st.atom.rel.dv.sc0 x, 1 ;\nexists {}x == 1{}\n", "(".repeat(50_000), ")".repeat(50_000)), ":7:");
    file("vulkan-bad-scope.litmus", "VULKAN h\n{\nx=0;\n}\n P0@sg 0, wg 0, qf 0 ;\n st.atom.rel.zz.sc0 x, 1 ;\nexists (x == 1)\n".into(), ":6:");
    file("vulkan-bad-placement.litmus", "VULKAN h\n{\nx=0;\n}\n P0@sg 99999999999999999999, wg 0, qf 0 ;\n st.atom.rel.dv.sc0 x, 1 ;\nexists (x == 1)\n".into(), ":5:");
    file(
        "vulkan-rows-100000.litmus",
        format!(
            "VULKAN h\n{{\nx=0;\n}}\n P0@sg 0, wg 0, qf 0 ;\n{}exists (x == 1)\n",
            " st.atom.rel.dv.sc0 x, 1 ;\n".repeat(100_000)
        ),
        ":",
    );
    file(
        "vulkan-threads-5000.litmus",
        format!(
            "VULKAN h\n{{\nx=0;\n}}\n{} ;\n{} ;\nexists (x == 1)\n",
            (0..5000)
                .map(|i| format!("P{i}@sg 0, wg {i}, qf 0"))
                .collect::<Vec<_>>()
                .join(" | "),
            vec!["st.atom.rel.dv.sc0 x, 1"; 5000].join(" | ")
        ),
        ":5:",
    );
    let ocl = |body: &str| {
        format!("OPENCL h\n{{ [x] = 0; }}\nP0@wg 0, dev 0 (global atomic_int* x) {{\n{body}\n}}\nexists (x=1)\n")
    };
    file(
        "opencl-nested-ifs-5000.litmus",
        ocl(&format!(
            "{}atomic_store_explicit(x, 1, memory_order_relaxed, memory_scope_device);{}",
            "if (1) { ".repeat(5000),
            " }".repeat(5000)
        )),
        ":",
    );
    file(
        "opencl-deep-parens.litmus",
        ocl(&format!(
            "int r0 = {}1{};",
            "(".repeat(100_000),
            ")".repeat(100_000)
        )),
        ":",
    );
    file("opencl-unterminated-c-comment.litmus", ocl("/* open"), ":");
    file(
        "opencl-long-expression.litmus",
        ocl(&format!("int r0 = {};", vec!["1"; 100_000].join(" + "))),
        ":",
    );
    file(
        "opencl-unknown-function.litmus",
        ocl("atomic_lode_explicit(x, memory_order_relaxed);"),
        ":4:",
    );
    file(
        "opencl-statements-100000.litmus",
        ocl(
            &"atomic_store_explicit(x, 1, memory_order_relaxed, memory_scope_device);\n"
                .repeat(100_000),
        ),
        ":",
    );
}
