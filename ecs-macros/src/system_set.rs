//! `#[derive(SystemSet)]`: `impl ::ecs::schedule::SystemSet`.
//!
//! The trait has no items; its supertraits (`Debug`, `Clone`, `PartialEq`,
//! `Eq`, `Send`, `Sync`, `'static`) carry the requirements, so the derive only
//! writes the impl, with the type's generics and where clause unchanged:
//!
//! ```text
//! #[automatically_derived]
//! impl ::ecs::schedule::SystemSet for Physics {}
//! ```

use proc_macro2::TokenStream as TokenStream2;
use quote::quote;
use syn::DeriveInput;

/// Builds the `SystemSet` impl for `input`.
pub(crate) fn derive_system_set(input: DeriveInput) -> TokenStream2 {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        #[automatically_derived]
        impl #impl_generics ::ecs::schedule::SystemSet for #ident #ty_generics #where_clause {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    #[test]
    fn keeps_generics() {
        let input: DeriveInput = parse_quote! { struct Stage<T: Clone> where T: Eq { value: T } };
        let expanded = derive_system_set(input).to_string();
        assert!(expanded.contains("impl < T : Clone > :: ecs :: schedule :: SystemSet for Stage < T > where T : Eq"));
    }
}
