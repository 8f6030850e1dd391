//! `#[system]`: keeps the function unchanged and, for a non-generic function,
//! adds a free `const` item that evaluates the compile-time access check of its
//! parameters, so a conflict is reported by `cargo check` and editors, not only
//! when the function is added to a schedule and monomorphized.
//!
//! For `fn movement(q: Query<&mut Position>, time: Res<Time>) { .. }` it adds:
//!
//! ```text
//! const _: () = ::ecs::system::check_system::<(Query<&mut Position>, Res<Time>,)>("movement");
//! ```
//!
//! Elided lifetimes in the parameter types are inferred in that expression.
//! Generic functions (type or const parameters) and parameters of `impl Trait`
//! type get no const item: their check runs when they are instantiated.

use proc_macro2::TokenStream as TokenStream2;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, GenericParam, ItemFn, Type};

/// Builds the expansion of `#[system]` on `function`.
pub(crate) fn system(attribute: TokenStream2, function: ItemFn) -> syn::Result<TokenStream2> {
    if !attribute.is_empty() {
        return Err(syn::Error::new(attribute.span(), "#[system] takes no arguments"));
    }
    let mut types = Vec::new();
    for input in &function.sig.inputs {
        match input {
            FnArg::Receiver(receiver) => {
                return Err(syn::Error::new(
                    receiver.span(),
                    "#[system] applies to free functions; a method cannot be a system",
                ));
            }
            FnArg::Typed(typed) => types.push(&*typed.ty),
        }
    }
    let generic = function.sig.generics.params.iter().any(|param| !matches!(param, GenericParam::Lifetime(_)));
    let has_impl_trait = types.iter().any(|ty| contains_impl_trait(ty));
    let name = function.sig.ident.to_string();
    let check = if generic || has_impl_trait {
        TokenStream2::new()
    } else {
        let span = function.sig.ident.span();
        quote_spanned! {span=>
            #[allow(non_upper_case_globals)]
            const _: () = ::ecs::system::check_system::<(#(#types,)*)>(#name);
        }
    };
    Ok(quote! {
        #function
        #check
    })
}

fn contains_impl_trait(ty: &Type) -> bool {
    quote!(#ty).to_string().contains("impl ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    #[test]
    fn adds_the_const_check() {
        let out = system(TokenStream2::new(), parse_quote! { fn bad(a: Query<&mut P>, b: Res<T>) {} }).unwrap();
        let out = out.to_string();
        let expected = quote!(::ecs::system::check_system::<(Query<&mut P>, Res<T>,)>("bad"));
        assert!(out.contains(&expected.to_string()), "{out}");
    }

    #[test]
    fn skips_generic_functions() {
        let out = system(TokenStream2::new(), parse_quote! { fn generic<T: Component>(q: Query<&T>) {} }).unwrap();
        assert!(!out.to_string().contains("check_system"));
    }

    #[test]
    fn rejects_arguments_and_methods() {
        assert!(system(quote!(parallel), parse_quote! { fn s() {} }).is_err());
        assert!(system(TokenStream2::new(), parse_quote! { fn s(&self) {} }).is_err());
    }
}
