//! The DSL's lexer: input text to [`Token`]s, each with the byte offset of its
//! first character.
//!
//! Lexing never fails as such: a character or literal that is no token becomes
//! one [`TokenKind::Invalid`] token carrying its error, followed by the end
//! token. The parser reports it when it reaches it, so errors come out in
//! reading order (a bad character late in the input does not hide a syntax
//! error before it).

use crate::entity::Entity;

/// What a token is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum TokenKind {
    /// `[A-Za-z_][A-Za-z0-9_]*` segments joined by `::` (not `_` alone).
    Name,
    /// `_` alone: any entity.
    Any,
    /// `*`: the wildcard.
    Wildcard,
    /// `$name`; the token's text includes the `$`.
    Variable,
    /// `#bits`: an entity given by its bits.
    EntityLiteral(Entity),
    /// `,`
    Comma,
    /// `(`
    OpenParen,
    /// `)`
    CloseParen,
    /// `[`
    OpenBracket,
    /// `]`
    CloseBracket,
    /// `!`
    Not,
    /// `?`
    Optional,
    /// `||`
    Or,
    /// `|` (between a source and its traversal flags).
    Pipe,
    /// A character or literal that is no token; the message says why.
    Invalid(String),
    /// The end of the input (offset: the input's length).
    End,
}

/// One token: its kind, its text and where it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Token<'a> {
    pub(super) kind: TokenKind,
    /// The token's text as written (empty for the end).
    pub(super) text: &'a str,
    /// The byte offset of its first character.
    pub(super) offset: usize,
}

impl Token<'_> {
    /// The token as an error message names it: "`text`" or "end of input".
    pub(super) fn describe(&self) -> String {
        match self.kind {
            TokenKind::End => "end of input".to_string(),
            _ => format!("`{}`", self.text),
        }
    }

    /// Whether the token is the name `keyword` (`up`, `self`).
    pub(super) fn is_keyword(&self, keyword: &str) -> bool {
        self.kind == TokenKind::Name && self.text == keyword
    }
}

/// Whether `c` may start an identifier segment.
fn is_identifier_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

/// Whether `c` may continue an identifier segment.
fn is_identifier_continue(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The length in bytes of the identifier segment at the start of `text` (0 if none).
fn identifier_segment_len(text: &str) -> usize {
    let mut chars = text.char_indices();
    match chars.next() {
        Some((_, c)) if is_identifier_start(c) => {}
        _ => return 0,
    }
    chars.find(|&(_, c)| !is_identifier_continue(c)).map_or(text.len(), |(index, _)| index)
}

/// The length in bytes of the name (segments joined by `::`) at the start of
/// `text`; `Err(offset)` (relative to `text`) where a `::` is not followed by a
/// segment.
fn name_len(text: &str) -> Result<usize, usize> {
    let mut len = identifier_segment_len(text);
    while text[len..].starts_with("::") {
        let segment = identifier_segment_len(&text[len + 2..]);
        if segment == 0 {
            return Err(len + 2);
        }
        len += 2 + segment;
    }
    Ok(len)
}

/// Whether `text` is exactly one name token (segments joined by `::`), `_` included.
pub(super) fn is_name(text: &str) -> bool {
    !text.is_empty() && name_len(text) == Ok(text.len())
}

/// Splits `input` into tokens; the last is always [`TokenKind::End`], and an
/// [`TokenKind::Invalid`] token is always followed by it.
pub(super) fn tokenize(input: &str) -> Vec<Token<'_>> {
    let mut tokens = Vec::new();
    let mut offset = 0;
    loop {
        let rest = &input[offset..];
        let Some(c) = rest.chars().next() else {
            break;
        };
        if c.is_whitespace() {
            offset += c.len_utf8();
            continue;
        }
        let (kind, len) = lex_one(rest, c);
        let invalid = matches!(kind, TokenKind::Invalid(_));
        // An invalid token's offset is where the problem is (inside a literal or name).
        let token_offset = match &kind {
            TokenKind::Invalid(_) => offset + len,
            _ => offset,
        };
        let text = if invalid { &rest[len..len] } else { &rest[..len] };
        tokens.push(Token { kind, text, offset: token_offset });
        if invalid {
            break;
        }
        offset += len;
    }
    tokens.push(Token { kind: TokenKind::End, text: "", offset: input.len() });
    tokens
}

/// Lexes the token at the start of `rest`, whose first character is `c`.
/// Returns its kind and length; for an invalid token, the length is instead the
/// offset of the problem within `rest`.
fn lex_one(rest: &str, c: char) -> (TokenKind, usize) {
    let punctuation = match c {
        ',' => Some(TokenKind::Comma),
        '(' => Some(TokenKind::OpenParen),
        ')' => Some(TokenKind::CloseParen),
        '[' => Some(TokenKind::OpenBracket),
        ']' => Some(TokenKind::CloseBracket),
        '!' => Some(TokenKind::Not),
        '?' => Some(TokenKind::Optional),
        '*' => Some(TokenKind::Wildcard),
        _ => None,
    };
    if let Some(kind) = punctuation {
        return (kind, 1);
    }
    match c {
        '|' if rest.starts_with("||") => (TokenKind::Or, 2),
        '|' => (TokenKind::Pipe, 1),
        '$' => match identifier_segment_len(&rest[1..]) {
            0 => (TokenKind::Invalid("expected a variable name after `$`".to_string()), 0),
            len => ascii_name_end(rest, 1 + len).unwrap_or((TokenKind::Variable, 1 + len)),
        },
        '#' => lex_entity_literal(rest),
        c if is_identifier_start(c) => match name_len(rest) {
            Ok(1) if c == '_' => (TokenKind::Any, 1),
            Ok(len) => ascii_name_end(rest, len).unwrap_or((TokenKind::Name, len)),
            Err(at) => (TokenKind::Invalid("expected a name segment after `::`".to_string()), at),
        },
        c => (TokenKind::Invalid(format!("unexpected character `{}`", c.escape_debug())), 0),
    }
}

/// The invalid token for a name (or variable) of `len` bytes at the start of
/// `rest` that runs on into a non-ASCII character (`Größe`): the name is wrong
/// at that character, not where the lookup would fail. `None` if it ends cleanly.
fn ascii_name_end(rest: &str, len: usize) -> Option<(TokenKind, usize)> {
    let next = rest[len..].chars().next().filter(|c| !c.is_ascii() && !c.is_whitespace())?;
    Some((TokenKind::Invalid(format!("unexpected character `{}` (names are ASCII)", next.escape_debug())), len))
}

/// Lexes `#bits` at the start of `rest`.
fn lex_entity_literal(rest: &str) -> (TokenKind, usize) {
    let digits = rest[1..].bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return (TokenKind::Invalid("expected the decimal bits of an entity after `#`".to_string()), 0);
    }
    let literal = &rest[..1 + digits];
    let Ok(bits) = literal[1..].parse::<u64>() else {
        return (TokenKind::Invalid(format!("`{literal}` does not fit 64 bits")), 0);
    };
    match Entity::from_bits(bits) {
        Some(entity) => (TokenKind::EntityLiteral(entity), literal.len()),
        None => (TokenKind::Invalid(format!("`{literal}` is no entity id (index 0 or a pair)")), 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(input: &str) -> Vec<(TokenKind, &str, usize)> {
        tokenize(input).into_iter().map(|token| (token.kind, token.text, token.offset)).collect()
    }

    #[test]
    fn punctuation_names_and_offsets() {
        use TokenKind::*;
        assert_eq!(
            kinds(" [in] !a::B_1(up, $x) || ?_ , * |#4294967297"),
            vec![
                (OpenBracket, "[", 1),
                (Name, "in", 2),
                (CloseBracket, "]", 4),
                (Not, "!", 6),
                (Name, "a::B_1", 7),
                (OpenParen, "(", 13),
                (Name, "up", 14),
                (Comma, ",", 16),
                (Variable, "$x", 18),
                (CloseParen, ")", 20),
                (Or, "||", 22),
                (Optional, "?", 25),
                (Any, "_", 26),
                (Comma, ",", 28),
                (Wildcard, "*", 30),
                (Pipe, "|", 32),
                (EntityLiteral(Entity::from_raw(1, 1)), "#4294967297", 33),
                (End, "", 44),
            ]
        );
    }

    #[test]
    fn underscore_prefixed_names_are_names() {
        assert_eq!(kinds("_a")[0].0, TokenKind::Name);
        assert_eq!(kinds("_::a")[0].0, TokenKind::Name);
        assert_eq!(kinds("__")[0].0, TokenKind::Name);
    }

    #[test]
    fn invalid_tokens_end_the_stream_and_point_at_the_problem() {
        let cases = [
            ("a, é", 3),
            ("a::", 3),
            ("a::1", 3),
            ("$", 0),
            ("x $1", 2),
            ("#", 0),
            ("#0", 0),
            ("#x", 0),
            ("#99999999999999999999", 0),
            ("#9223372036854775809", 0), // the pair flag with index 1
            ("  \u{1F600}", 2),
            ("Größe", 2),
            ("$xé", 2),
        ];
        for (input, offset) in cases {
            let tokens = tokenize(input);
            let invalid = tokens.iter().position(|token| matches!(token.kind, TokenKind::Invalid(_)));
            let invalid = invalid.unwrap_or_else(|| panic!("{input:?} lexed without error"));
            assert_eq!(tokens[invalid].offset, offset, "{input:?}");
            assert_eq!(tokens.len(), invalid + 2, "{input:?}: the end follows the invalid token");
        }
    }

    #[test]
    fn names() {
        assert!(is_name("Position") && is_name("my_game::Position") && is_name("_"));
        assert!(!is_name("") && !is_name("a::") && !is_name("Foo<Bar>") && !is_name("1a") && !is_name("a b"));
    }
}
