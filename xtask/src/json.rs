//! A small JSON reader, enough for cargo's `--message-format=json` lines,
//! and the cargo runner that uses it.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use crate::util::{self, Context, fail};

#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Json>),
    Object(BTreeMap<String, Json>),
}

impl Json {
    /// `self[key]` for objects; `Null` otherwise or when absent.
    pub fn get(&self, key: &str) -> &Json {
        match self {
            Json::Object(map) => map.get(key).unwrap_or(&Json::Null),
            _ => &Json::Null,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The elements of an array; empty for anything else.
    pub fn items(&self) -> &[Json] {
        match self {
            Json::Array(items) => items,
            _ => &[],
        }
    }

    /// The string elements of an array.
    pub fn strings(&self) -> Vec<&str> {
        self.items().iter().filter_map(Json::as_str).collect()
    }
}

/// Parses one JSON document; the error says where it went wrong.
pub fn parse(text: &str) -> Result<Json, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        pos: 0,
    };
    let value = p.value(0)?;
    p.ws();
    if p.pos != p.s.len() {
        return Err(p.err("trailing characters"));
    }
    Ok(value)
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn err(&self, what: &str) -> String {
        format!("invalid JSON at byte {}: {what}", self.pos)
    }

    fn ws(&mut self) {
        while self.pos < self.s.len() && matches!(self.s[self.pos], b' ' | b'\t' | b'\n' | b'\r') {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn eat(&mut self, lit: &str) -> Result<(), String> {
        if self.s[self.pos..].starts_with(lit.as_bytes()) {
            self.pos += lit.len();
            Ok(())
        } else {
            Err(self.err(&format!("expected `{lit}`")))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, String> {
        if depth > 128 {
            return Err(self.err("nested too deeply"));
        }
        self.ws();
        match self.peek() {
            Some(b'{') => {
                self.pos += 1;
                let mut map = BTreeMap::new();
                self.ws();
                if self.peek() == Some(b'}') {
                    self.pos += 1;
                    return Ok(Json::Object(map));
                }
                loop {
                    self.ws();
                    let key = self.string()?;
                    self.ws();
                    self.eat(":")?;
                    let value = self.value(depth + 1)?;
                    map.insert(key, value);
                    self.ws();
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b'}') => {
                            self.pos += 1;
                            return Ok(Json::Object(map));
                        }
                        _ => return Err(self.err("expected `,` or `}`")),
                    }
                }
            }
            Some(b'[') => {
                self.pos += 1;
                let mut items = Vec::new();
                self.ws();
                if self.peek() == Some(b']') {
                    self.pos += 1;
                    return Ok(Json::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    self.ws();
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b']') => {
                            self.pos += 1;
                            return Ok(Json::Array(items));
                        }
                        _ => return Err(self.err("expected `,` or `]`")),
                    }
                }
            }
            Some(b'"') => Ok(Json::String(self.string()?)),
            Some(b't') => self.eat("true").map(|_| Json::Bool(true)),
            Some(b'f') => self.eat("false").map(|_| Json::Bool(false)),
            Some(b'n') => self.eat("null").map(|_| Json::Null),
            Some(b'-' | b'0'..=b'9') => {
                let start = self.pos;
                while let Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') = self.peek() {
                    self.pos += 1;
                }
                let text = std::str::from_utf8(&self.s[start..self.pos]).unwrap_or("");
                text.parse()
                    .map(Json::Number)
                    .map_err(|_| self.err("bad number"))
            }
            _ => Err(self.err("expected a value")),
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let digits = self
            .s
            .get(self.pos..self.pos + 4)
            .ok_or_else(|| self.err("short \\u escape"))?;
        let text = std::str::from_utf8(digits).map_err(|_| self.err("bad \\u escape"))?;
        let v = u32::from_str_radix(text, 16).map_err(|_| self.err("bad \\u escape"))?;
        self.pos += 4;
        Ok(v)
    }

    fn string(&mut self) -> Result<String, String> {
        self.eat("\"")?;
        let mut out = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(self.err("unterminated string"));
            };
            self.pos += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let Some(e) = self.peek() else {
                        return Err(self.err("unterminated escape"));
                    };
                    self.pos += 1;
                    let ch = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let hi = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&hi)
                                && self.s[self.pos..].starts_with(b"\\u")
                            {
                                self.pos += 2;
                                let lo = self.hex4()?;
                                0x10000 + ((hi - 0xD800) << 10) + (lo.wrapping_sub(0xDC00) & 0x3FF)
                            } else {
                                hi
                            };
                            char::from_u32(code).unwrap_or('\u{FFFD}')
                        }
                        _ => return Err(self.err("bad escape")),
                    };
                    let mut buf = [0; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                c => out.push(c),
            }
        }
        String::from_utf8(out).map_err(|_| self.err("string is not UTF-8"))
    }
}

/// The flag that makes cargo print the JSON messages [`cargo_artifacts`] reads.
pub const MESSAGE_FORMAT: &str = "--message-format=json-diagnostic-rendered-ansi";

/// Runs a cargo build whose arguments include [`MESSAGE_FORMAT`] and
/// returns its compiler-artifact messages (the compiler's diagnostics are
/// printed, rendered, to stderr).
pub fn cargo_artifacts(cmd: &mut Command) -> util::Result<Vec<Json>> {
    cmd.stdout(Stdio::piped()).stdin(Stdio::null());
    eprintln!("$ {}", util::show(cmd));
    let mut child = cmd
        .spawn()
        .context(|| format!("cannot start `{}`", util::show(cmd)))?;
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut found = Vec::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.context(|| "cannot read cargo's output".into())?;
        let Ok(msg) = parse(&line) else {
            println!("{line}");
            continue;
        };
        match msg.get("reason").as_str() {
            Some("compiler-message") => {
                if let Some(r) = msg.get("message").get("rendered").as_str() {
                    eprint!("{r}");
                }
            }
            Some("compiler-artifact") => found.push(msg),
            _ => {}
        }
    }
    let status = child.wait().context(|| "cannot wait for cargo".into())?;
    if !status.success() {
        return fail(format!("`{}` failed ({status})", util::show(cmd)));
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cargo_artifact_line() {
        let line = r#"{"reason":"compiler-artifact","package_id":"path+file:///w/host#ferrotile@0.1.0","target":{"kind":["lib"],"name":"ferrotile","test":true},"profile":{"test":true,"opt_level":"3"},"filenames":["/w/a b.rlib"],"executable":"/w/target/release/deps/ferrotile-0123","fresh":false,"n":-1.5e2,"u":"\u00e9\ud83d\ude00\n","e":null}"#;
        let v = parse(line).unwrap();
        assert_eq!(v.get("reason").as_str(), Some("compiler-artifact"));
        assert_eq!(v.get("target").get("kind").strings(), ["lib"]);
        assert_eq!(v.get("profile").get("test").as_bool(), Some(true));
        assert_eq!(v.get("filenames").strings(), ["/w/a b.rlib"]);
        assert_eq!(v.get("n"), &Json::Number(-150.0));
        assert_eq!(v.get("u").as_str(), Some("é😀\n"));
        assert_eq!(v.get("e"), &Json::Null);
        assert_eq!(v.get("missing"), &Json::Null);
    }

    #[test]
    fn errors() {
        for bad in [
            "",
            "{",
            "[1,",
            "{\"a\" 1}",
            "\"abc",
            "tru",
            "[1] x",
            "{\"a\":\"\\q\"}",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} should not parse");
        }
        assert_eq!(parse(" [ ] ").unwrap(), Json::Array(vec![]));
        assert_eq!(parse("{}").unwrap(), Json::Object(BTreeMap::new()));
    }
}
