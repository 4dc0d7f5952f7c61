"""Gradio Space for ``perseval``: degree of personalization (DEGRESS penalised for accuracy drop and inconsistency)."""

from __future__ import annotations

import gradio as gr
import pandas as pd

from persona_metrics.app_support import (
    PERSONALIZATION_COLUMNS,
    PERSONALIZATION_EXAMPLE,
    card_markdown,
    load_metric,
    personalization_breakdown,
    personalization_figure,
    table_columns,
    user_errors,
)
from persona_metrics.distances import DEFAULT_DISTANCE, DISTANCES
from persona_metrics.personalization import DEFAULT_ALPHA, DEFAULT_BETA, DEFAULT_GAMMA

metric = load_metric(__file__, "perseval")

SCORES = ("degress", "perseval", "edp")


@user_errors
def score(
    table: pd.DataFrame, distance: str, beta: float, alpha: float, gamma: float
) -> tuple[dict, str, pd.DataFrame, object]:
    """PerSEval of the table's summaries (one row per document and user)."""
    cols = table_columns(table, PERSONALIZATION_COLUMNS, allow_blank=("prediction",))
    out = metric.compute(
        predictions=cols["prediction"],
        references=cols["reference"],
        documents=cols["document"],
        distance=distance,
        beta=beta,
        alpha=alpha,
        gamma=gamma,
        return_per_summary=True,
    )
    per_summary = out.pop("per_summary")
    summary = (
        f"### PerSEval {out['perseval']:.4f} · DEGRESS {out['degress']:.4f} · EDP {out['edp']:.4f}\n"
        f"DEGRESS (0–1, higher is better) measures how far the summaries follow their readers' differences; "
        f"PerSEval = DEGRESS × EDP, where EDP (≤ 1) penalises an accuracy drop against each reader's own "
        f"summary (mean distance {out['accuracy_distance']:.3f}, {distance}) and its inconsistency across readers. "
        f"A PerSEval far below DEGRESS means a responsive but inaccurate model. "
        f"{out['num_documents']} document(s) scored, {out['num_excluded_documents']} excluded (one reference)."
    )
    breakdown = personalization_breakdown(cols, {k: per_summary[k] for k in SCORES})
    figure = personalization_figure(breakdown, SCORES[:2])
    return out, summary, breakdown, figure


with gr.Blocks(title="PerSEval") as demo:
    gr.Markdown(
        "# PerSEval: how personalized are the summaries?\nOne row per (document, reader): the document, the "
        "reader's id, the reader's own reference summary and the model's summary for that reader. Documents with "
        "equal text form one group; each needs at least two readers. Edit a cell and press **Compute**."
    )
    with gr.Row():
        distance = gr.Dropdown(list(DISTANCES), value=DEFAULT_DISTANCE, label="Distance σ")
        beta = gr.Slider(0.1, 5.0, value=DEFAULT_BETA, step=0.1, label="β (EDP sigmoid, eq. 6)")
    with gr.Accordion("More PerSEval parameters", open=False), gr.Row():
        alpha = gr.Slider(0.5, 10.0, value=DEFAULT_ALPHA, step=0.5, label="α (EDP sigmoid, eq. 6)")
        gamma = gr.Slider(0.5, 10.0, value=DEFAULT_GAMMA, step=0.5, label="γ (ADP / ACP sigmoid, eqs. 4–5)")
    table = gr.Dataframe(
        value=pd.DataFrame(PERSONALIZATION_EXAMPLE, columns=PERSONALIZATION_COLUMNS),
        headers=PERSONALIZATION_COLUMNS,
        datatype=["str"] * 4,
        column_count=(4, "fixed"),
        column_widths=["40%", "12%", "24%", "24%"],
        max_height=1000,
        interactive=True,
        wrap=True,
        elem_id="inputs",
        label="Summaries",
    )
    button = gr.Button("Compute", variant="primary")
    result_text = gr.Markdown(elem_id="result")
    breakdown = gr.Dataframe(
        label="Per document (mean over its readers)", interactive=False, wrap=True, elem_id="breakdown"
    )
    figure = gr.Plot(label="Per-document DEGRESS and PerSEval")
    numbers = gr.JSON(label="Scores (as returned by the metric)")
    with gr.Accordion("Metric card", open=False):
        gr.Markdown(card_markdown(__file__))
    button.click(
        score,
        [table, distance, beta, alpha, gamma],
        [numbers, result_text, breakdown, figure],
        api_name="score",
    )

if __name__ == "__main__":
    demo.launch()
