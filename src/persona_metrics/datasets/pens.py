"""Microsoft PENS (personalized news headlines) through ``datasets``: one example per (user, article).

Files (``specs/offline_resources.md`` §5), tab-separated with a header line:

* ``news.tsv``: News ID, Category, Topic, Headline, News body, Title entity, Entity content;
* ``personalized_test.tsv``: userid, clicknewsID (comma-separated history), posnewID (comma-separated),
  rewrite_titles (``;;``-separated, aligned with posnewID).

Each example carries the user's rewritten title as ``reference`` and ``headline + " " + body`` as
``document`` (the string the PerSEval authors compare summaries with), plus the user's click history.
"""

from __future__ import annotations

import csv
import logging
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datasets import Dataset

logger = logging.getLogger(__name__)

NEWS_COLUMNS = ("News ID", "Category", "Topic", "Headline", "News body", "Title entity", "Entity content")
TEST_COLUMNS = ("userid", "clicknewsID", "posnewID", "rewrite_titles")


def check_tsv(path: Path, columns: tuple[str, ...]) -> None:
    """Check the header and the field count of every line; ``ValueError`` listing malformed line numbers."""
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found (expected a PENS file with columns {list(columns)})")
    bad: list[int] = []
    with path.open(encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        if tuple(header) != columns:
            raise ValueError(f"{path}:1: header {header} is not the PENS header {list(columns)}")
        for lineno, line in enumerate(f, start=2):
            if line.rstrip("\n").count("\t") != len(columns) - 1:
                bad.append(lineno)
    if bad:
        shown = ", ".join(map(str, bad[:20])) + (" ..." if len(bad) > 20 else "")
        raise ValueError(f"{path}: {len(bad)} malformed lines (expected {len(columns)} tab-separated fields): {shown}")


def _read(path: Path, columns: tuple[str, ...]) -> Dataset:
    """A PENS TSV through the ``datasets`` csv builder, every column as a string."""
    from datasets import Features, Value, load_dataset

    return load_dataset(
        "csv",
        data_files=str(path),
        delimiter="\t",
        quoting=csv.QUOTE_NONE,
        keep_default_na=False,
        features=Features({c: Value("string") for c in columns}),
        split="train",
    )


def load_pens(pens_dir: str | Path) -> Dataset:
    """Load the PENS test set as a ``datasets.Dataset`` with one row per (user, article).

    Columns: ``user_id``, ``news_id``, ``reference`` (the user's title), ``headline``, ``document``
    (``headline + " " + body``), ``category``, ``history`` (the user's clicked news ids), in file order
    (users in ``personalized_test.tsv`` order, each user's articles in ``posnewID`` order: the order of
    PENS model output files ``hyps_<MODEL>.txt``).

    Raises:
        FileNotFoundError: a file is missing.
        ValueError: a malformed line (line numbers listed), a posnewID / rewrite_titles length mismatch, or
            an article id missing from ``news.tsv`` (the id, user and line are named).
    """
    from datasets import Dataset

    root = Path(pens_dir)
    news_path, test_path = root / "news.tsv", root / "personalized_test.tsv"
    check_tsv(news_path, NEWS_COLUMNS)
    check_tsv(test_path, TEST_COLUMNS)
    news = _read(news_path, NEWS_COLUMNS)
    articles = {
        row["News ID"]: (row["Headline"], row["News body"], row["Category"])
        for row in news.select_columns(["News ID", "Headline", "News body", "Category"])
    }
    columns: dict[str, list] = {
        k: [] for k in ("user_id", "news_id", "reference", "headline", "document", "category", "history")
    }
    for lineno, row in enumerate(_read(test_path, TEST_COLUMNS), start=2):
        ids = [i for i in row["posnewID"].split(",") if i]
        titles = row["rewrite_titles"].split(";;")
        if len(ids) != len(titles):
            raise ValueError(
                f"{test_path}:{lineno}: user {row['userid']} has {len(ids)} posnewID but {len(titles)} rewrite_titles"
            )
        history = [i for i in row["clicknewsID"].split(",") if i]
        for news_id, title in zip(ids, titles, strict=True):
            if news_id not in articles:
                raise ValueError(
                    f"{test_path}:{lineno}: news id {news_id!r} (user {row['userid']}) is not in {news_path.name}"
                )
            headline, body, category = articles[news_id]
            columns["user_id"].append(row["userid"])
            columns["news_id"].append(news_id)
            columns["reference"].append(title.strip())
            columns["headline"].append(headline)
            columns["document"].append(f"{headline} {body}")
            columns["category"].append(category)
            columns["history"].append(history)
    logger.info("PENS: %d examples from %s", len(columns["user_id"]), root)
    return Dataset.from_dict(columns)
