//! The DSL's parser: tokens to [`Term`]s, resolving names as it goes, then the
//! check that every variable is bound (see the module docs of `query::dsl` for
//! the grammar).

use smallvec::SmallVec;

use super::lexer::{Token, TokenKind, tokenize};
use super::{DslError, DslNames};
use crate::entity::Entity;
use crate::query::{Term, TermAccess, TermMatch, TermOper, TermRef, Traversal};
use crate::util::FxHashSet;

/// The relationship `up` alone walks.
const DEFAULT_TRAVERSAL: &str = "ChildOf";

/// Which position of a term a reference fills: decides what it may be.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// The component or relationship.
    First,
    /// A pair's target.
    Second,
    /// The entity the term matches on.
    Source,
}

/// Where a term looks: its source and traversal, as written on one alternative.
#[derive(Clone, PartialEq, Eq)]
struct Place {
    source: TermRef,
    traversal: Traversal,
}

impl Place {
    /// `$this`, no traversal: what a term without parentheses (or a `(Rel, Tgt)`) has.
    fn default_place() -> Place {
        Place { source: TermRef::This, traversal: Traversal::SelfOnly }
    }
}

/// One occurrence of a variable (`$this` excluded).
struct VariableUse {
    name: String,
    offset: usize,
    /// Whether this occurrence can bind it: in a required (`And`) term, or
    /// in the id of an optional one (which binds it where it matches and
    /// leaves it unbound where it does not).
    binds: bool,
}

struct Parser<'a, 'n, N: DslNames> {
    tokens: Vec<Token<'a>>,
    position: usize,
    names: &'n N,
    variables: Vec<VariableUse>,
    /// The operator of the term being parsed.
    term_oper: TermOper,
}

/// Parses `input` into terms (see `query::dsl::parse_query`).
pub(super) fn parse(input: &str, names: &impl DslNames) -> Result<Vec<Term>, DslError> {
    let mut parser =
        Parser { tokens: tokenize(input), position: 0, names, variables: Vec::new(), term_oper: TermOper::And };
    let terms = parser.query()?;
    parser.check_variables_bound()?;
    Ok(terms)
}

impl<'a, N: DslNames> Parser<'a, '_, N> {
    /// The next token; an invalid one is reported as its error.
    fn peek(&self) -> Result<&Token<'a>, DslError> {
        // `tokenize` ends with `End`, and `advance` never moves past it.
        let token = &self.tokens[self.position.min(self.tokens.len() - 1)];
        match &token.kind {
            TokenKind::Invalid(message) => Err(DslError::new(token.offset, message.clone())),
            _ => Ok(token),
        }
    }

    /// Takes the next token.
    fn advance(&mut self) -> Result<Token<'a>, DslError> {
        let token = self.peek()?.clone();
        if token.kind != TokenKind::End {
            self.position += 1;
        }
        Ok(token)
    }

    /// Whether the next token is `kind` (an invalid one is an error).
    fn next_is(&self, kind: &TokenKind) -> Result<bool, DslError> {
        Ok(self.peek()?.kind == *kind)
    }

    /// Takes the next token if it is `kind`.
    fn accept(&mut self, kind: &TokenKind) -> Result<Option<Token<'a>>, DslError> {
        if self.next_is(kind)? { self.advance().map(Some) } else { Ok(None) }
    }

    /// Takes the next token, which must be `kind` (written `spelled` in the message).
    fn expect(&mut self, kind: &TokenKind, spelled: &str) -> Result<Token<'a>, DslError> {
        let token = self.advance()?;
        if token.kind == *kind {
            Ok(token)
        } else {
            Err(DslError::new(token.offset, format!("expected `{spelled}`, found {}", token.describe())))
        }
    }

    /// `query = term { "," term }`
    fn query(&mut self) -> Result<Vec<Term>, DslError> {
        if self.next_is(&TokenKind::End)? {
            return Err(DslError::new(self.peek()?.offset, "empty query"));
        }
        let mut terms = vec![self.term()?];
        loop {
            let token = self.advance()?;
            match token.kind {
                TokenKind::End => return Ok(terms),
                TokenKind::Comma => terms.push(self.term()?),
                TokenKind::CloseParen => {
                    return Err(DslError::new(token.offset, "unbalanced `)`: expected `,` or end of input"));
                }
                _ => {
                    return Err(DslError::new(
                        token.offset,
                        format!("expected `,` or end of input, found {}", token.describe()),
                    ));
                }
            }
        }
    }

    /// `term = [ access ] [ "!" | "?" ] alternative { "||" alternative }`
    fn term(&mut self) -> Result<Term, DslError> {
        let access = self.access()?;
        let (oper, oper_token) = if let Some(token) = self.accept(&TokenKind::Not)? {
            (TermOper::Not, Some(token))
        } else if let Some(token) = self.accept(&TokenKind::Optional)? {
            (TermOper::Optional, Some(token))
        } else {
            (TermOper::And, None)
        };
        self.term_oper = oper;
        let (first, place, _) = self.alternative()?;
        let mut alternatives: SmallVec<[TermMatch; 1]> = smallvec::smallvec![first];
        while self.next_is(&TokenKind::Or)? {
            if let Some(token) = &oper_token {
                return Err(DslError::new(
                    token.offset,
                    format!("`{}` cannot prefix an or-chain (`!` and `?` inside an or-chain are errors)", token.text),
                ));
            }
            self.advance()?;
            let token = self.peek()?;
            if matches!(token.kind, TokenKind::Not | TokenKind::Optional) {
                return Err(DslError::new(
                    token.offset,
                    format!("`{}` inside an or-chain (`!` and `?` inside an or-chain are errors)", token.text),
                ));
            }
            let (alternative, alternative_place, place_offset) = self.alternative()?;
            if alternative_place != place {
                return Err(DslError::new(
                    place_offset,
                    "the alternatives of an or-chain share one source: write the same source (and traversal) on each",
                ));
            }
            alternatives.push(alternative);
        }
        Ok(Term { alternatives, source: place.source, oper, access, traversal: place.traversal })
    }

    /// `access = "[" ( "in" | "out" | "inout" | "none" ) "]"`
    fn access(&mut self) -> Result<TermAccess, DslError> {
        if self.accept(&TokenKind::OpenBracket)?.is_none() {
            return Ok(TermAccess::Default);
        }
        let token = self.advance()?;
        let access = match (&token.kind, token.text) {
            (TokenKind::Name, "in") => TermAccess::In,
            (TokenKind::Name, "out") => TermAccess::Out,
            (TokenKind::Name, "inout") => TermAccess::InOut,
            (TokenKind::Name, "none") => TermAccess::None,
            _ => {
                return Err(DslError::new(
                    token.offset,
                    format!("unknown access modifier {}: expected `in`, `out`, `inout` or `none`", token.describe()),
                ));
            }
        };
        self.expect(&TokenKind::CloseBracket, "]")?;
        Ok(access)
    }

    /// `alternative = "(" reference "," reference ")" | reference [ "(" place [ "," reference ] ")" ]`
    ///
    /// Returns the match, where it looks, and the offset to blame if that place
    /// differs from the or-chain's (its parentheses' content, or the alternative).
    fn alternative(&mut self) -> Result<(TermMatch, Place, usize), DslError> {
        let start = self.peek()?.offset;
        if let Some(open) = self.accept(&TokenKind::OpenParen)? {
            let first_offset = self.peek()?.offset;
            let first = self.reference(Role::First)?;
            refuse_wide_relationship(&first, first_offset)?;
            self.expect(&TokenKind::Comma, ",")?;
            let second = self.reference(Role::Second)?;
            self.close(&open)?;
            return Ok((TermMatch::pair(first, second), Place::default_place(), start));
        }
        let first = self.reference(Role::First)?;
        let Some(open) = self.accept(&TokenKind::OpenParen)? else {
            return Ok((TermMatch { first, second: None }, Place::default_place(), start));
        };
        let place_offset = self.peek()?.offset;
        let place = self.place()?;
        let second = match self.accept(&TokenKind::Comma)? {
            Some(_) => Some(self.reference(Role::Second)?),
            None => None,
        };
        self.close(&open)?;
        if second.is_some() {
            refuse_wide_relationship(&first, start)?;
        }
        Ok((TermMatch { first, second }, place, place_offset))
    }

    /// The `)` that closes `open`.
    fn close(&mut self, open: &Token<'a>) -> Result<(), DslError> {
        let token = self.advance()?;
        if token.kind == TokenKind::CloseParen {
            return Ok(());
        }
        Err(DslError::new(
            token.offset,
            format!("expected `)`, found {} (unbalanced `(` at byte {})", token.describe(), open.offset),
        ))
    }

    /// `place = traversal | reference [ "|" traversal ]`
    fn place(&mut self) -> Result<Place, DslError> {
        let token = self.peek()?;
        if token.is_keyword("up") || token.is_keyword("self") {
            return Ok(Place { source: TermRef::This, traversal: self.traversal()? });
        }
        let source = self.reference(Role::Source)?;
        let traversal = match self.accept(&TokenKind::Pipe)? {
            Some(_) => self.traversal()?,
            None => Traversal::SelfOnly,
        };
        Ok(Place { source, traversal })
    }

    /// `traversal = "self" [ "|" "up" [ relationship ] ] | "up" [ relationship ]`
    fn traversal(&mut self) -> Result<Traversal, DslError> {
        let token = self.advance()?;
        if token.is_keyword("up") {
            return Ok(Traversal::Up(self.up_relationship(&token)?));
        }
        if !token.is_keyword("self") {
            return Err(DslError::new(token.offset, format!("expected `self` or `up`, found {}", token.describe())));
        }
        if self.accept(&TokenKind::Pipe)?.is_none() {
            // `self` written out: owned ids only (Flecs).
            return Ok(Traversal::Owned);
        }
        let up = self.advance()?;
        if !up.is_keyword("up") {
            return Err(DslError::new(up.offset, format!("expected `up` after `self|`, found {}", up.describe())));
        }
        Ok(Traversal::SelfUp(self.up_relationship(&up)?))
    }

    /// The relationship after `up` (a name or `#id`), else `ChildOf`; it must be traversable.
    fn up_relationship(&mut self, up: &Token<'a>) -> Result<Entity, DslError> {
        let next = self.peek()?;
        let (relationship, offset, spelled) = match next.kind {
            TokenKind::Name | TokenKind::EntityLiteral(_) => {
                let token = self.advance()?;
                (self.entity(&token)?, token.offset, token.text.to_string())
            }
            _ => {
                let Some(child_of) = self.names.lookup_name(DEFAULT_TRAVERSAL) else {
                    return Err(DslError::new(
                        up.offset,
                        format!("`up` alone means `up {DEFAULT_TRAVERSAL}`, and `{DEFAULT_TRAVERSAL}` is unknown"),
                    ));
                };
                (child_of, up.offset, DEFAULT_TRAVERSAL.to_string())
            }
        };
        if !self.names.is_traversable(relationship) {
            return Err(DslError::new(offset, format!("`{spelled}` is not a traversable relationship")));
        }
        Ok(relationship)
    }

    /// The entity a name or `#id` token stands for.
    fn entity(&self, token: &Token<'a>) -> Result<Entity, DslError> {
        match token.kind {
            TokenKind::EntityLiteral(entity) if self.names.is_alive(entity) => Ok(entity),
            TokenKind::EntityLiteral(entity) => {
                Err(DslError::new(token.offset, format!("`{}` names {entity:?}, which is not alive", token.text)))
            }
            _ => self
                .names
                .lookup_name(token.text)
                .ok_or_else(|| DslError::new(token.offset, format!("unknown name `{}`", token.text))),
        }
    }

    /// `reference = name | "#" digits | "*" | "_" | "$" identifier`, checked against its role.
    fn reference(&mut self, role: Role) -> Result<TermRef, DslError> {
        let token = self.advance()?;
        let reference = match token.kind {
            TokenKind::Name | TokenKind::EntityLiteral(_) => TermRef::Entity(self.entity(&token)?),
            TokenKind::Wildcard | TokenKind::Any if role == Role::Source => {
                return Err(DslError::new(token.offset, format!("`{}` cannot be a source", token.text)));
            }
            TokenKind::Wildcard => TermRef::Wildcard,
            TokenKind::Any => TermRef::Any,
            // In an id, `$this` is the row's entity (`Likes($x, $this)`).
            TokenKind::Variable if token.text == "$this" => TermRef::This,
            TokenKind::Variable => {
                let name = token.text[1..].to_string();
                self.variables.push(VariableUse {
                    name: name.clone(),
                    offset: token.offset,
                    binds: self.term_oper == TermOper::And
                        || (self.term_oper == TermOper::Optional && role != Role::Source),
                });
                TermRef::Var(name)
            }
            _ => {
                let what = match role {
                    Role::First => "a term",
                    Role::Second => "a pair target",
                    Role::Source => "a source",
                };
                return Err(DslError::new(
                    token.offset,
                    format!("expected {what} (a name, `#id`, `*`, `_` or `$variable`), found {}", token.describe()),
                ));
            }
        };
        Ok(reference)
    }

    /// Every variable must occur where it can be bound: in a required (`And`)
    /// term, or in the id of an optional one (`?(Likes, $x)`: `$x` is unbound
    /// in the rows where it does not match). The error points at the first
    /// occurrence of the first unbound one.
    fn check_variables_bound(&self) -> Result<(), DslError> {
        let bound: FxHashSet<&str> =
            self.variables.iter().filter(|variable| variable.binds).map(|variable| variable.name.as_str()).collect();
        match self.variables.iter().find(|variable| !bound.contains(variable.name.as_str())) {
            Some(unbound) => Err(DslError::new(
                unbound.offset,
                format!(
                    "unbound variable `${}`: no required term binds it, nor the id of an optional one (it occurs \
                     only under `!` or as an optional term's source)",
                    unbound.name
                ),
            )),
            None => Ok(()),
        }
    }
}

/// A [`DslError`] at `offset` if `first`, a pair's relationship, is an
/// entity whose index does not fit the 31 bits a pair id gives it.
fn refuse_wide_relationship(first: &TermRef, offset: usize) -> Result<(), DslError> {
    match first {
        TermRef::Entity(entity) if !entity.fits_relationship() => Err(DslError::new(
            offset,
            format!("{entity:?} cannot be a relationship: its index exceeds the 31 bits of a pair's relationship"),
        )),
        _ => Ok(()),
    }
}
