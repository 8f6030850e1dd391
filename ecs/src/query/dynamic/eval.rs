//! Evaluating a compiled query: the *hits* of a term on an archetype or an
//! entity, and the backtracking search over the plan's steps.
//!
//! A hit is one way a term matched: the id (concrete, e.g. which `(Likes, x)`
//! a `(Likes, *)` term found), the entity it was found on (`None`: the row's
//! own), its column in the row's table, and for a sparse component on `$this`
//! the component to check per row (sparse components do not fragment tables).
//! A toggleable component is decided per row too on `$this` (its column's
//! enabled bits, even for `!`), and on another entity by that entity's bit:
//! a disabled value counts as absent.
//!
//! A union relationship's pairs (`(R, *union*)` in the table, the target in
//! each row) are per-row too: on `$this`, `(R, t)` is a hit checked per row
//! (the row's target must be `t`) and `(R, *)` a hit whose target is read per
//! row; on another entity (a fixed source, a variable's entity, an ancestor)
//! the pair is that entity's, read directly. A variable as the target of a
//! union pair on `$this` binds nothing per table, so that term does not match
//! union holders (their targets differ per row). An `up` term climbing a
//! union relationship from `$this` needs each row's target: a table holding
//! such a pair is evaluated one parent (or one row) at a time, with a row's
//! entity bound to the hidden row variable (`Compiled::row_mode`), and each
//! solution holds that parent's rows (or that row). A wildcard or variable
//! as the whole id on `$this` (`*`, `$c`) also matches each row's own sparse
//! components: while any sparse set holds entities its tables are evaluated
//! row by row the same way (`Compiled::whole_id_wildcard`).
//!
//! An instance reads the `inherit` components and value pairs of its prefabs
//! (`Archetype::inherited`) as hits on the base, for terms that do not write;
//! an own pair hides only itself.
//! The search binds variables from hits and undoes the bindings on the way
//! back; every complete assignment is one *frame* (variables + one hit or none
//! per term).
//!
//! Walks along relationships (`up`, transitive pairs) are bounded by the number
//! of alive entities and remember what they visited, so cycles end.

use smallvec::SmallVec;

use super::compile::{Compiled, CompiledTerm, DataAccess, Half, Pattern, Source, Step, is_whole_id_wildcard_on_this};
use crate::archetype::{Archetype, ArchetypeFlags, ArchetypeId, is_union_id};
use crate::component::{ComponentInfo, StorageKind};
use crate::entity::{Entity, Id};
use crate::query::term::TermOper;
use crate::world::World;

/// One way a term matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Hit {
    /// The concrete id matched.
    pub(crate) id: Id,
    /// `None`: the row's entity; `Some`: another entity.
    pub(crate) source: Option<Entity>,
    /// The column in the source's table, or -1 (a tag, a sparse value, an id
    /// implied through a transitive chain).
    pub(crate) column: i32,
    /// A sparse component of the row's entity, checked per row.
    pub(crate) sparse: Option<Entity>,
    /// A union pair of the row's entity: `Some(t)` must target `t` (checked
    /// per row); `Some(*)` any target, read per row (`id`, `pair_target`).
    pub(crate) union_row: Option<Entity>,
    /// `(IsA, t)` matched reflexively on `t`'s own table: only the row whose
    /// entity is `t` passes (checked per row).
    pub(crate) row_entity: Option<Entity>,
}

/// Variables bound by one hit.
type Bindings = SmallVec<[(usize, Entity); 2]>;

/// One complete (or, during the search, partial) assignment.
#[derive(Clone, Debug, Default)]
pub(crate) struct Frame {
    pub(crate) vars: SmallVec<[Option<Entity>; 4]>,
    pub(crate) hits: SmallVec<[Option<Hit>; 8]>,
}

impl Hit {
    /// The hit of the id at `position` of `archetype`, the table of `source`
    /// (`None`: the row's entity), with its column.
    fn at(archetype: &Archetype, position: usize, source: Option<Entity>) -> Hit {
        let column = archetype.column_map()[position];
        Hit { id: archetype.ids()[position], source, column, sparse: None, union_row: None, row_entity: None }
    }

    /// Whether the hit is a union pair of the row's entity whose target is
    /// checked per row.
    #[inline]
    pub(crate) fn checks_union_target(&self) -> bool {
        self.union_row.is_some_and(|target| target != Entity::WILDCARD)
    }

    /// Whether the hit's per-row condition holds for `entity`: the reflexive
    /// `(IsA, t)` entity, its own sparse value, its union pair's target (the
    /// conditions `row::RowCheck` checks per row; no toggle bits read).
    fn holds_for_row(&self, world: &World, entity: Entity) -> bool {
        if let Some(wanted) = self.row_entity {
            return entity == wanted;
        }
        match (self.sparse, self.union_row) {
            (Some(component), _) => world.sparse_sets().of(component).is_some_and(|set| set.contains(entity)),
            (None, Some(target)) if self.checks_union_target() => {
                world.union_target(entity, self.id.first_index()) == Some(target)
            }
            _ => true,
        }
    }
}

impl Frame {
    /// A frame with nothing bound.
    pub(crate) fn new(compiled: &Compiled) -> Frame {
        Frame {
            vars: smallvec::smallvec![None; compiled.var_names.len()],
            hits: smallvec::smallvec![None; compiled.terms.len()],
        }
    }
}

/// Where a term is evaluated: a table (the rows of `$this`) or one entity.
#[derive(Clone, Copy)]
struct Place<'w> {
    archetype: &'w Archetype,
    /// `None`: the rows of `archetype`; `Some`: this entity (of `archetype`).
    entity: Option<Entity>,
}

/// The search over one world.
pub(crate) struct Evaluator<'w, 'q> {
    pub(crate) world: &'w World,
    pub(crate) compiled: &'q Compiled,
    /// The hiding flags (internal, `Disabled`, `Prefab`) whose archetypes may match.
    pub(crate) allowed: ArchetypeFlags,
}

impl<'w> Evaluator<'w, '_> {
    /// Whether rows of `archetype` may be yielded at all.
    pub(crate) fn archetype_allowed(&self, archetype: &Archetype) -> bool {
        !archetype.is_dead() && !archetype.flags().hidden_unless(self.allowed)
    }

    /// Runs `steps` on the table `archetype` (`$this`), or with no `$this`
    /// when `archetype` is `None`, calling `emit` for every complete frame.
    pub(crate) fn run(
        &self,
        steps: &[Step],
        archetype: Option<&'w Archetype>,
        frame: &mut Frame,
        emit: &mut dyn FnMut(&Frame),
    ) {
        let Some((&step, rest)) = steps.split_first() else {
            emit(frame);
            return;
        };
        match step {
            Step::Term(index) => self.run_term(index, rest, archetype, frame, emit),
            Step::SelectSource(index, var) => {
                let term = &self.compiled.terms[index];
                // A term waiting for a conditional writer that left a variable
                // unbound is skipped whole: nothing to select its source for.
                if term.conditional.iter().any(|&waited| frame.vars[waited].is_none()) {
                    frame.hits[index] = None;
                    return self.run(rest, archetype, frame, emit);
                }
                let archetypes = self.world.archetypes();
                let mut visit = |candidate: &'w Archetype, frame: &mut Frame| {
                    if candidate.is_empty() || !self.archetype_allowed(candidate) {
                        return;
                    }
                    for &entity in candidate.entities() {
                        frame.vars[var] = Some(entity);
                        self.run_term(index, rest, archetype, frame, emit);
                    }
                    frame.vars[var] = None;
                };
                let pattern = term.alternatives[0];
                let simple = term.alternatives.len() == 1 && term.include_self && term.up.is_none();
                // A transitive term's holders through chains are not in the
                // record of `(R, t)`, but they hold some `(R, *)`; and `t`
                // itself may match (a reflexive `IsA`).
                if simple
                    && term.transitive
                    && let (Half::Entity(relationship), Some(second)) = (pattern.first, pattern.second)
                {
                    let any_target = Id::pair(relationship, Entity::WILDCARD);
                    if let Some(record) = archetypes.component_index().get(any_target) {
                        for entry in record.archetypes() {
                            visit(&archetypes[entry.archetype], frame);
                        }
                    }
                    let target = match second {
                        Half::Entity(target) => Some(target),
                        Half::Var(target) => frame.vars[target],
                        Half::Wildcard | Half::Any => None,
                    };
                    // `t`'s table, unless the record listed it already.
                    if let Some(location) = target.and_then(|target| self.world.entities().location(target)) {
                        let own = &archetypes[location.archetype];
                        if own.pair_positions(relationship.index()).next().is_none() {
                            visit(own, frame);
                        }
                    }
                    return;
                }
                let indexed = simple && !term.transitive;
                let id = pattern.index_id(&frame.vars);
                // A union pair's holders are not in the record of `(R, t)` or `(*, t)`.
                let indexed = indexed && !union_may_match(self.world, id);
                let record = indexed.then(|| archetypes.component_index().get(id)).flatten();
                match record {
                    // A plain component may also be inherited (through `IsA`)
                    // by tables that do not hold it: those are visited too.
                    Some(record)
                        if !self.is_sparse(pattern)
                            && (!id.is_pair() || self.world.inherits_pairs_of(id.first_index()))
                            && archetypes.inheriting().next().is_some() =>
                    {
                        let mut tables: Vec<ArchetypeId> = record
                            .archetypes()
                            .iter()
                            .map(|entry| entry.archetype)
                            .chain(archetypes.inheriting())
                            .collect();
                        tables.sort_unstable();
                        tables.dedup();
                        for table in tables {
                            visit(&archetypes[table], frame);
                        }
                    }
                    Some(record) if !self.is_sparse(pattern) => {
                        for entry in record.archetypes() {
                            visit(&archetypes[entry.archetype], frame);
                        }
                    }
                    _ => {
                        for candidate in archetypes.iter() {
                            visit(candidate, frame);
                        }
                    }
                }
            }
        }
    }

    /// Evaluates term `index` on its source and continues with `rest` for
    /// every way it matched.
    fn run_term(
        &self,
        index: usize,
        rest: &[Step],
        archetype: Option<&'w Archetype>,
        frame: &mut Frame,
        emit: &mut dyn FnMut(&Frame),
    ) {
        let term = &self.compiled.terms[index];
        // After a conditional writer that left a variable unbound: skipped, unset.
        if term.conditional.iter().any(|&var| frame.vars[var].is_none()) {
            frame.hits[index] = None;
            return self.run(rest, archetype, frame, emit);
        }
        let place = match term.source {
            Source::This => match archetype {
                // `*`/`$c` run row by row (their row's sparse ids): the row.
                Some(archetype) if self.compiled.whole_id_wildcard && is_whole_id_wildcard_on_this(term) => {
                    Place { archetype, entity: self.compiled.this_var.and_then(|this| frame.vars[this]) }
                }
                Some(archetype) => Place { archetype, entity: None },
                None => return,
            },
            Source::Fixed(entity) => match self.entity_place(entity) {
                Some(place) => place,
                None => return self.after_miss(index, term, rest, archetype, frame, emit),
            },
            Source::Var(var) => match frame.vars[var].and_then(|entity| self.entity_place(entity)) {
                Some(place) => place,
                None => return self.after_miss(index, term, rest, archetype, frame, emit),
            },
        };
        let mut hits: SmallVec<[(Hit, Bindings); 2]> = SmallVec::new();
        self.term_hits(term, place, &frame.vars, &mut hits);
        if term.source == Source::This
            && let Some(row) = place.entity
        {
            // A `*`/`$c` term run on its row (the row is its place, so a
            // disabled toggle counts as absent for it alone): its hits are the
            // row's own, reported as a table's (a sparse one kept by its set).
            for (hit, _) in &mut hits {
                if hit.source == Some(row) {
                    hit.source = None;
                    if hit.column < 0 {
                        hit.sparse = hit.id.entity().filter(|&component| {
                            self.world
                                .component_info(component)
                                .is_some_and(|info| info.storage() == StorageKind::Sparse)
                        });
                    }
                }
            }
        }
        // A sparse or toggleable component, or a union pair's target, on
        // `$this` is decided per row, whatever the operator.
        let per_row = hits.len() == 1
            && (hits[0].0.sparse.is_some()
                || toggled_on_this(place, &hits[0].0)
                || (place.entity.is_none() && self.inherits_toggle(&hits[0].0))
                || hits[0].0.checks_union_target()
                || hits[0].0.row_entity.is_some());
        if term.oper == TermOper::Not && !per_row && !hits.is_empty() {
            frame.hits[index] = None;
            return;
        }
        if hits.is_empty() {
            return self.after_miss(index, term, rest, archetype, frame, emit);
        }
        for (hit, bindings) in hits {
            for &(var, entity) in &bindings {
                frame.vars[var] = Some(entity);
            }
            frame.hits[index] = Some(hit);
            self.run(rest, archetype, frame, emit);
            for &(var, _) in &bindings {
                frame.vars[var] = None;
            }
        }
        frame.hits[index] = None;
    }

    /// Continues after term `index` found nothing: fine for `Not` and
    /// `Optional`, the end of this branch for `And`.
    fn after_miss(
        &self,
        index: usize,
        term: &CompiledTerm,
        rest: &[Step],
        archetype: Option<&'w Archetype>,
        frame: &mut Frame,
        emit: &mut dyn FnMut(&Frame),
    ) {
        frame.hits[index] = None;
        match term.oper {
            TermOper::And => {}
            TermOper::Not | TermOper::Optional => self.run(rest, archetype, frame, emit),
        }
    }

    /// Whether `hit` is a toggleable value `$this`'s table inherits from a
    /// base: whether the base's value is enabled is asked per iteration
    /// (it changes without a move), so the term is kept as decided per row.
    fn inherits_toggle(&self, hit: &Hit) -> bool {
        inherited_toggle_holder(self.world, hit).is_some()
    }

    fn entity_place(&self, entity: Entity) -> Option<Place<'w>> {
        let location = self.world.entities().location(entity)?;
        Some(Place { archetype: &self.world.archetypes()[location.archetype], entity: Some(entity) })
    }

    fn is_sparse(&self, pattern: Pattern) -> bool {
        is_sparse(self.world, pattern)
    }

    /// Whether `hit`, found on `entity` (of `archetype`), is not a disabled
    /// toggleable value. A hit with another source (a value `entity`
    /// inherits from a prefab) is checked on that source's table, where its
    /// column is.
    fn enabled_on(&self, archetype: &'w Archetype, entity: Entity, hit: &Hit) -> bool {
        if hit.column < 0 {
            return true;
        }
        let (holder, archetype) = match hit.source {
            Some(source) if source != entity => match self.entity_place(source) {
                Some(place) => (source, place.archetype),
                None => return false,
            },
            _ => (entity, archetype),
        };
        let column = archetype.table().column(hit.column as usize);
        if !column.has_toggle_bits() {
            return true;
        }
        // SAFETY: the holder's row is below its table's length.
        self.world
            .entities()
            .location(holder)
            .is_some_and(|location| unsafe { column.is_enabled(location.row as usize) })
    }

    /// Every hit of `term` at `place` (self part first, then `up`).
    fn term_hits(
        &self,
        term: &CompiledTerm,
        place: Place<'w>,
        vars: &[Option<Entity>],
        hits: &mut SmallVec<[(Hit, Bindings); 2]>,
    ) {
        // The row climbed from: the place's entity's, or the row `$this` is
        // bound to where a table is evaluated row by row (a union
        // relationship's targets differ per row, a sparse value is a row's
        // own or not; `Compiled::row_mode`).
        let climber = place.entity.or_else(|| self.compiled.this_var.and_then(|var| vars[var]));
        if term.include_self {
            self.self_hits(term, place, vars, hits, term.owned, None);
            // `self|up` of a sparse component on a row evaluated alone: a row
            // without its own value (nor one its table inherits) climbs.
            if term.up.is_some()
                && place.entity.is_none()
                && let Some(row_entity) = climber
            {
                hits.retain(|(hit, _)| match hit.sparse {
                    Some(component) if hit.source.is_none() => {
                        self.world.sparse_sets().of(component).is_some_and(|set| set.contains(row_entity))
                            || (!term.owned && self.world.sparse_base_of(place.archetype, component).is_some())
                    }
                    _ => true,
                });
            }
            if !hits.is_empty() {
                return;
            }
        }
        let Some(relationship) = term.up else { return };
        // Only a union pair's target is per row: no lookup for other tables.
        let row = climber
            .filter(|_| self.world.holds_union_of(place.archetype, relationship.index()))
            .and_then(|entity| self.world.entities().location(entity))
            .map(|location| location.row as usize);
        // Up along every target (`World::find_up`): the first ancestor with a hit.
        self.world.find_up(place.archetype, row, relationship, |ancestor| {
            let ancestor_place = self.entity_place(ancestor)?;
            // An ancestor's inherited values count (Flecs); a base's
            // `dont_inherit` ids do not (`World::found_up`).
            self.self_hits(term, ancestor_place, vars, hits, false, Some(relationship));
            (!hits.is_empty()).then_some(())
        });
    }

    /// The hits of `term` on `place` itself: its first alternative that
    /// matches (an or-chain), through transitive chains where the pair's
    /// relationship is transitive. `along` is the relationship an `up` walk
    /// reached `place` by (`None`: the term's own place): ids such a walk
    /// does not find there ([`World::found_up`]) are left out.
    fn self_hits(
        &self,
        term: &CompiledTerm,
        place: Place<'w>,
        vars: &[Option<Entity>],
        hits: &mut SmallVec<[(Hit, Bindings); 2]>,
        owned: bool,
        along: Option<Entity>,
    ) {
        for (alternative, &pattern) in term.alternatives.iter().enumerate() {
            if pattern.relationship_too_wide(vars) {
                continue; // no pair has it as its relationship
            }
            if term.transitive || term.transitive_alternatives.get(alternative).copied().unwrap_or(false) {
                self.transitive_hits(pattern, place, vars, hits);
            } else {
                self.pattern_hits(pattern, place, vars, hits, along);
                if owned {
                    // A sparse value read from a base is not the source's own.
                    hits.retain(|(hit, _)| hit.source.is_none() || hit.source == place.entity);
                }
                if term.access != DataAccess::Write && !owned {
                    if hits.is_empty() {
                        self.inherited_hit(pattern, place, vars, hits);
                    } else if let (Half::Entity(relationship), Some(second)) = (pattern.first, pattern.second)
                        && !matches!(second, Half::Any)
                    {
                        // An own pair hides only itself: the other pairs of a
                        // wildcard are read from prefabs too.
                        self.inherited_pair_hits(relationship, second, place, vars, hits);
                    }
                }
            }
            // Reached along `IsA`: a base's `dont_inherit` ids are not found
            // (`World::found_up`), and the chain goes on to its next
            // alternative.
            if let Some(relationship) = along {
                hits.retain(|(hit, _)| self.world.found_up(relationship, hit.id));
            }
            // Another entity's disabled toggleable value counts as absent, and
            // so does a row's own where rows are evaluated one by one (an
            // or-chain then tries its next alternative).
            let is_or = term.alternatives.len() > 1;
            let row = || self.compiled.this_var.and_then(|var| vars[var]).filter(|_| is_or);
            if let Some(entity) = place.entity {
                hits.retain(|(hit, _)| self.enabled_on(place.archetype, entity, hit));
            } else if let Some(entity) = row() {
                // An or-chain on a row evaluated alone: an alternative that
                // holds for other rows only (a sparse value, a union target,
                // a disabled toggle) is absent here.
                hits.retain(|(hit, _)| {
                    let inherited_sparse = hit.sparse.is_some_and(|component| {
                        !owned && self.world.sparse_base_of(place.archetype, component).is_some()
                    });
                    self.enabled_on(place.archetype, entity, hit)
                        && (inherited_sparse || hit.holds_for_row(self.world, entity))
                });
            } else if is_or {
                // A table's value inherited from a base that disabled it is
                // absent for every row: the chain goes on.
                hits.retain(|(hit, _)| match hit.source {
                    Some(base) if hit.column >= 0 => self.world.own_value_enabled(base, hit.id),
                    _ => true,
                });
            }
            if !hits.is_empty() {
                return;
            }
        }
    }

    /// The ids of `place`'s table that `pattern` matches.
    fn pattern_hits(
        &self,
        pattern: Pattern,
        place: Place<'w>,
        vars: &[Option<Entity>],
        hits: &mut SmallVec<[(Hit, Bindings); 2]>,
        along: Option<Entity>,
    ) {
        let archetype = place.archetype;
        let resolve = |half: Half| match half {
            Half::Entity(entity) => Some(entity),
            Half::Var(var) => vars[var],
            Half::Wildcard | Half::Any => None,
        };
        let unbound_var = |half: Half| match half {
            Half::Var(var) if vars[var].is_none() => Some(var),
            _ => None,
        };
        let once = [Some(pattern.first), pattern.second]
            .into_iter()
            .flatten()
            .all(|half| matches!(half, Half::Any) || resolve(half).is_some());
        // Reached along `along`: the ids an up walk does not find there are
        // passed over before `_` takes its one id (`self_hits` drops the
        // rest).
        let found = |id: Id| along.is_none_or(|relationship| self.world.found_up(relationship, id));
        let Some(second) = pattern.second else {
            if let Some(component) = resolve(pattern.first) {
                if self.is_sparse(Pattern { first: Half::Entity(component), second: None }) {
                    match place.entity {
                        None => hits.push((
                            Hit {
                                id: component.id(),
                                source: None,
                                column: -1,
                                sparse: Some(component),
                                union_row: None,
                                row_entity: None,
                            },
                            Bindings::new(),
                        )),
                        Some(entity) => {
                            // Its own value, or one it inherits from a prefab
                            // (the hit's source is then the base, as for a
                            // table component it inherits).
                            let holder =
                                if self.world.sparse_sets().of(component).is_some_and(|set| set.contains(entity)) {
                                    Some(entity)
                                } else if self
                                    .world
                                    .component_info(component)
                                    .is_some_and(ComponentInfo::is_inherited_sparse)
                                {
                                    self.world.sparse_base_of(place.archetype, component)
                                } else {
                                    None
                                };
                            if let Some(holder) = holder {
                                hits.push((
                                    Hit {
                                        id: component.id(),
                                        source: Some(holder),
                                        column: -1,
                                        sparse: None,
                                        union_row: None,
                                        row_entity: None,
                                    },
                                    Bindings::new(),
                                ));
                            }
                        }
                    }
                } else if let Some(position) = archetype.position_of(component.id()) {
                    hits.push((Hit::at(archetype, position, place.entity), Bindings::new()));
                }
                return;
            }
            // A wildcard or unbound variable as the whole id: every plain id
            // (Flecs' `ecs_id_match`: `*` alone matches no pair; a variable
            // binds an entity, which a pair is not). `_` matches every entity
            // once as a row of `$this`'s tables, one holding only pairs or
            // nothing too (Flecs `this_src_w_any`; on a fixed source it finds
            // plain ids only, `1_fact_w_any`).
            let var = unbound_var(pattern.first);
            let any = matches!(pattern.first, Half::Any) && place.entity.is_none();
            if any && archetype.ids().is_empty() {
                // `_` matches every entity once, an empty one too (Flecs
                // `this_src_w_any`): a hit on no id.
                let id = Entity::WILDCARD.id();
                hits.push((
                    Hit { id, source: place.entity, column: -1, sparse: None, union_row: None, row_entity: None },
                    Bindings::new(),
                ));
                return;
            }
            for (position, &id) in archetype.ids().iter().enumerate() {
                if !found(id) {
                    continue;
                }
                let mut bindings = Bindings::new();
                match (id.entity(), var) {
                    (Some(entity), Some(var)) => bindings.push((var, entity)),
                    (Some(_), None) => {}
                    (None, _) if !any => continue,
                    (None, _) if is_union_id(id) => {
                        let before = hits.len();
                        let halves = (Half::Wildcard, Half::Wildcard);
                        self.union_hits(id, place, (None, None), halves, vars, hits);
                        if once && hits.len() > before {
                            hits.truncate(before + 1);
                            return;
                        }
                        continue;
                    }
                    (None, _) => {}
                }
                let column = archetype.column_map()[position];
                hits.push((
                    Hit { id, source: place.entity, column, sparse: None, union_row: None, row_entity: None },
                    bindings,
                ));
                if once {
                    return;
                }
            }
            // Sparse components are ids of the entity too, in no table type:
            // those it holds itself, where the entity is known (rows of
            // `$this` then run one by one while sparse sets hold entities:
            // `Compiled::whole_id_wildcard`). `_` takes one id of the table,
            // or the empty entity's none.
            if let Some(entity) = place.entity
                && !matches!(pattern.first, Half::Any)
            {
                for (component, set) in self.world.sparse_sets().iter() {
                    if !set.contains(entity) || !found(component.id()) {
                        continue;
                    }
                    let mut bindings = Bindings::new();
                    if let Some(var) = var {
                        bindings.push((var, component));
                    }
                    let id = component.id();
                    let hit =
                        Hit { id, source: Some(entity), column: -1, sparse: None, union_row: None, row_entity: None };
                    hits.push((hit, bindings));
                }
            }
            return;
        };
        let first = resolve(pattern.first);
        let target = resolve(second);
        let pattern_id = Id::pair(first.unwrap_or(Entity::WILDCARD), target.unwrap_or(Entity::WILDCARD));
        // A concrete pair of a fragmenting relationship: one lookup (not a
        // walk over every pair of the relationship, which a term evaluated
        // once per row would repeat).
        if let (Some(relationship), Some(_)) = (first, target)
            && !self.world.is_union_relationship(relationship.index())
        {
            if let Some(position) = archetype.position_of(pattern_id) {
                hits.push((Hit::at(archetype, position, place.entity), Bindings::new()));
            }
            return;
        }
        let range = match first {
            Some(relationship) => archetype.pair_positions(relationship.index()),
            None => 0..archetype.ids().len(),
        };
        for position in range {
            let id = archetype.ids()[position];
            if !found(id) {
                continue;
            }
            if is_union_id(id) {
                let before = hits.len();
                self.union_hits(id, place, (first, target), (pattern.first, second), vars, hits);
                if once && hits.len() > before {
                    hits.truncate(before + 1);
                    return;
                }
                continue;
            }
            if !id.is_pair() || !pattern_id.matches(id) {
                continue;
            }
            let mut bindings = Bindings::new();
            if let Some(var) = unbound_var(pattern.first) {
                let Some(entity) = self.world.entity_at(id.first_index()) else { continue };
                bindings.push((var, entity));
            }
            if let Some(var) = unbound_var(second) {
                let Some(entity) = self.world.entity_at(id.second_index()) else { continue };
                if let Some(&(same, bound)) = bindings.first()
                    && same == var
                    && bound != entity
                {
                    continue;
                }
                bindings.push((var, entity));
            }
            let column = archetype.column_map()[position];
            hits.push((
                Hit { id, source: place.entity, column, sparse: None, union_row: None, row_entity: None },
                bindings,
            ));
            if once {
                return;
            }
        }
    }

    /// A component `place`'s table inherits from a prefab through `IsA`
    /// (components whose `on_instantiate` policy is `Inherit`), or the value
    /// pairs of an `inherit` relationship it does: a hit on the base, as
    /// `self|up IsA` finds it. Writes never get one.
    fn inherited_hit(
        &self,
        pattern: Pattern,
        place: Place<'w>,
        vars: &[Option<Entity>],
        hits: &mut SmallVec<[(Hit, Bindings); 2]>,
    ) {
        let component = match (pattern.first, pattern.second) {
            (Half::Entity(component), None) => component,
            (Half::Entity(relationship), Some(second)) => {
                return self.inherited_pair_hits(relationship, second, place, vars, hits);
            }
            _ => return,
        };
        let Some(base) = place.archetype.inherited_from(component.id()) else { return };
        if !self.world.is_inherited_id(component.id()) {
            return;
        }
        let Some(base_place) = self.entity_place(base) else { return };
        let Some(position) = base_place.archetype.position_of(component.id()) else { return };
        let column = base_place.archetype.column_map()[position];
        hits.push((
            Hit { id: component.id(), source: Some(base), column, sparse: None, union_row: None, row_entity: None },
            Bindings::new(),
        ));
    }

    /// The pairs `(relationship, second)` `place`'s table inherits from
    /// prefabs ([`ComponentInfo::inherits_pairs`]) and does not hold: a hit
    /// on the base per pair (`_` takes one), binding an unbound target
    /// variable.
    fn inherited_pair_hits(
        &self,
        relationship: Entity,
        second: Half,
        place: Place<'w>,
        vars: &[Option<Entity>],
        hits: &mut SmallVec<[(Hit, Bindings); 2]>,
    ) {
        if place.archetype.inherited().is_empty() || !self.world.inherits_pairs_of(relationship.index()) {
            return;
        }
        let (target, var) = match second {
            Half::Entity(target) => (Some(target), None),
            Half::Var(var) => (vars[var], vars[var].is_none().then_some(var)),
            Half::Wildcard | Half::Any => (None, None),
        };
        let pattern = Id::pair(relationship, target.unwrap_or(Entity::WILDCARD));
        for &(id, base) in place.archetype.inherited() {
            if !id.is_pair() || !pattern.matches(id) || place.archetype.contains(id) {
                continue;
            }
            let Some(base_place) = self.entity_place(base) else { continue };
            let Some(position) = base_place.archetype.position_of(id) else { continue };
            let mut bindings = Bindings::new();
            if let Some(var) = var {
                let Some(target) = self.world.entity_at(id.second_index()) else { continue };
                bindings.push((var, target));
            }
            let column = base_place.archetype.column_map()[position];
            hits.push((
                Hit { id, source: Some(base), column, sparse: None, union_row: None, row_entity: None },
                bindings,
            ));
            if matches!(second, Half::Any) {
                return;
            }
        }
    }

    /// The hit of the pair pattern (`resolved` halves, `halves` as written) on
    /// the union id `(R, *union*)` at `place`: see the module docs. An
    /// unbound variable as the target of a table's rows gives one hit per
    /// target the rows have (in row order), each filtering its rows.
    fn union_hits(
        &self,
        id: Id,
        place: Place<'w>,
        resolved: (Option<Entity>, Option<Entity>),
        halves: (Half, Half),
        vars: &[Option<Entity>],
        hits: &mut SmallVec<[(Hit, Bindings); 2]>,
    ) {
        if place.entity.is_none()
            && resolved.1.is_none()
            && let Half::Var(var) = halves.1
            && vars[var].is_none()
        {
            let Some(column) = place.archetype.column_of(id) else { return };
            // Each target once, in row order (a set: a table may hold many).
            let mut seen = crate::util::FxHashSet::default();
            for cell in place.archetype.union_column(column) {
                if !seen.insert(cell.target) {
                    continue;
                }
                // With the target resolved, a table's hit filters its rows by it.
                if let Some(hit) = self.union_hit(id, place, (resolved.0, Some(cell.target)), halves, vars) {
                    let (hit, mut bindings) = hit;
                    bindings.push((var, cell.target));
                    hits.push((hit, bindings));
                }
            }
            return;
        }
        if let Some(hit) = self.union_hit(id, place, resolved, halves, vars) {
            hits.push(hit);
        }
    }

    /// [`Evaluator::union_hits`] for one target (or none, or any).
    fn union_hit(
        &self,
        id: Id,
        place: Place<'w>,
        resolved: (Option<Entity>, Option<Entity>),
        halves: (Half, Half),
        vars: &[Option<Entity>],
    ) -> Option<(Hit, Bindings)> {
        let relationship = self.world.entity_at(id.first_index())?;
        if resolved.0.is_some_and(|first| first != relationship) {
            return None;
        }
        let unbound = |half: Half| match half {
            Half::Var(var) if vars[var].is_none() => Some(var),
            _ => None,
        };
        let mut bindings = Bindings::new();
        if let Some(var) = unbound(halves.0) {
            bindings.push((var, relationship));
        }
        let hit = |id: Id, union_row: Option<Entity>| Hit {
            id,
            source: place.entity,
            column: -1,
            sparse: None,
            union_row,
            row_entity: None,
        };
        let Some(entity) = place.entity else {
            // The rows of a table: each its own target.
            return match (resolved.1, unbound(halves.1)) {
                (Some(target), _) => Some((hit(Id::pair(relationship, target), Some(target)), bindings)),
                (None, Some(_)) => None,
                (None, None) => Some((hit(id, Some(Entity::WILDCARD)), bindings)),
            };
        };
        let target = self.world.union_target(entity, relationship.index())?;
        if resolved.1.is_some_and(|wanted| wanted != target) {
            return None;
        }
        if let Some(var) = unbound(halves.1) {
            if bindings.first().is_some_and(|&(same, bound)| same == var && bound != target) {
                return None;
            }
            bindings.push((var, target));
        }
        Some((hit(Id::pair(relationship, target), None), bindings))
    }

    /// `(IsA, t)` is reflexive (Flecs' `Reflexive`, built in for `IsA`): it
    /// matches `t` itself. On `t`'s own table that is a per-row check (only
    /// `t`'s row); the other rows of that table cannot reach `t` (`IsA` is
    /// acyclic and they have `t`'s type).
    fn reflexive_hit(
        &self,
        relationship: Entity,
        target: Entity,
        place: Place<'w>,
        hits: &mut SmallVec<[(Hit, Bindings); 2]>,
    ) {
        let id = Id::pair(relationship, target);
        let hit = |row_entity| Hit { id, source: place.entity, column: -1, sparse: None, union_row: None, row_entity };
        match place.entity {
            Some(entity) if entity == target => hits.push((hit(None), Bindings::new())),
            Some(_) => {}
            None => {
                let here = self.world.entities().location(target).map(|location| location.archetype);
                if here == Some(place.archetype.id()) {
                    hits.push((hit(Some(target)), Bindings::new()));
                }
            }
        }
    }

    /// `(R, t)` with `R` transitive: `t` a direct target, or reached from one
    /// along `R`. An unbound variable as target enumerates every target
    /// reached (direct ones first, each once).
    fn transitive_hits(
        &self,
        pattern: Pattern,
        place: Place<'w>,
        vars: &[Option<Entity>],
        hits: &mut SmallVec<[(Hit, Bindings); 2]>,
    ) {
        let (Half::Entity(relationship), Some(second)) = (pattern.first, pattern.second) else { return };
        let target = match second {
            Half::Entity(entity) => Some(entity),
            Half::Var(var) => vars[var],
            Half::Wildcard | Half::Any => return self.pattern_hits(pattern, place, vars, hits, None),
        };
        let archetype = place.archetype;
        let mut reached: Vec<Entity> = Vec::new();
        for position in archetype.pair_positions(relationship.index()) {
            let id = archetype.ids()[position];
            let Some(entity) = self.world.entity_at(id.second_index()) else { continue };
            if target == Some(entity) {
                let column = archetype.column_map()[position];
                hits.push((
                    Hit { id, source: place.entity, column, sparse: None, union_row: None, row_entity: None },
                    Bindings::new(),
                ));
                return;
            }
            if target.is_none() {
                let column = archetype.column_map()[position];
                let var = match second {
                    Half::Var(var) => var,
                    _ => return,
                };
                hits.push((
                    Hit { id, source: place.entity, column, sparse: None, union_row: None, row_entity: None },
                    smallvec::smallvec![(var, entity)],
                ));
            }
            reached.push(entity);
        }
        // Breadth-first beyond the direct targets.
        let mut next = 0;
        let limit = self.world.entities().alive_count();
        while next < reached.len() && reached.len() <= limit {
            let from = reached[next];
            next += 1;
            let further: SmallVec<[Entity; 4]> = self.world.targets_of(from, Some(relationship.index())).collect();
            for entity in further {
                if reached.contains(&entity) {
                    continue;
                }
                let id = Id::pair(relationship, entity);
                match (target, second) {
                    (Some(target), _) if target == entity => {
                        hits.push((
                            Hit {
                                id,
                                source: place.entity,
                                column: -1,
                                sparse: None,
                                union_row: None,
                                row_entity: None,
                            },
                            Bindings::new(),
                        ));
                        return;
                    }
                    (None, Half::Var(var)) => {
                        hits.push((
                            Hit {
                                id,
                                source: place.entity,
                                column: -1,
                                sparse: None,
                                union_row: None,
                                row_entity: None,
                            },
                            smallvec::smallvec![(var, entity)],
                        ));
                    }
                    _ => {}
                }
                reached.push(entity);
            }
        }
        if hits.is_empty()
            && let Some(target) = target
            && relationship == self.world.builtin_ids().is_a
        {
            self.reflexive_hit(relationship, target, place, hits);
        }
    }
}

/// Whether `hit` is a toggleable component's column in the table of `$this`
/// at `place` (its rows are decided by their enabled bits).
/// The holder of `hit`'s value when it is another entity's toggleable value
/// in a column with enabled bits (an inherited or `up` value), else `None`.
pub(super) fn inherited_toggle_holder(world: &World, hit: &Hit) -> Option<Entity> {
    let holder = hit.source?;
    if hit.column < 0 || hit.sparse.is_some() {
        return None;
    }
    let location = world.entities().location(holder)?;
    let table = world.archetypes()[location.archetype].table();
    table.columns().get(hit.column as usize).is_some_and(|column| column.has_toggle_bits()).then_some(holder)
}

fn toggled_on_this(place: Place<'_>, hit: &Hit) -> bool {
    place.entity.is_none()
        && hit.source.is_none()
        && hit.column >= 0
        && place.archetype.table().column(hit.column as usize).has_toggle_bits()
}

/// Whether the pair pattern `id` with a concrete target may match a union
/// pair (`(R, t)` of a union `R`, or `(*, t)` while union pairs exist), whose
/// holders the component index lists under `(R, *union*)` only.
fn union_may_match(world: &World, id: Id) -> bool {
    let wildcard = Entity::WILDCARD.index();
    if !id.is_pair() || id.second_index() == wildcard {
        return false;
    }
    if id.first_index() == wildcard {
        return world.archetypes().component_index().get(Id::pair(Entity::WILDCARD, Entity::UNION)).is_some();
    }
    world.is_union_relationship(id.first_index())
}

/// Whether `pattern` is a concrete sparse component (not in tables, nor in
/// the component index).
pub(crate) fn is_sparse(world: &World, pattern: Pattern) -> bool {
    match (pattern.first, pattern.second) {
        (Half::Entity(component), None) => {
            world.component_info(component).is_some_and(|info| info.storage() == StorageKind::Sparse)
        }
        _ => false,
    }
}
