"""States of the per-item metrics: one line per item, read back into the library's results (``docs/scaling.md`` §2).

``persona-metrics score persona_style|persona_quality|vert|summary_eval FILE --shard I/N --states OUT.jsonl`` and
``persona-metrics cnndm ... --shard I/N --states OUT.jsonl`` score a contiguous block of the input's items
(:func:`~persona_metrics.integrations.states.shard_block`) and write, after the header
(:mod:`persona_metrics.integrations.states`), for each (system, result) the shard scored:

* one ``{"kind": "result", "system", "result", ...}`` line: what every item of the result shares (the signature's
  parts as ``config``, the weights, which optional per-item fields are present);
* one ``{"kind": "item", "system", "result", "index", ...}`` line per item: ``index`` is the item's position in the
  whole input, then every per-item value of the result (``persona_style``: ``score``, ``persona``, ``nearest``,
  ``empty``; ``persona_quality``: every component, ``band``, ``empty``; ``vert``: ``vert``, ``sim``, ``wmd``,
  ``reference_index``; ``summary_eval``: ``completeness``, ``coherence``, ``accuracy`` and ``overall`` with a judge,
  the coherence ``components``, the completeness ``topics`` and the judge's ``verdict``).

Floats are written by ``json`` (shortest round-trip ``repr``) and read back bit for bit; a missing judge score
(NaN in the result) is ``null``. Nothing is pickled: a states file is user input, and every field of every line is
checked when it is read back (a ValueError names ``FILE:LINE`` and the field). Each shard's lines are rebuilt into
the library's result of that shard (a VERT result without the word alignments, which no printed output uses), and
:func:`persona_metrics.merge` puts the shards' results together: the means, the per-item values, the bootstrap
intervals (recomputed from the signature's resample count and seed) and the signature are those of one call over
the whole input.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from persona_metrics.integrations.merge import merge
from persona_metrics.integrations.states import States, check_shards, finite, shard_block, within
from persona_metrics.persona.quality import ContentResult, QualityResult
from persona_metrics.persona.style import StyleResult
from persona_metrics.signature import Signature
from persona_metrics.summary_eval.components import Completeness
from persona_metrics.summary_eval.judge import Verdict
from persona_metrics.summary_eval.scorer import SummaryEvalResult
from persona_metrics.vert.formulas import MAX_WMD_RATIO
from persona_metrics.vert.scorer import VertResult

#: A field check: a predicate on the value and what the value must be (for the error).
Spec = tuple[Callable[[Any], bool], str]


# --- field checks ----------------------------------------------------------------------------------------------
def _number(value: Any) -> bool:
    return finite(value)


def _number_or_null(value: Any) -> bool:
    return value is None or _number(value)


def _text_or_null(value: Any) -> bool:
    return value is None or isinstance(value, str)


def _flag(value: Any) -> bool:
    return isinstance(value, bool)


def _whole(value: Any) -> bool:
    return type(value) is int and 0 <= value < 2**62


def _parts(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(part, str) for part in value)


def _number_map(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(k, str) and _number(v) for k, v in value.items())


def _number_or_null_map(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(k, str) and _number_or_null(v) for k, v in value.items())


def _pair_map_or_null(value: Any) -> bool:
    pairs = isinstance(value, dict) and all(isinstance(v, list) and len(v) == 2 for v in value.values())
    return value is None or (pairs and all(_number(x) for v in value.values() for x in v))


def _topics(value: Any) -> bool:
    if not (isinstance(value, dict) and all(_number(value.get(k)) for k in ("score", "recall", "importance"))):
        return False
    rows = value.get("topics")
    if not isinstance(rows, list) or not all(isinstance(row, list) and len(row) == 4 for row in rows):
        return False
    return all(isinstance(s, str) and _number(w) and _number(c) and _flag(hit) for s, w, c, hit in rows)


#: The fields of a judge's verdict line and their checks.
VERDICT_FIELDS: dict[str, Spec] = {
    "accuracy": (lambda v: v is None or within(0.0, 1.0)(v), "a number in [0, 1] or null"),
    "score": (lambda v: v is None or _whole(v), "a whole number or null"),
    "rationale": (lambda v: isinstance(v, str), "a string"),
    "status": (lambda v: isinstance(v, str), "a string"),
    "raw": (lambda v: isinstance(v, str), "a string"),
    "cached": (_flag, "true or false"),
    "fingerprint": (_text_or_null, "a string or null"),
    "key": (_text_or_null, "a string or null"),
}


def _verdict(value: Any) -> bool:
    fields = VERDICT_FIELDS.items()
    return isinstance(value, dict) and all(name in value and ok(value[name]) for name, (ok, _) in fields)


NUMBER: Spec = (_number, "a number")
NUMBER_OR_NULL: Spec = (_number_or_null, "a number or null")
#: A score in [0, 1] (what the metric's definition allows; :data:`~persona_metrics.integrations.states.SLACK`).
UNIT: Spec = (within(0.0, 1.0), "a number in [0, 1]")
UNIT_OR_NULL: Spec = (lambda v: v is None or within(0.0, 1.0)(v), "a number in [0, 1] or null")
TEXT: Spec = (lambda v: isinstance(v, str), "a string")
TEXT_OR_NULL: Spec = (_text_or_null, "a string or null")
FLAG: Spec = (_flag, "true or false")
WHOLE: Spec = (_whole, "a whole number")
PARTS: Spec = (_parts, "a list of strings (the signature's parts)")
NUMBER_MAP: Spec = (_number_map, "an object of numbers")


def check_fields(line: Mapping[str, Any], spec: Mapping[str, Spec], where: str) -> None:
    """Check that ``line`` has every field of ``spec`` with a value its check accepts.

    Raises:
        ValueError: ``where`` (``FILE:LINE``), the field and what it must be.
    """
    for name, (ok, what) in spec.items():
        if name not in line:
            raise ValueError(f"{where}: field {name!r} is missing (expected {what})")
        if not ok(line[name]):
            raise ValueError(f"{where}: field {name!r} must be {what}, got {line[name]!r:.80}")


def _float(value: float) -> float | None:
    """A per-item float for JSON: ``None`` for NaN (a missing judge score)."""
    return None if math.isnan(value) else float(value)


def _array(items: Sequence[Mapping[str, Any]], name: str, dtype: type = np.float64) -> np.ndarray:
    """One per-item field as an array (``null`` read back as NaN)."""
    return np.array([np.nan if item[name] is None else item[name] for item in items], dtype=dtype)


def _config(shared: Mapping[str, Any], name: str = "config") -> Signature:
    return Signature(tuple(shared[name]))


# --- per result type -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ItemCodec:
    """How one per-item result type is written as lines and rebuilt from them.

    Attributes:
        kind: the result type.
        shared: the result's fields that every item shares, as JSON (the ``result`` line).
        shared_spec: the checks of the ``result`` line's fields.
        items: one JSON object per item (the ``item`` lines, without ``kind``/``system``/``result``/``index``).
        item_spec: the checks of an item line's fields, given the ``result`` line (optional fields follow it).
        build: the result rebuilt from the ``result`` line and the item lines, in item order.
    """

    kind: type
    shared: Callable[[Any], dict[str, Any]]
    shared_spec: Mapping[str, Spec]
    items: Callable[[Any], list[dict[str, Any]]]
    item_spec: Callable[[Mapping[str, Any]], dict[str, Spec]]
    build: Callable[[Mapping[str, Any], Sequence[Mapping[str, Any]]], Any]


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


def _style_spec(shared: Mapping[str, Any]) -> dict[str, Spec]:
    spec = {"score": UNIT, "persona": TEXT, "nearest": TEXT_OR_NULL, "empty": FLAG}
    if shared["features"]:
        spec["features"] = (_pair_map_or_null, "an object of [summary value, centroid value] pairs, or null")
    return spec


def _style_build(shared: Mapping[str, Any], items: Sequence[Mapping[str, Any]]) -> StyleResult:
    features = None
    if shared["features"]:
        features = tuple(
            None if item["features"] is None else {k: (v[0], v[1]) for k, v in item["features"].items()}
            for item in items
        )
    return StyleResult(
        scores=_array(items, "score"),
        personas=tuple(item["persona"] for item in items),
        nearest=tuple(item["nearest"] for item in items),
        features=features,
        config=_config(shared),
        empty=tuple(k for k, item in enumerate(items) if item["empty"]),
    )


STYLE = ItemCodec(
    StyleResult,
    lambda r: {"config": list(r.config.parts), "features": r.features is not None},
    {"config": PARTS, "features": FLAG},
    _style_items,
    _style_spec,
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
QUALITY_SPECS: dict[str, Spec] = {"rougeLsum": UNIT, "bleurt": UNIT, "style_similarity": UNIT}


def _quality_shared(result: QualityResult) -> dict[str, Any]:
    return {
        "config": list(result.config.parts),
        "weights": result.weights,
        "content_config": list(result.content.config.parts),
        "content_weights": result.content.weights,
        "bleurt": result.content.bleurt is not None,
        "reference_index": result.content.reference_index is not None,
        "bands": len(result.bands) == len(result.overall_quality),
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


def _quality_spec(shared: Mapping[str, Any]) -> dict[str, Spec]:
    spec = {name: QUALITY_SPECS.get(name, NUMBER) for name in QUALITY_ARRAYS if name != "bleurt" or shared["bleurt"]}
    if shared["reference_index"]:
        spec["reference_index"] = WHOLE
    if shared["bands"]:
        spec["band"] = TEXT_OR_NULL
    return {**spec, "empty": FLAG}


def _quality_build(shared: Mapping[str, Any], items: Sequence[Mapping[str, Any]]) -> QualityResult:
    content = ContentResult(
        rouge_lsum=_array(items, "rougeLsum"),
        bertscore_f1=_array(items, "bertscore_f1"),
        bleurt=_array(items, "bleurt") if shared["bleurt"] else None,
        content_quality=_array(items, "content_quality"),
        weights=dict(shared["content_weights"]),
        config=_config(shared, "content_config"),
        reference_index=_array(items, "reference_index", np.int64) if shared["reference_index"] else None,
    )
    return QualityResult(
        content=content,
        style_similarity=_array(items, "style_similarity"),
        overall_quality=_array(items, "overall_quality"),
        weights=dict(shared["weights"]),
        config=_config(shared),
        bands=tuple(item["band"] for item in items) if shared["bands"] else (),
        empty=tuple(k for k, item in enumerate(items) if item["empty"]),
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
    ),
    _quality_items,
    _quality_spec,
    _quality_build,
)


def _vert_items(result: VertResult) -> list[dict[str, Any]]:
    columns = {**result.per_item(), "reference_index": result.reference_index.tolist()}
    return [{name: values[i] for name, values in columns.items()} for i in range(len(result))]


def _vert_build(shared: Mapping[str, Any], items: Sequence[Mapping[str, Any]]) -> VertResult:
    return VertResult(
        vert=_array(items, "vert"),
        sim=_array(items, "sim"),
        wmd=_array(items, "wmd"),
        reference_index=_array(items, "reference_index", np.int64),
        max_wmd=float(shared["max_wmd"]),
        config=_config(shared),
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


def _summary_eval_shared(result: SummaryEvalResult) -> dict[str, Any]:
    return {
        "config": list(result.config.parts),
        "weights": result.weights,
        "coherence_method": result.coherence_method,
        "accuracy": result.accuracy is not None,
        "overall": result.overall is not None,
        "verdicts": bool(result.verdicts),
    }


def _verdict_line(verdict: Verdict) -> dict[str, Any]:
    return {name: getattr(verdict, name) for name in VERDICT_FIELDS}


def _summary_eval_items(result: SummaryEvalResult) -> list[dict[str, Any]]:
    out = []
    for i in range(len(result)):
        topics = result.topics[i]
        item: dict[str, Any] = {
            "completeness": float(result.completeness[i]),
            "coherence": float(result.coherence[i]),
            "components": {k: _float(v) for k, v in result.components[i].items()},
            "topics": {
                "score": topics.score,
                "recall": topics.recall,
                "importance": topics.importance,
                "topics": [list(row) for row in topics.topics],
            },
        }
        for name in ("accuracy", "overall"):
            values = getattr(result, name)
            if values is not None:
                item[name] = _float(values[i])
        if result.verdicts:
            item["verdict"] = _verdict_line(result.verdicts[i])
        out.append(item)
    return out


def _summary_eval_spec(shared: Mapping[str, Any]) -> dict[str, Spec]:
    spec: dict[str, Spec] = {"completeness": UNIT, "coherence": UNIT}
    spec["components"] = (_number_or_null_map, "an object of numbers (or null)")
    spec["topics"] = (_topics, "an object with score, recall, importance and topics [[sentence, w, cos, covered]]")
    spec |= {name: UNIT_OR_NULL for name in ("accuracy", "overall") if shared[name]}
    if shared["verdicts"]:
        spec["verdict"] = (_verdict, f"an object with {', '.join(VERDICT_FIELDS)}")
    return spec


def _summary_eval_build(shared: Mapping[str, Any], items: Sequence[Mapping[str, Any]]) -> SummaryEvalResult:
    def nan(value: float | None) -> float:
        return math.nan if value is None else value

    topics = tuple(
        Completeness(t["score"], t["recall"], t["importance"], tuple(tuple(row) for row in t["topics"]))
        for t in (item["topics"] for item in items)
    )
    return SummaryEvalResult(
        completeness=_array(items, "completeness"),
        coherence=_array(items, "coherence"),
        accuracy=_array(items, "accuracy") if shared["accuracy"] else None,
        overall=_array(items, "overall") if shared["overall"] else None,
        verdicts=tuple(Verdict(**item["verdict"]) for item in items) if shared["verdicts"] else (),
        components=tuple({k: nan(v) for k, v in item["components"].items()} for item in items),
        topics=topics,  # type: ignore[arg-type]
        weights=dict(shared["weights"]),
        config=_config(shared),
        coherence_method=shared["coherence_method"],
    )


SUMMARY_EVAL = ItemCodec(
    SummaryEvalResult,
    _summary_eval_shared,
    dict(config=PARTS, weights=NUMBER_MAP, coherence_method=TEXT, accuracy=FLAG, overall=FLAG, verdicts=FLAG),
    _summary_eval_items,
    _summary_eval_spec,
    _summary_eval_build,
)

#: Result name (the metric's, as in ``evaluate.load``) → its codec.
CODECS: dict[str, ItemCodec] = {
    "persona_style": STYLE,
    "persona_quality": QUALITY,
    "vert": VERT,
    "summary_eval": SUMMARY_EVAL,
}


# --- writing ---------------------------------------------------------------------------------------------------
def item_state_lines(system: str, name: str, result: Any, positions: Sequence[int]) -> list[dict[str, Any]]:
    """The ``result`` line and the ``item`` lines of one scored result; ``positions[i]``: item i's in the input.

    Raises:
        TypeError: ``result`` is not the type of ``name``'s codec.
    """
    codec = CODECS[name]
    if not isinstance(result, codec.kind):
        raise TypeError(f"result must be a {codec.kind.__name__} for {name}, got {type(result).__name__}")
    tag = {"system": system, "result": name}
    items = codec.items(result)
    return [
        {"kind": "result", **tag, **codec.shared(result)},
        *({"kind": "item", **tag, "index": positions[i], **item} for i, item in enumerate(items)),
    ]


# --- reading and merging ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MergedItems:
    """The whole input's per-item results rebuilt from its shards.

    Attributes:
        header: the first shard's header without ``shard``.
        results: ``{system: {result name: result}}``, in the header's order.
        notes: the shards' warnings, distinct and sorted.
    """

    header: dict[str, Any]
    results: dict[str, dict[str, Any]]
    notes: list[str]


def _lines_of(states: States, system: str, name: str) -> list[tuple[str, dict[str, Any]]]:
    """The shard's lines of (``system``, ``name``), each with its ``FILE:LINE``."""
    return [
        (f"{states.path}:{lineno}", line)
        for lineno, line in states.lines
        if line.get("system") == system and line.get("result") == name
    ]


def _check_tags(states: States) -> None:
    """Every line names a system and a result of the header."""
    for lineno, line in states.lines:
        for field, known in (("system", states.header["systems"]), ("result", states.header["results"])):
            if line.get(field) not in known:
                raise ValueError(
                    f"{states.path}:{lineno}: field {field!r} is {line.get(field)!r}, not one of the header's {known}"
                )


def _check_indices(states: States, items: Sequence[tuple[str, dict[str, Any]]], block: range) -> None:
    """The item lines' ``index`` fields are the shard's block of the input, in order."""
    for (where, line), expected in zip(items, block, strict=False):
        check_fields(line, {"index": WHOLE}, where)
        if line["index"] != expected:
            raise ValueError(
                f"{where}: field 'index' is {line['index']}, expected {expected} (shard {states.shard}/"
                f"{states.header['num_shards']} holds the items {block.start} to {block.stop - 1} in order)"
            )
    if len(items) != len(block):
        raise ValueError(
            f"{states.path}: {len(items)} item lines of {items[0][1]['system']!r} / {items[0][1]['result']!r}, "
            f"but shard {states.shard}/{states.header['num_shards']} holds {len(block)} items"
        )


def read_part(states: States, system: str, name: str) -> tuple[Any, list[int]] | None:
    """The shard's result of (``system``, ``name``) rebuilt, with its items' positions; None for an empty shard.

    Raises:
        ValueError: a missing, repeated or damaged line (``FILE:LINE`` and the field named).
    """
    lines = _lines_of(states, system, name)
    block = shard_block(int(states.header["num_items"]), states.shard, int(states.header["num_shards"]))
    shared = [(where, line) for where, line in lines if line["kind"] == "result"]
    items = [(where, line) for where, line in lines if line["kind"] == "item"]
    if not block:
        if lines:
            raise ValueError(f"{lines[0][0]}: shard {states.shard}/{states.header['num_shards']} holds no item")
        return None
    if len(shared) != 1:
        raise ValueError(f"{states.path}: {len(shared)} 'result' lines for {system!r} / {name!r}; expected 1")
    codec = CODECS[name]
    check_fields(shared[0][1], codec.shared_spec, shared[0][0])
    if not items:
        raise ValueError(f"{states.path}: no item line for {system!r} / {name!r}")
    _check_indices(states, items, block)
    spec = codec.item_spec(shared[0][1])
    for where, line in items:
        check_fields(line, spec, where)
    return codec.build(shared[0][1], [line for _, line in items]), list(block)


def _merge_result(shards: Sequence[States], system: str, name: str) -> Any:
    """The shards' parts of (``system``, ``name``) merged by :func:`persona_metrics.merge`."""
    parts, positions, names = [], [], []
    for states in shards:
        part = read_part(states, system, name)
        if part is not None:
            parts.append(part[0])
            positions.append(part[1])
            names.append(states.path)
    for result, path in zip(parts, names, strict=True):
        if result.signature != parts[0].signature:
            raise ValueError(
                f"{path}: the {name} signature of {system!r} differs from {names[0]}'s ({result.signature!r} vs "
                f"{parts[0].signature!r}); only shards of one run merge"
            )
    return merge(parts, positions)


def merge_item_states(shards: Sequence[States]) -> MergedItems:
    """Every (system, result) of the whole input, equal bit for bit to the unsharded run's.

    Raises:
        ValueError: the shards do not belong together (:func:`~persona_metrics.integrations.states.check_shards`),
            a damaged line (``FILE:LINE`` and the field), or signatures that differ (the file named).
    """
    shards = check_shards(shards)
    for states in shards:
        _check_tags(states)
    header = shards[0].header
    results = {
        system: {name: _merge_result(shards, system, name) for name in header["results"]}
        for system in header["systems"]
    }
    notes = sorted({note for states in shards for note in states.header["notes"]})
    return MergedItems({k: v for k, v in header.items() if k != "shard"}, results, notes)
