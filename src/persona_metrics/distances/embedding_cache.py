"""BERTScore's embedded texts: L2-normalised token vectors with their weights, in a bounded LRU cache."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class _Embedded:
    """L2-normalised token vectors of one text and their weights (0 for [CLS]/[SEP], 1 otherwise)."""

    vectors: np.ndarray
    weights: np.ndarray

    @property
    def nbytes(self) -> int:
        return int(self.vectors.nbytes + self.weights.nbytes)


def _embedded(hidden: np.ndarray, ids: np.ndarray, unweighted: np.ndarray) -> _Embedded:
    """A text's L2-normalised token vectors and its weights (0 for the ``unweighted`` ids: CLS and SEP)."""
    return _Embedded(
        hidden / np.linalg.norm(hidden, axis=1, keepdims=True), np.where(np.isin(ids, unweighted), 0.0, 1.0)
    )


class _EmbeddingCache:
    """Embedded texts, least recently used dropped first, at most ``max_bytes`` of arrays in all."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.nbytes = 0
        self._items: OrderedDict[str, _Embedded] = OrderedDict()

    def __contains__(self, text: object) -> bool:
        return text in self._items

    def __len__(self) -> int:
        return len(self._items)

    def get(self, text: str) -> _Embedded | None:
        """The embedding of ``text`` (now the most recently used), or None."""
        item = self._items.get(text)
        if item is not None:
            self._items.move_to_end(text)
        return item

    def size_of(self, text: str) -> int | None:
        """The bytes of ``text``'s cached embedding, without counting as a use; None when not cached."""
        item = self._items.get(text)
        return None if item is None else item.nbytes

    def put(self, text: str, item: _Embedded) -> None:
        """Store ``item``, then drop the least recently used entries until the total fits ``max_bytes``."""
        old = self._items.pop(text, None)
        self.nbytes += item.nbytes - (0 if old is None else old.nbytes)
        self._items[text] = item
        while self.nbytes > self.max_bytes and self._items:
            self.nbytes -= self._items.popitem(last=False)[1].nbytes

    def clear(self) -> None:
        """Forget every embedding."""
        self._items.clear()
        self.nbytes = 0
