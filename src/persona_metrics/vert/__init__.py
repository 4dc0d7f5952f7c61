"""VERT (Versatile Evaluation of Reduced Texts): sentence-embedding similarity and word mover's distance.

``VERT = ½ · (1 + sim − min(WMD, 5) / 5)`` per pair, averaged over pairs (``docs/vert.md``):

* :mod:`~persona_metrics.vert.formulas`: the arithmetic (pure functions, ``aggregate``);
* :mod:`~persona_metrics.vert.wmd`: the original's WMD preprocessing and the exact transport (POT);
* :mod:`~persona_metrics.vert.vectors`: the packaged GloVe 6B 50d or a word2vec/GloVe file;
* :mod:`~persona_metrics.vert.encoders`: WordLlama (default), the packaged MiniLM, any sentence-transformers
  model or a callable;
* :mod:`~persona_metrics.vert.scorer`: :func:`score_vert`, :class:`VertScorer`, :class:`VertResult`.
"""

from persona_metrics.vert.encoders import ENCODER_NAMES, MINILM, WORDLLAMA
from persona_metrics.vert.formulas import DEFAULT_ALPHA, DEFAULT_MAX_WMD, aggregate, vert_score
from persona_metrics.vert.scorer import VertResult, VertScorer, WordAlignment, score_vert
from persona_metrics.vert.vectors import GLOVE_6B_50D

__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_MAX_WMD",
    "ENCODER_NAMES",
    "GLOVE_6B_50D",
    "MINILM",
    "WORDLLAMA",
    "VertResult",
    "VertScorer",
    "WordAlignment",
    "aggregate",
    "score_vert",
    "vert_score",
]
