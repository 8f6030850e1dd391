//! Expected panics of the model test: refused despawns, commands that panic
//! when applied. [`catch_quiet`] catches one without printing it (a case may
//! meet many), through a panic hook that stays silent while the panicking
//! thread is inside `catch_quiet` and defers to the previous hook otherwise.

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

thread_local! {
    /// Whether this thread is inside `catch_quiet`.
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f`; its panic, if any, is returned as its message, unprinted.
pub(super) fn catch_quiet<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
    let was_quiet = QUIET.with(|quiet| quiet.replace(true));
    let result = catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|quiet| quiet.set(was_quiet));
    result.map_err(|payload| {
        if let Some(message) = payload.downcast_ref::<&str>() {
            (*message).to_owned()
        } else if let Some(message) = payload.downcast_ref::<String>() {
            message.clone()
        } else {
            "(a panic payload that is not a string)".to_owned()
        }
    })
}
