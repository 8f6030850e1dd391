//! `#[derive(Event)]`: an `impl ::ecs::observer::Event`.
//!
//! `#[event(propagate = R)]` (a traversable relationship type path) sets
//! `TRAVERSAL` so that targeted events travel up `R`:
//!
//! ```text
//! impl ::ecs::observer::Event for Damage {
//!     const TRAVERSAL: Option<::ecs::observer::TraversalFn> =
//!         Some(|world| world.component_id::<R>());
//! }
//! ```

use proc_macro2::TokenStream as TokenStream2;
use quote::quote;
use syn::{DeriveInput, Path};

/// Builds the impl, or a spanned error.
pub(crate) fn derive_event(input: DeriveInput) -> syn::Result<TokenStream2> {
    let mut propagate: Option<Path> = None;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("event")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("propagate") {
                if propagate.is_some() {
                    return Err(meta.error("duplicate #[event] key `propagate`"));
                }
                propagate = Some(meta.value()?.parse()?);
                Ok(())
            } else {
                Err(meta.error("unknown #[event] key: expected `propagate = Relationship`"))
            }
        })?;
    }
    let ident = &input.ident;
    let (impl_generics, type_generics, where_clause) = input.generics.split_for_impl();
    let traversal = propagate.map(|relationship| {
        quote! {
            const TRAVERSAL: ::core::option::Option<::ecs::observer::TraversalFn> =
                ::core::option::Option::Some(|world: &::ecs::world::World| world.component_id::<#relationship>());
        }
    });
    Ok(quote! {
        #[automatically_derived]
        impl #impl_generics ::ecs::observer::Event for #ident #type_generics #where_clause {
            #traversal
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(src: &str) -> syn::Result<String> {
        derive_event(syn::parse_str(src).expect("valid input")).map(|tokens| tokens.to_string())
    }

    #[test]
    fn plain_and_propagating_events() {
        assert!(!expand("struct Ping;").unwrap().contains("TRAVERSAL"));
        let out = expand("#[event(propagate = ChildOf)] struct Damage(u32);").unwrap();
        assert!(out.contains("component_id :: < ChildOf >"), "{out}");
        let err = expand("#[event(bubble = ChildOf)] struct D;").unwrap_err().to_string();
        assert!(err.starts_with("unknown #[event] key"), "{err}");
    }
}
