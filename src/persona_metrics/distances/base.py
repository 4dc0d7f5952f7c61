"""The one interface behind every distance σ(a, b) used by DEGRESS / PerSEval.

A distance object scores many ordered text pairs in one call. Each *unique* text is prepared
(tokenized, stemmed, embedded ...) once per object and kept in a per-object cache, and each unique
ordered pair is scored once per call (once per unordered pair when the measure is symmetric).
Pairs are deduplicated as integers (:class:`TextPairs`: a text pool and two index arrays), never as string
tuples. Subclasses implement two hooks:

* ``_prepare(texts)``: one representation per text (called only for texts not yet in the cache);
* ``_score(reps_a, reps_b)``: σ for aligned lists of representations, as a float array.

The empty-text rule lives here, not in the subclasses: a text that is empty or only whitespace is
at distance exactly 1.0 from everything (itself included), whatever the measure. This is the
documented meaning of an empty summary ("the model said nothing").
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar, overload

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
            pairs: ordered ``(text_a, text_b)`` tuples, or a :class:`TextPairs` (the same pairs as a text pool and
                two index arrays, which large callers build without a tuple per pair).

        Returns:
            A float64 array aligned with ``pairs``.
        """
        indexed = pairs if isinstance(pairs, TextPairs) else TextPairs.of(pairs)
        if not len(indexed):
            return np.empty(0, dtype=np.float64)
        texts, first, second = indexed.interned()
        if self.symmetric:  # one orientation per unordered pair: (a, b) with a <= b, as strings
            first, second = _string_order(texts, first, second)
        empty = np.fromiter((not t or t.isspace() for t in texts), dtype=bool, count=len(texts))
        unique_pairs, slot = np.unique(first * len(texts) + second, return_inverse=True)
        a, b = np.divmod(unique_pairs, len(texts))
        values = np.full(len(unique_pairs), EMPTY_TEXT_DISTANCE, dtype=np.float64)
        live = np.flatnonzero(~(empty[a] | empty[b]))
        if live.size:
            self._prepare_in_order(texts, empty, first, second)
            cache = self._cache
            reps = [cache.get(t) for t in texts]
            a, b = a[live].tolist(), b[live].tolist()
            values[live] = self._score_live([reps[i] for i in a], [reps[i] for i in b])
        return values[slot.ravel()]

    def _prepare_in_order(self, texts: list[str], empty: np.ndarray, first: np.ndarray, second: np.ndarray) -> None:
        """Prepare the texts of the non-empty pairs that are not cached, in order of first appearance in the pairs.

        The order is the one a walk over the pairs (first text, then second) meets them in, so a distance sees the
        same ``_prepare`` batch whether the pairs came as tuples or as a :class:`TextPairs`.
        """
        cache = self._cache
        todo = np.array([i for i, t in enumerate(texts) if not empty[i] and t not in cache], dtype=np.int64)
        if not todo.size:
            return
        live = np.flatnonzero(~(empty[first] | empty[second]))
        seen = np.full(len(texts), np.iinfo(np.int64).max)
        np.minimum.at(seen, second[live], 2 * live + 1)
        np.minimum.at(seen, first[live], 2 * live)
        todo = todo[seen[todo] < np.iinfo(np.int64).max]
        self.prepare([texts[i] for i in todo[np.argsort(seen[todo], kind="stable")].tolist()])

    def _score_live(self, reps_a: list[Any], reps_b: list[Any]) -> np.ndarray:
        """σ of prepared, non-empty pairs, :data:`PAIR_CHUNK` at a time under the library's progress bar."""
        scored = np.empty(len(reps_a), dtype=np.float64)
        with progress_bar(desc=f"{self.name}: scoring pairs", total=len(reps_a), unit="pair") as bar:
            for start in range(0, len(reps_a), PAIR_CHUNK):
                stop = min(start + PAIR_CHUNK, len(reps_a))
                part = np.asarray(self._score(reps_a[start:stop], reps_b[start:stop]), dtype=np.float64)
                if part.shape != (stop - start,):
                    raise RuntimeError(
                        f"{type(self).__name__}._score returned shape {part.shape}, expected {(stop - start,)}"
                    )
                scored[start:stop] = part
                bar.update(stop - start)
        if not np.all(np.isfinite(scored)):
            raise FloatingPointError(f"{self.name}: non-finite distance computed")
        return scored

    def __call__(self, a: str, b: str) -> float:
        """σ(a, b) for one pair (convenience; use :meth:`pairwise` for many)."""
        return float(self.pairwise([(a, b)])[0])

    def clear_cache(self) -> None:
        """Forget every prepared text representation."""
        self._cache.clear()


class TextPairs(Sequence[tuple[str, str]]):
    """Ordered text pairs as a text pool and two index arrays: pair ``i`` is ``(texts[first[i]], texts[second[i]])``.

    The compact form of a large pair list (a PerSEval pass is about 10⁵ pairs over 10⁴ texts): no tuple per pair,
    and :meth:`Distance.pairwise` deduplicates pairs as integers. It is a ``Sequence`` of ``(str, str)`` tuples, so
    code written for a list of pairs works on it unchanged.

    Args:
        texts: the text pool (equal texts may repeat: they are the same text to a distance).
        first: index in ``texts`` of each pair's first text.
        second: index in ``texts`` of each pair's second text (same length as ``first``).

    Raises:
        ValueError: ``first`` and ``second`` are not 1-D arrays of the same length.
        IndexError: an index outside ``texts``.
    """

    __slots__ = ("first", "second", "texts")

    def __init__(self, texts: Sequence[str], first: Sequence[int] | np.ndarray, second: Sequence[int] | np.ndarray):
        self.texts = texts
        self.first = np.asarray(first, dtype=np.int64)
        self.second = np.asarray(second, dtype=np.int64)
        if self.first.ndim != 1 or self.first.shape != self.second.shape:
            raise ValueError(f"first and second must be aligned 1-D, got {self.first.shape}, {self.second.shape}")
        for name, index in (("first", self.first), ("second", self.second)):
            if index.size and (index.min() < 0 or index.max() >= len(texts)):
                raise IndexError(f"{name} holds an index outside the {len(texts)} texts")

    @classmethod
    def of(cls, pairs: Sequence[tuple[str, str]]) -> TextPairs:
        """The :class:`TextPairs` of a list of ``(a, b)`` tuples (equal texts share one index)."""
        index: dict[str, int] = {}
        first = [index.setdefault(a, len(index)) for a, _ in pairs]
        second = [index.setdefault(b, len(index)) for _, b in pairs]
        return cls(list(index), first, second)

    def interned(self) -> tuple[list[str], np.ndarray, np.ndarray]:
        """``(unique texts, first, second)`` with equal texts of the pool mapped to one index."""
        index: dict[str, int] = {}
        ids = np.fromiter((index.setdefault(t, len(index)) for t in self.texts), dtype=np.int64, count=len(self.texts))
        return list(index), ids[self.first], ids[self.second]

    def __len__(self) -> int:
        return len(self.first)

    @overload
    def __getitem__(self, i: int) -> tuple[str, str]: ...

    @overload
    def __getitem__(self, i: slice) -> TextPairs: ...

    def __getitem__(self, i: int | slice) -> tuple[str, str] | TextPairs:
        if isinstance(i, slice):
            return TextPairs(self.texts, self.first[i], self.second[i])
        return self.texts[self.first[i]], self.texts[self.second[i]]

    def __iter__(self) -> Iterator[tuple[str, str]]:
        get = self.texts.__getitem__
        return zip(map(get, self.first.tolist()), map(get, self.second.tolist()), strict=True)


def _string_order(texts: list[str], first: np.ndarray, second: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each pair oriented as ``(a, b)`` with ``a <= b`` in string order (the orientation a symmetric σ is run in)."""
    rank = np.empty(len(texts), dtype=np.int64)
    rank[sorted(range(len(texts)), key=texts.__getitem__)] = np.arange(len(texts))
    swap = rank[first] > rank[second]
    return np.where(swap, second, first), np.where(swap, first, second)
