"""Pairwise text distances σ(a, b) for DEGRESS / PerSEval, behind one interface (:class:`Distance`).

>>> from persona_metrics.distances import get_distance
>>> rouge = get_distance("rougeL")
>>> rouge.pairwise([("the cat sat", "the cat sat"), ("the cat sat", "a dog ran")]).tolist()
[0.0, 1.0]

Importing this package does not import torch or transformers; model-based distances load their model on
first use and :func:`get_distance` keeps one instance per (name, options), so a model loads once per process.
"""

from __future__ import annotations

import re
from types import MappingProxyType
from typing import Any

from persona_metrics.distances.base import EMPTY_TEXT_DISTANCE, Distance, is_empty_text
from persona_metrics.distances.bertscore import BertScore
from persona_metrics.distances.infolm import InfoLM
from persona_metrics.distances.lexical import Bleu, JensenShannon, Meteor, RougeL, RougeSU4, word_tokens

_REGISTRY: dict[str, type[Distance]] = {}
#: The registry, read-only and live: distance name → class, in registration order (the PerSEval paper's tables
#: first). Every reader iterates it: :func:`get_distance`, the CLI's ``--distance`` choices, the evaluate modules'
#: ``distance`` docs, the Spaces' dropdowns, the cards' distance table (:func:`distance_table`), the fuzz suite.
DISTANCES: MappingProxyType[str, type[Distance]] = MappingProxyType(_REGISTRY)
#: The authors' and the paper's headline measure.
DEFAULT_DISTANCE = "rougeL"
#: What a distance name may look like (it is typed on command lines and in ``-o distance=NAME``).
NAME_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_]*")

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
    "distance_names",
    "distance_table",
    "get_distance",
    "is_empty_text",
    "register_distance",
    "unregister_distance",
    "word_tokens",
]


def register_distance(cls: type[Distance]) -> type[Distance]:
    """Add a :class:`Distance` subclass to :data:`DISTANCES` under its ``name`` (usable as a class decorator).

    Raises:
        TypeError: ``cls`` is not a concrete :class:`Distance` subclass.
        ValueError: a missing or malformed class attribute (``name``, ``description``, ``source``), or the name is
            taken by another class.
    """
    if not (isinstance(cls, type) and issubclass(cls, Distance)) or getattr(cls, "__abstractmethods__", None):
        raise TypeError(f"register_distance takes a concrete Distance subclass, got {cls!r}")
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise ValueError(f"{cls.__name__}.name must be a name matching {NAME_PATTERN.pattern}, got {name!r}")
    for field in ("description", "source"):
        value = getattr(cls, field, None)
        if not isinstance(value, str) or not value.strip() or "|" in value or "\n" in value:
            raise ValueError(f"{cls.__name__}.{field} must be one line of text without '|', got {value!r}")
    if _REGISTRY.get(name, cls) is not cls:
        raise ValueError(f"distance {name!r} is already registered ({_REGISTRY[name].__name__})")
    _REGISTRY[name] = cls
    return cls


def unregister_distance(name: str) -> None:
    """Remove ``name`` from :data:`DISTANCES` and forget its shared instances (the default cannot be removed).

    Raises:
        ValueError: ``name`` is not registered, or is :data:`DEFAULT_DISTANCE`.
    """
    if name == DEFAULT_DISTANCE or name not in _REGISTRY:
        raise ValueError(f"cannot unregister distance {name!r}; registered: {list(DISTANCES)}")
    del _REGISTRY[name]
    for key in [key for key in _INSTANCES if key[0] == name]:
        del _INSTANCES[key]


for _cls in (RougeL, RougeSU4, Bleu, Meteor, JensenShannon, BertScore, InfoLM):
    register_distance(_cls)


def distance_names() -> str:
    """The registered names as the docs list them: ``"rougeL"`` (default), ``"rougeSU4"``, ... in backticks."""
    return ", ".join(f'`"{name}"`' + (" (default)" if name == DEFAULT_DISTANCE else "") for name in DISTANCES)


def distance_table() -> str:
    """The cards' distance table (markdown), one row per registered distance, generated from the class attributes.

    >>> print(distance_table().splitlines()[0])
    | `distance` | σ(a, b) | bounded / symmetric | extra | source / authors' code |
    """
    yes_no = {True: "yes", False: "no"}
    rows = [
        "| `distance` | σ(a, b) | bounded / symmetric | extra | source / authors' code |",
        "|---|---|---|---|---|",
    ]
    for name, cls in DISTANCES.items():
        label = f"`{name}`" + (" (default)" if name == DEFAULT_DISTANCE else "")
        extra = f"`{cls.extra}`" if cls.extra else "—"
        flags = f"{yes_no[cls.bounded]} / {yes_no[cls.symmetric]}"
        rows.append(f"| {label} | {cls.description} | {flags} | {extra} | {cls.source} |")
    return "\n".join(rows)


def get_distance(name: str, **options: Any) -> Distance:
    """The distance called ``name``, configured by ``options``; one shared instance per configuration.

    Args:
        name: one of :data:`DISTANCES`.
        **options: the distance's constructor options (:meth:`Distance.option_names`: ``max_order`` for ``bleu``;
            ``model``, ``num_layers``, ``batch_size``, ``device``, ``dtype``, ``num_threads``, ``cache_mb`` for
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
    if not isinstance(name, str) or name not in DISTANCES:
        raise ValueError(f"unknown distance {name!r}; choose one of {list(DISTANCES)}")
    cls = DISTANCES[name]
    allowed = cls.option_names()
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
