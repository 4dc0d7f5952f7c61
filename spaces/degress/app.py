"""Gradio Space for ``degress``: responsiveness of a personalized summarizer (DEGRESS, EGISES, P-Accuracy)."""

from __future__ import annotations

import gradio as gr
import pandas as pd

from persona_metrics.app_support import (
    PERSONALIZATION_HOWTO,
    format_score,
    formatted_table,
    load_metric,
    option_dropdown,
    option_slider,
    personalization_figure,
    personalization_table,
    results_section,
    score_personalization_table,
    user_errors,
)
from persona_metrics.distances import DISTANCES
from persona_metrics.personalization import DistanceChoice, PersevalParams

metric = load_metric(__file__, "degress")


@user_errors
def score(
    table: pd.DataFrame, distance: str, p_acc_alpha: float, p_acc_beta: float
) -> tuple[dict, str, pd.DataFrame, object]:
    """DEGRESS, EGISES and P-Accuracy of the table's summaries (one row per document and user)."""
    out, breakdown = score_personalization_table(
        metric, table, ("degress",), distance=distance, p_acc_alpha=p_acc_alpha, p_acc_beta=p_acc_beta
    )
    summary = (
        f"### DEGRESS {format_score(out['degress'])} · EGISES {format_score(out['egises'])} · "
        f"P-Accuracy {format_score(out['p_accuracy'])}\n"
        "DEGRESS (0–1, higher is better) measures whether the summaries for different readers of one document "
        "differ as much as the readers' own summaries do; EGISES = 1 − DEGRESS. P-Accuracy (eq. 3) combines "
        f"accuracy (1 − the mean {distance} distance to each reader's summary, "
        f"{format_score(out['accuracy_distance'])}) with "
        f"EGISES. {out['num_documents']} document(s) scored, {out['num_excluded_documents']} excluded (one "
        "reference). Accuracy is not in DEGRESS: see PerSEval for the penalised score."
    )
    figure = personalization_figure(breakdown, ("degress",))
    return out, summary, formatted_table(breakdown), figure


with gr.Blocks(title="DEGRESS") as demo:
    gr.Markdown("# DEGRESS: does the summarizer respond to its readers?\n" + PERSONALIZATION_HOWTO)
    with gr.Row():
        distance = option_dropdown(DistanceChoice, "distance", list(DISTANCES))
        p_acc_alpha = option_slider(PersevalParams, "p_acc_alpha")
        p_acc_beta = option_slider(PersevalParams, "p_acc_beta")
    table = personalization_table()
    results_section(
        __file__,
        score,
        [table, distance, p_acc_alpha, p_acc_beta],
        "Per document (mean over its readers)",
        "Per-document DEGRESS",
    )

if __name__ == "__main__":
    demo.launch()
