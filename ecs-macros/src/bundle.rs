//! `#[derive(Bundle)]`: an `unsafe impl ::ecs::bundle::Bundle` for a struct whose
//! fields are all bundles (components, tuples of bundles, or derived bundles).
//!
//! For `struct S<T> { a: A, b: T }` it generates:
//!
//! ```text
//! #[automatically_derived]
//! #[allow(unsafe_code)]
//! unsafe impl<T> ::ecs::bundle::Bundle for S<T>
//! where
//!     A: ::ecs::bundle::Bundle,
//!     T: ::ecs::bundle::Bundle,
//! {
//!     fn component_ids(
//!         __ecs_registrar: &mut ::ecs::component::ComponentRegistrar<'_>,
//!         __ecs_ids: &mut impl ::core::ops::FnMut(::ecs::entity::Entity),
//!     ) {
//!         <A as ::ecs::bundle::Bundle>::component_ids(__ecs_registrar, __ecs_ids);
//!         <T as ::ecs::bundle::Bundle>::component_ids(__ecs_registrar, __ecs_ids);
//!     }
//!     const HAS_PAIRS: bool = false
//!         || <A as ::ecs::bundle::Bundle>::HAS_PAIRS
//!         || <T as ::ecs::bundle::Bundle>::HAS_PAIRS;
//!     fn take_pairs(&mut self, __ecs_sink: &mut impl ::ecs::bundle::PairSink) {
//!         let Self { a: __ecs_field_0, b: __ecs_field_1 } = self;
//!         <A as ::ecs::bundle::Bundle>::take_pairs(__ecs_field_0, __ecs_sink);
//!         <T as ::ecs::bundle::Bundle>::take_pairs(__ecs_field_1, __ecs_sink);
//!     }
//!     #[inline(always)]
//!     fn write_components(self, __ecs_writer: &mut impl ::ecs::bundle::ComponentWriter) {
//!         let Self { a: __ecs_field_0, b: __ecs_field_1 } = self;
//!         <A as ::ecs::bundle::Bundle>::write_components(__ecs_field_0, __ecs_writer);
//!         <T as ::ecs::bundle::Bundle>::write_components(__ecs_field_1, __ecs_writer);
//!     }
//!     fn read_components(__ecs_reader: &mut impl ::ecs::bundle::ComponentReader) -> Self {
//!         Self {
//!             a: <A as ::ecs::bundle::Bundle>::read_components(__ecs_reader),
//!             b: <T as ::ecs::bundle::Bundle>::read_components(__ecs_reader),
//!         }
//!     }
//! }
//! ```
//!
//! Tuple structs destructure as `let Self(__ecs_field_0, ..) = self;` and build
//! `Self(..)`; a struct without fields is an empty bundle whose methods ignore
//! their arguments (the parameters are then `_`). Every method visits the fields
//! in declaration order, which is what makes the `unsafe impl` sound. Enums and
//! unions are rejected with a spanned error.

use proc_macro2::TokenStream as TokenStream2;
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, parse_quote_spanned};

/// The error for enums and unions.
const NEEDS_STRUCT: &str = "#[derive(Bundle)] needs a struct: every field is a bundle (a component or a nested bundle)";

/// Builds the `Bundle` impl for `input`, or a spanned error.
pub(crate) fn derive_bundle(mut input: DeriveInput) -> syn::Result<TokenStream2> {
    let fields = match &input.data {
        Data::Struct(data) => &data.fields,
        Data::Enum(data) => return Err(syn::Error::new(data.enum_token.span, NEEDS_STRUCT)),
        Data::Union(data) => return Err(syn::Error::new(data.union_token.span, NEEDS_STRUCT)),
    };

    let types: Vec<&syn::Type> = fields.iter().map(|field| &field.ty).collect();
    let locals: Vec<syn::Ident> = (0..types.len()).map(|i| format_ident!("__ecs_field_{}", i)).collect();

    // `syn` is built without `clone-impls`, so the impl's generics are the input's,
    // extended in place (the field types borrow `input.data`, a disjoint field).
    let generics = &mut input.generics;
    if !types.is_empty() {
        let where_clause = generics.make_where_clause();
        for ty in &types {
            // Spanned on the field type, so "`X: Bundle` is not satisfied" points
            // at the offending field rather than at the derive.
            where_clause.predicates.push(parse_quote_spanned!(ty.span()=> #ty: ::ecs::bundle::Bundle));
        }
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let ident = &input.ident;

    // An empty bundle never touches its arguments; `_` keeps the impl warning-free.
    let (registrar, ids, writer, reader, sink) = if types.is_empty() {
        let underscore = quote!(_);
        (underscore.clone(), underscore.clone(), underscore.clone(), underscore.clone(), underscore)
    } else {
        (quote!(__ecs_registrar), quote!(__ecs_ids), quote!(__ecs_writer), quote!(__ecs_reader), quote!(__ecs_sink))
    };

    let (destructure, construct) = match fields {
        Fields::Named(_) => {
            let names: Vec<&syn::Ident> = fields.iter().filter_map(|f| f.ident.as_ref()).collect();
            (
                quote! { let Self { #(#names: #locals),* } = self; },
                quote! {
                    Self { #(#names: <#types as ::ecs::bundle::Bundle>::read_components(#reader)),* }
                },
            )
        }
        Fields::Unnamed(_) => (
            quote! { let Self(#(#locals),*) = self; },
            quote! {
                Self(#(<#types as ::ecs::bundle::Bundle>::read_components(#reader)),*)
            },
        ),
        Fields::Unit => (TokenStream2::new(), quote! { Self }),
    };

    // SAFETY (of the generated `unsafe impl`): `component_ids`, `write_components`
    // and `read_components` all visit the fields in declaration order, each field
    // delegating to its own `Bundle` impl, so the three agree on the sequence of
    // components, which is the contract of `Bundle`.
    Ok(quote! {
        #[automatically_derived]
        #[allow(unsafe_code)]
        unsafe impl #impl_generics ::ecs::bundle::Bundle for #ident #ty_generics #where_clause {
            fn component_ids(
                #registrar: &mut ::ecs::component::ComponentRegistrar<'_>,
                #ids: &mut impl ::core::ops::FnMut(::ecs::entity::Entity),
            ) {
                #(<#types as ::ecs::bundle::Bundle>::component_ids(#registrar, #ids);)*
            }

            const HAS_PAIRS: bool = false #(|| <#types as ::ecs::bundle::Bundle>::HAS_PAIRS)*;

            fn take_pairs(&mut self, #sink: &mut impl ::ecs::bundle::PairSink) {
                #destructure
                #(<#types as ::ecs::bundle::Bundle>::take_pairs(#locals, #sink);)*
            }

            #[inline(always)]
            fn write_components(self, #writer: &mut impl ::ecs::bundle::ComponentWriter) {
                #destructure
                #(<#types as ::ecs::bundle::Bundle>::write_components(#locals, #writer);)*
            }

            fn read_components(#reader: &mut impl ::ecs::bundle::ComponentReader) -> Self {
                #construct
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    /// Expands `input`, panicking on error.
    fn expand(input: DeriveInput) -> String {
        derive_bundle(input).expect("expansion succeeds").to_string()
    }

    #[test]
    fn named_struct_full_shape() {
        let out = expand(parse_quote! {
            struct Body { position: Position, velocity: Velocity }
        });
        let expected = quote! {
            #[automatically_derived]
            #[allow(unsafe_code)]
            unsafe impl ::ecs::bundle::Bundle for Body
            where
                Position: ::ecs::bundle::Bundle,
                Velocity: ::ecs::bundle::Bundle
            {
                fn component_ids(
                    __ecs_registrar: &mut ::ecs::component::ComponentRegistrar<'_>,
                    __ecs_ids: &mut impl ::core::ops::FnMut(::ecs::entity::Entity),
                ) {
                    <Position as ::ecs::bundle::Bundle>::component_ids(__ecs_registrar, __ecs_ids);
                    <Velocity as ::ecs::bundle::Bundle>::component_ids(__ecs_registrar, __ecs_ids);
                }

                const HAS_PAIRS: bool = false
                    || <Position as ::ecs::bundle::Bundle>::HAS_PAIRS
                    || <Velocity as ::ecs::bundle::Bundle>::HAS_PAIRS;

                fn take_pairs(&mut self, __ecs_sink: &mut impl ::ecs::bundle::PairSink) {
                    let Self { position: __ecs_field_0, velocity: __ecs_field_1 } = self;
                    <Position as ::ecs::bundle::Bundle>::take_pairs(__ecs_field_0, __ecs_sink);
                    <Velocity as ::ecs::bundle::Bundle>::take_pairs(__ecs_field_1, __ecs_sink);
                }

                #[inline(always)]
                fn write_components(self, __ecs_writer: &mut impl ::ecs::bundle::ComponentWriter) {
                    let Self { position: __ecs_field_0, velocity: __ecs_field_1 } = self;
                    <Position as ::ecs::bundle::Bundle>::write_components(__ecs_field_0, __ecs_writer);
                    <Velocity as ::ecs::bundle::Bundle>::write_components(__ecs_field_1, __ecs_writer);
                }

                fn read_components(__ecs_reader: &mut impl ::ecs::bundle::ComponentReader) -> Self {
                    Self {
                        position: <Position as ::ecs::bundle::Bundle>::read_components(__ecs_reader),
                        velocity: <Velocity as ::ecs::bundle::Bundle>::read_components(__ecs_reader)
                    }
                }
            }
        };
        assert_eq!(out, expected.to_string());
    }

    #[test]
    fn tuple_struct_uses_positional_fields() {
        let out = expand(parse_quote! { struct Player(Body, (Health, Name)); });
        assert!(out.contains("let Self (__ecs_field_0 , __ecs_field_1) = self ;"), "{out}");
        assert!(
            out.contains(
                "< (Health , Name) as :: ecs :: bundle :: Bundle > :: write_components \
                 (__ecs_field_1 , __ecs_writer) ;"
            ),
            "{out}"
        );
        assert!(
            out.contains(
                "Self (< Body as :: ecs :: bundle :: Bundle > :: read_components (__ecs_reader) , \
                 < (Health , Name) as :: ecs :: bundle :: Bundle > :: read_components \
                 (__ecs_reader))"
            ),
            "{out}"
        );
        assert!(
            out.contains("where Body : :: ecs :: bundle :: Bundle , (Health , Name) : :: ecs :: bundle :: Bundle"),
            "{out}"
        );
    }

    #[test]
    fn unit_and_empty_structs_are_empty_bundles() {
        let out = expand(parse_quote! { struct Nothing; });
        assert!(!out.contains("where"), "{out}");
        assert!(!out.contains("__ecs_"), "{out}");
        assert!(out.contains("-> Self { Self }"), "{out}");
        assert!(out.contains("fn component_ids (_ :"), "{out}");

        let out = expand(parse_quote! { struct Empty {} });
        assert!(out.contains("let Self { } = self ;"), "{out}");
        assert!(out.contains("-> Self { Self { } }"), "{out}");
    }

    #[test]
    fn generics_are_copied_and_bounded() {
        let out = expand(parse_quote! {
            struct Pair<'a, T: Clone, const N: usize> where T: Send { first: T, rest: Tagged<'a, N> }
        });
        assert!(
            out.contains(
                "unsafe impl < 'a , T : Clone , const N : usize > :: ecs :: bundle :: Bundle \
                 for Pair < 'a , T , N > where T : Send , T : :: ecs :: bundle :: Bundle , \
                 Tagged < 'a , N > : :: ecs :: bundle :: Bundle {"
            ),
            "{out}"
        );
    }

    #[test]
    fn raw_field_names_round_trip() {
        let out = expand(parse_quote! { struct Raw { r#type: Kind } });
        assert!(out.contains("let Self { r#type : __ecs_field_0 } = self ;"), "{out}");
    }

    #[test]
    fn enums_and_unions_are_rejected() {
        let message = "#[derive(Bundle)] needs a struct: every field is a bundle \
                       (a component or a nested bundle)";
        let err = derive_bundle(parse_quote! { enum E { A(Position) } }).unwrap_err();
        assert_eq!(err.to_string(), message);
        let err = derive_bundle(parse_quote! { union U { a: u32 } }).unwrap_err();
        assert_eq!(err.to_string(), message);
    }
}
