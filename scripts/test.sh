#!/usr/bin/env bash
# Run every test: build Ember, install the Python test dependencies into a venv, run the Rust
# tests, clippy, and the PySpark suite in each execution mode.
#
#   scripts/test.sh [pytest arguments...]
#
# Environment: CARGO_TARGET_DIR (default ~/.cache/ember/target), EMBER_TEST_VENV (default
# ~/.cache/ember/test-venv), EMBER_MODES (default "local,local-cluster,cluster").
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/ember/target}"
VENV="${EMBER_TEST_VENV:-$HOME/.cache/ember/test-venv}"
export EMBER_MODES="${EMBER_MODES:-local,local-cluster,cluster}"

step() { printf '\n==> %s\n' "$*"; }

step "Python test environment ($VENV)"
stamp="$VENV/.requirements.sha"
want="$(sha256sum python-tests/requirements.txt | cut -d' ' -f1)"
if [ ! -x "$VENV/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --upgrade pip
  "$VENV/bin/pip" install -q -r python-tests/requirements.txt
  echo "$want" > "$stamp"
fi

step "cargo build"
cargo build --workspace --bins

step "cargo test"
cargo test --workspace

step "cargo clippy"
cargo clippy --workspace --all-targets -- -D warnings

step "pytest (modes: $EMBER_MODES)"
"$VENV/bin/python" -m pytest python-tests -p no:cacheprovider --timeout 300 "$@"
