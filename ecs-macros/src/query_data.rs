//! `#[derive(QueryData)]` and `#[derive(QueryFilter)]`: a struct of query
//! terms (named fields, a tuple struct or a unit struct) is a term.
//!
//! Both delegate every `WorldQuery` method to the tuple of the field types (with
//! lifetimes replaced by `'static`, so `&'w mut Position` works), and the const
//! access set is the tuple's, labelled with the struct's name.
//!
//! `QueryData` also generates `{Name}Item<'w>` (a tuple struct for a tuple
//! struct), whose fields are the fields' items (`&'w mut Position` becomes `Mut<'w, Position>`). Without
//! `#[query_data(mutable)]` every field must be read-only (checked by a bound at
//! each field's span) and the struct is its own read-only form; with it, a
//! second struct `{Name}ReadOnly` (and its `{Name}ReadOnlyItem<'w>`) of the
//! fields' read-only forms is generated for `QueryState::iter`.

use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{DeriveInput, Ident, Member, Visibility};

use crate::fields::{reject_type_generics, struct_members, with_static_lifetimes};

/// Whether `#[query_data(mutable)]` is present; errors on anything else in it.
fn parse_mutable(input: &DeriveInput) -> syn::Result<bool> {
    let mut mutable = false;
    for attribute in input.attrs.iter().filter(|attribute| attribute.path().is_ident("query_data")) {
        attribute.parse_nested_meta(|meta| {
            if meta.path.is_ident("mutable") {
                mutable = true;
                Ok(())
            } else {
                Err(meta.error("unknown query_data option; the only one is `mutable`"))
            }
        })?;
    }
    Ok(mutable)
}

/// The delegating `WorldQuery` impl of `ident` (with its generics) over the
/// field types `types`; `item` builds `Self::Item` from the tuple item bound to `bindings`.
fn world_query_impl(
    input_generics: &syn::Generics,
    ident: &Ident,
    types: &[TokenStream2],
    item_type: TokenStream2,
    item: TokenStream2,
    bindings: &[Ident],
    label: &str,
) -> TokenStream2 {
    let (impl_generics, ty_generics, where_clause) = input_generics.split_for_impl();
    let tuple = quote!((#(#types,)*));
    quote! {
        // SAFETY: forwards every method to the tuple of the field terms, which
        // upholds the contract; the item only regroups the tuple's item.
        #[automatically_derived]
        unsafe impl #impl_generics ::ecs::query::WorldQuery for #ident #ty_generics #where_clause {
            type Item<'__w> = #item_type;
            type Fetch<'__w> = <#tuple as ::ecs::query::WorldQuery>::Fetch<'__w>;
            type State = <#tuple as ::ecs::query::WorldQuery>::State;
            type Cache = <#tuple as ::ecs::query::WorldQuery>::Cache;
            const IS_DENSE: bool = <#tuple as ::ecs::query::WorldQuery>::IS_DENSE;
            const ACCESS: ::ecs::query::AccessSet =
                <#tuple as ::ecs::query::WorldQuery>::ACCESS.with_label(#label);
            const MAY_TOGGLE: bool = <#tuple as ::ecs::query::WorldQuery>::MAY_TOGGLE;

            fn init_state(world: &mut ::ecs::world::World) -> Self::State {
                <#tuple as ::ecs::query::WorldQuery>::init_state(world)
            }
            fn update_access(state: &Self::State, access: &mut ::ecs::query::QueryAccess) {
                <#tuple as ::ecs::query::WorldQuery>::update_access(state, access)
            }
            fn required_ids(state: &Self::State, ids: &mut impl ::core::ops::FnMut(::ecs::entity::Id)) {
                <#tuple as ::ecs::query::WorldQuery>::required_ids(state, ids)
            }
            fn mentioned_ids(state: &Self::State, ids: &mut impl ::core::ops::FnMut(::ecs::entity::Id)) {
                <#tuple as ::ecs::query::WorldQuery>::mentioned_ids(state, ids)
            }
            #[inline]
            fn match_archetype(
                state: &Self::State,
                archetype: &::ecs::archetype::Archetype,
            ) -> ::core::option::Option<Self::Cache> {
                <#tuple as ::ecs::query::WorldQuery>::match_archetype(state, archetype)
            }
            #[inline]
            fn variant_count(state: &Self::State, archetype: &::ecs::archetype::Archetype) -> usize {
                <#tuple as ::ecs::query::WorldQuery>::variant_count(state, archetype)
            }
            #[inline]
            fn match_variant(
                state: &Self::State,
                archetype: &::ecs::archetype::Archetype,
                variant: usize,
            ) -> ::core::option::Option<Self::Cache> {
                <#tuple as ::ecs::query::WorldQuery>::match_variant(state, archetype, variant)
            }
            fn set_source(state: &mut Self::State, component: ::core::any::TypeId, source: ::ecs::entity::Entity) {
                <#tuple as ::ecs::query::WorldQuery>::set_source(state, component, source)
            }
            #[inline]
            fn checks_toggles(state: &Self::State, archetype: &::ecs::archetype::Archetype) -> bool {
                <#tuple as ::ecs::query::WorldQuery>::checks_toggles(state, archetype)
            }
            #[inline]
            fn init_fetch<'__w>(
                world: &'__w ::ecs::world::World,
                state: &Self::State,
                last_run: ::ecs::storage::Tick,
                this_run: ::ecs::storage::Tick,
            ) -> Self::Fetch<'__w> {
                <#tuple as ::ecs::query::WorldQuery>::init_fetch(world, state, last_run, this_run)
            }
            #[inline]
            unsafe fn set_archetype<'__w>(
                fetch: &mut Self::Fetch<'__w>,
                cache: &Self::Cache,
                archetype: &'__w ::ecs::archetype::Archetype,
            ) {
                // SAFETY: forwarded to the caller.
                unsafe { <#tuple as ::ecs::query::WorldQuery>::set_archetype(fetch, cache, archetype) }
            }
            #[inline]
            unsafe fn matches_every_row(fetch: &Self::Fetch<'_>, len: usize) -> bool {
                // SAFETY: forwarded to the caller.
                unsafe { <#tuple as ::ecs::query::WorldQuery>::matches_every_row(fetch, len) }
            }
            #[inline]
            unsafe fn matches_row(fetch: &Self::Fetch<'_>, entity: ::ecs::entity::Entity, row: usize) -> bool {
                // SAFETY: forwarded to the caller.
                unsafe { <#tuple as ::ecs::query::WorldQuery>::matches_row(fetch, entity, row) }
            }
            #[inline]
            #[allow(clippy::unused_unit)]
            unsafe fn fetch<'__w>(
                fetch: &mut Self::Fetch<'__w>,
                entity: ::ecs::entity::Entity,
                row: usize,
            ) -> Self::Item<'__w> {
                // SAFETY: forwarded to the caller.
                #[allow(unused_variables, clippy::let_unit_value)]
                let (#(#bindings,)*) = unsafe { <#tuple as ::ecs::query::WorldQuery>::fetch(fetch, entity, row) };
                #item
            }
        }
    }
}

/// An item struct `name<'w>` with one field per term: the term's item,
/// under the term's field name (`tuple`: a tuple struct, as the derived one).
fn item_struct(
    vis: &Visibility,
    name: &Ident,
    fields: &[&Member],
    tuple: bool,
    types: &[TokenStream2],
    of: &Ident,
) -> TokenStream2 {
    let doc = format!("The item of [`{of}`]: one field per term.");
    if fields.is_empty() {
        // No term: only the lifetime, held by a marker (`item_value`).
        return quote! {
            #[doc = #doc]
            #[automatically_derived]
            #vis struct #name<'__w>(::core::marker::PhantomData<&'__w ()>);
        };
    }
    if tuple {
        return quote! {
            #[doc = #doc]
            #[automatically_derived]
            #vis struct #name<'__w>(
                #(
                    #[allow(missing_docs)]
                    pub <#types as ::ecs::query::WorldQuery>::Item<'__w>,
                )*
            );
        };
    }
    quote! {
        #[doc = #doc]
        #[automatically_derived]
        #vis struct #name<'__w> {
            #(
                #[allow(missing_docs)]
                pub #fields: <#types as ::ecs::query::WorldQuery>::Item<'__w>,
            )*
        }
    }
}

/// The expression building item struct `name` (see [`item_struct`]) from
/// the terms' items bound to `bindings`.
fn item_value(name: &Ident, fields: &[&Member], bindings: &[Ident]) -> TokenStream2 {
    if fields.is_empty() {
        return quote!(#name(::core::marker::PhantomData));
    }
    quote!(#name { #(#fields: #bindings),* })
}

/// Builds the `QueryData` impls (and item structs) for `input`.
pub(crate) fn derive_query_data(input: DeriveInput) -> syn::Result<TokenStream2> {
    reject_type_generics(&input, "QueryData")?;
    let mutable = parse_mutable(&input)?;
    let (fields, tuple) = struct_members(&input, "QueryData")?;
    let ident = &input.ident;
    let vis = &input.vis;
    let names: Vec<&Member> = fields.iter().map(|(name, _)| name).collect();
    let types: Vec<TokenStream2> = fields.iter().map(|(_, ty)| with_static_lifetimes(quote!(#ty))).collect();
    let spans: Vec<Span> = fields.iter().map(|(_, ty)| ty.span()).collect();
    let bindings: Vec<Ident> = (0..fields.len()).map(|i| format_ident!("__field{}", i)).collect();
    let item_name = format_ident!("{}Item", ident);
    let label = ident.to_string();
    let item_struct_tokens = item_struct(vis, &item_name, &names, tuple, &types, ident);
    let main = world_query_impl(
        &input.generics,
        ident,
        &types,
        quote!(#item_name<'__w>),
        item_value(&item_name, &names, &bindings),
        &bindings,
        &label,
    );
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let read_only = if mutable {
        let ro_name = format_ident!("{}ReadOnly", ident);
        let ro_item = format_ident!("{}ReadOnlyItem", ident);
        let ro_types: Vec<TokenStream2> =
            types.iter().map(|ty| quote!(<#ty as ::ecs::query::QueryData>::ReadOnly)).collect();
        let doc = format!("The read-only form of [`{ident}`] (used by `QueryState::iter`).");
        let ro_struct = quote! {
            #[doc = #doc]
            #[automatically_derived]
            #vis struct #ro_name;
        };
        let ro_item_struct = item_struct(vis, &ro_item, &names, tuple, &ro_types, &ro_name);
        let ro_impl = world_query_impl(
            &syn::Generics::default(),
            &ro_name,
            &ro_types,
            quote!(#ro_item<'__w>),
            item_value(&ro_item, &names, &bindings),
            &bindings,
            &label,
        );
        quote! {
            #ro_struct
            #ro_item_struct
            #ro_impl
            // SAFETY: the read-only form is made of the fields' read-only forms.
            #[automatically_derived]
            unsafe impl ::ecs::query::QueryData for #ro_name {
                type ReadOnly = Self;
            }
            // SAFETY: every field is a read-only form.
            #[automatically_derived]
            unsafe impl ::ecs::query::ReadOnlyQueryData for #ro_name {}
            // SAFETY: `#ro_name` reads what the fields access, only for reading.
            #[automatically_derived]
            unsafe impl #impl_generics ::ecs::query::QueryData for #ident #ty_generics #where_clause {
                type ReadOnly = #ro_name;
            }
        }
    } else {
        let assertions = types.iter().zip(&spans).map(|(ty, span)| {
            quote_spanned! {*span=>
                __assert_read_only::<#ty>();
            }
        });
        quote! {
            // SAFETY: every field is read-only (asserted below), so the struct is its
            // own read-only form.
            #[automatically_derived]
            unsafe impl #impl_generics ::ecs::query::QueryData for #ident #ty_generics #where_clause {
                type ReadOnly = Self;
            }
            // SAFETY: as above.
            #[automatically_derived]
            unsafe impl #impl_generics ::ecs::query::ReadOnlyQueryData for #ident #ty_generics #where_clause {}
            const _: fn() = || {
                // A field that writes needs `#[query_data(mutable)]` on the struct.
                fn __assert_read_only<Q: ::ecs::query::ReadOnlyQueryData>() {}
                #(#assertions)*
            };
        }
    };
    let static_lifetimes: Vec<TokenStream2> = input.generics.lifetimes().map(|_| quote!('static)).collect();
    let data_assertions = types.iter().zip(&spans).map(|(ty, span)| {
        quote_spanned! {*span=>
            __assert_query_data::<#ty>();
        }
    });
    let static_type = quote!(#ident<#(#static_lifetimes),*>);
    Ok(quote! {
        // The struct is a type-level description: mark its fields read so it
        // does not warn as dead code.
        const _: () = {
            #[allow(dead_code)]
            fn __fields_are_terms(value: &#static_type) {
                #(let _ = &value.#names;)*
            }
        };
        #item_struct_tokens
        #main
        #read_only
        const _: fn() = || {
            fn __assert_query_data<Q: ::ecs::query::QueryData>() {}
            #(#data_assertions)*
        };
        const _: () = ::ecs::query::check_query(
            &<#ident<#(#static_lifetimes),*> as ::ecs::query::WorldQuery>::ACCESS,
            &<() as ::ecs::query::WorldQuery>::ACCESS,
        );
    })
}

/// Builds the `QueryFilter` impl for `input`.
pub(crate) fn derive_query_filter(input: DeriveInput) -> syn::Result<TokenStream2> {
    reject_type_generics(&input, "QueryFilter")?;
    let (fields, _) = struct_members(&input, "QueryFilter")?;
    let ident = &input.ident;
    let types: Vec<TokenStream2> = fields.iter().map(|(_, ty)| with_static_lifetimes(quote!(#ty))).collect();
    let spans: Vec<Span> = fields.iter().map(|(_, ty)| ty.span()).collect();
    let bindings: Vec<Ident> = (0..fields.len()).map(|i| format_ident!("__field{}", i)).collect();
    let label = ident.to_string();
    let main = world_query_impl(&input.generics, ident, &types, quote!(()), quote!(()), &bindings, &label);
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let names: Vec<&Member> = fields.iter().map(|(name, _)| name).collect();
    let static_lifetimes: Vec<TokenStream2> = input.generics.lifetimes().map(|_| quote!('static)).collect();
    let assertions = types.iter().zip(&spans).map(|(ty, span)| {
        quote_spanned! {*span=>
            __assert_filter::<#ty>();
        }
    });
    Ok(quote! {
        const _: () = {
            #[allow(dead_code)]
            fn __fields_are_terms(value: &#ident<#(#static_lifetimes),*>) {
                #(let _ = &value.#names;)*
            }
        };
        #main
        // SAFETY: every field is a filter (asserted below), and filters never write.
        #[automatically_derived]
        unsafe impl #impl_generics ::ecs::query::QueryFilter for #ident #ty_generics #where_clause {}
        const _: fn() = || {
            fn __assert_filter<F: ::ecs::query::QueryFilter>() {}
            #(#assertions)*
        };
    })
}
