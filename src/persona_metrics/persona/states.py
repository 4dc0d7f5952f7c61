"""How the persona family's results write themselves as states lines and are rebuilt (``docs/scaling.md`` §2).

``persona_style``: one item line per summary with ``score``, ``persona``, ``nearest``, ``empty`` (and ``features``
when asked for); ``persona_quality``: every component, ``band``, ``empty``. Both keep their bootstrap's resamples
and seed on the ``result`` line, with which a merged result draws its intervals again over all its items.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from persona_metrics.persona.content import ContentResult
from persona_metrics.persona.quality import QualityResult
from persona_metrics.persona.style import StyleResult
from persona_metrics.significance import BootstrapDraw
from persona_metrics.state_fields import (
    FLAG,
    NUMBER,
    NUMBER_MAP,
    PARTS,
    TEXT,
    TEXT_OR_NULL,
    UNIT,
    WHOLE,
    FieldCheck,
    ItemCodec,
    column,
    config_of,
    finite,
    whole,
)


def _pair_map_or_null(value: Any) -> bool:
    pairs = isinstance(value, dict) and all(isinstance(v, list) and len(v) == 2 for v in value.values())
    return value is None or (pairs and all(finite(x) for v in value.values() for x in v))


def _drawn(value: Any) -> bool:
    return value is None or (isinstance(value, list) and len(value) == 2 and all(whole(v) for v in value))


#: The ``bootstrap`` field of a ``result`` line: ``[resamples, seed]`` of the intervals, or ``null`` without.
BOOTSTRAP: FieldCheck = (_drawn, "[resamples, seed] or null")


def _bootstrap(result: Any) -> list[int] | None:
    drawn = result.bootstrap
    return None if drawn is None else [drawn.resamples, drawn.seed]


def _read_bootstrap(shared: Mapping[str, Any]) -> BootstrapDraw | None:
    drawn = shared["bootstrap"]
    return None if drawn is None else BootstrapDraw(drawn[0], drawn[1])


def _style_items(result: StyleResult) -> list[dict[str, Any]]:
    empty = set(result.empty)
    out = []
    for i, score in enumerate(result.scores.tolist()):
        item = {"score": score, "persona": result.personas[i], "nearest": result.nearest[i], "empty": i in empty}
        if result.features is not None:
            features = result.features[i]
            item["features"] = None if features is None else {k: list(v) for k, v in features.items()}
        out.append(item)
    return out


def _style_checks(shared: Mapping[str, Any]) -> dict[str, FieldCheck]:
    checks = {"score": UNIT, "persona": TEXT, "nearest": TEXT_OR_NULL, "empty": FLAG}
    if shared["features"]:
        checks["features"] = (_pair_map_or_null, "an object of [summary value, centroid value] pairs, or null")
    return checks


def _style_build(shared: Mapping[str, Any], items: Sequence[Mapping[str, Any]]) -> StyleResult:
    features = None
    if shared["features"]:
        features = tuple(
            None if item["features"] is None else {k: (v[0], v[1]) for k, v in item["features"].items()}
            for item in items
        )
    return StyleResult(
        scores=column(items, "score"),
        personas=tuple(item["persona"] for item in items),
        nearest=tuple(item["nearest"] for item in items),
        features=features,
        config=config_of(shared),
        empty=tuple(k for k, item in enumerate(items) if item["empty"]),
        bootstrap=_read_bootstrap(shared),
    )


STYLE = ItemCodec(
    StyleResult,
    lambda r: {"config": list(r.config.parts), "features": r.features is not None, "bootstrap": _bootstrap(r)},
    {"config": PARTS, "features": FLAG, "bootstrap": BOOTSTRAP},
    _style_items,
    _style_checks,
    _style_build,
)

#: persona_quality's per-item component fields (item line name → where the result keeps it).
QUALITY_ARRAYS: dict[str, Callable[[QualityResult], np.ndarray | None]] = {
    "rougeLsum": lambda r: r.content.rouge_lsum,
    "bertscore_f1": lambda r: r.content.bertscore_f1,
    "bleurt": lambda r: r.content.bleurt,
    "content_quality": lambda r: r.content.content_quality,
    "style_similarity": lambda r: r.style_similarity,
    "overall_quality": lambda r: r.overall_quality,
}
#: The persona_quality components with a bounded range: ROUGE, BLEURT (clipped) and the style score lie in [0, 1];
#: BERTScore (rescaled), the content score and the overall score are only finite.
QUALITY_CHECKS: dict[str, FieldCheck] = {"rougeLsum": UNIT, "bleurt": UNIT, "style_similarity": UNIT}


def _quality_shared(result: QualityResult) -> dict[str, Any]:
    return {
        "config": list(result.config.parts),
        "weights": result.weights,
        "content_config": list(result.content.config.parts),
        "content_weights": result.content.weights,
        "bleurt": result.content.bleurt is not None,
        "reference_index": result.content.reference_index is not None,
        "bands": len(result.bands) == len(result.overall_quality),
        "bootstrap": _bootstrap(result),
    }


def _quality_items(result: QualityResult) -> list[dict[str, Any]]:
    columns = {name: values.tolist() for name, get in QUALITY_ARRAYS.items() if (values := get(result)) is not None}
    if result.content.reference_index is not None:
        columns["reference_index"] = result.content.reference_index.tolist()
    if len(result.bands) == len(result.overall_quality):
        columns["band"] = list(result.bands)
    empty = set(result.empty)
    return [
        {**{name: values[i] for name, values in columns.items()}, "empty": i in empty}
        for i in range(len(result.overall_quality))
    ]


def _quality_checks(shared: Mapping[str, Any]) -> dict[str, FieldCheck]:
    checks = {name: QUALITY_CHECKS.get(name, NUMBER) for name in QUALITY_ARRAYS if name != "bleurt" or shared["bleurt"]}
    if shared["reference_index"]:
        checks["reference_index"] = WHOLE
    if shared["bands"]:
        checks["band"] = TEXT_OR_NULL
    return {**checks, "empty": FLAG}


def _quality_build(shared: Mapping[str, Any], items: Sequence[Mapping[str, Any]]) -> QualityResult:
    content = ContentResult(
        rouge_lsum=column(items, "rougeLsum"),
        bertscore_f1=column(items, "bertscore_f1"),
        bleurt=column(items, "bleurt") if shared["bleurt"] else None,
        content_quality=column(items, "content_quality"),
        weights=dict(shared["content_weights"]),
        config=config_of(shared, "content_config"),
        reference_index=column(items, "reference_index", np.int64) if shared["reference_index"] else None,
    )
    return QualityResult(
        content=content,
        style_similarity=column(items, "style_similarity"),
        overall_quality=column(items, "overall_quality"),
        weights=dict(shared["weights"]),
        config=config_of(shared),
        bands=tuple(item["band"] for item in items) if shared["bands"] else (),
        empty=tuple(k for k, item in enumerate(items) if item["empty"]),
        bootstrap=_read_bootstrap(shared),
    )


QUALITY = ItemCodec(
    QualityResult,
    _quality_shared,
    dict(
        config=PARTS,
        weights=NUMBER_MAP,
        content_config=PARTS,
        content_weights=NUMBER_MAP,
        bleurt=FLAG,
        reference_index=FLAG,
        bands=FLAG,
        bootstrap=BOOTSTRAP,
    ),
    _quality_items,
    _quality_checks,
    _quality_build,
)
