//! Crash points for tests of Ember's crash guarantees: with `EMBER_FAILPOINT=<name>` in its
//! environment, the process aborts (no destructors, no cleanup: as a SIGKILL at that instant)
//! when it reaches the point of that name. Unset, a crash point costs one environment lookup.

/// Abort here when `EMBER_FAILPOINT` names this point.
pub fn crash_point(name: &str) {
    if std::env::var("EMBER_FAILPOINT").is_ok_and(|v| v == name) {
        eprintln!("EMBER_FAILPOINT: aborting at {name}");
        std::process::abort();
    }
}
