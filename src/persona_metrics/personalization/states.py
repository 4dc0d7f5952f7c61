"""The per-document states lines of DEGRESS / PerSEval: how a document's scores write themselves and read back.

``persona-metrics score perseval|degress FILE --shard I/N --states OUT.jsonl`` (and ``pens``) write one line per
scored document of each (distance, system) and one per single-reference (excluded) document; the file framing,
checks and the merge are :mod:`persona_metrics.sharding.files` (``docs/scaling.md`` §2). Every field read back
is checked: a ValueError names ``FILE:LINE`` and the field.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np

from persona_metrics.personalization.formulas import Penalties
from persona_metrics.personalization.scorer import DocumentScores
from persona_metrics.state_fields import finite, within

#: The per-summary arrays of a document line.
ARRAYS: tuple[str, ...] = ("degress", "accuracy", "acp", "dgp", "edp")


def document_line(board: str, system: str, doc: DocumentScores, positions: Sequence[int]) -> dict[str, Any]:
    """One scored document of a shard as a line; ``positions[i]`` is the whole input's position of shard item i."""
    pen = doc.penalties
    arrays = {"degress": doc.degress, "accuracy": doc.accuracy, "acp": pen.acp, "dgp": pen.dgp, "edp": pen.edp}
    return {
        "kind": "document",
        "board": board,
        "system": system,
        "key": doc.key,
        "indices": [positions[i] for i in doc.indices],
        **{name: np.asarray(values, dtype=np.float64).tolist() for name, values in arrays.items()},
        "adp": float(pen.adp),
    }


def excluded_line(key: Hashable, indices: Sequence[int]) -> dict[str, Any]:
    """One single-reference (excluded) document as a line, ``indices`` in the whole input."""
    return {"kind": "excluded", "key": key, "indices": list(indices)}


#: The range of each per-summary array and of ``adp`` (eqs. 1 and 4–6): DEGRESS, ACP and ADP lie in [0, 1], DGP
#: = ADP + ACP in [0, 2], EDP = 1 − S + 1e-7 in [0, 1 + 1e-7]; the accuracy distance has no upper bound.
DOCUMENT_RANGES: dict[str, tuple[float, float]] = {
    "degress": (0.0, 1.0), "accuracy": (-math.inf, math.inf), "acp": (0.0, 1.0), "dgp": (0.0, 2.0),
    "edp": (0.0, 1.0), "adp": (0.0, 1.0),
}  # fmt: skip


def _range_text(name: str) -> str:
    low, high = DOCUMENT_RANGES[name]
    return "finite numbers" if math.isinf(low) else f"numbers in [{low:g}, {high:g}]"


def _floats(line: Mapping[str, Any], name: str, size: int, where: str) -> np.ndarray:
    values = line.get(name)
    ok = within(*DOCUMENT_RANGES[name])
    if not isinstance(values, list) or len(values) != size or not all(ok(v) for v in values):
        raise ValueError(f"{where}: field {name!r} must be a list of {size} {_range_text(name)}, got {values!r:.80}")
    return np.array(values, dtype=np.float64)


def indices_of(line: Mapping[str, Any], where: str) -> tuple[int, ...]:
    """A line's ``indices``: a non-empty list of item positions (``where`` names ``FILE:LINE`` in the error)."""
    indices = line.get("indices")
    if not isinstance(indices, list) or not indices or not all(type(i) is int and i >= 0 for i in indices):
        raise ValueError(f"{where}: field 'indices' must be a non-empty list of item positions")
    return tuple(indices)


def key_of(line: Mapping[str, Any], where: str) -> str | int:
    """A line's ``key``: the document id or text the input grouped by (a string or a whole number)."""
    key = line.get("key")
    if isinstance(key, bool) or not isinstance(key, str | int) or not finite(key if isinstance(key, int) else 0):
        raise ValueError(f"{where}: field 'key' must be a string or a whole number (a document), got {key!r:.80}")
    return key


def document_scores(line: Mapping[str, Any], where: str) -> DocumentScores:
    """A document line read back (``where`` is ``FILE:LINE`` for the errors).

    Raises:
        ValueError: a missing or malformed field (named).
    """
    key, indices = key_of(line, where), indices_of(line, where)
    arrays = {name: _floats(line, name, len(indices), where) for name in ARRAYS}
    adp: Any = line.get("adp")
    if not within(*DOCUMENT_RANGES["adp"])(adp):
        raise ValueError(f"{where}: field 'adp' must be a number in [0, 1], got {adp!r:.80}")
    penalties = Penalties(float(adp), arrays["acp"], arrays["dgp"], arrays["edp"])
    return DocumentScores(key, indices, arrays["degress"], arrays["accuracy"], penalties)
