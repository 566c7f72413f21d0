//! Nothing to build: the tests in `tests/` drive the `ember` binary through the Apache Spark
//! Connect Rust client (`scripts/test.sh` runs them; see `tests/client.rs`).
