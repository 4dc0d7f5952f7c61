"""Test-session set-up: offline flags and a private Hugging Face home, set before evaluate is imported.

evaluate binds its dynamic-modules package to the first modules cache imported in a process, so the
cache is chosen once here (docs/evaluate_conventions.md §1.7, test-suite pitfall).
"""

import os
import tempfile

_HF_HOME = tempfile.mkdtemp(prefix="persona-metrics-hf-")
os.environ["HF_HOME"] = _HF_HOME
os.environ.pop("HF_MODULES_CACHE", None)
for flag in ("HF_EVALUATE_OFFLINE", "HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
    os.environ[flag] = "1"
os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"  # the Space apps: no usage pings

import doctest  # noqa: E402
import importlib.util  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

from persona_metrics import PersonaMetricsWarning, register  # noqa: E402


def load_script(name: str):
    """A module of the repository's ``scripts/`` (not a package), loaded by file path."""
    spec = importlib.util.spec_from_file_location(name, Path(__file__).resolve().parents[1] / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The reliability suite (tests/test_fuzz.py): a bounded, reproducible run under `make test`; `make fuzz` sets
# PERSONA_METRICS_FUZZ=full for >= 10,000 random examples per metric. Selected in test_fuzz.py by that variable.
settings.register_profile(
    "fuzz",
    max_examples=125,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
settings.register_profile("fuzz-full", settings.get_profile("fuzz"), max_examples=5000, derandomize=False)
# CI's rotating sample (`make fuzz-sample`): 500 per test, 1,000 per metric, random under PERSONA_METRICS_FUZZ_SEED.
settings.register_profile("fuzz-sample", settings.get_profile("fuzz"), max_examples=500, derandomize=False)
from persona_metrics.integrations.registry import metric_script  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    """The ``llm`` marker: real-model judge tests, run by ``make test-llm`` only (docs/summary_eval.md §9); the
    ``multiprocess`` marker: tests that build a fresh environment or start several processes, ``make
    test-integration``."""
    config.addinivalue_line("markers", "llm: needs a real local LLM server (llama-cpp-python); make test-llm")
    config.addinivalue_line(
        "markers",
        "multiprocess: builds a fresh venv from the wheel or starts several processes (torchrun, a Ray cluster); "
        "make test-integration",
    )


@pytest.fixture(scope="session", autouse=True)
def registered_modules() -> str:
    """Register the bundled metrics in this session's private modules cache."""
    register()
    return _HF_HOME


def save_tiny_bert(path: Path, words: list[str], head: str, initializer_range: float = 0.02) -> str:
    """A randomly initialised 1-layer BERT (``head``: "masked_lm" or "regression") and its tokenizer, saved to
    ``path``: the real loading code is tested on it instead of a hub model."""
    import torch
    from transformers import BertConfig, BertForMaskedLM, BertForSequenceClassification, BertTokenizer

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words]
    (path / "vocab.txt").write_text("\n".join(vocab) + "\n")
    BertTokenizer(str(path / "vocab.txt")).save_pretrained(path)
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=64,
        num_labels=1,
        initializer_range=initializer_range,
    )
    model = BertForMaskedLM(config) if head == "masked_lm" else BertForSequenceClassification(config)
    model.save_pretrained(path)
    return str(path)


def run_module_doctests(name: str) -> doctest.TestResults:
    """Run the ``>>>`` examples of a bundled metric script (``evaluate.load`` by bare name: registered)."""
    spec = importlib.util.spec_from_file_location(f"_doctest_{name}", metric_script(name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PersonaMetricsWarning)
        return doctest.testmod(module, optionflags=doctest.ELLIPSIS)
