"""Pairwise text distances σ(a, b) for DEGRESS / PerSEval, behind one interface (:class:`Distance`).

>>> from persona_metrics.distances import get_distance
>>> rouge = get_distance("rougeL")
>>> rouge.pairwise([("the cat sat", "the cat sat"), ("the cat sat", "a dog ran")]).tolist()
[0.0, 1.0]

Importing this package does not import torch or transformers; model-based distances load their model on
first use and :func:`get_distance` keeps one instance per (name, options), so a model loads once per process.
"""

from __future__ import annotations

import inspect
from typing import Any

from persona_metrics.distances.base import EMPTY_TEXT_DISTANCE, Distance
from persona_metrics.distances.lexical import Bleu, JensenShannon, Meteor, RougeL, RougeSU4, word_tokens
from persona_metrics.distances.neural import BertScore, InfoLM

#: The registry: distance name → class. Order = the order of the PerSEval paper's tables.
_CLASSES: dict[str, type[Distance]] = {
    "rougeL": RougeL,
    "rougeSU4": RougeSU4,
    "bleu": Bleu,
    "meteor": Meteor,
    "jsd": JensenShannon,
    "bertscore": BertScore,
    "infolm": InfoLM,
}
DISTANCES: tuple[str, ...] = tuple(_CLASSES)
#: The authors' and the paper's headline measure.
DEFAULT_DISTANCE = "rougeL"

_INSTANCES: dict[tuple[str, tuple[tuple[str, Any], ...]], Distance] = {}

__all__ = [
    "DEFAULT_DISTANCE",
    "DISTANCES",
    "EMPTY_TEXT_DISTANCE",
    "BertScore",
    "Bleu",
    "Distance",
    "InfoLM",
    "JensenShannon",
    "Meteor",
    "RougeL",
    "RougeSU4",
    "get_distance",
    "word_tokens",
]


def get_distance(name: str, **options: Any) -> Distance:
    """The distance called ``name``, configured by ``options``; one shared instance per configuration.

    Args:
        name: one of :data:`DISTANCES`.
        **options: the distance's constructor options (``max_order`` for ``bleu``; ``model``,
            ``num_layers``, ``batch_size``, ``device``, ``dtype``, ``num_threads``, ``cache_mb`` for
            ``bertscore``; ``model``, ``temperature``, ``max_length``, ``batch_size``, ``device`` for ``infolm``;
            none for the others).

    Returns:
        The shared :class:`Distance` instance for ``(name, options)``; models load on first use, not here. An
        instance is kept only once its constructor checked the options (a ``device`` this torch cannot use is
        refused here), and a model-based distance keeps its model only once the whole set-up succeeded, so a
        failing configuration fails the same way on every call.

    Raises:
        ValueError: an unknown name (the message lists the allowed ones) or a bad option value.
        TypeError: an option the distance does not have.
    """
    if not isinstance(name, str) or name not in _CLASSES:
        raise ValueError(f"unknown distance {name!r}; choose one of {list(DISTANCES)}")
    cls = _CLASSES[name]
    allowed = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise TypeError(f"distance {name!r} has no option {', '.join(unknown)}; its options: {allowed or 'none'}")
    try:
        key = (name, tuple(sorted(options.items())))
        hash(key)
    except TypeError as err:
        raise TypeError(f"{name} options must be hashable values (str, int, float), got {options!r}") from err
    if key not in _INSTANCES:
        _INSTANCES[key] = cls(**options)
    return _INSTANCES[key]
