//! `#[derive(Relationship)]`: a component usable as the first half of a pair.
//!
//! For `#[relationship(exclusive, on_delete_target = "delete")] struct DockedTo;`
//! it generates the `Component` impl (as `#[derive(Component)]` would, accepting
//! the same `#[component(...)]` keys but `storage`) with
//! `const RELATIONSHIP = Some(TRAITS)`, plus:
//!
//! ```text
//! impl ::ecs::relation::Relationship for DockedTo {
//!     const TRAITS: ::ecs::component::RelationshipTraits = ::ecs::component::RelationshipTraits {
//!         exclusive: true, traversable: false, acyclic: false, transitive: false, union: false,
//!         on_delete: ::ecs::component::CleanupPolicy::Remove,
//!         on_delete_target: ::ecs::component::CleanupPolicy::Delete,
//!     };
//! }
//! impl ::ecs::relation::PairTerm for DockedTo {
//!     type Term = ::ecs::relation::PairTarget<DockedTo>;
//!     type ReadOnly = DockedTo;
//! }
//! ```
//!
//! Keys of `#[relationship(...)]`: the flags `exclusive`, `traversable`,
//! `acyclic`, `transitive`, `union`, and `on_delete` / `on_delete_target` = `"remove"` | `"delete"` |
//! `"panic"`; each at most once.
//!
//! `union` (non-fragmenting, see `RelationshipTraits::union`) implies
//! `exclusive`. It is refused on a type that is not a struct without fields
//! (its pairs would carry values, which a union's target column cannot hold)
//! and next to `transitive` (transitive matching reads one target per table).
//! A `traversable` union is a non-fragmenting hierarchy (`up` terms climb
//! from each row's own target).

use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{ToTokens, quote};
use syn::meta::ParseNestedMeta;
use syn::{DeriveInput, Ident, LitStr};

use crate::component::component_impl;

/// The keys `#[relationship(...)]` accepts.
const KEYS: &str = "`exclusive`, `traversable`, `acyclic`, `transitive`, `union`, `on_delete`, `on_delete_target`";

/// What `#[relationship(...)]` said.
#[derive(Default)]
struct RelationshipAttrs {
    exclusive: Option<bool>,
    traversable: Option<bool>,
    acyclic: Option<bool>,
    transitive: Option<bool>,
    union: Option<Span>,
    on_delete: Option<Ident>,
    on_delete_target: Option<Ident>,
}

impl RelationshipAttrs {
    fn parse(input: &DeriveInput) -> syn::Result<Self> {
        let mut attrs = RelationshipAttrs::default();
        for attr in input.attrs.iter().filter(|a| a.path().is_ident("relationship")) {
            attr.parse_nested_meta(|meta| attrs.parse_key(&meta))?;
        }
        Ok(attrs)
    }

    fn parse_key(&mut self, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
        let key = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
        let duplicate = || {
            syn::Error::new_spanned(
                &meta.path,
                format!("duplicate #[relationship] key `{key}`: each key may be given once"),
            )
        };
        let flag = match key.as_str() {
            "exclusive" => &mut self.exclusive,
            "traversable" => &mut self.traversable,
            "acyclic" => &mut self.acyclic,
            "transitive" => &mut self.transitive,
            "union" => {
                if self.union.is_some() {
                    return Err(duplicate());
                }
                if meta.input.peek(syn::Token![=]) {
                    return Err(meta.error("`union` is a flag: write `union`, without a value"));
                }
                self.union = Some(syn::spanned::Spanned::span(&meta.path));
                return Ok(());
            }
            "on_delete" | "on_delete_target" => {
                let slot = if key == "on_delete" { &mut self.on_delete } else { &mut self.on_delete_target };
                if slot.is_some() {
                    return Err(duplicate());
                }
                *slot = Some(parse_policy(meta, &key)?);
                return Ok(());
            }
            _ => {
                return Err(syn::Error::new_spanned(
                    &meta.path,
                    format!(
                        "unknown #[relationship] key `{}`: expected one of {KEYS}",
                        meta.path.to_token_stream().to_string().replace(' ', "")
                    ),
                ));
            }
        };
        if flag.is_some() {
            return Err(duplicate());
        }
        if meta.input.peek(syn::Token![=]) {
            return Err(meta.error(format!("`{key}` is a flag: write `{key}`, without a value")));
        }
        *flag = Some(true);
        Ok(())
    }
}

/// Parses `= "remove" | "delete" | "panic"` into the `CleanupPolicy` variant.
fn parse_policy(meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<Ident> {
    let value = meta.value()?;
    if !value.peek(LitStr) {
        return Err(value.error(format!("expected a string literal: `{key} = \"remove\"`, \"delete\" or \"panic\"")));
    }
    let lit: LitStr = value.parse()?;
    let variant = match lit.value().as_str() {
        "remove" => "Remove",
        "delete" => "Delete",
        "panic" => "Panic",
        other => {
            return Err(syn::Error::new_spanned(
                &lit,
                format!("unknown cleanup policy {other:?}: expected \"remove\", \"delete\" or \"panic\""),
            ));
        }
    };
    Ok(Ident::new(variant, Span::call_site()))
}

/// Refuses `union` where it cannot work: on a type whose pairs would carry a
/// value (anything but a struct without fields) and next to `transitive`.
fn check_union(input: &DeriveInput, span: Span, transitive: bool) -> syn::Result<()> {
    let fieldless = match &input.data {
        syn::Data::Struct(data) => data.fields.is_empty(),
        _ => false,
    };
    if !fieldless {
        return Err(syn::Error::new(
            span,
            format!(
                "`union` relationships carry no data: `{}` must be a struct without fields (a union keeps one \
                 target per row and no pair value); drop `union` to store values in fragmenting pairs",
                input.ident
            ),
        ));
    }
    if transitive {
        return Err(syn::Error::new(
            span,
            "`union` cannot be combined with `transitive`: transitive matching reads one target per table, and a \
             union's targets differ per row",
        ));
    }
    Ok(())
}

/// Builds the impls for `input`, or a spanned error.
pub(crate) fn derive_relationship(input: DeriveInput) -> syn::Result<TokenStream2> {
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("component")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("storage") {
                return Err(meta.error("a relationship's pairs live in archetypes: `storage` cannot be set"));
            }
            // Skip the value; `component_impl` parses the other keys.
            if meta.input.peek(syn::Token![=]) {
                meta.value()?.parse::<syn::Expr>()?;
            }
            Ok(())
        })?;
    }
    let attrs = RelationshipAttrs::parse(&input)?;
    let flag = |value: Option<bool>| value.unwrap_or(false);
    let (traversable, acyclic) = (flag(attrs.traversable), flag(attrs.acyclic));
    let transitive = flag(attrs.transitive);
    let union = attrs.union.is_some();
    // A union is exclusive: one target per entity, kept in the row.
    let exclusive = flag(attrs.exclusive) || union;
    if let Some(span) = attrs.union {
        check_union(&input, span, transitive)?;
    }
    let remove = Ident::new("Remove", Span::call_site());
    let on_delete = attrs.on_delete.unwrap_or_else(|| remove.clone());
    let on_delete_target = attrs.on_delete_target.unwrap_or(remove);
    let traits = quote! {
        ::ecs::component::RelationshipTraits {
            exclusive: #exclusive,
            traversable: #traversable,
            acyclic: #acyclic,
            transitive: #transitive,
            union: #union,
            on_delete: ::ecs::component::CleanupPolicy::#on_delete,
            on_delete_target: ::ecs::component::CleanupPolicy::#on_delete_target,
        }
    };
    let ident = &input.ident;
    let component = component_impl(
        &input,
        "Relationship",
        quote! {
            const RELATIONSHIP: ::core::option::Option<::ecs::component::RelationshipTraits> =
                ::core::option::Option::Some(<Self as ::ecs::relation::Relationship>::TRAITS);
        },
    )?;
    Ok(quote! {
        #component

        #[automatically_derived]
        impl ::ecs::relation::Relationship for #ident {
            const TRAITS: ::ecs::component::RelationshipTraits = #traits;
        }

        #[automatically_derived]
        impl ::ecs::relation::PairTerm for #ident {
            type Term = ::ecs::relation::PairTarget<#ident>;
            type ReadOnly = #ident;
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(src: &str) -> syn::Result<String> {
        let input = syn::parse_str::<DeriveInput>(src).expect("valid derive input");
        derive_relationship(input).map(|tokens| tokens.to_string())
    }

    #[test]
    fn defaults_are_no_traits_and_remove() {
        let out = expand("struct Likes;").unwrap();
        assert!(out.contains("exclusive : false"), "{out}");
        assert!(out.contains("on_delete : :: ecs :: component :: CleanupPolicy :: Remove"), "{out}");
        assert!(out.contains("impl :: ecs :: relation :: PairTerm for Likes"), "{out}");
        assert!(out.contains("const RELATIONSHIP"), "{out}");
    }

    #[test]
    fn flags_and_policies_are_read() {
        let out = expand(r#"#[relationship(exclusive, acyclic, on_delete_target = "delete")] struct R;"#).unwrap();
        assert!(out.contains("exclusive : true") && out.contains("acyclic : true"), "{out}");
        assert!(out.contains("traversable : false"), "{out}");
        assert!(out.contains("on_delete_target : :: ecs :: component :: CleanupPolicy :: Delete"), "{out}");
    }

    #[test]
    fn bad_input_is_rejected_with_a_message() {
        let err = |src: &str| expand(src).unwrap_err().to_string();
        assert!(err(r#"#[relationship(on_delete = "drop")] struct R;"#).starts_with("unknown cleanup policy \"drop\""));
        assert!(err("#[relationship(fragile)] struct R;").starts_with("unknown #[relationship] key `fragile`"));
        assert!(err("#[relationship(exclusive, exclusive)] struct R;").starts_with("duplicate #[relationship] key"));
        assert!(err("#[relationship(exclusive = true)] struct R;").contains("is a flag"));
        assert!(err(r#"#[component(storage = "sparse")] struct R;"#).contains("`storage` cannot be set"));
        assert!(err("struct G<T>(T);").starts_with("#[derive(Relationship)] does not support generic types"));
    }

    #[test]
    fn union_is_exclusive_and_refused_where_it_cannot_work() {
        let out = expand("#[relationship(union)] struct Movement;").unwrap();
        assert!(out.contains("union : true") && out.contains("exclusive : true"), "{out}");
        assert!(expand("struct Likes;").unwrap().contains("union : false"));
        let err = |src: &str| expand(src).unwrap_err().to_string();
        assert!(
            err("#[relationship(union)] struct Eats { amount: u32 }").contains("`union` relationships carry no data")
        );
        assert!(err("#[relationship(union)] struct Eats(u32);").contains("must be a struct without fields"));
        assert!(err("#[relationship(union)] enum Mode { A, B }").contains("carry no data"));
        let hierarchy = expand("#[relationship(union, traversable)] struct R;").unwrap();
        assert!(hierarchy.contains("union : true") && hierarchy.contains("traversable : true"), "{hierarchy}");
        assert!(err("#[relationship(transitive, union)] struct R;").contains("cannot be combined with `transitive`"));
        assert!(err("#[relationship(union, union)] struct R;").starts_with("duplicate #[relationship] key `union`"));
        assert!(err("#[relationship(union = true)] struct R;").contains("is a flag"));
    }
}
