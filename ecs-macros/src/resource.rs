//! `#[derive(Resource)]`: `impl ::ecs::world::Resource`; `#[derive(Message)]`:
//! `impl ::ecs::world::Message`, with the same `NAME` and `ID` consts.
//!
//! For a non-generic `struct Time { .. }` it sets the compile-time name and id
//! that the system access checks compare:
//!
//! ```text
//! #[automatically_derived]
//! impl ::ecs::world::Resource for Time {
//!     const NAME: &'static str = "Time";
//!     const ID: u64 = ::ecs::util::component_type_id(::core::module_path!(), "Time");
//! }
//! ```
//!
//! For `struct Assets<T: Send> where T: Sync { .. }` the impl is empty (one id per
//! generic type would make `Assets<A>` and `Assets<B>` look alike, so the
//! defaults, "unknown", leave such resources to the runtime check):
//!
//! ```text
//! #[automatically_derived]
//! impl<T: Send> ::ecs::world::Resource for Assets<T> where T: Sync {}
//! ```
//!
//! The generics and where clause are copied unchanged; no bounds are added, so the
//! trait's supertraits are checked by the compiler at the impl as usual. Structs,
//! enums and unions are all accepted: a resource is stored whole, so its shape
//! does not matter.

use proc_macro2::TokenStream as TokenStream2;
use quote::quote;
use syn::DeriveInput;

/// Builds the `Resource` impl for `input`. It never fails today; it returns
/// `syn::Result` like every derive of this crate.
pub(crate) fn derive_resource(input: DeriveInput) -> syn::Result<TokenStream2> {
    derive_named_type(input, quote! { ::ecs::world::Resource })
}

/// Builds the `Message` impl for `input` (`#[derive(Message)]`): the same
/// `NAME` and `ID` as a resource, on `::ecs::world::Message`.
pub(crate) fn derive_message(input: DeriveInput) -> syn::Result<TokenStream2> {
    derive_named_type(input, quote! { ::ecs::world::Message })
}

/// An impl of `trait_path` (a trait with `NAME` and `ID` consts) for `input`.
fn derive_named_type(input: DeriveInput, trait_path: TokenStream2) -> syn::Result<TokenStream2> {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let consts = if input.generics.params.is_empty() {
        let name = ident.to_string();
        quote! {
            const NAME: &'static str = #name;
            const ID: u64 = ::ecs::util::component_type_id(::core::module_path!(), #name);
        }
    } else {
        TokenStream2::new()
    };
    Ok(quote! {
        #[automatically_derived]
        impl #impl_generics #trait_path for #ident #ty_generics #where_clause { #consts }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    /// Expands `input`, panicking on error.
    fn expand(input: DeriveInput) -> String {
        derive_resource(input).expect("expansion succeeds").to_string()
    }

    #[test]
    fn plain_struct() {
        let out = expand(parse_quote! { struct Time { elapsed: f64 } });
        let expected = quote! {
            #[automatically_derived]
            impl ::ecs::world::Resource for Time {
                const NAME: &'static str = "Time";
                const ID: u64 = ::ecs::util::component_type_id(::core::module_path!(), "Time");
            }
        };
        assert_eq!(out, expected.to_string());
    }

    #[test]
    fn generics_and_where_clause_are_copied() {
        let out = expand(parse_quote! {
            struct Assets<'a, T: Send, const N: usize> where T: Sync { items: [&'a T; N] }
        });
        let expected = quote! {
            #[automatically_derived]
            impl<'a, T: Send, const N: usize> ::ecs::world::Resource for Assets<'a, T, N>
            where T: Sync {}
        };
        assert_eq!(out, expected.to_string());
    }

    #[test]
    fn messages_get_the_same_name_and_id() {
        let out = derive_message(parse_quote! { struct Scored { points: u32 } }).expect("expands").to_string();
        let expected = quote! {
            #[automatically_derived]
            impl ::ecs::world::Message for Scored {
                const NAME: &'static str = "Scored";
                const ID: u64 = ::ecs::util::component_type_id(::core::module_path!(), "Scored");
            }
        };
        assert_eq!(out, expected.to_string());
    }

    #[test]
    fn enums_and_unions_are_accepted() {
        assert!(expand(parse_quote! { enum Mode { A, B } }).contains("for Mode"));
        assert!(expand(parse_quote! { union Bits { a: u32, b: f32 } }).contains("for Bits"));
    }
}
