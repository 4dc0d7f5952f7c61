"""Gradio Space for ``summary_eval``: completeness and coherence offline, accuracy with an optional judge."""

from __future__ import annotations

import gradio as gr
import pandas as pd

from persona_metrics.app_support import (
    format_score,
    formatted_table,
    grouped_bars,
    input_table,
    load_metric,
    option_dropdown,
    results_section,
    short,
    table_columns,
    user_errors,
)
from persona_metrics.summary_eval import RUBRICS, JudgeOptions, SummaryEvalParams
from persona_metrics.summary_eval.components import component_names
from persona_metrics.summary_eval.formulas import COHERENCE_METHODS

metric = load_metric(__file__, "summary_eval")

COLUMNS = ["summary", "source"]
_SOURCE = (
    "Brightwater Foods reported quarterly revenue of $4.2 billion on Tuesday, up 8 percent from a year earlier. "
    "The company said demand for its frozen meals rose sharply in Europe. However, margins narrowed because "
    "shipping costs climbed for the third straight quarter. Chief executive Dana Ortiz told analysts that the "
    "company would raise prices in the spring. Shares of Brightwater rose 3 percent in early trading. "
    "The company also announced a new plant in Ohio that will employ 600 workers. "
    "Brightwater reaffirmed its full-year forecast of $16 billion in sales."
)
_GOOD = (
    "Brightwater Foods posted revenue of $4.2 billion, up 8 percent.",
    "However, higher shipping costs narrowed margins, so the company plans price increases in the spring.",
    "It will also open an Ohio plant with 600 jobs and kept its $16 billion sales forecast.",
)
#: A good summary, a one-line one with a wrong figure (9 percent for 8), an off-topic one, the good one with every
#: sentence said twice and the good one shuffled, of the same invented business story: the original coherence ranks
#: the off-topic line and the repeated summary above the good one; the robust method ranks the good one first (both
#: are shown per row). Consistency flags the wrong figure and the off-topic line's street name.
EXAMPLE = [
    [" ".join(_GOOD), _SOURCE],
    ["Brightwater revenue rose 9 percent.", _SOURCE],
    ["The city council approved a new bicycle lane on Main Street after a long debate.", _SOURCE],
    [" ".join(s for sentence in _GOOD for s in (sentence, sentence)), _SOURCE],
    [" ".join((_GOOD[2], _GOOD[0], _GOOD[1])), _SOURCE],
]
JUDGES = ["none", "openai-compatible"]
#: The judge's rubrics: the registry's names (``persona_metrics.summary_eval.RUBRICS``).
RUBRIC_NAMES = list(RUBRICS)
#: The components drawn per row: the weighted ones, and the robust method's charges.
SHOWN = ("rouge_1", "rouge_2", "rouge_l", "semantic", "discourse", "lexical", "readability", "novelty", "order",
         "opening", "ending")  # fmt: skip


def _topics_markdown(topics: list[tuple[str, float, float, bool]]) -> str:
    lines = ["**Source topics of summary 1** (covered at cosine ≥ 0.4: **COVERED**, in bold):"]
    for text, importance, cosine, covered in topics:
        mark = f"**COVERED** **{short(text, 90)}**" if covered else f"missed: {short(text, 90)}"
        lines.append(f"- {mark} (importance {importance:.4f}, cosine {cosine:.3f})")
    return "\n".join(lines)


@user_errors
def score(
    table: pd.DataFrame, judge: str, model: str, base_url: str, rubric: str, coherence_method: str
) -> tuple[dict, str, pd.DataFrame, object]:
    """SummaryEval of every (summary, source) row; with ``judge`` "openai-compatible", accuracy from ``model``.

    The headline and the chart use ``coherence_method``; the table shows each row's coherence by every method,
    its completeness by both methods and its consistency (the share of its figures and names that the source
    supports) with the unsupported ones.
    """
    from persona_metrics.summary_eval import score_summary_eval

    if judge not in JUDGES:
        raise gr.Error(f"judge must be one of {JUDGES}, got {judge!r}")
    columns = table_columns(table, COLUMNS, allow_blank=("summary",))
    options = {"rubric": rubric, "coherence_method": coherence_method}  # checked by the module
    if judge == "openai-compatible":
        options |= {"model": model or None, "base_url": base_url or None}
    out = metric.compute(
        predictions=columns["summary"], sources=columns["source"], return_per_item=True, return_components=True,
        **options,
    )  # fmt: skip
    per = out["per_item"]
    by_method = {coherence_method: per["coherence"]}
    for method in [m for m in COHERENCE_METHODS if m != coherence_method]:  # coherence needs no judge
        other = metric.compute(predictions=columns["summary"], sources=columns["source"], coherence_method=method,
                               return_per_item=True)  # fmt: skip
        by_method[method] = other["per_item"]["coherence"]
    by_sentence = metric.compute(predictions=columns["summary"], sources=columns["source"],
                                 completeness_method="recall_precision", return_per_item=True)  # fmt: skip
    detail = score_summary_eval(columns["summary"][:1], columns["source"][:1]).topics[0]
    missing = "needs a judge" if judge == "none" else "no valid judge answer"
    accuracy = missing if out["accuracy"] is None else format_score(out["accuracy"])
    text = (
        f"### Completeness: {format_score(out['completeness'])} · Coherence: {format_score(out['coherence'])} · "
        f"Accuracy: {accuracy} · Consistency: {format_score(out['consistency'])}\n"
        "Means over the rows. Completeness = min(1, 0.7 · recall + 0.3 · importance share) of the source's topic "
        f"sentences (the table also shows the recall_precision method); coherence by the {coherence_method} method "
        "(the table shows both). Consistency, its own field: the share of each summary's figures, dates and names "
        "that the source supports (1 when it has none), never part of overall. "
        + (out.get("note", "") and f"_{out['note']}_")
        + "\n\n"
        + _topics_markdown(list(detail.topics))
    )
    breakdown = pd.DataFrame(
        {
            "row": list(range(1, len(per["completeness"]) + 1)),
            "summary": [short(s) for s in columns["summary"]],
            "completeness": per["completeness"],
            **{f"coherence ({method})": by_method[method] for method in COHERENCE_METHODS},
            "completeness (recall_precision)": by_sentence["per_item"]["completeness"],
            "consistency": per["consistency"],
            "unsupported facts": ["; ".join(facts) for facts in per["unsupported_facts"]],
            "accuracy": ["" if v is None else v for v in per["accuracy"]],
            "overall": ["" if v is None else v for v in per["overall"]],
        }
    )
    shown = [c for c in SHOWN if c in component_names(coherence_method)]
    series = {f"row {i + 1}": [out["components"][c][i] for c in shown] for i in range(len(per["coherence"]))}
    figure = grouped_bars(shown, series, f"coherence component ({coherence_method})")
    numbers = {
        k: out[k] for k in ("completeness", "coherence", "accuracy", "overall", "consistency") if out[k] is not None
    }
    numbers["scores"] = {k: v for k, v in per.items() if k in ("completeness", "coherence", "consistency")}
    return numbers, text, formatted_table(breakdown), figure


with gr.Blocks(title="SummaryEval") as demo:
    gr.Markdown(
        "# SummaryEval: accuracy, completeness and coherence of summaries\nEdit the rows (a summary and its "
        "source), optionally name an OpenAI-compatible judge for accuracy, and press **Compute**. Completeness "
        "and coherence need no judge."
    )
    with gr.Row():
        judge = gr.Dropdown(JUDGES, value="none", label="Accuracy judge")
        model = gr.Textbox("", label="Judge model (e.g. gpt-4o)")
        base_url = gr.Textbox("", label="Base URL (empty: OpenAI; key from OPENAI_API_KEY)")
        rubric = gr.Dropdown(
            RUBRIC_NAMES,
            value=JudgeOptions.default("rubric"),
            label="Judge rubric",
            info=JudgeOptions.spec("rubric").help,
        )
        coherence_method = option_dropdown(SummaryEvalParams, "coherence_method")
    table = input_table(EXAMPLE, COLUMNS, "Summaries and sources", column_widths=["40%", "60%"])
    inputs = [table, judge, model, base_url, rubric, coherence_method]
    results_section(__file__, score, inputs, "Per row", "Coherence components per row")

if __name__ == "__main__":
    demo.launch()
