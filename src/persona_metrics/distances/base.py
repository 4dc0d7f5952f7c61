"""The one interface behind every distance σ(a, b) used by DEGRESS / PerSEval.

A distance object scores many ordered text pairs in one call. Each *unique* text is prepared
(tokenized, stemmed, embedded ...) once per object and kept in a per-object cache, and each unique
ordered pair is scored once per call (once per unordered pair when the measure is symmetric).
Pairs are deduplicated as integers (:class:`TextPairs`: a text pool and two index arrays), never as string
tuples. Subclasses implement two hooks:

* ``_prepare(texts)``: one representation per text (called only for texts not yet in the cache);
* ``_score(reps_a, reps_b)``: σ for aligned lists of representations, as a float array.

A distance that must schedule its own work (BERTScore embeds in memory-bounded chunks) overrides the narrower
``_score_unique(texts, a, b)`` instead of :meth:`Distance.pairwise`: it receives the unique, non-empty pairs only.

The empty-text rule lives here, not in the subclasses: a text that is empty or only whitespace
(:func:`is_empty_text`) is at distance exactly 1.0 from everything (itself included), whatever the measure. This
is the documented meaning of an empty summary ("the model said nothing").

Each class also describes itself to the registry's readers (:mod:`persona_metrics.distances`: the CLI choices,
the evaluate modules' argument docs, the cards' distance table, the fuzz suite) with class attributes:
``name``, ``description``, ``source``, ``symmetric``, ``bounded`` and ``extra``.
"""

from __future__ import annotations

import inspect
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


def is_empty_text(text: str) -> bool:
    """Whether ``text`` is empty or only whitespace (``str.isspace``; the same set ``str.strip()`` removes)."""
    return not text or text.isspace()


class Distance(ABC):
    """A pairwise text distance σ(a, b), computed for many pairs at once.

    Attributes:
        name: the registry name (``"rougeL"``, ``"bertscore"`` ...).
        description: what σ(a, b) is, in one line (the cards' distance table shows it).
        source: where the definition comes from and how it compares with the PerSEval authors' code (one line).
        symmetric: whether σ(a, b) == σ(b, a) exactly, so unordered pairs can be shared.
        bounded: whether σ is guaranteed to lie in [0, 1].
        extra: the install extra the distance needs (``"neural"``: ``pip install persona-metrics[neural]``), or
            ``None`` when the core install runs it.
    """

    name: ClassVar[str]
    description: ClassVar[str]
    source: ClassVar[str]
    symmetric: ClassVar[bool] = True
    bounded: ClassVar[bool] = True
    extra: ClassVar[str | None] = None

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

    @classmethod
    def option_names(cls) -> list[str]:
        """The distance's options: its constructor's keyword parameters, in order."""
        return [p for p in inspect.signature(cls.__init__).parameters if p != "self"]

    # -- public API ----------------------------------------------------------------------------
    def prepare(self, texts: Sequence[str]) -> None:
        """Prepare and cache the representations of ``texts`` (each unique text once)."""
        todo = [t for t in dict.fromkeys(texts) if t not in self._cache and not is_empty_text(t)]
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
        empty = np.fromiter(map(is_empty_text, texts), dtype=bool, count=len(texts))
        unique_pairs, first_seen, slot = np.unique(first * len(texts) + second, return_index=True, return_inverse=True)
        a, b = np.divmod(unique_pairs, len(texts))
        values = np.full(len(unique_pairs), EMPTY_TEXT_DISTANCE, dtype=np.float64)
        live = np.flatnonzero(~(empty[a] | empty[b]))
        if live.size:
            live = live[np.argsort(first_seen[live], kind="stable")]  # in the order the caller's pairs meet them
            scored = np.asarray(self._score_unique(texts, a[live], b[live]), dtype=np.float64)
            if scored.shape != live.shape:
                raise RuntimeError(f"{type(self).__name__} scored {scored.shape} pairs, expected {live.shape}")
            if not np.all(np.isfinite(scored)):
                raise FloatingPointError(f"{self.name}: non-finite distance computed")
            values[live] = scored
        return values[slot.ravel()]

    def _score_unique(self, texts: list[str], a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """σ of the unique pairs ``(texts[a[k]], texts[b[k]])``, none with an empty side, in order of first appearance.

        The texts not yet cached are prepared in the order a walk over these pairs meets them (first text, then
        second), which is the order of the caller's pairs, so a distance sees the same ``_prepare`` batch whether
        the pairs came as tuples or as a :class:`TextPairs`; then ``_score`` runs :data:`PAIR_CHUNK` pairs at a
        time under the library's progress bar. Override it (not :meth:`pairwise`) to schedule the work otherwise.
        """
        walk = np.column_stack((a, b)).ravel().tolist()
        self.prepare([texts[i] for i in dict.fromkeys(walk)])
        cache = self._cache
        reps_a, reps_b = [cache[texts[i]] for i in a.tolist()], [cache[texts[i]] for i in b.tolist()]
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
