"""Test-session set-up: offline flags and a private Hugging Face home, set before evaluate is imported.

evaluate binds its dynamic-modules package to the first modules cache imported in a process, so the
cache is chosen once here (specs/evaluate_conventions.md §1.7, test-suite pitfall).
"""

import os
import tempfile

_HF_HOME = tempfile.mkdtemp(prefix="persona-metrics-hf-")
os.environ["HF_HOME"] = _HF_HOME
os.environ.pop("HF_MODULES_CACHE", None)
for flag in ("HF_EVALUATE_OFFLINE", "HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
    os.environ[flag] = "1"

import pytest  # noqa: E402

from persona_metrics import register  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def registered_modules() -> str:
    """Register the bundled metrics in this session's private modules cache."""
    register()
    return _HF_HOME
