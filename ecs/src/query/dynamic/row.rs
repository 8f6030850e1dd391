//! Rows of a runtime query: [`DynRow`] (read-only, from [`DynIter`]) and
//! [`DynRowMut`] (lent one at a time by [`DynIterMut`]), with typed access
//! checked at run time.
//!
//! A [`Solution`] is computed when an iteration starts: for every term, the id
//! it matched, where its value lives (a column of the row's table, one value
//! of another entity, a sparse set), and the value's `TypeId`. Its
//! [`FastSlot`]s say how `get`/`get_mut` find a value for any row, so the row
//! path is one type comparison and one address computation (`base + (row &
//! mask)`), with the toggled and sparse cases inline too; the per-row checks
//! (sparse, toggleable and union terms) are decided once when the solutions
//! are sealed, listing the rows that pass. Nothing on the row path calls a
//! function, so a user's row loop keeps its values in registers (a call would
//! make the compiler keep them on the stack). Addresses are stored as
//! integers (a query stays `Send + Sync`); they are only read while the
//! iteration borrows the world, which keeps them valid.

use core::any::{TypeId, type_name};
use core::fmt;
use core::ptr::NonNull;

use smallvec::SmallVec;

use super::compile::{Compiled, DataAccess, Source};
use super::eval::{Frame, Hit};
use crate::archetype::{Archetype, ArchetypeId};
use crate::component::{Component, ComponentInfo, type_key_address};
use crate::entity::{Entity, Id};
use crate::query::term::TermOper;
use crate::storage::{DisabledBits, SparseSet, Tick, TickCell};
use crate::world::{Mut, World};

/// Where one term's value is, for the rows of one solution.
#[derive(Clone, Copy, Debug)]
pub(super) enum Data {
    /// No value: a filter term, a tag, an id implied by a transitive chain.
    None,
    /// A zero-sized value with no column.
    ZeroSized,
    /// A column of the row's table: base addresses of values and ticks (0: no ticks).
    Column { base: usize, added: usize, changed: usize },
    /// One value of another entity.
    Value { address: usize },
    /// A sparse component of the row's entity; for rows without their own
    /// value, the base the table inherits one from (read terms only).
    Sparse(Entity, Option<Entity>),
}

/// One term of a solution.
#[derive(Clone, Copy, Debug)]
pub(super) struct Slot {
    pub(super) hit: Option<Hit>,
    /// The id reported when the term did not match.
    pub(super) pattern: Id,
    /// The entity the term looked at when it is not the row's.
    pub(super) source: Option<Entity>,
    pub(super) type_id: Option<TypeId>,
    pub(super) writes: bool,
    pub(super) data: Data,
    /// The enabled bits of the term's column in the row's table, when its
    /// component is toggleable: a disabled row's value counts as absent.
    pub(super) disabled: Option<DisabledBits>,
    /// Which halves of the term's id are `_` (any), reported as `*` by
    /// [`DynRow::id`] (Flecs: `(R, _)` reports `(R, *)`): bit 0 the first,
    /// bit 1 the second.
    pub(super) any_halves: u8,
}

/// How [`DynRow::get`] finds a term's value for a row, decided once per
/// solution so that the row path is a few loads and no call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FastKind {
    /// No value (a filter, a tag, a term that did not match, no data): `None`.
    Absent,
    /// `base + row`: a column of the row's table.
    Column,
    /// A column of the row's table whose row may be disabled (an optional
    /// toggleable term): `None` where `disabled` has the row's bit.
    ToggledColumn,
    /// `base`: one value of another entity, the same for every row.
    Shared,
    /// A zero-sized value: no storage.
    ZeroSized,
    /// `base` is the address of the component's [`SparseSet`]: the row's
    /// entity's value, if it holds one.
    Sparse,
}

/// The hot part of a term's slot: what `get` and `get_mut` need for every row
/// of one solution.
#[derive(Clone, Copy, Debug)]
pub(super) struct FastSlot {
    /// The type of the term's value ([`NoValue`] when it has none).
    pub(super) type_id: TypeId,
    /// `type_id` when the value's address is `base + row * row_stride` (never
    /// null), else [`NoValue`]: one comparison, hoisted out of a row loop,
    /// both checks the type and picks the case.
    pub(super) direct_type: TypeId,
    /// `type_id` for a write term whose value is in a column with ticks (the
    /// common write), else [`NoValue`]: `get_mut`'s one comparison.
    pub(super) write_type: TypeId,
    /// The address of the [`TypeKey`] of `direct_type` (0: none known, or
    /// no direct value): the same check as `direct_type` by one pointer
    /// comparison.
    pub(super) direct_key: usize,
    /// Likewise for `write_type`.
    pub(super) write_key: usize,
    pub(super) kind: FastKind,
    /// Per `kind`: a column's data, a value's address, a sparse set's
    /// address; for a zero-sized value its alignment (a dangling address);
    /// dangling for an absent value. Never null, so that an address computed
    /// from it by pointer arithmetic needs no null test.
    pub(super) base: SlotAddress,
    /// The value's size for a column (one value per row), 0 for a value
    /// shared by every row: a direct value's address is
    /// `base + row * row_stride` (bytes).
    pub(super) row_stride: usize,
    /// A column's tick arrays (0: no ticks).
    pub(super) added: usize,
    pub(super) changed: usize,
    /// The column's enabled bits, for [`FastKind::ToggledColumn`].
    pub(super) disabled: Option<DisabledBits>,
    /// For [`FastKind::Sparse`]: the base whose value rows without their
    /// own read (an inherited sparse component).
    pub(super) sparse_base: Option<Entity>,
    /// Whether `get_mut` may hand the value out.
    pub(super) writes: bool,
}

/// Whether a fast slot's value of type `type_id`, with key `key` (see
/// [`FastSlot::direct_key`]), is a `T`: one pointer comparison where both
/// keys are known (`T`'s is a constant), else the `TypeId`s. Keys at one
/// address name one type (see `TypeKey`), so equal nonzero keys mean equal
/// types.
#[inline(always)]
fn is_type<T: Component>(key: usize, type_id: TypeId) -> bool {
    let wanted = type_key_address::<T>();
    (wanted != 0 && key == wanted) || type_id == TypeId::of::<T>()
}

/// The type a [`FastSlot`] names where no `T: Component` may match: it is no
/// component.
struct NoValue;

impl FastSlot {
    const ABSENT: FastSlot = FastSlot {
        type_id: TypeId::of::<NoValue>(),
        direct_type: TypeId::of::<NoValue>(),
        write_type: TypeId::of::<NoValue>(),
        direct_key: 0,
        write_key: 0,
        kind: FastKind::Absent,
        base: SlotAddress(NonNull::dangling()),
        row_stride: 0,
        added: 0,
        changed: 0,
        disabled: None,
        sparse_base: None,
        writes: false,
    };

    /// The base address of the column of the row's table holding term's `T`
    /// for every row (not for optional toggleable terms).
    #[inline(always)]
    pub(super) fn column<T: Component>(&self) -> Option<*mut T> {
        (self.kind == FastKind::Column && self.type_id == TypeId::of::<T>()).then_some(self.base.address() as *mut T)
    }
}

/// A check a solution's rows must pass one by one.
#[derive(Clone, Copy, Debug)]
pub(crate) enum RowCheck {
    /// A sparse component of the row's entity is present.
    Sparse(Entity),
    /// A toggleable component's value in the row's table is enabled.
    Toggle(DisabledBits),
    /// Its pair of the union relationship (by entity index) targets this entity.
    UnionTarget(u32, Entity),
    /// It is this entity (a reflexive `(IsA, t)` on `t`'s own table).
    IsEntity(Entity),
    /// The same for every row: another entity's toggleable value (one the
    /// table inherits) is enabled, as read when the iteration began.
    Fixed(bool),
}

/// One solution: a table (or none), and where its terms' slots start in the
/// pools of [`Solutions`].
#[derive(Clone, Debug)]
pub(crate) struct Solution {
    pub(super) archetype: Option<ArchetypeId>,
    pub(super) vars: SmallVec<[Option<Entity>; 4]>,
    /// The first of its slots in the pool of slots (one per term).
    pub(super) start: usize,
    /// The first of its fast slots in the pool of fast slots: one per term,
    /// then [`FastSlot::ABSENT`] up to [`LOCAL_TERMS`] (so that the row path
    /// reads a low term without comparing it to the number of terms).
    pub(super) fast_start: usize,
    /// Terms on `$this` checked per row (sparse and toggleable components,
    /// union targets), with their operators.
    pub(super) per_row: SmallVec<[(RowCheck, TermOper); 1]>,
}

impl Solution {
    /// The one row the solution can hold, with its entity, when a required
    /// check names the row's entity (`$this` in an id bound it, or a
    /// reflexive `IsA`); `None` when its rows are the table's (or when that
    /// entity is not in the table: no row).
    pub(super) fn only_entity(&self) -> Option<Entity> {
        self.per_row.iter().find_map(|&(check, oper)| match (check, oper) {
            (RowCheck::IsEntity(entity), TermOper::And) => Some(entity),
            _ => None,
        })
    }

    /// The union pair `(relationship index, target)` every row must hold
    /// (a required union-target check), if any: its rows are that target's
    /// holders.
    pub(super) fn required_union_target(&self) -> Option<(u32, Entity)> {
        self.per_row.iter().find_map(|&(check, oper)| match (check, oper) {
            (RowCheck::UnionTarget(relationship, target), TermOper::And) => Some((relationship, target)),
            _ => None,
        })
    }

    /// The row of `entity` (its [`Solution::only_entity`]) in the solution's
    /// table; `None` when it is not in that table.
    pub(super) fn row_of(&self, world: &World, entity: Entity) -> Option<usize> {
        let location =
            world.entities().location(entity).filter(|location| Some(location.archetype) == self.archetype)?;
        Some(location.row as usize)
    }
}

impl RowCheck {
    /// Whether `entity`, at `row` of the solution's table, passes the check.
    ///
    /// # Safety
    /// For a [`RowCheck::Toggle`], `row` is a row of the table its bits
    /// belong to, which is borrowed unchanged.
    unsafe fn holds(self, world: &World, entity: Entity, row: usize) -> bool {
        match self {
            RowCheck::Sparse(component) => world.sparse_sets().of(component).is_some_and(|set| set.contains(entity)),
            RowCheck::UnionTarget(relationship, target) => world.union_target(entity, relationship) == Some(target),
            RowCheck::IsEntity(wanted) => entity == wanted,
            RowCheck::Fixed(holds) => holds,
            // SAFETY: guaranteed by the caller.
            RowCheck::Toggle(bits) => !unsafe { bits.is_disabled(row) },
        }
    }

    /// The check a hit on `$this` needs per row for a sparse component or a
    /// union target, if any (toggle checks come from the row's table).
    fn of(hit: &Hit) -> Option<RowCheck> {
        if let Some(wanted) = hit.row_entity {
            return Some(RowCheck::IsEntity(wanted));
        }
        match (hit.sparse, hit.union_row) {
            (Some(component), _) => Some(RowCheck::Sparse(component)),
            (None, Some(target)) if hit.checks_union_target() => {
                Some(RowCheck::UnionTarget(hit.id.first_index(), target))
            }
            _ => None,
        }
    }
}

/// The rows of `table` whose pair of the union relationship (by entity
/// index) targets `target`, ascending: its holders from the world's index,
/// not a scan of the table.
pub(super) fn union_holder_rows(
    world: &World,
    relationship: u32,
    target: Entity,
    table: ArchetypeId,
) -> SmallVec<[u32; 8]> {
    let mut rows: SmallVec<[u32; 8]> = world
        .union_sources(relationship, target)
        .filter_map(|holder| world.entities().location(holder))
        .filter(|location| location.archetype == table)
        .map(|location| location.row)
        .collect();
    rows.sort_unstable();
    rows
}

/// Whether `entity`, at `row`, passes the union-target check of `hit` (a
/// hit whose target is checked per row; any other hit passes).
pub(super) fn union_check_holds(world: &World, hit: &Hit, entity: Entity, row: usize) -> bool {
    match RowCheck::of(hit) {
        // SAFETY: a union-target check reads no table bits.
        Some(check @ RowCheck::UnionTarget(..)) => unsafe { check.holds(world, entity, row) },
        _ => true,
    }
}

/// The solutions of one iteration, their slots pooled (one allocation for
/// all, reused from iteration to iteration).
#[derive(Default)]
pub(crate) struct Solutions {
    pub(super) list: Vec<Solution>,
    pub(super) slots: Vec<Slot>,
    pub(super) fast: Vec<FastSlot>,
    pub(super) terms: usize,
    /// One per solution, made by [`Solutions::seal`] once the pools stop growing.
    contexts: Vec<RowContext>,
    /// The rows of the solutions with per-row checks that pass them, listed
    /// by [`Solutions::seal`] (so the row loop makes no call).
    rows: Vec<u32>,
}

/// What the rows of one solution point at: the world and addresses in the
/// pools of the [`Solutions`], recorded by [`Solutions::seal`] after the last
/// push. Rows borrow the `Solutions` (and the world) for their whole life, so
/// the pools cannot move or change under them; between iterations the
/// addresses are stale and never read. Stored as integers so that a query
/// stays `Send + Sync`.
#[derive(Clone, Copy, Debug)]
struct RowContext {
    /// The table's entities (`$this`), 0 for a solution without a table.
    entities: usize,
    /// The table's length (0 for a solution without a table).
    len: usize,
    /// For a solution with per-row checks, its rows that pass them: a range
    /// of [`Solutions::rows`] (`None`: every row of the table).
    listed: Option<(usize, usize)>,
    world: usize,
    solution: usize,
    slots: usize,
    fast: usize,
    terms: usize,
    var_names: usize,
    var_count: usize,
}

impl Solutions {
    /// Forgets the previous iteration's solutions.
    pub(crate) fn clear(&mut self, terms: usize) {
        self.list.clear();
        self.slots.clear();
        self.fast.clear();
        self.contexts.clear();
        self.rows.clear();
        self.terms = terms;
    }

    /// Records the rows' contexts: call after the last `push` of an
    /// iteration, with the world the iteration borrows and the query's
    /// variable names (which must outlive the iteration's rows too).
    pub(crate) fn seal(&mut self, world: &World, var_names: &[String]) {
        self.contexts.clear();
        self.rows.clear();
        for solution in &self.list {
            let entities: &[Entity] = match solution.archetype {
                Some(archetype) => world.archetypes()[archetype].entities(),
                None => &[],
            };
            // The per-row checks are decided here, while the world is
            // borrowed unchanged for the whole iteration: rows lent later can
            // change values, never which components or targets a row has.
            let listed = (!solution.per_row.is_empty() && solution.archetype.is_some()).then(|| {
                let start = self.rows.len();
                // A solution of one entity's row (`$this` in an id, a
                // reflexive `IsA`) looks at that row only.
                match solution.only_entity() {
                    Some(entity) => {
                        if let Some(row) = solution.row_of(world, entity)
                            && per_row_matches(world, solution, entity, row)
                        {
                            self.rows.push(row as u32);
                        }
                    }
                    None => match solution.required_union_target() {
                        // The rows of one union target: its holders in this
                        // table (from the world's index), not a scan of all.
                        Some((relationship, target)) => {
                            let table = solution.archetype.expect("listed rows belong to a table");
                            for row in union_holder_rows(world, relationship, target, table) {
                                if per_row_matches(world, solution, entities[row as usize], row as usize) {
                                    self.rows.push(row);
                                }
                            }
                        }
                        None => {
                            for (row, &entity) in entities.iter().enumerate() {
                                if per_row_matches(world, solution, entity, row) {
                                    self.rows.push(row as u32);
                                }
                            }
                        }
                    },
                }
                (start, self.rows.len() - start)
            });
            self.contexts.push(RowContext {
                entities: if solution.archetype.is_some() { entities.as_ptr() as usize } else { 0 },
                len: entities.len(),
                listed,
                world: world as *const World as usize,
                solution: solution as *const Solution as usize,
                slots: self.slots[solution.start..].as_ptr() as usize,
                fast: self.fast[solution.fast_start..].as_ptr() as usize,
                terms: self.terms,
                var_names: var_names.as_ptr() as usize,
                var_count: var_names.len(),
            });
        }
    }

    /// Adds the solution of `frame` on `archetype`.
    ///
    /// `group`: the frame's row variable holds one row standing for the
    /// rows of that union target (relationship index, target): the solution
    /// holds those rows rather than that one.
    pub(crate) fn push(
        &mut self,
        world: &World,
        compiled: &Compiled,
        archetype: Option<&Archetype>,
        frame: &Frame,
        group: Option<(u32, Entity)>,
    ) {
        // `$this` bound by the terms' ids (no term on `$this`): the solution
        // is the one row of that entity, in its table.
        let bound_this = match (archetype, compiled.this_var) {
            (None, Some(this)) if compiled.this_in_id => {
                let Some(entity) = frame.vars[this] else { return };
                let Some(location) = world.entities().location(entity) else { return };
                Some((entity, &world.archetypes()[location.archetype]))
            }
            _ => None,
        };
        let archetype = bound_this.map_or(archetype, |(_, table)| Some(table));
        let start = self.slots.len();
        let fast_start = self.fast.len();
        let mut per_row = SmallVec::new();
        for (index, (term, hit)) in compiled.terms.iter().zip(&frame.hits).enumerate() {
            let mark = per_row.len();
            let (slot, fast) = slot(world, term, archetype, frame, *hit, &mut per_row);
            // An optional term that enumerated its table's union targets: a
            // row of another target is absent from this frame, not unset.
            if term.oper == TermOper::Optional && compiled.union_target_required(index) {
                for (check, oper) in &mut per_row[mark..] {
                    if matches!(check, RowCheck::UnionTarget(..)) {
                        *oper = TermOper::And;
                    }
                }
            }
            self.slots.push(slot);
            self.fast.push(fast);
        }
        let padded = fast_start + LOCAL_TERMS;
        if self.fast.len() < padded {
            self.fast.resize(padded, FastSlot::ABSENT);
        }
        // `$this` in an id was bound to one row's entity: that row alone (or
        // the rows of its union target, for which it stood).
        if let Some((relationship, target)) = group {
            per_row.push((RowCheck::UnionTarget(relationship, target), TermOper::And));
        } else if let (Some(this), Some(_)) = (compiled.this_var, archetype)
            && let Some(entity) = frame.vars[this]
        {
            per_row.push((RowCheck::IsEntity(entity), TermOper::And));
        }
        let vars = frame.vars.clone();
        self.list.push(Solution { archetype: archetype.map(Archetype::id), vars, start, fast_start, per_row });
    }
}

/// The slot of one term of a solution.
fn slot(
    world: &World,
    term: &super::compile::CompiledTerm,
    archetype: Option<&Archetype>,
    frame: &Frame,
    hit: Option<Hit>,
    per_row: &mut SmallVec<[(RowCheck, TermOper); 1]>,
) -> (Slot, FastSlot) {
    let pattern = term.alternatives[0].index_id(&frame.vars);
    let any_halves = match term.alternatives.as_slice() {
        [only] => {
            u8::from(only.first == super::compile::Half::Any)
                | (u8::from(only.second == Some(super::compile::Half::Any)) << 1)
        }
        _ => 0,
    };
    let source = match term.source {
        Source::This => None,
        Source::Fixed(entity) => Some(entity),
        Source::Var(var) => frame.vars[var],
    };
    // The slot of a term without a match in this solution.
    let unmatched =
        Slot { hit: None, pattern, source, type_id: None, writes: false, data: Data::None, disabled: None, any_halves };
    let Some(hit) = hit else {
        return (unmatched, FastSlot::ABSENT);
    };
    // A sparse value the table's entities may inherit: rows without their
    // own read the base's, so every row has one.
    let sparse_base = match (hit.sparse, archetype) {
        (Some(component), Some(archetype))
            if term.source == Source::This
                && term.access != DataAccess::Write
                && !term.owned
                && world.component_info(component).is_some_and(ComponentInfo::is_inherited_sparse) =>
        {
            world.sparse_base_of(archetype, component)
        }
        _ => None,
    };
    if let Some(check) = RowCheck::of(&hit) {
        let check = match check {
            RowCheck::Sparse(_) if sparse_base.is_some() => RowCheck::Fixed(true),
            check => check,
        };
        per_row.push((check, term.oper));
    }
    // Another entity's toggleable value read by every row of `$this`'s
    // table (inherited): as enabled as on that entity now.
    if archetype.is_some()
        && term.source == Source::This
        && let Some(holder) = super::eval::inherited_toggle_holder(world, &hit)
    {
        let enabled = world.own_value_enabled(holder, hit.id);
        per_row.push((RowCheck::Fixed(enabled), term.oper));
        if !enabled {
            return (unmatched, FastSlot::ABSENT);
        }
    }
    // A toggleable component in the row's own table: decided per row.
    let disabled = match archetype {
        Some(archetype) if hit.source.is_none() && hit.sparse.is_none() && hit.column >= 0 => {
            archetype.table().column(hit.column as usize).disabled_bits()
        }
        _ => None,
    };
    if let Some(bits) = disabled {
        per_row.push((RowCheck::Toggle(bits), term.oper));
    }
    let info = if hit.id.is_pair() {
        world.components().info_by_index(hit.id.first_index())
    } else {
        hit.id.entity().and_then(|component| world.component_info(component))
    };
    let info = info.filter(|_| term.access != DataAccess::None && term.oper != TermOper::Not);
    let type_id = info.and_then(|info| info.type_id());
    let zero_sized = info.is_some_and(|info| info.layout().size() == 0);
    let data = match (hit.sparse, hit.source) {
        _ if info.is_none() => Data::None,
        (Some(component), _) => Data::Sparse(component, sparse_base),
        (None, Some(entity)) => match world.id_value(entity, hit.id) {
            Some((address, _)) => Data::Value { address: address.as_ptr() as usize },
            None => match hit.id.entity().and_then(|component| world.sparse_sets().of(component)) {
                Some(set) => {
                    set.get(entity).map_or(Data::None, |address| Data::Value { address: address.as_ptr() as usize })
                }
                None if zero_sized => Data::ZeroSized,
                None => Data::None,
            },
        },
        (None, None) => match archetype {
            Some(archetype) if hit.column >= 0 => {
                let column = archetype.table().column(hit.column as usize);
                let (added, changed) = if column.has_ticks() {
                    (column.added_ptr().as_ptr() as usize, column.changed_ptr().as_ptr() as usize)
                } else {
                    (0, 0)
                };
                Data::Column { base: column.data_ptr().as_ptr() as usize, added, changed }
            }
            _ if zero_sized => Data::ZeroSized,
            _ => Data::None,
        },
    };
    let writes = term.access == DataAccess::Write && !matches!(data, Data::None);
    let layout = info.map_or((0, 1), |info| (info.layout().size(), info.layout().align()));
    let key = info.map_or(0, |info| info.type_key());
    let fast = fast_slot(world, term.oper, (type_id, key), layout, data, disabled, writes);
    (Slot { hit: Some(hit), pattern, source: hit.source.or(source), type_id, writes, data, disabled, any_halves }, fast)
}

/// The fast slot of a term that matched, with the value at `data` of type
/// `type_id` (`None`: no value).
fn fast_slot(
    world: &World,
    oper: TermOper,
    (type_id, key): (Option<TypeId>, usize),
    (size, align): (usize, usize),
    data: Data,
    disabled: Option<DisabledBits>,
    writes: bool,
) -> FastSlot {
    let Some(type_id) = type_id else { return FastSlot::ABSENT };
    let fast = FastSlot { type_id, writes, ..FastSlot::ABSENT };
    let direct = FastSlot { direct_type: type_id, direct_key: key, ..fast };
    match data {
        Data::None => FastSlot::ABSENT,
        // An optional toggleable term may be absent on some rows (a required
        // one is enabled on every row the per-row checks let through).
        Data::Column { base, added, changed } if disabled.is_some() && oper == TermOper::Optional => FastSlot {
            kind: FastKind::ToggledColumn,
            base: SlotAddress::of(base),
            added,
            changed,
            disabled,
            row_stride: size,
            ..fast
        },
        Data::Column { base, added, changed } => {
            let (write_type, write_key) =
                if writes && changed != 0 { (type_id, key) } else { (TypeId::of::<NoValue>(), 0) };
            FastSlot {
                kind: FastKind::Column,
                base: SlotAddress::of(base),
                added,
                changed,
                row_stride: size,
                write_type,
                write_key,
                ..direct
            }
        }
        Data::Value { address } if address != 0 => {
            FastSlot { kind: FastKind::Shared, base: SlotAddress::of(address), ..direct }
        }
        Data::Value { .. } => FastSlot::ABSENT,
        Data::ZeroSized => FastSlot { kind: FastKind::ZeroSized, base: SlotAddress::of(align), ..direct },
        Data::Sparse(component, sparse_base) => match world.sparse_sets().of(component) {
            Some(set) => FastSlot {
                kind: FastKind::Sparse,
                base: SlotAddress::of(set as *const SparseSet as usize),
                sparse_base,
                ..fast
            },
            None => FastSlot::ABSENT,
        },
    }
}

/// [`FastSlot::base`]: a never-null address, read through only while the
/// solution's world is borrowed.
#[derive(Clone, Copy, Debug)]
pub(super) struct SlotAddress(NonNull<u8>);

impl SlotAddress {
    /// `address` (a column's data, a value, a sparse set, an alignment).
    ///
    /// # Panics
    /// Panics if `address` is 0 (no slot address is).
    fn of(address: usize) -> SlotAddress {
        SlotAddress(NonNull::new(address as *mut u8).expect("a slot's address is never null"))
    }

    /// The address as an integer.
    #[inline(always)]
    fn address(self) -> usize {
        self.0.as_ptr() as usize
    }
}

// SAFETY: only an address, as the `usize` ones beside it in a slot: the rows
// that read through it borrow the world as the query's access says.
unsafe impl Send for SlotAddress {}
// SAFETY: as for `Send`.
unsafe impl Sync for SlotAddress {}

/// Why [`DynRow::try_get`] has no value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DynGetError {
    /// The query has no term with this index.
    NoSuchTerm(usize),
    /// The term did not match this row (`?` or `!`).
    NotSet(usize),
    /// The term gives no data: a filter (`[none]`, `!`), a tag, a wildcard or
    /// variable component, an id implied through a transitive chain.
    NoData(usize),
    /// The term's value is not a `T`.
    TypeMismatch {
        /// The term.
        term: usize,
        /// The type asked for.
        requested: &'static str,
        /// The id the term matched.
        found: Id,
    },
    /// `get_mut` on a term that does not write (`[inout]`/`[out]`).
    NotWritable(usize),
}

impl fmt::Display for DynGetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DynGetError::NoSuchTerm(term) => write!(f, "the query has no term {term}"),
            DynGetError::NotSet(term) => write!(f, "term {term} did not match this row"),
            DynGetError::NoData(term) => write!(f, "term {term} gives no data (a filter, a tag or an implied id)"),
            DynGetError::TypeMismatch { term, requested, found } => {
                write!(f, "term {term} matched {found:?}, whose value is not a {requested}")
            }
            DynGetError::NotWritable(term) => write!(f, "term {term} is not a write term ([inout] or [out])"),
        }
    }
}

impl std::error::Error for DynGetError {}

/// A row: its solution's context, its entity and its row in the table.
#[derive(Clone, Copy)]
struct RowBase<'q> {
    context: &'q RowContext,
    /// The solution's fast slots in the pool.
    fast: &'q [FastSlot],
    /// The first [`LOCAL_TERMS`] of them copied next to a lending
    /// iteration's row loop ([`DynIterMut::for_each`]), where nothing the rows
    /// write can alias them.
    local: Option<&'q [FastSlot; LOCAL_TERMS]>,
    row: usize,
}

impl RowContext {
    /// The fast slots of the context's solution, in the pool.
    #[inline(always)]
    fn fast_slots(&self) -> &[FastSlot] {
        let fast = self.fast as *const FastSlot;
        // SAFETY: `seal` recorded the solution's `terms` fast slots in the
        // pool (an address from a slice: never null), which stays borrowed
        // and unchanged while contexts are read.
        unsafe {
            core::hint::assert_unchecked(!fast.is_null());
            core::slice::from_raw_parts(fast, self.terms)
        }
    }
}

impl<'q> RowBase<'q> {
    /// The row's entity; `None` for a solution without a table.
    #[inline(always)]
    fn this(&self) -> Option<Entity> {
        if self.context.entities == 0 {
            return None;
        }
        // SAFETY: the table's entity array, unchanged while the world is
        // borrowed; `row` is below its length (the cursor's bound).
        Some(unsafe { *(self.context.entities as *const Entity).add(self.row) })
    }

    #[inline(always)]
    fn world(&self) -> &'q World {
        // SAFETY: `seal` recorded the world the iteration borrows for `'q`.
        unsafe { &*(self.context.world as *const World) }
    }

    #[inline(always)]
    fn solution(&self) -> &'q Solution {
        // SAFETY: the pools are borrowed, unchanged since `seal`, for `'q`.
        unsafe { &*(self.context.solution as *const Solution) }
    }

    #[inline(always)]
    fn var_names(&self) -> &'q [String] {
        // SAFETY: the query's names, borrowed with it for `'q` (see `seal`).
        unsafe { core::slice::from_raw_parts(self.context.var_names as *const String, self.context.var_count) }
    }

    fn slot(&self, term: usize) -> Result<&'q Slot, DynGetError> {
        if term >= self.context.terms {
            return Err(DynGetError::NoSuchTerm(term));
        }
        // SAFETY: the solution's `terms` slots start there (see `seal`).
        Ok(unsafe { &*(self.context.slots as *const Slot).add(term) })
    }

    /// Term `term`'s fast slot; [`FastSlot::ABSENT`] or `None` past the
    /// query's terms (both give no value).
    #[inline(always)]
    fn fast(&self, term: usize) -> Option<&'q FastSlot> {
        match self.local {
            Some(local) if term < LOCAL_TERMS => (term < self.fast.len()).then(|| &local[term]),
            // SAFETY: every solution has at least `LOCAL_TERMS` fast slots in
            // the pool, `ABSENT` past its terms (`Solutions::push`).
            None if term < LOCAL_TERMS => Some(unsafe { &*self.fast.as_ptr().add(term) }),
            _ => self.fast.get(term),
        }
    }

    /// The address of term `term`'s `T` for this row, `None` where `get`
    /// gives none: a few loads and no call, so that a caller's row loop keeps
    /// its values in registers. With `INDIRECT_INLINE` false, values that are
    /// not at a direct address (toggleable and sparse terms) are found by a
    /// cold call, which keeps a `for` loop over [`DynIter`] short; the lending
    /// rows take it inline, since their `for_each` keeps a solution's slots
    /// next to the row loop and a call there made the loop reload them from
    /// memory every row.
    #[inline(always)]
    fn fast_address<T: Component, const INDIRECT_INLINE: bool>(&self, term: usize) -> Option<NonNull<T>> {
        let fast = self.fast(term)?;
        if is_type::<T>(fast.direct_key, fast.direct_type) {
            // A column's value of this row, a shared value or a zero-sized
            // value's dangling address: no branch on which. Pointer
            // arithmetic from a never-null base, so the caller's `unwrap` or
            // `?` compiles to nothing.
            // SAFETY: `base` is the data of a column of the row's table that
            // stores `T` (type checked) and `row` is below the table's length
            // (the cursor walks rows of the table the world still holds), so
            // the offset stays in the column; or the address of another
            // entity's `T` or a `T`'s alignment for a zero-sized `T` (as
            // `NonNull::dangling`), with offset 0 (`row_stride` 0). A
            // column's `row_stride` is the size of its values, `T`'s.
            return Some(unsafe { fast.base.0.add(self.row * fast.row_stride).cast::<T>() });
        }
        if INDIRECT_INLINE {
            self.indirect_address_inline(fast)
        } else {
            Self::indirect_address(self.context, self.row, fast)
        }
    }

    /// [`Self::indirect_address_inline`] out of the row loop's way.
    #[cold]
    #[inline(never)]
    fn indirect_address<T: Component>(context: &'q RowContext, row: usize, fast: &FastSlot) -> Option<NonNull<T>> {
        // Only the context and the row travel (in registers): a `&self`
        // argument made the row loop store the row to the stack every row.
        RowBase { context, fast: &[], local: None, row }.indirect_address_inline(fast)
    }

    /// The address of a `T` that is not at a direct address: a toggleable
    /// column's (checked per row) or a sparse set's.
    #[inline(always)]
    fn indirect_address_inline<T: Component>(&self, fast: &FastSlot) -> Option<NonNull<T>> {
        let row = self.row;
        if fast.type_id != TypeId::of::<T>() {
            return None;
        }
        let address = match fast.kind {
            FastKind::ToggledColumn => {
                // SAFETY: the bits belong to that column; `row` is one of its rows.
                if fast.disabled.is_some_and(|bits| unsafe { bits.is_disabled(row) }) {
                    return None;
                }
                // SAFETY: as for a direct column.
                unsafe { (fast.base.address() as *mut T).add(row) }
            }
            FastKind::Sparse => {
                let entity = self.this()?;
                // SAFETY: `base` is the address of the component's sparse set,
                // which the borrowed world holds unchanged (see `seal`).
                let set = unsafe { &*(fast.base.address() as *const SparseSet) };
                set.get(entity).or_else(|| fast.sparse_base.and_then(|base| set.get(base)))?.as_ptr().cast::<T>()
            }
            FastKind::Absent | FastKind::Column | FastKind::Shared | FastKind::ZeroSized => return None,
        };
        NonNull::new(address)
    }

    /// The address of term `term`'s `T` for this row, checked.
    #[cold]
    #[inline(never)]
    fn address<T: Component>(&self, term: usize) -> Result<NonNull<T>, DynGetError> {
        let slot = self.slot(term)?;
        let hit = slot.hit.ok_or(DynGetError::NotSet(term))?;
        // SAFETY: the bits belong to the row's table, and `row` is below its length.
        if slot.disabled.is_some_and(|bits| unsafe { bits.is_disabled(self.row) }) {
            return Err(DynGetError::NotSet(term));
        }
        if matches!(slot.data, Data::None) {
            return Err(DynGetError::NoData(term));
        }
        if slot.type_id != Some(TypeId::of::<T>()) {
            return Err(DynGetError::TypeMismatch { term, requested: type_name::<T>(), found: hit.id });
        }
        let address = match slot.data {
            Data::None => return Err(DynGetError::NoData(term)),
            Data::ZeroSized => NonNull::dangling(),
            // SAFETY: as in `column_address`.
            Data::Column { base, .. } => unsafe { NonNull::new_unchecked((base as *mut T).add(self.row)) },
            Data::Value { address } => NonNull::new(address as *mut T).ok_or(DynGetError::NoData(term))?,
            Data::Sparse(component, sparse_base) => {
                let entity = self.this().ok_or(DynGetError::NoData(term))?;
                let set = self.world().sparse_sets().of(component).ok_or(DynGetError::NotSet(term))?;
                let value = set.get(entity).or_else(|| sparse_base.and_then(|base| set.get(base)));
                value.ok_or(DynGetError::NotSet(term))?.cast()
            }
        };
        Ok(address)
    }

    fn is_set(&self, term: usize) -> bool {
        let Ok(slot) = self.slot(term) else { return false };
        match (slot.hit, slot.data) {
            (None, _) => false,
            // SAFETY: the bits belong to the row's table, and `row` is below its length.
            (Some(_), _) if slot.disabled.is_some_and(|bits| unsafe { bits.is_disabled(self.row) }) => false,
            // Rows without their own value read the base's.
            (Some(_), Data::Sparse(_, Some(_))) => true,
            (Some(hit), _) if RowCheck::of(&hit).is_some() => {
                let (Some(check), Some(entity)) = (RowCheck::of(&hit), self.this()) else { return false };
                // SAFETY: `RowCheck::of` gives no toggle check.
                unsafe { check.holds(self.world(), entity, self.row) }
            }
            _ => true,
        }
    }

    fn id(&self, term: usize) -> Id {
        let slot = self.slot(term).unwrap_or_else(|error| panic!("{error}"));
        let id = match slot.hit {
            // A union pair of any target: the row's own.
            Some(hit) if hit.union_row == Some(Entity::WILDCARD) => self
                .union_row_target(&hit)
                .map_or(hit.id, |target| Id::pair_from_indices(hit.id.first_index(), target.index())),
            Some(hit) => hit.id,
            None => slot.pattern,
        };
        // `_` halves read as `*` (Flecs: `(R, _)` reports `(R, *)`).
        match slot.any_halves {
            0 => id,
            _ if !id.is_pair() => Entity::WILDCARD.id(),
            halves => {
                let wildcard = Entity::WILDCARD.index();
                let first = if halves & 1 != 0 { wildcard } else { id.first_index() };
                let second = if halves & 2 != 0 { wildcard } else { id.second_index() };
                Id::pair_from_indices(first, second)
            }
        }
    }

    /// The row's target of the union pair `hit` (of any target) matched.
    fn union_row_target(&self, hit: &Hit) -> Option<Entity> {
        self.world().union_target(self.this()?, hit.id.first_index())
    }

    fn source(&self, term: usize) -> Entity {
        let slot = self.slot(term).unwrap_or_else(|error| panic!("{error}"));
        // A sparse value the row inherits: its source is the base, unless
        // the row holds its own.
        if slot.source.is_none()
            && let Data::Sparse(component, Some(base)) = slot.data
            && let Some(this) = self.this()
            && !self.world().sparse_sets().of(component).is_some_and(|set| set.contains(this))
        {
            return base;
        }
        slot.source.or(self.this()).unwrap_or_else(|| panic!("term {term} has no source in this row"))
    }

    fn pair_target(&self, term: usize) -> Option<Entity> {
        let hit = self.slot(term).ok()?.hit?;
        if hit.union_row == Some(Entity::WILDCARD) {
            return self.union_row_target(&hit);
        }
        let id = hit.id;
        id.is_pair().then(|| self.world().entity_at(id.second_index())).flatten()
    }

    fn var(&self, name: &str) -> Option<Entity> {
        let name = name.strip_prefix('$').unwrap_or(name);
        if name == "this" {
            // `$this` is variable 0 in Flecs: the row's entity.
            return self.this();
        }
        let index = self.var_names().iter().position(|known| known == name)?;
        self.solution().vars[index]
    }

    fn entity(&self) -> Entity {
        self.this()
            .unwrap_or_else(|| panic!("this query has no `$this` term: its rows are variable bindings, not entities"))
    }
}

/// Defines the read accessors shared by [`DynRow`] and [`DynRowMut`].
macro_rules! row_readers {
    ($lifetime:lifetime, $indirect_inline:literal) => {
        /// The row's entity (`$this`).
        ///
        /// # Panics
        /// Panics if the query has no `$this` term (its rows are bindings of
        /// variables; see [`Self::this`]).
        pub fn entity(&self) -> Entity {
            self.base.entity()
        }

        /// The row's entity, `None` for a query with no `$this` term.
        pub fn this(&self) -> Option<Entity> {
            self.base.this()
        }

        /// Term `term`'s value, `None` if the term did not match this row, gives
        /// no data, or its value is not a `T`.
        #[inline]
        pub fn get<T: Component>(&self, term: usize) -> Option<&$lifetime T> {
            let address = self.base.fast_address::<T, $indirect_inline>(term)?;
            // SAFETY: the address holds a live `T` (type checked); nothing
            // writes it while this shared borrow lives: the iteration holds the
            // world, and in a lending iteration `get_mut` needs the row mutably.
            Some(unsafe { address.as_ref() })
        }

        /// Term `term`'s value, or why there is none.
        pub fn try_get<T: Component>(&self, term: usize) -> Result<&$lifetime T, DynGetError> {
            // SAFETY: as in `get`.
            self.base.address::<T>(term).map(|address| unsafe { address.as_ref() })
        }

        /// Whether term `term` matched this row (`false` for an optional term
        /// that did not, and for `!` terms).
        pub fn is_set(&self, term: usize) -> bool {
            self.base.is_set(term)
        }

        /// The id term `term` matched (which pair a wildcard found); for a term
        /// that did not match, its id with unbound parts as `*`. A `_` (any)
        /// half reads `*` either way, as in Flecs (`(R, _)` reports `(R, *)`;
        /// [`Self::try_pair_target`] still gives the target found).
        ///
        /// # Panics
        /// Panics if the query has no term `term`.
        pub fn id(&self, term: usize) -> Id {
            self.base.id(term)
        }

        /// The target of the pair term `term` matched.
        ///
        /// # Panics
        /// Panics if the term did not match a pair in this row.
        pub fn pair_target(&self, term: usize) -> Entity {
            self.base.pair_target(term).unwrap_or_else(|| panic!("term {term} matched no pair in this row"))
        }

        /// The target of the pair term `term` matched, if it did.
        pub fn try_pair_target(&self, term: usize) -> Option<Entity> {
            self.base.pair_target(term)
        }

        /// The entity term `term` matched on: the row's, a fixed source, a
        /// variable's entity or the ancestor `up` reached.
        ///
        /// # Panics
        /// Panics if the query has no term `term`, or for a term on `$this` of a
        /// query whose rows are not entities.
        pub fn source(&self, term: usize) -> Entity {
            self.base.source(term)
        }

        /// The entity variable `name` (with or without `$`) is bound to; `None`
        /// if unknown or unbound. `this` is the row's entity (`None` for a
        /// query without `$this` terms).
        pub fn var(&self, name: &str) -> Option<Entity> {
            self.base.var(name)
        }
    };
}

/// One row of [`DynQuery::iter`](super::DynQuery::iter).
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component, Debug, PartialEq)]
/// struct Health(u32);
/// let mut world = World::new();
/// let e = world.spawn(Health(3)).id();
/// let health = world.register_component::<Health>();
/// let mut q = world.query_builder().read(health).build().unwrap();
/// let row = q.iter(&world).next().unwrap();
/// assert_eq!(row.entity(), e);
/// assert_eq!(row.get::<Health>(0), Some(&Health(3)));
/// assert_eq!(row.get::<Name>(0), None); // not the term's type
/// assert!(row.is_set(0));
/// ```
#[derive(Clone, Copy)]
pub struct DynRow<'q> {
    base: RowBase<'q>,
}

impl<'q> DynRow<'q> {
    row_readers!('q, false);
}

impl fmt::Debug for DynRow<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynRow").field("entity", &self.base.this()).field("row", &self.base.row).finish()
    }
}

/// One row of [`DynQuery::iter_mut`](super::DynQuery::iter_mut): reads like
/// [`DynRow`], and [`DynRowMut::get_mut`] for write terms.
pub struct DynRowMut<'r> {
    base: RowBase<'r>,
    last_run: Tick,
    this_run: Tick,
}

impl<'r> DynRowMut<'r> {
    row_readers!('_, true);

    /// Term `term`'s value, mutably (change detection stamps it when written);
    /// `None` if the term does not write (`[inout]`/`[out]`), did not match or
    /// its value is not a `T`.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Health(u32);
    /// let mut world = World::new();
    /// let e = world.spawn(Health(3)).id();
    /// let health = world.register_component::<Health>();
    /// let mut q = world.query_builder().write(health).build().unwrap();
    /// let mut rows = q.iter_mut(&mut world);
    /// while let Some(mut row) = rows.fetch_next() {
    ///     row.get_mut::<Health>(0).unwrap().0 += 1;
    /// }
    /// assert_eq!(world.get::<Health>(e), Some(&Health(4)));
    /// ```
    #[inline]
    pub fn get_mut<T: Component>(&mut self, term: usize) -> Option<Mut<'_, T>> {
        let fast = self.base.fast(term)?;
        let row = self.base.row;
        if is_type::<T>(fast.write_key, fast.write_type) {
            // SAFETY: a write term's `T` in a column of the row's table with
            // tick arrays (`write_type`), `row` one of its rows; aliasing as
            // below.
            return Some(unsafe {
                let value = fast.base.0.cast::<T>().add(row).as_mut();
                let added = (*(fast.added as *const TickCell).add(row)).get();
                let changed = &*(fast.changed as *const TickCell).add(row);
                Mut::new(value, added, Some(changed), self.last_run, self.this_run)
            });
        }
        if !fast.writes {
            return None;
        }
        let address = self.base.fast_address::<T, true>(term)?;
        // SAFETY: as in `try_get_mut`: exclusive world, write terms alias no
        // other term, one row lent at a time, `&mut self` held. The tick cells
        // are the row's own in the same column or sparse set.
        unsafe {
            let value = &mut *address.as_ptr();
            // Only columns (toggled or not) have tick arrays: one test for them.
            let (added, changed) = match fast.kind {
                _ if fast.changed != 0 => (
                    (*(fast.added as *const TickCell).add(row)).get(),
                    Some(&*(fast.changed as *const TickCell).add(row)),
                ),
                FastKind::Sparse => {
                    let set = &*(fast.base.address() as *const SparseSet);
                    match self.base.this().and_then(|entity| set.ticks(entity)) {
                        Some(cells) => (cells.added.get(), Some(&cells.changed)),
                        None => (Tick::default(), None),
                    }
                }
                _ => (Tick::default(), None),
            };
            Some(Mut::new(value, added, changed, self.last_run, self.this_run))
        }
    }

    /// Term `term`'s value mutably, or why there is none.
    pub fn try_get_mut<T: Component>(&mut self, term: usize) -> Result<Mut<'_, T>, DynGetError> {
        let slot = self.base.slot(term)?;
        if !slot.writes {
            return Err(DynGetError::NotWritable(term));
        }
        let address = self.base.address::<T>(term)?;
        let (last_run, this_run) = (self.last_run, self.this_run);
        // SAFETY: the iteration holds the world exclusively; write terms are on
        // `$this` and no other term of the query may match their id (checked
        // when the query was built); this row is lent once at a time and
        // `&mut self` keeps every other borrow of it out while the `Mut` lives.
        // The tick cells are the row's own in the same column or sparse set.
        unsafe {
            let value = &mut *address.as_ptr();
            match slot.data {
                Data::Column { added, changed, .. } if changed != 0 => {
                    let row = self.base.row;
                    let added = (*(added as *const TickCell).add(row)).get();
                    let changed = &*(changed as *const TickCell).add(row);
                    Ok(Mut::new(value, added, Some(changed), last_run, this_run))
                }
                Data::Sparse(component, _) => {
                    let entity = self.base.this().ok_or(DynGetError::NoData(term))?;
                    let cells = self.base.world().sparse_sets().of(component).and_then(|set| set.ticks(entity));
                    match cells {
                        Some(cells) => Ok(Mut::new(value, cells.added.get(), Some(&cells.changed), last_run, this_run)),
                        None => Ok(Mut::new(value, Tick::default(), None, last_run, this_run)),
                    }
                }
                _ => Ok(Mut::new(value, Tick::default(), None, last_run, this_run)),
            }
        }
    }
}

impl fmt::Debug for DynRowMut<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynRowMut").field("entity", &self.base.this()).field("row", &self.base.row).finish()
    }
}

/// Walks the rows of a list of solutions. Every step is inline and makes no
/// call (per-row checks were decided by [`Solutions::seal`]), so a user's
/// `for row in query.iter(..)` loop compiles to a loop without calls.
struct Cursor<'q> {
    world: &'q World,
    solutions: &'q Solutions,
    /// The next solution to enter.
    next: usize,
    /// The current solution's context, if it has a table.
    current: Option<&'q RowContext>,
    /// The next row (or position in `listed`) and where it ends.
    row: usize,
    end: usize,
    /// `end` while the current table's rows are all yielded (no listed rows),
    /// else 0: the one comparison of the common case.
    dense_end: usize,
    /// The listed rows of the current solution, when it has per-row checks.
    listed: Option<&'q [u32]>,
}

impl<'q> Cursor<'q> {
    fn new(world: &'q World, solutions: &'q Solutions) -> Self {
        debug_assert_eq!(solutions.contexts.len(), solutions.list.len(), "solutions not sealed");
        Cursor { world, solutions, next: 0, current: None, row: 0, end: 0, dense_end: 0, listed: None }
    }

    #[inline(always)]
    fn next_row(&mut self) -> Option<RowBase<'q>> {
        if self.row < self.dense_end {
            // SAFETY: `dense_end` is 0 while there is no current context.
            let context = unsafe { self.current.unwrap_unchecked() };
            let row = self.row;
            self.row += 1;
            return Some(RowBase { context, fast: context.fast_slots(), local: None, row });
        }
        self.next_row_slow()
    }

    #[inline(always)]
    fn next_row_slow(&mut self) -> Option<RowBase<'q>> {
        loop {
            if let Some(context) = self.current
                && self.row < self.end
            {
                let position = self.row;
                self.row += 1;
                let row = match self.listed {
                    Some(listed) => listed[position] as usize,
                    None => position,
                };
                return Some(RowBase { context, fast: context.fast_slots(), local: None, row });
            }
            // Enter the next solution.
            let context = self.solutions.contexts.get(self.next)?;
            self.next += 1;
            self.row = 0;
            if context.entities == 0 {
                // A query without `$this`: one row per solution.
                self.current = None;
                self.end = 0;
                self.dense_end = 0;
                return Some(RowBase { context, fast: context.fast_slots(), local: None, row: 0 });
            }
            self.current = Some(context);
            match context.listed {
                Some((start, len)) => {
                    self.listed = Some(&self.solutions.rows[start..start + len]);
                    self.end = len;
                    self.dense_end = 0;
                }
                None => {
                    self.listed = None;
                    self.end = context.len;
                    self.dense_end = context.len;
                }
            }
        }
    }

    fn remaining_upper_bound(&self) -> usize {
        let current = self.end.saturating_sub(self.row);
        let rest: usize = self.solutions.list[self.next.min(self.solutions.list.len())..]
            .iter()
            .map(|solution| solution.archetype.map_or(1, |archetype| self.world.archetypes()[archetype].len()))
            .sum();
        current + rest
    }
}

/// The read-only iterator of a runtime query: [`DynRow`]s.
pub struct DynIter<'q> {
    cursor: Cursor<'q>,
}

impl<'q> DynIter<'q> {
    pub(crate) fn new(world: &'q World, solutions: &'q Solutions) -> Self {
        DynIter { cursor: Cursor::new(world, solutions) }
    }
}

impl<'q> Iterator for DynIter<'q> {
    type Item = DynRow<'q>;

    #[inline(always)]
    fn next(&mut self) -> Option<DynRow<'q>> {
        self.cursor.next_row().map(|base| DynRow { base })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.cursor.remaining_upper_bound()))
    }
}

/// The lending iterator of [`DynQuery::iter_mut`](super::DynQuery::iter_mut).
pub struct DynIterMut<'q> {
    cursor: Cursor<'q>,
    last_run: Tick,
    this_run: Tick,
}

impl<'q> DynIterMut<'q> {
    pub(crate) fn new(world: &'q World, solutions: &'q Solutions, last_run: Tick, this_run: Tick) -> Self {
        DynIterMut { cursor: Cursor::new(world, solutions), last_run, this_run }
    }

    /// The next row; the previous one must be dropped first.
    #[allow(clippy::should_implement_trait)]
    #[inline(always)]
    pub fn fetch_next(&mut self) -> Option<DynRowMut<'_>> {
        let base = self.cursor.next_row()?;
        Some(DynRowMut { base, last_run: self.last_run, this_run: self.this_run })
    }

    /// Calls `f` with every row.
    ///
    /// The rows of a table without per-row checks run in a loop of their own,
    /// with the solution's fast slots (of its first four terms) copied next to
    /// it: nothing the rows write can alias that copy, so the compiler keeps
    /// it in registers and hoists the type checks.
    #[inline]
    pub fn for_each(mut self, mut f: impl FnMut(DynRowMut<'_>)) {
        let (last_run, this_run) = (self.last_run, self.this_run);
        let mut local = [FastSlot::ABSENT; LOCAL_TERMS];
        loop {
            // The next run of rows that share a context: the rest of a table
            // without per-row checks, or one row.
            let cursor = &mut self.cursor;
            let (context, rows) = match cursor.current {
                Some(context) if cursor.listed.is_none() && cursor.row < cursor.end => {
                    let rows = cursor.row..cursor.end;
                    cursor.row = cursor.end;
                    (context, rows)
                }
                _ => match cursor.next_row_slow() {
                    Some(base) => (base.context, base.row..base.row + 1),
                    None => return,
                },
            };
            let fast = context.fast_slots();
            // Copied for every run, also a listed row's run of one: skipping
            // the copy when the context is unchanged made the dense loop
            // 25-40% slower (its slots were then read from memory each row).
            for (term, copy) in local.iter_mut().enumerate() {
                *copy = fast.get(term).copied().unwrap_or(FastSlot::ABSENT);
            }
            for row in rows {
                f(DynRowMut { base: RowBase { context, fast, local: Some(&local), row }, last_run, this_run });
            }
        }
    }
}

/// How many terms' fast slots [`DynIterMut::for_each`] copies next to its
/// row loop (the terms past them are read from the pool).
const LOCAL_TERMS: usize = 4;

/// Whether `entity`, at `row` of `solution`'s table, passes the per-row
/// (sparse, toggleable, union-target) terms of `solution`.
pub(super) fn per_row_matches(world: &World, solution: &Solution, entity: Entity, row: usize) -> bool {
    solution.per_row.iter().all(|&(check, oper)| {
        // SAFETY: toggle bits belong to the solution's table, which the
        // iteration borrows unchanged, and `row` is one of its rows.
        let present = unsafe { check.holds(world, entity, row) };
        match oper {
            TermOper::And => present,
            TermOper::Not => !present,
            TermOper::Optional => true,
        }
    })
}
