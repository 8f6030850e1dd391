//! `#[derive(SystemParam)]`: a struct of system parameters (named fields, a
//! tuple struct or a unit struct) is a parameter.
//!
//! The struct may have the lifetimes `'w` (world borrows) and `'s` (state
//! borrows), and no type or const parameters. For
//! `struct Movement<'w, 's> { q: Query<'w, 's, &'static mut Position>, time: Res<'w, Time> }`
//! the impl delegates to the tuple of the field types:
//!
//! ```text
//! unsafe impl<'w, 's> SystemParam for Movement<'w, 's> {
//!     type State = __State; // a `pub` wrapper of <(F0, F1,) as SystemParam>::State in a private field
//!     type Item<'__w, '__s> = Movement<'__w, '__s>;
//!     const ACCESS = ParamAccess::fields("Movement", &[("q", F0::ACCESS), ("time", F1::ACCESS)]);
//!     // init_state / apply / get_param forward to the tuple; get_param then
//!     // moves the tuple's items into the struct's fields.
//! }
//! const _: () = ::ecs::system::check_system::<Movement<'static, 'static>>("Movement");
//! ```
//!
//! A `ParamSet<'w, 's, (Query<'w, 's, ..>, ..)>` field names its members
//! with the struct's lifetimes, while the tuple's item names them with the
//! run's: its value is relabelled (`__RelabelParamSet::__relabel`, the
//! members being the same parameters). Which fields are sets is left to
//! method resolution on their concrete types (`ecs::system::__FieldItem`), so
//! an alias of `ParamSet` is relabelled and another type named `ParamSet` is
//! not.
//!
//! The free `const` item makes conflicts between the struct's own fields a
//! `cargo check` error. The impl sits in an anonymous `const` block with its
//! state wrapper, whose field keeps the field types out of the public
//! interface (a `pub` struct may hold parameters of private types, as in
//! Bevy).

use proc_macro2::TokenStream as TokenStream2;
use quote::{format_ident, quote};
use syn::DeriveInput;

use crate::fields::{reject_type_generics, struct_members, with_method_lifetimes, with_static_lifetimes};

/// Builds the `SystemParam` impl for `input`.
pub(crate) fn derive_system_param(input: DeriveInput) -> syn::Result<TokenStream2> {
    reject_type_generics(&input, "SystemParam")?;
    for lifetime in input.generics.lifetimes() {
        let name = lifetime.lifetime.ident.to_string();
        if name != "w" && name != "s" {
            return Err(syn::Error::new(
                lifetime.lifetime.span(),
                "#[derive(SystemParam)] structs may only have the lifetimes 'w (world) and 's (state)",
            ));
        }
    }
    let (fields, _) = struct_members(&input, "SystemParam")?;
    let ident = &input.ident;
    let name = ident.to_string();
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let item_lifetimes: Vec<TokenStream2> = input
        .generics
        .lifetimes()
        .map(|lifetime| if lifetime.lifetime.ident == "w" { quote!('__w) } else { quote!('__s) })
        .collect();
    let static_lifetimes: Vec<TokenStream2> = input.generics.lifetimes().map(|_| quote!('static)).collect();
    let types: Vec<_> = fields.iter().map(|(_, ty)| *ty).collect();
    let names: Vec<_> = fields.iter().map(|(name, _)| name).collect();
    let labels: Vec<String> = names.iter().map(|name| quote!(#name).to_string()).collect();
    let bindings: Vec<_> = (0..fields.len()).map(|i| format_ident!("__field{}", i)).collect();
    // A `ParamSet` field's members name the struct's lifetimes, not the
    // run's: its item is relabelled to the field's type (any other value
    // passes through; see `ecs::system::__FieldItem`).
    let values: Vec<TokenStream2> = bindings.iter().map(|binding| quote!(::ecs::__relabel_field!(#binding))).collect();
    let tuple = quote!((#(#types,)*));
    // The fields' state does not depend on the borrows' lifetimes: named with
    // `'static` ones, it needs no generics on the wrapper.
    let static_tuple = with_static_lifetimes(tuple.clone());
    // The fields as `get_param`'s lifetimes name them: each field's value is
    // its type's item for the run's borrows (a `PhantomData<&'w T>` field
    // names them in a type that is its own item).
    let item_tuple = with_method_lifetimes(tuple.clone());
    Ok(quote! {
        const _: () = {
            /// The state of the derived parameter: its fields' states.
            #[doc(hidden)]
            pub struct __State {
                state: <#static_tuple as ::ecs::system::SystemParam>::State,
            }

            // SAFETY: every field declares its own access; the struct forwards to the
            // tuple of its fields, whose access is their union.
            #[automatically_derived]
            unsafe impl #impl_generics ::ecs::system::SystemParam for #ident #ty_generics #where_clause {
                type State = __State;
                type Item<'__w, '__s> = #ident<#(#item_lifetimes),*>;
                const ACCESS: ::ecs::system::ParamAccess = ::ecs::system::ParamAccess::fields(
                    #name,
                    &[#((#labels, <#types as ::ecs::system::SystemParam>::ACCESS)),*],
                );
                const HAS_DEFERRED: bool = <#tuple as ::ecs::system::SystemParam>::HAS_DEFERRED;

                fn init_state(world: &mut ::ecs::world::World, meta: &mut ::ecs::system::SystemMeta) -> Self::State {
                    __State { state: <#tuple as ::ecs::system::SystemParam>::init_state(world, meta) }
                }

                fn apply(state: &mut Self::State, world: &mut ::ecs::world::World) {
                    <#tuple as ::ecs::system::SystemParam>::apply(&mut state.state, world)
                }

                fn defer(state: &mut Self::State, world: &mut ::ecs::world::World) {
                    <#tuple as ::ecs::system::SystemParam>::defer(&mut state.state, world)
                }

                fn discard(state: &mut Self::State) {
                    <#tuple as ::ecs::system::SystemParam>::discard(&mut state.state)
                }

                unsafe fn validate_param(
                    state: &mut Self::State,
                    meta: &::ecs::system::SystemMeta,
                    world: &::ecs::world::World,
                ) -> bool {
                    // SAFETY: forwarded to the caller.
                    unsafe { <#tuple as ::ecs::system::SystemParam>::validate_param(&mut state.state, meta, world) }
                }

                unsafe fn get_param<'__w, '__s>(
                    state: &'__s mut Self::State,
                    meta: &::ecs::system::SystemMeta,
                    world: &'__w ::ecs::world::World,
                    this_run: ::ecs::storage::Tick,
                ) -> Self::Item<'__w, '__s> {
                    // SAFETY: forwarded to the caller.
                    let (#(#bindings,)*) = unsafe {
                        <#item_tuple as ::ecs::system::SystemParam>::get_param(&mut state.state, meta, world, this_run)
                    };
                    #ident { #(#names: #values),* }
                }
            }
        };

        const _: () = ::ecs::system::check_system::<#ident<#(#static_lifetimes),*>>(#name);
    })
}
