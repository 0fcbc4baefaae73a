//! Panics inside kernel threads are assertion failures, not test crashes: a process-wide hook
//! (installed once, after shuttle's own) records the message and location silently while a
//! model runs on this OS thread and defers to the previous hook otherwise.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::sync::Once;

thread_local! {
    static IN_MODEL: Cell<u32> = const { Cell::new(0) };
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Unwinds a kernel thread whose execution was halted; not a failure.
pub struct HaltSignal;

/// Installs the process-wide panic hook (once; later calls do nothing). Outside a model (no
/// [`ModelGuard`] alive on the panicking OS thread) it defers to the hook installed before.
pub fn install_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Shuttle installs a hook of its own (once) that prints its schedules; we replace it
        // with ours, which defers to the hook from before shuttle's.
        let original = std::panic::take_hook();
        let mut config = shuttle::Config::new();
        config.failure_persistence = shuttle::FailurePersistence::None;
        config.silence_warnings = true;
        shuttle::Runner::new(shuttle::scheduler::RoundRobinScheduler::new(1), config).run(|| {});
        drop(std::panic::take_hook());
        let previous = original;
        std::panic::set_hook(Box::new(move |info| {
            if IN_MODEL.with(|m| m.get()) > 0 {
                let location = info
                    .location()
                    .map(|l| format!(" at {l}"))
                    .unwrap_or_default();
                let text = format!("{}{location}", message(info.payload()));
                LAST_PANIC.with(|p| *p.borrow_mut() = Some(text));
            } else {
                previous(info);
            }
        }));
    });
}

/// Marks this OS thread as running a model while alive.
pub struct ModelGuard(());

impl ModelGuard {
    /// Installs the hook if needed and marks this OS thread as running a model until the guard
    /// drops (guards nest).
    pub fn enter() -> ModelGuard {
        install_hook();
        IN_MODEL.with(|m| m.set(m.get() + 1));
        ModelGuard(())
    }
}

impl Drop for ModelGuard {
    fn drop(&mut self) {
        IN_MODEL.with(|m| m.set(m.get() - 1));
    }
}

/// The message of the panic just caught (with its location when the hook saw it).
pub fn take_last(payload: &(dyn Any + Send)) -> String {
    LAST_PANIC
        .with(|p| p.borrow_mut().take())
        .unwrap_or_else(|| message(payload))
}

/// The text of a panic payload: the `&str` or `String` it carries, otherwise a fixed phrase.
pub fn message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_string()
    }
}
