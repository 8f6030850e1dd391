//! `#[derive(Component)]`: an `impl ::ecs::component::Component` for a struct or
//! an enum.
//!
//! For `struct Name` with `#[component(storage = "sparse", on_add = hook)]` it
//! generates:
//!
//! ```text
//! #[automatically_derived]
//! impl ::ecs::component::Component for Name {
//!     const NAME: &'static str = "Name";
//!     const ID: u64 = ::ecs::util::component_type_id(::core::module_path!(), "Name");
//!     const STORAGE: ::ecs::component::StorageKind = ::ecs::component::StorageKind::Sparse;
//!     const HOOKS: ::ecs::component::ComponentHooks = ::ecs::component::ComponentHooks {
//!         on_add: ::core::option::Option::Some(::ecs::component::Hook::new(hook)),
//!         on_insert: ::core::option::Option::None,
//!         on_replace: ::core::option::Option::None,
//!         on_remove: ::core::option::Option::None,
//!     };
//! }
//! ```
//!
//! Every impl also gets `DEBUG` (the value's `Debug` impl as a type-erased
//! fn, or `None` when the type has no `Debug`; see `debug_tokens`).
//!
//! `STORAGE` is emitted only when a `storage` key is given, `CHANGE_DETECTION`
//! (as `false`) only for `change_detection = false`, `HOOKS` only when at
//! least one hook is given, and `FIELDLESS` (as `true`) only for a struct
//! without fields (`struct Enemy;`, `struct Enemy {}`, `struct Enemy();`);
//! otherwise the trait defaults (table storage, change ticks, no hooks, not
//! fieldless) apply. The bare key `toggle` emits `TOGGLE` (as `true`) and an
//! `impl ::ecs::component::Toggleable` next to the `Component` impl; it is
//! rejected together with `storage = "sparse"` (the enabled bits live in table
//! columns). Unions and generic types are rejected with a spanned error.

use proc_macro2::TokenStream as TokenStream2;
use quote::{ToTokens, quote};
use syn::ext::IdentExt;
use syn::meta::ParseNestedMeta;
use syn::{Data, DeriveInput, Fields, LitBool, LitStr, Path};

/// The keys `#[component(...)]` accepts, in the order error messages list them.
const KEYS: &str =
    "`storage`, `change_detection`, `on_add`, `on_insert`, `on_replace`, `on_remove`, `on_instantiate`, `toggle`";

/// Builds the `Component` impl for `input`, or a spanned error.
pub(crate) fn derive_component(input: DeriveInput) -> syn::Result<TokenStream2> {
    component_impl(&input, "Component", TokenStream2::new())
}

/// The `Component` impl of `input` with `extra` items appended to its body;
/// `derive` names the derive in error messages.
pub(crate) fn component_impl(input: &DeriveInput, derive: &str, extra: TokenStream2) -> syn::Result<TokenStream2> {
    if let Data::Union(data) = &input.data {
        return Err(syn::Error::new(data.union_token.span, format!("#[derive({derive})] cannot be used on a union")));
    }
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &input.generics,
            format!(
                "#[derive({derive})] does not support generic types: `Component::ID` must be one \
                 constant per type; wrap the generic data in a concrete type"
            ),
        ));
    }

    let attrs = ComponentAttrs::parse(input)?;
    let ident = &input.ident;
    let name = ident.unraw().to_string();
    // A non-generic type may still carry a (trivial) where clause; keep it.
    let where_clause = &input.generics.where_clause;

    let storage = attrs.storage.map(|kind| {
        let variant = kind.variant();
        quote! {
            const STORAGE: ::ecs::component::StorageKind =
                ::ecs::component::StorageKind::#variant;
        }
    });
    let change_detection = attrs.change_detection.filter(|&enabled| !enabled).map(|_| {
        quote! {
            const CHANGE_DETECTION: bool = false;
        }
    });
    let hooks = attrs.hooks.any().then(|| {
        let [on_add, on_insert, on_replace, on_remove] = attrs.hooks.slots().map(hook_tokens);
        quote! {
            const HOOKS: ::ecs::component::ComponentHooks = ::ecs::component::ComponentHooks {
                on_add: #on_add,
                on_insert: #on_insert,
                on_replace: #on_replace,
                on_remove: #on_remove,
            };
        }
    });

    let on_instantiate = attrs.on_instantiate.map(|policy| {
        let variant = policy.variant();
        // `override` copies values into instances: its clone function names
        // `Clone`, so a type without it fails to compile right here.
        let clone = matches!(policy, OnInstantiate::Override).then(|| {
            quote! {
                const CLONE: ::core::option::Option<::ecs::component::CloneFn> =
                    ::core::option::Option::Some(::ecs::component::clone_value::<Self>);
            }
        });
        quote! {
            const ON_INSTANTIATE: ::ecs::component::OnInstantiate =
                ::ecs::component::OnInstantiate::#variant;
            #clone
        }
    });

    // Only a struct without fields has its one value made from nothing (an
    // enum may have no variant at all: no value to make).
    let fieldless = matches!(&input.data, Data::Struct(data) if matches!(&data.fields, Fields::Unit)
        || data.fields.is_empty())
    .then(|| {
        quote! {
            const FIELDLESS: bool = true;
        }
    });

    // A toggleable component that is not `override` gets its clone fn when
    // the type has `Clone` (no bound: the probe falls back to `None`), so an
    // instance disabling an inherited value can get its own copy.
    let overrides = matches!(attrs.on_instantiate, Some(OnInstantiate::Override));
    let toggle = attrs.toggle.is_some().then(|| {
        let clone = (!overrides).then(|| {
            quote! {
                const CLONE: ::core::option::Option<::ecs::component::CloneFn> = {
                    #[allow(unused_imports)]
                    use ::ecs::component::NoClone as _;
                    ::ecs::component::CloneProbe::<Self>::CLONE
                };
            }
        });
        quote! {
            const TOGGLE: bool = true;
            #clone
        }
    });
    let toggleable_impl = attrs.toggle.is_some().then(|| {
        quote! {
            #[automatically_derived]
            impl ::ecs::component::Toggleable for #ident #where_clause {}
        }
    });

    let debug = debug_tokens();

    Ok(quote! {
        #[automatically_derived]
        impl ::ecs::component::Component for #ident #where_clause {
            const NAME: &'static str = #name;
            const ID: u64 = ::ecs::util::component_type_id(::core::module_path!(), #name);
            const TYPE_KEY: ::core::option::Option<&'static ::ecs::component::TypeKey<Self>> = {
                static KEY: ::ecs::component::TypeKey<#ident> = ::ecs::component::TypeKey::new();
                ::core::option::Option::Some(&KEY)
            };
            #debug
            #storage
            #change_detection
            #hooks
            #on_instantiate
            #fieldless
            #toggle
            #extra
        }
        #toggleable_impl
    })
}

/// `const DEBUG`: the type's `Debug` impl as a type-erased fn when it has
/// one, `None` otherwise, with no `Debug` bound (so components without `Debug`
/// still derive). `DebugProbe::<Self>::DEBUG` names an inherent constant that
/// exists only when `Self: Debug`; without it, path resolution falls back to
/// the `NoDebug` trait's constant (`None`), imported in the block. The type is
/// concrete (generics are rejected), so the choice is made per type.
fn debug_tokens() -> TokenStream2 {
    quote! {
        const DEBUG: ::core::option::Option<::ecs::component::DebugFn> = {
            #[allow(unused_imports)]
            use ::ecs::component::NoDebug as _;
            ::ecs::component::DebugProbe::<Self>::DEBUG
        };
    }
}

/// `::core::option::Option::Some(::ecs::component::Hook::new(path))`, or `None`.
fn hook_tokens(hook: Option<&Path>) -> TokenStream2 {
    match hook {
        Some(path) => quote! {
            ::core::option::Option::Some(::ecs::component::Hook::new(#path))
        },
        None => quote! { ::core::option::Option::None },
    }
}

/// Where a component's values live, as chosen by `storage = "..."`.
#[derive(Clone, Copy)]
enum Storage {
    /// `storage = "table"`: `::ecs::component::StorageKind::Table`.
    Table,
    /// `storage = "sparse"`: `::ecs::component::StorageKind::Sparse`.
    Sparse,
}

impl Storage {
    /// The `StorageKind` variant name.
    fn variant(self) -> syn::Ident {
        let name = match self {
            Storage::Table => "Table",
            Storage::Sparse => "Sparse",
        };
        syn::Ident::new(name, proc_macro2::Span::call_site())
    }
}

/// The hook paths given in `#[component(...)]`.
#[derive(Default)]
struct Hooks {
    /// `on_add = path`.
    on_add: Option<Path>,
    /// `on_insert = path`.
    on_insert: Option<Path>,
    /// `on_replace = path`.
    on_replace: Option<Path>,
    /// `on_remove = path`.
    on_remove: Option<Path>,
}

impl Hooks {
    /// Whether any hook was given.
    fn any(&self) -> bool {
        self.slots().iter().any(Option::is_some)
    }

    /// The four hooks in `ComponentHooks` field order.
    fn slots(&self) -> [Option<&Path>; 4] {
        [self.on_add.as_ref(), self.on_insert.as_ref(), self.on_replace.as_ref(), self.on_remove.as_ref()]
    }
}

/// Everything read from the `#[component(...)]` attributes of one type.
#[derive(Default)]
struct ComponentAttrs {
    /// The `storage` key, if given.
    storage: Option<Storage>,
    /// The `change_detection` key, if given.
    change_detection: Option<bool>,
    /// The hook keys.
    hooks: Hooks,
    /// The `on_instantiate` key, if given.
    on_instantiate: Option<OnInstantiate>,
    /// The bare `toggle` key, if given (its span, for the sparse error).
    toggle: Option<proc_macro2::Span>,
}

/// What instances of a prefab get of a component, as chosen by
/// `on_instantiate = "..."`.
#[derive(Clone, Copy)]
enum OnInstantiate {
    /// `"override"`: copied into each instance.
    Override,
    /// `"inherit"`: shared from the prefab.
    Inherit,
    /// `"dont_inherit"`: neither.
    DontInherit,
}

impl OnInstantiate {
    /// The variant of `::ecs::component::OnInstantiate`.
    fn variant(self) -> proc_macro2::Ident {
        let name = match self {
            OnInstantiate::Override => "Override",
            OnInstantiate::Inherit => "Inherit",
            OnInstantiate::DontInherit => "DontInherit",
        };
        proc_macro2::Ident::new(name, proc_macro2::Span::call_site())
    }
}

impl ComponentAttrs {
    /// Reads every `#[component(...)]` attribute on the type (several may be
    /// given; a key may appear only once across all of them).
    fn parse(input: &DeriveInput) -> syn::Result<Self> {
        let mut attrs = ComponentAttrs::default();
        for attr in input.attrs.iter().filter(|a| a.path().is_ident("component")) {
            attr.parse_nested_meta(|meta| attrs.parse_key(&meta))?;
        }
        if let (Some(toggle), Some(Storage::Sparse)) = (attrs.toggle, attrs.storage) {
            return Err(syn::Error::new(
                toggle,
                "#[component(toggle)] cannot be combined with `storage = \"sparse\"`: \
                 the enabled bits live in table columns; drop one of the two keys",
            ));
        }
        Ok(attrs)
    }

    /// Handles one `key = value` entry.
    fn parse_key(&mut self, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
        let key = meta.path.get_ident().map(ToString::to_string);
        let hook_slot = match key.as_deref() {
            Some("storage") => {
                reject_duplicate(meta, self.storage.is_some())?;
                self.storage = Some(parse_storage(meta)?);
                return Ok(());
            }
            Some("change_detection") => {
                reject_duplicate(meta, self.change_detection.is_some())?;
                self.change_detection = Some(parse_bool(meta)?);
                return Ok(());
            }
            Some("on_instantiate") => {
                reject_duplicate(meta, self.on_instantiate.is_some())?;
                self.on_instantiate = Some(parse_on_instantiate(meta)?);
                return Ok(());
            }
            Some("toggle") => {
                reject_duplicate(meta, self.toggle.is_some())?;
                if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
                    return Err(meta.error("`toggle` takes no value: write `#[component(toggle)]`"));
                }
                self.toggle = Some(syn::spanned::Spanned::span(&meta.path));
                return Ok(());
            }
            Some("on_add") => &mut self.hooks.on_add,
            Some("on_insert") => &mut self.hooks.on_insert,
            Some("on_replace") => &mut self.hooks.on_replace,
            Some("on_remove") => &mut self.hooks.on_remove,
            _ => {
                return Err(syn::Error::new_spanned(
                    &meta.path,
                    format!(
                        "unknown #[component] key `{}`: expected one of {KEYS}",
                        meta.path.to_token_stream().to_string().replace(' ', "")
                    ),
                ));
            }
        };
        reject_duplicate(meta, hook_slot.is_some())?;
        *hook_slot = Some(parse_hook(meta)?);
        Ok(())
    }
}

/// Errors on the key of `meta` if it was already given.
fn reject_duplicate(meta: &ParseNestedMeta<'_>, seen: bool) -> syn::Result<()> {
    if seen {
        let key = meta.path.to_token_stream().to_string();
        return Err(syn::Error::new_spanned(
            &meta.path,
            format!("duplicate #[component] key `{key}`: each key may be given once"),
        ));
    }
    Ok(())
}

/// Parses `= "table"` or `= "sparse"`.
fn parse_storage(meta: &ParseNestedMeta<'_>) -> syn::Result<Storage> {
    let value = meta.value()?;
    if !value.peek(LitStr) {
        return Err(value.error("expected a string literal: `storage = \"table\"` or `storage = \"sparse\"`"));
    }
    let lit: LitStr = value.parse()?;
    match lit.value().as_str() {
        "table" => Ok(Storage::Table),
        "sparse" => Ok(Storage::Sparse),
        other => {
            Err(syn::Error::new_spanned(&lit, format!("unknown storage {other:?}: expected \"table\" or \"sparse\"")))
        }
    }
}

/// Parses `= "override"`, `= "inherit"` or `= "dont_inherit"`.
fn parse_on_instantiate(meta: &ParseNestedMeta<'_>) -> syn::Result<OnInstantiate> {
    const EXPECTED: &str = "expected \"override\", \"inherit\" or \"dont_inherit\"";
    let value = meta.value()?;
    if !value.peek(LitStr) {
        return Err(value.error(format!("expected a string literal: `on_instantiate = \"...\"`, {EXPECTED}")));
    }
    let lit: LitStr = value.parse()?;
    match lit.value().as_str() {
        "override" => Ok(OnInstantiate::Override),
        "inherit" => Ok(OnInstantiate::Inherit),
        "dont_inherit" => Ok(OnInstantiate::DontInherit),
        other => Err(syn::Error::new_spanned(&lit, format!("unknown on_instantiate {other:?}: {EXPECTED}"))),
    }
}

/// Parses `= true` or `= false`.
fn parse_bool(meta: &ParseNestedMeta<'_>) -> syn::Result<bool> {
    let value = meta.value()?;
    if !value.peek(LitBool) {
        return Err(value.error("expected `change_detection = false` (or `= true`, the default)"));
    }
    Ok(value.parse::<LitBool>()?.value)
}

/// Parses `= path::to::hook_fn`.
fn parse_hook(meta: &ParseNestedMeta<'_>) -> syn::Result<Path> {
    let key = meta.path.to_token_stream().to_string();
    let value = meta.value()?;
    value.parse::<Path>().map_err(|err| {
        syn::Error::new(
            err.span(),
            format!(
                "expected a path to a hook fn, as in `{key} = my_hook`, where \
                 `fn my_hook(world: ::ecs::world::DeferredWorld<'_>, ctx: \
                 ::ecs::component::HookContext)`"
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expands `src`, panicking on error.
    fn expand(src: &str) -> String {
        let input = syn::parse_str::<DeriveInput>(src).expect("valid derive input");
        derive_component(input).expect("expansion succeeds").to_string()
    }

    /// Expands `src`, panicking on success; returns the error message.
    fn expand_err(src: &str) -> String {
        let input = syn::parse_str::<DeriveInput>(src).expect("valid derive input");
        derive_component(input).expect_err("expansion fails").to_string()
    }

    #[test]
    fn plain_struct_uses_trait_defaults() {
        let out = expand("struct Position { x: f32, y: f32 }");
        let expected = quote! {
            #[automatically_derived]
            impl ::ecs::component::Component for Position {
                const NAME: &'static str = "Position";
                const ID: u64 =
                    ::ecs::util::component_type_id(::core::module_path!(), "Position");
                const TYPE_KEY: ::core::option::Option<&'static ::ecs::component::TypeKey<Self>> = {
                    static KEY: ::ecs::component::TypeKey<Position> = ::ecs::component::TypeKey::new();
                    ::core::option::Option::Some(&KEY)
                };
                const DEBUG: ::core::option::Option<::ecs::component::DebugFn> = {
                    #[allow(unused_imports)]
                    use ::ecs::component::NoDebug as _;
                    ::ecs::component::DebugProbe::<Self>::DEBUG
                };
            }
        };
        assert_eq!(out, expected.to_string());
    }

    #[test]
    fn change_detection_false_emits_the_constant_and_true_keeps_the_default() {
        let out = expand("#[component(change_detection = false)] struct Untracked(f32);");
        assert!(out.contains(&quote! { const CHANGE_DETECTION: bool = false; }.to_string()), "{out}");
        let out = expand("#[component(change_detection = true)] struct Tracked(f32);");
        assert!(!out.contains("CHANGE_DETECTION"), "{out}");
    }

    #[test]
    fn non_bool_change_detection_is_rejected() {
        let err = expand_err(r#"#[component(change_detection = "no")] struct S;"#);
        assert_eq!(err, "expected `change_detection = false` (or `= true`, the default)");
        let err = expand_err("#[component(change_detection = false, change_detection = true)] struct S;");
        assert!(err.starts_with("duplicate #[component] key `change_detection`"), "{err}");
    }

    #[test]
    fn only_structs_without_fields_are_fieldless() {
        let fieldless = quote! { const FIELDLESS: bool = true; }.to_string();
        for input in ["struct Marker;", "struct Marker {}", "struct Marker();"] {
            assert!(expand(input).contains(&fieldless), "{input}");
        }
        for input in ["struct Health(u32);", "struct Wrap { unit: () }", "enum Never {}", "enum One { A }"] {
            assert!(!expand(input).contains("FIELDLESS"), "{input}");
        }
    }

    #[test]
    fn tuple_unit_and_enum_are_accepted() {
        assert!(expand("struct Health(u32);").contains("for Health"));
        assert!(expand("struct Marker;").contains("\"Marker\""));
        assert!(expand("enum State { Idle, Run(u8) }").contains("for State"));
    }

    #[test]
    fn raw_ident_name_is_unraw() {
        let out = expand("struct r#Type;");
        assert!(out.contains("for r#Type"), "{out}");
        assert!(out.contains("const NAME : & 'static str = \"Type\""), "{out}");
    }

    #[test]
    fn storage_sparse_and_table() {
        let out = expand(r#"#[component(storage = "sparse")] struct S;"#);
        assert!(
            out.contains(
                "const STORAGE : :: ecs :: component :: StorageKind = \
                 :: ecs :: component :: StorageKind :: Sparse ;"
            ),
            "{out}"
        );
        assert!(!out.contains("HOOKS"), "{out}");
        let out = expand(r#"#[component(storage = "table")] struct S;"#);
        assert!(out.contains("StorageKind :: Table"), "{out}");
    }

    #[test]
    fn hooks_fill_their_slots() {
        let out = expand("#[component(on_add = on_add_fn, on_remove = crate::hooks::gone)] struct S;");
        let expected = quote! {
            const HOOKS: ::ecs::component::ComponentHooks = ::ecs::component::ComponentHooks {
                on_add: ::core::option::Option::Some(::ecs::component::Hook::new(on_add_fn)),
                on_insert: ::core::option::Option::None,
                on_replace: ::core::option::Option::None,
                on_remove: ::core::option::Option::Some(
                    ::ecs::component::Hook::new(crate::hooks::gone)
                ),
            };
        };
        assert!(out.contains(&expected.to_string()), "{out}");
        assert!(!out.contains("STORAGE"), "{out}");
    }

    #[test]
    fn hook_paths_may_use_self_and_turbofish() {
        let out = expand("#[component(on_add = Self::hook, on_insert = generic::<u8>)] struct S;");
        assert!(out.contains("Hook :: new (Self :: hook)"), "{out}");
        assert!(out.contains("Hook :: new (generic :: < u8 >)"), "{out}");
    }

    #[test]
    fn keys_may_span_several_attributes() {
        let out = expand(
            r#"#[component(storage = "sparse")] #[component(on_insert = ins, on_replace = rep)]
               #[derive(Debug)] struct S;"#,
        );
        assert!(out.contains("StorageKind :: Sparse"), "{out}");
        assert!(out.contains("on_insert : :: core :: option :: Option :: Some"), "{out}");
        assert!(out.contains("Hook :: new (rep)"), "{out}");
    }

    #[test]
    fn unknown_storage_is_rejected() {
        let err = expand_err(r#"#[component(storage = "x")] struct S;"#);
        assert_eq!(err, r#"unknown storage "x": expected "table" or "sparse""#);
    }

    #[test]
    fn non_string_storage_is_rejected() {
        let err = expand_err("#[component(storage = sparse)] struct S;");
        assert!(err.starts_with("expected a string literal"), "{err}");
    }

    #[test]
    fn unknown_key_is_rejected() {
        let err = expand_err("#[component(on_spawn = f)] struct S;");
        assert_eq!(
            err,
            "unknown #[component] key `on_spawn`: expected one of `storage`, `change_detection`, `on_add`, \
             `on_insert`, `on_replace`, `on_remove`, `on_instantiate`, `toggle`"
        );
    }

    #[test]
    fn on_instantiate_policies() {
        let out = expand(r#"#[component(on_instantiate = "override")] struct S;"#);
        assert!(out.contains("OnInstantiate :: Override"), "{out}");
        assert!(out.contains("clone_value :: < Self >"), "{out}");
        let out = expand(r#"#[component(on_instantiate = "inherit")] struct S;"#);
        assert!(out.contains("OnInstantiate :: Inherit") && !out.contains("CLONE"), "{out}");
        let out = expand(r#"#[component(on_instantiate = "dont_inherit")] struct S;"#);
        assert!(out.contains("OnInstantiate :: DontInherit"), "{out}");
        let err = expand_err(r#"#[component(on_instantiate = "copy")] struct S;"#);
        assert_eq!(err, r#"unknown on_instantiate "copy": expected "override", "inherit" or "dont_inherit""#);
        let err = expand_err("#[component(on_instantiate = override)] struct S;");
        assert!(err.starts_with("expected a string literal"), "{err}");
    }

    #[test]
    fn duplicate_key_is_rejected() {
        let err = expand_err(r#"#[component(storage = "table", storage = "sparse")] struct S;"#);
        assert!(err.starts_with("duplicate #[component] key `storage`"), "{err}");
        let err = expand_err("#[component(on_add = a)] #[component(on_add = b)] struct S;");
        assert!(err.starts_with("duplicate #[component] key `on_add`"), "{err}");
    }

    #[test]
    fn bad_hook_value_is_rejected() {
        let err = expand_err(r#"#[component(on_add = "f")] struct S;"#);
        assert!(err.starts_with("expected a path to a hook fn"), "{err}");
    }

    #[test]
    fn toggle_emits_the_constant_and_the_marker_impl() {
        let out = expand("#[component(toggle)] struct Thrust(f32);");
        assert!(out.contains(&quote! { const TOGGLE: bool = true; }.to_string()), "{out}");
        let marker = quote! {
            #[automatically_derived]
            impl ::ecs::component::Toggleable for Thrust {}
        };
        assert!(out.contains(&marker.to_string()), "{out}");
        let plain = expand("struct Mass(f32);");
        assert!(!plain.contains("TOGGLE") && !plain.contains("Toggleable"), "{plain}");
    }

    #[test]
    fn toggle_combines_with_other_keys_but_not_sparse_storage() {
        let out = expand(r#"#[component(storage = "table", toggle, change_detection = false)] struct T;"#);
        assert!(out.contains("const TOGGLE : bool = true ;"), "{out}");
        assert!(out.contains("const CHANGE_DETECTION : bool = false ;"), "{out}");
        let err = expand_err(r#"#[component(toggle, storage = "sparse")] struct T;"#);
        assert!(err.starts_with("#[component(toggle)] cannot be combined with `storage = \"sparse\"`"), "{err}");
        let err = expand_err(r#"#[component(storage = "sparse")] #[component(toggle)] struct T;"#);
        assert!(err.starts_with("#[component(toggle)] cannot be combined"), "{err}");
    }

    #[test]
    fn toggle_takes_no_value_and_only_once() {
        let err = expand_err("#[component(toggle = true)] struct T;");
        assert_eq!(err, "`toggle` takes no value: write `#[component(toggle)]`");
        let err = expand_err("#[component(toggle, toggle)] struct T;");
        assert!(err.starts_with("duplicate #[component] key `toggle`"), "{err}");
    }

    #[test]
    fn union_is_rejected() {
        let err = expand_err("union U { a: u32, b: f32 }");
        assert_eq!(err, "#[derive(Component)] cannot be used on a union");
    }

    #[test]
    fn generics_are_rejected() {
        for src in ["struct G<T>(T);", "struct L<'a>(&'a u8);", "struct C<const N: usize>([u8; N]);"] {
            let err = expand_err(src);
            assert!(err.starts_with("#[derive(Component)] does not support generic types"), "{src}: {err}");
        }
    }
}
