"""CNN/DailyMail (``abisee/cnn_dailymail`` 3.0.0 schema: ``article``, ``highlights``, ``id``) through ``datasets``.

Sources for :func:`load_cnndm`: local ``data_files`` (parquet or JSON lines, e.g. the shipped sample
``data/cnndm_sample/test.jsonl``) or the Hub (``hub=True``, needs network). Also the extractive baselines
``lead3`` and ``random3`` (seeded), and :func:`read_predictions` for a system's JSON-lines output.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from persona_metrics.progress import quiet_foreign_progress
from persona_metrics.significance import check_seed

if TYPE_CHECKING:
    from datasets import Dataset

HUB_ID = "abisee/cnn_dailymail"
HUB_CONFIG = "3.0.0"
COLUMNS = ("article", "highlights", "id")


def load_cnndm(data_files: Sequence[str | Path] | None = None, *, hub: bool = False, split: str = "test") -> Dataset:
    """Load CNN/DM rows with columns ``article``, ``highlights``, ``id``.

    Raises:
        ValueError: neither files nor ``hub``, mixed or unknown file types, or a missing column (named).
    """
    from datasets import load_dataset

    if data_files:
        suffixes = {Path(f).suffix for f in data_files}
        builder = {".parquet": "parquet", ".jsonl": "json", ".json": "json"}.get(suffixes.pop(), "")
        if suffixes or not builder:
            raise ValueError(f"data_files must all be .parquet or all .jsonl/.json, got {sorted(map(str, data_files))}")
        if builder == "json":
            for path in data_files:
                check_jsonl_rows(path)
        with quiet_foreign_progress():
            ds = load_dataset(builder, data_files=[str(f) for f in data_files], split="train")
    elif hub:
        with quiet_foreign_progress():
            ds = load_dataset(HUB_ID, HUB_CONFIG, split=split)
    else:
        raise ValueError("give data_files (local parquet / JSON lines) or hub=True")
    missing = [c for c in COLUMNS if c not in ds.column_names]
    if missing:
        raise ValueError(f"CNN/DM data lacks the columns {missing} (has {ds.column_names})")
    _check_texts(ds, ", ".join(map(str, data_files)) if data_files else f"{HUB_ID} ({split})")
    return ds


def _check_texts(ds: Dataset, source: str) -> None:
    """Every ``article`` and ``highlights`` is a non-blank string (a parquet file has rows, not lines: row named).

    Raises:
        ValueError: ``source``, the row (0-based, across the files in order) and the field.
    """
    for column in ("article", "highlights"):
        for row, value in enumerate(ds[column]):
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"{source}: row {row}: field {column!r} must be a non-empty string, got {value!r:.40}")


def check_jsonl_rows(path: str | Path) -> None:
    """Check a JSON-lines data file before ``datasets`` reads it: every line an object with the columns.

    ``article`` and ``highlights`` must be non-blank strings, ``id`` a string or a whole number.

    Raises:
        ValueError: ``FILE:LINE`` and the field (``datasets`` would name neither), or a file without a row.
    """
    from persona_metrics.datasets.jsonl import check_id_fields, check_string_fields, iter_jsonl

    rows = 0
    for lineno, row in iter_jsonl(path):
        where = f"{path}:{lineno}"
        check_id_fields(row, ("id",), where)
        check_string_fields(row, ("article", "highlights"), where, nonempty=("article", "highlights"))
        rows += 1
    if not rows:
        raise ValueError(f"{path}: no article (the file has no JSON line)")


def lead3(article: str) -> str:
    """The first three sentences (Punkt), one per line like the highlights."""
    from persona_metrics.resources import sent_tokenize

    return "\n".join(sent_tokenize(article)[:3])


def random3(article: str, rng: random.Random) -> str:
    """Three sentences drawn at random (in article order) with ``rng``."""
    from persona_metrics.resources import sent_tokenize

    sentences = sent_tokenize(article)
    picked = sorted(rng.sample(range(len(sentences)), min(3, len(sentences))))
    return "\n".join(sentences[i] for i in picked)


def read_predictions(path: str | Path, ids: Sequence[str]) -> list[str]:
    """A system's predictions aligned with ``ids``, from JSON lines ``{"id", "prediction"}``.

    Raises:
        ValueError: a malformed line (``file:line`` and the field named: not an object, no ``id`` or
            ``prediction``, a prediction that is not a string, an id given twice) or an article without prediction
            (count and the first missing id named).
    """
    from persona_metrics.datasets.jsonl import check_id_fields, check_string_fields, iter_jsonl

    found: dict[str, str] = {}
    for lineno, row in iter_jsonl(path):
        where = f"{path}:{lineno}"
        check_id_fields(row, ("id",), where)
        check_string_fields(row, ("prediction",), where)
        if str(row["id"]) in found:
            raise ValueError(f"{where}: field 'id': a second prediction for article {row['id']}")
        found[str(row["id"])] = row["prediction"]
    missing = [i for i in ids if i not in found]
    if missing:
        raise ValueError(f"{path}: no prediction for {len(missing)} articles, e.g. id {missing[0]}")
    return [found[i] for i in ids]


def baseline_summaries(articles: Sequence[str], highlights: Sequence[str], seed: int = 0) -> dict[str, list[str]]:
    """The built-in systems, aligned with ``articles``.

    ``lead3``, ``random3`` (one ``random.Random(seed)`` drawn over the articles in order) and ``reference`` (the
    highlights themselves: a sanity row that scores 1 on content).

    Raises:
        TypeError / ValueError: ``seed`` not an int from 0 to 2**64 - 1
            (:func:`~persona_metrics.significance.check_seed`).
    """
    rng = random.Random(check_seed(seed))
    return {
        "lead3": [lead3(a) for a in articles],
        "random3": [random3(a, rng) for a in articles],
        "reference": list(highlights),
    }
