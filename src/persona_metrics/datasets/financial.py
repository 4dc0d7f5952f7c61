"""The financial-summaries format: one JSON file per article with generated summaries per model.

Reading only; the pipeline's scoring and mean / std / n tables are in :mod:`persona_metrics.persona.pipeline`.

``{"article_id", "title", "article", "reference_summary", "metadata": {"prompt_type", "author", "sector",
...}, "generated_summaries": {"<model>": "<summary>", ...}}`` (``data/financial_sample/README.md``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from persona_metrics.persona.recognition import infer_persona

logger = logging.getLogger(__name__)

REQUIRED_KEYS = ("article_id", "article", "reference_summary", "metadata", "generated_summaries")


@dataclass(frozen=True)
class Article:
    """One article with its reference, metadata, target persona and generated summaries."""

    article_id: str
    article: str
    reference: str
    metadata: dict
    persona: str
    summaries: dict[str, str]


def parse_article(obj: object, source: str) -> Article:
    """Validate one decoded JSON object; ``ValueError`` naming ``source`` and the problem."""
    if not isinstance(obj, dict):
        raise ValueError(f"{source}: expected a JSON object, got {type(obj).__name__}")
    missing = [k for k in REQUIRED_KEYS if k not in obj]
    if missing:
        raise ValueError(f"{source}: missing keys {missing}")
    for key in ("article_id", "article", "reference_summary"):
        if not isinstance(obj[key], str) or not obj[key].strip():
            raise ValueError(f"{source}: {key} must be a non-empty string")
    meta, summaries = obj["metadata"], obj["generated_summaries"]
    if not isinstance(meta, dict):
        raise ValueError(f"{source}: metadata must be an object")
    if not isinstance(summaries, dict) or not summaries:
        raise ValueError(f"{source}: generated_summaries must be a non-empty object of model → summary")
    for model, text in summaries.items():
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"{source}: generated_summaries[{model!r}] must be a non-empty string")
    return Article(obj["article_id"], obj["article"], obj["reference_summary"], meta, infer_persona(meta), summaries)


def read_article_dir(directory: str | Path) -> tuple[list[Article], list[str]]:
    """Read every ``*.json`` in ``directory`` (sorted); malformed files are skipped and reported.

    Returns:
        The articles and one message per skipped file (each naming the file). The returned messages are the
        report: the caller shows them (``persona-metrics pipeline`` prints each once on standard error), so a
        skip is only logged at INFO level here, which the default logging configuration does not show.

    Raises:
        FileNotFoundError: the directory does not exist or holds no ``.json`` file.
    """
    root = Path(directory)
    files = sorted(root.glob("*.json")) if root.is_dir() else []
    if not files:
        raise FileNotFoundError(f"no *.json article files in {root}")
    articles, problems, seen = [], [], set()
    for path in files:
        try:
            article = parse_article(json.loads(path.read_text(encoding="utf-8")), path.name)
            if article.article_id in seen:
                raise ValueError(f"{path.name}: duplicate article_id {article.article_id!r}")
        except json.JSONDecodeError as err:
            problems.append(f"{path.name}:{err.lineno}: not valid JSON ({err.msg}, column {err.colno})")
        except UnicodeDecodeError as err:
            problems.append(f"{path.name}: not UTF-8 text (byte {err.start})")
        except ValueError as err:
            problems.append(str(err))
        else:
            seen.add(article.article_id)
            articles.append(article)
            continue
        logger.info("skipped %s", problems[-1])
    return articles, problems


def summary_items(articles: Sequence[Article]) -> pd.DataFrame:
    """One row per (article, model): ids, persona, sector, model, prediction and reference."""
    rows = [
        {
            "article_id": a.article_id,
            "model": model,
            "persona": a.persona,
            "sector": str(a.metadata.get("sector", "unknown")),
            "prediction": text,
            "reference": a.reference,
        }
        for a in articles
        for model, text in sorted(a.summaries.items())
    ]
    return pd.DataFrame(rows)
