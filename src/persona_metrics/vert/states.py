"""How a VERT result writes itself as states lines and is rebuilt (``docs/scaling.md`` §2).

One item line per pair: ``vert``, ``sim``, ``wmd`` and ``reference_index``; the ``result`` line holds the signature's
parts and the WMD cap. The word alignments are not kept (no printed output uses them).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from persona_metrics.state_fields import NUMBER, PARTS, WHOLE, ItemCodec, column, config_of, within
from persona_metrics.vert.formulas import MAX_WMD_RATIO
from persona_metrics.vert.scorer import VertResult


def _vert_items(result: VertResult) -> list[dict[str, Any]]:
    columns = {**result.per_item(), "reference_index": result.reference_index.tolist()}
    return [{name: values[i] for name, values in columns.items()} for i in range(len(result))]


def _vert_build(shared: Mapping[str, Any], items: Sequence[Mapping[str, Any]]) -> VertResult:
    return VertResult(
        vert=column(items, "vert"),
        sim=column(items, "sim"),
        wmd=column(items, "wmd"),
        reference_index=column(items, "reference_index", np.int64),
        max_wmd=float(shared["max_wmd"]),
        config=config_of(shared),
        _pairs=(),
    )


VERT = ItemCodec(
    VertResult,
    lambda r: {"config": list(r.config.parts), "max_wmd": r.max_wmd},
    {"config": PARTS, "max_wmd": NUMBER},
    _vert_items,
    lambda shared: {
        "vert": (within(-MAX_WMD_RATIO / 2, 1.0), f"a number in [{-MAX_WMD_RATIO / 2:g}, 1]"),
        "sim": (within(-1.0, 1.0), "a number in [-1, 1] (a cosine)"),
        "wmd": (within(0.0, math.inf), "a number >= 0"),
        "reference_index": WHOLE,
    },
    _vert_build,
)
