//! Inspecting a world: `World::inspect` (entity reports with names and
//! `Debug` values), `World::inspect_world`, `World::stats` and
//! `World::archetype_graph_dot`, and the JSON the reports write.

use ecs::prelude::*;

#[derive(Component, Debug, PartialEq)]
struct Position {
    x: f32,
    y: f32,
}

/// No `Debug`: inspection shows `<no Debug>`.
#[derive(Component)]
#[allow(dead_code)]
struct Secret(u32);

#[derive(Component)]
struct Enemy;

// Fields read through `Debug` only.
#[allow(dead_code)]
#[derive(Relationship, Debug)]
struct Owes(u32);

#[derive(Relationship)]
struct Likes;

// Fields read through `Debug` only.
#[allow(dead_code)]
#[derive(Component, Debug, Clone)]
#[component(toggle)]
struct Thrust(f32);

// Fields read through `Debug` only.
#[allow(dead_code)]
#[derive(Component, Debug)]
#[component(storage = "sparse")]
struct Stunned(u8);

// Fields read through `Debug` only.
#[allow(dead_code)]
#[derive(Component, Debug)]
struct MaxSpeed(u32);

#[derive(Resource)]
#[allow(dead_code)]
struct Score(u32);

#[derive(Event)]
struct Ping;

// ----- a tiny JSON checker ------------------------------------------------------

/// A parsed JSON value (enough to check the reports' structure).
#[derive(Debug, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    fn get(&self, key: &str) -> &Json {
        match self {
            Json::Object(fields) => {
                &fields.iter().find(|(k, _)| k == key).unwrap_or_else(|| panic!("no key {key:?} in {self:?}")).1
            }
            other => panic!("{other:?} is not an object"),
        }
    }

    fn str(&self) -> &str {
        match self {
            Json::String(s) => s,
            other => panic!("{other:?} is not a string"),
        }
    }

    fn array(&self) -> &[Json] {
        match self {
            Json::Array(items) => items,
            other => panic!("{other:?} is not an array"),
        }
    }
}

/// Parses `text` as one JSON value (RFC 8259), panicking on any error.
fn parse_json(text: &str) -> Json {
    let mut parser = Parser { bytes: text.as_bytes(), at: 0 };
    let value = parser.value();
    parser.whitespace();
    assert_eq!(parser.at, text.len(), "trailing text after JSON value in {text}");
    value
}

struct Parser<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn whitespace(&mut self) {
        while self.at < self.bytes.len() && matches!(self.bytes[self.at], b' ' | b'\n' | b'\r' | b'\t') {
            self.at += 1;
        }
    }

    fn peek(&self) -> u8 {
        *self.bytes.get(self.at).expect("unexpected end of JSON")
    }

    fn expect(&mut self, byte: u8) {
        assert_eq!(self.peek() as char, byte as char, "at byte {}", self.at);
        self.at += 1;
    }

    fn literal(&mut self, word: &str) {
        assert!(self.bytes[self.at..].starts_with(word.as_bytes()), "expected {word} at byte {}", self.at);
        self.at += word.len();
    }

    fn value(&mut self) -> Json {
        self.whitespace();
        match self.peek() {
            b'{' => {
                self.at += 1;
                let mut fields = Vec::new();
                self.whitespace();
                if self.peek() == b'}' {
                    self.at += 1;
                    return Json::Object(fields);
                }
                loop {
                    self.whitespace();
                    let key = self.string();
                    self.whitespace();
                    self.expect(b':');
                    fields.push((key, self.value()));
                    self.whitespace();
                    match self.peek() {
                        b',' => self.at += 1,
                        b'}' => {
                            self.at += 1;
                            return Json::Object(fields);
                        }
                        other => panic!("unexpected {:?} in object", other as char),
                    }
                }
            }
            b'[' => {
                self.at += 1;
                let mut items = Vec::new();
                self.whitespace();
                if self.peek() == b']' {
                    self.at += 1;
                    return Json::Array(items);
                }
                loop {
                    items.push(self.value());
                    self.whitespace();
                    match self.peek() {
                        b',' => self.at += 1,
                        b']' => {
                            self.at += 1;
                            return Json::Array(items);
                        }
                        other => panic!("unexpected {:?} in array", other as char),
                    }
                }
            }
            b'"' => Json::String(self.string()),
            b't' => {
                self.literal("true");
                Json::Bool(true)
            }
            b'f' => {
                self.literal("false");
                Json::Bool(false)
            }
            b'n' => {
                self.literal("null");
                Json::Null
            }
            _ => self.number(),
        }
    }

    fn number(&mut self) -> Json {
        let start = self.at;
        if self.peek() == b'-' {
            self.at += 1;
        }
        while self.at < self.bytes.len()
            && matches!(self.bytes[self.at], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
        {
            self.at += 1;
        }
        let text = std::str::from_utf8(&self.bytes[start..self.at]).unwrap();
        assert!(!text.is_empty() && text != "-", "expected a value at byte {start}");
        assert!(!(text.len() > 1 && text.starts_with('0') && text.as_bytes()[1].is_ascii_digit()), "leading zero");
        Json::Number(text.parse().unwrap_or_else(|_| panic!("bad number {text:?}")))
    }

    fn string(&mut self) -> String {
        self.expect(b'"');
        let mut out = Vec::new();
        loop {
            let byte = self.peek();
            self.at += 1;
            match byte {
                b'"' => return String::from_utf8(out).expect("JSON strings are UTF-8"),
                b'\\' => {
                    let escape = self.peek();
                    self.at += 1;
                    let c = match escape {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let hex = std::str::from_utf8(&self.bytes[self.at..self.at + 4]).unwrap();
                            self.at += 4;
                            char::from_u32(u32::from_str_radix(hex, 16).unwrap()).expect("no surrogates here")
                        }
                        other => panic!("bad escape \\{}", other as char),
                    };
                    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                }
                byte if byte < 0x20 => panic!("unescaped control character {byte:#x} in a JSON string"),
                byte => out.push(byte),
            }
        }
    }
}

#[test]
fn the_json_checker_rejects_broken_json() {
    for broken in [r#"{"a":1"#, r#"{"a" 1}"#, r#""a"b""#, "[1,]", "\"tab\there\"", r#"{"a":1}}"#] {
        assert!(std::panic::catch_unwind(|| parse_json(broken)).is_err(), "{broken:?} accepted");
    }
    assert_eq!(parse_json(r#" {"a":[1,-2.5e3,true,null,"\u0041\n"]} "#).get("a").array().len(), 5);
}

// ----- stats ----------------------------------------------------------------------

#[test]
fn stats_count_entities_archetypes_and_empty_archetypes() {
    let mut world = World::new();
    let base = world.stats();
    assert_eq!(base.entities, 0);
    assert!(base.internal_entities > 0, "component entities and wildcards are internal");
    assert_eq!(base.components, world.components().len());

    let a = world.spawn(Position { x: 0.0, y: 0.0 }).id();
    let b = world.spawn(Position { x: 1.0, y: 0.0 }).id();
    let c = world.spawn((Position { x: 2.0, y: 0.0 }, Enemy)).id();
    let stats = world.stats();
    assert_eq!(stats.entities, 3);
    assert_eq!(stats.archetypes, base.archetypes + 2, "[Position] and [Position, Enemy]");
    assert_eq!(stats.empty_archetypes, base.empty_archetypes);
    assert!(stats.tables >= base.tables + 2);
    assert!(stats.bytes >= base.bytes + 3 * size_of::<Position>(), "{stats:?} vs {base:?}");
    assert!(stats.graph_edges > base.graph_edges);

    world.despawn(c);
    let stats = world.stats();
    assert_eq!(stats.entities, 2);
    assert_eq!(stats.archetypes, base.archetypes + 2, "an emptied archetype stays until collected");
    assert_eq!(stats.empty_archetypes, base.empty_archetypes + 1);
    world.despawn(a);
    world.despawn(b);
    let stats = world.stats();
    assert_eq!((stats.entities, stats.empty_archetypes), (0, base.empty_archetypes + 2));

    // Garbage collection deletes empty archetypes: they leave the counts.
    for _ in 0..8 {
        world.collect_garbage(GcConfig::default());
    }
    let collected = world.stats();
    assert!(collected.archetypes < stats.archetypes, "{collected:?}");
    assert_eq!(collected.archetypes - collected.empty_archetypes, stats.archetypes - stats.empty_archetypes);
    assert_eq!(world.inspect_world().archetypes.len(), collected.archetypes);
}

#[test]
fn stats_count_sparse_sets_resources_and_observers() {
    let mut world = World::new();
    let base = world.stats();
    let e = world.spawn(Stunned(3)).id();
    world.insert_resource(Score(1));
    world.add_observer(|_: Trigger<OnAdd, Enemy>| {});
    let stats = world.stats();
    assert_eq!(stats.sparse_sets, base.sparse_sets + 1);
    assert_eq!(stats.resources, base.resources + 1);
    assert_eq!(stats.observers, base.observers + 1);
    assert_eq!(stats.entities, 1, "observers are internal entities");
    assert_eq!(stats.internal_entities, world.entities().alive_count() - 1);
    assert!(stats.bytes > base.bytes);
    world.despawn(e);
    assert_eq!(world.stats().sparse_sets, stats.sparse_sets, "sets are never removed");
}

// ----- entity reports --------------------------------------------------------------

#[test]
fn inspect_names_values_tags_and_pairs() {
    let mut world = World::new();
    let station = world.spawn(Name::new("station")).id();
    let bob = world.spawn(Name::new("bob")).id();
    let unnamed = world.spawn_empty().id();
    let e = world
        .spawn((Name::new("drone"), ChildOf.pair(station), Position { x: 1.0, y: 2.5 }, Secret(7), Enemy))
        .insert_pair(Owes(12), bob)
        .add_pair::<Likes>(bob)
        .add_pair::<Likes>(unnamed)
        .id();
    let report = world.inspect(e);
    assert_eq!(report.entity, e);
    assert_eq!(report.name.as_deref(), Some("drone"));
    assert_eq!(report.path.as_deref(), Some("station::drone"));
    assert_eq!(report.archetype, world.entity(e).archetype());
    // Exactly the archetype's ids, no more, no less.
    assert_eq!(report.components.len(), world.ids_of(e).unwrap().len());

    let position = report.component("Position").unwrap();
    assert_eq!(position.value.as_deref(), Some("Position { x: 1.0, y: 2.5 }"));
    assert!(!position.is_tag && !position.is_pair() && !position.sparse && !position.disabled);
    assert_eq!(position.id, world.component_id::<Position>().unwrap().id());

    let secret = report.component("Secret").unwrap();
    assert_eq!((secret.value.as_deref(), secret.is_tag), (None, false));

    let enemy = report.component("Enemy").unwrap();
    assert!(enemy.is_tag && enemy.value.is_none());

    let name = report.component("Name").unwrap();
    assert_eq!(name.value.as_deref(), Some(r#"Name("drone")"#));

    let owes = report.component("(Owes, bob)").unwrap();
    assert!(owes.is_pair() && !owes.is_tag);
    assert_eq!(owes.relationship.as_deref(), Some("Owes"));
    assert_eq!(owes.target, Some(bob));
    assert_eq!(owes.value.as_deref(), Some("Owes(12)"));

    let likes_bob = report.component("(Likes, bob)").unwrap();
    assert!(likes_bob.is_pair() && likes_bob.is_tag && likes_bob.value.is_none());
    let likes_unnamed = report.component(&format!("(Likes, {unnamed:?})")).expect("unnamed targets by handle");
    assert_eq!(likes_unnamed.target, Some(unnamed));

    let parent = report.component("(ChildOf, station)").unwrap();
    assert_eq!(parent.target, Some(station));

    let text = report.to_string();
    assert!(text.starts_with(&format!("entity {e:?} \"drone\" (path station::drone)")), "{text}");
    for line in [
        "Position: Position { x: 1.0, y: 2.5 }",
        "Secret: <no Debug>",
        "Enemy (tag)",
        "(Owes, bob): Owes(12)",
        "(Likes, bob) (tag)",
        "(ChildOf, station) (tag)",
    ] {
        assert!(text.lines().any(|l| l.trim() == line), "no line {line:?} in\n{text}");
    }
}

#[test]
fn inspect_of_a_dead_stale_or_reserved_entity_is_none() {
    let mut world = World::new();
    let e = world.spawn(Position { x: 0.0, y: 0.0 }).id();
    world.despawn(e);
    assert!(world.try_inspect(e).is_none());
    let recycled = world.spawn_empty().id();
    assert_eq!(recycled.index(), e.index());
    assert!(world.try_inspect(e).is_none(), "a stale handle never reaches the new entity");
    assert!(world.try_inspect(recycled).is_some());
    let reserved = world.reserve_entity();
    assert!(world.try_inspect(reserved).is_none());
    world.flush();
    assert!(world.inspect(reserved).components.is_empty());
    assert!(world.try_inspect(Entity::PLACEHOLDER).is_none());
}

#[test]
fn inspect_marks_sparse_disabled_and_inherited_values() {
    let mut world = World::new();
    let ship = world.spawn((Prefab, MaxSpeed(9))).id();
    let fighter = world.instantiate(ship);
    world.entity_mut(fighter).insert((Stunned(2), Thrust(0.5))).disable::<Thrust>();
    let report = world.inspect(fighter);

    let stunned = report.component("Stunned").unwrap();
    assert!(stunned.sparse);
    assert_eq!(stunned.value.as_deref(), Some("Stunned(2)"));

    let thrust = report.component("Thrust").unwrap();
    assert!(thrust.disabled);
    assert_eq!(thrust.value.as_deref(), Some("Thrust(0.5)"), "a disabled value stays readable");

    let speed = report.component("MaxSpeed").unwrap();
    assert_eq!(speed.inherited_from, Some(ship));
    assert_eq!(speed.value.as_deref(), Some("MaxSpeed(9)"));
    assert!(report.component("Prefab").is_none(), "Prefab is not inherited");

    let text = report.to_string();
    assert!(text.contains("[inherited from"), "{text}");
    assert!(text.contains("[disabled]") && text.contains("[sparse]"), "{text}");

    // An override is the instance's own value.
    world.entity_mut(fighter).insert(MaxSpeed(3));
    let speed = world.inspect(fighter).component("MaxSpeed").cloned().unwrap();
    assert_eq!((speed.inherited_from, speed.value.as_deref()), (None, Some("MaxSpeed(3)")));
}

#[test]
fn inspect_shows_union_pairs_by_their_target() {
    #[derive(Relationship)]
    #[relationship(union)]
    struct Movement;
    let mut world = World::new();
    let walking = world.spawn(Name::new("walking")).id();
    let e = world.spawn_empty().add_pair::<Movement>(walking).id();
    let report = world.inspect(e);
    let movement = report.component("(Movement, walking)").expect("the concrete pair");
    assert!(movement.is_tag && movement.target == Some(walking));
}

#[test]
fn entity_json_is_valid_and_escaped() {
    let mut world = World::new();
    let tricky = "a \"quoted\" \\ name\nwith\tcontrol \u{1} chars";
    let e = world.spawn((Name::new(tricky), Position { x: 1.0, y: -2.0 }, Secret(1), Enemy)).id();
    let report = world.inspect(e);
    let json = report.to_json();
    let parsed = parse_json(&json);
    assert_eq!(parsed.get("name").str(), tricky);
    assert_eq!(parsed.get("entity").str(), format!("{e:?}"));
    assert_eq!(parsed.get("path").str(), tricky);
    assert_eq!(parsed.get("archetype"), &Json::Number(report.archetype.index() as f64));
    let components = parsed.get("components").array();
    assert_eq!(components.len(), report.components.len());
    let position = components.iter().find(|c| c.get("name").str() == "Position").unwrap();
    assert_eq!(position.get("value").str(), "Position { x: 1.0, y: -2.0 }");
    assert_eq!(position.get("tag"), &Json::Bool(false));
    let secret = components.iter().find(|c| c.get("name").str() == "Secret").unwrap();
    assert_eq!(secret.get("value"), &Json::Null);
    let name = components.iter().find(|c| c.get("name").str() == "Name").unwrap();
    assert_eq!(name.get("value").str(), format!("{:?}", Name::new(tricky)));
    // The Debug text of the name is itself escaped once more in the JSON.
    assert!(json.contains(r#"\"quoted\""#), "{json}");
}

// ----- world reports ---------------------------------------------------------------

#[test]
fn inspect_world_lists_archetypes_resources_and_observers() {
    let mut world = World::new();
    world.spawn((Position { x: 0.0, y: 0.0 }, Enemy));
    world.spawn((Position { x: 0.0, y: 0.0 }, Enemy));
    world.insert_resource(Score(3));
    let on_add = world.add_observer(|_: Trigger<OnAdd, Position>| {}).id();
    let ping = world.add_observer(|_: Trigger<Ping>| {}).id();
    let watched = world.spawn_empty().id();
    world.entity_mut(watched).observe(|_: Trigger<Ping>| {});

    let report = world.inspect_world();
    assert_eq!(report.stats, world.stats());
    assert_eq!(report.resources, ["Score"]);
    let pair = report
        .archetypes
        .iter()
        .find(|a| a.components.contains(&"Position".to_owned()) && a.components.contains(&"Enemy".to_owned()))
        .expect("the [Position, Enemy] archetype");
    assert_eq!(pair.entities, 2);
    assert!(!pair.internal);
    assert!(report.archetypes.iter().any(|a| a.internal), "component entities live in internal archetypes");

    assert_eq!(report.observers.len(), 3);
    assert_eq!(report.observers[0].entity, on_add);
    assert_eq!(
        (report.observers[0].event.as_str(), &report.observers[0].watches[..]),
        ("OnAdd", &["Position".to_owned()][..])
    );
    assert_eq!(report.observers[1].entity, ping);
    assert_eq!(report.observers[1].event, "event");
    assert!(report.observers[1].watches.is_empty() && !report.observers[1].entity_scoped);
    assert!(report.observers[2].entity_scoped);

    let text = report.to_string();
    assert!(text.starts_with("world: "), "{text}");
    assert!(text.contains("Score") && text.contains("OnAdd [Position]"), "{text}");

    let parsed = parse_json(&report.to_json());
    assert_eq!(parsed.get("resources").array(), [Json::String("Score".into())]);
    assert_eq!(parsed.get("observers").array().len(), 3);
    assert_eq!(parsed.get("observers").array()[0].get("event").str(), "OnAdd");
    assert_eq!(parsed.get("archetypes").array().len(), report.archetypes.len());
    assert_eq!(parsed.get("stats").get("entities"), &Json::Number(report.stats.entities as f64));
    assert_eq!(parsed.get("queries").get("tracked_by_world"), &Json::Bool(false));
    parse_json(&report.stats.to_json());
}

#[test]
fn query_cache_counters_follow_structural_changes() {
    let mut world = World::new();
    let before = world.inspect_world().queries;
    let e = world.spawn(Position { x: 0.0, y: 0.0 }).id();
    let after = world.inspect_world().queries;
    assert!(after.cache_epoch > before.cache_epoch);
    world.get_mut::<Position>(e).unwrap().x = 1.0;
    assert_eq!(world.inspect_world().queries, after, "no structural change");
}

// ----- the archetype graph ---------------------------------------------------------

#[test]
fn archetype_graph_dot_has_nodes_and_the_edges_of_an_add() {
    let mut world = World::new();
    let e = world.spawn(Position { x: 0.0, y: 0.0 }).id();
    let from = world.entity(e).archetype().index();
    world.entity_mut(e).insert(Enemy);
    let to = world.entity(e).archetype().index();
    let dot = world.archetype_graph_dot();
    assert!(dot.starts_with("digraph archetypes {") && dot.trim_end().ends_with('}'), "{dot}");
    assert!(dot.contains(&format!("a{from} [label=\"#{from} [Position]\\n0 entities\"]")), "{dot}");
    assert!(dot.contains(&format!("a{to} [label=\"#{to} [Position, Enemy]\\n1 entity\"]")), "{dot}");
    assert!(dot.contains(&format!("a{from} -> a{to} [label=\"+Enemy\"]")), "{dot}");
    assert!(dot.contains(&format!("a{to} -> a{from} [label=\"-Enemy\", style=dashed]")), "{dot}");
    // One node per live archetype, one edge line per cached edge.
    let nodes = dot.lines().filter(|l| l.trim_start().starts_with('a') && !l.contains("->")).count();
    let edges = dot.lines().filter(|l| l.contains("->")).count();
    let stats = world.stats();
    assert_eq!((nodes, edges), (stats.archetypes, stats.graph_edges));
    // Quotes in names are escaped.
    let quoted = world.spawn(Name::new("say \"hi\"")).id();
    world.entity_mut(e).add_pair::<Likes>(quoted);
    let dot = world.archetype_graph_dot();
    assert!(dot.contains(r#"+(Likes, say \"hi\")"#), "{dot}");
}

#[test]
fn inspect_of_a_dead_entity_panics_naming_it() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    world.despawn(e);
    let message = ecs_tests::panic_message(|| {
        world.inspect(e);
    });
    assert!(message.contains(&format!("{e:?}")) && message.contains("not alive"), "{message}");
}
