//! A minimal reader for `ar` archives (what an `.rlib` is).
//!
//! Layout: the magic `!<arch>\n`, then for each member a 60-byte header
//! (name 16, mtime 12, uid 6, gid 6, mode 8, size 10, the terminator "`\n"),
//! the member's bytes, and one `\n` of padding after odd-sized members.
//! GNU names end in `/`; names longer than 15 bytes live in the `//`
//! member and are referenced as `/OFFSET`; `/` and `/SYM64/` are symbol
//! tables. BSD archives write `#1/LEN` and put the name before the data.

use crate::util::{Error, Result, fail};

const MAGIC: &[u8] = b"!<arch>\n";
const HEADER_LEN: usize = 60;

/// One regular member of an archive (symbol tables and the long-name table
/// are not members in this sense).
#[derive(Debug, PartialEq, Eq)]
pub struct Member<'a> {
    pub name: String,
    pub data: &'a [u8],
}

/// Parses an archive; `what` names it in error messages.
pub fn members<'a>(archive: &'a [u8], what: &str) -> Result<Vec<Member<'a>>> {
    if archive.starts_with(b"!<thin>\n") {
        return fail(format!("{what}: thin archives are not supported"));
    }
    if !archive.starts_with(MAGIC) {
        return fail(format!("{what}: not an ar archive (no `!<arch>` magic)"));
    }
    let mut pos = MAGIC.len();
    let mut long_names: &[u8] = &[];
    let mut out = Vec::new();
    while pos < archive.len() {
        // Some writers pad the archive itself with newlines at the end.
        if archive[pos..].iter().all(|&b| b == b'\n') {
            break;
        }
        let Some(header) = archive.get(pos..pos + HEADER_LEN) else {
            return fail(format!("{what}: truncated member header at byte {pos}"));
        };
        if &header[58..60] != b"`\n" {
            return fail(format!("{what}: bad member header at byte {pos}"));
        }
        let raw_name = &header[0..16];
        let size = parse_decimal(&header[48..58])
            .ok_or_else(|| Error(format!("{what}: bad member size at byte {pos}")))?;
        let start = pos + HEADER_LEN;
        let Some(data) = archive.get(start..start + size) else {
            return fail(format!(
                "{what}: member at byte {pos} runs past the end of the file"
            ));
        };
        pos = start + size + (size & 1);

        let name_field = trim_spaces(raw_name);
        if name_field == b"/" || name_field == b"/SYM64/" || name_field == b"__.SYMDEF" {
            continue; // symbol table
        }
        if name_field == b"//" {
            long_names = data;
            continue;
        }
        let (name, data) = if let Some(len) = name_field.strip_prefix(b"#1/") {
            // BSD: the name is the first LEN bytes of the data.
            let len = parse_decimal(len)
                .filter(|&n| n <= data.len())
                .ok_or_else(|| Error(format!("{what}: bad BSD name at byte {pos}")))?;
            let name = &data[..len];
            let name = &name[..name.iter().position(|&b| b == 0).unwrap_or(len)];
            (name, &data[len..])
        } else if let Some(offset) = name_field.strip_prefix(b"/") {
            let offset = parse_decimal(offset)
                .filter(|&o| o < long_names.len())
                .ok_or_else(|| {
                    Error(format!(
                        "{what}: long-name reference {:?} outside the `//` table",
                        String::from_utf8_lossy(name_field)
                    ))
                })?;
            let rest = &long_names[offset..];
            let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
            let name = &rest[..end];
            (name.strip_suffix(b"/").unwrap_or(name), data)
        } else {
            (name_field.strip_suffix(b"/").unwrap_or(name_field), data)
        };
        out.push(Member {
            name: String::from_utf8_lossy(name).into_owned(),
            data,
        });
    }
    Ok(out)
}

fn trim_spaces(field: &[u8]) -> &[u8] {
    let end = field.iter().rposition(|&b| b != b' ').map_or(0, |i| i + 1);
    &field[..end]
}

fn parse_decimal(field: &[u8]) -> Option<usize> {
    let digits = trim_spaces(field);
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// Whether `data` is LLVM bitcode (raw, or in the wrapper header).
pub fn is_bitcode(data: &[u8]) -> bool {
    data.starts_with(b"BC\xC0\xDE") || data.starts_with(&[0xDE, 0xC0, 0x17, 0x0B])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(name: &str, size: usize) -> Vec<u8> {
        let h = format!("{name:<16}{:<12}{:<6}{:<6}{:<8}{size:<10}`\n", 0, 0, 0, 644);
        assert_eq!(h.len(), HEADER_LEN);
        h.into_bytes()
    }

    fn member(out: &mut Vec<u8>, name: &str, data: &[u8]) {
        out.extend(header(name, data.len()));
        out.extend(data);
        if data.len() % 2 == 1 {
            out.push(b'\n');
        }
    }

    #[test]
    fn gnu_archive_with_long_names_and_symbol_table() {
        let long = "core-0123456789abcdef.core.cgu.00.rcgu.o";
        let long2 = "compiler_builtins-0123.cgu.1.rcgu.o";
        let table = format!("{long}/\n{long2}/\n");
        let mut ar = MAGIC.to_vec();
        member(&mut ar, "/", b"\0\0\0\0");
        member(&mut ar, "//", table.as_bytes());
        member(&mut ar, "/0", b"BC\xC0\xDEodd");
        member(&mut ar, &format!("/{}", long.len() + 2), b"BC\xC0\xDE");
        member(&mut ar, "lib.rmeta/", b"rust");
        let got = members(&ar, "test").unwrap();
        let names: Vec<_> = got.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, [long, long2, "lib.rmeta"]);
        assert_eq!(got[0].data, b"BC\xC0\xDEodd");
        assert!(is_bitcode(got[0].data) && is_bitcode(got[1].data) && !is_bitcode(got[2].data));
    }

    #[test]
    fn bsd_names() {
        let mut ar = MAGIC.to_vec();
        member(&mut ar, "#1/12", b"a-long-name.BC\xC0\xDE");
        let got = members(&ar, "test").unwrap();
        assert_eq!(
            got,
            [Member {
                name: "a-long-name.".into(),
                data: b"BC\xC0\xDE"
            }]
        );
    }

    #[test]
    fn errors_are_reported_not_panics() {
        assert!(
            members(b"hello", "x")
                .unwrap_err()
                .0
                .contains("not an ar archive")
        );
        let mut ar = MAGIC.to_vec();
        ar.extend(header("a.o/", 100));
        assert!(members(&ar, "x").unwrap_err().0.contains("past the end"));
        let mut ar = MAGIC.to_vec();
        member(&mut ar, "/7", b"x");
        assert!(members(&ar, "x").unwrap_err().0.contains("long-name"));
        let mut ar = MAGIC.to_vec();
        ar.extend(b"short");
        assert!(members(&ar, "x").unwrap_err().0.contains("truncated"));
    }
}
