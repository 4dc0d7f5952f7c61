"""The personalization JSONL format and the baselines every personalization leaderboard adds.

One line per (document, user)::

    {"document_id": "D01", "document": "...", "user_id": "U1", "reference": "the user's own summary",
     "predictions": {"<model>": "<summary for this user>", ...}}

or, for a single system, ``"prediction": "<summary>"`` instead of ``"predictions"``. ``document`` and
``reference`` are required and non-empty (a prediction may be empty); ``document_id`` groups the lines of one
document (when no line has it, lines with the same document text form one document); ``user_id`` is optional
and only carried along. No model may be named ``oracle`` or ``shuffled``: :func:`leaderboard_systems` adds those
baselines to the file's models (:data:`BASELINE_SYSTEMS`).

:func:`shuffled_references` is the one "shuffled" baseline of the project (this format and PENS use it): each
user of a document gets another user's reference of the same document, which is responsive but inaccurate
(the EGISES paradox).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from persona_metrics.datasets.jsonl import check_string_fields, input_name, iter_jsonl

#: Keys every line must have (besides ``predictions`` or ``prediction``).
REQUIRED_KEYS: tuple[str, ...] = ("document", "reference")
#: What a line looks like, for error and help messages.
LINE_FORMAT = (
    '{"document_id", "document", "user_id", "reference", "predictions": {"<model>": "<summary>", ...}} '
    'or {"document_id", "document", "user_id", "reference", "prediction": "<summary>"}'
)


#: Every field a line may hold (the others are warned about: :func:`~.jsonl.iter_jsonl`).
LINE_FIELDS: tuple[str, ...] = ("document_id", "document", "user_id", "reference", "predictions", "prediction")
#: The systems :func:`leaderboard_systems` adds to the models of a ``predictions`` file: no model may be named so.
BASELINE_SYSTEMS: tuple[str, ...] = ("oracle", "shuffled")


def check_model_names(names: Iterable[str], reserved: Sequence[str], where: str) -> None:
    """Refuse a model named like a built-in baseline of its leaderboard (one would silently replace the other).

    Args:
        names: the model names.
        reserved: the baselines' names (:data:`BASELINE_SYSTEMS`; PENS: the keys of its ``BASELINES``).
        where: what holds the names, for the message (``file:line: field 'predictions'``).

    Raises:
        ValueError: naming ``where``, the first such model name and the reserved names.
    """
    clash = next((name for name in names if name in reserved), None)
    if clash is not None:
        raise ValueError(
            f"{where}: model name {clash!r} is reserved for a built-in baseline (the reserved names are "
            f"{list(reserved)}); rename the model"
        )


@dataclass(frozen=True)
class PersonalizationSample:
    """The lines of a personalization JSONL file, column by column (aligned, in file order).

    Attributes:
        documents: the source document of each line.
        references: each line's user's own summary.
        document_ids: the ``document_id`` of each line, or ``None`` when no line has one (group by text).
        user_ids: the ``user_id`` of each line (``""`` where absent).
        predictions: ``{model: [summary per line]}``, models sorted by name; a file of ``prediction`` lines has
            the single model ``single_name``.
        single: whether the file used the one-system ``prediction`` field.
    """

    documents: list[str]
    references: list[str]
    document_ids: list[str] | None
    user_ids: list[str]
    predictions: dict[str, list[str]] = field(default_factory=dict)
    single: bool = False

    @property
    def num_items(self) -> int:
        """Number of lines (summaries per model)."""
        return len(self.references)


def _line_predictions(row: dict, where: str) -> tuple[dict[str, str], bool]:
    """The ``{model: summary}`` of one line and whether it used the single ``prediction`` field."""
    if ("predictions" in row) == ("prediction" in row):
        raise ValueError(f"{where}: expected exactly one of 'predictions' (an object) or 'prediction' (a string)")
    if "prediction" in row:
        check_string_fields(row, ("prediction",), where)
        return {"": row["prediction"]}, True
    preds = row["predictions"]
    if not isinstance(preds, dict):
        raise ValueError(f"{where}: field 'predictions' must be an object of model name -> summary string")
    wrong = [name for name, text in preds.items() if not isinstance(text, str)]
    if wrong:
        raise ValueError(f"{where}: field 'predictions' must map each model to a string; not {wrong}")
    check_model_names(preds, BASELINE_SYSTEMS, f"{where}: field 'predictions'")
    return preds, False


def _check_id_fields(row: dict, where: str) -> None:
    """``document_id`` and ``user_id``, when given, are strings or whole numbers (not null, lists or objects)."""
    for key in ("document_id", "user_id"):
        value = row.get(key, "")
        if not isinstance(value, str | int) or isinstance(value, bool):
            raise ValueError(f"{where}: field {key!r} must be a string or a whole number, got {value!r:.60}")


def _check_ids(rows: list[tuple[int, dict]], path: str | Path) -> list[str] | None:
    """The ``document_id`` column: ``None`` when no line has one.

    Raises:
        ValueError: only some lines have an id, or one id is given two different document texts (lines named).
    """
    if not any("document_id" in row for _, row in rows):
        return None
    first: dict[str, tuple[int, str]] = {}
    for lineno, row in rows:
        if "document_id" not in row:
            raise ValueError(
                f"{path}:{lineno}: field 'document_id' is missing (other lines have one: give it on every line)"
            )
        key = str(row["document_id"])
        seen_line, text = first.setdefault(key, (lineno, row["document"]))
        if text != row["document"]:
            raise ValueError(
                f"{path}:{lineno}: field 'document': document_id {key!r} has a different document text than on "
                f"line {seen_line}"
            )
    return [str(row["document_id"]) for _, row in rows]


def _align_models(lines: list[tuple[int, dict[str, str]]], path: str | Path) -> dict[str, list[str]]:
    """``{model: [summary per line]}``; every line must have every model."""
    models = sorted({m for _, preds in lines for m in preds})
    for lineno, preds in lines:
        missing = [m for m in models if m not in preds]
        if missing:
            raise ValueError(
                f"{path}:{lineno}: field 'predictions': no prediction for models {missing} (other lines have them)"
            )
    return {m: [preds[m] for _, preds in lines] for m in models}


def read_personalization_jsonl(path: str | Path, single_name: str | None = None) -> PersonalizationSample:
    """Read and check a personalization JSONL file (format in the module docstring).

    Args:
        path: the file.
        single_name: the system name of a file of ``prediction`` lines (default: the file's stem).

    Raises:
        FileNotFoundError: the file does not exist.
        ValueError: a malformed line (``file:line`` and the problem named), lines mixing ``prediction`` and
            ``predictions``, a model named like a baseline (:data:`BASELINE_SYSTEMS`: ``oracle``, ``shuffled``),
            a model missing on some line, or an empty file.
    """
    rows, lines, kinds = [], [], set()
    for lineno, row in iter_jsonl(path, LINE_FIELDS):
        where = f"{input_name(path)}:{lineno}"
        check_string_fields(row, REQUIRED_KEYS, where, nonempty=REQUIRED_KEYS)
        _check_id_fields(row, where)
        preds, single = _line_predictions(row, where)
        kinds.add(single)
        if len(kinds) > 1:
            raise ValueError(f"{where}: mixes 'prediction' and 'predictions' lines; use one form per file")
        rows.append((lineno, row))
        lines.append((lineno, preds))
    if not rows:
        raise ValueError(f"{input_name(path)}: no line (expected one JSON object per line: {LINE_FORMAT})")
    single = kinds.pop()
    predictions = _align_models(lines, input_name(path))
    if single:
        predictions = {single_name or Path(path).stem: predictions[""]}
    return PersonalizationSample(
        documents=[row["document"] for _, row in rows],
        references=[row["reference"] for _, row in rows],
        document_ids=_check_ids(rows, input_name(path)),
        user_ids=[str(row.get("user_id", "")) for _, row in rows],
        predictions=predictions,
        single=single,
    )


def shuffled_references(
    references: Sequence[str], document_ids: Sequence[Hashable], fallback: Sequence[str] | None = None
) -> list[str]:
    """The "shuffled" baseline: each user gets another user's reference of the same document.

    The references of each document (items with equal ``document_ids``, in input order) are rotated by one:
    item ``k`` gets the reference of item ``k − 1`` of its document (the first gets the last one's). The result
    is responsive to users (their summaries differ) but inaccurate (none is the user's own).

    A document with a **single** reference has no other user to borrow from. Its item gets ``fallback[i]``
    when ``fallback`` is given (PENS passes the article's headline); otherwise it **keeps its own reference**,
    i.e. the oracle. That value never reaches a score: DEGRESS, PerSEval and the accuracy of
    :class:`~persona_metrics.personalization.PersonalizationScorer` exclude single-reference documents (with a
    :class:`~persona_metrics.PersonaMetricsWarning`, counted in ``num_excluded_documents``).

    Args:
        references: each item's own reference.
        document_ids: the document of each item (any hashable; e.g. the document text).
        fallback: optional per-item text for items of single-reference documents.

    Returns:
        One prediction per item, aligned with ``references``.

    Raises:
        ValueError: ``document_ids`` or ``fallback`` do not align with ``references``.

    >>> shuffled_references(["a1", "a2", "a3", "b1"], ["A", "A", "A", "B"])
    ['a3', 'a1', 'a2', 'b1']
    >>> shuffled_references(["a1", "a2", "b1"], ["A", "A", "B"], fallback=["hA", "hA", "hB"])
    ['a2', 'a1', 'hB']
    """
    if len(document_ids) != len(references) or (fallback is not None and len(fallback) != len(references)):
        raise ValueError("references, document_ids and fallback must have one entry per item")
    by_doc: dict[Hashable, list[int]] = {}
    for i, key in enumerate(document_ids):
        by_doc.setdefault(key, []).append(i)
    out = list(references if fallback is None else fallback)
    for idx in by_doc.values():
        if len(idx) > 1:
            for src, dst in zip(idx, idx[1:] + idx[:1], strict=True):
                out[dst] = references[src]
    return out


def leaderboard_systems(sample: PersonalizationSample) -> dict[str, list[str]]:
    """The systems of a personalization leaderboard, aligned with the sample's lines.

    A file of ``predictions`` lines gives ``oracle`` (each user's own reference), every model (sorted by name)
    and ``shuffled`` (:func:`shuffled_references`, grouped by ``document_id`` or by document text); a file of
    ``prediction`` lines gives its one system only.

    Raises:
        ValueError: a model of a ``predictions`` sample named like a baseline (:func:`check_model_names`), which
            would replace it or be replaced.
    """
    if sample.single:
        return dict(sample.predictions)
    check_model_names(sample.predictions, BASELINE_SYSTEMS, "sample.predictions")
    keys: Sequence[Hashable] = sample.document_ids if sample.document_ids is not None else sample.documents
    return {
        "oracle": list(sample.references),
        **sample.predictions,
        "shuffled": shuffled_references(sample.references, keys),
    }
