//! The derives: `Component` (NAME/ID consts, `#[component(storage, hooks)]`),
//! `Bundle` (named, tuple, unit, generic and nested structs), `Resource`, and
//! hygiene under `#![no_implicit_prelude]`.

use ecs::component::{ComponentHooks, Hook, HookContext, StorageKind};
use ecs::entity::ArchetypeId;
use ecs::prelude::*;
use ecs::util::{component_type_id, fnv1a_64};
use ecs::world::HookFn;

// ----- Component -----------------------------------------------------------------------

#[derive(Component, Debug, PartialEq, Clone, Copy, Default)]
struct Position {
    x: i32,
    y: i32,
}

#[derive(Component, Debug, PartialEq, Clone, Copy, Default)]
struct Velocity {
    x: i32,
    y: i32,
}

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct Health(u32);

#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse")]
struct Stunned(u32);

#[derive(Component, Debug, PartialEq)]
#[component(storage = "table")]
struct ExplicitTable(u8);

#[derive(Component, Debug, PartialEq)]
struct Enemy;

fn health_added(mut world: DeferredWorld, ctx: HookContext) {
    if let Some(mut health) = world.get_mut::<Hooked>(ctx.entity) {
        health.0 += 1;
    }
}

fn health_removed(_world: DeferredWorld, _ctx: HookContext) {}

fn inserted(_world: DeferredWorld<'_>, _ctx: HookContext) {}

fn replaced(_world: DeferredWorld<'_>, _ctx: HookContext) {}

#[derive(Component, Debug, PartialEq)]
#[component(on_add = health_added, on_remove = health_removed)]
struct Hooked(u32);

#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse", on_insert = inserted, on_replace = self::replaced)]
struct SparseHooked(u32);

#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse")]
#[component(on_add = health_added, on_insert = inserted, on_replace = replaced, on_remove = health_removed)]
struct TwoAttributes;

#[derive(Component, Debug, PartialEq, Clone, Copy)]
enum Mode {
    Idle,
    Running(u8),
}

#[derive(Component, Debug, PartialEq)]
struct r#Raw(u8);

mod inner {
    use ecs::prelude::*;

    #[derive(Component)]
    pub struct Position;
}

fn same_fn(hook: Option<Hook>, expected: HookFn) -> bool {
    hook.is_some_and(|hook| hook.get() as usize == expected as usize)
}

#[test]
fn name_and_id_consts() {
    assert_eq!(Position::NAME, "Position");
    assert_eq!(Position::ID, component_type_id(module_path!(), "Position"));
    assert_eq!(Position::ID, component_type_id("derives", "Position"));
    assert_eq!(Position::ID, fnv1a_64(b"derives::Position"));
    assert_eq!(inner::Position::NAME, "Position");
    assert_eq!(inner::Position::ID, component_type_id("derives::inner", "Position"));
    assert_ne!(Position::ID, inner::Position::ID);
    assert_eq!(Mode::NAME, "Mode");
    assert_eq!(Raw::NAME, "Raw", "raw identifiers lose their r#");
    assert_eq!(Raw::ID, component_type_id("derives", "Raw"));
    assert_eq!(Name::ID, component_type_id("ecs::component", "Name"));
}

#[test]
fn ids_are_usable_in_const_context() {
    const IDS: [u64; 3] = [Position::ID, Velocity::ID, Health::ID];
    const _: () = assert!(Position::ID != Velocity::ID);
    assert_eq!(IDS[0], component_type_id("derives", "Position"));
    let label = match Velocity::ID {
        Position::ID => "position",
        Velocity::ID => "velocity",
        _ => "other",
    };
    assert_eq!(label, "velocity");
}

#[test]
fn the_world_records_the_derived_type_hash() {
    let mut world = World::new();
    let id = world.register_component::<Position>();
    assert_eq!(world.component_info(id).unwrap().type_hash(), Position::ID);
    assert_eq!(world.lookup("Raw"), None);
    let raw = world.register_component::<Raw>();
    assert_eq!(world.lookup("Raw"), Some(raw));
}

#[test]
fn storage_attribute() {
    assert_eq!(Position::STORAGE, StorageKind::Table);
    assert_eq!(ExplicitTable::STORAGE, StorageKind::Table);
    assert_eq!(Stunned::STORAGE, StorageKind::Sparse);
    assert_eq!(TwoAttributes::STORAGE, StorageKind::Sparse);
    assert_eq!(Hooked::STORAGE, StorageKind::Table);

    let mut world = World::new();
    let e = world.spawn((Position::default(), Stunned(1), ExplicitTable(2))).id();
    let archetype = &world.archetypes()[world.entity(e).archetype()];
    assert_eq!(archetype.ids().len(), 2, "the sparse component is not in the archetype");
    let stunned = world.component_id::<Stunned>().unwrap();
    assert_eq!(world.component_info(stunned).unwrap().storage(), StorageKind::Sparse);
    assert_eq!(world.sparse_sets().of(stunned).map(|set| set.len()), Some(1));
}

#[test]
fn hook_attributes_fill_the_hook_slots() {
    let hooks: ComponentHooks = Hooked::HOOKS;
    assert!(same_fn(hooks.on_add, health_added));
    assert!(hooks.on_insert.is_none());
    assert!(hooks.on_replace.is_none());
    assert!(same_fn(hooks.on_remove, health_removed));

    let hooks = SparseHooked::HOOKS;
    assert!(hooks.on_add.is_none());
    assert!(same_fn(hooks.on_insert, inserted));
    assert!(same_fn(hooks.on_replace, replaced));
    assert!(hooks.on_remove.is_none());

    let hooks = TwoAttributes::HOOKS;
    assert!(same_fn(hooks.on_add, health_added));
    assert!(same_fn(hooks.on_insert, inserted));
    assert!(same_fn(hooks.on_replace, replaced));
    assert!(same_fn(hooks.on_remove, health_removed));

    assert!(!Position::HOOKS.any());
    assert!(Hooked::HOOKS.any());
}

#[test]
fn registered_components_carry_their_hooks() {
    let mut world = World::new();
    let id = world.register_component::<Hooked>();
    let hooks = world.component_info(id).unwrap().hooks();
    assert!(same_fn(hooks.on_add, health_added));
    assert!(same_fn(hooks.on_remove, health_removed));
    let plain = world.register_component::<Position>();
    assert!(!world.component_info(plain).unwrap().hooks().any());
}

#[test]
fn a_stored_hook_can_be_called() {
    let mut world = World::new();
    let e = world.spawn(Hooked(10)).id();
    // Spawning ran `on_add` once.
    assert_eq!(world.get::<Hooked>(e), Some(&Hooked(11)));
    let component_id = world.component_id::<Hooked>().unwrap();
    let hook = Hooked::HOOKS.on_add.unwrap();
    hook.call(DeferredWorld::from(&mut world), HookContext { entity: e, component_id });
    assert_eq!(world.get::<Hooked>(e), Some(&Hooked(12)));
}

#[test]
fn enum_and_raw_named_components_round_trip() {
    let mut world = World::new();
    let e = world.spawn((Mode::Running(3), Raw(4))).id();
    let f = world.spawn(Mode::Idle).id();
    assert_eq!(world.get::<Mode>(e), Some(&Mode::Running(3)));
    assert_eq!(world.get::<Mode>(f), Some(&Mode::Idle));
    assert_eq!(world.get::<Raw>(e), Some(&Raw(4)));
    world.check_invariants();
}

// ----- Bundle --------------------------------------------------------------------------

#[derive(Bundle, Debug, PartialEq)]
struct Mover {
    pos: Position,
    vel: Velocity,
}

#[derive(Bundle, Debug, PartialEq)]
struct Pair(Health, Stunned);

#[derive(Bundle, Debug, PartialEq)]
struct Nothing;

#[derive(Bundle, Debug, PartialEq)]
struct Braces {}

#[derive(Bundle, Debug, PartialEq)]
struct Ship {
    mover: Mover,
    hull: (Health,),
    tag: Enemy,
    extra: Nothing,
}

#[derive(Bundle, Debug, PartialEq)]
struct Fleet(Ship, (ExplicitTable, Mode));

#[derive(Bundle, Debug, PartialEq)]
struct WithExtra<T: Bundle> {
    base: Mover,
    extra: T,
}

#[derive(Bundle, Debug, PartialEq)]
struct RawField {
    r#type: Raw,
}

fn mover(x: i32) -> Mover {
    Mover { pos: Position { x, y: x }, vel: Velocity { x: -x, y: 0 } }
}

fn ship(x: i32) -> Ship {
    Ship { mover: mover(x), hull: (Health(x as u32),), tag: Enemy, extra: Nothing }
}

#[test]
fn named_bundle_spawns_and_removes_in_field_order() {
    let mut world = World::new();
    let e = world.spawn(mover(1)).id();
    assert_eq!(world.get::<Position>(e), Some(&Position { x: 1, y: 1 }));
    assert_eq!(world.get::<Velocity>(e), Some(&Velocity { x: -1, y: 0 }));
    world.insert(e, mover(2));
    assert_eq!(world.remove::<Mover>(e), Some(mover(2)));
    assert_eq!(world.entity(e).archetype(), ArchetypeId::EMPTY);
    assert_eq!(world.remove::<Mover>(e), None);
    world.check_invariants();
}

#[test]
fn tuple_struct_bundle_with_a_sparse_field() {
    let mut world = World::new();
    let e = world.spawn(Pair(Health(3), Stunned(4))).id();
    assert_eq!(world.get::<Health>(e), Some(&Health(3)));
    assert_eq!(world.get::<Stunned>(e), Some(&Stunned(4)));
    assert_eq!(world.remove::<Pair>(e), Some(Pair(Health(3), Stunned(4))));
    assert!(!world.has::<Stunned>(e));
    world.check_invariants();
}

#[test]
fn unit_and_empty_struct_bundles_are_empty() {
    let mut world = World::new();
    let a = world.spawn(Nothing).id();
    let b = world.spawn(Braces {}).id();
    assert_eq!(world.entity(a).archetype(), ArchetypeId::EMPTY);
    assert_eq!(world.entity(b).archetype(), ArchetypeId::EMPTY);
    assert!(world.insert(a, Nothing));
    assert_eq!(world.remove::<Nothing>(a), Some(Nothing), "an empty bundle is always fully present");
    assert_eq!(world.remove::<Braces>(b), Some(Braces {}));
    world.check_invariants();
}

#[test]
fn nested_bundles_flatten() {
    let mut world = World::new();
    let e = world.spawn(Fleet(ship(5), (ExplicitTable(6), Mode::Running(7)))).id();
    assert_eq!(world.get::<Position>(e), Some(&Position { x: 5, y: 5 }));
    assert_eq!(world.get::<Health>(e), Some(&Health(5)));
    assert!(world.has::<Enemy>(e));
    assert_eq!(world.get::<Mode>(e), Some(&Mode::Running(7)));
    assert_eq!(world.archetypes()[world.entity(e).archetype()].ids().len(), 6);

    let removed = world.remove::<Ship>(e).unwrap();
    assert_eq!(removed, ship(5));
    assert_eq!(world.get::<ExplicitTable>(e), Some(&ExplicitTable(6)));
    assert!(!world.has::<Enemy>(e) && !world.has::<Velocity>(e));
    world.insert(e, ship(8));
    assert_eq!(world.remove::<Fleet>(e), Some(Fleet(ship(8), (ExplicitTable(6), Mode::Running(7)))));
    assert_eq!(world.entity(e).archetype(), ArchetypeId::EMPTY);
    world.check_invariants();
}

#[test]
fn generic_bundles() {
    let mut world = World::new();
    let e = world.spawn(WithExtra { base: mover(1), extra: Health(2) }).id();
    let f = world.spawn(WithExtra { base: mover(3), extra: (Stunned(4), Enemy) }).id();
    assert_eq!(world.get::<Health>(e), Some(&Health(2)));
    assert_eq!(world.get::<Stunned>(f), Some(&Stunned(4)));
    assert_eq!(world.remove::<WithExtra<Health>>(e), Some(WithExtra { base: mover(1), extra: Health(2) }));
    assert!(world.remove::<WithExtra<Health>>(f).is_none(), "f has no Health");
    assert!(world.has::<Position>(f), "all or nothing");
    world.entity_mut(f).remove::<WithExtra<Health>>();
    assert!(!world.has::<Position>(f), "the present part was removed");
    assert!(world.has::<Stunned>(f));
    world.check_invariants();
}

#[test]
fn raw_field_names() {
    let mut world = World::new();
    let e = world.spawn(RawField { r#type: Raw(9) }).id();
    assert_eq!(world.remove::<RawField>(e), Some(RawField { r#type: Raw(9) }));
}

// ----- Resource ------------------------------------------------------------------------

#[derive(Resource, Debug, PartialEq, Default)]
struct Time {
    dt: u32,
}

#[derive(Resource, Debug, PartialEq)]
enum Phase {
    Setup,
    Run,
}

#[derive(Resource, Debug, PartialEq)]
struct Assets<T: Send + Sync + 'static>(Vec<T>);

#[test]
fn resource_derive_on_structs_enums_and_generics() {
    let mut world = World::new();
    world.init_resource::<Time>();
    world.insert_resource(Phase::Setup);
    world.insert_resource(Assets(vec![1u32, 2]));
    world.insert_resource(Assets(vec![String::from("a")]));
    world.resource_mut::<Time>().dt = 16;
    *world.resource_mut::<Phase>() = Phase::Run;
    assert_eq!(world.resource::<Time>(), &Time { dt: 16 });
    assert_eq!(world.resource::<Phase>(), &Phase::Run);
    assert_eq!(world.resource::<Assets<u32>>(), &Assets(vec![1, 2]));
    assert_eq!(world.resource::<Assets<String>>().0, ["a"]);
    assert_eq!(world.resources().len(), 4, "each instantiation is its own resource");
    assert_eq!(world.remove_resource::<Phase>(), Some(Phase::Run));
    assert!(!matches!(world.get_resource::<Phase>(), Some(Phase::Setup)));
}

// ----- hygiene -------------------------------------------------------------------------

/// The derives expand to absolute paths only, so they compile without the prelude.
mod hygiene {
    #![no_implicit_prelude]

    pub fn on_add(_world: ::ecs::world::DeferredWorld<'_>, _ctx: ::ecs::component::HookContext) {}

    #[derive(::ecs::Component)]
    pub struct Pos(pub i32);

    #[derive(::ecs::Component)]
    #[component(storage = "sparse", on_add = on_add, on_remove = self::on_add)]
    pub struct Flag;

    #[derive(::ecs::Component)]
    pub enum Kind {
        A,
        B(u8),
    }

    #[derive(::ecs::Bundle)]
    pub struct Named {
        pub pos: Pos,
        pub kind: Kind,
    }

    #[derive(::ecs::Bundle)]
    pub struct Tuple(pub Named, pub (Flag,));

    #[derive(::ecs::Bundle)]
    pub struct Unit;

    #[derive(::ecs::Bundle)]
    pub struct Generic<T: ::ecs::bundle::Bundle> {
        pub inner: T,
    }

    #[derive(::ecs::Resource)]
    pub struct Settings {
        pub volume: u8,
    }

    #[derive(::ecs::Resource)]
    pub struct Wrapper<T: ::core::marker::Send + ::core::marker::Sync + 'static>(pub T);
}

#[test]
fn derives_compile_without_the_implicit_prelude() {
    use hygiene::{Flag, Generic, Kind, Named, Pos, Settings, Tuple, Unit, Wrapper};

    assert_eq!(Pos::NAME, "Pos");
    assert_eq!(Pos::ID, component_type_id("derives::hygiene", "Pos"));
    assert_eq!(Flag::STORAGE, StorageKind::Sparse);
    assert!(same_fn(Flag::HOOKS.on_add, hygiene::on_add));
    assert!(same_fn(Flag::HOOKS.on_remove, hygiene::on_add));
    assert_eq!(Kind::NAME, "Kind");

    let mut world = World::new();
    let e = world.spawn(Tuple(Named { pos: Pos(1), kind: Kind::B(2) }, (Flag,))).id();
    let f = world.spawn(Generic { inner: (Unit, Pos(3), Kind::A) }).id();
    assert_eq!(world.get::<Pos>(e).map(|p| p.0), Some(1));
    assert!(matches!(world.get::<Kind>(e), Some(Kind::B(2))));
    assert!(world.has::<Flag>(e));
    assert_eq!(world.get::<Pos>(f).map(|p| p.0), Some(3));
    assert!(matches!(world.get::<Kind>(f), Some(Kind::A)));
    let named = world.remove::<Named>(e).unwrap();
    assert_eq!(named.pos.0, 1);
    assert!(world.has::<Flag>(e));

    world.insert_resource(Settings { volume: 7 });
    world.insert_resource(Wrapper(5u8));
    assert_eq!(world.resource::<Settings>().volume, 7);
    assert_eq!(world.resource::<Wrapper<u8>>().0, 5);
    world.check_invariants();
}

// ----- QueryData, QueryFilter, SystemParam, #[system] -------------------------------------

mod query_derives {
    use ecs::prelude::*;

    #[derive(Component, Debug, PartialEq, Clone, Copy)]
    struct Position(f32);
    #[derive(Component, Debug, PartialEq, Clone, Copy)]
    struct Velocity(f32);
    #[derive(Component)]
    struct Enemy;
    #[derive(Component)]
    struct Dead;
    #[derive(Resource)]
    struct Time(f32);

    #[derive(QueryData)]
    #[query_data(mutable)]
    struct Mover<'w> {
        entity: Entity,
        position: &'w mut Position,
        velocity: &'w Velocity,
    }

    #[derive(QueryData)]
    struct Reader<'w> {
        position: &'w Position,
        velocity: Option<&'w Velocity>,
    }

    #[derive(QueryFilter)]
    struct LiveEnemies {
        _enemy: With<Enemy>,
        _alive: Without<Dead>,
    }

    #[derive(SystemParam)]
    struct Movement<'w, 's> {
        movers: Query<'w, 's, Mover<'static>, LiveEnemies>,
        time: Res<'w, Time>,
    }

    #[system]
    fn move_live_enemies(mut movement: Movement) {
        let dt = movement.time.0;
        for mover in movement.movers.iter_mut() {
            let MoverItem { entity: _, mut position, velocity } = mover;
            position.0 += velocity.0 * dt;
        }
    }

    #[system]
    fn disjoint(mut enemies: Query<&mut Position, With<Enemy>>, mut others: Query<&mut Position, Without<Enemy>>) {
        for mut position in enemies.iter_mut() {
            position.0 += 100.0;
        }
        for mut position in others.iter_mut() {
            position.0 -= 100.0;
        }
    }

    #[test]
    fn derived_query_data_yields_named_items() {
        let mut world = World::new();
        let e = world.spawn((Position(1.0), Velocity(2.0))).id();
        world.spawn(Position(5.0));
        let mut movers = world.query::<Mover>();
        for mover in movers.iter_mut(&mut world) {
            assert_eq!(mover.entity, e);
            let mut position = mover.position;
            position.0 += mover.velocity.0;
        }
        assert_eq!(world.get::<Position>(e), Some(&Position(3.0)));
        // the read-only form, for `iter`
        let read: Vec<(Entity, f32)> = movers.iter(&world).map(|m| (m.entity, m.position.0)).collect();
        assert_eq!(read, vec![(e, 3.0)]);
        let mut readers = world.query::<Reader>();
        let mut seen: Vec<(f32, Option<f32>)> =
            readers.iter(&world).map(|r| (r.position.0, r.velocity.map(|v| v.0))).collect();
        seen.sort_by(|a, b| a.0.total_cmp(&b.0));
        assert_eq!(seen, vec![(3.0, Some(2.0)), (5.0, None)]);
    }

    #[test]
    fn derived_filters_and_params_work_in_systems() {
        let mut world = World::new();
        world.insert_resource(Time(0.5));
        let live = world.spawn((Position(0.0), Velocity(2.0), Enemy)).id();
        let dead = world.spawn((Position(0.0), Velocity(2.0), Enemy, Dead)).id();
        let friend = world.spawn((Position(0.0), Velocity(2.0))).id();
        let mut schedule = Schedule::new();
        schedule.add_systems((move_live_enemies, disjoint));
        schedule.run(&mut world);
        assert_eq!(world.get::<Position>(live), Some(&Position(101.0)));
        assert_eq!(world.get::<Position>(dead), Some(&Position(100.0)));
        assert_eq!(world.get::<Position>(friend), Some(&Position(-100.0)));
    }

    #[test]
    fn derived_access_sets_carry_the_fields_terms() {
        use ecs::query::WorldQuery;
        use ecs::system::SystemParam;
        let access = <Mover as WorldQuery>::ACCESS;
        assert_eq!(access.label().as_str(), "Mover");
        assert!(access.writes(Position::ID));
        assert!(!access.writes(Velocity::ID));
        let params = <Movement as SystemParam>::ACCESS;
        let labels: Vec<&str> = params.units().iter().map(|unit| unit.access.label().as_str()).collect();
        assert_eq!(labels, vec!["Movement.movers: Query<Mover, LiveEnemies>", "Movement.time: Res<Time>"]);
    }
}
