//! Comments as blanks: herd's nesting `(* *)` comments, and C's `/* */` and `//` for OpenCL
//! tests, turned into spaces so that byte offsets, lines and columns stay those of the file.

/// `src` with every herd comment `(* ... *)` (nested ones included) turned into spaces, line
/// breaks kept, so that byte offsets, lines and columns stay those of the file. Quoted strings
/// (Dartagnan's comment lines) are left alone. `Err` holds the offset of an unclosed `(*`.
pub(super) fn blank_comments(src: &str) -> std::result::Result<String, usize> {
    let bytes = src.as_bytes();
    let mut out = bytes.to_vec();
    let (mut depth, mut opened, mut in_string) = (0usize, 0usize, false);
    let mut i = 0;
    while i < bytes.len() {
        let two = &bytes[i..(i + 2).min(bytes.len())];
        if depth == 0 && bytes[i] == b'"' {
            in_string = !in_string;
        } else if !in_string && two == b"(*" {
            if depth == 0 {
                opened = i;
            }
            depth += 1;
            out[i] = b' ';
            out[i + 1] = b' ';
            i += 2;
            continue;
        } else if depth > 0 && two == b"*)" {
            depth -= 1;
            out[i] = b' ';
            out[i + 1] = b' ';
            i += 2;
            continue;
        }
        if depth > 0 && bytes[i] != b'\n' {
            out[i] = b' ';
        }
        i += 1;
    }
    if depth > 0 {
        return Err(opened);
    }
    // Only whole UTF-8 sequences inside comments were replaced, byte by byte, by spaces.
    Ok(String::from_utf8(out).expect("blanking comments keeps UTF-8"))
}

/// `src` with the comments of an OpenCL C test turned into spaces: herd's `(* *)` outside
/// braces (before the kernels and in the tail), and C's `//` and `/* */` anywhere. `Err` holds
/// the offset of an unclosed comment.
pub(super) fn blank_c_comments(src: &str) -> std::result::Result<String, usize> {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let (mut i, mut depth) = (0, 0usize);
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    while i < b.len() {
        let rest = &b[i..];
        let close = if rest.starts_with(b"//") {
            Some(rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len()))
        } else if rest.starts_with(b"/*") {
            Some(find(rest, b"*/").ok_or(i)? + 2)
        } else if depth == 0 && rest.starts_with(b"(*") {
            Some(find(rest, b"*)").ok_or(i)? + 2)
        } else {
            None
        };
        match close {
            Some(len) => {
                blank(&mut out, i, i + len);
                i += len;
            }
            None => {
                match b[i] {
                    b'{' => depth += 1,
                    b'}' => depth = depth.saturating_sub(1),
                    _ => {}
                }
                i += 1;
            }
        }
    }
    Ok(String::from_utf8(out).expect("blanking comments keeps UTF-8"))
}

/// The offset of the first `needle` in `hay` (after its first two bytes, the opener).
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    (2..hay.len().saturating_sub(needle.len() - 1)).find(|&k| hay[k..].starts_with(needle))
}
