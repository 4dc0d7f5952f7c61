# persona-metrics: two commands set up and run everything on a fresh machine.
#   make demo   creates .venv, installs, registers the evaluate modules, runs the main job on the shipped sample
#   make test   the same set-up, then the full test suite
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
export HF_EVALUATE_OFFLINE ?= 1
export HF_HUB_OFFLINE ?= 1
export HF_DATASETS_OFFLINE ?= 1
export TRANSFORMERS_OFFLINE ?= 1

.PHONY: install register demo test lint clean

$(BIN)/python:
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "need $(PYTHON) (set PYTHON=...)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# torch first, pinned: an unpinned torch would pull a multi-GB CUDA build.
$(STAMP): $(BIN)/python setup.cfg pyproject.toml
	$(BIN)/pip install --quiet "torch==2.13.0"
	$(BIN)/pip install --quiet -e ".[dev,demo]"
	touch $(STAMP)

install: $(STAMP)

register: install
	$(BIN)/persona-metrics register

demo: register
	$(BIN)/python scripts/score_personalization.py data/personalization_sample/sample.jsonl
	$(BIN)/python scripts/evaluate_summaries.py data/financial_sample --out outputs/financial_sample
	$(BIN)/python scripts/benchmark_pens.py data/pens_sample --out outputs/pens_sample --distance rougeL jsd

test: register
	$(BIN)/python -m pytest -q

lint: install
	$(BIN)/ruff check src metrics scripts tests
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache .ruff_cache .mypy_cache
