"""The one interface behind every distance σ(a, b) used by DEGRESS / PerSEval.

A distance object scores many ordered text pairs in one call. Each *unique* text is prepared
(tokenized, stemmed, embedded ...) once per object and kept in a per-object cache, and each unique
ordered pair is scored once per call (once per unordered pair when the measure is symmetric).
Subclasses implement two hooks:

* ``_prepare(texts)``: one representation per text (called only for texts not yet in the cache);
* ``_score(reps_a, reps_b)``: σ for aligned lists of representations, as a float array.

The empty-text rule lives here, not in the subclasses: a text that is empty or only whitespace is
at distance exactly 1.0 from everything (itself included), whatever the measure. This is the
documented meaning of an empty summary ("the model said nothing").
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from persona_metrics.progress import progress_bar
from persona_metrics.signature import Signature

#: σ assigned to any pair with an empty (or whitespace-only) side.
EMPTY_TEXT_DISTANCE = 1.0
#: Pairs scored per ``_score`` call (the progress bar advances once per chunk; σ never depends on it).
PAIR_CHUNK = 4096


class Distance(ABC):
    """A pairwise text distance σ(a, b), computed for many pairs at once.

    Attributes:
        name: the registry name (``"rougeL"``, ``"bertscore"`` ...).
        symmetric: whether σ(a, b) == σ(b, a) exactly, so unordered pairs can be shared.
        bounded: whether σ is guaranteed to lie in [0, 1].
    """

    name: ClassVar[str]
    symmetric: ClassVar[bool] = True
    bounded: ClassVar[bool] = True

    def __init__(self) -> None:
        self._cache: dict[str, Any] = {}

    # -- hooks ---------------------------------------------------------------------------------
    @abstractmethod
    def _prepare(self, texts: Sequence[str]) -> list[Any]:
        """Return one representation per text (all texts are non-empty)."""

    @abstractmethod
    def _score(self, reps_a: Sequence[Any], reps_b: Sequence[Any]) -> np.ndarray:
        """Return σ(a_i, b_i) for aligned representation lists, shape ``(len(reps_a),)``."""

    def signature(self) -> str:
        """A short string naming the measure and every setting that changes its values (a :class:`Signature`)."""
        return Signature.of(self.name).text

    # -- public API ----------------------------------------------------------------------------
    def prepare(self, texts: Sequence[str]) -> None:
        """Prepare and cache the representations of ``texts`` (each unique text once)."""
        todo = [t for t in dict.fromkeys(texts) if t not in self._cache and t.strip()]
        if todo:
            reps = self._prepare(todo)
            if len(reps) != len(todo):
                raise RuntimeError(f"{type(self).__name__}._prepare returned {len(reps)} items for {len(todo)} texts")
            self._cache.update(zip(todo, reps, strict=True))

    def pairwise(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """σ for every ordered pair ``(a, b)``; each unique pair is scored once.

        Args:
            pairs: ordered ``(text_a, text_b)`` tuples.

        Returns:
            A float64 array aligned with ``pairs``.
        """
        out = np.empty(len(pairs), dtype=np.float64)
        if not pairs:
            return out
        # Map each pair to a canonical key; symmetric measures share (a, b) and (b, a).
        keys: dict[tuple[str, str], int] = {}
        slot = np.empty(len(pairs), dtype=np.int64)
        for i, (a, b) in enumerate(pairs):
            key = (a, b) if not self.symmetric or a <= b else (b, a)
            slot[i] = keys.setdefault(key, len(keys))
        unique = list(keys)
        values = np.full(len(unique), EMPTY_TEXT_DISTANCE, dtype=np.float64)
        live = [i for i, (a, b) in enumerate(unique) if a.strip() and b.strip()]
        if live:
            self.prepare([t for i in live for t in unique[i]])
            values[live] = self._score_live([unique[i] for i in live])
        out[:] = values[slot]
        return out

    def _score_live(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        """σ of prepared, non-empty pairs, :data:`PAIR_CHUNK` at a time under the library's progress bar."""
        scored = np.empty(len(pairs), dtype=np.float64)
        with progress_bar(desc=f"{self.name}: scoring pairs", total=len(pairs), unit="pair") as bar:
            for start in range(0, len(pairs), PAIR_CHUNK):
                chunk = pairs[start : start + PAIR_CHUNK]
                reps_a = [self._cache[a] for a, _ in chunk]
                reps_b = [self._cache[b] for _, b in chunk]
                part = np.asarray(self._score(reps_a, reps_b), dtype=np.float64)
                if part.shape != (len(chunk),):
                    raise RuntimeError(
                        f"{type(self).__name__}._score returned shape {part.shape}, expected {(len(chunk),)}"
                    )
                scored[start : start + len(chunk)] = part
                bar.update(len(chunk))
        if not np.all(np.isfinite(scored)):
            raise FloatingPointError(f"{self.name}: non-finite distance computed")
        return scored

    def __call__(self, a: str, b: str) -> float:
        """σ(a, b) for one pair (convenience; use :meth:`pairwise` for many)."""
        return float(self.pairwise([(a, b)])[0])

    def clear_cache(self) -> None:
        """Forget every prepared text representation."""
        self._cache.clear()
