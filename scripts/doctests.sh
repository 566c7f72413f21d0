#!/usr/bin/env bash
# Run PySpark 4.3's bundled Spark Connect doctests (pyspark.sql.connect.functions.builtin,
# pyspark.sql.dataframe, pyspark.sql.column, pyspark.sql.connect.group/readwriter/catalog/session)
# against Ember, or against any Spark Connect server, and print passed/failed per module.
#
#   scripts/doctests.sh [--url sc://HOST:PORT] [--modules m1,m2] [--failures FILE] [--json FILE]
#                       [--baseline FILE.json] [--mode local|local-cluster|cluster] [--ember-bin PATH]
#                       [--markdown docs/doctest-failures.md]
#
# Without --url each module runs against a fresh `ember server` (the debug binary in
# $CARGO_TARGET_DIR, built first unless EMBER_DOCTEST_NO_BUILD=1). Against real Spark:
#   scripts/doctests.sh --url "$(../shared/tools/spark-reference start)" \
#     --conf spark.sql.timeType.enabled=true --json /tmp/spark.json   # TIME is on in Spark's test runs
#   scripts/doctests.sh --baseline /tmp/spark.json --failures /tmp/ember-failures.txt
# See python-tests/doctests/run_doctests.py for how each module's `_test()` is reproduced.
#
# Environment: CARGO_TARGET_DIR (default ~/.cache/ember/target), EMBER_DOCTEST_VENV (default
# ~/.cache/ember/venv-pyspark-4.3.0: the full pyspark==4.3.0 package, whose doctests these are).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/ember/target}"
VENV="${EMBER_DOCTEST_VENV:-$HOME/.cache/ember/venv-pyspark-4.3.0}"
PYSPARK_VERSION=4.3.0

# The full pyspark package does not pull in the Connect client's dependencies: pyspark[connect] does.
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import pyspark, grpc, grpc_status, google.rpc, pandas, pyarrow" 2>/dev/null; then
  echo "==> installing pyspark[connect]==$PYSPARK_VERSION into $VENV" >&2
  [ -x "$VENV/bin/python" ] || { python3 -m venv "$VENV"; "$VENV/bin/pip" install -q --upgrade pip; }
  # The same pandas/pyarrow as the test suite (python-tests/requirements.txt).
  pins="$(grep -E '^(pandas|pyarrow)==' python-tests/requirements.txt || true)"
  # shellcheck disable=SC2086
  "$VENV/bin/pip" install -q "pyspark[connect]==$PYSPARK_VERSION" $pins
fi

if ! printf '%s\n' "$@" | grep -q -- '^--url'; then
  if [ "${EMBER_DOCTEST_NO_BUILD:-0}" != "1" ]; then
    echo "==> cargo build --workspace --bins" >&2
    cargo build --workspace --bins >&2
  fi
fi

exec "$VENV/bin/python" python-tests/doctests/run_doctests.py "$@"
