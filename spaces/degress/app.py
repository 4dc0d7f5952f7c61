"""Gradio Space for ``degress``: responsiveness of a personalized summarizer (DEGRESS, EGISES, P-Accuracy)."""

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
from persona_metrics.personalization import DEFAULT_P_ACC_ALPHA, DEFAULT_P_ACC_BETA

metric = load_metric(__file__, "degress")


@user_errors
def score(
    table: pd.DataFrame, distance: str, p_acc_alpha: float, p_acc_beta: float
) -> tuple[dict, str, pd.DataFrame, object]:
    """DEGRESS, EGISES and P-Accuracy of the table's summaries (one row per document and user)."""
    cols = table_columns(table, PERSONALIZATION_COLUMNS, allow_blank=("prediction",))
    out = metric.compute(
        predictions=cols["prediction"],
        references=cols["reference"],
        documents=cols["document"],
        distance=distance,
        p_acc_alpha=p_acc_alpha,
        p_acc_beta=p_acc_beta,
        return_per_summary=True,
    )
    per_summary = out.pop("per_summary")
    summary = (
        f"### DEGRESS {out['degress']:.4f} · EGISES {out['egises']:.4f} · P-Accuracy {out['p_accuracy']:.4f}\n"
        "DEGRESS (0–1, higher is better) measures whether the summaries for different readers of one document "
        "differ as much as the readers' own summaries do; EGISES = 1 − DEGRESS. P-Accuracy (eq. 3) combines "
        f"accuracy (1 − mean {distance} distance to each reader's summary = {1 - out['accuracy_distance']:.3f}) "
        f"with EGISES. {out['num_documents']} document(s) scored, {out['num_excluded_documents']} excluded (one "
        "reference). Accuracy is not in DEGRESS: see PerSEval for the penalised score."
    )
    breakdown = personalization_breakdown(cols, per_summary)
    figure = personalization_figure(breakdown, ("degress",))
    return out, summary, breakdown, figure


with gr.Blocks(title="DEGRESS") as demo:
    gr.Markdown(
        "# DEGRESS: does the summarizer respond to its readers?\nOne row per (document, reader): the document, "
        "the reader's id, the reader's own reference summary and the model's summary for that reader. Documents "
        "with equal text form one group; each needs at least two readers. Edit a cell and press **Compute**."
    )
    with gr.Row():
        distance = gr.Dropdown(list(DISTANCES), value=DEFAULT_DISTANCE, label="Distance σ")
        p_acc_alpha = gr.Slider(0.0, 2.0, value=DEFAULT_P_ACC_ALPHA, step=0.05, label="P-Acc α (eq. 3)")
        p_acc_beta = gr.Slider(0.1, 5.0, value=DEFAULT_P_ACC_BETA, step=0.1, label="P-Acc β (eq. 3)")
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
    figure = gr.Plot(label="Per-document DEGRESS")
    numbers = gr.JSON(label="Scores (as returned by the metric)")
    with gr.Accordion("Metric card", open=False):
        gr.Markdown(card_markdown(__file__))
    button.click(
        score,
        [table, distance, p_acc_alpha, p_acc_beta],
        [numbers, result_text, breakdown, figure],
        api_name="score",
    )

if __name__ == "__main__":
    demo.launch()
