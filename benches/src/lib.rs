//! Shared workload definitions for the criterion benches in `benches/benches/`.
//!
//! Every bench runs the same workload on the `ecs` crate and on a peer ECS
//! (`hecs`) side by side. The component types live here so that both sides use
//! the very same types: they derive [`ecs::Component`] for our crate, and `hecs`
//! accepts any `Send + Sync + 'static` type as a component without a derive.

use core::ops::AddAssign;

use ecs::Component;

/// How many entities the `simple_*`, `add_remove`, `spawn_despawn` and
/// `many_archetypes_iter` workloads use.
pub const ENTITY_COUNT: usize = 10_000;

/// A three-component `f32` vector, the payload of [`Position`], [`Rotation`] and
/// [`Velocity`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Vec3(pub [f32; 3]);

impl Vec3 {
    /// The vector `(x, y, z)`.
    pub const fn new(x: f32, y: f32, z: f32) -> Self {
        Vec3([x, y, z])
    }
}

impl AddAssign for Vec3 {
    #[inline]
    fn add_assign(&mut self, rhs: Vec3) {
        self.0[0] += rhs.0[0];
        self.0[1] += rhs.0[1];
        self.0[2] += rhs.0[2];
    }
}

/// A 4x4 `f32` matrix (row major), the payload of [`Transform`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mat4(pub [[f32; 4]; 4]);

impl Mat4 {
    /// The identity matrix.
    pub const IDENTITY: Mat4 =
        Mat4([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]);
}

/// A transform matrix (64 bytes): the bulky component of the `simple_*` workloads.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct Transform(pub Mat4);

/// A position (12 bytes).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct Position(pub Vec3);

/// A rotation (12 bytes).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct Rotation(pub Vec3);

/// A velocity (12 bytes).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct Velocity(pub Vec3);

/// The bundle every `simple_*` entity is spawned with: `(Transform, Position,
/// Rotation, Velocity)`, with a unit X velocity.
#[inline]
pub fn simple_bundle() -> (Transform, Position, Rotation, Velocity) {
    (
        Transform(Mat4::IDENTITY),
        Position(Vec3::new(1.0, 0.0, 0.0)),
        Rotation(Vec3::new(1.0, 0.0, 0.0)),
        Velocity(Vec3::new(1.0, 0.0, 0.0)),
    )
}

/// The payload iterated by `fragmented_iter` and `many_archetypes_iter`.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct Data(pub f32);

/// Declares one `struct $name(pub f32)` component per name, each documented.
macro_rules! fragment_components {
    ($($name:ident),* $(,)?) => {
        $(
            #[doc = concat!("Fragmenting component `", stringify!($name), "` of `fragmented_iter` (one `f32`).")]
            #[derive(Component, Clone, Copy, Debug, PartialEq)]
            pub struct $name(pub f32);
        )*
    };
}

/// The 26 components `A`..`Z` of `fragmented_iter`: each puts its entities (with
/// [`Data`]) in an archetype of their own. `add_remove` uses [`A`] and [`B`].
pub mod fragment {
    use ecs::Component;

    fragment_components!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z);
}

pub use fragment::{A, B};

/// How many entities of each of the 26 fragment types `fragmented_iter` spawns.
pub const FRAGMENT_ENTITIES_PER_TYPE: usize = 20;

/// Declares one zero-sized tag component per name, each documented.
macro_rules! tag_components {
    ($($name:ident = $bit:literal),* $(,)?) => {
        $(
            #[doc = concat!("Zero-sized tag `", stringify!($name), "` of `many_archetypes_iter`: set on entity `i` when bit ", stringify!($bit), " of `i % 1024` is.")]
            #[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
            pub struct $name;
        )*
    };
}

/// The 10 zero-sized tags `T0`..`T9` of `many_archetypes_iter`; their
/// combinations give [`TAG_ARCHETYPES`] archetypes holding [`Data`].
pub mod tags {
    use ecs::Component;

    tag_components!(T0 = 0, T1 = 1, T2 = 2, T3 = 3, T4 = 4, T5 = 5, T6 = 6, T7 = 7, T8 = 8, T9 = 9);
}

/// How many distinct tag sets (so archetypes with [`Data`]) `many_archetypes_iter`
/// builds: `2^10`.
pub const TAG_ARCHETYPES: usize = 1 << 10;

/// Runs `$body` once per tag of [`tags`] whose bit is set in `$bits` (a `usize`),
/// with `$tag` bound to that tag's value (so `$body` is type-checked once per tag
/// type). Tags are visited in ascending bit order.
///
/// ```
/// use ecs_benches::for_each_set_tag;
/// let mut names = Vec::new();
/// for_each_set_tag!(0b101, |tag| names.push(format!("{tag:?}")));
/// assert_eq!(names, ["T0", "T2"]);
/// ```
#[macro_export]
macro_rules! for_each_set_tag {
    ($bits:expr, |$tag:ident| $body:expr) => {{
        let bits: usize = $bits;
        $crate::for_each_set_tag!(@visit bits, $tag, $body,
            0 T0, 1 T1, 2 T2, 3 T3, 4 T4, 5 T5, 6 T6, 7 T7, 8 T8, 9 T9);
    }};
    (@visit $bits:ident, $tag:ident, $body:expr, $($bit:literal $name:ident),*) => {
        $(
            if $bits & (1 << $bit) != 0 {
                let $tag = $crate::tags::$name;
                $body;
            }
        )*
    };
}
