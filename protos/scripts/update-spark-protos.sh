#!/usr/bin/env bash
# Re-extract the Spark Connect protocol files from the `pyspark` package on PyPI.
#
#   protos/scripts/update-spark-protos.sh [VERSION]      (default: the version in protos/SPARK_VERSION)
#
# The pyspark distribution carries `jars/spark-connect_<scala>-<version>.jar`, which contains
# `spark/connect/*.proto`. They are copied verbatim (Apache License 2.0 headers included) into
# protos/proto/spark/connect/. Set PYSPARK_DIR to an installed `pyspark` package directory to
# skip the download.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
version="${1:-$(cat "$here/SPARK_VERSION")}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [ -n "${PYSPARK_DIR:-}" ]; then
  jar="$(ls "$PYSPARK_DIR"/jars/spark-connect_*-"$version".jar | head -n 1)"
else
  python3 -m pip download -q --no-deps --no-binary :all: -d "$work/dl" "pyspark==$version" \
    || python3 -m pip download -q --no-deps -d "$work/dl" "pyspark==$version"
  archive="$(ls "$work"/dl/pyspark-* | head -n 1)"
  mkdir -p "$work/pkg"
  case "$archive" in
    *.tar.gz) tar -xzf "$archive" -C "$work/pkg" --wildcards '*/jars/spark-connect_*.jar' ;;
    *.whl|*.zip) python3 -m zipfile -e "$archive" "$work/pkg" ;;
  esac
  jar="$(find "$work/pkg" -name "spark-connect_*-$version.jar" | head -n 1)"
fi
[ -f "$jar" ] || { echo "no spark-connect jar for pyspark $version" >&2; exit 1; }

mkdir -p "$work/jar"
python3 - "$jar" "$work/jar" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for name in z.namelist():
        if name.startswith("spark/connect/") and name.endswith(".proto"):
            z.extract(name, sys.argv[2])
PY
dest="$here/proto/spark/connect"
rm -rf "$dest"
mkdir -p "$dest"
cp "$work"/jar/spark/connect/*.proto "$dest/"
echo "$version" > "$here/SPARK_VERSION"
echo "extracted $(ls "$dest" | wc -l) proto files of Spark $version into $dest"
