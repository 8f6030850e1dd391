//! Review session 9: the changes of 836e095..HEAD (c9e6523) — a user's
//! `DeferredWorld` applying on drop and `World::flush` applying hook/observer
//! commands; `Name`s written in place (`names_dirty`, `entities_named`,
//! `rebuild_name_index`); `Entity`'s `Display` padding and `PLACEHOLDER`;
//! `DynRow::source` of inherited sparse values and `var("this")`; union pairs
//! from a prefab's bases; derives keeping `for<'a>` binder lifetimes.
//!
//! Checked (passing): a `Name` written through `Single<&mut Name>`,
//! `ParamSet`, `QueryState::get_mut`/`single_mut`/`get_many_mut`,
//! `par_iter_mut`, `iter_combinations_mut`, `Option<&mut Name>`, a derived
//! mutable `QueryData`, an observer's query, a queued command closure,
//! `DeferredWorld::get_mut`, `EntityWorldMut::get_mut` and runtime queries
//! (`[inout]`/`[out]` terms) is found by `lookup` at once and after the
//! rebuild, the old name is gone, paths through a renamed parent resolve,
//! DSL names (cached and uncached) and `to_dsl` follow; runtime or-chains and
//! variable components cannot write (so cannot bypass the flag); the rebuild
//! keeps prefabs, prefab children, disabled entities and entities named like
//! components; `instantiate` after an in-place rename of a prefab child;
//! sibling/root checks of `set_name`, `spawn`, `insert` and reparenting after
//! an in-place rename; a user's `DeferredWorld` applies its commands and the
//! hook commands they cause on drop, also inside a queued command, and drops
//! (once, drop counter) what it queued when dropped by a panic; observer
//! commands of `trigger`; `Entity` width/alignment/fill and `PLACEHOLDER` in
//! `Display`/`Debug` and in `NameError` messages; the source of an inherited
//! sparse value is its holder through two levels and follows values added or
//! removed later, `var("this")` is the row; union pairs follow the override
//! order of bases, a prefab's own and a spawned one win, copies are not
//! shared, a grand base's reaches through a middle prefab; derived params
//! with `dyn for<'a> Fn`, nested binders, `Box<dyn Trait + 'static>` and a
//! `&'w dyn for<'a> Fn` field, and components/bundles/`QueryData` holding
//! higher-ranked types compile and run.
//!
//! Findings (all fixed since):
//! * a derived `SystemParam` with a field `PhantomData<for<'w> fn(&'w u8) -> &'w u8>`
//!   (struct without `'w`) or `for<'s>` (struct with only `'w`) did not
//!   compile: `with_method_lifetimes` (ecs-macros/src/fields.rs) renamed
//!   binder lifetimes too. Now a trybuild pass case,
//!   `tests/ui/pass/derive_binder_lifetimes.rs`.
//! * any `Mut<Name>` handed out made the next structural change rebuild the
//!   whole name index, and each `lookup` while dirty scanned every `Name`
//!   (~2000x / ~5000x slower loops): now only the names written are re-filed,
//!   and lookups after a query pass read a map built once per name epoch
//!   (`benches/benches/names.rs` measures both loops; no timed test here).
//! * `an_in_place_name_clash_with_a_sibling_is_not_kept_silently`: a name
//!   written in place could equal a sibling's; nothing reported it. Now the
//!   next flush takes the name back and panics naming both.

use std::marker::PhantomData;
use std::sync::atomic::{AtomicUsize, Ordering};

use ecs::prelude::*;
use ecs::world::NameError;

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct Hp(u32);

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct Tag;

#[derive(Resource, Default)]
struct Target(Option<Entity>);

fn rename(name: &mut Name, to: &'static str) {
    *name = Name::new(to);
}

// ----- 2. in-place Name writes ------------------------------------------------------

#[test]
fn single_mut_name_is_seen_by_lookup() {
    let mut world = World::new();
    let e = world.spawn((Name::new("old"), Tag)).id();
    world.run_system_once(|mut single: Single<&mut Name, With<Tag>>| rename(&mut single, "new"));
    assert_eq!(world.lookup("new"), Some(e));
    assert_eq!(world.lookup("old"), None);
    world.flush();
    assert_eq!(world.lookup("new"), Some(e));
    assert_eq!(world.lookup("old"), None);
}

#[test]
fn param_set_query_mut_name_is_seen_by_lookup() {
    let mut world = World::new();
    let e = world.spawn((Name::new("old"), Hp(1))).id();
    world.run_system_once(|mut set: ParamSet<(Query<&mut Name>, Query<&Hp>)>| {
        for mut name in set.p0().iter_mut() {
            rename(&mut name, "new");
        }
    });
    assert_eq!(world.lookup("new"), Some(e));
    assert_eq!(world.lookup("old"), None);
}

#[test]
fn query_state_get_mut_single_mut_and_get_many_mut_are_seen() {
    let mut world = World::new();
    let a = world.spawn(Name::new("a")).id();
    let b = world.spawn((Name::new("b"), Tag)).id();
    let c = world.spawn(Name::new("c")).id();
    let mut q = world.query::<&mut Name>();
    rename(&mut q.get_mut(&mut world, a).unwrap(), "a2");
    assert_eq!(world.lookup("a2"), Some(a));
    world.flush();
    let mut single = world.query_filtered::<&mut Name, With<Tag>>();
    rename(&mut single.single_mut(&mut world).unwrap(), "b2");
    assert_eq!(world.lookup("b2"), Some(b));
    world.flush();
    let [mut x] = q.get_many_mut(&mut world, [c]).unwrap();
    rename(&mut x, "c2");
    assert_eq!(world.lookup("c2"), Some(c));
    assert_eq!(world.lookup("c"), None);
}

#[test]
fn par_iter_mut_and_combinations_mut_are_seen() {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..64).map(|i| world.spawn((Name::new(format!("n{i}")), Hp(i))).id()).collect();
    let mut q = world.query::<(&mut Name, &Hp)>();
    q.par_iter_mut(&mut world).for_each(|(mut name, hp)| *name = Name::new(format!("p{}", hp.0)));
    for (i, &e) in entities.iter().enumerate() {
        assert_eq!(world.lookup(&format!("p{i}")), Some(e));
        assert_eq!(world.lookup(&format!("n{i}")), None);
    }
    world.flush();
    let mut q2 = world.query::<&mut Name>();
    let mut combos = q2.iter_combinations_mut::<2>(&mut world);
    if let Some([mut x, _]) = combos.fetch_next() {
        rename(&mut x, "combo");
    }
    drop(combos);
    let found = world.lookup("combo");
    assert!(found.is_some_and(|f| entities.contains(&f)), "{found:?}");
}

#[test]
fn option_mut_name_and_observer_query_are_seen() {
    let mut world = World::new();
    let e = world.spawn((Name::new("old"), Hp(1))).id();
    world.run_system_once(|mut q: Query<(Option<&mut Name>, &Hp)>| {
        for (name, _) in q.iter_mut() {
            if let Some(mut name) = name {
                rename(&mut name, "new");
            }
        }
    });
    assert_eq!(world.lookup("new"), Some(e));
    world.flush();
    world.add_observer(|trigger: Trigger<OnAdd, Tag>, mut names: Query<&mut Name>| {
        if let Ok(mut name) = names.get_mut(trigger.entity()) {
            rename(&mut name, "observed");
        }
    });
    world.insert(e, Tag);
    assert_eq!(world.lookup("observed"), Some(e));
    assert_eq!(world.lookup("new"), None);
}

#[test]
fn command_closure_and_deferred_world_get_mut_are_seen() {
    let mut world = World::new();
    let e = world.spawn(Name::new("old")).id();
    world.insert_resource(Target(Some(e)));
    world.run_system_once(|mut commands: Commands, target: Res<Target>| {
        let e = target.0.unwrap();
        commands.queue(move |world: &mut World| rename(&mut world.get_mut::<Name>(e).unwrap(), "queued"));
    });
    assert_eq!(world.lookup("queued"), Some(e));
    {
        let mut deferred = DeferredWorld::from(&mut world);
        rename(&mut deferred.get_mut::<Name>(e).unwrap(), "deferred");
    }
    assert_eq!(world.lookup("deferred"), Some(e));
    assert_eq!(world.lookup("queued"), None);
    rename(&mut world.entity_mut(e).get_mut::<Name>().unwrap(), "entity_mut");
    assert_eq!(world.lookup("entity_mut"), Some(e));
}

#[test]
fn runtime_query_writes_are_seen() {
    let mut world = World::new();
    let a = world.spawn((Name::new("a"), Hp(1))).id();
    for text in ["[inout] Name", "[out] Name, Hp", "Hp, [inout] Name"] {
        let mut q = world.query_dsl(text).unwrap();
        let term = if text.starts_with("Hp") { 1 } else { 0 };
        {
            let mut rows = q.iter_mut(&mut world);
            while let Some(mut row) = rows.fetch_next() {
                if row.entity() == a {
                    let mut name = row.get_mut::<Name>(term).unwrap();
                    let next = format!("{}x", name.as_str());
                    *name = Name::new(next);
                }
            }
        }
        let now = world.get::<Name>(a).unwrap().as_str().to_owned();
        assert_eq!(world.lookup(&now), Some(a), "{text}");
        world.flush();
        assert_eq!(world.lookup(&now), Some(a), "{text} after flush");
    }
}

// An or-chain cannot be written, so it cannot write a name behind the flag.
#[test]
fn runtime_query_or_chain_writing_is_refused() {
    let mut world = World::new();
    world.register_component::<Hp>();
    let error = world.query_dsl("[inout] Hp || Name").unwrap_err();
    assert!(error.message.contains("or-chain"), "{error}");
}

// A write term whose component is a variable is refused, so it cannot write
// a name behind the flag either.
#[test]
fn runtime_query_variable_component_write_is_refused() {
    let mut world = World::new();
    world.register_component::<Tag>();
    let error = world.query_dsl("Tag, [inout] $c").unwrap_err();
    assert!(error.message.contains("cannot write"), "{error}");
}

// ----- rebuild, prefabs, siblings ------------------------------------------------

#[test]
fn rebuild_keeps_prefabs_disabled_children_and_entities_named_like_components() {
    let mut world = World::new();
    world.register_component::<Hp>();
    let fighter = world.spawn((Prefab, Name::new("Fighter"))).id();
    let gun = world.spawn((Name::new("gun"), ChildOf.pair(fighter))).id();
    let off = world.spawn((Name::new("off"), Disabled)).id();
    let station = world.spawn(Name::new("station")).id();
    let dock = world.spawn((Name::new("dock"), ChildOf.pair(station))).id();
    let hp_named = world.spawn(Name::new("Hp")).id();
    let toggled = world.spawn((Name::new("other"), Hp(1))).id();
    let check = |world: &World, when: &str| {
        assert_eq!(world.lookup("Fighter"), Some(fighter), "{when}");
        assert_eq!(world.lookup("Fighter::gun"), Some(gun), "{when}");
        assert_eq!(world.lookup("off"), Some(off), "{when}");
        assert_eq!(world.lookup("station::dock"), Some(dock), "{when}");
        // Components come first in `lookup`; the entity is found as a child
        // name would be (`named_anywhere` skips internal entities).
        assert_eq!(world.lookup("Hp"), world.component_id::<Hp>(), "{when}");
        assert_eq!(world.get::<Name>(hp_named).map(Name::as_str), Some("Hp"), "{when}");
        assert_eq!(world.lookup_child(station, "dock"), Some(dock), "{when}");
        assert_eq!(world.path(dock).as_deref(), Some("station::dock"), "{when}");
    };
    check(&world, "before");
    rename(&mut world.get_mut::<Name>(toggled).unwrap(), "renamed");
    check(&world, "dirty");
    assert_eq!(world.lookup("renamed"), Some(toggled));
    world.flush();
    check(&world, "rebuilt");
    assert_eq!(world.lookup("renamed"), Some(toggled));
    assert_eq!(world.lookup("other"), None);
    world.check_invariants();
}

#[test]
fn instantiate_after_an_in_place_rename_of_a_prefab_child() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Name::new("Ship"))).id();
    let child = world.spawn((Name::new("turret"), ChildOf.pair(prefab))).id();
    rename(&mut world.get_mut::<Name>(child).unwrap(), "cannon");
    assert_eq!(world.lookup("Ship::cannon"), Some(child));
    assert_eq!(world.lookup("Ship::turret"), None);
    let inst = world.instantiate(prefab);
    let copy = world.lookup_child(inst, "cannon").expect("the instance's child has the new name");
    assert_ne!(copy, child);
    assert_eq!(world.lookup_child(inst, "turret"), None);
    world.set_name(inst, "one").unwrap();
    assert_eq!(world.lookup("one::cannon"), Some(copy));
    // A second instance while dirty again.
    rename(&mut world.get_mut::<Name>(child).unwrap(), "laser");
    let inst2 = world.instantiate(prefab);
    assert!(world.lookup_child(inst2, "laser").is_some());
    assert_eq!(world.lookup("Ship::laser"), Some(child));
    world.check_invariants();
}

#[test]
fn sibling_checks_after_an_in_place_rename() {
    let mut world = World::new();
    let parent = world.spawn(Name::new("p")).id();
    let x = world.spawn((Name::new("x"), ChildOf.pair(parent))).id();
    let y = world.spawn((Name::new("y"), ChildOf.pair(parent))).id();
    rename(&mut world.get_mut::<Name>(x).unwrap(), "z");
    // The old name is free, the new one is taken.
    assert_eq!(
        world.set_name(y, "z").map_err(|e| matches!(e, NameError::Taken { sibling, .. } if sibling == x)),
        Err(true)
    );
    assert_eq!(world.set_name(y, "x"), Ok(()));
    assert_eq!(world.lookup("p::x"), Some(y));
    rename(&mut world.get_mut::<Name>(x).unwrap(), "w");
    let fresh = world.spawn((Name::new("z"), ChildOf.pair(parent))).id();
    assert_eq!(world.lookup("p::z"), Some(fresh));
    rename(&mut world.get_mut::<Name>(x).unwrap(), "v");
    let clash = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.spawn((Name::new("v"), ChildOf.pair(parent)));
    }));
    assert!(clash.is_err(), "a new child named like the renamed one is refused");
    assert_eq!(world.lookup("p::v"), Some(x));
    // Roots too.
    let root = world.spawn(Name::new("r1")).id();
    rename(&mut world.get_mut::<Name>(root).unwrap(), "r2");
    let other = world.spawn_empty().id();
    assert!(world.set_name(other, "r2").is_err());
    assert_eq!(world.set_name(other, "r1"), Ok(()));
    assert!(
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let e = world.spawn_empty().id();
            world.insert(e, Name::new("r2"));
        }))
        .is_err()
    );
    world.check_invariants();
}

#[test]
fn reparenting_after_an_in_place_rename_is_checked() {
    let mut world = World::new();
    let a = world.spawn(Name::new("a")).id();
    let b = world.spawn(Name::new("b")).id();
    let under_a = world.spawn((Name::new("k"), ChildOf.pair(a))).id();
    let under_b = world.spawn((Name::new("m"), ChildOf.pair(b))).id();
    rename(&mut world.get_mut::<Name>(under_b).unwrap(), "k");
    // Moving `under_b` (now "k") under `a` would give `a` two children "k".
    let moved = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.add_pair::<ChildOf>(under_b, a);
    }));
    assert!(moved.is_err(), "refused");
    assert_eq!(world.lookup("a::k"), Some(under_a));
    assert_eq!(world.lookup("b::k"), Some(under_b));
    world.check_invariants();
}

#[test]
fn dsl_names_resolve_after_an_in_place_rename() {
    let mut world = World::new();
    world.register_component::<Hp>();
    let e = world.spawn((Name::new("old"), Hp(3))).id();
    let q = world.query_dsl("Hp(old)").unwrap();
    drop(q);
    rename(&mut world.get_mut::<Name>(e).unwrap(), "new");
    assert!(world.query_dsl("Hp(old)").is_err(), "the old name is gone (cached)");
    assert!(world.query_dsl_uncached("Hp(old)").is_err(), "the old name is gone (uncached)");
    let mut q = world.query_dsl("Hp(new)").unwrap();
    let mut seen = Vec::new();
    for row in q.iter(&world) {
        seen.push(row.source(0));
    }
    assert_eq!(seen, vec![e]);
}

#[test]
fn path_and_lookup_through_a_renamed_parent() {
    let mut world = World::new();
    let p = world.spawn(Name::new("p")).id();
    let c = world.spawn((Name::new("c"), ChildOf.pair(p))).id();
    world.run_system_once(|mut q: Query<&mut Name, Without<ChildOf>>| {
        for mut name in q.iter_mut() {
            if name.as_str() == "p" {
                rename(&mut name, "q");
            }
        }
    });
    assert_eq!(world.path(c).as_deref(), Some("q::c"));
    assert_eq!(world.lookup("q::c"), Some(c));
    assert_eq!(world.lookup("p::c"), None);
    assert_eq!(world.lookup("p"), None);
}

// ----- 4. DynRow::source of inherited sparse values ---------------------------------

#[derive(Component, Debug, PartialEq, Clone, Copy)]
#[component(storage = "sparse")]
struct Speed(u32);

#[test]
fn sparse_source_is_the_holder_through_two_levels_and_follows_new_values() {
    let mut world = World::new();
    world.register_component::<Speed>();
    let root = world.spawn((Prefab, Speed(1))).id();
    let mid = world.spawn((Prefab, IsA.pair(root))).id();
    let inst = world.spawn(IsA.pair(mid)).id();
    let rows = |world: &World| {
        let mut q = world.query_dsl_uncached("Speed").unwrap();
        let mut out: Vec<(Entity, Entity, Option<Speed>)> = q
            .iter(world)
            .map(|row| (row.entity(), row.source(0), row.get::<Speed>(0).copied()))
            .filter(|row| row.0 == inst)
            .collect();
        out.sort_by_key(|row| row.0);
        out
    };
    assert_eq!(rows(&world), vec![(inst, root, Some(Speed(1)))], "the value and its holder: root");
    world.insert(mid, Speed(2));
    assert_eq!(world.get::<Speed>(inst), Some(&Speed(2)));
    assert_eq!(rows(&world), vec![(inst, mid, Some(Speed(2)))], "mid holds one now");
    world.insert(inst, Speed(3));
    assert_eq!(rows(&world), vec![(inst, inst, Some(Speed(3)))], "its own");
    world.remove::<Speed>(inst);
    assert_eq!(rows(&world), vec![(inst, mid, Some(Speed(2)))], "uncovered");
}

#[test]
fn var_this_is_the_row_entity_for_inherited_sparse_rows() {
    let mut world = World::new();
    world.register_component::<Speed>();
    let base = world.spawn((Prefab, Speed(1))).id();
    let inst = world.spawn(IsA.pair(base)).id();
    let mut q = world.query_dsl("Speed").unwrap();
    let seen: Vec<(Entity, Option<Entity>, Entity)> =
        q.iter(&world).map(|row| (row.entity(), row.var("this"), row.source(0))).collect();
    assert_eq!(seen, vec![(inst, Some(inst), base)]);
}

// ----- 5. union pairs from a prefab's bases -----------------------------------------

#[derive(Relationship)]
#[relationship(union)]
struct Movement;

#[derive(Component, Clone, Debug, PartialEq)]
#[component(on_instantiate = "override")]
struct Armor(u32);

fn union_targets(world: &World, e: Entity) -> Vec<Entity> {
    world.targets::<Movement>(e).collect()
}

#[test]
fn union_pairs_follow_the_override_order_of_bases() {
    let mut world = World::new();
    let (walking, running, flying) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    let light = world.spawn(Prefab).id();
    let heavy = world.spawn(Prefab).id();
    let prefab = world.spawn(Prefab).id();
    world.add_pair::<IsA>(prefab, heavy);
    world.add_pair::<IsA>(prefab, light);
    world.insert(heavy, Armor(2));
    world.insert(light, Armor(1));
    world.add_pair::<Movement>(light, walking);
    world.add_pair::<Movement>(heavy, running);
    let inst = world.instantiate(prefab);
    assert_eq!(world.get::<Armor>(inst), Some(&Armor(2)));
    assert_eq!(union_targets(&world, inst), vec![running], "the first added base, as Armor");
    // The prefab's own beats its bases.
    world.add_pair::<Movement>(prefab, flying);
    let inst2 = world.instantiate(prefab);
    assert_eq!(union_targets(&world, inst2), vec![flying]);
    // One given in the spawn wins; the copy is not shared.
    let inst3 = world.spawn((IsA.pair(prefab), Movement.pair(walking))).id();
    assert_eq!(union_targets(&world, inst3), vec![walking]);
    world.add_pair::<Movement>(prefab, running);
    assert_eq!(union_targets(&world, inst2), vec![flying], "a copy, not shared");
    world.check_invariants();
}

#[test]
fn union_pair_of_a_grand_base_through_a_middle_prefab_with_none() {
    let mut world = World::new();
    let walking = world.spawn_empty().id();
    let root = world.spawn(Prefab).id();
    let mid = world.spawn((Prefab, IsA.pair(root))).id();
    let prefab = world.spawn((Prefab, IsA.pair(mid))).id();
    world.add_pair::<Movement>(root, walking);
    world.insert(root, Armor(7));
    let inst = world.instantiate(prefab);
    assert_eq!(world.get::<Armor>(inst), Some(&Armor(7)));
    assert_eq!(union_targets(&world, inst), vec![walking]);
    // The target despawned before a later instance: no pair to a dead target.
    world.despawn(walking);
    let inst2 = world.instantiate(prefab);
    assert!(union_targets(&world, inst2).iter().all(|&t| world.is_alive(t)));
    world.check_invariants();
}

// ----- 6. derives with higher-ranked types ------------------------------------------

type Callback = Box<dyn for<'a> Fn(&'a Hp) -> &'a u32 + Send + Sync>;

#[derive(Resource)]
struct Callbacks(Vec<Callback>);

trait Scorer: Send + Sync {
    fn score(&self, hp: &Hp) -> u32;
}

struct Double;
impl Scorer for Double {
    fn score(&self, hp: &Hp) -> u32 {
        hp.0 * 2
    }
}

// The types are spelled out (not aliased) so that the derive sees them.
#[allow(clippy::type_complexity)]
#[derive(SystemParam)]
struct HigherRanked<'w, 's> {
    hps: Query<'w, 's, &'static Hp>,
    callbacks: Res<'w, Callbacks>,
    scorer: Local<'s, Option<Box<dyn Scorer + 'static>>>,
    cached: Local<'s, Option<Box<dyn for<'a> Fn(&'a u32) -> u32 + Send + Sync>>>,
    nested: PhantomData<for<'a> fn(&'a u8, for<'b> fn(&'b u8) -> &'b u8) -> &'a u8>,
    object: PhantomData<&'w (dyn for<'a> Fn(&'a Hp) -> &'a u32 + Sync)>,
}

#[derive(Component)]
struct OnHit(Box<dyn for<'a> Fn(&'a Hp) -> &'a u32 + Send + Sync>);

#[derive(Component)]
struct Filter(fn(&Hp) -> bool);

#[derive(Bundle)]
struct Reactive {
    hp: Hp,
    on_hit: OnHit,
    filter: Filter,
}

#[derive(QueryData)]
struct ReadsCallbacks<'w> {
    hp: &'w Hp,
    on_hit: &'w OnHit,
    filter: Option<&'w Filter>,
}

#[test]
fn components_bundles_and_query_data_with_higher_ranked_types() {
    let mut world = World::new();
    world.spawn(Reactive { hp: Hp(5), on_hit: OnHit(Box::new(|hp: &Hp| &hp.0)), filter: Filter(|hp| hp.0 > 1) });
    let seen = world.run_system_once(|q: Query<ReadsCallbacks>| {
        q.iter()
            .filter(|item| item.filter.is_none_or(|f| (f.0)(item.hp)))
            .map(|item| *(item.on_hit.0)(item.hp))
            .sum::<u32>()
    });
    assert_eq!(seen, 5);
}

#[derive(QueryData)]
#[query_data(mutable)]
struct NamedMut<'w> {
    name: &'w mut Name,
    hp: &'w Hp,
}

#[test]
fn derived_params_with_higher_ranked_fields_run() {
    let mut world = World::new();
    world.spawn(Hp(3));
    world.spawn(Hp(4));
    let first: Callback = Box::new(|hp: &Hp| &hp.0);
    world.insert_resource(Callbacks(vec![first]));
    let total = world.run_system_once(|mut param: HigherRanked| {
        let _ = (param.nested, param.object);
        let scorer = param.scorer.get_or_insert_with(|| Box::new(Double));
        let doubled: u32 = param.hps.iter().map(|hp| scorer.score(hp)).sum();
        let add_one = param.cached.get_or_insert_with(|| Box::new(|x: &u32| x + 1));
        let read: u32 = param.hps.iter().map(|hp| add_one(param.callbacks.0[0](hp))).sum();
        doubled + read
    });
    assert_eq!(total, 14 + 9);
}

// The derive case of a `for<'w>`/`for<'s>` binder (a finding, fixed) is
// `tests/ui/pass/derive_binder_lifetimes.rs`.

#[test]
fn derived_mutable_query_data_writing_name_is_seen() {
    let mut world = World::new();
    let e = world.spawn((Name::new("old"), Hp(1))).id();
    world.run_system_once(|mut q: Query<NamedMut>| {
        for mut item in q.iter_mut() {
            let next = format!("{}-{}", item.name.as_str(), item.hp.0);
            *item.name = Name::new(next);
        }
    });
    assert_eq!(world.lookup("old-1"), Some(e));
    assert_eq!(world.lookup("old"), None);
}

// ----- performance -------------------------------------------------------------

// Two findings (fixed) were performance traps: a `Mut<Name>` hand-out made the
// next structural change rebuild the whole name index, and every lookup while
// names written in place were not re-filed read every name. Speed lives in
// benchmarks, not timed tests: `benches/benches/names.rs` measures both loops.

// ----- in-place names that clash ------------------------------------------------

// Finding (broken invariant, documented on `Name` but against API.md): a
// `Name` written in place may equal a sibling's, and nothing ever notices.
// API.md: "names are unique among siblings (a clash is refused with an error
// that names both entities; never two siblings with one name)"; names.rs: "a
// path always looks up the entity it was made from". Expected: the clash is
// refused or reported (the write undone, or a panic naming both entities at
// the latest when the index is rebuilt), or at least `lookup(path(y))` is
// `y`. Actual: after the write and a flush, `y` and `x` are both `p::x`,
// `path(y)` looks up `x`, `check_invariants` passes. Cause:
// `World::rebuild_name_index` (ecs/src/world/names.rs), the one place that
// sees every in-place write, re-indexes names without the sibling check
// that `name_inserted`/`set_name` apply; `World::check_invariants` does not
// check sibling names either.
#[test]
fn an_in_place_name_clash_with_a_sibling_is_not_kept_silently() {
    let mut world = World::new();
    let parent = world.spawn(Name::new("p")).id();
    let x = world.spawn((Name::new("x"), ChildOf.pair(parent))).id();
    let y = world.spawn((Name::new("y"), ChildOf.pair(parent))).id();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rename(&mut world.get_mut::<Name>(y).unwrap(), "x");
        world.flush();
    }));
    if outcome.is_ok() {
        let names: Vec<Option<String>> =
            [x, y].iter().map(|&e| world.get::<Name>(e).map(|n| n.as_str().to_owned())).collect();
        assert_ne!(names[0], names[1], "two siblings with one name");
        let path = world.path(y).unwrap();
        assert_eq!(world.lookup(&path), Some(y), "{path}");
    }
    world.check_invariants();
}

#[test]
fn to_dsl_after_an_in_place_rename_names_no_stale_entity() {
    let mut world = World::new();
    world.register_component::<Hp>();
    let e = world.spawn((Name::new("old"), Hp(3))).id();
    let other = world.spawn((Name::new("new2"), Hp(4))).id();
    let q = world.query_dsl("Hp(old)").unwrap();
    assert_eq!(q.to_dsl(), "Hp(old)");
    rename(&mut world.get_mut::<Name>(e).unwrap(), "fresh");
    rename(&mut world.get_mut::<Name>(other).unwrap(), "old");
    let text = q.to_dsl();
    let parsed = world.query_dsl_uncached(&text).unwrap();
    let mut parsed_sources = Vec::new();
    let mut parsed = parsed;
    for row in parsed.iter(&world) {
        parsed_sources.push(row.source(0));
    }
    assert_eq!(parsed_sources, vec![e], "{text} must still name {e:?}");
}

#[derive(Event)]
struct Ping;

#[test]
fn observer_commands_of_a_trigger_are_applied_by_then() {
    let mut world = World::new();
    world.add_observer(|_: Trigger<Ping>, mut commands: Commands| {
        commands.spawn(Tag);
    });
    world.trigger(Ping);
    world.flush();
    assert_eq!(world.query_filtered::<Entity, With<Tag>>().iter(&world).count(), 1);
}

// ----- 1. DeferredWorld made by the user, World::flush ------------------------------

static DROPS: AtomicUsize = AtomicUsize::new(0);

#[derive(Component)]
struct Droppy;

impl Drop for Droppy {
    fn drop(&mut self) {
        DROPS.fetch_add(1, Ordering::SeqCst);
    }
}

#[derive(Component)]
#[component(on_add = tag_on_add)]
struct Chain;

fn tag_on_add(mut world: DeferredWorld, context: HookContext) {
    world.commands().entity(context.entity).insert(Tag);
}

#[test]
fn a_users_deferred_world_applies_on_drop_and_drops_on_panic() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    let spawned;
    {
        let mut deferred = DeferredWorld::from(&mut world);
        let mut commands = deferred.commands();
        commands.entity(e).insert(Chain);
        spawned = commands.spawn(Droppy).id();
    }
    // Its commands, and those the hooks they ran queued, are all applied.
    assert!(world.has::<Chain>(e));
    assert!(world.has::<Tag>(e), "the hook's own command ran too");
    assert!(world.is_alive(spawned) && world.has::<Droppy>(spawned));
    let before = DROPS.load(Ordering::SeqCst);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut deferred = DeferredWorld::from(&mut world);
        deferred.commands().spawn(Droppy);
        panic!("boom");
    }));
    assert!(result.is_err());
    world.flush();
    assert_eq!(DROPS.load(Ordering::SeqCst), before + 1, "the queued value is dropped once, not applied");
    assert_eq!(world.query_filtered::<Entity, With<Droppy>>().iter(&world).count(), 1);
    world.despawn(spawned);
    assert_eq!(DROPS.load(Ordering::SeqCst), before + 2);
    world.check_invariants();
}

#[test]
fn a_users_deferred_world_inside_a_queued_command() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    world.insert_resource(Target(Some(e)));
    world.run_system_once(|mut commands: Commands, target: Res<Target>| {
        let e = target.0.unwrap();
        commands.queue(move |world: &mut World| {
            {
                let mut deferred = DeferredWorld::from(&mut *world);
                deferred.commands().entity(e).insert(Chain);
            }
            // Applied when the DeferredWorld was dropped, within the command.
            assert!(world.has::<Chain>(e) && world.has::<Tag>(e));
        });
        commands.entity(e).insert(Hp(1));
    });
    assert!(world.has::<Hp>(e) && world.has::<Tag>(e));
    world.check_invariants();
}

// ----- 3. Entity Display / Debug ------------------------------------------------------

#[test]
fn entity_display_pads_and_placeholder_prints_its_name() {
    let e = Entity::from_raw(42, 3);
    assert_eq!(format!("{e}"), "42v3");
    assert_eq!(format!("{e:?}"), "42v3");
    assert_eq!(format!("[{e:>6}]"), "[  42v3]");
    assert_eq!(format!("[{e:<6}]"), "[42v3  ]");
    assert_eq!(format!("[{e:^8}]"), "[  42v3  ]");
    assert_eq!(format!("[{e:*>7}]"), "[***42v3]");
    assert_eq!(format!("{}", Entity::PLACEHOLDER), "PLACEHOLDER");
    assert_eq!(format!("{:?}", Entity::PLACEHOLDER), "PLACEHOLDER");
    assert_eq!(format!("[{:>12}]", Entity::PLACEHOLDER), "[ PLACEHOLDER]");
    let big = Entity::from_raw(u32::MAX - 1, (1 << 31) - 1);
    assert_eq!(format!("{big}"), format!("{}v{}", big.index(), big.generation()));
    assert_eq!(format!("{big}"), format!("{big:?}"));
}

#[test]
fn messages_naming_entities_still_read_well() {
    let mut world = World::new();
    let a = world.spawn(Name::new("tank")).id();
    let b = world.spawn_empty().id();
    let error = world.set_name(b, "tank").unwrap_err();
    let text = error.to_string();
    assert!(text.contains(&format!("{a}")) && text.contains(&format!("{b}")), "{text}");
    world.despawn(b);
    let text = world.set_name(b, "x").unwrap_err().to_string();
    assert_eq!(text, format!("entity {b} is not alive"));
    assert!(!text.contains("PLACEHOLDER"));
    let text = world.set_name(Entity::PLACEHOLDER, "x").unwrap_err().to_string();
    assert_eq!(text, "entity PLACEHOLDER is not alive");
}
