//! Shared workload definitions for the criterion benches in `benches/benches/`.
//!
//! Every bench runs the same workload on the `ecs` crate and on its peers
//! (`bevy_ecs`, `hecs`, `shipyard`, and a `hand_written` baseline over plain
//! `Vec`s) side by side, in one criterion group (issue 7). The component types
//! live here so that every side uses the very same types: each derives
//! [`ecs::Component`], [`bevy_ecs::component::Component`] (table storage,
//! mutable) and [`shipyard::Component`] (untracked), while `hecs` accepts any
//! `Send + Sync + 'static` type as a component without a derive.

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
#[derive(Component, bevy_ecs::component::Component, shipyard::Component, Clone, Copy, Debug, PartialEq)]
pub struct Transform(pub Mat4);

/// A position (12 bytes).
#[derive(Component, bevy_ecs::component::Component, shipyard::Component, Clone, Copy, Debug, PartialEq)]
pub struct Position(pub Vec3);

/// A rotation (12 bytes).
#[derive(Component, bevy_ecs::component::Component, shipyard::Component, Clone, Copy, Debug, PartialEq)]
pub struct Rotation(pub Vec3);

/// A velocity (12 bytes).
#[derive(Component, bevy_ecs::component::Component, shipyard::Component, Clone, Copy, Debug, PartialEq)]
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
#[derive(Component, bevy_ecs::component::Component, shipyard::Component, Clone, Copy, Debug, PartialEq)]
pub struct Data(pub f32);

/// Declares one `struct $name(pub f32)` component per name, each documented.
macro_rules! fragment_components {
    ($($name:ident),* $(,)?) => {
        $(
            #[doc = concat!("Fragmenting component `", stringify!($name), "` of `fragmented_iter` (one `f32`).")]
            #[derive(Component, bevy_ecs::component::Component, shipyard::Component, Clone, Copy, Debug, PartialEq)]
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

/// Copies of the workload types for `ecs` only, declared
/// `#[component(change_detection = false)]`: no `added`/`changed` ticks, so no
/// tick stores on writes and moves and 8 bytes less per row, the same work
/// `hecs` and `shipyard` (untracked by default) do. The benches run `ecs` on the
/// shared, change-detected types and `ecs_untracked` on these.
pub mod untracked {
    use super::{Mat4, Vec3};
    use ecs::Component;

    /// Declares one untracked newtype component per `name(payload)`, documented.
    macro_rules! untracked_components {
        ($($name:ident($payload:ty)),* $(,)?) => {
            $(
                #[doc = concat!("`", stringify!($name), "` without change detection.")]
                #[derive(Component, Clone, Copy, Debug, PartialEq)]
                #[component(change_detection = false)]
                pub struct $name(pub $payload);
            )*
        };
    }

    untracked_components!(Transform(Mat4), Position(Vec3), Rotation(Vec3), Velocity(Vec3), Data(f32));
    untracked_components!(
        A(f32),
        B(f32),
        C(f32),
        D(f32),
        E(f32),
        F(f32),
        G(f32),
        H(f32),
        I(f32),
        J(f32),
        K(f32),
        L(f32),
        M(f32),
        N(f32),
        O(f32),
        P(f32),
        Q(f32),
        R(f32),
        S(f32),
        T(f32),
        U(f32),
        V(f32),
        W(f32),
        X(f32),
        Y(f32),
        Z(f32),
    );

    /// [`super::simple_bundle`] with the untracked types.
    #[inline]
    pub fn simple_bundle() -> (Transform, Position, Rotation, Velocity) {
        let (transform, position, rotation, velocity) = super::simple_bundle();
        (Transform(transform.0), Position(position.0), Rotation(rotation.0), Velocity(velocity.0))
    }

    /// The fragment types under the same module path as the tracked ones
    /// (`fragment::*`), so bench code can name either module.
    pub mod fragment {
        pub use super::{A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z};
    }
}

/// How many entities of each of the 26 fragment types `fragmented_iter` spawns.
pub const FRAGMENT_ENTITIES_PER_TYPE: usize = 20;

/// Declares one zero-sized tag component per name, each documented.
macro_rules! tag_components {
    ($($name:ident = $bit:literal),* $(,)?) => {
        $(
            #[doc = concat!("Zero-sized tag `", stringify!($name), "` of `many_archetypes_iter`: set on entity `i` when bit ", stringify!($bit), " of `i % 1024` is.")]
            #[derive(Component, bevy_ecs::component::Component, shipyard::Component, Clone, Copy, Debug, Default, PartialEq)]
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

/// The matrix maths of the `heavy_compute` workload: a rotation constructor, a
/// general inverse and a vector transform, all on the row-major [`Mat4`].
impl Mat4 {
    /// A rotation of `angle` radians about the X axis.
    pub fn from_angle_x(angle: f32) -> Mat4 {
        let (sin, cos) = angle.sin_cos();
        Mat4([[1.0, 0.0, 0.0, 0.0], [0.0, cos, -sin, 0.0], [0.0, sin, cos, 0.0], [0.0, 0.0, 0.0, 1.0]])
    }

    /// The inverse, computed for a general matrix (cofactors over 2x2
    /// sub-determinants, no shortcut for rotations). A singular matrix gives
    /// non-finite entries.
    ///
    /// # Examples
    /// ```
    /// use ecs_benches::Mat4;
    /// let m = Mat4([[2.0, 0.0, 1.0, 3.0], [0.0, 1.0, 0.0, -1.0], [1.0, 0.0, 1.0, 0.5], [0.0, 2.0, 0.0, 1.0]]);
    /// assert!(m.mul(&m.inverse()).max_abs_diff(&Mat4::IDENTITY) < 1e-5);
    /// assert!(m.inverse().inverse().max_abs_diff(&m) < 1e-5);
    /// ```
    #[inline]
    pub fn inverse(&self) -> Mat4 {
        let [[m00, m01, m02, m03], [m10, m11, m12, m13], [m20, m21, m22, m23], [m30, m31, m32, m33]] = self.0;
        let s0 = m00 * m11 - m10 * m01;
        let s1 = m00 * m12 - m10 * m02;
        let s2 = m00 * m13 - m10 * m03;
        let s3 = m01 * m12 - m11 * m02;
        let s4 = m01 * m13 - m11 * m03;
        let s5 = m02 * m13 - m12 * m03;
        let c5 = m22 * m33 - m32 * m23;
        let c4 = m21 * m33 - m31 * m23;
        let c3 = m21 * m32 - m31 * m22;
        let c2 = m20 * m33 - m30 * m23;
        let c1 = m20 * m32 - m30 * m22;
        let c0 = m20 * m31 - m30 * m21;
        let det = s0 * c5 - s1 * c4 + s2 * c3 + s3 * c2 - s4 * c1 + s5 * c0;
        let inv = 1.0 / det;
        Mat4([
            [
                (m11 * c5 - m12 * c4 + m13 * c3) * inv,
                (-m01 * c5 + m02 * c4 - m03 * c3) * inv,
                (m31 * s5 - m32 * s4 + m33 * s3) * inv,
                (-m21 * s5 + m22 * s4 - m23 * s3) * inv,
            ],
            [
                (-m10 * c5 + m12 * c2 - m13 * c1) * inv,
                (m00 * c5 - m02 * c2 + m03 * c1) * inv,
                (-m30 * s5 + m32 * s2 - m33 * s1) * inv,
                (m20 * s5 - m22 * s2 + m23 * s1) * inv,
            ],
            [
                (m10 * c4 - m11 * c2 + m13 * c0) * inv,
                (-m00 * c4 + m01 * c2 - m03 * c0) * inv,
                (m30 * s4 - m31 * s2 + m33 * s0) * inv,
                (-m20 * s4 + m21 * s2 - m23 * s0) * inv,
            ],
            [
                (-m10 * c3 + m11 * c1 - m12 * c0) * inv,
                (m00 * c3 - m01 * c1 + m02 * c0) * inv,
                (-m30 * s3 + m31 * s1 - m32 * s0) * inv,
                (m20 * s3 - m21 * s1 + m22 * s0) * inv,
            ],
        ])
    }

    /// The product `self * rhs`.
    pub fn mul(&self, rhs: &Mat4) -> Mat4 {
        let mut out = [[0.0; 4]; 4];
        for (row, out_row) in out.iter_mut().enumerate() {
            for (col, out) in out_row.iter_mut().enumerate() {
                *out = (0..4).map(|k| self.0[row][k] * rhs.0[k][col]).sum();
            }
        }
        Mat4(out)
    }

    /// `self * (v, 0)`: transforms a direction (the translation column is ignored).
    #[inline]
    pub fn transform_vector(&self, v: Vec3) -> Vec3 {
        let row = |r: &[f32; 4]| r[0] * v.0[0] + r[1] * v.0[1] + r[2] * v.0[2];
        Vec3([row(&self.0[0]), row(&self.0[1]), row(&self.0[2])])
    }

    /// The largest absolute difference between corresponding entries.
    pub fn max_abs_diff(&self, other: &Mat4) -> f32 {
        self.0.iter().flatten().zip(other.0.iter().flatten()).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max)
    }
}

/// How many entities `heavy_compute` spawns.
pub const HEAVY_ENTITY_COUNT: usize = 1_000;

/// How many times `heavy_compute` inverts each entity's matrix per iteration
/// (even, so the matrix comes back to where it started).
pub const HEAVY_INVERSIONS: usize = 100;

/// The bundle every `heavy_compute` entity is spawned with: a rotation of 1.2
/// rad about X (orthonormal, so inverting it loses next to no precision) and a
/// unit Y position that the rotation turns.
#[inline]
pub fn heavy_bundle() -> (Transform, Position, Rotation, Velocity) {
    (
        Transform(Mat4::from_angle_x(1.2)),
        Position(Vec3::new(0.0, 1.0, 0.0)),
        Rotation(Vec3::new(1.0, 0.0, 0.0)),
        Velocity(Vec3::new(1.0, 0.0, 0.0)),
    )
}

/// One `heavy_compute` entity's work: invert `matrix` [`HEAVY_INVERSIONS`]
/// times (writing it back), then turn `position` by it.
#[inline]
pub fn heavy_work(position: &mut Vec3, matrix: &mut Mat4) {
    for _ in 0..HEAVY_INVERSIONS {
        *matrix = matrix.inverse();
    }
    *position = matrix.transform_vector(*position);
}
