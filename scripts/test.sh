#!/usr/bin/env bash
# Run every test: build Ember, install the Python test dependencies into a venv per client, run
# the Rust tests, clippy, the Rust Spark Connect client's test (clients/rust), and the PySpark
# suite in each execution mode with each client.
#
#   scripts/test.sh [pytest arguments...]
#
# Environment: CARGO_TARGET_DIR (default ~/.cache/ember/target), EMBER_VENVS (default
# ~/.cache/ember: one venv per client beneath it), EMBER_CLIENTS (pip requirements of the
# clients the whole suite runs with, space-separated; default "pyspark[connect]==4.3.0
# pyspark-client==4.2.0": what `pip install pyspark` gives today, with the Spark Connect extra it
# needs, and the previous Spark Connect client), EMBER_SLICE_CLIENTS (older clients that run the
# slice of the suite listed in python-tests/client_slice.txt; default "pyspark[connect]==3.5.9
# pyspark-client==4.0.4 pyspark-client==4.1.3": the newest release of each line; "" for none),
# EMBER_MODES (default "local,local-cluster,cluster": the modes the first client of
# EMBER_CLIENTS runs in), EMBER_OTHER_CLIENTS_MODES (default "local": the modes of the other
# clients, whole suite and slice; what a client sends does not depend on the server's mode, and
# the CI must finish within 90 minutes on two cores), EMBER_TEST_PROCESSES (default 2: pytest
# processes, each with its own servers, that share the test files; the client's Python and the
# server each keep about one core busy, so two processes finish the suite in about 0.7 of the time).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/ember/target}"
VENVS="${EMBER_VENVS:-$HOME/.cache/ember}"
CLIENTS="${EMBER_CLIENTS:-pyspark[connect]==4.3.0 pyspark-client==4.2.0}"
SLICE_CLIENTS="${EMBER_SLICE_CLIENTS-pyspark[connect]==3.5.9 pyspark-client==4.0.4 pyspark-client==4.1.3}"
export EMBER_MODES="${EMBER_MODES:-local,local-cluster,cluster}"
OTHER_MODES="${EMBER_OTHER_CLIENTS_MODES:-local}"
PYTEST=(-p no:cacheprovider --timeout 300 -n "${EMBER_TEST_PROCESSES:-2}" --dist loadfile)

step() { printf '\n==> %s\n' "$*"; }

# The venv of one client (a pip requirement such as pyspark[connect]==4.3.0: venv-pyspark-4.3.0),
# made or refreshed when the requirements change.
venv_of() { local name="${1/\[*\]/}"; echo "$VENVS/venv-${name//==/-}"; }
# The requirements of a client's venv: requirements.txt, with the pins of
# python-tests/requirements-<package>-<major.minor>.txt (if any) in place of its own.
requirements_of() {
  local name="${1/\[*\]/}" version="${1##*==}"
  local pins="python-tests/requirements-${name%%==*}-${version%.*}.txt"
  if [ -f "$pins" ]; then
    local names; names="$(grep -v '^#' "$pins" | sed -E 's/[=<>!~[].*//' | grep -v '^$' | paste -sd'|')"
    grep -vE "^(${names})([=<>!~[]|$)" python-tests/requirements.txt
    grep -v '^#' "$pins"
  else
    cat python-tests/requirements.txt
  fi
  echo "$1"
}
for client in $CLIENTS $SLICE_CLIENTS; do
  venv="$(venv_of "$client")"
  step "Python test environment for $client ($venv)"
  stamp="$venv/.requirements.sha"
  requirements="$(requirements_of "$client")"
  want="$(echo "$requirements" | sha256sum | cut -d' ' -f1)"
  if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --upgrade pip
    "$venv/bin/pip" install -q -r <(echo "$requirements")
    echo "$want" > "$stamp"
  fi
done

# The job UI's browser test (python-tests/test_ui.py) drives Debian's chromium through its
# chromedriver; install them when missing (it skips, saying why, where they cannot be installed).
if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
  step "chromium and chromium-driver for python-tests/test_ui.py"
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo -n"
  if command -v apt-get >/dev/null && { [ -z "$sudo" ] || sudo -n true 2>/dev/null; }; then
    $sudo apt-get update -qq && $sudo apt-get install -y -qq chromium chromium-driver >/dev/null \
      || echo "WARNING: could not install chromium and chromium-driver: test_ui.py will skip" >&2
  else
    echo "WARNING: chromium and chromium-driver are missing and cannot be installed here (needs" \
      "apt-get as root): test_ui.py will skip. Install them with: apt-get install chromium chromium-driver" >&2
  fi
fi

step "cargo build"
cargo build --workspace --bins

step "cargo test"
cargo test --workspace

step "cargo clippy"
cargo clippy --workspace --all-targets -- -D warnings

# The Apache Spark Connect Rust client against the binary (a crate of its own, with its own
# Arrow; its protos compile with the protoc the server's build already fetched).
step "Rust client (clients/rust) (modes: $EMBER_MODES)"
protoc="${PROTOC:-$(find "${CARGO_HOME:-$HOME/.cargo}/registry/src" -path '*protoc-bin-vendored-linux-x86_64*/bin/protoc' 2>/dev/null | head -1)}"
(cd clients/rust && PROTOC="$protoc" EMBER_BIN="$CARGO_TARGET_DIR/debug/ember" \
  CARGO_TARGET_DIR="$CARGO_TARGET_DIR-rust-client" cargo test --locked)

# The first client runs everything in every mode; the others run in OTHER_MODES and leave out
# the function matrix (one test of 11,501 queries whose answers do not depend on the client).
first=1
for client in $CLIENTS; do
  if [ "$first" = 1 ]; then
    step "pytest with $client (modes: $EMBER_MODES)"
    "$(venv_of "$client")/bin/python" -m pytest python-tests "${PYTEST[@]}" "$@"
    first=0
  else
    step "pytest with $client (modes: $OTHER_MODES)"
    "$(venv_of "$client")/bin/python" -m pytest python-tests "${PYTEST[@]}" \
      --ember-modes "$OTHER_MODES" --deselect python-tests/test_function_matrix.py::test_function_matrix "$@"
  fi
done

# The slice: what an older client cannot express skips with a reason (python-tests/client_gaps.py).
mapfile -t slice < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' python-tests/client_slice.txt)
for client in $SLICE_CLIENTS; do
  step "pytest (slice) with $client (modes: $OTHER_MODES)"
  "$(venv_of "$client")/bin/python" -m pytest "${slice[@]}" "${PYTEST[@]}" \
    --ember-modes "$OTHER_MODES" "$@"
done
