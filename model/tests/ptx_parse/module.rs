//! Module directives: `.version`, `.target`, `.address_size`, `.file`, `.section`, `.pragma`
//! and linkages.

use super::common::*;
use scopecheck_model::ptx::ast::*;

#[test]
fn module_header_directives() {
    let m = ok(
        ".version 8.7\n.target sm_90a, texmode_independent, debug\n.address_size 32\n\
                .file 1 \"/tmp/a.cu\"\n.file 2 \"b.h\", 1700000000, 1234\n",
    );
    assert_eq!(m.version, Some((8, 7)));
    assert_eq!(m.target, ["sm_90a", "texmode_independent", "debug"]);
    assert_eq!(m.address_size, Some(32));
    assert_eq!(m.files[&1], "/tmp/a.cu");
    assert_eq!(m.files[&2], "b.h");
    assert!(m.items.is_empty());
    round_trip(".version 7.10\n.target sm_80\n.address_size 64\n", "t");
    assert_eq!(ok(".version 7.10").version, Some((7, 10)));
}

#[test]
fn address_size_is_32_or_64() {
    fails_at(".address_size 48", 1, 15, "32 or 64");
}

#[test]
fn section_text_is_kept_verbatim() {
    let src = ".version 8.0\n.section .debug_str\n{\n$L__info_string0:\n.b8 95,90,0 // }\n\
               .b8 \"}\" /* { */ { .b8 1 }\n}\n.section .debug_abbrev { }\n";
    let m = round_trip(src, "t");
    let Item::Section(s) = &m.items[0] else {
        panic!("{m:?}")
    };
    assert_eq!(s.name, "debug_str");
    assert_eq!(
        s.text,
        "\n$L__info_string0:\n.b8 95,90,0 // }\n.b8 \"}\" /* { */ { .b8 1 }\n"
    );
    let Item::Section(s) = &m.items[1] else {
        panic!("{m:?}")
    };
    assert_eq!((s.name.as_str(), s.text.as_str()), ("debug_abbrev", " "));
    fails_at(
        ".section .debug_info\n{\n.b8 1\n",
        2,
        1,
        "unterminated block",
    );
}

#[test]
fn module_pragma() {
    let m = round_trip(".pragma \"nounroll\";\n", "t");
    assert!(matches!(&m.items[0], Item::Pragma { text, .. } if text == "nounroll"));
}

#[test]
fn linkages_on_variables_and_functions() {
    let m = round_trip(
        ".visible .global .u32 a;\n.extern .shared .align 16 .b8 dyn[];\n\
         .weak .const .f32 c = 0f3F800000;\n.common .global .u64 d;\n\
         .extern .func (.param .b32 r) vprintf (.param .b64 f, .param .b64 a);\n\
         .weak .func w ()\n{\nret;\n}\n",
        "t",
    );
    let link: Vec<Option<Linkage>> = m
        .items
        .iter()
        .map(|i| match i {
            Item::Var(d) => d.linkage,
            Item::Func(f) => f.linkage,
            _ => None,
        })
        .collect();
    use Linkage::*;
    assert_eq!(
        link,
        [
            Some(Visible),
            Some(Extern),
            Some(Weak),
            Some(Common),
            Some(Extern),
            Some(Weak)
        ]
    );
    let Item::Func(f) = &m.items[4] else { panic!() };
    assert!(f.body.is_none());
    assert_eq!(f.returns.len(), 1);
    assert_eq!(f.params.len(), 2);
}
