#!/usr/bin/env bash
# Run the draft Spark Connect compatibility kit's wire-protocol suite against Ember (or any Spark
# Connect server) and print passed/failed per item.
#
#   scripts/conformance.sh [--url sc://HOST:PORT] [--mode MODE] [--with-gaps] [--json FILE] [-- PYTEST_ARGS...]
#
# The kit is zhengruifeng/spark-connect-tck (the SC-1.0-P1 required profile of the Spark Connect
# 1.0 draft, pinned to Apache Spark 4.2). It is not part of this repository: it is downloaded at
# run time at the commit pinned below (draft v0.41) and cached under ~/.cache/ember, or taken from
# SPARK_CONNECT_TCK_DIR (a checkout of that commit) when set. Its Python dependencies go into a venv
# of their own (~/.cache/ember/venv-conformance).
#
# Without --url, an `ember server --port P --mode MODE` (MODE default local) is started on a free
# port and stopped afterwards; with --url the suite runs against that server instead (for real
# Spark: ../shared/tools/spark-reference start, then --url sc://127.0.0.1:15099).
# The default selection is the kit's required profile without its known reference gaps
# (`-m "not reference_gap"`: items the draft requires but the pinned Apache Spark is known to
# fail); --with-gaps runs those too.
#
# Environment: EMBER_BIN (default $CARGO_TARGET_DIR/debug/ember, CARGO_TARGET_DIR default
# ~/.cache/ember/target), SPARK_CONNECT_TCK_DIR, EMBER_TCK_VENV, EMBER_TCK_CLIENT (the PySpark the
# kit runs with; default pyspark==4.3.0, within the kit's pyspark[connect]>=4.2,<5.0).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"

TCK_REPO="zhengruifeng/spark-connect-tck"
TCK_COMMIT="ec2414ae8affd7a8f760bbbf00ce1368af5085ee" # draft v0.41, SC-1.0-P1, reference Spark 4.2.0
CACHE="$HOME/.cache/ember"
KIT="${SPARK_CONNECT_TCK_DIR:-$CACHE/spark-connect-tck-$TCK_COMMIT}"
VENV="${EMBER_TCK_VENV:-$CACHE/venv-conformance}"
CLIENT="${EMBER_TCK_CLIENT:-pyspark==4.3.0}"
EMBER_BIN="${EMBER_BIN:-${CARGO_TARGET_DIR:-$CACHE/target}/debug/ember}"

URL="" MODE="local" MARKS=(-m "not reference_gap") JSON=""
while [ $# -gt 0 ]; do
  case "$1" in
    --url) URL="$2"; shift 2 ;;
    --mode) MODE="$2"; shift 2 ;;
    --with-gaps) MARKS=(); shift ;;
    --json) JSON="$2"; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "conformance: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

step() { printf '\n==> %s\n' "$*"; }

# 1. The kit, at the pinned commit.
if [ ! -f "$KIT/tests/tck/test_wire_protocol.py" ]; then
  step "downloading $TCK_REPO@$TCK_COMMIT"
  tmp="$(mktemp -d)"
  if curl -fsSL --retry 2 --max-time 120 \
      "https://codeload.github.com/$TCK_REPO/tar.gz/$TCK_COMMIT" -o "$tmp/kit.tar.gz" &&
     tar -xzf "$tmp/kit.tar.gz" -C "$tmp"; then
    mkdir -p "$(dirname "$KIT")"
    rm -rf "$KIT"
    mv "$tmp/spark-connect-tck-$TCK_COMMIT" "$KIT"
    rm -rf "$tmp"
  else
    rm -rf "$tmp"
    cat >&2 <<EOF
conformance: could not download the kit from GitHub (this machine may not reach github.com).
Get https://github.com/$TCK_REPO at commit $TCK_COMMIT some other way and run again with
SPARK_CONNECT_TCK_DIR=/path/to/that/checkout.
EOF
    exit 2
  fi
fi
echo "kit: $KIT (tests/tck/test_wire_protocol.py sha256 $(sha256sum "$KIT/tests/tck/test_wire_protocol.py" | cut -c1-16)…)"

# 2. A venv with the kit and its dependencies, refreshed when the pins change.
stamp="$VENV/.conformance.sha"
want="$(printf '%s\n' "$TCK_COMMIT" "$CLIENT" "$KIT" | sha256sum | cut -d' ' -f1)"
if [ ! -x "$VENV/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  step "installing the kit into $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --upgrade pip
  "$VENV/bin/pip" install -q "pytest==9.2.0" "${CLIENT%%==*}[connect]==${CLIENT##*==}" "$KIT"
  echo "$want" > "$stamp"
fi

# 3. The server under test.
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID"
    for _ in $(seq 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$SERVER_PID" 2>/dev/null || true
  fi
}
trap cleanup EXIT
if [ -z "$URL" ]; then
  [ -x "$EMBER_BIN" ] || { echo "conformance: no ember binary at $EMBER_BIN (cargo build --bins first)" >&2; exit 2; }
  PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  WORK="$(mktemp -d /tmp/ember-conformance.XXXXXX)"
  args=(server --port "$PORT" --mode "$MODE")
  [ "$MODE" = local ] || args+=(--workers 2)
  [ "$MODE" = cluster ] && args+=(--driver-port 0)
  step "starting $EMBER_BIN ${args[*]} (log: $WORK/ember.log)"
  (cd "$WORK" && exec "$EMBER_BIN" "${args[@]}") >"$WORK/ember.log" 2>&1 &
  SERVER_PID=$!
  deadline=$(( $(date +%s) + 60 ))
  until (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; do
    if ! kill -0 "$SERVER_PID" 2>/dev/null || [ "$(date +%s)" -gt "$deadline" ]; then
      echo "conformance: ember did not start; log:" >&2; cat "$WORK/ember.log" >&2; exit 2
    fi
    sleep 0.1
  done
  URL="sc://127.0.0.1:$PORT"
  TARGET="ember ($MODE)"
else
  TARGET="$URL"
fi

# 4. The wire-protocol suite, one line per item at the end.
step "Spark Connect TCK ($TCK_COMMIT) against $TARGET"
cd "$KIT"
set +e
PYTHONPATH="$ROOT/python-tests/conformance${PYTHONPATH:+:$PYTHONPATH}" \
  "$VENV/bin/python" -m pytest tests/tck/test_wire_protocol.py -p tck_report -p no:cacheprovider \
  --spark-connect-url "$URL" --tck-target "$TARGET" ${JSON:+--tck-json "$JSON"} \
  "${MARKS[@]}" -q --tb=line "$@"
status=$?
set -e
exit "$status"
