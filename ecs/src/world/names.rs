//! Sibling names: two entities with one `ChildOf` parent, or two roots, never
//! carry the same [`Name`], so that a path (`station::dock`) names one entity.
//!
//! The rule is kept wherever a name or a parent changes:
//! * [`World::set_name`] checks first and returns a [`NameError`];
//! * inserting a `Name` (`insert`, `spawn`, `spawn_batch`, commands) is checked
//!   once the bundle and its pairs landed (a bundle may bring the name and the
//!   `ChildOf` pair together); a clash is undone (the previous name comes back,
//!   a spawned entity is despawned) and the call panics naming both entities;
//! * adding a `(ChildOf, parent)` pair to a named entity is refused beforehand
//!   ([`PairError::NameTaken`](super::PairError::NameTaken); the typed
//!   `add_pair` panics with it);
//! * removing a named entity's `ChildOf` pair, which makes it a root, panics
//!   beforehand if a root has its name;
//! * a name written in place (`Mut<Name>`, which runs no hook) is checked at
//!   the next flush (the start of the next structural change): a clash is
//!   taken back (the name it was filed under is written again) and the flush
//!   panics naming both entities.
//!
//! Paths join names with `::`. A name may hold `::` itself: [`World::path`]
//! escapes a colon that touches another colon or an end of the name as `\:`
//! (and a backslash that could be read as an escape as `\\`), and
//! [`World::lookup`] splits a path only at unescaped `::` (Flecs escapes its
//! separator the same way), so a path always looks up the entity it was
//! made from.
//!
//! Internal entities (components, wildcards) are outside the rule, as they are
//! outside `World::lookup`'s paths: an entity may be named like a component.
//! Siblings are found through the world's name index (name -> the entities
//! carrying it, with the key each is filed under), which `Name`'s
//! `on_insert` and `on_replace` hooks keep: a check looks at the entities
//! with that one name. Names written in place are noted (`get_mut` lists the
//! entity; a query that may write `Name` marks every name) and re-filed at
//! the next flush; until then lookups also read the noted entities' names,
//! or, after a query, a map of every name built once per name epoch.

use std::borrow::Cow;

use smallvec::SmallVec;
use std::fmt;

use super::{DeferredWorld, World};
use crate::component::{ChildOf, ComponentHooks, Hook, HookContext, Name, Prefab};
use crate::entity::{Entity, EntityLocation, Id};

/// `Name`'s hooks, set by `World::new`: they keep the name index.
pub(super) const NAME_HOOKS: ComponentHooks = ComponentHooks {
    on_add: None,
    on_insert: Some(Hook::new(name_inserted)),
    on_replace: Some(Hook::new(name_replaced)),
    on_remove: None,
};

/// A `Name` was written: index the entity under it.
fn name_inserted(mut world: DeferredWorld, context: HookContext) {
    let world = world.world_mut_unchecked();
    world.names_changed();
    let Some(name) = world.get::<Name>(context.entity).map(|name| Box::<str>::from(name.as_str())) else { return };
    world.file_name(context.entity, name);
}

/// A `Name` is about to be overwritten or removed: unindex the old one.
fn name_replaced(mut world: DeferredWorld, context: HookContext) {
    let world = world.world_mut_unchecked();
    world.names_changed();
    world.unfile_name(context.entity);
}

/// What [`World::refuse_inserted_name_clash`] puts back
/// ([`World::name_insert_undo`]).
pub(super) struct NameInsertUndo {
    name: Option<Name>,
    parent: Option<Entity>,
    not_prefabs: Vec<Entity>,
}

/// Why an entity could not be given a name.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// use ecs::world::NameError;
/// let mut world = World::new();
/// let a = world.spawn(Name::new("tank")).id();
/// let b = world.spawn_empty().id();
/// let error = world.set_name(b, "tank").unwrap_err();
/// assert_eq!(error, NameError::Taken { entity: b, name: "tank".into(), sibling: a });
/// assert!(error.to_string().contains(&format!("{a:?}")));
/// ```
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum NameError {
    /// A sibling (same `ChildOf` parent, or both roots) already has the name.
    Taken {
        /// The entity to be named.
        entity: Entity,
        /// The name.
        name: String,
        /// The sibling that has it.
        sibling: Entity,
    },
    /// The entity is not alive.
    NotAlive(Entity),
}

impl fmt::Display for NameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NameError::Taken { entity, name, sibling } => write!(
                f,
                "{entity:?} cannot be named \"{name}\": its sibling {sibling:?} has that name \
                 (names are unique among the children of a parent, and among roots)"
            ),
            NameError::NotAlive(entity) => write!(f, "entity {entity:?} is not alive"),
        }
    }
}

impl std::error::Error for NameError {}

impl World {
    /// Marks that names or paths may have changed (see `World::name_epoch`).
    #[inline]
    pub(super) fn names_changed(&self) {
        self.name_epoch.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
    }

    /// Files `entity` under `name` in the name index (taking it out from
    /// under the key it had, if any).
    fn file_name(&mut self, entity: Entity, name: Box<str>) {
        self.unfile_name(entity);
        self.name_index.entry(name.clone()).or_default().push(entity);
        self.indexed_names.insert(entity, name);
    }

    /// Takes `entity` out of the name index.
    fn unfile_name(&mut self, entity: Entity) {
        let Some(key) = self.indexed_names.remove(&entity) else { return };
        if let Some(entities) = self.name_index.get_mut(&key) {
            entities.retain(|filed| *filed != entity);
            if entities.is_empty() {
                self.name_index.remove(&key);
            }
        }
    }

    /// Notes that `T` values are handed out for writing in place by a query:
    /// if `T` is [`Name`], no hook will see what is written, so lookups read
    /// the names themselves until the next flush re-files them (one
    /// compile-time comparison for any other `T`).
    #[inline]
    pub(crate) fn note_write<T: crate::component::Component>(&self) {
        if T::ID == <Name as crate::component::Component>::ID {
            self.note_names_written();
        }
    }

    /// [`World::note_write`] for the component `component` (runtime queries).
    #[inline]
    pub(crate) fn note_write_of(&self, component: Entity) {
        if component == self.builtin.name {
            self.note_names_written();
        }
    }

    #[cold]
    fn note_names_written(&self) {
        self.names_dirty.fetch_or(super::NAMES_ALL_WRITTEN, core::sync::atomic::Ordering::Relaxed);
        self.names_changed();
    }

    /// `entity`'s `Name` is handed out for writing in place (`get_mut`).
    #[cold]
    pub(super) fn note_name_write_of(&mut self, entity: Entity) {
        self.names_written.push(entity);
        *self.names_dirty.get_mut() |= super::NAMES_LISTED;
        self.names_changed();
    }

    /// The entities named `name`, by the index, and while names written in
    /// place are not re-filed yet, by their values: every holder's when a
    /// query may have written any, else the index's entries that still hold
    /// it and the entities written since.
    pub(super) fn entities_filed_as(&self, name: &str) -> SmallVec<[Entity; 4]> {
        let holds = |entity: &Entity| self.get::<Name>(*entity).is_some_and(|held| held.as_str() == name);
        if self.names_dirty.load(core::sync::atomic::Ordering::Relaxed) & super::NAMES_ALL_WRITTEN != 0 {
            return self.filed_by_value(name);
        }
        let filed = self.name_index.get(name).into_iter().flatten().copied();
        if self.names_written.is_empty() {
            return filed.collect();
        }
        let mut found: SmallVec<[Entity; 4]> = filed.filter(holds).collect();
        for &entity in &self.names_written {
            if holds(&entity) && !found.contains(&entity) {
                found.push(entity);
            }
        }
        found
    }

    /// The holders of `name` by their current values, from a map of every
    /// holder built once per name epoch (see `World::names_by_value`).
    fn filed_by_value(&self, name: &str) -> SmallVec<[Entity; 4]> {
        let epoch = self.name_epoch.load(core::sync::atomic::Ordering::Relaxed);
        let mut cache = self.names_by_value.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if cache.0 != epoch {
            cache.1.clear();
            for entity in self.name_holders() {
                if let Some(held) = self.get::<Name>(entity) {
                    cache.1.entry(Box::from(held.as_str())).or_default().push(entity);
                }
            }
            cache.0 = epoch;
        }
        cache.1.get(name).into_iter().flatten().copied().collect()
    }

    /// Every entity holding a `Name`.
    fn name_holders(&self) -> Vec<Entity> {
        let Some(record) = self.archetypes.component_index().get(self.builtin.name.id()) else { return Vec::new() };
        record
            .non_empty()
            .iter()
            .flat_map(|entry| self.archetypes[entry.archetype].entities().iter().copied())
            .collect()
    }

    /// Re-files the names written in place since the last flush (those
    /// `get_mut` handed out, or every one after a query could write them).
    /// A name that now clashes with a sibling's is taken back (the one it
    /// was filed under is written again) and the flush panics naming both,
    /// as an insert of it would have been refused.
    ///
    /// # Panics
    /// Panics if a name written in place clashed with a sibling's (after
    /// taking it back; the world is consistent).
    #[cold]
    #[track_caller]
    pub(super) fn sync_written_names(&mut self) {
        let mut written = core::mem::take(&mut self.names_written);
        if core::mem::take(self.names_dirty.get_mut()) & super::NAMES_ALL_WRITTEN != 0 {
            written = self.name_holders();
            let cache = self.names_by_value.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner);
            *cache = (u64::MAX, crate::util::FxHashMap::default());
        }
        written.sort_unstable();
        written.dedup();
        // First every changed name leaves its old key (a swap a <-> b frees
        // both), then each is filed under its new one, unless a sibling has
        // it by then.
        let mut renamed: Vec<(Entity, Box<str>, Option<Box<str>>)> = Vec::new();
        for entity in written {
            let Some(name) = self.get::<Name>(entity).map(|name| Box::<str>::from(name.as_str())) else { continue };
            let filed = self.indexed_names.get(&entity).cloned();
            if filed.as_ref() != Some(&name) {
                self.unfile_name(entity);
                renamed.push((entity, name, filed));
            }
        }
        let mut clash = None;
        for (entity, name, filed) in renamed {
            if let Some(sibling) = self.named_sibling(self.parent_of(entity), &name, entity) {
                clash.get_or_insert(NameError::Taken { entity, name: name.to_string(), sibling });
                if let Some(filed) = filed {
                    self.restore_name(entity, Name::new(String::from(filed.clone())));
                    self.file_name(entity, filed);
                }
                continue;
            }
            self.file_name(entity, name);
        }
        self.names_changed();
        if let Some(error) = clash {
            panic!("a Name written in place (through Mut<Name>) was taken back: {error}");
        }
    }

    /// Writes `name` back into `entity`'s `Name` in place (the name index's
    /// own repair: the name it is filed under), noting no write.
    fn restore_name(&mut self, entity: Entity, name: Name) {
        if let Some(mut value) = self.get_mut::<Name>(entity) {
            *value = name;
        }
        self.names_written.retain(|&written| written != entity);
        if self.names_written.is_empty() {
            *self.names_dirty.get_mut() &= !super::NAMES_LISTED;
        }
    }

    /// A counter that moves whenever an entity's name or a named entity's
    /// parent changes (what [`World::path`] and [`World::lookup`] give may
    /// have changed since), shared: runtime queries hold it to know whether
    /// the names they remembered still stand.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use std::sync::atomic::Ordering;
    /// let mut world = World::new();
    /// let epoch = world.name_epoch();
    /// let before = epoch.load(Ordering::Relaxed);
    /// world.spawn(Name::new("station"));
    /// assert_ne!(epoch.load(Ordering::Relaxed), before);
    /// ```
    pub fn name_epoch(&self) -> std::sync::Arc<core::sync::atomic::AtomicU64> {
        std::sync::Arc::clone(&self.name_epoch)
    }

    /// Names `entity` (inserts [`Name`]), unless one of its siblings (the
    /// entities with its `ChildOf` parent, or the roots if it has none) has
    /// that name.
    ///
    /// # Errors
    /// [`NameError::Taken`] naming the sibling, or [`NameError::NotAlive`];
    /// nothing changes then.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// let mut world = World::new();
    /// let station = world.spawn(Name::new("station")).id();
    /// let dock = world.spawn(ChildOf.pair(station)).id();
    /// world.set_name(dock, "dock").unwrap();
    /// assert_eq!(world.lookup("station::dock"), Some(dock));
    /// let other = world.spawn(ChildOf.pair(station)).id();
    /// assert!(world.set_name(other, "dock").is_err());
    /// assert!(world.set_name(other, "crane").is_ok());
    /// let root = world.spawn_empty().id();
    /// assert!(world.set_name(root, "dock").is_ok()); // a root: other siblings
    /// ```
    pub fn set_name(&mut self, entity: Entity, name: impl Into<Cow<'static, str>>) -> Result<(), NameError> {
        self.flush_entities();
        if !self.is_alive(entity) {
            return Err(NameError::NotAlive(entity));
        }
        let name = name.into();
        if let Some(sibling) = self.named_sibling(self.parent_of(entity), &name, entity) {
            return Err(NameError::Taken { entity, name: name.into_owned(), sibling });
        }
        self.insert(entity, Name(name));
        Ok(())
    }

    /// A non-internal entity other than `except` named `name` whose parent is
    /// `parent` (`None`: a root).
    pub(super) fn named_sibling(&self, parent: Option<Entity>, name: &str, except: Entity) -> Option<Entity> {
        let child_of = self.components.id_of::<ChildOf>();
        self.find_named(
            name,
            |archetype| match (parent, child_of) {
                (None, Some(child_of)) => archetype.pair_positions(child_of.index()).is_empty(),
                (None, None) => true,
                (Some(parent), Some(child_of)) => archetype.contains(Id::pair(child_of, parent)),
                (Some(_), None) => false,
            },
            Some(except),
        )
    }

    /// Whether `entity` has a `Name` (one look at its archetype).
    #[inline]
    fn is_named(&self, entity: Entity) -> bool {
        self.entities
            .location(entity)
            .is_some_and(|location| self.archetypes[location.archetype].contains(self.builtin.name.id()))
    }

    /// The clash `entity`'s name would make under `parent`, if `id` makes it
    /// a child of `parent` (a `ChildOf` pair) and `entity` (at `location`) is
    /// named.
    pub(super) fn name_clash_under(&self, entity: Entity, location: EntityLocation, id: Id) -> Option<NameError> {
        if !id.is_pair()
            || id.first_index() != self.builtin.child_of.index()
            || !self.archetypes[location.archetype].contains(self.builtin.name.id())
            || self.name_check_deferred == Some(entity)
        {
            return None;
        }
        // A named entity gets a parent: its path changes.
        self.names_changed();
        let name = self.get::<Name>(entity)?;
        let parent = self.entity_at(id.second_index())?;
        let sibling = self.named_sibling(Some(parent), name.as_str(), entity)?;
        Some(NameError::Taken { entity, name: name.as_str().to_owned(), sibling })
    }

    /// Panics if removing `id` from `entity` would make the named `entity` a
    /// root while a root has its name.
    #[track_caller]
    pub(super) fn refuse_root_name_clash(&self, entity: Entity, id: Id) {
        if self.name_check_deferred == Some(entity) {
            return;
        }
        // Only pairs remove a parent (`*` alone removes the name too).
        if !id.is_pair() || !self.is_named(entity) {
            return;
        }
        // A named entity may lose its parent: its path changes.
        self.names_changed();
        let Some(name) = self.get::<Name>(entity) else { return };
        let Some(child_of) = self.components.id_of::<ChildOf>() else { return };
        let Some(parent) = self.parent_of(entity) else { return };
        let wildcard = |index: u32| index == Entity::WILDCARD.index() || index == Entity::ANY.index();
        // `(ChildOf, parent)`, or a wildcard pair matching it.
        let removes_parent = (id.first_index() == child_of.index() || wildcard(id.first_index()))
            && (id.second_index() == parent.index() || wildcard(id.second_index()));
        if !removes_parent {
            return;
        }
        if let Some(sibling) = self.named_sibling(None, name.as_str(), entity) {
            let error = NameError::Taken { entity, name: name.as_str().to_owned(), sibling };
            panic!("removing {} from {entity:?}: {error}", self.id_name(id));
        }
    }

    /// What a named insert into `entity` may have to put back: its name, its
    /// parent and (when it is not a prefab while prefabs exist) the entities
    /// of its subtree that are not prefabs (a new parent that is a prefab
    /// makes them prefabs).
    pub(super) fn name_insert_undo(&self, entity: Entity, may_reparent: bool) -> NameInsertUndo {
        let mut not_prefabs = Vec::new();
        if may_reparent && self.any_prefab() && !self.is_prefab(entity) {
            let mut pending = vec![entity];
            while let Some(next) = pending.pop() {
                if !self.is_prefab(next) {
                    not_prefabs.push(next);
                    pending.extend(self.children_by_index(next));
                }
            }
        }
        NameInsertUndo { name: self.get::<Name>(entity).cloned(), parent: self.parent_of(entity), not_prefabs }
    }

    /// After a bundle with a `Name` landed on `entity` (`previous` what it
    /// was before): if a sibling has the name, restores the name and parent
    /// (or removes the name), takes back the `Prefab` a prefab parent gave
    /// the subtree, and panics naming both entities.
    #[track_caller]
    pub(super) fn refuse_inserted_name_clash(&mut self, entity: Entity, previous: NameInsertUndo) {
        let Some(error) = self.inserted_name_clash(entity) else { return };
        if self.spawned_by_command == Some(entity) {
            self.despawn(entity);
            panic!("{error}");
        }
        let NameInsertUndo { name, parent, not_prefabs } = previous;
        // The old name and parent were unique together: no check on the way back.
        self.with_name_check_deferred(entity, |world| {
            match name {
                Some(name) => {
                    let bundle_id = world.register_bundle::<Name>();
                    world.insert_bundle_values(entity, bundle_id, name);
                }
                None => world.take_name_back(entity),
            }
            if world.parent_of(entity) != parent
                && let Some(child_of) = world.components.id_of::<ChildOf>()
            {
                match parent {
                    Some(parent) => world.add_id(entity, Id::pair(child_of, parent)),
                    None => world.remove_id(entity, Id::pair(child_of, Entity::WILDCARD)),
                };
            }
            for was_not_prefab in not_prefabs {
                if world.is_prefab(was_not_prefab) {
                    world.remove_bundle::<Prefab, true>(was_not_prefab);
                }
            }
        });
        panic!("{error}");
    }

    /// Removes the `Name` a refused bundle gave `entity`, whatever its
    /// hooks and observers do: a panic of one of them is kept and resumed
    /// once the name is gone (stopping halfway would leave two siblings of
    /// one name).
    fn take_name_back(&mut self, entity: Entity) {
        let name = self.builtin.name.id();
        let mut panics = crate::util::PanicSlot::default();
        panics.catch(|| {
            self.id_lifecycle(super::hooks::HookKind::Replace, entity, name);
            self.id_lifecycle(super::hooks::HookKind::Remove, entity, name);
        });
        if let Some(location) = self.entities.location(entity) {
            let destination = self.archetypes.remove_edge(location.archetype, name, &self.components);
            if destination != location.archetype {
                self.move_entity(entity, location, destination, &mut panics);
            }
        }
        panics.catch(|| self.flush_deferred());
        panics.resume();
    }

    /// Runs `change` with `entity`'s sibling name check deferred (checked by
    /// the caller once the whole bundle and its pairs landed), and puts the
    /// previous deferral back afterwards, also when `change` panics (a
    /// refused pair, a hook or observer): a deferral left behind would let
    /// later clashes of `entity` through.
    pub(super) fn with_name_check_deferred<R>(&mut self, entity: Entity, change: impl FnOnce(&mut World) -> R) -> R {
        let outer = self.name_check_deferred.replace(entity);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| change(self)));
        self.name_check_deferred = outer;
        result.unwrap_or_else(|payload| std::panic::resume_unwind(payload))
    }

    /// After `entity` was spawned with a `Name`: if a sibling has the name,
    /// despawns `entity` and panics naming both.
    #[track_caller]
    pub(super) fn refuse_spawned_name_clash(&mut self, entity: Entity) {
        let Some(error) = self.inserted_name_clash(entity) else { return };
        self.despawn(entity);
        panic!("{error}");
    }

    /// The clash of `entity`'s current name among its current siblings.
    fn inserted_name_clash(&self, entity: Entity) -> Option<NameError> {
        let name = self.get::<Name>(entity)?;
        let sibling = self.named_sibling(self.parent_of(entity), name.as_str(), entity)?;
        Some(NameError::Taken { entity, name: name.as_str().to_owned(), sibling })
    }
}

/// Appends `name` to `path` as one path segment: a `\` before a `:`, before
/// another `\` or at the end of the name becomes `\\`, and a `:` at either
/// end of the name or next to another `:` becomes `\:`, so the segment holds
/// no unescaped `::` and does not run into a separator. Other names (any
/// without `::`, a `\` elsewhere) are written as they are.
pub(super) fn push_escaped_segment(path: &mut String, name: &str) {
    if !name.contains(['\\', ':']) {
        path.push_str(name);
        return;
    }
    let bytes = name.as_bytes();
    for (at, c) in name.char_indices() {
        let last = at + 1 == bytes.len();
        let escape = match c {
            '\\' => last || matches!(bytes[at + 1], b':' | b'\\'),
            ':' => at == 0 || last || bytes[at - 1] == b':' || bytes[at + 1] == b':',
            _ => false,
        };
        if escape {
            path.push('\\');
        }
        path.push(c);
    }
}

/// The names a path is made of: split at every unescaped `::`, with `\:`
/// read as `:` and `\\` as `\` (any other `\` is itself; see
/// [`push_escaped_segment`]). A path without a backslash is split as is.
pub(super) fn path_segments(path: &str) -> Vec<Cow<'_, str>> {
    if !path.contains('\\') {
        return path.split("::").map(Cow::Borrowed).collect();
    }
    let mut segments = Vec::new();
    let mut current = String::new();
    let mut chars = path.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.peek() {
                Some(&next @ (':' | '\\')) => {
                    chars.next();
                    current.push(next);
                }
                _ => current.push('\\'),
            },
            ':' if chars.peek() == Some(&':') => {
                chars.next();
                segments.push(Cow::Owned(core::mem::take(&mut current)));
            }
            _ => current.push(c),
        }
    }
    segments.push(Cow::Owned(current));
    segments
}
