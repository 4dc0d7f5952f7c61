"""The persona-quality batch pipeline's scoring and reductions (``persona-metrics pipeline``).

:func:`score_items` scores a table of summaries with :func:`~persona_metrics.persona.quality.score_quality` in
batches and returns one row per summary with every component and its band; :func:`aggregate` and
:func:`overall_means` are the pipeline's only reductions (mean / std / n per group, and flat means), kept here
next to the metric so that no script or printing code averages scores itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from persona_metrics.persona.params import BertScoreConfig
from persona_metrics.persona.quality import score_quality
from persona_metrics.progress import progress_bar
from persona_metrics.validation import out_of_range

#: The per-item columns of the pipeline, in output order (``bleurt`` follows when BLEURT is on).
COMPONENTS: tuple[str, ...] = ("overall_quality", "content_quality", "style_similarity", "rougeLsum", "bertscore_f1")


def score_items(
    items: pd.DataFrame,
    *,
    bertscore: BertScoreConfig | None = None,
    bleurt_checkpoint: str | None = None,
    persona_dir: str | Path | None = None,
    centroid_cache: str | Path | None = None,
    batch_size: int = 32,
    progress: bool | None = None,
) -> tuple[pd.DataFrame, str]:
    """Persona quality of every row of ``items``, scored ``batch_size`` rows at a time.

    Args:
        items: one row per summary with ``prediction``, ``reference`` and ``persona`` columns (other columns,
            e.g. ids, sector and model, are kept).
        bertscore: BERTScore settings (default: packaged MiniLM, rescaled).
        bleurt_checkpoint: a BLEURT checkpoint to include BLEURT (``None``: off).
        persona_dir: a directory of ``{persona}.txt`` samples to add or override personas.
        centroid_cache: the centroid JSON path.
        batch_size: rows per :func:`score_quality` call.
        progress: show a progress bar over the batches (``None``: the library's switch,
            :mod:`persona_metrics.progress`).

    Returns:
        The rows without ``prediction`` / ``reference``, plus :data:`COMPONENTS`, ``band`` (and ``bleurt``),
        and the signature of the scoring.

    Raises:
        ValueError: ``batch_size`` < 1, no row, or what :func:`score_quality` raises for bad rows.
    """
    if batch_size < 1:
        raise ValueError(out_of_range("batch_size", batch_size, 1))
    if items.empty:
        raise ValueError("no summary to score")
    parts, signature = [], ""
    starts = range(0, len(items), batch_size)
    for start in progress_bar(starts, desc="persona quality: scoring", unit="batch", enabled=progress):
        chunk = items.iloc[start : start + batch_size]
        result = score_quality(
            chunk["prediction"].tolist(),
            chunk["reference"].tolist(),
            chunk["persona"].tolist(),
            bertscore=bertscore,
            bleurt_checkpoint=bleurt_checkpoint,
            persona_dir=persona_dir,
            centroid_cache=centroid_cache,
        )
        columns = result.per_item()
        if "bleurt" in columns:
            columns["bleurt"] = columns.pop("bleurt")  # after band, as the CSV always had it
        parts.append(chunk.drop(columns=["prediction", "reference"]).assign(**columns))
        signature = result.signature
    return pd.concat(parts, ignore_index=True), signature


def score_columns(per_item: pd.DataFrame) -> list[str]:
    """The score columns of a :func:`score_items` table: :data:`COMPONENTS` (and ``bleurt``) that it has."""
    return [c for c in (*COMPONENTS, "bleurt") if c in per_item]


def aggregate(per_item: pd.DataFrame, by: str, columns: Sequence[str]) -> pd.DataFrame:
    """Mean, population standard deviation and count of ``columns`` per value of ``by`` (one row per group).

    Returns:
        Columns ``group``, ``n``, ``<column>_mean`` for each column, ``<column>_std`` for each column, and
        ``by`` (the grouping column's name), groups sorted.
    """
    grouped = per_item.groupby(by, sort=True)[list(columns)]
    out = grouped.mean().add_suffix("_mean").join(grouped.std(ddof=0).add_suffix("_std"))
    out.insert(0, "n", grouped.size())
    return out.reset_index().rename(columns={by: "group"}).assign(by=by)


def aggregate_tables(per_item: pd.DataFrame, by: Sequence[str], columns: Sequence[str]) -> pd.DataFrame:
    """:func:`aggregate` for each grouping column of ``by``, stacked in that order."""
    return pd.concat([aggregate(per_item, b, columns) for b in by])


def overall_means(per_item: pd.DataFrame, columns: Sequence[str]) -> dict[str, float]:
    """The flat mean of each of ``columns`` over every row (plain floats)."""
    return {c: float(per_item[c].mean()) for c in columns}
