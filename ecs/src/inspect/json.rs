//! A minimal JSON writer for the inspection reports (no serde dependency).
//!
//! Values implement [`ToJson`]; objects are written by [`object`] from a list
//! of `(key, value)` fields, in the given order. Strings are escaped per RFC
//! 8259: `"` and `\` get a backslash, control characters below U+0020 become
//! `\n`, `\r`, `\t`, `\b`, `\f` or `\u00XX`; everything else is written as is
//! (JSON text is UTF-8). Entities are written as their handle string
//! (`"5v0"`), archetype ids as numbers.

use core::fmt::Write;

use crate::entity::{ArchetypeId, Entity};

/// A value that can be written as JSON.
pub(super) trait ToJson {
    /// Appends the JSON text of `self` to `out`.
    fn write_json(&self, out: &mut String);
}

/// Appends `text` as a JSON string literal (quoted and escaped).
pub(super) fn string(out: &mut String, text: &str) {
    out.reserve(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Appends a JSON object with `fields`, in order.
pub(super) fn object(out: &mut String, fields: &[(&str, &dyn ToJson)]) {
    out.push('{');
    for (position, (key, value)) in fields.iter().enumerate() {
        if position > 0 {
            out.push(',');
        }
        string(out, key);
        out.push(':');
        value.write_json(out);
    }
    out.push('}');
}

impl ToJson for str {
    fn write_json(&self, out: &mut String) {
        string(out, self);
    }
}

impl ToJson for String {
    fn write_json(&self, out: &mut String) {
        string(out, self);
    }
}

impl ToJson for &str {
    fn write_json(&self, out: &mut String) {
        string(out, self);
    }
}

impl ToJson for bool {
    fn write_json(&self, out: &mut String) {
        out.push_str(if *self { "true" } else { "false" });
    }
}

impl ToJson for usize {
    fn write_json(&self, out: &mut String) {
        let _ = write!(out, "{self}");
    }
}

impl ToJson for u64 {
    fn write_json(&self, out: &mut String) {
        let _ = write!(out, "{self}");
    }
}

impl ToJson for Entity {
    fn write_json(&self, out: &mut String) {
        string(out, &format!("{self:?}"));
    }
}

impl ToJson for ArchetypeId {
    fn write_json(&self, out: &mut String) {
        self.index().write_json(out);
    }
}

impl<T: ToJson> ToJson for Option<T> {
    fn write_json(&self, out: &mut String) {
        match self {
            Some(value) => value.write_json(out),
            None => out.push_str("null"),
        }
    }
}

impl<T: ToJson> ToJson for [T] {
    fn write_json(&self, out: &mut String) {
        out.push('[');
        for (position, value) in self.iter().enumerate() {
            if position > 0 {
                out.push(',');
            }
            value.write_json(out);
        }
        out.push(']');
    }
}

impl<T: ToJson> ToJson for Vec<T> {
    fn write_json(&self, out: &mut String) {
        self.as_slice().write_json(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(value: &dyn ToJson) -> String {
        let mut out = String::new();
        value.write_json(&mut out);
        out
    }

    #[test]
    fn strings_are_escaped() {
        assert_eq!(json(&"a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(json(&"line\nnext\ttab\r\u{8}\u{c}"), r#""line\nnext\ttab\r\b\f""#);
        assert_eq!(json(&"\u{1}\u{1f}"), r#""\u0001\u001f""#);
        assert_eq!(json(&"é ☃ \u{7f}"), "\"é ☃ \u{7f}\"");
    }

    #[test]
    fn objects_arrays_and_options() {
        let mut out = String::new();
        let list: Vec<usize> = vec![1, 2];
        let none: Option<String> = None;
        object(&mut out, &[("a", &list), ("b", &none), ("c", &true), ("d", &Some(7_u64))]);
        assert_eq!(out, r#"{"a":[1,2],"b":null,"c":true,"d":7}"#);
        assert_eq!(json(&Vec::<bool>::new()), "[]");
        assert_eq!(json(&Entity::from_raw(5, 2)), r#""5v2""#);
    }
}
