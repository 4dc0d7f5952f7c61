"""The options of VERT as one validated object: encoder, word vectors, α, WMD cap, negative cosines, meaning.

The library (:class:`~persona_metrics.vert.scorer.VertScorer`), the ``vert`` evaluate module, the CLI and the
Space build a :class:`VertParams`, so a bad value fails the same way everywhere, before anything is loaded or
scored (``docs/vert.md``). Whether a path exists is checked when it is loaded.

>>> VertParams(alpha=2).alpha
2.0
>>> VertParams(max_wmd=5e7)
Traceback (most recent call last):
...
ValueError: max_wmd / alpha must be at most 1e+06 (VERT >= -500000), got max_wmd=50000000.0, alpha=5.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from persona_metrics.params import Params, option
from persona_metrics.validation import check_bool, check_path
from persona_metrics.vert.encoders import ENCODER_NAMES, WORDLLAMA, SentenceEncoder, resolve_encoder
from persona_metrics.vert.formulas import DEFAULT_ALPHA, DEFAULT_MAX_WMD, check_params
from persona_metrics.vert.vectors import GLOVE_6B_50D, WordVectors

#: ``alpha`` and ``max_wmd``: finite and > 0 (their ratio is bounded by ``check_params``).
POSITIVE = (0.0, math.inf, False, False)


def check_encoder(name: str, value: Any) -> Any:
    """``value`` if it names or is a sentence encoder (a name, a model path, an encoder object or a callable).

    Nothing is loaded: models load on first use.

    Raises:
        TypeError: any other kind of value.
        ValueError: an empty name.
    """
    if not isinstance(value, str | Path | SentenceEncoder) and not callable(value):
        raise TypeError(  # before resolve_encoder, which compares the value with the names
            f"{name} must be one of {list(ENCODER_NAMES)}, a sentence-transformers model path or a callable, "
            f"got {type(value).__name__}"
        )
    resolve_encoder(value)  # the name and path checks
    return value


def check_word_vectors(name: str, value: Any) -> Any:
    """``value`` if it is word vectors (:class:`~persona_metrics.vert.vectors.WordVectors`, gensim ``KeyedVectors``)
    or a name or path of them (:func:`~persona_metrics.validation.check_path`).

    Raises:
        TypeError / ValueError: anything else, naming the option.
    """  # noqa: D205
    keyed = hasattr(value, "key_to_index") and hasattr(value, "vectors")
    if not isinstance(value, WordVectors) and not keyed:
        check_path(name, value)
    return value


@dataclass(frozen=True)
class VertParams(Params):
    """Validated VERT options (defaults: the authors' α and cap, WordLlama and the packaged GloVe 6B 50d).

    Raises:
        TypeError / ValueError: on construction, for a value of the wrong type or outside its range (named).
    """

    encoder: Any = option(
        WORDLLAMA,
        "sentence encoder for sim: wordllama (WordLlama l2_supercat_256), minilm (the packaged all-MiniLM-L6-v2), "
        "a sentence-transformers model folder or a callable texts -> array",
        optional=True,
        check=check_encoder,
    )
    word_vectors: Any = option(
        GLOVE_6B_50D,
        "word vectors of the WMD: glove-6b-50d (packaged) or a word2vec (.bin or text) or GloVe text file",
        check=check_word_vectors,
    )
    alpha: float = option(
        DEFAULT_ALPHA, "α, divisor of the capped WMD (the authors' 5)", interval=POSITIVE, display=(1.0, 10.0, 0.5)
    )
    max_wmd: float = option(
        DEFAULT_MAX_WMD, "cap of the WMD (the authors' 5); max_wmd / alpha at most 1e6", interval=POSITIVE
    )
    clip_negative_sim: bool = option(False, "raise negative cosines to 0 (off, like the original)", check=check_bool)
    meaning_sensitive: bool = option(
        False,
        "meaning-sensitive WMD: negations, numbers and unknown words kept and compared, opposites and names "
        "that swapped roles cost (off: the original bag of words)",
        check=check_bool,
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        check_params(self.alpha, self.max_wmd)  # the bound on max_wmd / alpha
