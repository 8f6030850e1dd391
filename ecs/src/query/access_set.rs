//! Const access sets: what a query term, a query or a system parameter borrows,
//! known at compile time, so aliasing borrows are **compile errors**.
//!
//! Every [`WorldQuery`](super::WorldQuery) has `const ACCESS: AccessSet`, built by
//! `const fn`s from the terms' [`Component::ID`]s (FNV hashes the derive computes
//! from the type's path, so they exist before any world does). Checks evaluate in
//! `const` context and `panic!` with a message assembled in a fixed buffer
//! ([`ConstStr`]), which rustc reports as the compile error, e.g.
//! `query (&mut Position, &Position) borrows Position mutably (&mut Position) and also reads it (&Position)`.
//!
//! Rules (the same ones the runtime [`QueryAccess`](super::QueryAccess) enforces):
//! * within one query, a component written by one data term may not be read or
//!   written by another data term (`(&mut A, &A)`, `(&mut A, Option<&mut A>)`);
//!   filters reading change ticks (`Changed<A>`) never conflict inside the query;
//! * two queries (or other system parameters) conflict when one writes what the
//!   other accesses, unless their filters make them **disjoint**: one requires `X`
//!   (`With<X>`, `&X`, `&mut X`, `Added<X>`, `Changed<X>`) and the other has `Without<X>`;
//! * a term that reads a component of **another entity** than the row's own (an
//!   ancestor through `Up`, a fixed source through `Fixed`) is
//!   [`AccessKind::ReadOther`]: it may read `T` on any entity, so no filter of
//!   either query makes it disjoint from a writer of `T`, and it conflicts with
//!   a write of `T` by any other query of the system, whatever the filters.
//!
//! The const check never reports a conflict it cannot prove: a set marked
//! *undecidable* (it contains an `Or` filter, whose branches may make queries
//! disjoint in ways a flat set cannot express) or *overflowed* (more than
//! [`MAX_ACCESS_TERMS`] terms) skips the cross-parameter check, and the runtime
//! check at system initialization, which models `Or` exactly, decides instead.

use crate::component::Component;

/// The most terms one const [`AccessSet`] holds; bigger sets are checked at run time only.
pub const MAX_ACCESS_TERMS: usize = 32;
/// The capacity of a term or query label.
pub const LABEL_CAPACITY: usize = 160;
/// The capacity of an error message.
pub const MESSAGE_CAPACITY: usize = 768;

/// A string built in `const` context in a fixed buffer; text past the capacity is
/// cut (at a character boundary) and ends with `...`.
///
/// # Examples
/// ```
/// use ecs::query::ConstStr;
/// const GREETING: ConstStr<16> = ConstStr::new().with("hello, ").with("world");
/// assert_eq!(GREETING.as_str(), "hello, world");
/// assert_eq!(ConstStr::<8>::new().with("truncated text").as_str(), "trunc...");
/// ```
#[derive(Clone, Copy)]
pub struct ConstStr<const N: usize> {
    bytes: [u8; N],
    len: usize,
    truncated: bool,
}

impl<const N: usize> ConstStr<N> {
    /// The empty string.
    pub const fn new() -> Self {
        ConstStr { bytes: [0; N], len: 0, truncated: false }
    }

    /// Appends `text` (cut with `...` when it does not fit).
    pub const fn push(&mut self, text: &str) {
        if self.truncated {
            return;
        }
        let bytes = text.as_bytes();
        if self.len + bytes.len() <= N {
            let mut i = 0;
            while i < bytes.len() {
                self.bytes[self.len + i] = bytes[i];
                i += 1;
            }
            self.len += bytes.len();
            return;
        }
        // Cut: keep what fits before "...", at a character boundary.
        self.truncated = true;
        let room = N.saturating_sub(3);
        let mut take = room.saturating_sub(self.len);
        if take > bytes.len() {
            take = bytes.len();
        }
        while take > 0 && take < bytes.len() && (bytes[take] & 0xC0) == 0x80 {
            take -= 1;
        }
        let mut i = 0;
        while i < take {
            self.bytes[self.len] = bytes[i];
            self.len += 1;
            i += 1;
        }
        while self.len < N && self.len < room + 3 {
            self.bytes[self.len] = b'.';
            self.len += 1;
        }
    }

    /// `self` with `text` appended.
    pub const fn with(mut self, text: &str) -> Self {
        self.push(text);
        self
    }

    /// The text.
    pub const fn as_str(&self) -> &str {
        match core::str::from_utf8(self.bytes.split_at(self.len).0) {
            Ok(text) => text,
            Err(_) => "<invalid label>",
        }
    }

    /// Whether nothing was pushed.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<const N: usize> Default for ConstStr<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> core::fmt::Debug for ConstStr<N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(self.as_str(), f)
    }
}

/// The label of a term, query or parameter (its type as a user wrote it).
pub type Label = ConstStr<LABEL_CAPACITY>;

/// How a term touches a component.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum AccessKind {
    /// Reads the value on the row's own entity (`&T`).
    Read,
    /// Reads the value on entities other than the row's own (`Up<R, &T>` reads
    /// an ancestor's, `Fixed<&T>` a fixed source's). The query's filters say
    /// nothing about those entities, so this read is never made disjoint from a
    /// write by filters.
    ReadOther,
    /// Reads the value on other entities **in turn** with the query's own
    /// writes: never while a row's own borrow is alive (propagation down a
    /// hierarchy, `QueryState::propagate` and the `Propagate` system param).
    /// Against other queries it conflicts like [`AccessKind::ReadOther`];
    /// inside its own query it never does.
    ReadOtherInTurn,
    /// Writes the value (`&mut T`).
    Write,
    /// Reads the change ticks (`Added<T>`, `Changed<T>`).
    ChangeTicks,
    /// Requires the component to be present (`With<T>`, and every required data term).
    With,
    /// Requires the component to be absent (`Without<T>`).
    Without,
}

/// One access of one component (or resource).
#[derive(Clone, Copy, Debug)]
pub struct AccessTerm {
    /// The component's [`Component::ID`] (or the resource's `Resource::ID`).
    pub id: u64,
    /// The component's [`Component::NAME`].
    pub name: &'static str,
    /// How it is accessed.
    pub kind: AccessKind,
    /// Whether `id` names a resource rather than a component.
    pub resource: bool,
}

impl AccessTerm {
    /// The term as written: `&Position`, `&mut Position`, `Res<Time>`, `ResMut<Time>`...
    pub const fn label(&self) -> Label {
        let (prefix, suffix) = match (self.resource, self.kind) {
            (false, AccessKind::Read) => ("&", ""),
            (false, AccessKind::ReadOther) => ("&", " of another entity"),
            (false, AccessKind::ReadOtherInTurn) => ("&", " of an ancestor"),
            (false, AccessKind::Write) => ("&mut ", ""),
            (false, AccessKind::ChangeTicks) => ("Changed<", ">"),
            (false, AccessKind::With) => ("With<", ">"),
            (false, AccessKind::Without) => ("Without<", ">"),
            (true, AccessKind::Write) => ("ResMut<", ">"),
            (true, _) => ("Res<", ">"),
        };
        Label::new().with(prefix).with(self.name).with(suffix)
    }

    /// Whether the two terms name the same component (or the same resource).
    pub const fn same_target(&self, other: &AccessTerm) -> bool {
        self.id == other.id && self.resource == other.resource
    }
}

const NO_TERM: AccessTerm = AccessTerm { id: 0, name: "", kind: AccessKind::With, resource: false };

/// The const access set of a query term, filter or whole query.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// use ecs::query::WorldQuery;
/// #[derive(Component)]
/// struct Position(f32);
/// #[derive(Component)]
/// struct Velocity(f32);
/// const ACCESS: ecs::query::AccessSet = <(&mut Position, &Velocity) as WorldQuery>::ACCESS;
/// assert_eq!(ACCESS.label().as_str(), "(&mut Position, &Velocity)");
/// assert!(ACCESS.writes(Position::ID));
/// assert!(!ACCESS.writes(Velocity::ID));
/// assert!(ACCESS.internal_conflict().is_none());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct AccessSet {
    terms: [AccessTerm; MAX_ACCESS_TERMS],
    len: usize,
    overflowed: bool,
    undecidable: bool,
    reads_world: bool,
    label: Label,
}

impl AccessSet {
    /// No access, labelled `label`.
    pub const fn labelled(label: &str) -> AccessSet {
        AccessSet {
            terms: [NO_TERM; MAX_ACCESS_TERMS],
            len: 0,
            overflowed: false,
            undecidable: false,
            reads_world: false,
            label: Label::new().with(label),
        }
    }

    /// The set of one term of kind `kind` on `T`, labelled `prefix` + `T::NAME` + `suffix`.
    pub const fn component<T: Component>(kind: AccessKind, prefix: &str, suffix: &str) -> AccessSet {
        let label = Label::new().with(prefix).with(T::NAME).with(suffix);
        let mut set = AccessSet::labelled(label.as_str());
        set.push(AccessTerm { id: T::ID, name: T::NAME, kind, resource: false });
        set
    }

    /// A resource access (`Res<R>` reads, `ResMut<R>` writes), labelled `label`.
    /// An `id` of 0 means "unknown" and makes the set undecidable.
    pub const fn resource(id: u64, name: &'static str, write: bool, label: &str) -> AccessSet {
        let mut set = AccessSet::labelled(label);
        let kind = if write { AccessKind::Write } else { AccessKind::Read };
        set.push(AccessTerm { id, name, kind, resource: true });
        set.undecidable = id == 0;
        set
    }

    /// `&World`: reads everything, so it conflicts with every writer.
    pub const fn whole_world(label: &str) -> AccessSet {
        let mut set = AccessSet::labelled(label);
        set.reads_world = true;
        set
    }

    /// Whether the set reads the whole world (`&World`).
    pub const fn reads_world(&self) -> bool {
        self.reads_world
    }

    /// `&T`: reads `T` and requires it.
    pub const fn read<T: Component>() -> AccessSet {
        AccessSet::component::<T>(AccessKind::Read, "&", "").and_requires::<T>()
    }

    /// `&mut T`: writes `T` and requires it.
    pub const fn write<T: Component>() -> AccessSet {
        AccessSet::component::<T>(AccessKind::Write, "&mut ", "").and_requires::<T>()
    }

    /// `self` plus a `With` term on `T` (a data term that also selects).
    pub const fn and_requires<T: Component>(mut self) -> AccessSet {
        self.push(AccessTerm { id: T::ID, name: T::NAME, kind: AccessKind::With, resource: false });
        self
    }

    /// Appends one term (marks the set overflowed when full).
    pub const fn push(&mut self, term: AccessTerm) {
        if self.len == MAX_ACCESS_TERMS {
            self.overflowed = true;
            return;
        }
        self.terms[self.len] = term;
        self.len += 1;
    }

    /// Appends `other`'s terms and flags (not its label).
    pub const fn extend(&mut self, other: &AccessSet) {
        let mut i = 0;
        while i < other.len {
            self.push(other.terms[i]);
            i += 1;
        }
        self.overflowed |= other.overflowed;
        self.undecidable |= other.undecidable;
        self.reads_world |= other.reads_world;
    }

    /// The union of `parts`, labelled as a tuple: `(A, B)`.
    pub const fn tuple(parts: &[AccessSet]) -> AccessSet {
        let mut set = AccessSet::labelled("(");
        let mut i = 0;
        while i < parts.len() {
            if i > 0 {
                set.label.push(", ");
            }
            set.label.push(parts[i].label.as_str());
            set.extend(&parts[i]);
            i += 1;
        }
        if parts.len() == 1 {
            set.label.push(",");
        }
        set.label.push(")");
        set
    }

    /// `Option<Q>` of this set: same reads and writes, but selects nothing.
    pub const fn optional(self) -> AccessSet {
        let mut set = AccessSet::labelled("Option<");
        set.label.push(self.label.as_str());
        set.label.push(">");
        set.overflowed = self.overflowed;
        set.undecidable = self.undecidable;
        let mut i = 0;
        while i < self.len {
            let term = self.terms[i];
            if !matches!(term.kind, AccessKind::With | AccessKind::Without) {
                set.push(term);
            }
            i += 1;
        }
        set
    }

    /// `Or<(..)>` of `branches`: their reads, no certain selection, undecidable.
    pub const fn any_of(branches: &[AccessSet]) -> AccessSet {
        let inner = AccessSet::tuple(branches).optional();
        let mut set = AccessSet::labelled("Or<");
        // `inner`'s label is `Option<(..)>`: keep the tuple part.
        let tuple = AccessSet::tuple(branches);
        set.label.push(tuple.label.as_str());
        set.label.push(">");
        set.extend(&inner);
        set.undecidable = true;
        set
    }

    /// `self` relabelled.
    pub const fn with_label(mut self, label: &str) -> AccessSet {
        self.label = Label::new().with(label);
        self
    }

    /// The label (the type as written: `(&mut Position, &Velocity)`).
    pub const fn label(&self) -> &Label {
        &self.label
    }

    /// The terms.
    pub const fn terms(&self) -> &[AccessTerm] {
        self.terms.split_at(self.len).0
    }

    /// Whether the set lost terms (more than [`MAX_ACCESS_TERMS`]).
    pub const fn overflowed(&self) -> bool {
        self.overflowed
    }

    /// Whether disjointness cannot be decided from the flat set (an `Or` filter).
    pub const fn undecidable(&self) -> bool {
        self.undecidable
    }

    /// Whether the set writes component `id`.
    pub const fn writes(&self, id: u64) -> bool {
        self.has(id, AccessKind::Write)
    }

    /// Whether the set has a term of `kind` on component `id`.
    pub const fn has(&self, id: u64, kind: AccessKind) -> bool {
        let mut i = 0;
        while i < self.len {
            if self.terms[i].id == id && !self.terms[i].resource && kind_eq(self.terms[i].kind, kind) {
                return true;
            }
            i += 1;
        }
        false
    }

    /// Whether any term writes.
    pub const fn writes_any(&self) -> bool {
        let mut i = 0;
        while i < self.len {
            if kind_eq(self.terms[i].kind, AccessKind::Write) {
                return true;
            }
            i += 1;
        }
        false
    }

    /// The first pair of data terms of this one query that alias: a write and
    /// another read or write of the same component.
    pub const fn internal_conflict(&self) -> Option<(AccessTerm, AccessTerm)> {
        let mut i = 0;
        while i < self.len {
            let a = self.terms[i];
            if kind_eq(a.kind, AccessKind::Write) {
                let mut j = 0;
                while j < self.len {
                    let b = self.terms[j];
                    if j != i && b.same_target(&a) && is_data_access(b.kind) {
                        // The write first; two writes in the order written.
                        return if j < i && kind_eq(b.kind, AccessKind::Write) { Some((b, a)) } else { Some((a, b)) };
                    }
                    j += 1;
                }
            }
            i += 1;
        }
        None
    }

    /// Whether the filters prove that no entity matches both sets: one requires a
    /// component the other excludes.
    pub const fn is_disjoint(&self, other: &AccessSet) -> bool {
        excludes(self, other) || excludes(other, self)
    }

    /// The first pair of terms by which `self` and `other` (two queries of one
    /// system) alias, unless they are disjoint. A [`AccessKind::ReadOther`] term
    /// against a write of the same component always aliases (filters restrict
    /// the rows' own entities only). Otherwise undecidable or overflowed sets
    /// report nothing (the runtime check decides).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::query::WorldQuery;
    /// #[derive(Component)]
    /// struct Faction(u32);
    /// #[derive(Component)]
    /// struct Enemy;
    /// const WRITES: ecs::query::AccessSet = <(&mut Faction, With<Enemy>) as WorldQuery>::ACCESS;
    /// const OWN: ecs::query::AccessSet = <(&Faction, Without<Enemy>) as WorldQuery>::ACCESS;
    /// const UP: ecs::query::AccessSet = <(Up<ChildOf, &Faction>, Without<Enemy>) as WorldQuery>::ACCESS;
    /// assert!(WRITES.conflict_with(&OWN).is_none()); // no entity is in both
    /// assert!(WRITES.conflict_with(&UP).is_some()); // an enemy's child reads its Faction
    /// ```
    pub const fn conflict_with(&self, other: &AccessSet) -> Option<(AccessTerm, AccessTerm)> {
        if self.overflowed || other.overflowed {
            return None;
        }
        if let Some(conflict) = self.first_aliasing_pair(other, true) {
            return Some(conflict);
        }
        if self.undecidable || other.undecidable || self.is_disjoint(other) {
            return None;
        }
        self.first_aliasing_pair(other, false)
    }

    /// The first `(mine, theirs)` pair of terms on one target that alias; with
    /// `other_entities_only`, only pairs where one term reads other entities.
    const fn first_aliasing_pair(
        &self,
        other: &AccessSet,
        other_entities_only: bool,
    ) -> Option<(AccessTerm, AccessTerm)> {
        let mut i = 0;
        while i < self.len {
            let a = self.terms[i];
            let mut j = 0;
            while j < other.len {
                let b = other.terms[j];
                let wanted = !other_entities_only || reads_other_entities(a.kind) || reads_other_entities(b.kind);
                if wanted && a.same_target(&b) && accesses_conflict(a.kind, b.kind) {
                    return Some((a, b));
                }
                j += 1;
            }
            i += 1;
        }
        None
    }
}

/// Whether `kind` reads or writes the value in a way that conflicts with a
/// write in the same query (everything but filters, ticks and in-turn reads).
const fn is_data_access(kind: AccessKind) -> bool {
    matches!(kind, AccessKind::Read | AccessKind::ReadOther | AccessKind::Write)
}

/// Whether `kind` reads the value on entities other than the row's own.
pub(crate) const fn reads_other_entities(kind: AccessKind) -> bool {
    matches!(kind, AccessKind::ReadOther | AccessKind::ReadOtherInTurn)
}

const fn kind_eq(a: AccessKind, b: AccessKind) -> bool {
    a as u8 == b as u8
}

/// Whether accesses `a` and `b` of one component, from two different queries, alias.
const fn accesses_conflict(a: AccessKind, b: AccessKind) -> bool {
    let a_touches = is_data_access(a) || reads_other_entities(a) || kind_eq(a, AccessKind::ChangeTicks);
    let b_touches = is_data_access(b) || reads_other_entities(b) || kind_eq(b, AccessKind::ChangeTicks);
    a_touches && b_touches && (kind_eq(a, AccessKind::Write) || kind_eq(b, AccessKind::Write))
}

/// Whether `a` requires a component that `b` excludes.
const fn excludes(a: &AccessSet, b: &AccessSet) -> bool {
    let mut i = 0;
    while i < a.len {
        let term = a.terms[i];
        if !term.resource && kind_eq(term.kind, AccessKind::With) && b.has(term.id, AccessKind::Without) {
            return true;
        }
        i += 1;
    }
    false
}

/// Panics (at compile time, when evaluated in a `const`) if query `data`/`filter`
/// borrows a component mutably and also reads or writes it elsewhere.
///
/// # Panics
/// With a message naming the component and both terms.
pub const fn check_query(data: &AccessSet, filter: &AccessSet) {
    if let Some((first, second)) = data.internal_conflict() {
        let mut message = ConstStr::<MESSAGE_CAPACITY>::new();
        message.push("query ");
        push_query_label(&mut message, data, filter);
        message.push(" borrows ");
        message.push(first.name);
        if kind_eq(second.kind, AccessKind::Write) {
            message.push(" mutably twice");
        } else {
            message.push(" mutably (");
            message.push(first.label().as_str());
            message.push(") and also reads it (");
            message.push(second.label().as_str());
            message.push(")");
        }
        message.push("; a query may hold one `&mut ");
        message.push(first.name);
        message.push("` and no other borrow of it: use a single `&mut ");
        message.push(first.name);
        message.push("` term, or split the query");
        push_propagate_hint(&mut message, second.kind);
        panic!("{}", message.as_str());
    }
}

/// Appends a pointer to `QueryState::propagate` when a write conflicts with a
/// read of another entity (`(&mut T, Up<R, &T>)`: "my value from my parent's").
pub(crate) const fn push_propagate_hint<const N: usize>(message: &mut ConstStr<N>, other: AccessKind) {
    if reads_other_entities(other) {
        message.push("; to compute a value from an ancestor's value, use `QueryState::propagate` (parents first, one borrow at a time)");
    }
}

/// Appends `Query<D>` or `Query<D, F>` to `message`.
pub const fn push_query_label<const N: usize>(message: &mut ConstStr<N>, data: &AccessSet, filter: &AccessSet) {
    message.push("Query<");
    message.push(data.label.as_str());
    if !filter.label.is_empty() && !matches!(filter.label.as_str().as_bytes(), b"()") {
        message.push(", ");
        message.push(filter.label.as_str());
    }
    message.push(">");
}

/// Forces [`check_query`] for `D` and `F` when referenced: `let () = QueryCheck::<D, F>::OK;`
/// in a generic function makes the compile error point at the user's instantiation.
pub struct QueryCheck<D, F>(core::marker::PhantomData<(D, F)>);

impl<D: super::WorldQuery, F: super::WorldQuery> QueryCheck<D, F> {
    /// Evaluates the check; a conflict is a compile error.
    pub const OK: () = check_query(&D::ACCESS, &F::ACCESS);
}
