"""Glue shared by the Gradio Space apps in ``spaces/<name>/app.py``: loading, input tables, errors, pictures.

UI only: every number an app shows comes from the metric's ``evaluate`` module (system, per-item and
per-document values alike); nothing here computes or averages a score. Every score shown as text goes through
:func:`format_score` (:mod:`persona_metrics.formatting`, the one number format of the CLI and the apps: 3
significant digits, so 4e-05 does not read as 0). gradio and matplotlib (the ``spaces`` extra) are imported on
first use.
"""

from __future__ import annotations

import functools
import logging
import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from persona_metrics.formatting import format_cell
from persona_metrics.formatting import format_score as format_score  # the apps format with it
from persona_metrics.params import Params

logger = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])

#: Errors a user can cause from the UI (bad cells, unknown persona, a model that cannot be loaded offline).
USER_ERRORS: tuple[type[Exception], ...] = (ValueError, TypeError, KeyError, OSError)

_YAML_HEADER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)


def load_metric(app_file: str | Path, name: str) -> Any:
    """The ``evaluate`` module ``name`` from the script next to the app (``spaces/<name>/<name>.py``).

    The Space folder holds the metric script (a link to ``metrics/<name>/<name>.py`` in the repository, a
    copy in a built Space), so the app scores with exactly the card's code. Loaded by file path: no network.

    Raises:
        FileNotFoundError: the script is not next to the app.
    """
    import evaluate

    script = Path(app_file).parent / f"{name}.py"
    if not script.is_file():
        raise FileNotFoundError(f"metric script {script} not found next to the app {app_file}")
    return evaluate.load(str(script))


def card_markdown(app_file: str | Path) -> str:
    """The metric card next to the app (``README.md``) without its Space YAML header."""
    text = (Path(app_file).parent / "README.md").read_text(encoding="utf-8")
    return _YAML_HEADER.sub("", text, count=1).lstrip()


def _blank(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and value != value:  # NaN: pandas' empty cell
        return True
    return isinstance(value, str) and not value.strip()


def table_columns(table: Any, columns: Sequence[str], allow_blank: Sequence[str] = ()) -> dict[str, list[str]]:
    """The rows of an input table as aligned lists of strings, one per column; fully blank rows are skipped.

    Args:
        table: what a ``gr.Dataframe`` hands the app: a pandas DataFrame, or ``{"headers": [...], "data":
            [[...], ...]}`` (the API form).
        columns: the column names needed, in the order returned.
        allow_blank: columns whose cells may be empty (an empty summary is valid input for some metrics).

    Raises:
        ValueError: a missing column, an empty table, or an empty cell (row number and column named).
    """
    if isinstance(table, dict):
        headers, rows = list(table.get("headers") or []), list(table.get("data") or [])
    else:
        headers, rows = [str(c) for c in table.columns], table.itertuples(index=False, name=None)
    missing = [c for c in columns if c not in headers]
    if missing:
        raise ValueError(f"the input table needs the columns {list(columns)}; missing {missing}")
    where = [headers.index(c) for c in columns]
    out: dict[str, list[str]] = {c: [] for c in columns}
    for number, row in enumerate(rows, start=1):
        cells = [row[i] if i < len(row) else None for i in where]
        if all(_blank(v) for v in cells):
            continue
        for column, value in zip(columns, cells, strict=True):
            if _blank(value) and column not in allow_blank:
                raise ValueError(f"row {number}: the {column!r} cell is empty")
            out[column].append("" if _blank(value) else str(value).strip())
    if not out[columns[0]]:
        raise ValueError("the input table is empty: fill in at least one row")
    return out


def user_errors(fn: F) -> F:
    """Turn the errors a user can cause into a readable ``gr.Error`` (a message in the UI, no stack trace)."""
    import gradio as gr

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except USER_ERRORS as err:
            logger.info("input refused: %s", err)
            message = err.args[0] if isinstance(err, KeyError) and err.args else str(err)
            raise gr.Error(str(message), print_exception=False) from err

    return wrapper  # type: ignore[return-value]


def input_table(rows: Sequence[Sequence[str]], columns: Sequence[str], label: str, **options: Any) -> Any:
    """The editable input table (``elem_id="inputs"``), prefilled with ``rows``; ``options`` go to gr.Dataframe."""
    import gradio as gr
    import pandas as pd

    return gr.Dataframe(
        value=pd.DataFrame([list(r) for r in rows], columns=list(columns)),
        headers=list(columns),
        datatype=["str"] * len(columns),
        column_count=len(columns),
        interactive=True,
        wrap=True,
        elem_id="inputs",
        label=label,
        **options,
    )


def option_slider(params: type[Params], name: str) -> Any:
    """A slider for option ``name`` of ``params``: its default, its bounds and its help, from the params object.

    The bounds and step are the option's Space window (``display``), or its finite interval in 20 steps.

    Raises:
        ValueError: the option has neither a window nor a finite interval.
    """
    import gradio as gr

    spec = params.spec(name)
    if spec.display is not None:
        low, high, step = spec.display
    elif spec.interval is not None and all(map(math.isfinite, spec.interval[:2])):
        low, high = spec.interval[:2]
        step = 1 if spec.integer else (high - low) / 20
    else:
        raise ValueError(f"{params.__name__}.{name} has no display window or finite interval for a slider")
    return gr.Slider(low, high, value=params.default(name), step=step, label=name, info=spec.help)


def option_dropdown(params: type[Params], name: str, choices: Sequence[str] | None = None) -> Any:
    """A dropdown for option ``name`` of ``params``: its default and help; its allowed values unless ``choices``.

    ``choices`` names what the Space offers where the option takes more than a list (a registry's names, where
    paths or objects are allowed too).

    Raises:
        ValueError: no choices given and the option has no list of allowed values.
    """
    import gradio as gr

    spec = params.spec(name)
    offered = list(choices if choices is not None else spec.choices or ())
    if not offered:
        raise ValueError(f"{params.__name__}.{name} has no allowed values to offer; pass choices")
    return gr.Dropdown(offered, value=params.default(name), label=name, info=spec.help)


def results_section(
    app_file: str | Path, score: Callable[..., Any], inputs: list[Any], breakdown: str, picture: str
) -> None:
    """The Compute button (``api_name="score"``) and what it fills, in a ``gr.Blocks`` context.

    ``score(*inputs)`` returns ``(numbers, interpretation markdown, breakdown table, matplotlib figure)``; they
    are shown as the interpretation (``elem_id="result"``), the breakdown table (``elem_id="breakdown"``,
    labelled ``breakdown``), the picture (labelled ``picture``) and the raw numbers, followed by the metric card.
    """
    import gradio as gr

    button = gr.Button("Compute", variant="primary")
    text = gr.Markdown(elem_id="result")
    table = gr.Dataframe(label=breakdown, interactive=False, wrap=True, elem_id="breakdown")
    figure = gr.Plot(label=picture)
    numbers = gr.JSON(label="Scores (as returned by the metric)")
    with gr.Accordion("Metric card", open=False):
        gr.Markdown(card_markdown(app_file))
    button.click(score, inputs, [numbers, text, table, figure], api_name="score")


def formatted_table(table: Any) -> Any:
    """A copy of a results DataFrame for display: every float cell as :func:`format_score` text.

    Other cells (names, bands, an empty string for a missing judge score) are kept as they are.
    """
    return table.map(format_cell)


def short(text: str, width: int = 48) -> str:
    """A one-line label: the first ``width`` characters of ``text``."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def grouped_bars(labels: Sequence[str], series: dict[str, Sequence[float]], xlabel: str, *, log: bool = False) -> Any:
    """A matplotlib figure of grouped horizontal bars: one group per label, one bar per series.

    No title: the ``gr.Plot`` label is the title. ``log=True`` draws the value axis on a log scale (for scores that
    span orders of magnitude, such as PerSEval); a value of 0 or below has no bar there.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    height = 0.8 / max(1, len(series))
    fig, ax = plt.subplots(figsize=(9, 1.0 + 0.3 * len(labels) * max(1, len(series)) ** 0.5))
    positions = np.arange(len(labels))
    for k, (name, values) in enumerate(series.items()):
        ax.barh(positions + (k - (len(series) - 1) / 2) * height, values, height=height, label=name)
    ax.set_yticks(positions, labels=list(labels))
    ax.invert_yaxis()
    if log:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", frameon=False)  # never over a bar
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    plt.close(fig)
    return fig


# --- degress / perseval -------------------------------------------------------------------------------------
#: Input columns of the personalization apps: one row per (document, user) summary.
PERSONALIZATION_COLUMNS: list[str] = ["document", "user", "reference", "prediction"]

_DOCS = (
    "Harbor Foods raised its annual sales forecast after a strong summer. The grocer will open two stores in "
    "Portland next year and hire 300 staff. Its shares rose 4%, while suppliers warned of higher packaging costs.",
    "Ridgeline Motors recalled 48,000 pickup trucks over a faulty brake sensor. The carmaker said no injuries had "
    "been reported and repairs would be free. Analysts expect the recall to cost about $60 million, and a union "
    "said overtime at the Ohio plant would rise.",
    "Coastal Air will add daily flights between Denver and Lisbon from May. The airline expects the route to lift "
    "international revenue by 5%. Fares start at $499, and the new jets cut emissions per seat by a fifth.",
)
#: A meaningful example: three readers (an investor, a worker, a customer) per document; the model follows the
#: readers on the first two documents and writes one generic summary for everyone on the third.
PERSONALIZATION_EXAMPLE: list[list[str]] = [
    [_DOCS[0], "investor", "Harbor Foods shares up 4% on raised sales forecast",
     "Harbor Foods raises forecast, shares rise 4%"],
    [_DOCS[0], "worker", "Harbor Foods to hire 300 for two new Portland stores",
     "Harbor Foods plans two Portland stores and 300 jobs"],
    [_DOCS[0], "customer", "Two new Harbor Foods stores coming to Portland",
     "Harbor Foods raises sales forecast after strong summer"],
    [_DOCS[1], "investor", "Ridgeline recall to cost about $60 million, analysts say",
     "Brake recall may cost Ridgeline $60 million"],
    [_DOCS[1], "worker", "More overtime at Ridgeline's Ohio plant after truck recall",
     "Ridgeline recall brings overtime to Ohio plant"],
    [_DOCS[1], "customer", "Ridgeline recalls 48,000 pickups; brake repairs are free",
     "Ridgeline recalls 48,000 trucks; free brake repairs"],
    [_DOCS[2], "investor", "Coastal Air expects 5% lift in international revenue from Lisbon route",
     "Coastal Air adds daily Denver-Lisbon flights from May"],
    [_DOCS[2], "worker", "Coastal Air's new jets cut emissions per seat by a fifth",
     "Coastal Air adds daily Denver-Lisbon flights from May"],
    [_DOCS[2], "customer", "Denver-Lisbon flights from $499 start in May",
     "Coastal Air adds daily Denver-Lisbon flights from May"],
]  # fmt: skip


#: How to fill the personalization apps' table (shown under their titles).
PERSONALIZATION_HOWTO = (
    "One row per (document, reader): the document, the reader's id, the reader's own reference summary and the "
    "model's summary for that reader. Documents with equal text form one group; each needs at least two readers. "
    "Edit a cell and press **Compute**."
)


def personalization_table() -> Any:
    """The input table of the personalization apps, prefilled with :data:`PERSONALIZATION_EXAMPLE`."""
    return input_table(
        PERSONALIZATION_EXAMPLE,
        PERSONALIZATION_COLUMNS,
        "Summaries",
        column_widths=["40%", "12%", "24%", "24%"],
        max_height=1000,
    )


def score_personalization_table(metric: Any, table: Any, scores: Sequence[str], **options: Any) -> tuple[dict, Any]:
    """Run ``degress`` / ``perseval`` on the input table: its numbers and the per-document ``scores`` table.

    The table holds the metric's numbers (floats, for :func:`personalization_figure`); show it through
    :func:`formatted_table`.

    Args:
        metric: the loaded evaluate module.
        table: the input table (:data:`PERSONALIZATION_COLUMNS`; an empty prediction is valid input).
        scores: per-document scores of the metric to show, in column order.
        **options: the metric's keyword options (``distance``, ``beta`` ...).
    """
    columns = table_columns(table, PERSONALIZATION_COLUMNS, allow_blank=("prediction",))
    out = metric.compute(
        predictions=columns["prediction"],
        references=columns["reference"],
        documents=columns["document"],
        return_per_document=True,
        **options,
    )
    per_document = out.pop("per_document")
    return out, _personalization_breakdown(columns, per_document, scores)


def _personalization_breakdown(
    columns: dict[str, list[str]], per_document: dict[str, list], scores: Sequence[str]
) -> Any:
    """Per-document table: users and the metric's per-document scores (mean over the document's users).

    The metric's system score is the mean over documents of these values (PerSEval paper, eqs. 2 and 7). A
    document with a single reference is listed as excluded (the metric leaves it out).
    """
    import pandas as pd

    scored = {doc: i for i, doc in enumerate(per_document["document"])}
    users: dict[str, list[str]] = {}
    for document, user in zip(columns["document"], columns["user"], strict=True):
        users.setdefault(document, []).append(user)
    rows = []
    for number, (document, readers) in enumerate(users.items(), start=1):
        row: dict[str, Any] = {"doc": f"D{number}", "document": short(document), "users": ", ".join(readers)}
        for name in scores:
            row[name] = per_document[name][scored[document]] if document in scored else EXCLUDED
        rows.append(row)
    return pd.DataFrame(rows)


#: The per-document cell of a document the metric leaves out.
EXCLUDED = "excluded (one reference)"


def personalization_figure(breakdown: Any, scores: Sequence[str], *, log: bool = False) -> Any:
    """Grouped bars of the per-document ``scores`` columns of :func:`score_personalization_table`.

    ``log=True``: a log-scale axis, for PerSEval, whose documents differ by orders of magnitude (EDP's sigmoids).
    """
    scored = breakdown[breakdown[scores[0]].map(lambda v: not isinstance(v, str))]
    xlabel = "score (mean over the document's users" + (", log scale)" if log else ")")
    return grouped_bars(list(scored["doc"]), {name: list(scored[name]) for name in scores}, xlabel, log=log)


# --- vert ---------------------------------------------------------------------------------------------------
def _spread(count: int, height: int) -> list[float]:
    """``count`` label positions from ``height − 1`` down to 0, evenly spaced (one label: the middle)."""
    if count == 1:
        return [(height - 1) / 2]
    return [(height - 1) * (1 - k / (count - 1)) for k in range(count)]


def _draw_alignment(ax: Any, alignment: dict[str, Any], title: str, cmap: Any, norm: Any) -> None:
    """One pair's transport flows: prediction words on the left, reference words on the right."""
    left, right = alignment["prediction_words"], alignment["reference_words"]
    ax.set_title(f"{title}: WMD {alignment['wmd']:.3f}", fontsize="medium", loc="left")
    ax.set_xlim(-0.6, 1.6)
    ax.axis("off")
    if not left or not right:
        side = "prediction" if not left else "reference"
        ax.text(0.5, 0.5, f"no content word in the {side}: WMD = the cap", ha="center", va="center")
        return
    height = max(len(left), len(right))
    ys_left, ys_right = _spread(len(left), height), _spread(len(right), height)
    ax.set_ylim(-0.8, height - 0.2)
    for i, j, mass, distance in sorted(alignment["flows"], key=lambda f: f[3]):  # moved words drawn on top
        color = "lightgrey" if distance == 0 else cmap(norm(distance))  # a word that stays: grey
        ax.plot([0, 1], [ys_left[i], ys_right[j]], color=color, linewidth=1 + 14 * mass, alpha=0.85,
                solid_capstyle="round")  # fmt: skip
    for word, y, weight in zip(left, ys_left, alignment["prediction_weights"], strict=True):
        ax.text(-0.03, y, f"{word} ({weight:.3g})", ha="right", va="center", fontsize="small")
    for word, y, weight in zip(right, ys_right, alignment["reference_weights"], strict=True):
        ax.text(1.03, y, f"{word} ({weight:.3g})", ha="left", va="center", fontsize="small")


def word_alignment_figure(alignments: Sequence[dict[str, Any]], titles: Sequence[str]) -> Any:
    """Which words moved where: each pair's word mover's transport plan as flows between the two texts.

    Args:
        alignments: per pair, the metric's ``alignment`` entry (``prediction_words``, ``reference_words``, their
            weights, ``flows`` as ``[i, j, mass, distance]`` and ``wmd``), drawn as returned.
        titles: one label per pair.

    Line width is the mass moved (nBOW weight), colour the distance between the two word vectors (grey: a word
    that stays itself, distance 0); the prediction's content words are on the left, the reference's on the
    right, each with its weight.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import Normalize

    distances = [f[3] for a in alignments for f in a["flows"]] or [1.0]
    norm = Normalize(vmin=0.0, vmax=max(1e-9, max(distances)))
    cmap = plt.get_cmap("plasma")
    sizes = [max(1, len(a["prediction_words"]), len(a["reference_words"])) for a in alignments]
    height = 0.7 + sum(0.3 * s + 0.5 for s in sizes)
    fig, axes = plt.subplots(
        len(alignments), 1, figsize=(9, height), squeeze=False, gridspec_kw={"height_ratios": sizes},
    )  # fmt: skip
    fig.subplots_adjust(top=1 - 0.7 / height, bottom=0.1 / height, left=0.02, right=0.85, hspace=0.5)
    for ax, alignment, title in zip(axes[:, 0], alignments, titles, strict=True):
        _draw_alignment(ax, alignment, title, cmap, norm)
    colorbar = fig.colorbar(plt.cm.ScalarMappable(norm=norm, cmap=cmap), ax=list(axes[:, 0]), fraction=0.03)
    colorbar.set_label("distance between the word vectors (grey: same word)")
    plt.close(fig)
    return fig
