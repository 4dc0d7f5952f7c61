"""How a SummaryEval result writes itself as states lines and is rebuilt (``docs/scaling.md`` §2).

One item line per summary: ``completeness``, ``coherence``, ``accuracy`` and ``overall`` with a judge (``null`` for a
missing judge score), the coherence ``components``, the completeness ``topics`` (with ``precision`` and the summary's
``sentences`` by the recall_precision method), ``consistency`` and its ``facts`` (``checked``, ``unsupported``) and
the judge's ``verdict``. The ``result`` line names both methods.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from persona_metrics.state_fields import (
    FLAG,
    NUMBER_MAP,
    PARTS,
    UNIT,
    UNIT_OR_NULL,
    FieldCheck,
    ItemCodec,
    column,
    config_of,
    finite,
    flag,
    float_or_null,
    one_of,
    text_or_null,
    whole,
    within,
)
from persona_metrics.summary_eval.components import Completeness
from persona_metrics.summary_eval.consistency import Consistency
from persona_metrics.summary_eval.formulas import COHERENCE_METHODS, COMPLETENESS_METHODS
from persona_metrics.summary_eval.judge import Verdict
from persona_metrics.summary_eval.scorer import SummaryEvalResult


def _number_or_null_map(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(k, str) and (v is None or finite(v)) for k, v in value.items())


def _topics(value: Any) -> bool:
    if not (isinstance(value, dict) and all(finite(value.get(k)) for k in ("score", "recall", "importance"))):
        return False
    rows = value.get("topics")
    if not isinstance(rows, list) or not all(isinstance(row, list) and len(row) == 4 for row in rows):
        return False
    if not all(isinstance(s, str) and finite(w) and finite(c) and flag(hit) for s, w, c, hit in rows):
        return False
    precision, sentences = value.get("precision"), value.get("sentences")
    if not UNIT_OR_NULL[0](precision) or not isinstance(sentences, list):
        return False
    return all(isinstance(r, list) and len(r) == 2 and isinstance(r[0], str) and finite(r[1]) for r in sentences)


def _facts(value: Any) -> bool:
    if not isinstance(value, dict) or set(value) != {"checked", "unsupported"} or not whole(value["checked"]):
        return False
    unsupported = value["unsupported"]
    return (
        isinstance(unsupported, list)
        and len(unsupported) <= value["checked"]
        and all(isinstance(fact, str) for fact in unsupported)
    )


#: The fields of a judge's verdict line and their checks.
VERDICT_FIELDS: dict[str, FieldCheck] = {
    "accuracy": (lambda v: v is None or within(0.0, 1.0)(v), "a number in [0, 1] or null"),
    "score": (lambda v: v is None or whole(v), "a whole number or null"),
    "rationale": (lambda v: isinstance(v, str), "a string"),
    "status": (lambda v: isinstance(v, str), "a string"),
    "raw": (lambda v: isinstance(v, str), "a string"),
    "cached": (flag, "true or false"),
    "fingerprint": (text_or_null, "a string or null"),
    "key": (text_or_null, "a string or null"),
}


def _verdict(value: Any) -> bool:
    fields = VERDICT_FIELDS.items()
    return isinstance(value, dict) and all(name in value and ok(value[name]) for name, (ok, _) in fields)


def _shared(result: SummaryEvalResult) -> dict[str, Any]:
    return {
        "config": list(result.config.parts),
        "weights": result.weights,
        "coherence_method": result.coherence_method,
        "completeness_method": result.completeness_method,
        "accuracy": result.accuracy is not None,
        "overall": result.overall is not None,
        "verdicts": bool(result.verdicts),
    }


def _items(result: SummaryEvalResult) -> list[dict[str, Any]]:
    out = []
    for i in range(len(result)):
        topics = result.topics[i]
        item: dict[str, Any] = {
            "completeness": float(result.completeness[i]),
            "coherence": float(result.coherence[i]),
            "components": {k: float_or_null(v) for k, v in result.components[i].items()},
            "topics": {
                "score": topics.score,
                "recall": topics.recall,
                "importance": topics.importance,
                "topics": [list(row) for row in topics.topics],
                "precision": topics.precision,
                "sentences": [list(row) for row in topics.sentences],
            },
            "consistency": float(result.consistency[i]),
            "facts": {
                "checked": result.consistency_detail[i].checked,
                "unsupported": list(result.consistency_detail[i].unsupported),
            },
        }
        for name in ("accuracy", "overall"):
            values = getattr(result, name)
            if values is not None:
                item[name] = float_or_null(values[i])
        if result.verdicts:
            item["verdict"] = {name: getattr(result.verdicts[i], name) for name in VERDICT_FIELDS}
        out.append(item)
    return out


def _checks(shared: Mapping[str, Any]) -> dict[str, FieldCheck]:
    checks: dict[str, FieldCheck] = {"completeness": UNIT, "coherence": UNIT}
    checks["components"] = (_number_or_null_map, "an object of numbers (or null)")
    checks["topics"] = (
        _topics,
        "an object with score, recall, importance, topics [[sentence, w, cos, covered]], precision (a number in "
        "[0, 1] or null) and sentences [[sentence, cos]]",
    )
    checks["consistency"] = UNIT
    checks["facts"] = (_facts, "an object with checked (a whole number) and unsupported (at most that many strings)")
    checks |= {name: UNIT_OR_NULL for name in ("accuracy", "overall") if shared[name]}
    if shared["verdicts"]:
        checks["verdict"] = (_verdict, f"an object with {', '.join(VERDICT_FIELDS)}")
    return checks


def _build(shared: Mapping[str, Any], items: Sequence[Mapping[str, Any]]) -> SummaryEvalResult:
    def nan(value: float | None) -> float:
        return math.nan if value is None else value

    topics = tuple(
        Completeness(
            t["score"],
            t["recall"],
            t["importance"],
            tuple(tuple(row) for row in t["topics"]),
            t["precision"],
            tuple(tuple(row) for row in t["sentences"]),
        )
        for t in (item["topics"] for item in items)
    )
    facts = tuple(
        Consistency(item["consistency"], item["facts"]["checked"], tuple(item["facts"]["unsupported"]))
        for item in items
    )
    return SummaryEvalResult(
        completeness=column(items, "completeness"),
        coherence=column(items, "coherence"),
        accuracy=column(items, "accuracy") if shared["accuracy"] else None,
        overall=column(items, "overall") if shared["overall"] else None,
        verdicts=tuple(Verdict(**item["verdict"]) for item in items) if shared["verdicts"] else (),
        components=tuple({k: nan(v) for k, v in item["components"].items()} for item in items),
        topics=topics,  # type: ignore[arg-type]
        consistency=column(items, "consistency"),
        consistency_detail=facts,
        weights=dict(shared["weights"]),
        config=config_of(shared),
        coherence_method=shared["coherence_method"],
        completeness_method=shared["completeness_method"],
    )


SUMMARY_EVAL = ItemCodec(
    SummaryEvalResult,
    _shared,
    dict(
        config=PARTS,
        weights=NUMBER_MAP,
        coherence_method=one_of(COHERENCE_METHODS),
        completeness_method=one_of(COMPLETENESS_METHODS),
        accuracy=FLAG,
        overall=FLAG,
        verdicts=FLAG,
    ),
    _items,
    _checks,
    _build,
)
