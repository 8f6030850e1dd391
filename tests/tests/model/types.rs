//! The model test's component and relationship types, the counters of their live
//! values, and the model's mirror of each type (`Kind`/`Val`, `Rel`).
//!
//! Every value is built through [`Comp::make`] / [`RelType::make`], which count it;
//! `Drop` uncounts it, so the harness can compare the live values with the model.

use std::cell::Cell;
use std::collections::BTreeMap;

use ecs::component::CleanupPolicy;
use ecs::prelude::*;

// ----- live-value counters ----------------------------------------------------------

pub(super) const KINDS: usize = 5;

thread_local! {
    /// Live values per kind, on this thread only (test threads run in parallel).
    pub(super) static LIVE: [Cell<i64>; KINDS] = const { [const { Cell::new(0) }; KINDS] };
}

pub(super) fn created(kind: Kind) {
    LIVE.with(|live| live[kind as usize].set(live[kind as usize].get() + 1));
}

pub(super) fn dropped(kind: Kind) {
    LIVE.with(|live| live[kind as usize].set(live[kind as usize].get() - 1));
}

pub(super) fn live(kind: Kind) -> i64 {
    LIVE.with(|live| live[kind as usize].get())
}

pub(super) fn reset_live() {
    LIVE.with(|live| live.iter().for_each(|cell| cell.set(0)));
    OWES_LIVE.with(|live| live.set(0));
}

// ----- components -------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Kind {
    Tag = 0,
    Pos = 1,
    Text = 2,
    Spr = 3,
    SprTag = 4,
}

impl Kind {
    pub(super) const ALL: [Kind; KINDS] = [Kind::Tag, Kind::Pos, Kind::Text, Kind::Spr, Kind::SprTag];
}

/// A component value as the model stores it.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Val {
    Tag,
    Pos(i64),
    Text(String),
    Spr(Vec<u32>),
    SprTag,
}

impl Val {
    /// A value of `kind` derived from `seed`.
    pub(super) fn new(kind: Kind, seed: u64) -> Val {
        match kind {
            Kind::Tag => Val::Tag,
            Kind::Pos => Val::Pos(seed as i64 - 50),
            Kind::Text => Val::Text(format!("t{seed}")),
            Kind::Spr => Val::Spr((0..(seed % 4) as u32).map(|i| i.wrapping_add(seed as u32)).collect()),
            Kind::SprTag => Val::SprTag,
        }
    }

    pub(super) fn kind(&self) -> Kind {
        match self {
            Val::Tag => Kind::Tag,
            Val::Pos(_) => Kind::Pos,
            Val::Text(_) => Kind::Text,
            Val::Spr(_) => Kind::Spr,
            Val::SprTag => Kind::SprTag,
        }
    }

    /// The model's mirror of [`Comp::mutate`].
    pub(super) fn mutate(&mut self, seed: u32) {
        match self {
            Val::Tag | Val::SprTag => {}
            Val::Pos(n) => *n = mix(*n, seed),
            Val::Text(s) => s.push(letter(seed)),
            Val::Spr(v) => v.push(seed),
        }
    }
}

pub(super) fn mix(n: i64, seed: u32) -> i64 {
    n.wrapping_mul(31).wrapping_add(i64::from(seed))
}

pub(super) fn letter(seed: u32) -> char {
    char::from(b'a' + (seed % 26) as u8)
}

/// Zero-sized table tag with a `Drop` impl.
#[derive(Component, Debug, PartialEq)]
pub(super) struct Tag;

/// Over-aligned table component.
#[derive(Component, Debug, PartialEq)]
#[repr(align(16))]
pub(super) struct Pos(pub(super) i64);

/// Table component with heap data, declared without change detection: its
/// column has no tick buffers, and it shares tables with `Pos`, which has them.
#[derive(Component, Debug, PartialEq)]
#[component(change_detection = false)]
pub(super) struct Text(pub(super) String);

/// Sparse component with heap data.
#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse")]
pub(super) struct Spr(pub(super) Vec<u32>);

/// Zero-sized sparse tag with a `Drop` impl.
#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse")]
pub(super) struct SprTag;

/// What the test needs of each component type. Values are only built through
/// [`Comp::make`], which counts them.
pub(super) trait Comp: Component + Sized + core::fmt::Debug {
    const KIND: Kind;
    fn make(value: Val) -> Self;
    fn val(&self) -> Val;
    fn mutate(&mut self, seed: u32);
}

impl Comp for Tag {
    const KIND: Kind = Kind::Tag;
    fn make(value: Val) -> Self {
        assert_eq!(value, Val::Tag);
        created(Self::KIND);
        Tag
    }
    fn val(&self) -> Val {
        Val::Tag
    }
    fn mutate(&mut self, _: u32) {}
}

impl Comp for Pos {
    const KIND: Kind = Kind::Pos;
    fn make(value: Val) -> Self {
        let Val::Pos(n) = value else { panic!("{value:?} is no Pos") };
        created(Self::KIND);
        Pos(n)
    }
    fn val(&self) -> Val {
        Val::Pos(self.0)
    }
    fn mutate(&mut self, seed: u32) {
        self.0 = mix(self.0, seed);
    }
}

impl Comp for Text {
    const KIND: Kind = Kind::Text;
    fn make(value: Val) -> Self {
        let Val::Text(s) = value else { panic!("{value:?} is no Text") };
        created(Self::KIND);
        Text(s)
    }
    fn val(&self) -> Val {
        Val::Text(self.0.clone())
    }
    fn mutate(&mut self, seed: u32) {
        self.0.push(letter(seed));
    }
}

impl Comp for Spr {
    const KIND: Kind = Kind::Spr;
    fn make(value: Val) -> Self {
        let Val::Spr(v) = value else { panic!("{value:?} is no Spr") };
        created(Self::KIND);
        Spr(v)
    }
    fn val(&self) -> Val {
        Val::Spr(self.0.clone())
    }
    fn mutate(&mut self, seed: u32) {
        self.0.push(seed);
    }
}

impl Comp for SprTag {
    const KIND: Kind = Kind::SprTag;
    fn make(value: Val) -> Self {
        assert_eq!(value, Val::SprTag);
        created(Self::KIND);
        SprTag
    }
    fn val(&self) -> Val {
        Val::SprTag
    }
    fn mutate(&mut self, _: u32) {}
}

macro_rules! impl_counted_drop {
    ($($t:ty),*) => {$(
        impl Drop for $t {
            fn drop(&mut self) {
                dropped(<$t as Comp>::KIND);
            }
        }
    )*};
}

impl_counted_drop!(Tag, Pos, Text, Spr, SprTag);

/// Runs `$body` with the type alias `$t` naming the component type of `$kind`.
macro_rules! with_kind {
    ($kind:expr, $t:ident => $body:expr) => {
        match $kind {
            Kind::Tag => {
                type $t = Tag;
                $body
            }
            Kind::Pos => {
                type $t = Pos;
                $body
            }
            Kind::Text => {
                type $t = Text;
                $body
            }
            Kind::Spr => {
                type $t = Spr;
                $body
            }
            Kind::SprTag => {
                type $t = SprTag;
                $body
            }
        }
    };
}

// ----- relationships ----------------------------------------------------------------

thread_local! {
    /// Live `Owes` values, on this thread only.
    pub(super) static OWES_LIVE: Cell<i64> = const { Cell::new(0) };
}

pub(super) fn owes_live() -> i64 {
    OWES_LIVE.with(Cell::get)
}

/// Tag relationship with no traits: pairs on a dead target are removed.
#[derive(Relationship, Debug)]
pub(super) struct Likes;

/// Data relationship with no traits; its values are counted (built only through
/// [`RelType::make`]: a value built otherwise would be dropped uncounted).
#[derive(Relationship, Debug, PartialEq)]
pub(super) struct Owes {
    pub(super) amount: u32,
}

impl Drop for Owes {
    fn drop(&mut self) {
        OWES_LIVE.with(|live| live.set(live.get() - 1));
    }
}

/// Exclusive; holders die with their target; not acyclic (cycles are allowed).
#[derive(Relationship, Debug)]
#[relationship(exclusive, on_delete_target = "delete")]
pub(super) struct DockedTo;

/// Tag relationship whose targets cannot be despawned while a holder survives
/// (`on_delete_target = "panic"`: the despawn is refused, nothing changes).
#[derive(Relationship, Debug)]
#[relationship(on_delete_target = "panic")]
pub(super) struct Anchored;

/// A relationship as the model names it (`ChildOf` is the built-in one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Rel {
    Likes,
    Owes,
    DockedTo,
    ChildOf,
    Anchored,
}

impl Rel {
    pub(super) const ALL: [Rel; 5] = [Rel::Likes, Rel::Owes, Rel::DockedTo, Rel::ChildOf, Rel::Anchored];

    /// At most one target: a new one replaces the old.
    pub(super) fn exclusive(self) -> bool {
        matches!(self, Rel::DockedTo | Rel::ChildOf)
    }

    /// Adding a pair that would close a cycle fails.
    pub(super) fn acyclic(self) -> bool {
        self == Rel::ChildOf
    }

    /// What despawning a pair's target does to its holders.
    pub(super) fn on_delete_target(self) -> CleanupPolicy {
        match self {
            Rel::Likes | Rel::Owes => CleanupPolicy::Remove,
            Rel::DockedTo | Rel::ChildOf => CleanupPolicy::Delete,
            Rel::Anchored => CleanupPolicy::Panic,
        }
    }

    /// `on_delete_target = delete`: holders die with the target.
    pub(super) fn deletes_holders(self) -> bool {
        self.on_delete_target() == CleanupPolicy::Delete
    }

    /// Pairs carry a value (`insert_pair` only).
    pub(super) fn carries_value(self) -> bool {
        self == Rel::Owes
    }
}

/// The model's pairs of one entity: `(relationship, target) -> value` (`Some` for
/// `Owes`, `None` for tag relationships).
pub(super) type PairSet = BTreeMap<(Rel, Entity), Option<u32>>;

pub(super) fn mix_amount(amount: u32, seed: u32) -> u32 {
    amount.wrapping_mul(3).wrapping_add(seed)
}

/// What the test needs of each relationship type.
pub(super) trait RelType: Relationship + Sized + core::fmt::Debug {
    const REL: Rel;
    /// A value of the relationship (counted for `Owes`).
    fn make(amount: u32) -> Self;
    /// The model's value of a pair.
    fn value(&self) -> Option<u32>;
    fn mutate(&mut self, seed: u32);
}

impl RelType for Likes {
    const REL: Rel = Rel::Likes;
    fn make(_: u32) -> Self {
        Likes
    }
    fn value(&self) -> Option<u32> {
        None
    }
    fn mutate(&mut self, _: u32) {}
}

impl RelType for Owes {
    const REL: Rel = Rel::Owes;
    fn make(amount: u32) -> Self {
        OWES_LIVE.with(|live| live.set(live.get() + 1));
        Owes { amount }
    }
    fn value(&self) -> Option<u32> {
        Some(self.amount)
    }
    fn mutate(&mut self, seed: u32) {
        self.amount = mix_amount(self.amount, seed);
    }
}

impl RelType for DockedTo {
    const REL: Rel = Rel::DockedTo;
    fn make(_: u32) -> Self {
        DockedTo
    }
    fn value(&self) -> Option<u32> {
        None
    }
    fn mutate(&mut self, _: u32) {}
}

impl RelType for Anchored {
    const REL: Rel = Rel::Anchored;
    fn make(_: u32) -> Self {
        Anchored
    }
    fn value(&self) -> Option<u32> {
        None
    }
    fn mutate(&mut self, _: u32) {}
}

impl RelType for ChildOf {
    const REL: Rel = Rel::ChildOf;
    fn make(_: u32) -> Self {
        ChildOf
    }
    fn value(&self) -> Option<u32> {
        None
    }
    fn mutate(&mut self, _: u32) {}
}

/// Runs `$body` with the type alias `$r` naming the relationship type of `$rel`.
macro_rules! with_rel {
    ($rel:expr, $r:ident => $body:expr) => {
        match $rel {
            Rel::Likes => {
                type $r = Likes;
                $body
            }
            Rel::Owes => {
                type $r = Owes;
                $body
            }
            Rel::DockedTo => {
                type $r = DockedTo;
                $body
            }
            Rel::ChildOf => {
                type $r = ChildOf;
                $body
            }
            Rel::Anchored => {
                type $r = Anchored;
                $body
            }
        }
    };
}
