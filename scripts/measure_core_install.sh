#!/usr/bin/env bash
# Measure the core install (README, "Install"): a fresh virtual environment, `pip install .` without extras (the
# package index must be reachable at install time; nothing is downloaded at run time), then
#   - no torch among the installed distributions,
#   - `persona-metrics score perseval` on the shipped sample works,
#   - `persona_metrics.load("persona_quality")` refuses with the one line naming the "neural" extra,
#   - the number of distributions and the size of site-packages.
# Usage: scripts/measure_core_install.sh [VENV_DIR]   (default: a new temporary directory; PYTHON=python3.11)
# Not part of `make test`, which runs offline apart from its own installs.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-python3.11}
VENV=${1:-$(mktemp -d)/core-venv}
"$PYTHON" -m venv "$VENV"
"$VENV/bin/pip" install --quiet --upgrade pip
"$VENV/bin/pip" install --quiet "$ROOT"
export HF_EVALUATE_OFFLINE=1 HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1
WORK=$(mktemp -d)
cd "$WORK"  # not the source tree: the installed copy is what runs
export HF_HOME="$WORK/hf" PERSONA_METRICS_CACHE="$WORK/cache"

if "$VENV/bin/pip" list 2>/dev/null | grep -iE '^(torch|transformers) '; then
  echo "FAIL: the core install has torch or transformers"; exit 1
fi
"$VENV/bin/persona-metrics" score perseval "$ROOT/data/personalization_sample/sample.jsonl" > perseval.txt
grep -q '^signature: rougeL' perseval.txt || { echo "FAIL: score perseval printed no signature"; exit 1; }
if "$VENV/bin/python" -c "import evaluate, persona_metrics; persona_metrics.load('persona_quality')" 2> hint.txt; then
  echo "FAIL: persona_quality loaded without the neural extra"; exit 1
fi
expected='persona_quality needs the "neural" extra: pip install "persona-metrics[neural]"'
tail -n 1 hint.txt | grep -qF "$expected" || { echo "FAIL: unexpected error:"; tail -n 3 hint.txt; exit 1; }

site=$("$VENV/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
echo "core install ($("$VENV/bin/python" --version)): no torch, no transformers"
echo "distributions (pip list, pip and setuptools included): $("$VENV/bin/pip" list --format=freeze 2>/dev/null | wc -l)"
echo "site-packages: $(du -sh "$site" | cut -f1)"
echo "persona-metrics score perseval: ok ($(grep '^signature:' perseval.txt))"
echo "persona_quality without the extra: $(tail -n 1 hint.txt)"
