"""Gradio Space for ``perseval``: degree of personalization (DEGRESS penalised for accuracy drop and inconsistency)."""

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

metric = load_metric(__file__, "perseval")

SCORES = ("degress", "perseval", "edp")


@user_errors
def score(
    table: pd.DataFrame, distance: str, beta: float, alpha: float, gamma: float
) -> tuple[dict, str, pd.DataFrame, object]:
    """PerSEval of the table's summaries (one row per document and user)."""
    out, breakdown = score_personalization_table(
        metric, table, SCORES, distance=distance, beta=beta, alpha=alpha, gamma=gamma
    )
    summary = (
        f"### PerSEval {format_score(out['perseval'])} · DEGRESS {format_score(out['degress'])} · "
        f"EDP {format_score(out['edp'])}\n"
        f"DEGRESS (0–1, higher is better) measures how far the summaries follow their readers' differences; "
        f"PerSEval = DEGRESS × EDP, where EDP (≤ 1) penalises an accuracy drop against each reader's own "
        f"summary (mean distance {format_score(out['accuracy_distance'])}, {distance}) and its inconsistency across "
        "readers. "
        f"A PerSEval far below DEGRESS means a responsive but inaccurate model. "
        f"{out['num_documents']} document(s) scored, {out['num_excluded_documents']} excluded (one reference)."
    )
    figure = personalization_figure(breakdown, SCORES[:2], log=True)  # PerSEval spans orders of magnitude
    return out, summary, formatted_table(breakdown), figure


with gr.Blocks(title="PerSEval") as demo:
    gr.Markdown("# PerSEval: how personalized are the summaries?\n" + PERSONALIZATION_HOWTO)
    with gr.Row():
        distance = option_dropdown(DistanceChoice, "distance", list(DISTANCES))
        beta = option_slider(PersevalParams, "beta")
    with gr.Accordion("More PerSEval parameters", open=False), gr.Row():
        alpha = option_slider(PersevalParams, "alpha")
        gamma = option_slider(PersevalParams, "gamma")
    table = personalization_table()
    results_section(
        __file__,
        score,
        [table, distance, beta, alpha, gamma],
        "Per document (mean over its readers)",
        "Per-document DEGRESS and PerSEval",
    )

if __name__ == "__main__":
    demo.launch()
