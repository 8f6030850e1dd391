// A `TypeKey` names one type: subtyping (here a higher-ranked fn pointer
// and its `'static` instance, two types with distinct `TypeId`s) must not turn
// one type's key into another's, or a runtime row would hand out one as the
// other.
#![allow(unused)]
use ecs::component::{Component, TypeKey};

pub struct S<F>(pub F);
type HigherRanked = S<for<'a> fn(&'a u32)>;
type Static = S<fn(&'static u32)>;

static KEY: TypeKey<HigherRanked> = TypeKey::new();

impl Component for HigherRanked {
    const NAME: &'static str = "HigherRanked";
    const ID: u64 = 1;
    const TYPE_KEY: Option<&'static TypeKey<Self>> = Some(&KEY);
}

#[allow(coherence_leak_check)]
impl Component for Static {
    const NAME: &'static str = "Static";
    const ID: u64 = 2;
    const TYPE_KEY: Option<&'static TypeKey<Self>> = Some(&KEY);
}

fn main() {}
