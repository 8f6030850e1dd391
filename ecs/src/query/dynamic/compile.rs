//! Compiling runtime [`Term`]s: validation (aliasing, writes, variables) and
//! the evaluation plan.
//!
//! A compiled query numbers its variables (`$this` is not one of them), turns
//! each term into a [`CompiledTerm`] and orders the terms into a [`Plan`]:
//!
//! * the **table prefix**: terms on `$this` that look at the row's own table
//!   only (no traversal, no transitive relationship), `And` terms first, then
//!   `Not`/`Optional` terms whose variables the `And` terms bind. Their result
//!   depends on an archetype's ids alone, so a cached query stores it per
//!   archetype and matches new archetypes incrementally;
//! * the **dynamic suffix**: every other term (fixed sources, variable
//!   sources, `up` traversal, transitive pairs), in an order where each term's
//!   source is bound before it runs when possible; a term whose source is a
//!   variable nothing bound yet *selects* it (enumerates the entities that
//!   match). These run at every iteration, since they read other entities.
//!
//! The first term naming a variable, in written order, writes it (Flecs). An
//! optional term, or an or-chain with an alternative that does not name it,
//! writes it conditionally: the later terms naming it run after it, never
//! select it, and are skipped (left unset) where it stayed unbound
//! ([`CompiledTerm::conditional`]): `TagA, ?(RelA, $x), TagB($x)` yields the
//! `TagA` entities without a `RelA` pair once, `x` unbound.
//!
//! Invariants of a compiled query (checked by [`compile`], else a
//! [`QueryBuildError`]): writes are on `$this`, without traversal, on a
//! concrete component; no two terms may match the same id where one of them
//! writes; every variable is bound by an `And` term or by the id of an
//! `Optional` one (then unbound in the solutions where it does not match);
//! `$this` is a source or, in an id (`Likes($x, $this)`: who likes the row's
//! entity), a variable ([`THIS_VAR`]) bound to each row's entity in turn: the
//! suffix then runs once per row, and each solution holds that one row.

use smallvec::SmallVec;

use super::QueryBuildError;
use crate::component::StorageKind;
use crate::entity::{Entity, Id};
use crate::query::term::{Term, TermAccess, TermMatch, TermOper, TermRef, Traversal};

/// One half of a compiled id pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Half {
    /// A concrete entity.
    Entity(Entity),
    /// `*`: every match.
    Wildcard,
    /// `_`: at most one match.
    Any,
    /// A variable, by number.
    Var(usize),
}

/// One alternative of a compiled term.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pattern {
    pub(crate) first: Half,
    pub(crate) second: Option<Half>,
}

impl Pattern {
    /// The concrete component (or pair relationship), if any.
    pub(crate) fn concrete_first(&self) -> Option<Entity> {
        match self.first {
            Half::Entity(entity) => Some(entity),
            _ => None,
        }
    }

    /// Whether the pattern is a pair whose relationship (written, or a
    /// variable's entity) does not fit the 31 bits of a pair id: it matches
    /// nothing. A written one is refused when the query is built; a variable
    /// may bind any entity (`(Likes, $r), ($r, *)`).
    pub(crate) fn relationship_too_wide(&self, vars: &[Option<Entity>]) -> bool {
        let first = match self.first {
            Half::Entity(entity) => Some(entity),
            Half::Var(var) => vars[var],
            Half::Wildcard | Half::Any => None,
        };
        self.second.is_some() && first.is_some_and(|first| !first.fits_relationship())
    }

    /// The id to look up in the component index: unbound parts read as `*`,
    /// and so does a relationship too wide for a pair id
    /// ([`Pattern::relationship_too_wide`]: the pattern matches nothing,
    /// which the evaluation decides).
    pub(crate) fn index_id(&self, vars: &[Option<Entity>]) -> Id {
        let half = |half: Half| match half {
            Half::Entity(entity) => Some(entity),
            Half::Var(var) => vars[var],
            Half::Wildcard | Half::Any => None,
        };
        let first = half(self.first).filter(|first| self.second.is_none() || first.fits_relationship());
        match self.second {
            None => first.map_or(Entity::WILDCARD.id(), Entity::id),
            Some(second) => Id::pair(first.unwrap_or(Entity::WILDCARD), half(second).unwrap_or(Entity::WILDCARD)),
        }
    }
}

/// Where a compiled term looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// The row's entity.
    This,
    /// One fixed entity.
    Fixed(Entity),
    /// A variable's entity.
    Var(usize),
}

/// How a compiled term accesses data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DataAccess {
    /// A filter: no data.
    None,
    /// Reads.
    Read,
    /// Reads and writes (on `$this`).
    Write,
}

/// A term ready to evaluate.
#[derive(Clone, Debug)]
pub(crate) struct CompiledTerm {
    pub(crate) alternatives: SmallVec<[Pattern; 1]>,
    pub(crate) source: Source,
    pub(crate) oper: TermOper,
    /// The relationship walked upwards, if the term traverses.
    pub(crate) up: Option<Entity>,
    /// Whether the source itself is searched (not for `up`).
    pub(crate) include_self: bool,
    /// Only the source's own ids count on the source itself (`self` or
    /// `self|up Rel` written out: Flecs' explicit traversal replaces the
    /// implicit `up IsA`); an ancestor that `up` reaches still counts the
    /// values it inherits.
    pub(crate) owned: bool,
    pub(crate) access: DataAccess,
    /// A pair of a transitive relationship whose target is not a wildcard:
    /// matched along chains (so never table-level).
    pub(crate) transitive: bool,
    /// For an or-chain: which alternatives are pairs of a transitive
    /// relationship (matched along chains, `IsA` reflexively too); empty
    /// for a single alternative (see `transitive`).
    pub(crate) transitive_alternatives: SmallVec<[bool; 2]>,
    /// The variables this term depends on that an earlier term binds only
    /// conditionally (an optional term, or an or-chain with an alternative
    /// that does not name it): where one is unbound the term is skipped and
    /// left unset, as Flecs does for terms after the one that writes a
    /// variable.
    pub(crate) conditional: SmallVec<[usize; 1]>,
}

impl CompiledTerm {
    /// Whether the term only looks at the source's own table.
    pub(crate) fn is_self_only(&self) -> bool {
        self.up.is_none()
    }

    /// The variables the term names, as numbers.
    pub(crate) fn variables(&self) -> impl Iterator<Item = usize> + '_ {
        let halves = self.alternatives.iter().flat_map(|pattern| core::iter::once(pattern.first).chain(pattern.second));
        let source = match self.source {
            Source::Var(var) => Some(var),
            _ => None,
        };
        halves
            .filter_map(|half| match half {
                Half::Var(var) => Some(var),
                _ => None,
            })
            .chain(source)
    }
}

/// One step of the dynamic suffix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Evaluate a term on its (bound) source.
    Term(usize),
    /// Enumerate the entities the term matches, binding its source variable.
    SelectSource(usize, usize),
}

/// The evaluation order of a compiled query.
#[derive(Clone, Debug, Default)]
pub(crate) struct Plan {
    /// Whether rows are entities (`$this` appears) or solutions.
    pub(crate) has_this: bool,
    /// Table-level terms on `$this`, in evaluation order.
    pub(crate) prefix: Vec<Step>,
    /// The rest.
    pub(crate) suffix: Vec<Step>,
    /// Candidate terms for selecting `$this` archetypes through the component
    /// index (required, table-level, one alternative).
    pub(crate) selectors: Vec<usize>,
}

/// A compiled query: its terms, variables and plan.
#[derive(Clone, Debug)]
pub(crate) struct Compiled {
    pub(crate) terms: Vec<CompiledTerm>,
    pub(crate) var_names: Vec<String>,
    pub(crate) plan: Plan,
    /// The variable bound to each row's entity in turn when a table's rows
    /// are evaluated one by one: what `$this` stands for in ids
    /// (`Likes($x, $this)`), and the row an `up` term on `$this` climbs
    /// from where its relationship is a union (targets differ per row).
    /// `None` if neither is possible.
    pub(crate) this_var: Option<usize>,
    /// Whether `$this` appears in an id: every table is evaluated row by row
    /// (with a term on `$this`), or the terms bind `$this` like any variable
    /// and each solution is its entity's row (without one).
    pub(crate) this_in_id: bool,
    /// The relationships `up` terms on `$this` climb: a table holding a union
    /// pair of one is evaluated row by row.
    pub(crate) up_on_this: SmallVec<[Entity; 1]>,
    /// The user's variables, in the order they first appear: every name but
    /// `this` (the row's entity, never listed, as when `$this` is a source).
    pub(crate) user_variables: Vec<String>,
    /// The components of `self|up` terms on `$this`: where one is sparse,
    /// whether a row has its own value (else climbs) is a per-row question,
    /// so tables are evaluated row by row.
    pub(crate) self_up_components: SmallVec<[Entity; 1]>,
    /// Whether a term on `$this` is a wildcard or variable as the whole id
    /// (`*`, `$c`): it also matches each row's own sparse components, which
    /// no table type lists, so while any sparse set holds entities tables are
    /// evaluated row by row (never table-level, never cached).
    pub(crate) whole_id_wildcard: bool,
    /// The components of or-chains on `$this`: where a table has toggle bits
    /// for one, a row whose alternative is disabled may match through the
    /// next one (a disabled value counts as absent), so its rows are
    /// evaluated one by one.
    pub(crate) or_components: SmallVec<[Entity; 2]>,
    /// The relationships of pairs in or-chains on `$this` (`*` for a
    /// wildcard or variable one): where a table holds a union pair of one,
    /// its rows' targets differ, and a reflexive `(IsA, t)` holds on `t`'s
    /// row only, so such rows are evaluated one by one.
    pub(crate) or_relationships: SmallVec<[Entity; 1]>,
}

impl Compiled {
    /// Whether term `index`'s union-target hit on a row must hold for the
    /// row to be in the frame's solution: a required term, or an optional
    /// one whose target variable it writes itself (the first term naming it,
    /// in written order). Such an optional term's frames enumerate the
    /// table's targets (every row of the table holds one), so a row belongs
    /// to its own target's frame only: in the others it is not "unset" but
    /// absent (else each row would come back once per target).
    pub(crate) fn union_target_required(&self, index: usize) -> bool {
        let term = &self.terms[index];
        match term.oper {
            TermOper::And => true,
            TermOper::Not => false,
            TermOper::Optional => {
                let [pattern] = term.alternatives.as_slice() else { return false };
                let Some(Half::Var(var)) = pattern.second else { return false };
                !self.terms[..index]
                    .iter()
                    .any(|earlier| earlier.oper != TermOper::Not && earlier.variables().any(|named| named == var))
            }
        }
    }

    /// The variables rows may name: the user's, and `this` where `$this` is
    /// in an id; not the hidden row variable an `up` term on `$this` adds
    /// (always last).
    pub(crate) fn visible_variables(&self) -> &[String] {
        let names = &self.var_names;
        if self.this_var.is_some() && !self.this_in_id { &names[..names.len() - 1] } else { names }
    }

    /// How `archetype`'s rows are evaluated: as a table, one by one (each
    /// with [`Compiled::this_var`] bound to its entity), or one parent at a
    /// time when only an `up` through a union pair makes them differ.
    pub(crate) fn row_mode(&self, world: &crate::world::World, archetype: &crate::archetype::Archetype) -> RowMode {
        let sparse_self_up = self.self_up_components.iter().any(|&component| {
            world.component_info(component).is_some_and(|info| info.storage() == StorageKind::Sparse)
        });
        // An or-chain alternative that may hold for some rows only: a
        // toggleable column, a sparse component, a union pair, a reflexive
        // `(IsA, t)`.
        let toggled_or = self.or_components.iter().any(|&component| {
            archetype.column_of(component.id()).is_some_and(|column| archetype.table().column(column).has_toggle_bits())
                || world.component_info(component).is_some_and(|info| info.storage() == StorageKind::Sparse)
        }) || self.or_relationships.iter().any(|&relationship| {
            if relationship == Entity::WILDCARD {
                archetype.flags().contains(crate::archetype::ArchetypeFlags::HAS_UNION)
            } else {
                world.holds_union_of(archetype, relationship.index()) || world.builtin_ids().is_a == relationship
            }
        });
        let mut unions =
            self.up_on_this.iter().filter(|relationship| world.holds_union_of(archetype, relationship.index()));
        // `*`/`$c` on `$this`: each row's own sparse ids, and a disabled
        // toggle that is absent for its row alone.
        let whole_id_rows = self.whole_id_wildcard
            && (world.sparse_sets().iter().any(|(_, set)| !set.is_empty())
                || archetype.table().columns().iter().any(|column| column.has_toggle_bits()));
        match (unions.next(), unions.next()) {
            _ if self.this_in_id || sparse_self_up || toggled_or || whole_id_rows => RowMode::EachRow,
            // A group of rows shares a parent, not its `*` hits.
            (Some(_), _) if self.whole_id_wildcard => RowMode::EachRow,
            (Some(relationship), None) => RowMode::EachParent(relationship.index()),
            (Some(_), Some(_)) => RowMode::EachRow,
            (None, _) => RowMode::Table,
        }
    }
}

/// How a table's rows are evaluated ([`Compiled::row_mode`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RowMode {
    /// All rows at once.
    Table,
    /// Each row alone (`$this` in an id, `self|up` of a sparse component, `up`
    /// through several union relationships).
    EachRow,
    /// The rows of one target of the union relationship (by entity index)
    /// the table's one `up` term climbs: each solution holds that target's
    /// rows (the climb is the same for them).
    EachParent(u32),
}

/// The name of the variable `$this` is in an id (`var("this")` reads it; no
/// user variable can have it, `$this` is never parsed as one).
pub(crate) const THIS_VAR: &str = "this";

/// Validates and compiles `terms`.
pub(crate) fn compile(terms: &[Term], is_transitive: &dyn Fn(Entity) -> bool) -> Result<Compiled, QueryBuildError> {
    if terms.is_empty() {
        return Err(QueryBuildError::Empty);
    }
    let mut var_names: Vec<String> = Vec::new();
    let mut var_of = |name: &str| -> usize {
        if let Some(index) = var_names.iter().position(|known| known == name) {
            index
        } else {
            var_names.push(name.to_owned());
            var_names.len() - 1
        }
    };
    let mut compiled = Vec::with_capacity(terms.len());
    for (index, term) in terms.iter().enumerate() {
        let invalid = |reason: &str| QueryBuildError::InvalidTerm { term: index, reason: reason.to_owned() };
        if term.alternatives.is_empty() {
            return Err(invalid("a term needs at least one id"));
        }
        let unnamed = |reference: &TermRef| matches!(reference, TermRef::Var(name) if name.is_empty());
        let mut references =
            term.alternatives.iter().flat_map(|alternative| [Some(&alternative.first), alternative.second.as_ref()]);
        if unnamed(&term.source) || references.any(|reference| reference.is_some_and(unnamed)) {
            return Err(invalid("a variable needs a name (`$name`)"));
        }
        // A pair's relationship is stored in 31 bits of its id.
        let too_wide = |alternative: &TermMatch| {
            alternative.second.is_some()
                && matches!(alternative.first, TermRef::Entity(entity) if !entity.fits_relationship())
        };
        let wide_traversal = matches!(term.traversal, Traversal::Up(relationship) | Traversal::SelfUp(relationship)
            if !relationship.fits_relationship());
        if wide_traversal || term.alternatives.iter().any(too_wide) {
            return Err(invalid("a pair's relationship index exceeds 31 bits"));
        }
        let reserved = |reference: &TermRef| matches!(reference, TermRef::Var(name) if name == THIS_VAR);
        let halves =
            term.alternatives.iter().flat_map(|alternative| [Some(&alternative.first), alternative.second.as_ref()]);
        if reserved(&term.source) || halves.flatten().any(reserved) {
            return Err(invalid("the variable name `this` is `$this`, the row's entity (`TermRef::This`)"));
        }
        // `Likes($a, $b)` is written source first: `$a` comes before `$b`.
        if let TermRef::Var(name) = &term.source {
            var_of(name);
        }
        let mut half = |reference: &TermRef| -> Result<Half, QueryBuildError> {
            Ok(match reference {
                TermRef::Entity(entity) if *entity == Entity::WILDCARD => Half::Wildcard,
                TermRef::Entity(entity) if *entity == Entity::ANY => Half::Any,
                TermRef::Entity(entity) => Half::Entity(*entity),
                TermRef::Wildcard => Half::Wildcard,
                TermRef::Any => Half::Any,
                TermRef::Var(name) => Half::Var(var_of(name)),
                // In an id, `$this` stands for the row's entity: a variable
                // bound per row (module docs).
                TermRef::This => Half::Var(var_of(THIS_VAR)),
            })
        };
        let mut alternatives: SmallVec<[Pattern; 1]> = SmallVec::new();
        for alternative in &term.alternatives {
            let first = half(&alternative.first)?;
            let second = alternative.second.as_ref().map(&mut half).transpose()?;
            alternatives.push(Pattern { first, second });
        }
        let source = match &term.source {
            TermRef::This => Source::This,
            TermRef::Entity(entity) if entity.index() > Entity::ANY.index() => Source::Fixed(*entity),
            TermRef::Var(name) => Source::Var(var_of(name)),
            _ => return Err(invalid("a source is `$this`, an entity or a variable")),
        };
        let (up, include_self) = match term.traversal {
            Traversal::SelfOnly | Traversal::Owned => (None, true),
            Traversal::Up(relationship) => (Some(relationship), false),
            Traversal::SelfUp(relationship) => (Some(relationship), true),
        };
        let concrete = alternatives.iter().all(|pattern: &Pattern| pattern.concrete_first().is_some());
        let access = match term.access {
            TermAccess::None => DataAccess::None,
            // A `!` term matches rows without the id: it has no value to
            // access, whatever access it is written with (Flecs accepts
            // `[out] !T` and matches the rows without `T`).
            _ if term.oper == TermOper::Not => DataAccess::None,
            // A wildcard or variable component reads the id it matched (Flecs:
            // `(*, t)` gives the matched pair's value), unless a write term
            // may match the same id (`relax_wildcard_reads`).
            TermAccess::Default => DataAccess::Read,
            TermAccess::Out | TermAccess::InOut if !concrete => {
                return Err(invalid(
                    "a term whose component is a wildcard or a variable cannot write (write it [in] or [none])",
                ));
            }
            TermAccess::In => DataAccess::Read,
            TermAccess::Out | TermAccess::InOut => DataAccess::Write,
        };
        if access == DataAccess::Write {
            if source != Source::This || up.is_some() {
                return Err(QueryBuildError::WriteNotOnThis { term: index });
            }
            if alternatives.len() > 1 {
                return Err(invalid("an or-chain cannot be written: its rows may hold different components"));
            }
        }
        let transitive_pattern = |pattern: &Pattern| match (pattern.first, pattern.second) {
            (Half::Entity(relationship), Some(Half::Entity(_) | Half::Var(_))) => is_transitive(relationship),
            _ => false,
        };
        let transitive = alternatives.len() == 1 && transitive_pattern(&alternatives[0]);
        // An or-chain's alternatives, each matched along chains (and `IsA`
        // reflexively) where its relationship is transitive.
        let transitive_alternatives = if alternatives.len() > 1 {
            alternatives.iter().map(transitive_pattern).collect()
        } else {
            SmallVec::new()
        };
        compiled.push(CompiledTerm {
            alternatives,
            source,
            oper: term.oper,
            up,
            include_self,
            // Traversal written out replaces the implicit `up IsA` (Flecs).
            owned: matches!(term.traversal, Traversal::Owned | Traversal::SelfUp(_)),
            access,
            transitive,
            transitive_alternatives,
            conditional: SmallVec::new(),
        });
    }
    let mut up_on_this: SmallVec<[Entity; 1]> = SmallVec::new();
    let mut self_up_components: SmallVec<[Entity; 1]> = SmallVec::new();
    let mut or_components: SmallVec<[Entity; 2]> = SmallVec::new();
    let mut or_relationships: SmallVec<[Entity; 1]> = SmallVec::new();
    let or_chains = compiled.iter().filter(|term| term.source == Source::This && term.alternatives.len() > 1);
    for pattern in or_chains.flat_map(|term| term.alternatives.iter()) {
        match (pattern.first, pattern.second) {
            (Half::Entity(component), None) => or_components.push(component),
            (Half::Entity(relationship), Some(_)) => or_relationships.push(relationship),
            // Any relationship: a union pair of the table may match it.
            (_, Some(_)) => or_relationships.push(Entity::WILDCARD),
            _ => {}
        }
    }
    let has_or_chain = !or_components.is_empty() || !or_relationships.is_empty();
    let whole_id_wildcard = compiled.iter().any(is_whole_id_wildcard_on_this);
    for term in &compiled {
        if let (Source::This, Some(relationship)) = (term.source, term.up) {
            if !up_on_this.contains(&relationship) {
                up_on_this.push(relationship);
            }
            if term.include_self {
                let components = term.alternatives.iter().filter_map(|pattern| match (pattern.first, pattern.second) {
                    (Half::Entity(component), None) => Some(component),
                    _ => None,
                });
                self_up_components.extend(components);
            }
        }
    }
    // A table holding a union pair of an `up` relationship is evaluated row
    // by row (each row climbs from its own target): the row's variable.
    // So is one where an or-chain may take another alternative per row.
    let this_in_id = var_names.iter().any(|name| name == THIS_VAR);
    if (!up_on_this.is_empty() || has_or_chain || whole_id_wildcard) && !this_in_id {
        var_names.push(THIS_VAR.to_owned());
    }
    let this_var = var_names.iter().position(|name| name == THIS_VAR);
    // With a term on `$this`, its variable is bound to each row's entity
    // before the terms naming it run. Without one, `$this` in an id is a
    // variable the terms bind like any other (`Likes(alice, $this)`: whom
    // alice likes), and each solution is the one row of its entity (Flecs).
    let has_this = compiled.iter().any(|term| term.source == Source::This);
    let row_bound = this_var.filter(|_| has_this);
    if let Some(this) = this_var.filter(|_| !has_this)
        && !compiled.iter().any(|term| term.oper == TermOper::And && term.variables().any(|var| var == this))
    {
        let term = compiled.iter().position(|term| term.variables().any(|var| var == this)).unwrap_or(0);
        return Err(QueryBuildError::InvalidTerm {
            term,
            reason: "`$this` in an id stands for the row's entity: a term on `$this`, or a required term with \
                     `$this` in its id, must bind it"
                .to_owned(),
        });
    }
    mark_conditional(&mut compiled, var_names.len(), row_bound);
    relax_wildcard_reads(&mut compiled, terms);
    check_aliasing(&compiled)?;
    let plan = plan(&compiled, &var_names, row_bound)?;
    let user_variables = var_names.iter().filter(|name| *name != THIS_VAR).cloned().collect();
    Ok(Compiled {
        terms: compiled,
        var_names,
        plan,
        this_var,
        this_in_id,
        up_on_this,
        user_variables,
        self_up_components,
        whole_id_wildcard,
        or_components,
        or_relationships,
    })
}

/// Marks the terms that depend on a variable an earlier term binds only
/// conditionally ([`CompiledTerm::conditional`]). The first term naming a
/// variable, in written order (a `!` term binds nothing), writes it (Flecs);
/// it binds it conditionally when the variable is in its id (not its
/// source, which every alternative shares and which is selected whatever the
/// term finds) and it is optional, or an or-chain with an alternative whose
/// id does not name it.
fn mark_conditional(terms: &mut [CompiledTerm], var_count: usize, this_var: Option<usize>) {
    // `$this` in an id is bound for every row: never conditionally.
    for var in (0..var_count).filter(|&var| Some(var) != this_var) {
        let writer =
            terms.iter().position(|term| term.oper != TermOper::Not && term.variables().any(|named| named == var));
        let Some(writer) = writer else {
            continue;
        };
        let term = &terms[writer];
        if term.source == Source::Var(var) {
            continue;
        }
        let names = |pattern: &Pattern| {
            core::iter::once(pattern.first).chain(pattern.second).any(|half| half == Half::Var(var))
        };
        let partial_or = term.alternatives.len() > 1 && !term.alternatives.iter().all(names);
        if term.oper != TermOper::Optional && !partial_or {
            continue;
        }
        for later in &mut terms[writer + 1..] {
            if later.variables().any(|named| named == var) && !later.conditional.contains(&var) {
                later.conditional.push(var);
            }
        }
    }
}

/// Whether two halves may stand for the same entity.
fn halves_overlap(a: Half, b: Half) -> bool {
    match (a, b) {
        (Half::Entity(a), Half::Entity(b)) => a.index() == b.index(),
        _ => true,
    }
}

/// Whether two patterns may match one id.
fn patterns_overlap(a: &Pattern, b: &Pattern) -> bool {
    match (a.second, b.second) {
        (None, None) => halves_overlap(a.first, b.first),
        (Some(sa), Some(sb)) => halves_overlap(a.first, b.first) && halves_overlap(sa, sb),
        _ => false,
    }
}

/// A term whose component is a wildcard or a variable, with the default
/// access, reads nothing where a write term may match the same id (so the
/// query is no aliasing error; its value is read through the write term).
fn relax_wildcard_reads(compiled: &mut [CompiledTerm], terms: &[Term]) {
    for index in 0..compiled.len() {
        let term = &compiled[index];
        let implicit = terms[index].access == TermAccess::Default
            && term.access == DataAccess::Read
            && !term.alternatives.iter().all(|pattern| pattern.concrete_first().is_some());
        let overlaps_a_write = compiled.iter().enumerate().any(|(other, writer)| {
            other != index
                && writer.access == DataAccess::Write
                && writer.alternatives.iter().any(|a| term.alternatives.iter().any(|b| patterns_overlap(a, b)))
        });
        if implicit && overlaps_a_write {
            compiled[index].access = DataAccess::None;
        }
    }
}

/// A write term and another term that may match the same id would hand out
/// `&mut T` and `&T` (or two `&mut T`) to one value.
fn check_aliasing(terms: &[CompiledTerm]) -> Result<(), QueryBuildError> {
    for (writer, write_term) in terms.iter().enumerate() {
        if write_term.access != DataAccess::Write {
            continue;
        }
        for (other, other_term) in terms.iter().enumerate() {
            if other == writer || other_term.access == DataAccess::None {
                continue;
            }
            let overlap =
                write_term.alternatives.iter().any(|a| other_term.alternatives.iter().any(|b| patterns_overlap(a, b)));
            if overlap {
                let pattern = write_term.alternatives[0];
                let id = pattern.index_id(&[]);
                return Err(QueryBuildError::Aliasing { writer, other, id, name: None });
            }
        }
    }
    Ok(())
}

/// Whether `term` is on `$this` with a wildcard or variable as its whole id
/// (`*`, `$c`; not `_`, which takes one id): see
/// [`Compiled::whole_id_wildcard`].
pub(crate) fn is_whole_id_wildcard_on_this(term: &CompiledTerm) -> bool {
    term.source == Source::This
        && term
            .alternatives
            .iter()
            .any(|pattern| pattern.second.is_none() && matches!(pattern.first, Half::Wildcard | Half::Var(_)))
}

/// Orders the terms (see the module docs).
fn plan(terms: &[CompiledTerm], var_names: &[String], this_var: Option<usize>) -> Result<Plan, QueryBuildError> {
    let var_count = var_names.len();
    let has_this = terms.iter().any(|term| term.source == Source::This);
    let mut bound = vec![false; var_count];
    // `$this` in an id is bound per row, before the suffix runs; terms naming
    // it differ per row, so none is table-level.
    if let Some(var) = this_var {
        bound[var] = true;
    }
    let mut placed = vec![false; terms.len()];
    let mut plan = Plan { has_this, ..Plan::default() };
    // An or-chain on `$this` may take another alternative per row (a
    // disabled toggle counts as absent): never table-level.
    let table_level = |term: &CompiledTerm| {
        term.source == Source::This
            && term.is_self_only()
            && !term.transitive
            && term.alternatives.len() == 1
            && !term.variables().any(|var| Some(var) == this_var)
            && !is_whole_id_wildcard_on_this(term)
    };
    // Required table terms bind the variables of their ids (not those that
    // wait for a conditional writer).
    for (index, term) in terms.iter().enumerate() {
        if table_level(term) && term.oper == TermOper::And && term.conditional.is_empty() {
            plan.prefix.push(Step::Term(index));
            placed[index] = true;
            term.variables().for_each(|var| bound[var] = true);
            if term.alternatives.len() == 1 {
                plan.selectors.push(index);
            }
        }
    }
    for (index, term) in terms.iter().enumerate() {
        if !placed[index] && table_level(term) && term.variables().all(|var| bound[var]) {
            plan.prefix.push(Step::Term(index));
            placed[index] = true;
        }
    }
    // Then, repeatedly: a required term whose source is bound, else a
    // `Not`/`Optional` whose variables all are, else a required term that
    // selects its source variable.
    while placed.iter().any(|placed| !placed) {
        let source_bound = |term: &CompiledTerm| match term.source {
            Source::This | Source::Fixed(_) => true,
            Source::Var(var) => bound[var],
        };
        // A term after a conditional writer waits for it.
        let writers_placed = |term: &CompiledTerm| term.conditional.iter().all(|&var| bound[var]);
        let ready = (0..terms.len())
            .find(|&i| {
                !placed[i] && terms[i].oper == TermOper::And && source_bound(&terms[i]) && writers_placed(&terms[i])
            })
            .or_else(|| {
                (0..terms.len()).find(|&i| {
                    !placed[i] && terms[i].oper != TermOper::And && terms[i].variables().all(|var| bound[var])
                })
            });
        if let Some(index) = ready {
            placed[index] = true;
            terms[index].variables().for_each(|var| bound[var] = true);
            plan.suffix.push(Step::Term(index));
            continue;
        }
        let select =
            (0..terms.len()).find(|&i| !placed[i] && terms[i].oper == TermOper::And && writers_placed(&terms[i]));
        // Last, when no required term is left: an optional term on a bound
        // source binds the unbound variables of its id where it matches and
        // leaves them unbound where it does not (Flecs' optional variables).
        // Later terms see them as bound at plan time; at run time an unbound
        // one reads as "no match" for a source and as a wildcard in an id.
        let optional = select.is_none().then(|| {
            (0..terms.len()).find(|&i| !placed[i] && terms[i].oper == TermOper::Optional && source_bound(&terms[i]))
        });
        if let Some(Some(index)) = optional {
            placed[index] = true;
            terms[index].variables().for_each(|var| bound[var] = true);
            plan.suffix.push(Step::Term(index));
            continue;
        }
        match select {
            Some(index) => {
                let Source::Var(var) = terms[index].source else {
                    unreachable!("terms on `$this` or fixed sources are always ready")
                };
                placed[index] = true;
                terms[index].variables().for_each(|var| bound[var] = true);
                plan.suffix.push(Step::SelectSource(index, var));
            }
            None if (0..terms.len()).any(|i| !placed[i] && terms[i].oper == TermOper::And) => {
                // Only terms waiting for a conditional writer that cannot run.
                let (term, var) = (0..terms.len())
                    .filter(|&i| !placed[i])
                    .find_map(|i| terms[i].conditional.iter().find(|&&var| !bound[var]).map(|&var| (i, var)))
                    .expect("a waiting term names a conditionally bound variable");
                return Err(QueryBuildError::UnboundVariable { term, variable: var_names[var].clone() });
            }
            None => {
                let (term, var) = (0..terms.len())
                    .filter(|&i| !placed[i])
                    .find_map(|i| terms[i].variables().find(|&var| !bound[var]).map(|var| (i, var)))
                    .expect("an unplaced term names an unbound variable");
                return Err(QueryBuildError::UnboundVariable { term, variable: var_names[var].clone() });
            }
        }
    }
    Ok(plan)
}
