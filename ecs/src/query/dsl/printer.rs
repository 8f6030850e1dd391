//! The DSL's printer: [`Term`]s to canonical text (see `query::dsl::print_query`).

use core::fmt::Write;

use super::DslNames;
use super::lexer::is_name;
use crate::entity::Entity;
use crate::query::{Term, TermAccess, TermMatch, TermOper, TermRef, Traversal};

/// Prints `terms` (see `query::dsl::print_query`).
pub(super) fn print(terms: &[Term], names: &impl DslNames) -> String {
    let mut text = String::new();
    for (index, term) in terms.iter().enumerate() {
        if index > 0 {
            text.push_str(", ");
        }
        print_term(&mut text, term, names);
    }
    text
}

fn print_term(text: &mut String, term: &Term, names: &impl DslNames) {
    text.push_str(match term.access {
        TermAccess::Default => "",
        TermAccess::In => "[in] ",
        TermAccess::Out => "[out] ",
        TermAccess::InOut => "[inout] ",
        TermAccess::None => "[none] ",
    });
    text.push_str(match term.oper {
        TermOper::And => "",
        TermOper::Not => "!",
        TermOper::Optional => "?",
    });
    for (index, alternative) in term.alternatives.iter().enumerate() {
        if index > 0 {
            text.push_str(" || ");
        }
        print_alternative(text, alternative, term, names);
    }
}

/// One alternative with the term's source and traversal: `Name`, `Name(place)`,
/// `(Rel, Tgt)` or `Rel(place, Tgt)`.
fn print_alternative(text: &mut String, alternative: &TermMatch, term: &Term, names: &impl DslNames) {
    let default_place = term.source == TermRef::This && term.traversal == Traversal::SelfOnly;
    match (&alternative.second, default_place) {
        (Some(second), true) => {
            text.push('(');
            print_reference(text, &alternative.first, names);
            text.push_str(", ");
            print_reference(text, second, names);
            text.push(')');
        }
        (None, true) => print_reference(text, &alternative.first, names),
        (second, false) => {
            print_reference(text, &alternative.first, names);
            text.push('(');
            print_place(text, term, names);
            if let Some(second) = second {
                text.push_str(", ");
                print_reference(text, second, names);
            }
            text.push(')');
        }
    }
}

/// The inside of a term's parentheses before any target: `src`, `self`,
/// `src|self`, `up Rel`, `self|up Rel`, `src|up Rel` or `src|self|up Rel`.
fn print_place(text: &mut String, term: &Term, names: &impl DslNames) {
    let (flags, relationship) = match term.traversal {
        Traversal::SelfOnly => ("", None),
        Traversal::Owned => ("self", None),
        Traversal::Up(relationship) => ("up ", Some(relationship)),
        Traversal::SelfUp(relationship) => ("self|up ", Some(relationship)),
    };
    let flagged = !flags.is_empty();
    if term.source != TermRef::This || !flagged {
        print_reference(text, &term.source, names);
        if flagged {
            text.push('|');
        }
    }
    text.push_str(flags);
    if let Some(relationship) = relationship {
        print_entity(text, relationship, names);
    }
}

fn print_reference(text: &mut String, reference: &TermRef, names: &impl DslNames) {
    match reference {
        TermRef::Entity(entity) => print_entity(text, *entity, names),
        TermRef::Wildcard => text.push('*'),
        TermRef::Any => text.push('_'),
        TermRef::This => text.push_str("$this"),
        TermRef::Var(name) => {
            text.push('$');
            text.push_str(name);
        }
    }
}

/// An entity by its name where that name reads back as it (one name token, not
/// `_`, `up` or `self`, resolving to the same entity), else as `#bits`.
fn print_entity(text: &mut String, entity: Entity, names: &impl DslNames) {
    if let Some(name) = names.name_of(entity)
        && is_name(&name)
        && !matches!(name.as_str(), "_" | "up" | "self")
        && names.lookup_name(&name) == Some(entity)
    {
        text.push_str(&name);
        return;
    }
    // Writing to a `String` cannot fail.
    let _ = write!(text, "#{}", entity.to_bits());
}
