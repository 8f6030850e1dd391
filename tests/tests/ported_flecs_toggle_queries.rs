//! Flecs' test/query/src/Toggle.c (commit a90efc49), ported a second time:
//! `ported_flecs_toggle_union.rs` runs each test through the query DSL built
//! fresh for every check; this file runs them through the **typed** query API
//! (`&T`, `Option<&T>`, `Has<T>`, `With`/`Without`, `Or`, `Up`, `Fixed`,
//! `Changed`/`Added`) and the **runtime builder** (`world.query_builder()`,
//! `build()` and `build_uncached()`), each next to the DSL form (cached and
//! uncached), and keeps every query **alive across changes**: the same
//! `QueryState` / `DynQuery` is iterated before and after each toggle, spawn,
//! despawn and table move, as a Flecs cached query is.
//!
//! Flecs' `ecs_enable_component(world, e, T, false)` is `disable::<T>()`, its
//! `CanToggle` trait `#[component(toggle)]`. Iteration order is not part of
//! our contract, so rows are compared as sorted lists.
//!
//! Beyond Toggle.c: tables with hundreds of rows whose toggles fall in
//! different 64-bit words and flip between iterations of one query,
//! swap-removes and table moves of disabled rows, `&mut T` / `Option<&mut T>`
//! writes, `QueryState::get`/`single`, `DynQuery::iter_tables` row checks,
//! or-chains of toggled components, `Up` walking past a disabled ancestor,
//! values inherited from prefabs (`IsA`) whose base's bit decides, and
//! change filters.
//!
//! Adapted (documented differences):
//! * `this_pair`, `this_pair_skip_initial`, `this_tag_pair`,
//!   `this_tag_pair_wildcard`: our toggles are per component type
//!   (`#[component(toggle)]`); relationships cannot be toggleable and there is
//!   no `enable_pair`. Ported as a toggleable component next to `(Likes, *)`
//!   pairs: the rows of every pair of an entity come and go with its bit.
//! * `this_sort`: there is no `order_by` callback (Flecs sorts the table's
//!   rows and must carry the bits along; we never reorder storage). Ported as
//!   `cascade::<ChildOf>()` over toggled rows.
//! * `remove_toggle_from_table_w_other_toggle_and_entity`: `ECS_TOGGLE | id`
//!   cannot be removed (toggleability is a type property); ported as removing
//!   the toggled component itself, which forgets its bit (a value added later
//!   starts enabled) and leaves the other component's bits alone.
//!
//! * `up` past a disabled ancestor (`up_skips_a_disabled_ancestor`): Flecs
//!   checks the bit on the nearest ancestor that has the component
//!   (`flecs_query_toggle_for_up`) and drops the row if it is disabled; ours
//!   counts a disabled value as absent for every term (API.md), so `Up` and
//!   `Position(up ChildOf)` go on to the next ancestor that has it enabled.
//!   `self|up` with the row's own value disabled does not go up (as in Flecs:
//!   the term matches on self and the bit drops the row).
//!
//! Not ported:
//! * `toggle_0_src_only_term`, `toggle_0_src`, `this_from_nothing`: terms
//!   with no source (`Position(#0)`, `.src.id = EcsIsEntity`) do not exist;
//!   the DSL rejects `#0`.
//! * `this_{64,..,1024}_mod_*`, `this_enabled_*`, `this_mod_*_2_bitsets`,
//!   `this_randomized_*` exist in the DSL port; here they run as typed and
//!   builder queries in loops (`n_mod_m_typed_and_builder`, ...).

use ecs::component::Toggleable;
use ecs::query::DynTable;
use ecs::system::CommandQueue;

use ecs::prelude::*;

// ----- components and relationships ---------------------------------------------------

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
#[component(toggle)]
struct Position {
    x: i32,
    y: i32,
}

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
#[component(toggle)]
struct Velocity {
    x: i32,
    y: i32,
}

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
#[component(toggle)]
struct Mass(i32);

/// Copied into instances (`override`), toggleable.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
#[component(toggle, on_instantiate = "override")]
struct Armor(i32);

/// Toggleable tags.
#[derive(Component, Clone, Copy, Debug)]
#[component(toggle)]
struct Foo;
#[derive(Component, Clone, Copy, Debug)]
#[component(toggle)]
struct Bar;
#[derive(Component, Clone, Copy, Debug)]
#[component(toggle)]
struct Walks;

/// Plain tags.
#[derive(Component, Clone, Copy, Debug)]
struct Tag;
#[derive(Component, Clone, Copy, Debug)]
struct TagA;
#[derive(Component, Clone, Copy, Debug)]
struct TagB;

#[derive(Relationship, Debug)]
struct Likes;

/// A non-fragmenting hierarchy: each row of one table has its own parent.
#[derive(Relationship, Debug)]
#[relationship(union, traversable)]
struct Follows;

// ----- helpers ---------------------------------------------------------------------------

fn new_world() -> World {
    let mut world = World::new();
    world.register_component::<Position>();
    world.register_component::<Velocity>();
    world.register_component::<Mass>();
    world.register_component::<Armor>();
    world.register_component::<Foo>();
    world.register_component::<Bar>();
    world.register_component::<Walks>();
    world.register_component::<Tag>();
    world.register_component::<TagA>();
    world.register_component::<TagB>();
    world.register_component::<Likes>();
    world.register_component::<Follows>();
    world.register_component::<ChildOf>();
    world.register_component::<IsA>();
    world
}

fn cid<T: Component>(world: &World) -> Entity {
    world.component_id::<T>().expect("registered")
}

/// An entity as the DSL writes one without a name.
fn r(entity: Entity) -> String {
    format!("#{}", entity.to_bits())
}

fn sorted<T: Ord>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut items: Vec<T> = items.into_iter().collect();
    items.sort();
    items
}

/// Enables or disables `entity`'s `T`.
fn set_enabled<T: Toggleable>(world: &mut World, entity: Entity, on: bool) {
    if on {
        world.entity_mut(entity).enable::<T>();
    } else {
        world.entity_mut(entity).disable::<T>();
    }
}

fn pos(i: i32) -> Position {
    Position { x: i, y: i }
}

/// One runtime query in four builds that must agree: the DSL text cached and
/// uncached, the builder cached and uncached. Built once and iterated after
/// every change, as a Flecs cached query is.
struct Rt {
    text: String,
    queries: Vec<DynQuery>,
}

impl Rt {
    fn new(world: &World, text: &str, builder: QueryBuilder) -> Rt {
        let queries = vec![
            world.query_dsl(text).unwrap_or_else(|e| panic!("{text:?}: {e}")),
            world.query_dsl_uncached(text).unwrap_or_else(|e| panic!("{text:?}: {e}")),
            builder.clone().build().unwrap_or_else(|e| panic!("{text:?} (builder): {e}")),
            builder.build_uncached().unwrap_or_else(|e| panic!("{text:?} (builder, uncached): {e}")),
        ];
        Rt { text: text.to_string(), queries }
    }

    /// Per row `f(row)`, sorted; all four builds must agree.
    fn rows<T: Ord + std::fmt::Debug>(&mut self, world: &World, f: impl Fn(&DynRow<'_>) -> T) -> Vec<T> {
        let mut all: Vec<Vec<T>> = Vec::new();
        for q in &mut self.queries {
            all.push(sorted(q.iter(world).map(|row| f(&row))));
        }
        let names = ["dsl cached", "dsl uncached", "builder cached", "builder uncached"];
        for (i, rows) in all.iter().enumerate().skip(1) {
            assert_eq!(rows, &all[0], "{:?}: {} differs from {}", self.text, names[i], names[0]);
        }
        all.swap_remove(0)
    }

    fn entities(&mut self, world: &World) -> Vec<Entity> {
        self.rows(world, |row| row.entity())
    }

    /// Per row: the entity and `is_set` of each of the first `terms` terms.
    fn set(&mut self, world: &World, terms: usize) -> Vec<(Entity, Vec<bool>)> {
        self.rows(world, |row| (row.entity(), (0..terms).map(|t| row.is_set(t)).collect()))
    }

    /// `DynQuery::count` of every build (must agree with iteration).
    fn count(&mut self, world: &World) -> usize {
        let n = self.rows(world, |_| ()).len();
        for q in &mut self.queries {
            assert_eq!(q.count(world), n, "{:?}: count() differs from iteration", self.text);
        }
        n
    }
}

type OptUpQuery = QueryState<(Entity, Option<Up<ChildOf, &'static Position>>), With<Foo>>;
type TwiceQuery = QueryState<(Entity, Option<&'static Position>, Has<Position>, Option<&'static Velocity>), With<Tag>>;

fn typed_entities<F: QueryFilter>(q: &mut QueryState<Entity, F>, world: &World) -> Vec<Entity> {
    sorted(q.iter(world))
}

// ================================================================== fixed sources

/// Flecs Toggle_fixed_src_1_tag_toggle: `Foo(e)` (builder `.with(foo_id).source(e)`),
/// one query object kept across the insert and the toggles.
#[test]
fn fixed_src_1_tag_toggle() {
    let mut world = new_world();
    let e = world.spawn_empty().id();
    let foo_id = cid::<Foo>(&world);
    let mut rt = Rt::new(&world, &format!("Foo({})", r(e)), world.query_builder().with(foo_id).source(e));
    let view = |row: &DynRow<'_>| (row.source(0), row.id(0), row.is_set(0));
    assert!(rt.rows(&world, view).is_empty());
    world.entity_mut(e).insert(Foo);
    assert_eq!(rt.rows(&world, view), vec![(e, foo_id.id(), true)]);
    world.entity_mut(e).disable::<Foo>();
    assert!(rt.rows(&world, view).is_empty());
    world.entity_mut(e).enable::<Foo>();
    assert_eq!(rt.rows(&world, view), vec![(e, foo_id.id(), true)]);
}

/// Flecs Toggle_fixed_src_1_component_toggle: `Position(e)` yields the value only while enabled.
#[test]
fn fixed_src_1_component_toggle() {
    let mut world = new_world();
    let e = world.spawn_empty().id();
    let p = cid::<Position>(&world);
    let mut rt = Rt::new(&world, &format!("Position({})", r(e)), world.query_builder().read(p).source(e));
    let view = |row: &DynRow<'_>| (row.source(0), row.get::<Position>(0).copied());
    assert!(rt.rows(&world, view).is_empty());
    world.entity_mut(e).insert(Position { x: 10, y: 20 });
    assert_eq!(rt.rows(&world, view), vec![(e, Some(Position { x: 10, y: 20 }))]);
    world.entity_mut(e).disable::<Position>();
    assert!(rt.rows(&world, view).is_empty());
    // A disabled value stays readable and writable with get/get_mut.
    world.get_mut::<Position>(e).unwrap().x = 11;
    assert!(rt.rows(&world, view).is_empty());
    world.entity_mut(e).enable::<Position>();
    assert_eq!(rt.rows(&world, view), vec![(e, Some(Position { x: 11, y: 20 }))]);
}

/// Flecs Toggle_fixed_src_2_tag_toggle: `Foo(e), Bar(e)` needs both bits.
#[test]
fn fixed_src_2_tag_toggle() {
    let mut world = new_world();
    let e = world.spawn_empty().id();
    let (foo_id, bar_id) = (cid::<Foo>(&world), cid::<Bar>(&world));
    let text = format!("Foo({0}), Bar({0})", r(e));
    let mut rt = Rt::new(&world, &text, world.query_builder().with(foo_id).source(e).with(bar_id).source(e));
    assert_eq!(rt.count(&world), 0);
    world.entity_mut(e).insert((Foo, Bar));
    assert_eq!(rt.rows(&world, |row| (row.source(0), row.source(1), row.id(1))), vec![(e, e, bar_id.id())]);
    for (foo_on, bar_on) in [(false, true), (true, true), (true, false), (true, true), (false, true), (false, false)] {
        let mut entity = world.entity_mut(e);
        if foo_on {
            entity.enable::<Foo>()
        } else {
            entity.disable::<Foo>()
        };
        if bar_on {
            entity.enable::<Bar>()
        } else {
            entity.disable::<Bar>()
        };
        assert_eq!(rt.count(&world), usize::from(foo_on && bar_on), "Foo {foo_on} Bar {bar_on}");
    }
}

/// Flecs Toggle_fixed_src_2_component_toggle: `Position(e), Velocity(e)` yields both values.
#[test]
fn fixed_src_2_component_toggle() {
    let mut world = new_world();
    let e = world.spawn_empty().id();
    let (p, v) = (cid::<Position>(&world), cid::<Velocity>(&world));
    let text = format!("Position({0}), Velocity({0})", r(e));
    let mut rt = Rt::new(&world, &text, world.query_builder().read(p).source(e).read(v).source(e));
    let view = |row: &DynRow<'_>| (*row.get::<Position>(0).unwrap(), *row.get::<Velocity>(1).unwrap());
    assert!(rt.rows(&world, view).is_empty());
    world.entity_mut(e).insert((Position { x: 10, y: 20 }, Velocity { x: 1, y: 2 }));
    let both = vec![(Position { x: 10, y: 20 }, Velocity { x: 1, y: 2 })];
    assert_eq!(rt.rows(&world, view), both);
    world.entity_mut(e).disable::<Position>();
    assert!(rt.rows(&world, view).is_empty());
    world.entity_mut(e).enable::<Position>().disable::<Velocity>();
    assert!(rt.rows(&world, view).is_empty());
    world.entity_mut(e).enable::<Velocity>();
    assert_eq!(rt.rows(&world, view), both);
}

/// Flecs Toggle_fixed_2_src_w_toggle: `Foo(e1), Bar(e2)`.
#[test]
fn fixed_2_src_w_toggle() {
    let mut world = new_world();
    let e1 = world.spawn_empty().id();
    let e2 = world.spawn_empty().id();
    let (foo_id, bar_id) = (cid::<Foo>(&world), cid::<Bar>(&world));
    let text = format!("Foo({}), Bar({})", r(e1), r(e2));
    let mut rt = Rt::new(&world, &text, world.query_builder().with(foo_id).source(e1).with(bar_id).source(e2));
    assert_eq!(rt.count(&world), 0);
    world.entity_mut(e1).insert(Foo);
    world.entity_mut(e2).insert(Bar);
    assert_eq!(rt.rows(&world, |row| (row.source(0), row.source(1))), vec![(e1, e2)]);
    world.entity_mut(e1).disable::<Foo>();
    assert_eq!(rt.count(&world), 0);
    world.entity_mut(e1).enable::<Foo>();
    world.entity_mut(e2).disable::<Bar>();
    assert_eq!(rt.count(&world), 0);
    world.entity_mut(e2).enable::<Bar>();
    assert_eq!(rt.count(&world), 1);
    // Disabling the same component on another entity changes nothing.
    let e3 = world.spawn((Foo, Bar)).id();
    world.entity_mut(e3).disable::<Foo>().disable::<Bar>();
    assert_eq!(rt.count(&world), 1);
}

/// Flecs Toggle_this_w_fixed_src_w_toggle: `Foo($this), Bar(e2)`; typed as
/// `(Entity, Fixed<&Bar>)` filtered `With<Foo>`.
#[test]
fn this_w_fixed_src_w_toggle() {
    let mut world = new_world();
    let e1 = world.spawn_empty().id();
    let e2 = world.spawn_empty().id();
    let (foo_id, bar_id) = (cid::<Foo>(&world), cid::<Bar>(&world));
    let text = format!("Foo($this), Bar({})", r(e2));
    let mut rt = Rt::new(&world, &text, world.query_builder().with(foo_id).with(bar_id).source(e2));
    let mut typed = world.query_filtered::<(Entity, Fixed<&Bar>), With<Foo>>().with_source::<Bar>(e2);
    let typed_rows =
        |q: &mut QueryState<(Entity, Fixed<&Bar>), With<Foo>>, w: &World| sorted(q.iter(w).map(|(e, _)| e));
    assert!(rt.entities(&world).is_empty());
    assert!(typed_rows(&mut typed, &world).is_empty());
    world.entity_mut(e1).insert(Foo);
    world.entity_mut(e2).insert(Bar);
    assert_eq!(rt.rows(&world, |row| (row.entity(), row.source(1))), vec![(e1, e2)]);
    assert_eq!(typed_rows(&mut typed, &world), vec![e1]);
    for (foo_on, bar_on) in [(false, true), (true, true), (true, false), (true, true), (false, true)] {
        let expected = if foo_on && bar_on { vec![e1] } else { vec![] };
        set_enabled::<Foo>(&mut world, e1, foo_on);
        set_enabled::<Bar>(&mut world, e2, bar_on);
        assert_eq!(rt.entities(&world), expected, "Foo {foo_on} Bar {bar_on}");
        assert_eq!(typed_rows(&mut typed, &world), expected, "typed: Foo {foo_on} Bar {bar_on}");
    }
}

/// Flecs Toggle_fixed_src_w_this_w_toggle: `Foo(e1), Bar($this)`; typed as
/// `(Entity, Fixed<&Foo>)` filtered `With<Bar>`.
#[test]
fn fixed_src_w_this_w_toggle() {
    let mut world = new_world();
    let e1 = world.spawn_empty().id();
    let e2 = world.spawn_empty().id();
    let (foo_id, bar_id) = (cid::<Foo>(&world), cid::<Bar>(&world));
    let text = format!("Foo({}), Bar($this)", r(e1));
    let mut rt = Rt::new(&world, &text, world.query_builder().with(foo_id).source(e1).with(bar_id));
    let mut typed = world.query_filtered::<(Entity, Fixed<&Foo>), With<Bar>>().with_source::<Foo>(e1);
    let typed_rows =
        |q: &mut QueryState<(Entity, Fixed<&Foo>), With<Bar>>, w: &World| sorted(q.iter(w).map(|(e, _)| e));
    assert!(rt.entities(&world).is_empty());
    world.entity_mut(e1).insert(Foo);
    world.entity_mut(e2).insert(Bar);
    assert_eq!(rt.rows(&world, |row| (row.entity(), row.source(0))), vec![(e2, e1)]);
    assert_eq!(typed_rows(&mut typed, &world), vec![e2]);
    world.entity_mut(e1).disable::<Foo>();
    assert!(rt.entities(&world).is_empty());
    assert!(typed_rows(&mut typed, &world).is_empty());
    world.entity_mut(e1).enable::<Foo>();
    world.entity_mut(e2).disable::<Bar>();
    assert!(rt.entities(&world).is_empty());
    assert!(typed_rows(&mut typed, &world).is_empty());
    world.entity_mut(e2).enable::<Bar>();
    assert_eq!(rt.entities(&world), vec![e2]);
    assert_eq!(typed_rows(&mut typed, &world), vec![e2]);
}

/// Fixed-source component values through the typed API: `Fixed<&Position>`
/// reads the source's value only while it is enabled.
#[test]
fn fixed_typed_component_value_follows_the_sources_bit() {
    let mut world = new_world();
    let src = world.spawn(Position { x: 7, y: 8 }).id();
    let a = world.spawn(Tag).id();
    let b = world.spawn(Tag).id();
    let mut q = world.query_filtered::<(Entity, Fixed<&Position>), With<Tag>>().with_source::<Position>(src);
    let rows =
        |q: &mut QueryState<(Entity, Fixed<&Position>), With<Tag>>, w: &World| sorted(q.iter(w).map(|(e, p)| (e, *p)));
    assert_eq!(rows(&mut q, &world), vec![(a, Position { x: 7, y: 8 }), (b, Position { x: 7, y: 8 })]);
    world.entity_mut(src).disable::<Position>();
    assert!(rows(&mut q, &world).is_empty());
    world.entity_mut(src).enable::<Position>();
    assert_eq!(rows(&mut q, &world).len(), 2);
}

// ================================================================== $this

/// Flecs Toggle_this: every typed form and the builder agree on a disabled middle row.
#[test]
fn this_every_typed_form() {
    let mut world = new_world();
    let e1 = world.spawn((pos(1), Tag)).id();
    let e2 = world.spawn((pos(2), Tag)).id();
    let e3 = world.spawn((pos(3), Tag)).id();
    let e4 = world.spawn(Tag).id();
    world.entity_mut(e1).enable::<Position>();
    world.entity_mut(e2).disable::<Position>();
    let p = cid::<Position>(&world);
    let mut rt = Rt::new(&world, "Position", world.query_builder().read(p));
    assert_eq!(
        rt.rows(&world, |row| (row.entity(), *row.get::<Position>(0).unwrap())),
        vec![(e1, pos(1)), (e3, pos(3))]
    );
    let mut read = world.query::<(Entity, &Position)>();
    assert_eq!(sorted(read.iter(&world).map(|(e, p)| (e, *p))), vec![(e1, pos(1)), (e3, pos(3))]);
    let mut with = world.query_filtered::<Entity, With<Position>>();
    assert_eq!(typed_entities(&mut with, &world), vec![e1, e3]);
    let mut without = world.query_filtered::<Entity, (With<Tag>, Without<Position>)>();
    assert_eq!(typed_entities(&mut without, &world), vec![e2, e4]);
    let mut opt = world.query_filtered::<(Entity, Option<&Position>), With<Tag>>();
    let got = sorted(opt.iter(&world).map(|(e, p)| (e, p.copied())));
    assert_eq!(got, vec![(e1, Some(pos(1))), (e2, None), (e3, Some(pos(3))), (e4, None)]);
    let mut has = world.query_filtered::<(Entity, Has<Position>), With<Tag>>();
    assert_eq!(sorted(has.iter(&world)), vec![(e1, true), (e2, false), (e3, true), (e4, false)]);
    for (e, _) in read.iter(&world) {
        assert!(world.is_enabled::<Position>(e));
    }
    // The same objects after the bits flip.
    world.entity_mut(e2).enable::<Position>();
    world.entity_mut(e3).disable::<Position>();
    assert_eq!(rt.entities(&world), vec![e1, e2]);
    assert_eq!(sorted(read.iter(&world).map(|(e, _)| e)), vec![e1, e2]);
    assert_eq!(typed_entities(&mut with, &world), vec![e1, e2]);
    assert_eq!(typed_entities(&mut without, &world), vec![e3, e4]);
    assert_eq!(sorted(has.iter(&world)), vec![(e1, true), (e2, true), (e3, false), (e4, false)]);
}

/// Flecs Toggle_this_skip_initial: the table's first row is the disabled one.
#[test]
fn this_skip_initial() {
    let mut world = new_world();
    let p = cid::<Position>(&world);
    let mut rt = Rt::new(&world, "Position", world.query_builder().read(p));
    let mut q = world.query::<(Entity, &Position)>();
    let e1 = world.spawn(pos(1)).id();
    let e2 = world.spawn(pos(2)).id();
    let e3 = world.spawn(pos(3)).id();
    world.entity_mut(e1).disable::<Position>();
    world.entity_mut(e2).enable::<Position>();
    assert_eq!(rt.entities(&world), vec![e2, e3]);
    assert_eq!(sorted(q.iter(&world).map(|(e, p)| (e, *p))), vec![(e2, pos(2)), (e3, pos(3))]);
    // And the last row.
    world.entity_mut(e3).disable::<Position>();
    assert_eq!(rt.entities(&world), vec![e2]);
    assert_eq!(sorted(q.iter(&world).map(|(e, _)| e)), vec![e2]);
}

/// Flecs Toggle_this_tag: a toggleable tag, `With<Foo>` / `Has<Foo>` / builder `.with(foo_id)`.
#[test]
fn this_tag() {
    let mut world = new_world();
    let e1 = world.spawn(Foo).id();
    let e2 = world.spawn(Foo).id();
    let e3 = world.spawn(Foo).id();
    world.entity_mut(e1).enable::<Foo>();
    world.entity_mut(e2).disable::<Foo>();
    let foo_id = cid::<Foo>(&world);
    let mut rt = Rt::new(&world, "Foo", world.query_builder().with(foo_id));
    assert_eq!(
        rt.rows(&world, |row| (row.entity(), row.id(0), row.is_set(0))),
        vec![(e1, foo_id.id(), true), (e3, foo_id.id(), true)]
    );
    let mut with = world.query_filtered::<Entity, With<Foo>>();
    assert_eq!(typed_entities(&mut with, &world), vec![e1, e3]);
    let mut read = world.query::<(Entity, &Foo)>();
    assert_eq!(sorted(read.iter(&world).map(|(e, _)| e)), vec![e1, e3]);
    let mut has = world.query::<(Entity, Has<Foo>)>();
    let has_rows: Vec<(Entity, bool)> = sorted(has.iter(&world).filter(|&(e, _)| [e1, e2, e3].contains(&e)));
    assert_eq!(has_rows, vec![(e1, true), (e2, false), (e3, true)]);
}

/// Flecs Toggle_this_tag_pair_wildcard, adapted (relationships are not
/// toggleable): `(Likes, *), Foo` with Foo toggled; one row per pair of each
/// entity whose Foo is enabled, with the pair id that matched.
#[test]
fn this_tag_pair_wildcard_w_toggled_tag() {
    let mut world = new_world();
    let tgt_a = world.spawn(Name::new("TgtA")).id();
    let tgt_b = world.spawn(Name::new("TgtB")).id();
    let mut es = Vec::new();
    for i in 0..6 {
        let target = if i < 3 { tgt_a } else { tgt_b };
        es.push(world.spawn(Foo).add_pair::<Likes>(target).id());
    }
    let both = world.spawn(Foo).add_pair::<Likes>(tgt_a).add_pair::<Likes>(tgt_b).id();
    for (i, &on) in [true, false, true, false, true, false].iter().enumerate() {
        set_enabled::<Foo>(&mut world, es[i], on);
    }
    world.entity_mut(both).disable::<Foo>();
    let (likes, foo_id) = (cid::<Likes>(&world), cid::<Foo>(&world));
    let mut rt = Rt::new(&world, "(Likes, *), Foo", world.query_builder().pair(likes, Entity::WILDCARD).with(foo_id));
    let mut typed = world.query_filtered::<(Entity, Pair<Likes>), With<Foo>>();
    let view = |row: &DynRow<'_>| (row.entity(), row.pair_target(0), row.is_set(1));
    let expected = sorted(vec![(es[0], tgt_a, true), (es[2], tgt_a, true), (es[4], tgt_b, true)]);
    assert_eq!(rt.rows(&world, view), expected);
    let strip = |rows: &[(Entity, Entity, bool)]| rows.iter().map(|&(e, t, _)| (e, t)).collect::<Vec<_>>();
    assert_eq!(sorted(typed.iter(&world)), strip(&expected));
    for (e, target) in sorted(typed.iter(&world)) {
        let id = rt.queries[0].iter(&world).find(|row| row.entity() == e).unwrap().id(0);
        assert_eq!(id, Id::pair(likes, target), "{e:?}");
    }
    // Enabling the entity with two pairs brings both rows.
    world.entity_mut(both).enable::<Foo>();
    let mut expected = expected;
    expected.extend([(both, tgt_a, true), (both, tgt_b, true)]);
    let expected = sorted(expected);
    assert_eq!(rt.rows(&world, view), expected);
    assert_eq!(sorted(typed.iter(&world)), strip(&expected));
}

/// Flecs Toggle_this_pair / this_pair_skip_initial, adapted: a toggleable
/// component in tables that differ by their `(Likes, tgt)` pair; `(Likes, TgtA), Position`.
#[test]
fn this_pair_adapted_toggled_component_per_pair_table() {
    let mut world = new_world();
    let tgt_a = world.spawn(Name::new("TgtA")).id();
    let tgt_b = world.spawn(Name::new("TgtB")).id();
    let es: Vec<Entity> = (0..3).map(|i| world.spawn(pos(i)).add_pair::<Likes>(tgt_a).id()).collect();
    let others: Vec<Entity> = (0..3).map(|i| world.spawn(pos(i)).add_pair::<Likes>(tgt_b).id()).collect();
    world.entity_mut(es[0]).disable::<Position>(); // skip initial
    world.entity_mut(es[1]).enable::<Position>();
    world.entity_mut(others[2]).disable::<Position>();
    let (likes, p) = (cid::<Likes>(&world), cid::<Position>(&world));
    let mut rt = Rt::new(&world, "(Likes, TgtA), Position", world.query_builder().pair(likes, tgt_a).read(p));
    assert_eq!(rt.entities(&world), vec![es[1], es[2]]);
    let mut typed = world.query::<(Entity, &Position)>().with_pair::<Likes>(tgt_a);
    assert_eq!(sorted(typed.iter(&world).map(|(e, p)| (e, *p))), vec![(es[1], pos(1)), (es[2], pos(2))]);
    let mut any = world.query::<(Entity, &Position)>().with_pair::<Likes>(Entity::WILDCARD);
    let any_rows = sorted(any.iter(&world).map(|(e, _)| e));
    assert_eq!(any_rows, sorted(vec![es[1], es[2], others[0], others[1]]));
}

/// Flecs Toggle_this_toggle_after_or_chain: `TagA || TagB, Walks` with Walks toggled;
/// typed `With<Walks>, Or<(With<TagA>, With<TagB>)>`.
#[test]
fn this_toggle_after_or_chain() {
    let mut world = new_world();
    let e = world.spawn((TagA, Walks)).id();
    let f = world.spawn((TagB, Walks)).id();
    let g = world.spawn(Walks).id();
    world.entity_mut(e).enable::<Walks>();
    let (a, b, walks) = (cid::<TagA>(&world), cid::<TagB>(&world), cid::<Walks>(&world));
    let mut rt = Rt::new(&world, "TagA || TagB, Walks", world.query_builder().with(a).or(b).with(walks));
    let mut typed = world.query_filtered::<Entity, (With<Walks>, Or<(With<TagA>, With<TagB>)>)>();
    assert_eq!(
        rt.rows(&world, |row| (row.entity(), row.id(0), row.id(1))),
        vec![(e, a.id(), walks.id()), (f, b.id(), walks.id())]
    );
    assert_eq!(typed_entities(&mut typed, &world), vec![e, f]);
    world.entity_mut(e).disable::<Walks>();
    assert_eq!(rt.entities(&world), vec![f]);
    assert_eq!(typed_entities(&mut typed, &world), vec![f]);
    world.entity_mut(f).disable::<Walks>();
    assert!(rt.entities(&world).is_empty());
    assert!(typed_entities(&mut typed, &world).is_empty());
    world.entity_mut(g).disable::<Walks>();
    world.entity_mut(e).enable::<Walks>();
    assert_eq!(rt.entities(&world), vec![e]);
    assert_eq!(typed_entities(&mut typed, &world), vec![e]);
}

/// Rows for the or-chain tests: (has Foo, Foo on, has Bar, Bar on) per entity.
const OR_CASES: [(bool, bool, bool, bool); 8] = [
    (true, true, false, false),
    (true, false, false, false),
    (false, false, true, true),
    (false, false, true, false),
    (true, false, true, true),
    (true, false, true, false),
    (true, true, true, false),
    (true, true, true, true),
];

/// Spawns `OR_CASES` (each with `Tag`); returns each entity with the id that
/// should match `Foo || Bar` (the first enabled alternative), if any.
fn or_world(world: &mut World) -> Vec<(Entity, Option<Id>)> {
    let (foo_id, bar_id) = (cid::<Foo>(world), cid::<Bar>(world));
    let mut out = Vec::new();
    for &(has_foo, foo_on, has_bar, bar_on) in &OR_CASES {
        let e = world.spawn(Tag).id();
        if has_foo {
            world.entity_mut(e).insert(Foo);
            set_enabled::<Foo>(world, e, foo_on);
        }
        if has_bar {
            world.entity_mut(e).insert(Bar);
            set_enabled::<Bar>(world, e, bar_on);
        }
        let id = if has_foo && foo_on {
            Some(foo_id.id())
        } else if has_bar && bar_on {
            Some(bar_id.id())
        } else {
            None
        };
        out.push((e, id));
    }
    out
}

/// Typed or-filters of toggled tags: `Or<(With<Foo>, With<Bar>)>` matches a row
/// through Bar when its Foo is disabled (a disabled value counts as absent).
#[test]
fn or_filter_of_toggled_tags_typed() {
    let mut world = new_world();
    let cases = or_world(&mut world);
    let mut typed = world.query_filtered::<Entity, Or<(With<Foo>, With<Bar>)>>();
    let matched = sorted(cases.iter().filter(|c| c.1.is_some()).map(|c| c.0));
    assert_eq!(typed_entities(&mut typed, &world), matched);
    let mut neither = world.query_filtered::<Entity, (With<Tag>, Without<Foo>, Without<Bar>)>();
    assert_eq!(typed_entities(&mut neither, &world), sorted(cases.iter().filter(|c| c.1.is_none()).map(|c| c.0)));
    // Flip every bit; the same query objects follow.
    for (i, &(e, _)) in cases.iter().enumerate() {
        let (has_foo, foo_on, has_bar, bar_on) = OR_CASES[i];
        if has_foo {
            set_enabled::<Foo>(&mut world, e, !foo_on);
        }
        if has_bar {
            set_enabled::<Bar>(&mut world, e, !bar_on);
        }
    }
    let flipped = sorted(
        cases
            .iter()
            .enumerate()
            .filter(|(i, _)| {
                let (has_foo, foo_on, has_bar, bar_on) = OR_CASES[*i];
                (has_foo && !foo_on) || (has_bar && !bar_on)
            })
            .map(|(_, c)| c.0),
    );
    assert_eq!(typed_entities(&mut typed, &world), flipped);
}

/// The runtime or-chain `Foo || Bar` (DSL and builder `.with(foo_id).or(bar_id)`): a row
/// whose Foo is disabled but whose Bar is enabled should match through Bar, as
/// the typed `Or<(With<Foo>, With<Bar>)>` does and as API.md says ("a disabled
/// toggle component counts as absent for every term"; an or-chain takes the first
/// alternative that matches). Finding (fixed): the chain picked Foo for the
/// whole table and the disabled bit then dropped the row. (No Flecs test covers
/// a toggled alternative; the nearest is Toggle_this_toggle_after_or_chain.)
#[test]
fn or_chain_of_toggled_tags_runtime() {
    let mut world = new_world();
    let cases = or_world(&mut world);
    let (foo_id, bar_id) = (cid::<Foo>(&world), cid::<Bar>(&world));
    let mut rt = Rt::new(&world, "Foo || Bar", world.query_builder().with(foo_id).or(bar_id));
    let expected = sorted(cases.iter().filter_map(|&(e, id)| id.map(|id| (e, id))));
    assert_eq!(rt.rows(&world, |row| (row.entity(), row.id(0))), expected);
    let tag = cid::<Tag>(&world);
    let mut rt_tag = Rt::new(&world, "Foo || Tag", world.query_builder().with(foo_id).or(tag));
    let expected =
        sorted(cases.iter().map(|&(e, id)| (e, if id == Some(foo_id.id()) { foo_id.id() } else { tag.id() })));
    assert_eq!(rt_tag.rows(&world, |row| (row.entity(), row.id(0))), expected);
}

/// `Or<(Without<Foo>, With<Bar>)>` and `Or<(With<Foo>, With<Tag>)>`: typed or-filters
/// mixing a toggled presence test with others.
#[test]
fn or_filters_mixing_toggled_and_plain_terms() {
    let mut world = new_world();
    let a = world.spawn((Foo, Bar)).id(); // both on
    let b = world.spawn((Foo, Bar)).id(); // Foo off
    let c = world.spawn((Foo, Bar)).id(); // Bar off
    let d = world.spawn((Foo, Bar, Tag)).id(); // both off, Tag
    world.entity_mut(b).disable::<Foo>();
    world.entity_mut(c).disable::<Bar>();
    world.entity_mut(d).disable::<Foo>().disable::<Bar>();
    let mut q1 = world.query_filtered::<Entity, (With<Mass>, Or<(Without<Foo>, With<Bar>)>)>();
    let mut q1_all = world.query_filtered::<Entity, Or<(Without<Foo>, With<Bar>)>>();
    let mut q2 = world.query_filtered::<Entity, Or<(With<Foo>, With<Tag>)>>();
    assert!(typed_entities(&mut q1, &world).is_empty());
    let ours: Vec<Entity> =
        typed_entities(&mut q1_all, &world).into_iter().filter(|e| [a, b, c, d].contains(e)).collect();
    assert_eq!(ours, vec![a, b, d]);
    assert_eq!(typed_entities(&mut q2, &world), vec![a, c, d]);
    world.entity_mut(d).enable::<Foo>();
    world.entity_mut(b).enable::<Foo>().disable::<Bar>();
    let ours: Vec<Entity> =
        typed_entities(&mut q1_all, &world).into_iter().filter(|e| [a, b, c, d].contains(e)).collect();
    assert_eq!(ours, vec![a]);
    assert_eq!(typed_entities(&mut q2, &world), vec![a, b, c, d]);
}

// ================================================================== shared (up) sources

/// Flecs Toggle_this_toggle_shared_up: typed `Up<ChildOf, &Position>` and the builder's
/// `.read(p).up(child_of)`, one query object across the toggles.
#[test]
fn this_toggle_shared_up() {
    let mut world = new_world();
    let parent = world.spawn_empty().id();
    let e = world.spawn(ChildOf.pair(parent)).id();
    let (p, child_of) = (cid::<Position>(&world), cid::<ChildOf>(&world));
    let mut rt = Rt::new(&world, "Position(up ChildOf)", world.query_builder().read(p).up(child_of));
    let mut typed = world.query::<(Entity, Up<ChildOf, &Position>)>();
    let view = |row: &DynRow<'_>| (row.entity(), row.source(0), *row.get::<Position>(0).unwrap());
    assert!(rt.rows(&world, view).is_empty());
    assert_eq!(typed.iter(&world).count(), 0);
    world.entity_mut(parent).insert(Position { x: 10, y: 20 });
    let expected = vec![(e, parent, Position { x: 10, y: 20 })];
    assert_eq!(rt.rows(&world, view), expected);
    assert_eq!(sorted(typed.iter(&world).map(|(e, p)| (e, *p))), vec![(e, Position { x: 10, y: 20 })]);
    world.entity_mut(parent).disable::<Position>();
    assert!(rt.rows(&world, view).is_empty());
    assert_eq!(typed.iter(&world).count(), 0);
    world.entity_mut(parent).enable::<Position>();
    assert_eq!(rt.rows(&world, view), expected);
    assert_eq!(typed.iter(&world).count(), 1);
}

/// Flecs Toggle_this_toggle_shared_self_up: `Position(self|up ChildOf)` (builder `.self_up`).
#[test]
fn this_toggle_shared_self_up() {
    let mut world = new_world();
    let parent = world.spawn_empty().id();
    let e = world.spawn(ChildOf.pair(parent)).id();
    let (p, child_of) = (cid::<Position>(&world), cid::<ChildOf>(&world));
    let mut rt = Rt::new(&world, "Position(self|up ChildOf)", world.query_builder().read(p).self_up(child_of));
    let view = |row: &DynRow<'_>| (row.entity(), row.source(0), *row.get::<Position>(0).unwrap());
    assert!(rt.rows(&world, view).is_empty());
    world.entity_mut(parent).insert(Position { x: 10, y: 20 });
    let expected = sorted(vec![(parent, parent, Position { x: 10, y: 20 }), (e, parent, Position { x: 10, y: 20 })]);
    assert_eq!(rt.rows(&world, view), expected);
    world.entity_mut(parent).disable::<Position>();
    assert!(rt.rows(&world, view).is_empty());
    world.entity_mut(parent).enable::<Position>();
    assert_eq!(rt.rows(&world, view), expected);
}

/// The shared-with-self scenario of Toggle.c: `Position(up ChildOf)` (typed `Up`) with
/// an own, toggled `Velocity`.
fn shared_up_w_self(
    text: &str,
    builder: impl Fn(Entity, Entity, Entity) -> QueryBuilder,
    pos_term: usize,
    vel_term: usize,
    self_up: bool,
    toggle_velocity: bool,
) {
    let mut world = new_world();
    let parent = world.spawn_empty().id();
    let e = world.spawn(ChildOf.pair(parent)).id();
    let (p, v, child_of) = (cid::<Position>(&world), cid::<Velocity>(&world), cid::<ChildOf>(&world));
    let mut rt = Rt::new(&world, text, builder(p, v, child_of));
    let mut typed = world.query::<(Entity, Up<ChildOf, &Position>, &Velocity)>();
    let view = move |row: &DynRow<'_>| {
        (
            row.entity(),
            row.source(pos_term),
            *row.get::<Position>(pos_term).unwrap(),
            *row.get::<Velocity>(vel_term).unwrap(),
        )
    };
    assert!(rt.rows(&world, view).is_empty());
    world.entity_mut(parent).insert((Position { x: 10, y: 20 }, Velocity { x: 1, y: 2 }));
    world.entity_mut(e).insert(Velocity { x: 2, y: 4 });
    if toggle_velocity {
        world.entity_mut(parent).enable::<Velocity>();
        world.entity_mut(e).enable::<Velocity>();
    }
    let mut expected = vec![(e, parent, Position { x: 10, y: 20 }, Velocity { x: 2, y: 4 })];
    if self_up {
        expected.push((parent, parent, Position { x: 10, y: 20 }, Velocity { x: 1, y: 2 }));
    }
    let expected = sorted(expected);
    let typed_rows = |q: &mut QueryState<(Entity, Up<ChildOf, &Position>, &Velocity)>, w: &World| {
        sorted(q.iter(w).map(|(e, p, v)| (e, *p, *v)))
    };
    let typed_expected = vec![(e, Position { x: 10, y: 20 }, Velocity { x: 2, y: 4 })];
    assert_eq!(rt.rows(&world, view), expected);
    assert_eq!(typed_rows(&mut typed, &world), typed_expected);
    world.entity_mut(parent).disable::<Position>();
    assert!(rt.rows(&world, view).is_empty());
    assert!(typed_rows(&mut typed, &world).is_empty());
    world.entity_mut(parent).enable::<Position>();
    assert_eq!(rt.rows(&world, view), expected);
    assert_eq!(typed_rows(&mut typed, &world), typed_expected);
    if toggle_velocity {
        // The child's own Velocity toggles its row alone.
        world.entity_mut(e).disable::<Velocity>();
        let without_e: Vec<_> = expected.iter().copied().filter(|row| row.0 != e).collect();
        assert_eq!(rt.rows(&world, view), without_e);
        assert!(typed_rows(&mut typed, &world).is_empty());
    }
}

/// Flecs Toggle_this_toggle_shared_up_w_self: `Position(up ChildOf), Velocity`.
#[test]
fn this_toggle_shared_up_w_self() {
    shared_up_w_self(
        "Position(up ChildOf), Velocity",
        |p, v, c| QueryBuilder::new().read(p).up(c).read(v),
        0,
        1,
        false,
        false,
    );
}

/// Flecs Toggle_this_toggle_shared_self_up_w_self: `Position(self|up ChildOf), Velocity`.
#[test]
fn this_toggle_shared_self_up_w_self() {
    shared_up_w_self(
        "Position(self|up ChildOf), Velocity",
        |p, v, c| QueryBuilder::new().read(p).self_up(c).read(v),
        0,
        1,
        true,
        false,
    );
}

/// Flecs Toggle_this_toggle_shared_up_w_self_reverse: `Velocity, Position(up ChildOf)`.
#[test]
fn this_toggle_shared_up_w_self_reverse() {
    shared_up_w_self(
        "Velocity, Position(up ChildOf)",
        |p, v, c| QueryBuilder::new().read(v).read(p).up(c),
        1,
        0,
        false,
        false,
    );
}

/// Flecs Toggle_this_toggle_shared_self_up_w_self_reverse: `Velocity, Position(self|up ChildOf)`.
#[test]
fn this_toggle_shared_self_up_w_self_reverse() {
    shared_up_w_self(
        "Velocity, Position(self|up ChildOf)",
        |p, v, c| QueryBuilder::new().read(v).read(p).self_up(c),
        1,
        0,
        true,
        false,
    );
}

/// Flecs Toggle_this_toggle_shared_up_w_self_toggle: Velocity toggled on both entities.
#[test]
fn this_toggle_shared_up_w_self_toggle() {
    shared_up_w_self(
        "Position(up ChildOf), Velocity",
        |p, v, c| QueryBuilder::new().read(p).up(c).read(v),
        0,
        1,
        false,
        true,
    );
}

/// Flecs Toggle_this_toggle_shared_self_up_w_self_toggle.
#[test]
fn this_toggle_shared_self_up_w_self_toggle() {
    shared_up_w_self(
        "Position(self|up ChildOf), Velocity",
        |p, v, c| QueryBuilder::new().read(p).self_up(c).read(v),
        0,
        1,
        true,
        true,
    );
}

/// Flecs Toggle_this_toggle_shared_up_w_self_toggle_reverse.
#[test]
fn this_toggle_shared_up_w_self_toggle_reverse() {
    shared_up_w_self(
        "Velocity, Position(up ChildOf)",
        |p, v, c| QueryBuilder::new().read(v).read(p).up(c),
        1,
        0,
        false,
        true,
    );
}

/// Flecs Toggle_this_toggle_shared_self_up_w_self_toggle_reverse.
#[test]
fn this_toggle_shared_self_up_w_self_toggle_reverse() {
    shared_up_w_self(
        "Velocity, Position(self|up ChildOf)",
        |p, v, c| QueryBuilder::new().read(v).read(p).self_up(c),
        1,
        0,
        true,
        true,
    );
}

/// Flecs Toggle_this_toggle_not_shared_up / _self_up: `Foo, !Position(up ChildOf)` through
/// the builder (`.without(p).up(child_of)`), one query object across changes.
#[test]
fn this_toggle_not_shared_up_and_self_up() {
    let mut world = new_world();
    let parent = world.spawn(Foo).id();
    let e = world.spawn((Foo, ChildOf.pair(parent))).id();
    let (foo_id, p, child_of) = (cid::<Foo>(&world), cid::<Position>(&world), cid::<ChildOf>(&world));
    let mut up =
        Rt::new(&world, "Foo, !Position(up ChildOf)", world.query_builder().with(foo_id).without(p).up(child_of));
    let mut self_up = Rt::new(
        &world,
        "Foo, !Position(self|up ChildOf)",
        world.query_builder().with(foo_id).without(p).self_up(child_of),
    );
    let all = sorted(vec![(parent, vec![true, false]), (e, vec![true, false])]);
    assert_eq!(up.set(&world, 2), all);
    assert_eq!(self_up.set(&world, 2), all);
    world.entity_mut(parent).insert(Position { x: 10, y: 20 });
    assert_eq!(up.set(&world, 2), vec![(parent, vec![true, false])]);
    assert!(self_up.set(&world, 2).is_empty());
    world.entity_mut(parent).disable::<Position>();
    assert_eq!(up.set(&world, 2), all);
    assert_eq!(self_up.set(&world, 2), all);
    world.entity_mut(parent).enable::<Position>();
    assert_eq!(up.set(&world, 2), vec![(parent, vec![true, false])]);
    assert!(self_up.set(&world, 2).is_empty());
    // Foo toggles the rows themselves.
    world.entity_mut(parent).disable::<Position>().disable::<Foo>();
    assert_eq!(up.set(&world, 2), vec![(e, vec![true, false])]);
}

/// Flecs Toggle_this_toggle_optional_shared_up / _self_up: typed
/// `Option<Up<ChildOf, &Position>>` and the builder's `.optional(p).up(child_of)`.
#[test]
fn this_toggle_optional_shared_up_and_self_up() {
    let mut world = new_world();
    let parent = world.spawn(Foo).id();
    let e = world.spawn((Foo, ChildOf.pair(parent))).id();
    let (foo_id, p, child_of) = (cid::<Foo>(&world), cid::<Position>(&world), cid::<ChildOf>(&world));
    let mut up =
        Rt::new(&world, "Foo, ?Position(up ChildOf)", world.query_builder().with(foo_id).optional(p).up(child_of));
    let mut self_up = Rt::new(
        &world,
        "Foo, ?Position(self|up ChildOf)",
        world.query_builder().with(foo_id).optional(p).self_up(child_of),
    );
    let mut typed = world.query_filtered::<(Entity, Option<Up<ChildOf, &Position>>), With<Foo>>();
    let typed_rows = |q: &mut OptUpQuery, w: &World| sorted(q.iter(w).map(|(e, p)| (e, p.copied())));
    let unset = sorted(vec![(parent, vec![true, false]), (e, vec![true, false])]);
    assert_eq!(up.set(&world, 2), unset);
    assert_eq!(self_up.set(&world, 2), unset);
    assert_eq!(typed_rows(&mut typed, &world), sorted(vec![(parent, None), (e, None)]));
    world.entity_mut(parent).insert(Position { x: 10, y: 20 });
    assert_eq!(up.set(&world, 2), sorted(vec![(parent, vec![true, false]), (e, vec![true, true])]));
    assert_eq!(self_up.set(&world, 2), sorted(vec![(parent, vec![true, true]), (e, vec![true, true])]));
    assert_eq!(
        self_up.rows(&world, |row| (row.entity(), row.source(1), row.get::<Position>(1).copied())),
        sorted(vec![(parent, parent, Some(Position { x: 10, y: 20 })), (e, parent, Some(Position { x: 10, y: 20 }))])
    );
    assert_eq!(typed_rows(&mut typed, &world), sorted(vec![(parent, None), (e, Some(Position { x: 10, y: 20 }))]));
    world.entity_mut(parent).disable::<Position>();
    assert_eq!(up.set(&world, 2), unset);
    assert_eq!(self_up.set(&world, 2), unset);
    assert_eq!(typed_rows(&mut typed, &world), sorted(vec![(parent, None), (e, None)]));
    world.entity_mut(parent).enable::<Position>();
    assert_eq!(typed_rows(&mut typed, &world), sorted(vec![(parent, None), (e, Some(Position { x: 10, y: 20 }))]));
}

/// `up` walks past an ancestor whose value is disabled to the next one that has
/// it enabled (a disabled value counts as absent for every term), typed and runtime.
#[test]
fn up_skips_a_disabled_ancestor() {
    let mut world = new_world();
    let gp = world.spawn(pos(1)).id();
    let parent = world.spawn((pos(2), ChildOf.pair(gp))).id();
    let e = world.spawn(ChildOf.pair(parent)).id();
    let (p, child_of) = (cid::<Position>(&world), cid::<ChildOf>(&world));
    let mut rt = Rt::new(&world, "Position(up ChildOf)", world.query_builder().read(p).up(child_of));
    let mut typed = world.query::<(Entity, Up<ChildOf, &Position>)>();
    let view = |row: &DynRow<'_>| (row.entity(), row.source(0), *row.get::<Position>(0).unwrap());
    let typed_rows =
        |q: &mut QueryState<(Entity, Up<ChildOf, &Position>)>, w: &World| sorted(q.iter(w).map(|(e, p)| (e, *p)));
    assert_eq!(rt.rows(&world, view), sorted(vec![(parent, gp, pos(1)), (e, parent, pos(2))]));
    assert_eq!(typed_rows(&mut typed, &world), sorted(vec![(parent, pos(1)), (e, pos(2))]));
    world.entity_mut(parent).disable::<Position>();
    assert_eq!(rt.rows(&world, view), sorted(vec![(parent, gp, pos(1)), (e, gp, pos(1))]));
    assert_eq!(typed_rows(&mut typed, &world), sorted(vec![(parent, pos(1)), (e, pos(1))]));
    world.entity_mut(gp).disable::<Position>();
    assert!(rt.rows(&world, view).is_empty());
    assert!(typed_rows(&mut typed, &world).is_empty());
    world.entity_mut(parent).enable::<Position>();
    assert_eq!(rt.rows(&world, view), vec![(e, parent, pos(2))]);
    assert_eq!(typed_rows(&mut typed, &world), vec![(e, pos(2))]);
}

/// `self|up` with an own, disabled value: the row is matched on itself and its
/// disabled bit removes it; it does not fall back to the parent's value (as in Flecs,
/// whose `self_up` yields the table on self and the toggle instruction drops the row).
#[test]
fn self_up_with_a_disabled_own_value_does_not_read_the_parents() {
    let mut world = new_world();
    let parent = world.spawn(pos(1)).id();
    let e = world.spawn((pos(2), ChildOf.pair(parent))).id();
    let other = world.spawn(ChildOf.pair(parent)).id();
    let (p, child_of) = (cid::<Position>(&world), cid::<ChildOf>(&world));
    let mut rt = Rt::new(&world, "Position(self|up ChildOf)", world.query_builder().read(p).self_up(child_of));
    let view = |row: &DynRow<'_>| (row.entity(), row.source(0), *row.get::<Position>(0).unwrap());
    let all = sorted(vec![(parent, parent, pos(1)), (e, e, pos(2)), (other, parent, pos(1))]);
    assert_eq!(rt.rows(&world, view), all);
    world.entity_mut(e).disable::<Position>();
    assert_eq!(rt.rows(&world, view), sorted(vec![(parent, parent, pos(1)), (other, parent, pos(1))]));
    world.entity_mut(parent).disable::<Position>();
    assert!(rt.rows(&world, view).is_empty());
    world.entity_mut(e).enable::<Position>();
    assert_eq!(rt.rows(&world, view), vec![(e, e, pos(2))]);
    world.entity_mut(parent).enable::<Position>();
    assert_eq!(rt.rows(&world, view), all);
}

/// Many children in one table under one parent: toggling the parent hides
/// all of them at once; toggling one child's own Velocity hides only that row.
#[test]
fn up_with_many_children_and_own_toggles() {
    let mut world = new_world();
    let parent = world.spawn(pos(100)).id();
    let kids: Vec<Entity> =
        (0..150).map(|i| world.spawn((Velocity { x: i, y: i }, ChildOf.pair(parent))).id()).collect();
    for (i, &k) in kids.iter().enumerate() {
        if i % 7 == 3 || i == 63 || i == 64 {
            world.entity_mut(k).disable::<Velocity>();
        }
    }
    let expected: Vec<Entity> =
        sorted(kids.iter().enumerate().filter(|(i, _)| !(i % 7 == 3 || *i == 63 || *i == 64)).map(|(_, &k)| k));
    let (p, v, child_of) = (cid::<Position>(&world), cid::<Velocity>(&world), cid::<ChildOf>(&world));
    let mut rt = Rt::new(&world, "Velocity, Position(up ChildOf)", world.query_builder().read(v).read(p).up(child_of));
    let mut typed = world.query::<(Entity, &Velocity, Up<ChildOf, &Position>)>();
    assert_eq!(rt.entities(&world), expected);
    let rows = sorted(typed.iter(&world).map(|(e, v, p)| (e, v.x, p.x)));
    assert_eq!(rows.iter().map(|r| r.0).collect::<Vec<_>>(), expected);
    assert!(rows.iter().all(|r| r.2 == 100));
    world.entity_mut(parent).disable::<Position>();
    assert!(rt.entities(&world).is_empty());
    assert_eq!(typed.iter(&world).count(), 0);
    world.entity_mut(parent).enable::<Position>();
    assert_eq!(rt.entities(&world), expected);
    assert_eq!(typed.iter(&world).count(), expected.len());
}

// ================================================================== bit patterns

/// Flecs `test_disable_toggle_mod` / `test_enable_toggle_mod` run through typed and
/// builder queries that are built **before** the entities and reused for every
/// pattern: `total` toggled entities, then `total` untouched ones.
#[test]
fn n_mod_m_typed_and_builder() {
    for total in [64, 100, 128, 200, 1024] {
        let mut world = new_world();
        let p = cid::<Position>(&world);
        let mut rt = Rt::new(&world, "Position", world.query_builder().read(p));
        let mut read = world.query::<(Entity, &Position)>();
        let mut without = world.query_filtered::<Entity, (With<Tag>, Without<Position>)>();
        let toggled: Vec<Entity> = (0..total).map(|i| world.spawn((pos(i), Tag)).id()).collect();
        let untouched: Vec<Entity> = (0..total).map(|i| world.spawn((pos(total + i), Tag)).id()).collect();
        for modulo in [1, 2, 3, 7, 8, 10, 64, 256, 1024] {
            for enable_mod in [false, true] {
                let mut expected = untouched.clone();
                let mut disabled = Vec::new();
                for (i, &e) in toggled.iter().enumerate() {
                    let on = (i as i32 % modulo == 0) == enable_mod;
                    if on {
                        world.entity_mut(e).enable::<Position>();
                        expected.push(e);
                    } else {
                        world.entity_mut(e).disable::<Position>();
                        disabled.push(e);
                    }
                }
                let expected = sorted(expected);
                let what = format!("total {total} mod {modulo} enable_mod {enable_mod}");
                assert_eq!(rt.entities(&world), expected, "{what}");
                let rows = sorted(read.iter(&world).map(|(e, p)| (e, *p)));
                assert_eq!(rows.iter().map(|r| r.0).collect::<Vec<_>>(), expected, "{what}");
                for (e, p) in rows {
                    assert_eq!(world.get::<Position>(e), Some(&p), "{what}");
                }
                assert_eq!(typed_entities(&mut without, &world), sorted(disabled), "{what}");
                assert_eq!(read.iter(&world).len(), expected.len(), "{what}: QueryIter::len");
            }
        }
    }
}

/// Flecs Toggle_this_mod_*_2_bitsets through `(Entity, Has<Position>, Option<&Velocity>)`
/// (every row comes, the flags tell) and `(&Position, &Velocity)`.
#[test]
fn two_bitsets_has_and_option() {
    for (a, b) in [(2, 3), (8, 4), (64, 16), (256, 64), (1024, 128)] {
        let mut world = new_world();
        let mut model = Vec::new();
        for i in 0..4096 {
            let e = world.spawn((pos(i), Velocity { x: i, y: -i })).id();
            let (pa, vb) = (i % a == 0, i % b == 0);
            if !pa {
                world.entity_mut(e).disable::<Position>();
            }
            if !vb {
                world.entity_mut(e).disable::<Velocity>();
            }
            model.push((e, pa, vb.then_some(Velocity { x: i, y: -i })));
        }
        let mut flags = world.query::<(Entity, Has<Position>, Option<&Velocity>)>();
        let got =
            sorted(flags.iter(&world).filter(|(e, ..)| world.has::<Position>(*e)).map(|(e, h, v)| (e, h, v.copied())));
        assert_eq!(got, sorted(model.clone()), "mod {a} {b}");
        let mut both = world.query::<(Entity, &Position, &Velocity)>();
        let expected = sorted(model.iter().filter(|m| m.1 && m.2.is_some()).map(|m| m.0));
        assert_eq!(sorted(both.iter(&world).map(|(e, ..)| e)), expected, "mod {a} {b}");
        let (p, v) = (cid::<Position>(&world), cid::<Velocity>(&world));
        let mut rt = Rt::new(&world, "Position, ?Velocity", world.query_builder().read(p).optional(v));
        let rows = rt.rows(&world, |row| (row.entity(), row.is_set(1)));
        let expected = sorted(model.iter().filter(|m| m.1).map(|m| (m.0, m.2.is_some())));
        assert_eq!(rows, expected, "mod {a} {b}");
    }
}

/// A small deterministic generator (Flecs uses `rand()`).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn bit(&mut self) -> bool {
        self.next() & 1 == 1
    }
}

/// Flecs Toggle_this_randomized_{2,3,4}_bitsets through typed tuples of 2..4 toggled
/// terms, re-randomized between iterations of the same query objects.
#[test]
fn randomized_bitsets_typed_reused() {
    let mut rng = Lcg(0xfeed);
    let mut world = new_world();
    let es: Vec<Entity> = (0..3000).map(|i| world.spawn((pos(i), Velocity::default(), Mass(i), Foo)).id()).collect();
    let mut q2 = world.query::<(Entity, &Position, &Velocity)>();
    let mut q3 = world.query::<(Entity, &Position, &Velocity, &Mass)>();
    let mut q4 = world.query_filtered::<(Entity, &Position, &Velocity, &Mass), With<Foo>>();
    let (p, v, m, f) = (cid::<Position>(&world), cid::<Velocity>(&world), cid::<Mass>(&world), cid::<Foo>(&world));
    let mut rt =
        Rt::new(&world, "Position, Velocity, Mass, Foo", world.query_builder().read(p).read(v).read(m).with(f));
    for round in 0..4 {
        let mut bits = Vec::new();
        for &e in &es {
            let b: [bool; 4] = [rng.bit(), rng.bit(), rng.bit(), rng.bit()];
            let mut entity = world.entity_mut(e);
            if b[0] {
                entity.enable::<Position>()
            } else {
                entity.disable::<Position>()
            };
            if b[1] {
                entity.enable::<Velocity>()
            } else {
                entity.disable::<Velocity>()
            };
            if b[2] {
                entity.enable::<Mass>()
            } else {
                entity.disable::<Mass>()
            };
            if b[3] {
                entity.enable::<Foo>()
            } else {
                entity.disable::<Foo>()
            };
            bits.push((e, b));
        }
        let want = |n: usize| sorted(bits.iter().filter(|(_, b)| b[..n].iter().all(|&x| x)).map(|(e, _)| *e));
        assert_eq!(sorted(q2.iter(&world).map(|r| r.0)), want(2), "round {round}");
        assert_eq!(sorted(q3.iter(&world).map(|r| r.0)), want(3), "round {round}");
        assert_eq!(sorted(q4.iter(&world).map(|r| r.0)), want(4), "round {round}");
        assert_eq!(rt.entities(&world), want(4), "round {round}");
    }
}

/// Flecs Toggle_this_w_other_tag / this_w_other_component through typed queries.
#[test]
fn this_w_other_tag_and_component_typed() {
    let mut world = new_world();
    let mut with_tag = Vec::new();
    let mut with_vel = Vec::new();
    for i in 0..1024 {
        let e = world.spawn(pos(i)).id();
        if i % 3 == 0 {
            world.entity_mut(e).disable::<Position>();
        }
        if i % 5 == 0 {
            world.entity_mut(e).insert(Tag);
            if i % 3 != 0 {
                with_tag.push(e);
            }
        }
        if i % 4 == 0 {
            world.entity_mut(e).insert(Velocity { x: i * 2, y: i * 2 });
            if i % 3 != 0 {
                with_vel.push(e);
            }
        }
    }
    let mut tag = world.query_filtered::<(Entity, &Position), With<Tag>>();
    assert_eq!(sorted(tag.iter(&world).map(|(e, _)| e)), sorted(with_tag.clone()));
    let mut vel = world.query::<(Entity, &Position, &Velocity)>();
    let mut seen = Vec::new();
    for (e, p, v) in vel.iter(&world) {
        assert_eq!(*v, Velocity { x: p.x * 2, y: p.y * 2 });
        assert!(p.x % 3 != 0 && p.x % 4 == 0);
        seen.push(e);
    }
    assert_eq!(sorted(seen), sorted(with_vel));
    let (p, t) = (cid::<Position>(&world), cid::<Tag>(&world));
    let mut rt = Rt::new(&world, "Position, Tag", world.query_builder().read(p).with(t));
    assert_eq!(rt.entities(&world), sorted(with_tag));
}

/// Flecs Toggle_this_not: typed `Without<Position>` and builder `.without(p)`.
#[test]
fn this_not_typed_and_builder() {
    let mut world = new_world();
    let mut disabled = Vec::new();
    for i in 0..1024 {
        let e = world.spawn((pos(i), Tag)).id();
        if i % 3 == 0 {
            world.entity_mut(e).disable::<Position>();
            disabled.push(e);
        } else {
            world.entity_mut(e).enable::<Position>();
        }
    }
    let bare = world.spawn(Tag).id();
    disabled.push(bare);
    let disabled = sorted(disabled);
    let (p, t) = (cid::<Position>(&world), cid::<Tag>(&world));
    let mut rt = Rt::new(&world, "Tag, !Position", world.query_builder().with(t).without(p));
    assert_eq!(rt.set(&world, 2), disabled.iter().map(|&e| (e, vec![true, false])).collect::<Vec<_>>());
    let mut typed = world.query_filtered::<Entity, (With<Tag>, Without<Position>)>();
    assert_eq!(typed_entities(&mut typed, &world), disabled);
}

/// Flecs Toggle_this_written_not_1024_mod_*: `Tag, !Position` over toggled, absent and
/// untoggled Position, typed `(With<Tag>, Without<Position>)`.
#[test]
fn written_not_1024_mod_m_typed() {
    for modulo in [2, 3, 7, 8, 10, 64, 256, 1024] {
        let mut world = new_world();
        let mut expected = Vec::new();
        for i in 0..1024 {
            let e = world.spawn((pos(i), Tag)).id();
            if i % modulo == 0 {
                world.entity_mut(e).disable::<Position>();
                expected.push(e);
            }
        }
        for _ in 0..1024 {
            expected.push(world.spawn(Tag).id());
        }
        for i in 0..1024 {
            world.spawn((pos(i), Tag));
        }
        let mut typed = world.query_filtered::<Entity, (With<Tag>, Without<Position>)>();
        assert_eq!(typed_entities(&mut typed, &world), sorted(expected.clone()), "mod {modulo}");
        let (p, t) = (cid::<Position>(&world), cid::<Tag>(&world));
        let mut rt = Rt::new(&world, "Tag, !Position", world.query_builder().with(t).without(p));
        assert_eq!(rt.entities(&world), sorted(expected), "mod {modulo}");
    }
}

/// Flecs Toggle_this_optional / this_written_optional_1024_mod_*: typed
/// `(Entity, Option<&Position>)` with `With<Tag>`.
#[test]
fn written_optional_1024_mod_m_typed() {
    for modulo in [2, 3, 7, 8, 10, 64, 256, 1024] {
        let mut world = new_world();
        let mut expected = Vec::new();
        for i in 0..1024 {
            let e = world.spawn((pos(i), Tag)).id();
            if i % modulo == 0 {
                expected.push((e, Some(pos(i))));
            } else {
                world.entity_mut(e).disable::<Position>();
                expected.push((e, None));
            }
        }
        for _ in 0..1024 {
            expected.push((world.spawn(Tag).id(), None));
        }
        for i in 0..1024 {
            expected.push((world.spawn((pos(i), Tag)).id(), Some(pos(i))));
        }
        let expected = sorted(expected);
        let mut typed = world.query_filtered::<(Entity, Option<&Position>), With<Tag>>();
        assert_eq!(sorted(typed.iter(&world).map(|(e, p)| (e, p.copied()))), expected, "mod {modulo}");
        let (p, t) = (cid::<Position>(&world), cid::<Tag>(&world));
        let mut rt = Rt::new(&world, "Tag, ?Position", world.query_builder().with(t).optional(p));
        assert_eq!(rt.rows(&world, |row| (row.entity(), row.get::<Position>(1).copied())), expected, "mod {modulo}");
    }
}

/// Flecs Toggle_this_table_move_2_from_3: typed and builder, queries built first.
#[test]
fn this_table_move_2_from_3() {
    let mut world = new_world();
    let p = cid::<Position>(&world);
    let mut rt = Rt::new(&world, "Position", world.query_builder().read(p));
    let mut typed = world.query::<(Entity, &Position)>();
    let e1 = world.spawn(Position { x: 10, y: 20 }).id();
    let e2 = world.spawn(Position { x: 20, y: 30 }).id();
    let e3 = world.spawn(Position { x: 30, y: 40 }).id();
    world.entity_mut(e1).enable::<Position>();
    world.entity_mut(e2).disable::<Position>();
    world.entity_mut(e3).enable::<Position>();
    let expected = sorted(vec![(e1, Position { x: 10, y: 20 }), (e3, Position { x: 30, y: 40 })]);
    assert_eq!(sorted(typed.iter(&world).map(|(e, p)| (e, *p))), expected);
    world.entity_mut(e3).insert(Tag);
    world.entity_mut(e2).insert(Tag);
    assert!(world.is_enabled::<Position>(e1));
    assert!(!world.is_enabled::<Position>(e2));
    assert!(world.is_enabled::<Position>(e3));
    assert_eq!(rt.rows(&world, |row| (row.entity(), *row.get::<Position>(0).unwrap())), expected);
    assert_eq!(sorted(typed.iter(&world).map(|(e, p)| (e, *p))), expected);
    let mut tagged = world.query_filtered::<(Entity, &Position), With<Tag>>();
    assert_eq!(sorted(tagged.iter(&world).map(|(e, _)| e)), vec![e3]);
}

/// Flecs Toggle_remove_toggle_from_table_w_other_toggle_and_entity, adapted:
/// removing a disabled Position forgets its bit (a new value starts enabled)
/// and leaves Velocity's bits and the other entity's bits alone.
#[test]
fn remove_toggled_component_from_table_w_other_toggle_and_entity() {
    let mut world = new_world();
    let mut pv = world.query::<(Entity, Has<Position>, Has<Velocity>)>();
    let e1 = world.spawn((Position::default(), Velocity::default())).id();
    world.entity_mut(e1).disable::<Position>().disable::<Velocity>();
    let e2 = world.spawn((Position::default(), Velocity::default())).id();
    world.entity_mut(e2).disable::<Position>().enable::<Velocity>();
    world.entity_mut(e1).remove::<Position>();
    assert!(!world.has::<Position>(e1));
    assert!(!world.is_enabled::<Velocity>(e1));
    assert!(!world.is_enabled::<Position>(e2));
    assert!(world.is_enabled::<Velocity>(e2));
    let flags = |q: &mut QueryState<(Entity, Has<Position>, Has<Velocity>)>, w: &World| {
        sorted(q.iter(w).filter(|(e, ..)| *e == e1 || *e == e2))
    };
    assert_eq!(flags(&mut pv, &world), vec![(e1, false, false), (e2, false, true)]);
    world.entity_mut(e1).insert(Position::default());
    assert!(world.is_enabled::<Position>(e1));
    assert!(!world.is_enabled::<Velocity>(e1));
    assert_eq!(flags(&mut pv, &world), vec![(e1, true, false), (e2, false, true)]);
    let (p, v) = (cid::<Position>(&world), cid::<Velocity>(&world));
    let mut rt = Rt::new(&world, "?Position, Velocity", world.query_builder().optional(p).read(v));
    assert_eq!(rt.set(&world, 2), vec![(e2, vec![false, true])]);
}

/// Flecs Toggle_this_sort, adapted (no `order_by`): `cascade::<ChildOf>()` yields the
/// enabled rows only, parents first.
#[test]
fn this_sort_adapted_cascade() {
    let mut world = new_world();
    let root = world.spawn(Position { x: 0, y: 2 }).id();
    let mid_a = world.spawn((Position { x: 1, y: 2 }, ChildOf.pair(root))).id();
    let mid_b = world.spawn((Position { x: 1, y: 3 }, ChildOf.pair(root))).id();
    let leaf = world.spawn((Position { x: 2, y: 2 }, ChildOf.pair(mid_a))).id();
    world.entity_mut(mid_b).disable::<Position>();
    let mut q = world.query::<(Entity, &Position)>().cascade::<ChildOf>();
    let order: Vec<Entity> = q.iter(&world).map(|(e, _)| e).collect();
    assert_eq!(order, vec![root, mid_a, leaf]);
    world.entity_mut(root).disable::<Position>();
    world.entity_mut(mid_b).enable::<Position>();
    let order: Vec<(Entity, i32)> = q.iter(&world).map(|(e, p)| (e, p.x)).collect();
    assert_eq!(order.iter().map(|r| r.1).collect::<Vec<_>>(), vec![1, 1, 2]);
    assert_eq!(sorted(order.iter().map(|r| r.0)), sorted(vec![mid_a, mid_b, leaf]));
    assert!(world.is_enabled::<Position>(mid_b) && !world.is_enabled::<Position>(root));
}

// ================================================================== written combinations

/// One component's state on an entity of the combination tests.
#[derive(Clone, Copy, PartialEq, Debug)]
enum State {
    Absent,
    On,
    Off,
}

/// Term operators of the combination tests.
#[derive(Clone, Copy)]
enum Op {
    And,
    Not,
    Opt,
}

type SetRows = Vec<(Entity, Vec<bool>)>;
type Typed = Box<dyn FnMut(&World) -> SetRows>;

/// Flecs Toggle_this_written_*: entities with `Tag` and every combination of
/// absent / enabled / disabled Position, Velocity (and Mass when `three`), plus
/// one entity without Tag. The typed query (built by `typed`) and the runtime
/// builds are checked, then every bit flips and the same objects are checked again.
fn written_combination(terms: &[(&str, Op)], three: bool, typed: impl FnOnce(&mut World) -> Typed) {
    let mut world = new_world();
    let n = if three { 3 } else { 2 };
    let mut model: Vec<(Entity, Vec<State>)> = Vec::new();
    for code in 0..3usize.pow(n) {
        let states: Vec<State> =
            (0..n).map(|k| [State::Absent, State::On, State::Off][code / 3usize.pow(k) % 3]).collect();
        let e = world.spawn(Tag).id();
        for (k, &state) in states.iter().enumerate() {
            if state != State::Absent {
                match k {
                    0 => world.entity_mut(e).insert(pos(code as i32)),
                    1 => world.entity_mut(e).insert(Velocity::default()),
                    _ => world.entity_mut(e).insert(Mass(0)),
                };
            }
        }
        model.push((e, states));
    }
    world.spawn((Position::default(), Velocity::default(), Mass(0)));
    let ids = [cid::<Position>(&world), cid::<Velocity>(&world), cid::<Mass>(&world)];
    let index = |name: &str| ["Position", "Velocity", "Mass"].iter().position(|&n| n == name).unwrap();
    let mut builder = world.query_builder().with(cid::<Tag>(&world));
    for &(name, op) in terms {
        let id = ids[index(name)];
        builder = match op {
            Op::And => builder.read(id),
            Op::Not => builder.without(id),
            Op::Opt => builder.optional(id),
        };
    }
    let text = std::iter::once("Tag".to_string())
        .chain(terms.iter().map(|&(name, op)| match op {
            Op::And => name.to_string(),
            Op::Not => format!("!{name}"),
            Op::Opt => format!("?{name}"),
        }))
        .collect::<Vec<_>>()
        .join(", ");
    let mut rt = Rt::new(&world, &text, builder);
    let mut typed = typed(&mut world);
    for round in 0..2 {
        for (e, states) in &mut model {
            for (k, state) in states.iter_mut().enumerate() {
                if round == 1 {
                    *state = match *state {
                        State::On => State::Off,
                        State::Off => State::On,
                        State::Absent => State::Absent,
                    };
                }
                let mut entity = world.entity_mut(*e);
                match (k, *state) {
                    (_, State::Absent) => {}
                    (0, State::On) => drop(entity.enable::<Position>()),
                    (0, State::Off) => drop(entity.disable::<Position>()),
                    (1, State::On) => drop(entity.enable::<Velocity>()),
                    (1, State::Off) => drop(entity.disable::<Velocity>()),
                    (_, State::On) => drop(entity.enable::<Mass>()),
                    (_, State::Off) => drop(entity.disable::<Mass>()),
                }
            }
        }
        let mut expected = Vec::new();
        'entities: for (e, states) in &model {
            let mut set = vec![true];
            for &(name, op) in terms {
                let on = states[index(name)] == State::On;
                match op {
                    Op::And if !on => continue 'entities,
                    Op::Not if on => continue 'entities,
                    Op::And => set.push(true),
                    Op::Not => set.push(false),
                    Op::Opt => set.push(on),
                }
            }
            expected.push((*e, set));
        }
        let expected = sorted(expected);
        assert!(!expected.is_empty());
        assert_eq!(rt.set(&world, terms.len() + 1), expected, "{text} round {round}");
        assert_eq!(sorted(typed(&world)), expected, "typed {text} round {round}");
    }
}

/// Flecs Toggle_this_written_toggle_w_not_toggle: `Tag, Position, !Velocity`.
#[test]
fn written_toggle_w_not_toggle() {
    written_combination(&[("Position", Op::And), ("Velocity", Op::Not)], false, |w| {
        let mut q = w.query_filtered::<(Entity, &Position), (With<Tag>, Without<Velocity>)>();
        Box::new(move |w| q.iter(w).map(|(e, _)| (e, vec![true, true, false])).collect())
    });
}

/// Flecs Toggle_this_written_not_toggle_w_toggle: `Tag, !Velocity, Position`.
#[test]
fn written_not_toggle_w_toggle() {
    written_combination(&[("Velocity", Op::Not), ("Position", Op::And)], false, |w| {
        let mut q = w.query_filtered::<(Entity, &Position), (Without<Velocity>, With<Tag>)>();
        Box::new(move |w| q.iter(w).map(|(e, _)| (e, vec![true, false, true])).collect())
    });
}

/// Flecs Toggle_this_written_toggle_w_optional_toggle: `Tag, Position, ?Velocity`.
#[test]
fn written_toggle_w_optional_toggle() {
    written_combination(&[("Position", Op::And), ("Velocity", Op::Opt)], false, |w| {
        let mut q = w.query_filtered::<(Entity, &Position, Option<&Velocity>), With<Tag>>();
        Box::new(move |w| q.iter(w).map(|(e, _, v)| (e, vec![true, true, v.is_some()])).collect())
    });
}

/// Flecs Toggle_this_written_optional_toggle_w_toggle: `Tag, ?Velocity, Position`.
#[test]
fn written_optional_toggle_w_toggle() {
    written_combination(&[("Velocity", Op::Opt), ("Position", Op::And)], false, |w| {
        let mut q = w.query_filtered::<(Entity, Option<&Velocity>, &Position), With<Tag>>();
        Box::new(move |w| q.iter(w).map(|(e, v, _)| (e, vec![true, v.is_some(), true])).collect())
    });
}

/// Flecs Toggle_this_written_not_w_optional_toggle: `Tag, !Velocity, ?Position`.
#[test]
fn written_not_w_optional_toggle() {
    written_combination(&[("Velocity", Op::Not), ("Position", Op::Opt)], false, |w| {
        let mut q = w.query_filtered::<(Entity, Option<&Position>), (With<Tag>, Without<Velocity>)>();
        Box::new(move |w| q.iter(w).map(|(e, p)| (e, vec![true, false, p.is_some()])).collect())
    });
}

/// Flecs Toggle_this_written_optional_w_not_toggle: `Tag, ?Position, !Velocity` (typed with `Has`).
#[test]
fn written_optional_w_not_toggle() {
    written_combination(&[("Position", Op::Opt), ("Velocity", Op::Not)], false, |w| {
        let mut q = w.query_filtered::<(Entity, Has<Position>), (With<Tag>, Without<Velocity>)>();
        Box::new(move |w| q.iter(w).map(|(e, h)| (e, vec![true, h, false])).collect())
    });
}

/// Flecs Toggle_this_written_2_not_toggle: `Tag, !Position, !Velocity`.
#[test]
fn written_2_not_toggle() {
    written_combination(&[("Position", Op::Not), ("Velocity", Op::Not)], false, |w| {
        let mut q = w.query_filtered::<Entity, (With<Tag>, Without<Position>, Without<Velocity>)>();
        Box::new(move |w| q.iter(w).map(|e| (e, vec![true, false, false])).collect())
    });
}

/// Flecs Toggle_this_written_2_optional_toggle: `Tag, ?Position, ?Velocity`.
#[test]
fn written_2_optional_toggle() {
    written_combination(&[("Position", Op::Opt), ("Velocity", Op::Opt)], false, |w| {
        let mut q = w.query_filtered::<(Entity, Option<&Position>, Has<Velocity>), With<Tag>>();
        Box::new(move |w| q.iter(w).map(|(e, p, v)| (e, vec![true, p.is_some(), v])).collect())
    });
}

/// Flecs Toggle_this_written_toggle_w_2_not_toggle: `Tag, Position, !Velocity, !Mass`.
#[test]
fn written_toggle_w_2_not_toggle() {
    written_combination(&[("Position", Op::And), ("Velocity", Op::Not), ("Mass", Op::Not)], true, |w| {
        let mut q = w.query_filtered::<(Entity, &Position), (With<Tag>, Without<Velocity>, Without<Mass>)>();
        Box::new(move |w| q.iter(w).map(|(e, _)| (e, vec![true, true, false, false])).collect())
    });
}

/// Flecs Toggle_this_written_toggle_w_2_optional_toggle: `Tag, Position, ?Velocity, ?Mass`.
#[test]
fn written_toggle_w_2_optional_toggle() {
    written_combination(&[("Position", Op::And), ("Velocity", Op::Opt), ("Mass", Op::Opt)], true, |w| {
        let mut q = w.query_filtered::<(Entity, &Position, Option<&Velocity>, Option<&Mass>), With<Tag>>();
        Box::new(move |w| q.iter(w).map(|(e, _, v, m)| (e, vec![true, true, v.is_some(), m.is_some()])).collect())
    });
}

/// Flecs Toggle_this_written_2_toggle_w_not_toggle: `Tag, Position, Velocity, !Mass`.
#[test]
fn written_2_toggle_w_not_toggle() {
    written_combination(&[("Position", Op::And), ("Velocity", Op::And), ("Mass", Op::Not)], true, |w| {
        let mut q = w.query_filtered::<(Entity, &Position, &Velocity), (With<Tag>, Without<Mass>)>();
        Box::new(move |w| q.iter(w).map(|(e, ..)| (e, vec![true, true, true, false])).collect())
    });
}

/// Flecs Toggle_this_written_2_toggle_w_optional_toggle: `Tag, Position, Velocity, ?Mass`.
#[test]
fn written_2_toggle_w_optional_toggle() {
    written_combination(&[("Position", Op::And), ("Velocity", Op::And), ("Mass", Op::Opt)], true, |w| {
        let mut q = w.query_filtered::<(Entity, &Position, &Velocity, Has<Mass>), With<Tag>>();
        Box::new(move |w| q.iter(w).map(|(e, _, _, m)| (e, vec![true, true, true, m])).collect())
    });
}

// ================================================================== changes between iterations

/// One table of 300 rows, one typed query and one runtime query built before the
/// entities, bit patterns that differ per 64-bit word flipping between iterations.
#[test]
fn patterns_flip_between_iterations_of_one_query() {
    let mut world = new_world();
    let p = cid::<Position>(&world);
    let t = cid::<Tag>(&world);
    let mut rt = Rt::new(&world, "Position", world.query_builder().read(p));
    let mut rt_not = Rt::new(&world, "Tag, !Position", world.query_builder().with(t).without(p));
    let mut read = world.query::<(Entity, &Position)>();
    let mut has = world.query_filtered::<(Entity, Has<Position>), With<Tag>>();
    let es: Vec<Entity> = (0..300).map(|i| world.spawn((pos(i), Tag)).id()).collect();
    let patterns: Vec<Box<dyn Fn(usize) -> bool>> = vec![
        Box::new(|_| true),
        Box::new(|i| i % 2 == 0),
        Box::new(|i| i % 64 < 32),
        Box::new(|i| (64..128).contains(&i)),
        Box::new(|_| false),
        Box::new(|i| [0, 63, 64, 127, 128, 255, 256, 299].contains(&i)),
        Box::new(|i| i / 64 != 2),
        Box::new(|_| true),
    ];
    for (n, pattern) in patterns.iter().enumerate() {
        for (i, &e) in es.iter().enumerate() {
            set_enabled::<Position>(&mut world, e, pattern(i));
        }
        let on = sorted(es.iter().enumerate().filter(|(i, _)| pattern(*i)).map(|(_, &e)| e));
        let off = sorted(es.iter().enumerate().filter(|(i, _)| !pattern(*i)).map(|(_, &e)| e));
        assert_eq!(rt.entities(&world), on, "pattern {n}");
        assert_eq!(rt_not.entities(&world), off, "pattern {n}");
        assert_eq!(sorted(read.iter(&world).map(|(e, _)| e)), on, "pattern {n}");
        let flags = sorted(has.iter(&world));
        assert_eq!(flags.iter().filter(|f| f.1).map(|f| f.0).collect::<Vec<_>>(), on, "pattern {n}");
        assert_eq!(read.iter(&world).count(), on.len());
    }
}

/// Despawns swap the last row into a disabled (or enabled) row's place across word
/// boundaries; the query objects keep matching exactly the enabled rows.
#[test]
fn swap_removes_carry_bits_across_words() {
    let mut world = new_world();
    let p = cid::<Position>(&world);
    let mut rt = Rt::new(&world, "Position", world.query_builder().read(p));
    let mut read = world.query::<(Entity, &Position)>();
    let mut es: Vec<Entity> = (0..200).map(|i| world.spawn(pos(i)).id()).collect();
    for (i, &e) in es.iter().enumerate() {
        if i % 3 == 0 || i >= 190 {
            world.entity_mut(e).disable::<Position>();
        }
    }
    let check = |rt: &mut Rt, read: &mut QueryState<(Entity, &Position)>, world: &World, es: &[Entity], what: &str| {
        let on = sorted(es.iter().copied().filter(|&e| world.is_enabled::<Position>(e)));
        assert_eq!(rt.entities(world), on, "{what}");
        let rows = sorted(read.iter(world).map(|(e, p)| (e, *p)));
        assert_eq!(rows.iter().map(|r| r.0).collect::<Vec<_>>(), on, "{what}");
        for (e, p) in rows {
            assert_eq!(world.get::<Position>(e), Some(&p));
        }
    };
    check(&mut rt, &mut read, &world, &es, "initial");
    let model: Vec<(Entity, bool)> = es.iter().map(|&e| (e, world.is_enabled::<Position>(e))).collect();
    for index in [0usize, 64, 63, 127, 1, 100] {
        let e = es.remove(index.min(es.len() - 1));
        world.despawn(e);
        check(&mut rt, &mut read, &world, &es, &format!("after despawning {e:?}"));
    }
    for (e, was) in model {
        if world.is_alive(e) {
            assert_eq!(world.is_enabled::<Position>(e), was, "{e:?} kept its bit");
        }
    }
}

/// Every fifth row moves to another table (a Tag insert) and every seventh is
/// removed from it again; the bits travel, old and new tables both checked.
#[test]
fn table_moves_of_many_rows_keep_bits() {
    let mut world = new_world();
    let p = cid::<Position>(&world);
    let mut rt = Rt::new(&world, "Position", world.query_builder().read(p));
    let mut tagged = world.query_filtered::<Entity, (With<Tag>, With<Position>)>();
    let mut untagged = world.query_filtered::<Entity, (Without<Tag>, Without<Position>)>();
    let es: Vec<Entity> = (0..260).map(|i| world.spawn(pos(i)).id()).collect();
    for (i, &e) in es.iter().enumerate() {
        if i % 2 == 1 {
            world.entity_mut(e).disable::<Position>();
        }
    }
    for (i, &e) in es.iter().enumerate() {
        if i % 5 == 0 {
            world.entity_mut(e).insert(Tag);
        }
    }
    for (i, &e) in es.iter().enumerate() {
        if i % 7 == 0 && i % 5 == 0 {
            world.entity_mut(e).remove::<Tag>();
        }
    }
    let on = |i: usize| i.is_multiple_of(2);
    let tag = |i: usize| i.is_multiple_of(5) && !i.is_multiple_of(7);
    let pick = |f: &dyn Fn(usize) -> bool| sorted(es.iter().enumerate().filter(|(i, _)| f(*i)).map(|(_, &e)| e));
    assert_eq!(rt.entities(&world), pick(&on));
    assert_eq!(typed_entities(&mut tagged, &world), pick(&|i| on(i) && tag(i)));
    let untagged_rows: Vec<Entity> =
        typed_entities(&mut untagged, &world).into_iter().filter(|e| es.contains(e)).collect();
    assert_eq!(untagged_rows, pick(&|i| !on(i) && !tag(i)));
    for (i, &e) in es.iter().enumerate() {
        assert_eq!(world.is_enabled::<Position>(e), on(i));
        assert_eq!(world.get::<Position>(e), Some(&pos(i as i32)));
    }
}

/// New rows added to a table after the first iteration start enabled; their
/// neighbours' bits are unaffected (the column grows past 64, 128 rows).
#[test]
fn rows_added_between_iterations_start_enabled() {
    let mut world = new_world();
    let p = cid::<Position>(&world);
    let mut rt = Rt::new(&world, "Position", world.query_builder().read(p));
    let mut read = world.query::<(Entity, &Position)>();
    let mut es = Vec::new();
    let mut on = Vec::new();
    for batch in 0..5 {
        for i in 0..40 {
            let e = world.spawn(pos(batch * 40 + i)).id();
            es.push(e);
            if i % 4 == 0 {
                world.entity_mut(e).disable::<Position>();
            } else {
                on.push(e);
            }
        }
        assert_eq!(rt.entities(&world), sorted(on.clone()), "batch {batch}");
        assert_eq!(sorted(read.iter(&world).map(|(e, _)| e)), sorted(on.clone()), "batch {batch}");
    }
    // spawn_batch too.
    let more: Vec<Entity> = world.spawn_batch((0..70).map(|i| (pos(1000 + i),))).collect();
    on.extend(more);
    assert_eq!(rt.entities(&world), sorted(on.clone()));
    assert_eq!(read.iter(&world).count(), on.len());
}

/// `&mut Position` and `Option<&mut Position>` in `iter_mut` write only enabled rows;
/// disabled values stay as they were (read back with `get`).
#[test]
fn iter_mut_writes_only_enabled_rows() {
    let mut world = new_world();
    let es: Vec<Entity> = (0..140).map(|i| world.spawn((pos(i), Velocity { x: 1, y: 1 })).id()).collect();
    for (i, &e) in es.iter().enumerate() {
        if i % 3 == 0 {
            world.entity_mut(e).disable::<Position>();
        }
        if i % 5 == 0 {
            world.entity_mut(e).disable::<Velocity>();
        }
    }
    let mut q = world.query::<(&mut Position, &Velocity)>();
    for (mut p, v) in q.iter_mut(&mut world) {
        p.x += v.x * 1000;
    }
    let mut opt = world.query::<(Entity, Option<&mut Position>)>();
    let mut none = Vec::new();
    for (e, p) in opt.iter_mut(&mut world) {
        match p {
            Some(mut p) => p.y += 5000,
            None => none.push(e),
        }
    }
    for (i, &e) in es.iter().enumerate() {
        let ii = i as i32;
        let moved = i % 3 != 0 && i % 5 != 0;
        let want = Position { x: if moved { ii + 1000 } else { ii }, y: if i % 3 != 0 { ii + 5000 } else { ii } };
        assert_eq!(world.get::<Position>(e), Some(&want), "row {i}");
        assert_eq!(none.contains(&e), i % 3 == 0, "row {i}");
    }
    // The builder's write term too.
    let p = cid::<Position>(&world);
    let mut dq = world.query_builder().write(p).build().unwrap();
    dq.iter_mut(&mut world).for_each(|mut row| {
        if let Some(mut v) = row.get_mut::<Position>(0) {
            v.x = -1;
        }
    });
    for (i, &e) in es.iter().enumerate() {
        assert_eq!(world.get::<Position>(e).unwrap().x == -1, i % 3 != 0, "row {i}");
    }
}

/// `QueryState::get` / `get_mut` / `single` treat a disabled row as not matching.
#[test]
fn get_and_single_skip_disabled_rows() {
    let mut world = new_world();
    let a = world.spawn((pos(1), Tag)).id();
    let b = world.spawn((pos(2), Tag)).id();
    world.entity_mut(b).disable::<Position>();
    let mut q = world.query::<&Position>();
    assert_eq!(q.get(&world, a).ok(), Some(&pos(1)));
    assert!(q.get(&world, b).is_err());
    assert!(q.get_mut(&mut world, b).is_err());
    assert_eq!(q.single(&world).ok(), Some(&pos(1)));
    let mut without = world.query_filtered::<Entity, (With<Tag>, Without<Position>)>();
    assert_eq!(without.get(&world, b).ok(), Some(b));
    assert!(without.get(&world, a).is_err());
    assert_eq!(without.single(&world).ok(), Some(b));
    world.entity_mut(b).enable::<Position>();
    assert!(q.single(&world).is_err());
    assert!(without.single(&world).is_err());
    assert_eq!(q.get(&world, b).ok(), Some(&pos(2)));
    world.entity_mut(a).disable::<Position>().disable::<Position>();
    world.entity_mut(b).disable::<Position>();
    assert!(q.single(&world).is_err());
    assert_eq!(q.iter(&world).count(), 0);
}

/// `DynQuery::iter_tables`: a table with a disabled row is not dense and
/// `row_matches` tells the enabled rows; `field` still spans every row.
#[test]
fn iter_tables_row_matches_follow_the_bits() {
    let mut world = new_world();
    let es: Vec<Entity> = (0..130).map(|i| world.spawn(pos(i)).id()).collect();
    let p = cid::<Position>(&world);
    let mut dq = world.query_builder().read(p).build().unwrap();
    let mut dense_tables = 0;
    let mut matched = 0;
    for table in dq.iter_tables(&world) {
        dense_tables += usize::from(table.is_dense());
        matched += (0..table.len()).filter(|&r| table.row_matches(r)).count();
    }
    assert_eq!(matched, 130);
    // A toggleable `$this` term makes a table non-dense (`row_matches` decides) even
    // while every value is enabled.
    assert_eq!(dense_tables, 0);
    for &i in &[0usize, 63, 64, 65, 129] {
        world.entity_mut(es[i]).disable::<Position>();
    }
    let inspect = |table: &DynTable<'_>| {
        let field = table.field::<Position>(0).expect("a column");
        assert_eq!(field.len(), table.len());
        let rows: Vec<(Entity, bool, Position)> =
            (0..table.len()).map(|r| (table.entities()[r], table.row_matches(r), field[r])).collect();
        (table.is_dense(), rows)
    };
    let mut seen = Vec::new();
    for table in dq.iter_tables(&world) {
        let (dense, rows) = inspect(&table);
        assert!(!dense);
        seen.extend(rows);
    }
    assert_eq!(seen.len(), 130);
    for (e, matches, value) in seen {
        assert_eq!(matches, world.is_enabled::<Position>(e), "{e:?}");
        assert_eq!(Some(&value), world.get::<Position>(e));
    }
}

/// Toggling marks nothing changed: `Changed<Position>` sees an edit of an enabled row,
/// never a disabled row, and not a row that was only enabled again.
#[test]
fn changed_filter_and_toggles() {
    let mut world = new_world();
    let es: Vec<Entity> = (0..100).map(|i| world.spawn(pos(i)).id()).collect();
    let mut changed = world.query_filtered::<Entity, Changed<Position>>();
    let mut added = world.query_filtered::<Entity, Added<Position>>();
    world.entity_mut(es[10]).disable::<Position>();
    world.entity_mut(es[70]).disable::<Position>();
    let all_but = |skip: &[usize]| sorted(es.iter().enumerate().filter(|(i, _)| !skip.contains(i)).map(|(_, &e)| e));
    assert_eq!(typed_entities(&mut changed, &world), all_but(&[10, 70]));
    assert_eq!(typed_entities(&mut added, &world), all_but(&[10, 70]));
    assert!(typed_entities(&mut changed, &world).is_empty());
    // Edit an enabled and a disabled value.
    world.get_mut::<Position>(es[5]).unwrap().x = -5;
    world.get_mut::<Position>(es[10]).unwrap().x = -10;
    assert_eq!(typed_entities(&mut changed, &world), vec![es[5]]);
    // Enabling es[10] now: its change happened before the last run.
    world.entity_mut(es[10]).enable::<Position>();
    assert!(typed_entities(&mut changed, &world).is_empty());
    world.entity_mut(es[70]).enable::<Position>();
    assert!(typed_entities(&mut added, &world).is_empty());
    // An edit through the query's own &mut skips disabled rows.
    world.entity_mut(es[20]).disable::<Position>();
    let mut writer = world.query::<&mut Position>();
    for mut p in writer.iter_mut(&mut world) {
        p.y = 0;
    }
    assert_eq!(typed_entities(&mut changed, &world), all_but(&[20]));
    assert_eq!(world.get::<Position>(es[20]), Some(&pos(20)));
}

/// Commands disable and enable between iterations of one query.
#[test]
fn commands_toggle_between_iterations() {
    let mut world = new_world();
    let es: Vec<Entity> = (0..70).map(|i| world.spawn((pos(i), Foo)).id()).collect();
    let mut q = world.query_filtered::<Entity, (With<Position>, With<Foo>)>();
    let (p, f) = (cid::<Position>(&world), cid::<Foo>(&world));
    let mut rt = Rt::new(&world, "Position, Foo", world.query_builder().read(p).with(f));
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    for (i, &e) in es.iter().enumerate() {
        if i % 2 == 0 {
            commands.entity(e).disable::<Position>();
        }
        if i == 65 {
            commands.entity(e).disable::<Foo>();
        }
    }
    // Nothing changes before the queue is applied.
    assert_eq!(typed_entities(&mut q, &world).len(), 70);
    queue.apply(&mut world);
    let on = sorted(es.iter().enumerate().filter(|(i, _)| i % 2 == 1 && *i != 65).map(|(_, &e)| e));
    assert_eq!(typed_entities(&mut q, &world), on);
    assert_eq!(rt.entities(&world), on);
    let mut commands = Commands::new(&mut queue, &world);
    for &e in &es {
        commands.entity(e).enable::<Position>().enable::<Foo>();
    }
    queue.apply(&mut world);
    assert_eq!(typed_entities(&mut q, &world), sorted(es.clone()));
    assert_eq!(rt.entities(&world), sorted(es));
}

// ================================================================== prefabs (IsA)

/// A value inherited from a prefab is as enabled as the prefab's own: disabling it
/// on the prefab hides it from every instance for every term, typed and runtime.
#[test]
fn prefab_inherited_value_follows_the_prefabs_bit() {
    let mut world = new_world();
    let prefab = world.spawn((Prefab, Position { x: 5, y: 6 })).id();
    let insts: Vec<Entity> = (0..3).map(|_| world.instantiate(prefab)).collect();
    for &i in &insts {
        world.entity_mut(i).insert(Tag);
    }
    let own = world.spawn((Tag, pos(9))).id();
    let (p, t) = (cid::<Position>(&world), cid::<Tag>(&world));
    let mut rt = Rt::new(&world, "Tag, Position", world.query_builder().with(t).read(p));
    let mut rt_not = Rt::new(&world, "Tag, !Position", world.query_builder().with(t).without(p));
    let mut rt_opt = Rt::new(&world, "Tag, ?Position", world.query_builder().with(t).optional(p));
    let mut read = world.query_filtered::<(Entity, &Position), With<Tag>>();
    let mut has = world.query_filtered::<(Entity, Has<Position>), With<Tag>>();
    let mut opt = world.query_filtered::<(Entity, Option<&Position>), With<Tag>>();
    let mut without = world.query_filtered::<Entity, (With<Tag>, Without<Position>)>();
    let inherited = Position { x: 5, y: 6 };
    let all = sorted(insts.iter().copied().chain([own]));
    let on_rows = sorted(insts.iter().map(|&i| (i, inherited)).chain([(own, pos(9))]));
    assert_eq!(rt.rows(&world, |row| (row.entity(), *row.get::<Position>(1).unwrap())), on_rows);
    assert_eq!(sorted(read.iter(&world).map(|(e, p)| (e, *p))), on_rows);
    assert!(rt_not.entities(&world).is_empty());
    assert!(typed_entities(&mut without, &world).is_empty());
    world.entity_mut(prefab).disable::<Position>();
    for &i in &insts {
        assert!(!world.is_enabled::<Position>(i));
    }
    assert_eq!(rt.entities(&world), vec![own]);
    assert_eq!(sorted(read.iter(&world).map(|(e, _)| e)), vec![own]);
    assert_eq!(rt_not.entities(&world), sorted(insts.clone()));
    assert_eq!(typed_entities(&mut without, &world), sorted(insts.clone()));
    assert_eq!(sorted(has.iter(&world)), all.iter().map(|&e| (e, e == own)).collect::<Vec<_>>());
    assert_eq!(
        sorted(opt.iter(&world).map(|(e, p)| (e, p.copied()))),
        all.iter().map(|&e| (e, (e == own).then_some(pos(9)))).collect::<Vec<_>>()
    );
    assert_eq!(rt_opt.set(&world, 2), all.iter().map(|&e| (e, vec![true, e == own])).collect::<Vec<_>>());
    // The value is still readable with get (stored on the prefab).
    assert_eq!(world.get::<Position>(insts[0]), Some(&inherited));
    world.entity_mut(prefab).enable::<Position>();
    assert_eq!(sorted(read.iter(&world).map(|(e, p)| (e, *p))), on_rows);
    assert_eq!(rt_opt.set(&world, 2), all.iter().map(|&e| (e, vec![true, true])).collect::<Vec<_>>());
}

/// An instance that disables a value it inherits gets its own (disabled) copy:
/// the prefab and the other instances are unaffected; `Position(self)` (builder
/// `.owned()`) sees only owned values.
#[test]
fn instance_disabling_an_inherited_value_overrides_it() {
    let mut world = new_world();
    let prefab = world.spawn((Prefab, Position { x: 5, y: 6 })).id();
    let a = world.instantiate(prefab);
    let b = world.instantiate(prefab);
    let p = cid::<Position>(&world);
    let mut rt = Rt::new(&world, "Position", world.query_builder().read(p));
    let mut owned = Rt::new(&world, "Position(self)", world.query_builder().read(p).owned());
    let mut read = world.query::<(Entity, &Position)>();
    assert_eq!(rt.entities(&world), sorted(vec![a, b]));
    assert!(owned.entities(&world).is_empty());
    world.entity_mut(a).disable::<Position>();
    assert!(!world.is_enabled::<Position>(a));
    assert!(world.is_enabled::<Position>(b));
    assert!(world.is_enabled::<Position>(prefab));
    assert_eq!(rt.entities(&world), vec![b]);
    assert_eq!(sorted(read.iter(&world).map(|(e, p)| (e, *p))), vec![(b, Position { x: 5, y: 6 })]);
    assert!(owned.entities(&world).is_empty(), "a owns a disabled copy");
    // The copy is a's own: editing the prefab no longer reaches it.
    world.get_mut::<Position>(prefab).unwrap().x = 50;
    world.entity_mut(a).enable::<Position>();
    assert_eq!(sorted(read.iter(&world).map(|(e, p)| (e, p.x))), sorted(vec![(a, 5), (b, 50)]));
    assert_eq!(owned.entities(&world), vec![a]);
}

/// The prefab disables the value, an instance enables it: the instance gets an
/// enabled copy, the others stay disabled.
#[test]
fn instance_enabling_a_value_its_prefab_disabled() {
    let mut world = new_world();
    let prefab = world.spawn((Prefab, Position { x: 5, y: 6 })).id();
    let a = world.instantiate(prefab);
    let b = world.instantiate(prefab);
    world.entity_mut(prefab).disable::<Position>();
    let mut read = world.query::<(Entity, &Position)>();
    let mut without = world.query_filtered::<Entity, (Without<Position>, With<IsA>)>();
    let _ = &mut without;
    assert_eq!(read.iter(&world).count(), 0);
    world.entity_mut(a).enable::<Position>();
    assert!(world.is_enabled::<Position>(a) && !world.is_enabled::<Position>(b));
    assert_eq!(sorted(read.iter(&world).map(|(e, p)| (e, *p))), vec![(a, Position { x: 5, y: 6 })]);
    let p = cid::<Position>(&world);
    let mut rt = Rt::new(
        &world,
        "!Position, (IsA, *)",
        world.query_builder().without(p).pair(cid::<IsA>(&world), Entity::WILDCARD),
    );
    assert_eq!(rt.entities(&world), vec![b]);
}

/// A chain of prefabs: the base's bit decides for instances of a derived prefab.
#[test]
fn prefab_chain_uses_the_holders_bit() {
    let mut world = new_world();
    let base = world.spawn((Prefab, Position { x: 1, y: 1 })).id();
    let derived = world.spawn(Prefab).add_pair::<IsA>(base).id();
    let inst = world.instantiate(derived);
    world.entity_mut(inst).insert(Tag);
    let (p, t) = (cid::<Position>(&world), cid::<Tag>(&world));
    let mut rt = Rt::new(&world, "Tag, Position", world.query_builder().with(t).read(p));
    let mut read = world.query_filtered::<(Entity, &Position), With<Tag>>();
    assert_eq!(rt.entities(&world), vec![inst]);
    assert_eq!(read.iter(&world).count(), 1);
    world.entity_mut(base).disable::<Position>();
    assert!(!world.is_enabled::<Position>(inst));
    assert!(rt.entities(&world).is_empty());
    assert_eq!(read.iter(&world).count(), 0);
    // The derived prefab overrides with its own enabled value.
    world.entity_mut(derived).insert(Position { x: 2, y: 2 });
    assert!(world.is_enabled::<Position>(inst));
    assert_eq!(sorted(read.iter(&world).map(|(e, p)| (e, *p))), vec![(inst, Position { x: 2, y: 2 })]);
    assert_eq!(rt.rows(&world, |row| *row.get::<Position>(1).unwrap()), vec![Position { x: 2, y: 2 }]);
}

/// An `override` component is copied at instantiate time with its bit: a disabled
/// prefab value gives a disabled copy; later toggles of either are independent.
#[test]
fn override_copy_takes_the_bit_along() {
    let mut world = new_world();
    let prefab = world.spawn((Prefab, Armor(3))).id();
    world.entity_mut(prefab).disable::<Armor>();
    let a = world.instantiate(prefab);
    world.entity_mut(prefab).enable::<Armor>();
    let b = world.instantiate(prefab);
    let mut read = world.query::<(Entity, &Armor)>();
    let armor = cid::<Armor>(&world);
    let mut rt = Rt::new(&world, "Armor(self)", world.query_builder().read(armor).owned());
    assert!(!world.is_enabled::<Armor>(a));
    assert!(world.is_enabled::<Armor>(b));
    assert_eq!(sorted(read.iter(&world).map(|(e, a)| (e, *a))), vec![(b, Armor(3))]);
    assert_eq!(rt.entities(&world), vec![b]);
    world.entity_mut(prefab).disable::<Armor>();
    world.entity_mut(a).enable::<Armor>();
    assert_eq!(sorted(read.iter(&world).map(|(e, _)| e)), sorted(vec![a, b]));
    assert_eq!(rt.entities(&world), sorted(vec![a, b]));
}

/// Many instances of one prefab in one table: the prefab's bit hides them all;
/// some override and disable their own copy; an `up IsA` term (typed `Up<IsA, _>`)
/// reads the prefab's value only while it is enabled.
#[test]
fn many_instances_and_up_isa() {
    let mut world = new_world();
    let prefab = world.spawn((Prefab, pos(7))).id();
    let insts: Vec<Entity> = (0..130).map(|_| world.instantiate(prefab)).collect();
    for (i, &e) in insts.iter().enumerate() {
        if i % 10 == 0 {
            world.entity_mut(e).disable::<Position>();
        }
    }
    let (p, isa) = (cid::<Position>(&world), cid::<IsA>(&world));
    let mut rt = Rt::new(&world, "Position", world.query_builder().read(p));
    let mut rt_up = Rt::new(&world, "Position(up IsA)", world.query_builder().read(p).up(isa));
    let mut read = world.query::<(Entity, &Position)>();
    let mut up = world.query::<(Entity, Up<IsA, &Position>)>();
    let expected = sorted(insts.iter().enumerate().filter(|(i, _)| i % 10 != 0).map(|(_, &e)| e));
    assert_eq!(rt.entities(&world), expected);
    assert_eq!(sorted(read.iter(&world).map(|(e, _)| e)), expected);
    assert_eq!(rt_up.entities(&world), sorted(insts.clone()), "up IsA reads the prefab's own value");
    assert_eq!(sorted(up.iter(&world).map(|(e, _)| e)), sorted(insts.clone()));
    world.entity_mut(prefab).disable::<Position>();
    assert!(rt.entities(&world).is_empty());
    assert_eq!(read.iter(&world).count(), 0);
    assert!(rt_up.entities(&world).is_empty());
    assert_eq!(up.iter(&world).count(), 0);
    world.entity_mut(prefab).enable::<Position>();
    assert_eq!(rt.entities(&world), expected);
    assert_eq!(up.iter(&world).count(), 130);
}

/// A child whose parent is an instance inheriting a disabled value: `up ChildOf`
/// goes on to the grandparent.
#[test]
fn up_childof_through_an_instance_with_an_inherited_disabled_value() {
    let mut world = new_world();
    let prefab = world.spawn((Prefab, pos(1))).id();
    let gp = world.spawn(pos(2)).id();
    let parent = world.instantiate(prefab);
    world.entity_mut(parent).add_pair::<ChildOf>(gp);
    let child = world.spawn(ChildOf.pair(parent)).id();
    let (p, child_of) = (cid::<Position>(&world), cid::<ChildOf>(&world));
    let mut rt = Rt::new(&world, "Position(up ChildOf)", world.query_builder().read(p).up(child_of));
    let mut typed = world.query::<(Entity, Up<ChildOf, &Position>)>();
    let view = |row: &DynRow<'_>| (row.entity(), *row.get::<Position>(0).unwrap());
    assert_eq!(rt.rows(&world, view), sorted(vec![(parent, pos(2)), (child, pos(1))]));
    assert_eq!(sorted(typed.iter(&world).map(|(e, p)| (e, *p))), sorted(vec![(parent, pos(2)), (child, pos(1))]));
    world.entity_mut(prefab).disable::<Position>();
    assert_eq!(rt.rows(&world, view), sorted(vec![(parent, pos(2)), (child, pos(2))]));
    assert_eq!(sorted(typed.iter(&world).map(|(e, p)| (e, *p))), sorted(vec![(parent, pos(2)), (child, pos(2))]));
}

// ================================================================== misc

/// Two toggled components in one entity have independent bits in every term form,
/// and the same component named twice (`&Position` and `Has<Position>`) agrees.
#[test]
fn same_component_twice_and_independent_bits() {
    let mut world = new_world();
    let e = world.spawn((pos(1), Velocity { x: 2, y: 2 }, Tag)).id();
    let mut q = world.query_filtered::<(Entity, Option<&Position>, Has<Position>, Option<&Velocity>), With<Tag>>();
    let row = |q: &mut TwiceQuery, w: &World| {
        q.iter(w).map(|(e, p, h, v)| (e, p.copied(), h, v.copied())).collect::<Vec<_>>()
    };
    assert_eq!(row(&mut q, &world), vec![(e, Some(pos(1)), true, Some(Velocity { x: 2, y: 2 }))]);
    world.entity_mut(e).disable::<Position>();
    assert_eq!(row(&mut q, &world), vec![(e, None, false, Some(Velocity { x: 2, y: 2 }))]);
    world.entity_mut(e).disable::<Velocity>();
    assert_eq!(row(&mut q, &world), vec![(e, None, false, None)]);
    world.entity_mut(e).enable::<Position>();
    assert_eq!(row(&mut q, &world), vec![(e, Some(pos(1)), true, None)]);
    let (p, v) = (cid::<Position>(&world), cid::<Velocity>(&world));
    let mut rt = Rt::new(&world, "Position, !Velocity", world.query_builder().read(p).without(v));
    assert_eq!(rt.entities(&world), vec![e]);
}

/// Disabling or enabling twice, or a component the entity lacks, changes nothing.
#[test]
fn idempotent_toggles_and_absent_components() {
    let mut world = new_world();
    let a = world.spawn((pos(1), Tag)).id();
    let b = world.spawn(Tag).id();
    let mut q = world.query_filtered::<(Entity, Has<Position>, Has<Velocity>), With<Tag>>();
    world.entity_mut(a).disable::<Position>().disable::<Position>();
    world.entity_mut(b).disable::<Position>().enable::<Velocity>();
    assert!(!world.has::<Position>(b) && !world.has::<Velocity>(b));
    assert_eq!(sorted(q.iter(&world)), sorted(vec![(a, false, false), (b, false, false)]));
    world.entity_mut(a).enable::<Position>().enable::<Position>();
    assert_eq!(sorted(q.iter(&world)), sorted(vec![(a, true, false), (b, false, false)]));
}

/// Re-inserting over a disabled value replaces the value and keeps it disabled.
#[test]
fn reinsert_over_a_disabled_value_keeps_it_disabled() {
    let mut world = new_world();
    let e = world.spawn(pos(1)).id();
    let p = cid::<Position>(&world);
    let mut rt = Rt::new(&world, "Position", world.query_builder().read(p));
    let mut read = world.query::<&Position>();
    world.entity_mut(e).disable::<Position>();
    world.entity_mut(e).insert(pos(2));
    assert_eq!(world.get::<Position>(e), Some(&pos(2)));
    assert!(!world.is_enabled::<Position>(e));
    assert_eq!(read.iter(&world).count(), 0);
    assert!(rt.entities(&world).is_empty());
    world.entity_mut(e).enable::<Position>();
    assert_eq!(read.iter(&world).copied().collect::<Vec<_>>(), vec![pos(2)]);
    assert_eq!(rt.entities(&world), vec![e]);
}

/// Despawning a disabled entity and reusing its row: the new entity's value starts enabled.
#[test]
fn a_recycled_row_starts_enabled() {
    let mut world = new_world();
    let mut read = world.query::<(Entity, &Position)>();
    let a = world.spawn(pos(1)).id();
    let b = world.spawn(pos(2)).id();
    world.entity_mut(b).disable::<Position>();
    world.despawn(b);
    let c = world.spawn(pos(3)).id();
    assert!(world.is_enabled::<Position>(c));
    assert_eq!(sorted(read.iter(&world).map(|(e, p)| (e, *p))), sorted(vec![(a, pos(1)), (c, pos(3))]));
    world.entity_mut(a).disable::<Position>();
    world.despawn(a);
    let d = world.spawn(pos(4)).id();
    assert_eq!(sorted(read.iter(&world).map(|(e, p)| (e, *p))), sorted(vec![(c, pos(3)), (d, pos(4))]));
}

/// A table emptied of its (partly disabled) rows and filled again: the new rows start
/// enabled, the query objects built before see them all.
#[test]
fn an_emptied_table_refilled_starts_enabled() {
    let mut world = new_world();
    let p = cid::<Position>(&world);
    let mut rt = Rt::new(&world, "Position", world.query_builder().read(p));
    let mut read = world.query::<(Entity, &Position)>();
    let old: Vec<Entity> = (0..150).map(|i| world.spawn(pos(i)).id()).collect();
    for &e in old.iter().step_by(2) {
        world.entity_mut(e).disable::<Position>();
    }
    assert_eq!(read.iter(&world).count(), 75);
    for &e in old.iter().rev() {
        world.despawn(e);
    }
    assert!(rt.entities(&world).is_empty());
    let new: Vec<Entity> = (0..150).map(|i| world.spawn(pos(i)).id()).collect();
    assert_eq!(rt.entities(&world), sorted(new.clone()));
    assert_eq!(sorted(read.iter(&world).map(|(e, _)| e)), sorted(new));
}

/// Toggles on a variable source: `(Likes, $x), Position($x)` needs the liked entity's
/// Position enabled; `(Likes, $x), !Position($x)` the opposite.
#[test]
fn variable_source_reads_the_bit_of_the_bound_entity() {
    let mut world = new_world();
    let t1 = world.spawn(pos(1)).id();
    let t2 = world.spawn(pos(2)).id();
    let t3 = world.spawn_empty().id();
    let a = world.spawn(Tag).add_pair::<Likes>(t1).id();
    let b = world.spawn(Tag).add_pair::<Likes>(t2).id();
    let c = world.spawn(Tag).add_pair::<Likes>(t3).id();
    let both = world.spawn(Tag).add_pair::<Likes>(t1).add_pair::<Likes>(t2).id();
    let (likes, p) = (cid::<Likes>(&world), cid::<Position>(&world));
    let mut has = Rt::new(
        &world,
        "(Likes, $x), Position($x)",
        world.query_builder().pair_var(likes, "x").read(p).source_var("x"),
    );
    let mut not = Rt::new(
        &world,
        "(Likes, $x), !Position($x)",
        world.query_builder().pair_var(likes, "x").without(p).source_var("x"),
    );
    let view = |row: &DynRow<'_>| (row.entity(), row.var("x").unwrap(), row.get::<Position>(1).copied());
    let not_view = |row: &DynRow<'_>| (row.entity(), row.var("x").unwrap());
    assert_eq!(
        has.rows(&world, view),
        sorted(vec![(a, t1, Some(pos(1))), (b, t2, Some(pos(2))), (both, t1, Some(pos(1))), (both, t2, Some(pos(2)))])
    );
    assert_eq!(not.rows(&world, not_view), vec![(c, t3)]);
    world.entity_mut(t1).disable::<Position>();
    assert_eq!(has.rows(&world, view), sorted(vec![(b, t2, Some(pos(2))), (both, t2, Some(pos(2)))]));
    assert_eq!(not.rows(&world, not_view), sorted(vec![(a, t1), (c, t3), (both, t1)]));
    world.entity_mut(t2).disable::<Position>();
    world.entity_mut(t1).enable::<Position>();
    assert_eq!(has.rows(&world, view), sorted(vec![(a, t1, Some(pos(1))), (both, t1, Some(pos(1)))]));
    assert_eq!(not.rows(&world, not_view), sorted(vec![(b, t2), (c, t3), (both, t2)]));
}

/// `?Position($x)`: optional on a variable source is set only where the bound
/// entity's value is enabled.
#[test]
fn optional_on_a_variable_source() {
    let mut world = new_world();
    let t1 = world.spawn(pos(1)).id();
    let t2 = world.spawn(pos(2)).id();
    let a = world.spawn(Tag).add_pair::<Likes>(t1).id();
    let b = world.spawn(Tag).add_pair::<Likes>(t2).id();
    world.entity_mut(t2).disable::<Position>();
    let (likes, p) = (cid::<Likes>(&world), cid::<Position>(&world));
    let mut rt = Rt::new(
        &world,
        "(Likes, $x), ?Position($x)",
        world.query_builder().pair_var(likes, "x").optional(p).source_var("x"),
    );
    let view = |row: &DynRow<'_>| (row.entity(), row.is_set(1), row.get::<Position>(1).copied());
    assert_eq!(rt.rows(&world, view), sorted(vec![(a, true, Some(pos(1))), (b, false, None)]));
    world.entity_mut(t2).enable::<Position>();
    world.entity_mut(t1).disable::<Position>();
    assert_eq!(rt.rows(&world, view), sorted(vec![(a, false, None), (b, true, Some(pos(2)))]));
}

/// `Option<Fixed<&Position>>`: `None` while the source's value is disabled, rows still come.
#[test]
fn optional_fixed_source_typed() {
    let mut world = new_world();
    let src = world.spawn(pos(4)).id();
    let a = world.spawn(Tag).id();
    let mut q = world.query_filtered::<(Entity, Option<Fixed<&Position>>), With<Tag>>().with_source::<Position>(src);
    let rows = |q: &mut QueryState<(Entity, Option<Fixed<&Position>>), With<Tag>>, w: &World| {
        q.iter(w).map(|(e, p)| (e, p.copied())).collect::<Vec<_>>()
    };
    assert_eq!(rows(&mut q, &world), vec![(a, Some(pos(4)))]);
    world.entity_mut(src).disable::<Position>();
    assert_eq!(rows(&mut q, &world), vec![(a, None)]);
    world.entity_mut(src).enable::<Position>();
    assert_eq!(rows(&mut q, &world), vec![(a, Some(pos(4)))]);
}

/// Toggled components on entities that also carry `Disabled`: the entity stays
/// hidden whatever its bits; a query naming `Disabled` sees the bits.
#[test]
fn disabled_entities_and_toggles() {
    let mut world = new_world();
    let a = world.spawn((pos(1), Disabled)).id();
    let b = world.spawn((pos(2), Disabled)).id();
    let c = world.spawn(pos(3)).id();
    world.entity_mut(b).disable::<Position>();
    let mut plain = world.query::<(Entity, &Position)>();
    assert_eq!(plain.iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), vec![c]);
    let mut named = world.query_filtered::<(Entity, &Position), With<Disabled>>();
    assert_eq!(named.iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), vec![a]);
    let p = cid::<Position>(&world);
    let d = cid::<Disabled>(&world);
    let mut rt = Rt::new(&world, "Position, Disabled", world.query_builder().read(p).with(d));
    assert_eq!(rt.entities(&world), vec![a]);
    world.entity_mut(b).enable::<Position>();
    world.entity_mut(a).disable::<Position>();
    assert_eq!(rt.entities(&world), vec![b]);
    assert_eq!(named.iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), vec![b]);
    world.entity_mut(b).remove::<Disabled>();
    assert_eq!(sorted(plain.iter(&world).map(|(e, _)| e)), sorted(vec![b, c]));
}

/// `iter_tables_mut`: writing through `field_mut` only where `row_matches` holds
/// leaves disabled values alone.
#[test]
fn iter_tables_mut_writes_matching_rows() {
    let mut world = new_world();
    let es: Vec<Entity> = (0..100).map(|i| world.spawn(pos(i)).id()).collect();
    for (i, &e) in es.iter().enumerate() {
        if i % 4 == 1 {
            world.entity_mut(e).disable::<Position>();
        }
    }
    let p = cid::<Position>(&world);
    let mut dq = world.query_builder().write(p).build().unwrap();
    dq.iter_tables_mut(&mut world).for_each(|table| {
        let matches: Vec<bool> = (0..table.len()).map(|r| table.row_matches(r)).collect();
        let field = table.field_mut::<Position>(0).expect("a column");
        for (r, value) in field.iter_mut().enumerate() {
            if matches[r] {
                value.y = -1;
            }
        }
    });
    for (i, &e) in es.iter().enumerate() {
        let want = if i % 4 == 1 { i as i32 } else { -1 };
        assert_eq!(world.get::<Position>(e).unwrap().y, want, "row {i}");
    }
}

/// `up` along a traversable union (one table, a parent per row): each row reads its
/// own parent's bit; rows alternate between an enabled and a disabled parent, so
/// the per-parent cache of the fetch is exercised. A disabled parent sends the
/// walk on to its own parent.
#[test]
fn up_along_a_union_reads_each_rows_parent_bit() {
    let mut world = new_world();
    let root = world.spawn(pos(100)).id();
    let p1 = world.spawn(pos(1)).id();
    let p2 = world.spawn(pos(2)).add_pair::<Follows>(root).id();
    let kids: Vec<Entity> =
        (0..130).map(|i| world.spawn(Tag).add_pair::<Follows>(if i % 3 == 0 { p2 } else { p1 }).id()).collect();
    let (p, follows, t) = (cid::<Position>(&world), cid::<Follows>(&world), cid::<Tag>(&world));
    let mut rt = Rt::new(&world, "Tag, Position(up Follows)", world.query_builder().with(t).read(p).up(follows));
    let mut typed = world.query_filtered::<(Entity, Up<Follows, &Position>), With<Tag>>();
    let expect = |world: &World| {
        sorted(kids.iter().enumerate().filter_map(|(i, &k)| {
            let parent = if i % 3 == 0 { p2 } else { p1 };
            let value = if world.is_enabled::<Position>(parent) {
                Some(*world.get::<Position>(parent).unwrap())
            } else if parent == p2 && world.is_enabled::<Position>(root) {
                Some(pos(100))
            } else {
                None
            };
            value.map(|v| (k, v))
        }))
    };
    let check = |rt: &mut Rt,
                 typed: &mut QueryState<(Entity, Up<Follows, &Position>), With<Tag>>,
                 world: &World,
                 what: &str| {
        let want = expect(world);
        assert_eq!(rt.rows(world, |row| (row.entity(), *row.get::<Position>(1).unwrap())), want, "{what}");
        assert_eq!(sorted(typed.iter(world).map(|(e, p)| (e, *p))), want, "typed {what}");
    };
    check(&mut rt, &mut typed, &world, "all enabled");
    world.entity_mut(p2).disable::<Position>();
    check(&mut rt, &mut typed, &world, "p2 disabled: its rows read root");
    world.entity_mut(root).disable::<Position>();
    check(&mut rt, &mut typed, &world, "p2 and root disabled");
    world.entity_mut(p1).disable::<Position>();
    check(&mut rt, &mut typed, &world, "all disabled");
    assert!(expect(&world).is_empty());
    world.entity_mut(p2).enable::<Position>();
    check(&mut rt, &mut typed, &world, "p2 enabled again");
}

/// Prefab children: a disabled value on a prefab's child is what the instance's child
/// inherits (disabled); enabling it on the prefab child reaches every instance.
#[test]
fn prefab_child_with_a_disabled_value() {
    let mut world = new_world();
    let prefab = world.spawn(Prefab).id();
    let pchild = world.spawn((Name::new("turret"), Position { x: 3, y: 3 }, ChildOf.pair(prefab))).id();
    world.entity_mut(pchild).disable::<Position>();
    let i1 = world.instantiate(prefab);
    let i2 = world.instantiate(prefab);
    let mut q = world.query_filtered::<(Entity, &Position), WithPair<ChildOf>>();
    let mut parents = world.query::<(Entity, Up<ChildOf, &Position>)>();
    assert_eq!(q.iter(&world).count(), 0);
    let p = cid::<Position>(&world);
    let mut rt = Rt::new(&world, "Position", world.query_builder().read(p));
    assert!(rt.entities(&world).is_empty());
    world.entity_mut(pchild).enable::<Position>();
    let kids = sorted(q.iter(&world).map(|(e, p)| (world.target::<ChildOf>(e).unwrap(), *p)));
    assert_eq!(kids, sorted(vec![(i1, Position { x: 3, y: 3 }), (i2, Position { x: 3, y: 3 })]));
    assert_eq!(rt.entities(&world).len(), 2);
    // No instance child is anyone's parent with a Position.
    assert_eq!(parents.iter(&world).count(), 0);
}

/// Commands insert a value and disable it in one batch: the value arrives disabled.
#[test]
fn commands_insert_then_disable_in_one_batch() {
    let mut world = new_world();
    let mut q = world.query::<(Entity, &Position)>();
    let mut without = world.query_filtered::<Entity, (With<Tag>, Without<Position>)>();
    let e = world.spawn(Tag).id();
    let f = world.spawn(Tag).id();
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    commands.entity(e).insert(pos(1)).disable::<Position>();
    commands.entity(f).insert(pos(2)).disable::<Position>().enable::<Position>();
    queue.apply(&mut world);
    assert!(world.has::<Position>(e) && !world.is_enabled::<Position>(e));
    assert_eq!(q.iter(&world).map(|(e, p)| (e, *p)).collect::<Vec<_>>(), vec![(f, pos(2))]);
    assert_eq!(typed_entities(&mut without, &world), vec![e]);
}

/// A builder `[none]` presence term (`.with(p)`) and `[in]` read on an inherited
/// value agree with the prefab's bit.
#[test]
fn builder_with_term_on_an_inherited_value() {
    let mut world = new_world();
    let prefab = world.spawn((Prefab, pos(1))).id();
    let inst = world.instantiate(prefab);
    world.entity_mut(inst).insert(Tag);
    let (p, t) = (cid::<Position>(&world), cid::<Tag>(&world));
    let mut with = Rt::new(&world, "Tag, [none] Position", world.query_builder().with(t).with(p));
    let mut read = Rt::new(&world, "Tag, [in] Position", world.query_builder().with(t).read(p));
    assert_eq!(with.rows(&world, |row| (row.entity(), row.is_set(1), row.source(1))), vec![(inst, true, prefab)]);
    assert_eq!(read.entities(&world), vec![inst]);
    world.entity_mut(prefab).disable::<Position>();
    assert!(with.entities(&world).is_empty());
    assert!(read.entities(&world).is_empty());
    world.entity_mut(prefab).enable::<Position>();
    assert_eq!(with.entities(&world), vec![inst]);
}
