"""Microsoft PENS (personalized news headlines) through ``datasets``: one example per (user, article).

Files (``docs/offline.md`` §5), tab-separated with a header line:

* ``news.tsv``: News ID, Category, Topic, Headline, News body, Title entity, Entity content;
* ``personalized_test.tsv``: userid, clicknewsID (comma-separated history), posnewID (comma-separated),
  rewrite_titles (``;;``-separated, aligned with posnewID).

Each example carries the user's rewritten title as ``reference`` and ``headline + " " + body`` as
``document`` (the string the PerSEval authors compare summaries with), plus the user's click history.
"""

from __future__ import annotations

import csv
import logging
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from persona_metrics.progress import progress_bar, quiet_foreign_progress
from persona_metrics.validation import not_one_of

if TYPE_CHECKING:
    from datasets import Dataset

logger = logging.getLogger(__name__)

NEWS_COLUMNS = ("News ID", "Category", "Topic", "Headline", "News body", "Title entity", "Entity content")
TEST_COLUMNS = ("userid", "clicknewsID", "posnewID", "rewrite_titles")


def check_tsv(path: Path, columns: tuple[str, ...]) -> None:
    """Check the header and the field count of every line; ``ValueError`` listing malformed line numbers."""
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found (expected a PENS file with columns {list(columns)})")
    bad: list[tuple[int, int]] = []  # (line, its number of fields)
    with path.open("rb") as f:
        header = _decoded(f.readline(), path, 1).rstrip("\r\n").split("\t")
        if tuple(header) != columns:
            raise ValueError(f"{path}:1: header {header} is not the PENS header {list(columns)}")
        for lineno, line in enumerate(f, start=2):
            fields = _decoded(line, path, lineno).rstrip("\n").count("\t") + 1
            if fields != len(columns):
                bad.append((lineno, fields))
    if bad:
        shown = ", ".join(str(lineno) for lineno, _ in bad[:20]) + (" ..." if len(bad) > 20 else "")
        raise ValueError(
            f"{path}:{bad[0][0]}: {bad[0][1]} tab-separated fields, expected {len(columns)} ({', '.join(columns)}); "
            f"{len(bad)} malformed lines: {shown}"
        )


def _decoded(line: bytes, path: Path, lineno: int) -> str:
    """One line of a PENS file as text; a ValueError naming ``FILE:LINE`` when it is not UTF-8."""
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(
            f"{path}:{lineno}: not UTF-8 text (byte {err.start} of the line, 0x{line[err.start]:02x})"
        ) from err


def _read(path: Path, columns: tuple[str, ...]) -> Dataset:
    """A PENS TSV through the ``datasets`` csv builder, every column as a string."""
    from datasets import Features, Value, load_dataset

    with quiet_foreign_progress():
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

    Columns: ``user_id``, ``news_id``, ``reference`` (the user's title), ``headline``, ``body``, ``document``
    (``headline + " " + body``), ``category``, ``history`` (the user's clicked news ids), ``history_text`` (the
    clicked articles' headlines, space-joined; ids missing from ``news.tsv`` are skipped), in file order
    (users in ``personalized_test.tsv`` order, each user's articles in ``posnewID`` order: the order of
    PENS model output files ``hyps_<MODEL>.txt``).

    The article columns are Arrow ``take`` s of the memory-mapped ``news.tsv`` table (each document string is built
    once per article, not once per row in Python) and the fingerprint comes from the two files' (hashing the table
    would copy it), so loading the full test set stays well under 0.6 GB.

    Raises:
        FileNotFoundError: a file is missing.
        ValueError: a malformed line (line numbers listed), a posnewID / rewrite_titles length mismatch, or
            an article id missing from ``news.tsv`` (the id, user and line are named).
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    from datasets import Dataset
    from datasets.fingerprint import Hasher
    from datasets.table import InMemoryTable

    root = Path(pens_dir)
    news_path, test_path = root / "news.tsv", root / "personalized_test.tsv"
    check_tsv(news_path, NEWS_COLUMNS)
    check_tsv(test_path, TEST_COLUMNS)
    news_file, test_file = _read(news_path, NEWS_COLUMNS), _read(test_path, TEST_COLUMNS)
    news = news_file.data.table
    row_of = {news_id: row for row, news_id in enumerate(news.column("News ID").to_pylist())}  # last one wins
    headlines = news.column("Headline").to_pylist()
    examples = _pens_examples(test_file, test_path, news_path.name, row_of, headlines)
    take = pa.array(examples.article_rows, type=pa.int64())
    per_user = pa.array(examples.user_rows, type=pa.int64())
    documents = pc.binary_join_element_wise(news.column("Headline"), news.column("News body"), " ")
    columns = {
        "user_id": pa.array(examples.user_ids, type=pa.string()).take(per_user),
        "news_id": pa.array(examples.news_ids, type=pa.string()),
        "reference": pa.array(examples.references, type=pa.string()),
        "headline": news.column("Headline").take(take),
        "body": news.column("News body").take(take),
        "document": documents.take(take),
        "category": news.column("Category").take(take),
        "history": pa.array(examples.histories, type=pa.list_(pa.string())).take(per_user),
        "history_text": pa.array(examples.history_texts, type=pa.string()).take(per_user),
    }
    logger.info("PENS: %d examples from %s", len(examples.article_rows), root)
    # The fingerprint (datasets' cache key) from the two files' own: hashing the 200 MB table would copy it.
    fingerprint = Hasher.hash(["persona_metrics.load_pens", news_file._fingerprint, test_file._fingerprint])
    return Dataset(InMemoryTable(pa.table(columns)), fingerprint=fingerprint)


class _PensExamples:
    """The test file read row by row: per example its article row and user; per user its id and history."""

    def __init__(self) -> None:
        self.article_rows: list[int] = []
        self.user_rows: list[int] = []
        self.news_ids: list[str] = []
        self.references: list[str] = []
        self.user_ids: list[str] = []
        self.histories: list[list[str]] = []
        self.history_texts: list[str] = []


def _pens_examples(
    test: Dataset, test_path: Path, news_name: str, row_of: dict[str, int], headlines: list[str]
) -> _PensExamples:
    """One example per (user, article) of ``personalized_test.tsv``, checked (errors name the line and user)."""
    out = _PensExamples()
    for lineno, row in enumerate(test, start=2):
        ids = [i for i in row["posnewID"].split(",") if i]
        titles = row["rewrite_titles"].split(";;")
        if len(ids) != len(titles):
            raise ValueError(
                f"{test_path}:{lineno}: user {row['userid']} has {len(ids)} posnewID but {len(titles)} rewrite_titles"
            )
        missing = [i for i in ids if i not in row_of]
        if missing:
            raise ValueError(
                f"{test_path}:{lineno}: news id {missing[0]!r} (user {row['userid']}) of field 'posnewID' is not in "
                f"{news_name}"
            )
        history = [i for i in row["clicknewsID"].split(",") if i]
        user = len(out.user_ids)
        out.user_ids.append(row["userid"])
        out.histories.append(history)
        out.history_texts.append(" ".join(headlines[row_of[i]] for i in history if i in row_of))  # clicked headlines
        out.article_rows += [row_of[i] for i in ids]
        out.user_rows += [user] * len(ids)
        out.news_ids += ids
        out.references += [title.strip() for title in titles]
    return out


# --- writing ---------------------------------------------------------------------------------------------------
#: An article to write: ``(news_id, category, headline, body)``.
NewsRow = tuple[str, str, str, str]
#: A user to write: ``(user_id, clicked news ids, [(news_id, rewritten title), ...])``.
UserRow = tuple[str, Sequence[str], Sequence[tuple[str, str]]]


#: Characters no field may hold (they would break the TSV line).
_LINE_BREAKERS: tuple[str, ...] = ("\t", "\n", "\r")


def _check_field(value: str, what: str, separator: str | None = None) -> str:
    """``value`` if it holds no tab, no line break and not ``separator`` (the list separator of its column).

    Raises:
        ValueError: naming ``what``, the start of the value and the offending characters.
    """
    bad = [repr(c) for c in (*_LINE_BREAKERS, *([separator] if separator else [])) if c in value]
    if bad:
        raise ValueError(f"{what} {value[:60]!r} contains {', '.join(bad)}, which the PENS format cannot hold")
    return value


def _news_line(row: NewsRow) -> str:
    """One ``news.tsv`` line: Topic is ``<category>news``, the entity columns are ``{}``."""
    news_id, category, headline, body = (_check_field(v, "news field") for v in row)
    return "\t".join((news_id, category, f"{category}news", headline, body, "{}", "{}")) + "\n"


def _user_line(row: UserRow) -> str:
    """One ``personalized_test.tsv`` line: comma-separated news ids, ``;;``-separated titles."""
    user_id, clicks, items = row
    clicked = ",".join(_check_field(n, "news id", ",") for n in clicks)
    posnew = ",".join(_check_field(n, "news id", ",") for n, _ in items)
    titles = ";;".join(_check_field(t, "rewritten title", ";;") for _, t in items)
    return "\t".join((_check_field(user_id, "user id"), clicked, posnew, titles)) + "\n"


def write_pens(directory: str | Path, news: Iterable[NewsRow], users: Iterable[UserRow]) -> None:
    """Write ``news.tsv`` and ``personalized_test.tsv`` in the PENS formats (what :func:`load_pens` reads).

    Args:
        directory: the output folder (created if needed).
        news: ``(news_id, category, headline, body)`` per article, in file order; Topic is written as
            ``<category>news`` and the two entity columns as ``{}``.
        users: ``(user_id, clicked news ids, [(news_id, rewritten title), ...])`` per user, in file order.

    Raises:
        ValueError: a field with a tab or a line break, a news id with a comma or a title with ``;;`` (the
            format's separators); every row is checked before anything is written.
    """
    news_lines = [_news_line(row) for row in news]
    user_lines = [_user_line(row) for row in users]
    root = Path(directory)
    root.mkdir(parents=True, exist_ok=True)
    (root / "news.tsv").write_text("\t".join(NEWS_COLUMNS) + "\n" + "".join(news_lines), encoding="utf-8")
    (root / "personalized_test.tsv").write_text("\t".join(TEST_COLUMNS) + "\n" + "".join(user_lines), encoding="utf-8")


# --- built-in offline baselines ------------------------------------------------------------------------------
#: Baseline name → what it predicts for a (user, article) example.
BASELINES: dict[str, str] = {
    "oracle": "the user's own title (upper bound)",
    "headline": "the original headline, the same for every user (non-personalized)",
    "lead": "the first sentence of the body, the same for every user (non-personalized)",
    "shuffled": "another user's title for the same article (responsive but inaccurate)",
    "history": "the body sentence with the most words in common with the user's clicked headlines (personalized)",
}


def baseline_predictions(dataset: Dataset, name: str) -> list[str]:
    """Predictions of a built-in baseline, aligned with ``dataset`` (see :data:`BASELINES`).

    ``shuffled`` rotates the titles of each article's users by one (an article with a single user keeps the
    headline); ``history`` scores each body sentence by how many distinct words (lowercased alphanumeric) it
    shares with the user's clicked headlines, first sentence on ties.

    Raises:
        ValueError: ``name`` is not a key of :data:`BASELINES`.
    """
    if name not in BASELINES:
        raise ValueError(not_one_of("baseline", name, BASELINES))
    return _BASELINE_FUNCTIONS[name](dataset)


def _oracle(dataset: Dataset) -> list[str]:
    """The user's own title."""
    return list(dataset["reference"])


def _headline(dataset: Dataset) -> list[str]:
    """The original headline."""
    return list(dataset["headline"])


def _shuffled(dataset: Dataset) -> list[str]:
    """Each article's user titles rotated by one; the headline for an article with a single user.

    The rotation is :func:`persona_metrics.datasets.personalization.shuffled_references` (the project's one
    shuffled baseline) with the headline as the single-user fallback, so no user is handed their own title.
    """
    from persona_metrics.datasets.personalization import shuffled_references

    return shuffled_references(list(dataset["reference"]), list(dataset["news_id"]), fallback=list(dataset["headline"]))


def _body_sentences(dataset: Dataset) -> list[list[str]]:
    """Each example's body split into sentences (``[headline]`` for an empty body), each article split once."""
    from persona_metrics.resources import sent_tokenize

    sentences: dict[str, list[str]] = {}
    out = []
    for news_id, body, head in zip(dataset["news_id"], dataset["body"], dataset["headline"], strict=True):
        if news_id not in sentences:
            sentences[news_id] = sent_tokenize(body) or [head]
        out.append(sentences[news_id])
    return out


def _lead(dataset: Dataset) -> list[str]:
    """The first sentence of the body."""
    return [sentences[0] for sentences in _body_sentences(dataset)]


def _history(dataset: Dataset) -> list[str]:
    """The body sentence sharing the most distinct words with the user's clicked headlines (first on ties)."""
    from persona_metrics.distances import word_tokens

    out = []
    for sentences, history in zip(_body_sentences(dataset), dataset["history_text"], strict=True):
        interest = set(word_tokens(history))
        shared = [len(interest & set(word_tokens(sentence))) for sentence in sentences]
        out.append(sentences[shared.index(max(shared))])  # the first on ties, as max() does
    return out


#: Baseline name → the function computing its predictions (the keys of :data:`BASELINES`).
_BASELINE_FUNCTIONS: dict[str, Callable[[Dataset], list[str]]] = {
    "oracle": _oracle,
    "headline": _headline,
    "lead": _lead,
    "shuffled": _shuffled,
    "history": _history,
}


# --- model outputs ---------------------------------------------------------------------------------------------
def read_hyps(path: str | Path, num_examples: int) -> list[str]:
    """A PENS model output file ``hyps_<MODEL>.txt``: one prediction per line, in the examples' order.

    Raises:
        ValueError: the line count differs from ``num_examples`` (both counts named).
    """
    from persona_metrics.datasets.jsonl import read_text, text_lines

    lines = text_lines(read_text(path))
    if len(lines) != num_examples:
        raise ValueError(f"{path}: {len(lines)} lines but the PENS test data has {num_examples} examples")
    return [line.strip() for line in lines]


def read_jsonl_predictions(path: str | Path, dataset: Dataset) -> list[str]:
    """Predictions from JSONL lines ``{"user_id", "news_id", "prediction"}``, aligned with ``dataset``.

    Raises:
        ValueError: a malformed line (line number named), a duplicate pair, or an example without prediction
            (the first missing user/news ids named).
    """
    from persona_metrics.datasets.jsonl import check_id_fields, check_string_fields, iter_jsonl

    found: dict[tuple[str, str], str] = {}
    for lineno, row in iter_jsonl(path):
        where = f"{path}:{lineno}"
        check_id_fields(row, ("user_id", "news_id"), where)
        check_string_fields(row, ("prediction",), where)
        key, prediction = (str(row["user_id"]), str(row["news_id"])), row["prediction"]
        if key in found:
            raise ValueError(f"{path}:{lineno}: duplicate prediction for user {key[0]}, news {key[1]}")
        found[key] = prediction
    wanted = list(zip(dataset["user_id"], dataset["news_id"], strict=True))
    missing = [k for k in wanted if k not in found]
    if missing:
        raise ValueError(
            f"{path}: no prediction for {len(missing)} examples, e.g. user {missing[0][0]}, news {missing[0][1]}"
        )
    return [found[k] for k in wanted]


def model_name(path: Path) -> str:
    """The model of a prediction file: ``<MODEL>.jsonl`` or ``hyps_<MODEL>.txt``."""
    return path.stem if path.suffix == ".jsonl" else path.stem.removeprefix("hyps_")


def check_model_files(files: Sequence[Path]) -> None:
    """Refuse prediction files whose model takes a baseline's name or another file's (one would replace the other).

    Raises:
        ValueError: naming the file, the model and the reserved names (or the other file).
    """
    from persona_metrics.datasets.personalization import check_model_names

    seen: dict[str, Path] = {}
    for path in files:
        name = model_name(path)
        check_model_names([name], list(BASELINES), str(path))
        if name in seen:
            raise ValueError(f"{path}: model name {name!r} is also that of {seen[name]}; rename one")
        seen[name] = path


def load_models(ds: Dataset, baselines: Sequence[str], files: Sequence[Path]) -> dict[str, list[str]]:
    """Predictions per model name: the chosen baselines, then each prediction file (named by its stem).

    Raises:
        ValueError: a file's model named like a baseline or like another file's (:func:`check_model_files`), or a
            malformed file.
    """
    check_model_files(files)  # before any baseline is computed
    out = {name: baseline_predictions(ds, name) for name in progress_bar(baselines, desc="pens: baselines")}
    for path in files:
        if path.suffix == ".jsonl":
            out[model_name(path)] = read_jsonl_predictions(path, ds)
        else:
            out[model_name(path)] = read_hyps(path, ds.num_rows)
    return out
