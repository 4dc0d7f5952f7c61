"""Offline provisioning of NLTK data and the packaged model (specs/offline_resources.md)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from persona_metrics import resources

_BUILD_ALL = (
    "import nltk; nltk.download = lambda *a, **k: (_ for _ in ()).throw(RuntimeError('nltk.download called'));"
    "from persona_metrics import resources as r; r.ensure_wordnet(); r.ensure_punkt(); r.ensure_cmudict();"
    "from nltk.corpus import wordnet; print(wordnet.get_version(), len(wordnet.synsets('bank')))"
)


def test_concurrent_builds_in_a_fresh_cache(tmp_path: Path) -> None:
    """Four processes build everything into one empty cache at once: one complete copy, no leftovers."""
    env = {**os.environ, resources.CACHE_ENV: str(tmp_path)}
    procs = [
        subprocess.Popen([sys.executable, "-c", _BUILD_ALL], env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    outs = [p.communicate(timeout=300)[0].strip() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert outs == ["3.0 18"] * 4  # WordNet 3.0: 10 noun + 8 verb senses of "bank"
    data = tmp_path / "nltk_data"
    assert sorted(p.name for p in (data / "corpora").iterdir()) == ["cmudict", "wordnet"]
    assert sorted(p.name for p in (data / "tokenizers" / "punkt_tab").iterdir()) == ["english"]


def test_flesch_kincaid_uses_cmudict_offline() -> None:
    """The pinned choice: CMUdict syllables give FK 7.99 on this text (specs/offline_resources.md §6)."""
    import textstat

    resources.ensure_cmudict()
    text = (
        "The quick brown fox jumps over the lazy dog. Readability formulas estimate how hard a passage is to "
        "understand."
    )
    assert textstat.flesch_kincaid_grade(text) == pytest.approx(7.99, abs=0.005)


def test_sentence_splitting_handles_abbreviations() -> None:
    text = "Dr. Smith met Mr. Jones in Washington. They arrived at 5 p.m. on Monday. Then they left."
    assert resources.sent_tokenize(text) == [
        "Dr. Smith met Mr. Jones in Washington.",
        "They arrived at 5 p.m. on Monday.",
        "Then they left.",
    ]


def test_cache_dir_respects_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(resources.CACHE_ENV, str(tmp_path / "c"))
    assert resources.cache_dir() == tmp_path / "c"
    assert resources.nltk_data_dir() == tmp_path / "c" / "nltk_data"


def test_packaged_minilm_is_a_transformers_folder() -> None:
    path = resources.minilm_path()
    assert (path / "config.json").is_file()
    assert any(path.glob("*.safetensors"))
