//! `all_tuples!`: one `macro_rules!` invocation per tuple arity.
//!
//! `all_tuples!(impl_bundle, 0, 2, B)` generates:
//!
//! ```text
//! impl_bundle!();
//! impl_bundle!(B0);
//! impl_bundle!(B0, B1);
//! ```
//!
//! and, with several idents, `all_tuples!(impl_fetch, 1, 2, F, f)` generates:
//!
//! ```text
//! impl_fetch!((F0, f0));
//! impl_fetch!((F0, f0), (F1, f1));
//! ```
//!
//! Each numbered ident keeps the span of the ident it was built from, so errors in
//! the called macro's expansion point at the `all_tuples!` input.

use proc_macro2::TokenStream as TokenStream2;
use quote::{format_ident, quote};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Ident, LitInt, Path, Token};

/// Parses `macro_name, START, END, Ident, ...` and builds the invocations.
pub(crate) fn all_tuples(input: TokenStream2) -> syn::Result<TokenStream2> {
    let input: AllTuples = syn::parse2(input)?;
    let AllTuples { macro_path, idents, start, end } = input;

    let invocations = (start..=end).map(|arity| {
        let items = (0..arity).map(|i| {
            let numbered = idents.iter().map(|ident| format_ident!("{}{}", ident, i, span = ident.span()));
            if idents.len() == 1 {
                quote! { #(#numbered)* }
            } else {
                quote! { (#(#numbered),*) }
            }
        });
        quote! { #macro_path!(#(#items),*); }
    });
    Ok(quote! { #(#invocations)* })
}

/// The parsed input of `all_tuples!`.
struct AllTuples {
    /// The macro to call, usually a plain ident.
    macro_path: Path,
    /// The smallest arity, inclusive.
    start: usize,
    /// The largest arity, inclusive.
    end: usize,
    /// The ident stems numbered `0..arity` in each invocation; at least one.
    idents: Vec<Ident>,
}

impl Parse for AllTuples {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let macro_path: Path = input.parse()?;
        input.parse::<Token![,]>()?;
        let (start_lit, start) = parse_bound(input, "START")?;
        input.parse::<Token![,]>()?;
        let (end_lit, end) = parse_bound(input, "END")?;
        input.parse::<Token![,]>()?;
        let idents: Punctuated<Ident, Token![,]> = Punctuated::parse_terminated(input)?;
        if idents.is_empty() {
            return Err(input.error("expected at least one ident after END: `all_tuples!(macro_name, START, END, T)`"));
        }

        if start > end {
            return Err(syn::Error::new_spanned(
                quote! { #start_lit, #end_lit },
                format!("START ({start}) must not be greater than END ({end})"),
            ));
        }
        Ok(AllTuples { macro_path, start, end, idents: idents.into_iter().collect() })
    }
}

/// Parses the literal for `START` or `END` (`which`): a non-negative integer
/// that fits in `usize`. Returns the literal (for error spans) and its value.
fn parse_bound(input: ParseStream<'_>, which: &str) -> syn::Result<(LitInt, usize)> {
    let expected = format!(
        "expected a non-negative integer literal for {which}: \
         `all_tuples!(macro_name, START, END, T)`"
    );
    if !input.peek(LitInt) {
        return Err(input.error(expected));
    }
    let lit: LitInt = input.parse()?;
    let value = lit.base10_parse().map_err(|_| syn::Error::new_spanned(&lit, &expected))?;
    Ok((lit, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expands `input`, panicking on error.
    fn expand(input: TokenStream2) -> String {
        all_tuples(input).expect("expansion succeeds").to_string()
    }

    /// Expands `input`, panicking on success; returns the error message.
    fn expand_err(input: TokenStream2) -> String {
        all_tuples(input).expect_err("expansion fails").to_string()
    }

    #[test]
    fn one_ident_lists_numbered_idents() {
        let out = expand(quote! { impl_bundle, 0, 2, B });
        let expected = quote! {
            impl_bundle!();
            impl_bundle!(B0);
            impl_bundle!(B0, B1);
        };
        assert_eq!(out, expected.to_string());
    }

    #[test]
    fn several_idents_list_groups() {
        let out = expand(quote! { impl_fetch, 1, 3, F, f, });
        let expected = quote! {
            impl_fetch!((F0, f0));
            impl_fetch!((F0, f0), (F1, f1));
            impl_fetch!((F0, f0), (F1, f1), (F2, f2));
        };
        assert_eq!(out, expected.to_string());
    }

    #[test]
    fn zero_with_groups_and_single_arity() {
        assert_eq!(expand(quote! { m, 0, 0, A, a }), quote! { m!(); }.to_string());
        assert_eq!(expand(quote! { m, 2, 2, P }), quote! { m!(P0, P1); }.to_string());
    }

    #[test]
    fn macro_path_is_allowed() {
        let out = expand(quote! { crate::impl_x, 1, 1, T });
        assert_eq!(out, quote! { crate::impl_x!(T0); }.to_string());
    }

    #[test]
    fn numbered_idents_keep_the_input_span() {
        let stem = Ident::new("Q", proc_macro2::Span::call_site());
        let input: AllTuples = syn::parse2(quote! { m, 1, 1, #stem }).unwrap();
        assert_eq!(input.idents[0], stem);
        // `format_ident!` with `span =` is used; the fallback `Span` has no
        // observable location, so this checks the expansion only.
        assert_eq!(expand(quote! { m, 1, 1, #stem }), "m ! (Q0) ;");
    }

    #[test]
    fn start_greater_than_end_is_rejected() {
        assert_eq!(expand_err(quote! { m, 3, 1, T }), "START (3) must not be greater than END (1)");
    }

    #[test]
    fn non_integer_bounds_are_rejected() {
        let err = expand_err(quote! { m, "0", 2, T });
        assert!(err.starts_with("expected a non-negative integer literal for START"), "{err}");
        let err = expand_err(quote! { m, 0, 2.5, T });
        assert!(err.starts_with("expected a non-negative integer literal for END"), "{err}");
        let err = expand_err(quote! { m, -1, 2, T });
        assert!(err.starts_with("expected a non-negative integer literal for START"), "{err}");
    }

    #[test]
    fn missing_idents_are_rejected() {
        let err = expand_err(quote! { m, 0, 2 });
        assert_eq!(err, "expected `,`");
        let err = expand_err(quote! { m, 0, 2, });
        // At the end of input, `syn` prefixes "unexpected end of input, ".
        assert!(err.contains("expected at least one ident after END"), "{err}");
    }
}
