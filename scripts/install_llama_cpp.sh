#!/usr/bin/env bash
# Install llama-cpp-python (with its [server] extra) into a virtual environment from a local wheelhouse, building the
# wheel only the first time (`make test-llm`, docs/summary_eval.md §9).
#
# Usage: scripts/install_llama_cpp.sh VENV_PYTHON
#   LLAMA_CPP_VERSION   the version (default 0.3.36)
#   CMAKE_ARGS          llama.cpp's build flags (the Makefile passes its own; they are part of the wheelhouse's key)
#   PERSONA_METRICS_WHEELHOUSE  where wheelhouses live (default ${XDG_CACHE_HOME:-~/.cache}/persona-metrics/wheelhouse)
#   PERSONA_METRICS_WHEELHOUSE_SEED  optional: a read-only folder of wheelhouses built elsewhere with this script (a
#               team's shared cache, a CI machine's seed); a missing wheelhouse is copied from it instead of built
#               when the seed holds one under the same key whose BUILD_INFO names the same version, CMAKE_ARGS and
#               interpreter and whose wheel passes a zip check. Anything else in it is ignored, with a line saying
#               why; without it (users never need it) the wheel is built as below.
#
# The wheelhouse of one build is  <root>/llama-cpp-python-<version>-<key>/  where <key> is 12 hex digits of a SHA-256
# over the version, CMAKE_ARGS, the interpreter (cpython-311) and the platform (linux-x86_64): other flags or another
# Python get a wheelhouse of their own, and a wheel built with other flags (e.g. -march=native) is never reused.
# When it is absent the wheel is built with `pip wheel --no-deps --no-cache-dir` (pip's own wheel cache is keyed by
# the source, not by CMAKE_ARGS) into a temporary folder beside it, which is renamed into place only once the wheel
# is there: a killed build leaves no wheelhouse, only a temporary folder that the next run removes. A lock serialises
# two builds of the same key. Then the wheel is installed from the wheelhouse alone (--no-index), and the
# dependencies of the package and of its [server] extra come from the package index; the index never supplies
# llama-cpp-python itself (--only-binary), so nothing is compiled on a second run.
set -euo pipefail
PY=${1:?usage: scripts/install_llama_cpp.sh VENV_PYTHON}
VERSION=${LLAMA_CPP_VERSION:-0.3.36}
ARGS=${CMAKE_ARGS:-}
ROOT=${PERSONA_METRICS_WHEELHOUSE:-${XDG_CACHE_HOME:-$HOME/.cache}/persona-metrics/wheelhouse}

interp=$("$PY" -c 'import sys, sysconfig; print(sys.implementation.cache_tag, sysconfig.get_platform())')
key=$(printf 'llama-cpp-python==%s\nCMAKE_ARGS=%s\n%s\n' "$VERSION" "$ARGS" "$interp" | sha256sum | cut -c1-12)
HOUSE="$ROOT/llama-cpp-python-$VERSION-$key"
mkdir -p "$ROOT"

have_wheel() { compgen -G "$1/llama_cpp_python-$VERSION-*.whl" >/dev/null; }

# The seed's wheelhouse of this key, copied into $1 when its BUILD_INFO and wheel check out; 1 (and why) otherwise.
SEED_HOUSE=${PERSONA_METRICS_WHEELHOUSE_SEED:+$PERSONA_METRICS_WHEELHOUSE_SEED/llama-cpp-python-$VERSION-$key}
seeded() {
  [ -n "$SEED_HOUSE" ] || return 1
  if ! have_wheel "$SEED_HOUSE" || [ ! -f "$SEED_HOUSE/BUILD_INFO" ]; then
    echo "llama-cpp-python $VERSION: the seed has no wheelhouse of key $key (${SEED_HOUSE}): building"; return 1
  fi
  local line
  for line in "llama-cpp-python==$VERSION" "CMAKE_ARGS=$ARGS" "interpreter=$interp"; do
    grep -qxF -- "$line" "$SEED_HOUSE/BUILD_INFO" || {
      echo "llama-cpp-python $VERSION: the seed's BUILD_INFO lacks '$line' (${SEED_HOUSE}): building"; return 1; }
  done
  cp "$SEED_HOUSE"/llama_cpp_python-"$VERSION"-*.whl "$SEED_HOUSE/BUILD_INFO" "$1/"
  "$PY" -m zipfile -t "$1"/llama_cpp_python-"$VERSION"-*.whl >/dev/null 2>&1 || {
    rm -f "$1"/*; echo "llama-cpp-python $VERSION: the seed's wheel fails a zip check (${SEED_HOUSE}): building"; return 1; }
}

if ! have_wheel "$HOUSE"; then
  exec 9>"$ROOT/.llama-cpp-python-$VERSION-$key.lock"
  flock 9  # another build of the same key finishes first; this one then finds its wheelhouse
  if ! have_wheel "$HOUSE"; then
    rm -rf "$ROOT/.tmp-llama-cpp-python-$VERSION-$key".*  # left by a killed build (we hold the lock)
    tmp=$(mktemp -d "$ROOT/.tmp-llama-cpp-python-$VERSION-$key.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    if seeded "$tmp"; then
      done_line="copied from the seed $SEED_HOUSE (built there $(grep '^built=' "$tmp/BUILD_INFO" | cut -d= -f2))"
    else
      echo "llama-cpp-python $VERSION: building the wheel once (CMAKE_ARGS=\"$ARGS\"; 221 s on an idle 2-core machine, 16-64 min at load 6-13: README) ..."
      start=$(date +%s)
      CMAKE_ARGS="$ARGS" "$PY" -m pip wheel --quiet --no-deps --no-cache-dir --wheel-dir "$tmp" "llama-cpp-python==$VERSION"
      seconds=$(( $(date +%s) - start ))
      have_wheel "$tmp" || { echo "pip wheel wrote no llama_cpp_python-$VERSION wheel"; exit 1; }
      printf 'llama-cpp-python==%s\nCMAKE_ARGS=%s\ninterpreter=%s\nbuilt=%s\nbuild_seconds=%s\nloadavg=%s\n' \
        "$VERSION" "$ARGS" "$interp" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$seconds" "$(cut -d' ' -f1-3 /proc/loadavg)" \
        > "$tmp/BUILD_INFO"
      done_line="built in ${seconds}s"
    fi
    chmod 755 "$tmp"  # mktemp -d makes it private; the wheelhouse is readable like the rest of the cache
    rm -rf "$HOUSE"  # an empty or wheel-less folder of that name (no wheel: checked above under the lock)
    mv -T "$tmp" "$HOUSE"  # one rename: the wheelhouse appears whole or not at all
    trap - EXIT
    echo "llama-cpp-python $VERSION: $done_line, kept in $HOUSE"
  fi
  exec 9>&-
else
  echo "llama-cpp-python $VERSION: reusing the wheel in $HOUSE"
fi

start=$(date +%s)
"$PY" -m pip install --quiet --no-index --find-links "$HOUSE" --no-deps --force-reinstall "llama-cpp-python==$VERSION"
"$PY" -m pip install --quiet --find-links "$HOUSE" --only-binary llama-cpp-python "llama-cpp-python[server]==$VERSION"
echo "llama-cpp-python $VERSION: installed from the wheelhouse in $(( $(date +%s) - start ))s"
