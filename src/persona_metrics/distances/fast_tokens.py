r"""Exact, faster equivalents of the tokenizers behind ``rougeL`` and ``jsd``, and NLTK's Porter stemmer without nltk.

Both tokenizers keep runs of letters and digits of the lowercased text; the work per text is a few C-level
string operations instead of a regular expression:

* :func:`rouge_raw_tokens` — ``rouge_score.tokenize.tokenize`` before stemming. ``rouge_score`` lowercases the
  text (Unicode ``str.lower``), replaces every run of characters outside ASCII ``[a-z0-9]`` by one space and splits
  on whitespace. Here: ``text.lower().encode("ascii", "replace")`` (each non-ASCII code point, a lone surrogate
  included, becomes one ``b"?"``; ASCII characters stay as they are), then ``bytes.translate`` with
  :data:`LOWER_ALNUM` (every byte outside ``[a-z0-9]`` becomes a space) and ``bytes.split()``. The kept
  characters and the boundaries between runs are the same, so the tokens are the same, as ASCII bytes. For an
  ASCII text ``str.lower`` only maps ``A-Z`` to ``a-z``, which the table also does, so the ``lower()`` call is
  skipped. Characters that lowercase *to* ASCII (the Kelvin sign ``K`` → ``k``, ``İ`` → ``i`` + U+0307) are
  lowercased before the encoding, as in ``rouge_score``.
* :func:`word_token_bytes` — ``word_tokens(text)`` (the pattern ``[^\W_]+`` on the lowercased text,
  i.e. runs of ``str.isalnum`` characters) with each word as UTF-8 bytes. For an ASCII text (``str.isascii`` is
  O(1)) the runs of ``str.isalnum`` characters of the lowercased text are exactly the runs of ``[a-z0-9]`` after
  mapping ``A-Z`` to ``a-z``: one ``translate`` and one ``split``. Other texts go through the regular expression.

Stemming: :func:`rouge_stem` is ``rouge_score``'s step after the split for one raw token (NLTK's Porter stemmer,
NLTK_EXTENSIONS mode, on tokens longer than 3 characters, then only tokens matching ``^[a-z0-9]+$`` are kept),
memoised once per process (:data:`STEMS`). Most words never reach the stemmer: :func:`stem_table` is a shipped
table of that token for 337,100 English words (the packaged GloVe vocabulary and WordNet's lemmas), made by
NLTK's own stemmer (``scripts/make_stem_table.py``) and used only while the installed ``porter.py`` is the one
that made it; :meth:`Stems.fill` looks a batch of words up in it with one vectorised search.

:func:`porter_stemmer` gives NLTK's own ``PorterStemmer``, compiled from the installed ``nltk/stem/porter.py``
without running ``import nltk`` (about a second and 2,000 modules), so a process that only needs ROUGE-L never
imports nltk. Other stemmers
(PyStemmer, snowballstemmer) are not equivalent: thousands of common words stem differently. Why each step is
exact, and the tests that show it: ``docs/perseval.md`` §11.
"""

from __future__ import annotations

import builtins
import hashlib
import importlib.util
import json
import logging
import mmap
import re
import sys
import warnings
import zlib
from abc import ABCMeta, abstractmethod
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

logger = logging.getLogger(__name__)

#: ``bytes.translate`` table: ``A-Z`` → ``a-z``; ``a-z`` and ``0-9`` kept; every other byte → space.
LOWER_ALNUM = bytes(c + 32 if 65 <= c <= 90 else c if (97 <= c <= 122 or 48 <= c <= 57) else 32 for c in range(256))
#: rouge_score's final filter (``tokenize.VALID_TOKEN_RE``).
_VALID_TOKEN = re.compile(r"^[a-z0-9]+$")
#: ``word_tokens``' pattern (``distances.lexical._WORD``): letters and digits, Unicode-aware.
_WORD = re.compile(r"[^\W_]+")


def rouge_raw_tokens(text: str) -> list[bytes]:
    """``rouge_score``'s tokens of ``text`` before stemming, as ASCII bytes (the runs of ``[a-z0-9]``)."""
    if text.isascii():
        return text.encode("ascii").translate(LOWER_ALNUM).split()
    return text.lower().encode("ascii", "replace").translate(LOWER_ALNUM).split()


def word_token_bytes(text: str) -> list[bytes]:
    """``word_tokens(text)`` with each word encoded as UTF-8 (ASCII texts without a regular expression)."""
    if text.isascii():
        return text.encode("ascii").translate(LOWER_ALNUM).split()
    return [word.encode("utf-8", "surrogatepass") for word in _WORD.findall(text.lower())]


def rouge_stem(raw: bytes) -> str:
    """The token ``rouge_score`` (``use_stemmer=True``) makes of a raw token; ``""`` when it drops it.

    NLTK's stemmer itself, on every call; :data:`STEMS` gives the same token from the table or its memo.
    """
    word = raw.decode("ascii")
    token = porter_stemmer().stem(word) if len(word) > 3 else word
    return token if _VALID_TOKEN.match(token) else ""


# --- the shipped stem table -------------------------------------------------------------------------------------
#: Longest word (bytes) the shipped table holds; a longer word is stemmed by NLTK's code.
STEM_TABLE_WIDTH = 20
#: The table's file name, beside this module in ``stems/`` (its JSON description has the same stem).
STEM_TABLE_FILE = "porter_ext.bin"
_STEM_TABLE_DIR = Path(__file__).parent / "stems"


def _porter_path() -> Path:
    """The installed ``nltk/stem/porter.py`` (found without importing nltk)."""
    spec = importlib.util.find_spec("nltk")  # locates the package without running its __init__
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("nltk is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "stem" / "porter.py"


def porter_source_sha256() -> str:
    """SHA-256 of the installed ``nltk/stem/porter.py``: the stemmer the table must come from."""
    return hashlib.sha256(_porter_path().read_bytes()).hexdigest()


def _stem_table_problem(meta: dict[str, Any], data: mmap.mmap) -> str | None:
    """Why the table's bytes and description cannot be used with the installed nltk (``None``: they can)."""
    if meta.get("width") != STEM_TABLE_WIDTH:
        return f"its width is {meta.get('width')!r}, this code reads {STEM_TABLE_WIDTH}"
    if meta.get("porter_sha256") != porter_source_sha256():
        return f"it was made by nltk {meta.get('nltk')}'s porter.py and the installed one differs"
    if meta.get("table_crc32") != zlib.crc32(data):
        return "its file is damaged (CRC-32 differs from its description)"
    return None


@cache
def stem_table() -> tuple[np.ndarray, np.ndarray] | None:
    """The shipped table as (sorted words, their tokens), validated; ``None`` with a warning when unusable.

    The file is the sorted words then their tokens, ``entries`` fixed-width ASCII fields each (views of the file's
    bytes, no copy). Validated on first use: its description's width, the SHA-256 of the ``porter.py`` that made
    it (must be the installed one), the file's size and CRC-32. An unusable table is not used: every word then
    goes through NLTK's stemmer (the same tokens, a slower first call) and a warning says why. The words' order
    is not checked here (the builder and the tests check it): a lookup takes a token only from an entry whose word
    equals the query, so a table out of order could only miss words, which then go to NLTK's code.
    """
    path = _STEM_TABLE_DIR / STEM_TABLE_FILE
    try:
        meta = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        with path.open("rb") as handle:  # mapped, not copied: the arrays are views of the file
            data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        problem = _stem_table_problem(meta, data)
        if problem is None:
            entries = int(meta["entries"])
            if len(data) != 2 * entries * STEM_TABLE_WIDTH:
                raise ValueError(f"{len(data)} bytes for {entries} entries")
            words = np.frombuffer(data, dtype=f"S{STEM_TABLE_WIDTH}", count=entries)
            stems = np.frombuffer(data, dtype=f"S{STEM_TABLE_WIDTH}", count=entries, offset=words.nbytes)
    except (OSError, ValueError, ImportError, KeyError, TypeError) as err:
        problem = f"it cannot be read ({type(err).__name__}: {err})"
    if problem is not None:
        warnings.warn(
            f"rougeL's stem table {path} is not used: {problem}. Every word goes through NLTK's stemmer instead "
            "(same tokens, slower first call); rebuild it with scripts/make_stem_table.py",
            RuntimeWarning,
            stacklevel=2,
        )
        return None
    return words, stems


class Stems(dict[bytes, str]):
    """:func:`rouge_stem` of each raw token, memoised: from the table when it has the word, else NLTK's code."""

    def fill(self, raws: Iterable[bytes]) -> None:
        """Memoise the tokens of many raw tokens at once (one vectorised table search for the new ones)."""
        new = np.array([raw for raw in set(raws) if raw not in self], dtype=object)
        lengths = np.fromiter(map(len, new), dtype=np.intp, count=len(new))
        # A raw token is [a-z0-9]+: one of at most 3 characters is its own token (never stemmed, always kept).
        self.update((raw, raw.decode("ascii")) for raw in new[lengths <= 3])
        table = stem_table()
        candidates = new[(lengths > 3) & (lengths <= STEM_TABLE_WIDTH)]  # longer: not in the table
        if table is None or not len(candidates):
            return
        words, stems = table
        # exact: no candidate is longer than the width, none has a NUL; sorted, the searches walk the table forward
        query = np.sort(candidates.astype(words.dtype))
        at = np.minimum(np.searchsorted(words, query), len(words) - 1)
        found = words[at] == query
        self.update(zip(query[found].tolist(), stems[at[found]].astype(f"U{STEM_TABLE_WIDTH}").tolist(), strict=True))

    def __missing__(self, raw: bytes) -> str:
        self.fill((raw,))
        if raw not in self:  # not in the table: NLTK's stemmer
            self[raw] = rouge_stem(raw)
        return self[raw]


#: The process's memo of :func:`rouge_stem` (shared by every ``RougeL`` object and :func:`rouge_tokens`).
STEMS = Stems()


def rouge_tokens(text: str) -> list[str]:
    """``rouge_score.tokenizers.DefaultTokenizer(use_stemmer=True).tokenize(text)``, exactly (stems memoised)."""
    return [token for token in map(STEMS.__getitem__, rouge_raw_tokens(text)) if token]


# --- NLTK's Porter stemmer without `import nltk` ------------------------------------------------------------------
class _StemmerI(metaclass=ABCMeta):
    """``nltk.stem.api.StemmerI``: the stemmer interface (one abstract method)."""

    @abstractmethod
    def stem(self, token: str) -> str:
        """Strip affixes from the token and return the stem."""


def _unavailable(*_args: Any, **_kwargs: Any) -> Any:
    raise RuntimeError("only PorterStemmer.stem is available in the standalone copy of NLTK's porter module")


#: What ``nltk/stem/porter.py`` imports from nltk: the base class, and two helpers only its ``demo()`` uses.
_NLTK_NAMES: dict[str, Any] = {
    "nltk": SimpleNamespace(redos=SimpleNamespace(sub=_unavailable)),
    "nltk.stem.api": SimpleNamespace(StemmerI=_StemmerI),
    "nltk.termsec": SimpleNamespace(safe_print=_unavailable),
}


def _import_without_nltk(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
    """``__import__`` for the porter module: its ``from nltk... import`` lines get :data:`_NLTK_NAMES`."""
    if level == 0 and name.split(".")[0] == "nltk":
        if fromlist and name in _NLTK_NAMES:
            return _NLTK_NAMES[name]
        raise ImportError(f"{name} is not part of the standalone Porter stemmer")
    return builtins.__import__(name, globals, locals, fromlist, level)


def _porter_class_without_nltk() -> type:
    """``PorterStemmer`` from the installed ``nltk/stem/porter.py``, executed with :func:`_import_without_nltk`."""
    path = _porter_path()
    namespace: dict[str, Any] = {
        "__name__": f"{__name__}._nltk_porter",
        "__file__": str(path),
        "__builtins__": {**builtins.__dict__, "__import__": _import_without_nltk},
    }
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    return namespace["PorterStemmer"]


@cache
def porter_class() -> type:
    """NLTK's ``PorterStemmer`` class: the imported one if nltk is loaded, else compiled without importing nltk.

    The class is NLTK's own code (the installed ``nltk/stem/porter.py``); only the module-level imports of that
    file are served without importing the ``nltk`` package: its base class (an abstract ``stem``) and two
    helpers used by its ``demo()``. If a future nltk's file needs anything else, the ordinary import is used.
    """
    if "nltk.stem.porter" in sys.modules:
        return sys.modules["nltk.stem.porter"].PorterStemmer
    try:
        return _porter_class_without_nltk()
    except (ImportError, OSError, SyntaxError, KeyError, AttributeError) as err:
        logger.info("NLTK's porter module could not be loaded on its own (%s); importing nltk (~2 s)", err)
        from nltk.stem.porter import PorterStemmer

        return PorterStemmer


@cache
def porter_stemmer() -> Any:
    """The shared NLTK ``PorterStemmer()`` (NLTK_EXTENSIONS mode: rouge_score's stemmer)."""
    return porter_class()()
