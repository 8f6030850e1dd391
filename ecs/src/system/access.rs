//! What a system borrows, at compile time ([`ParamAccess`]) and at run time
//! ([`SystemAccess`]).
//!
//! A system's access is a list of *units*, one per borrowing parameter (a
//! `Query`, a `Res`/`ResMut`, `&World`); a derived `SystemParam` contributes the
//! units of its fields. Two units of one system conflict when one writes what
//! the other accesses and their filters do not make them disjoint, or when one
//! is `&World` and the other writes anything.
//!
//! * The const check ([`ParamAccess::check`]) is forced by every generic entry
//!   point (`Schedule::add_systems`, `World::run_system_once`, `IntoSystem`) and by the
//!   `#[system]` attribute, and reports only what it can prove (see
//!   [`AccessSet`]).
//! * The runtime check ([`SystemAccess::check`]) runs when a system is
//!   initialized, over component entities and resource `TypeId`s, with `Or`
//!   filters modelled exactly. It panics with the system's name, both parameters
//!   and the fix. The scheduler uses [`SystemAccess::is_compatible`] to decide
//!   which systems may run at the same time.

use core::any::TypeId;

use crate::entity::Entity;
use crate::query::{
    AccessKind, AccessSet, ConstStr, Label, MESSAGE_CAPACITY, QueryAccess, push_propagate_hint, reads_other_entities,
};
use crate::world::World;

/// The most units a const [`ParamAccess`] holds; more are checked at run time only.
pub const MAX_PARAM_UNITS: usize = 16;

/// One borrowing parameter in a [`ParamAccess`].
#[derive(Clone, Copy, Debug)]
pub struct ParamUnit {
    /// Position of the parameter in the system's signature.
    pub param: usize,
    /// What it borrows; its label is the parameter as written (`Query<&mut Position>`).
    pub access: AccessSet,
    /// Nonzero for the members of a `ParamSet`: units of one parameter with the
    /// same nonzero value belong to one `ParamSet`, whose members are used one
    /// at a time and so are not checked against each other.
    pub param_set: u64,
}

/// The const access of a system parameter (or of all the parameters of a system).
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// use ecs::system::{ParamAccess, SystemParam};
/// #[derive(Component)]
/// struct Position(f32);
/// #[derive(Component)]
/// struct Enemy;
/// type Params = (Query<'static, 'static, &'static mut Position, With<Enemy>>, Query<'static, 'static, &'static Position>);
/// const ACCESS: ParamAccess = <Params as SystemParam>::ACCESS;
/// assert_eq!(ACCESS.units().len(), 2);
/// assert!(ACCESS.first_conflict().is_some()); // the second query may see enemies
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ParamAccess {
    units: [ParamUnit; MAX_PARAM_UNITS],
    len: usize,
    overflowed: bool,
}

const NO_UNIT: ParamUnit = ParamUnit { param: 0, access: AccessSet::labelled(""), param_set: 0 };

impl ParamAccess {
    /// No borrows (`Commands`, `Local`).
    pub const NONE: ParamAccess = ParamAccess { units: [NO_UNIT; MAX_PARAM_UNITS], len: 0, overflowed: false };

    /// One unit.
    pub const fn unit(access: AccessSet) -> ParamAccess {
        let mut units = ParamAccess::NONE;
        units.push(ParamUnit { param: 0, access, param_set: 0 });
        units
    }

    const fn push(&mut self, unit: ParamUnit) {
        if self.len == MAX_PARAM_UNITS {
            self.overflowed = true;
            return;
        }
        self.units[self.len] = unit;
        self.len += 1;
    }

    /// The units of `params`, the `i`-th numbered `i` (the parameters of one system).
    pub const fn system(params: &[ParamAccess]) -> ParamAccess {
        let mut all = ParamAccess::NONE;
        let mut i = 0;
        while i < params.len() {
            let mut j = 0;
            while j < params[i].len {
                let unit = params[i].units[j];
                all.push(ParamUnit { param: i, access: unit.access, param_set: unit.param_set });
                j += 1;
            }
            all.overflowed |= params[i].overflowed;
            i += 1;
        }
        all
    }

    /// The units of `fields`, labelled `Struct.field: Param` (a derived `SystemParam`).
    pub const fn fields(type_name: &str, fields: &[(&str, ParamAccess)]) -> ParamAccess {
        let mut all = ParamAccess::NONE;
        let mut i = 0;
        while i < fields.len() {
            let (field, access) = fields[i];
            let mut j = 0;
            while j < access.len {
                let unit = access.units[j];
                let label =
                    Label::new().with(type_name).with(".").with(field).with(": ").with(unit.access.label().as_str());
                // Keep the ParamSets of different fields apart.
                let param_set = if unit.param_set == 0 { 0 } else { unit.param_set * 32 + i as u64 + 1 };
                all.push(ParamUnit { param: 0, access: unit.access.with_label(label.as_str()), param_set });
                j += 1;
            }
            all.overflowed |= access.overflowed;
            i += 1;
        }
        all
    }

    /// The units of the members of a `ParamSet`: every member's units, marked
    /// as one set (checked against the system's other parameters, never
    /// against each other).
    pub const fn param_set(members: &[ParamAccess]) -> ParamAccess {
        let mut all = ParamAccess::NONE;
        let mut i = 0;
        while i < members.len() {
            let mut j = 0;
            while j < members[i].len {
                let unit = members[i].units[j];
                all.push(ParamUnit { param: 0, access: unit.access, param_set: 1 });
                j += 1;
            }
            all.overflowed |= members[i].overflowed;
            i += 1;
        }
        all
    }

    /// Whether a unit writes a component or resource (or the overflowed units
    /// might): `false` means the parameters are provably read-only.
    pub const fn writes_any(&self) -> bool {
        if self.overflowed {
            return true;
        }
        let mut i = 0;
        while i < self.len {
            if self.units[i].access.writes_any() || self.units[i].access.overflowed() {
                return true;
            }
            i += 1;
        }
        false
    }

    /// The units.
    pub const fn units(&self) -> &[ParamUnit] {
        self.units.split_at(self.len).0
    }

    /// The first two units that alias, with the component or resource they alias on.
    pub const fn first_conflict(&self) -> Option<(ParamUnit, ParamUnit, &'static str)> {
        let mut i = 0;
        while i < self.len {
            let mut j = i + 1;
            while j < self.len {
                let (a, b) = (self.units[i], self.units[j]);
                if a.param == b.param && a.param_set != 0 && a.param_set == b.param_set {
                    // Two members of one ParamSet: used one at a time.
                    j += 1;
                    continue;
                }
                if a.access.reads_world() && b.access.writes_any() {
                    return Some((a, b, first_write_name(&b.access)));
                }
                if b.access.reads_world() && a.access.writes_any() {
                    return Some((a, b, first_write_name(&a.access)));
                }
                if let Some((term, _)) = a.access.conflict_with(&b.access) {
                    return Some((a, b, term.name));
                }
                j += 1;
            }
            i += 1;
        }
        None
    }

    /// Panics (a compile error when evaluated in a `const`) if a query of these
    /// parameters aliases itself or two parameters alias each other. `system`
    /// names the system in the message when known (may be empty).
    ///
    /// # Panics
    /// With a message naming the parameters, the component and the fix.
    pub const fn check(&self, system: &str) {
        self.check_as("system", system, 0);
    }

    /// [`ParamAccess::check`] for an observer: its parameters are numbered from
    /// 1 (the `Trigger` is #0) and the message says "observer".
    ///
    /// # Panics
    /// As [`ParamAccess::check`].
    pub const fn check_observer(&self, observer: &str) {
        self.check_as("observer", observer, 1);
    }

    /// The check, naming the subject `kind` (`system`/`observer`) `name`, with
    /// parameter numbers shifted by `offset`.
    const fn check_as(&self, kind: &str, system: &str, offset: usize) {
        let mut i = 0;
        while i < self.len {
            let unit = self.units[i];
            if let Some((first, second)) = unit.access.internal_conflict() {
                let mut message = ConstStr::<MESSAGE_CAPACITY>::new();
                push_system(&mut message, kind, system);
                message.push("param #");
                push_number(&mut message, unit.param + offset);
                message.push(" (");
                message.push(unit.access.label().as_str());
                message.push(") borrows ");
                message.push(first.name);
                if matches!(second.kind, AccessKind::Write) {
                    message.push(" mutably twice");
                } else {
                    message.push(" mutably (");
                    message.push(first.label().as_str());
                    message.push(") and also reads it (");
                    message.push(second.label().as_str());
                    message.push(")");
                }
                message.push("; use a single `&mut ");
                message.push(first.name);
                message.push("` term, or split the query");
                push_propagate_hint(&mut message, second.kind);
                panic!("{}", message.as_str());
            }
            i += 1;
        }
        if let Some((a, b, name)) = self.first_conflict() {
            let mut message = ConstStr::<MESSAGE_CAPACITY>::new();
            push_system(&mut message, kind, system);
            message.push("params #");
            push_number(&mut message, a.param + offset);
            message.push(" and #");
            push_number(&mut message, b.param + offset);
            message.push(" conflict on ");
            message.push(name);
            message.push(": ");
            message.push(a.access.label().as_str());
            message.push(" vs ");
            message.push(b.access.label().as_str());
            if a.access.reads_world() || b.access.reads_world() {
                message.push("; &World reads everything, so no other param may write: take &mut World in an exclusive system, or drop the writer");
            } else if is_other_entity_conflict(&a.access, &b.access) {
                message.push("; a read of another entity (Up and Propagate: ancestors, Fixed: a fixed source) may reach any entity, so filters cannot make it disjoint from a writer: split the work into two systems (the schedule orders them) or read and write in one query");
            } else if is_resource_conflict(&a.access, &b.access) {
                message
                    .push("; a resource may be borrowed mutably by one param only: keep the ResMut and drop the other");
            } else {
                message.push("; make them disjoint with With<T>/Without<T> or merge them into one query");
            }
            panic!("{}", message.as_str());
        }
    }
}

const fn first_write_name(access: &AccessSet) -> &'static str {
    let terms = access.terms();
    let mut i = 0;
    while i < terms.len() {
        if matches!(terms[i].kind, AccessKind::Write) {
            return terms[i].name;
        }
        i += 1;
    }
    "?"
}

const fn is_other_entity_conflict(a: &AccessSet, b: &AccessSet) -> bool {
    match a.conflict_with(b) {
        Some((first, second)) => reads_other_entities(first.kind) || reads_other_entities(second.kind),
        None => false,
    }
}

const fn is_resource_conflict(a: &AccessSet, b: &AccessSet) -> bool {
    match a.conflict_with(b) {
        Some((term, _)) => term.resource,
        None => false,
    }
}

const fn push_system<const N: usize>(message: &mut ConstStr<N>, kind: &str, system: &str) {
    message.push(kind);
    if !system.is_empty() {
        message.push(" `");
        message.push(system);
        message.push("`: ");
    } else {
        message.push(" ");
    }
}

const fn push_number<const N: usize>(message: &mut ConstStr<N>, mut number: usize) {
    let mut digits = [0u8; 20];
    let mut len = 0;
    loop {
        digits[len] = b'0' + (number % 10) as u8;
        len += 1;
        number /= 10;
        if number == 0 {
            break;
        }
    }
    while len > 0 {
        len -= 1;
        let digit = [digits[len]];
        match core::str::from_utf8(&digit) {
            Ok(text) => message.push(text),
            Err(_) => message.push("?"),
        }
    }
}

/// Forces [`ParamAccess::check`] for the parameter tuple `P` when referenced.
pub struct SystemCheck<P>(core::marker::PhantomData<P>);

impl<P: super::SystemParam> SystemCheck<P> {
    /// Evaluates the check; a conflict is a compile error.
    pub const OK: () = P::ACCESS.check("");
}

/// The check the `#[system]` attribute emits as `const _: () = check_system::<(P0, P1)>("name");`.
///
/// # Panics
/// As [`ParamAccess::check`].
pub const fn check_system<P: super::SystemParam>(name: &str) {
    P::ACCESS.check(name)
}

/// Forces the const check of an observer's parameters (after its `Trigger`).
///
/// # Panics
/// As [`ParamAccess::check_observer`].
pub const fn check_observer<P: super::SystemParam>() {
    P::ACCESS.check_observer("")
}

// ----- runtime ---------------------------------------------------------------------------

/// What one parameter borrows, at run time.
#[derive(Clone, Debug)]
pub enum UnitAccess {
    /// A query.
    Query(QueryAccess),
    /// A resource, by type.
    Resource {
        /// The resource type.
        type_id: TypeId,
        /// Whether it is borrowed mutably.
        write: bool,
    },
    /// The whole world, read-only.
    World,
    /// Entity ids reserved through `&World` (`Commands`). Two systems that
    /// reserve ids conflict, so ids are handed out in system order and never
    /// depend on thread timing; within one system it never conflicts.
    EntityReservation,
}

/// One borrowing parameter of a system, at run time.
#[derive(Clone, Debug)]
pub struct RuntimeUnit {
    /// Position of the parameter in the system's signature.
    pub param: usize,
    /// The parameter's type, without module paths.
    pub label: String,
    /// What it borrows.
    pub access: UnitAccess,
    /// The `ParamSet` the unit is a member of (units of one set are used one
    /// at a time and not checked against each other).
    pub param_set: Option<u32>,
}

/// The runtime access of a whole system.
#[derive(Clone, Debug, Default)]
pub struct SystemAccess {
    units: Vec<RuntimeUnit>,
    param: usize,
    depth: usize,
    /// The `ParamSet` whose members are being initialized.
    param_set: Option<u32>,
    param_sets: u32,
}

impl SystemAccess {
    /// Enters a parameter tuple; `true` for the outermost one (the system's
    /// parameter list, whose elements are numbered).
    pub fn enter(&mut self) -> bool {
        self.depth += 1;
        self.depth == 1
    }

    /// Leaves a parameter tuple.
    pub fn exit(&mut self) {
        self.depth -= 1;
    }

    /// Sets the parameter index of the units added next.
    pub fn begin_param(&mut self, param: usize) {
        self.param = param;
    }

    /// Adds every unit of `other` (a system combined with this one, such as
    /// the second half of a pipe), keeping their labels and numbers.
    pub fn extend(&mut self, other: &SystemAccess) {
        self.units.extend(other.units.iter().cloned());
    }

    /// Adds a unit for the current parameter.
    pub fn add(&mut self, label: String, access: UnitAccess) {
        self.units.push(RuntimeUnit { param: self.param, label, access, param_set: self.param_set });
    }

    /// Starts the members of a `ParamSet`: the units added until
    /// [`SystemAccess::end_param_set`] are one set. Returns what to pass to it.
    pub fn begin_param_set(&mut self) -> Option<u32> {
        self.param_sets += 1;
        self.param_set.replace(self.param_sets)
    }

    /// Ends the members of a `ParamSet` (`outer`: what `begin_param_set` returned).
    pub fn end_param_set(&mut self, outer: Option<u32>) {
        self.param_set = outer;
    }

    /// The units.
    pub fn units(&self) -> &[RuntimeUnit] {
        &self.units
    }

    /// Whether any unit writes (components or resources).
    pub fn writes_anything(&self) -> bool {
        self.units.iter().any(|unit| unit_writes(&unit.access))
    }

    /// The first two units of this system that alias, with a description of what
    /// they alias on (a component entity, a resource type, or the world).
    pub fn first_conflict(&self) -> Option<(&RuntimeUnit, &RuntimeUnit, Conflict)> {
        for (i, a) in self.units.iter().enumerate() {
            for b in &self.units[i + 1..] {
                if a.param_set.is_some() && a.param_set == b.param_set {
                    continue;
                }
                match units_conflict(&a.access, &b.access) {
                    // One system's own reservations are sequential.
                    None | Some(Conflict::EntityReservation) => {}
                    Some(conflict) => return Some((a, b, conflict)),
                }
            }
        }
        None
    }

    /// Whether two systems may run at the same time.
    pub fn is_compatible(&self, other: &SystemAccess) -> bool {
        self.units.iter().all(|a| other.units.iter().all(|b| units_conflict(&a.access, &b.access).is_none()))
    }

    /// Every pair of units (this system's, `other`'s) that alias, with what
    /// they alias on; empty when the systems may run at the same time.
    pub fn conflicts_with<'a>(&'a self, other: &'a SystemAccess) -> Vec<(&'a RuntimeUnit, &'a RuntimeUnit, Conflict)> {
        let mut conflicts = Vec::new();
        for a in &self.units {
            for b in &other.units {
                if let Some(conflict) = units_conflict(&a.access, &b.access) {
                    conflicts.push((a, b, conflict));
                }
            }
        }
        conflicts
    }
}

/// What two units alias on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Conflict {
    /// A component (by its entity).
    Component(Entity),
    /// A resource (by its type).
    Resource(TypeId),
    /// `&World` against a writer.
    World,
    /// Two systems that both reserve entity ids (`Commands`).
    EntityReservation,
}

impl Conflict {
    /// What the units alias on, for messages: the component's name, "a
    /// resource" or "the world".
    pub fn describe(&self, world: &World) -> String {
        match self {
            // By index: relationship pair values are keyed by a pseudo-entity
            // with the relationship's index.
            Conflict::Component(component) => world
                .components()
                .info_by_index(component.index())
                .map_or_else(|| format!("{component:?}"), |info| info.name().to_owned()),
            Conflict::Resource(_) => "a resource".to_owned(),
            Conflict::World => "the world".to_owned(),
            Conflict::EntityReservation => "entity reservation".to_owned(),
        }
    }
}

fn unit_writes(access: &UnitAccess) -> bool {
    match access {
        UnitAccess::Query(query) => !query.writes().is_empty(),
        UnitAccess::Resource { write, .. } => *write,
        UnitAccess::World | UnitAccess::EntityReservation => false,
    }
}

fn units_conflict(a: &UnitAccess, b: &UnitAccess) -> Option<Conflict> {
    match (a, b) {
        (UnitAccess::EntityReservation, UnitAccess::EntityReservation) => Some(Conflict::EntityReservation),
        (UnitAccess::EntityReservation, _) | (_, UnitAccess::EntityReservation) => None,
        (UnitAccess::World, other) | (other, UnitAccess::World) => unit_writes(other).then_some(Conflict::World),
        (UnitAccess::Query(a), UnitAccess::Query(b)) => a.conflict_with(b).map(Conflict::Component),
        (UnitAccess::Resource { type_id: a, write: wa }, UnitAccess::Resource { type_id: b, write: wb }) => {
            (a == b && (*wa || *wb)).then_some(Conflict::Resource(*a))
        }
        _ => None,
    }
}

/// `core::any::type_name` without module paths: `ecs::system::Query<&mut game::Position, ()>`
/// becomes `Query<&mut Position>` (a trailing `()` filter is dropped).
///
/// # Examples
/// ```
/// use ecs::system::short_type_name;
/// assert_eq!(short_type_name("ecs::system::Query<&mut game::Position, ()>"), "Query<&mut Position>");
/// assert_eq!(short_type_name("core::option::Option<alloc::string::String>"), "Option<String>");
/// ```
pub fn short_type_name(full: &str) -> String {
    let mut out = String::with_capacity(full.len());
    let mut segment = String::new();
    let mut chars = full.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_alphanumeric() || c == '_' {
            segment.push(c);
        } else if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            segment.clear();
        } else {
            out.push_str(&segment);
            segment.clear();
            out.push(c);
        }
    }
    out.push_str(&segment);
    // `type_name` keeps erased lifetimes (`Query<'_, '_, &A>`); the labels the
    // const check prints have none, so neither do these.
    out.replace("'_, ", "").replace("<'_>", "").replace("&'_ ", "&").replace(", ()>", ">")
}
