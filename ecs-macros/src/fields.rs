//! Helpers shared by the derives over structs of terms (`SystemParam`,
//! `QueryData`, `QueryFilter`, with named or unnamed fields): field
//! extraction and lifetime rewriting.

use proc_macro2::{Spacing, TokenStream as TokenStream2, TokenTree};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Ident, Index, Member, Type};

/// The most fields a derived struct may have (the tuple impls go up to 16).
pub(crate) const MAX_FIELDS: usize = 16;

/// The fields of `input` (a struct with named fields, unnamed ones or none)
/// as members (`speed` or `0`), at most [`MAX_FIELDS`] of them, and whether
/// they are unnamed (a tuple struct).
pub(crate) fn struct_members<'a>(input: &'a DeriveInput, derive: &str) -> syn::Result<(Vec<(Member, &'a Type)>, bool)> {
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new(input.ident.span(), format!("#[derive({derive})] applies to structs")));
    };
    let members: Vec<(Member, &Type)> = data
        .fields
        .iter()
        .enumerate()
        .map(|(position, field)| match &field.ident {
            Some(name) => (Member::Named(name.clone()), &field.ty),
            None => (Member::Unnamed(Index { index: position as u32, span: field.ty.span() }), &field.ty),
        })
        .collect();
    if members.len() > MAX_FIELDS {
        return Err(syn::Error::new(
            members[MAX_FIELDS].1.span(),
            format!("#[derive({derive})] supports at most {MAX_FIELDS} fields; group some into a nested derived type"),
        ));
    }
    Ok((members, matches!(data.fields, Fields::Unnamed(_))))
}

/// Rejects type and const parameters (lifetimes are allowed).
pub(crate) fn reject_type_generics(input: &DeriveInput, derive: &str) -> syn::Result<()> {
    if let Some(param) = input.generics.type_params().next() {
        return Err(syn::Error::new(
            param.ident.span(),
            format!("#[derive({derive})] does not support type parameters"),
        ));
    }
    if let Some(param) = input.generics.const_params().next() {
        return Err(syn::Error::new(
            param.ident.span(),
            format!("#[derive({derive})] does not support const parameters"),
        ));
    }
    Ok(())
}

/// `tokens` with every lifetime replaced by `'static` (`&'w mut T` -> `&'static mut T`),
/// but those a `for<'a>` binder in them introduces.
pub(crate) fn with_static_lifetimes(tokens: TokenStream2) -> TokenStream2 {
    let mut bound = Vec::new();
    binder_lifetimes(tokens.clone(), &mut bound);
    map_lifetimes(tokens, &|name| (!bound.iter().any(|bound| bound == name)).then_some("static"))
}

/// `tokens` with the lifetimes `'w` and `'s` renamed `'__w` and `'__s`
/// (others, `'static` among them, kept): a struct's field types as the
/// lifetimes of a method's own generics name them.
pub(crate) fn with_method_lifetimes(tokens: TokenStream2) -> TokenStream2 {
    let mut bound = Vec::new();
    binder_lifetimes(tokens.clone(), &mut bound);
    map_lifetimes(tokens, &|name| match name {
        _ if bound.iter().any(|bound| bound == name) => None,
        "w" => Some("__w"),
        "s" => Some("__s"),
        _ => None,
    })
}

/// Collects into `bound` the names of the lifetimes `for<..>` binders in
/// `tokens` introduce (`for<'a> fn(&'a u8)`: `a`).
fn binder_lifetimes(tokens: TokenStream2, bound: &mut Vec<String>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut at = 0;
    while at < trees.len() {
        match &trees[at] {
            TokenTree::Ident(ident)
                if ident == "for"
                    && matches!(trees.get(at + 1), Some(TokenTree::Punct(open)) if open.as_char() == '<') =>
            {
                at += 2;
                while at < trees.len() && !matches!(&trees[at], TokenTree::Punct(close) if close.as_char() == '>') {
                    if let (TokenTree::Punct(quote), Some(TokenTree::Ident(name))) = (&trees[at], trees.get(at + 1))
                        && quote.as_char() == '\''
                    {
                        bound.push(name.to_string());
                    }
                    at += 1;
                }
            }
            TokenTree::Group(group) => binder_lifetimes(group.stream(), bound),
            _ => {}
        }
        at += 1;
    }
}

/// `tokens` with each lifetime `'name` for which `rename` gives a new name
/// renamed to it.
fn map_lifetimes(tokens: TokenStream2, rename: &dyn Fn(&str) -> Option<&'static str>) -> TokenStream2 {
    let mut out = Vec::new();
    let mut after_quote = false;
    for tree in tokens {
        match tree {
            TokenTree::Punct(punct) if punct.as_char() == '\'' && punct.spacing() == Spacing::Joint => {
                after_quote = true;
                out.push(TokenTree::Punct(punct));
                continue;
            }
            TokenTree::Ident(ident) if after_quote => match rename(&ident.to_string()) {
                Some(name) => out.push(TokenTree::Ident(Ident::new(name, ident.span()))),
                None => out.push(TokenTree::Ident(ident)),
            },
            TokenTree::Group(group) => {
                let mut replaced = proc_macro2::Group::new(group.delimiter(), map_lifetimes(group.stream(), rename));
                replaced.set_span(group.span());
                out.push(TokenTree::Group(replaced));
            }
            other => out.push(other),
        }
        after_quote = false;
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn lifetimes_become_static() {
        let out = with_static_lifetimes(quote!(Query<'w, 's, (&'w mut A, Option<&'a B>)>));
        assert_eq!(out.to_string(), quote!(Query<'static, 'static, (&'static mut A, Option<&'static B>)>).to_string());
    }

    #[test]
    fn lifetimes_a_binder_introduces_stay() {
        let out = with_static_lifetimes(quote!((Res<'w, A>, PhantomData<for<'a, 'b> fn(&'a u8, &'b u8) -> &'w u8>)));
        let expected = quote!((Res<'static, A>, PhantomData<for<'a, 'b> fn(&'a u8, &'b u8) -> &'static u8>));
        assert_eq!(out.to_string(), expected.to_string());
    }

    #[test]
    fn method_lifetimes_keep_a_binders_w() {
        let out = with_method_lifetimes(quote!((Res<'s, A>, PhantomData<for<'w> fn(&'w u8) -> &'w u8>)));
        let expected = quote!((Res<'__s, A>, PhantomData<for<'w> fn(&'w u8) -> &'w u8>));
        assert_eq!(out.to_string(), expected.to_string());
    }

    #[test]
    fn method_lifetimes_rename_w_and_s_only() {
        let out = with_method_lifetimes(quote!(Query<'w, 's, &'static A>));
        assert_eq!(out.to_string(), quote!(Query<'__w, '__s, &'static A>).to_string());
    }
}
