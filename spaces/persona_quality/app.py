"""Gradio Space for ``persona_quality``: content quality against a reference plus style fidelity to a persona."""

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
from persona_metrics.persona.params import CONTENT_WEIGHTS_WITHOUT_BLEURT, OVERALL_WEIGHTS, QualityParams
from persona_metrics.persona.quality import QUALITY_BANDS, complementary_weights, quality_band
from persona_metrics.persona.samples import BUILTIN_PERSONAS

metric = load_metric(__file__, "persona_quality")

COLUMNS = ["prediction", "reference"]
_REFERENCE = (
    "Harbor Foods raised its annual sales forecast on Tuesday after a strong summer and said it would open two "
    "new stores in Portland next year. Shares of the grocer rose 4%."
)
EXAMPLE = [
    [
        "Harbor Foods lifted its sales forecast for the year after a busy summer, the grocer said on Tuesday. It "
        "plans two new Portland stores next year. Its shares gained 4%.",
        _REFERENCE,
    ],
    [
        "We view Harbor Foods' upward revision to full-year sales guidance, together with the planned expansion "
        "of its Portland footprint, as consistent with our constructive thesis on the regional grocery sector.",
        _REFERENCE,
    ],
    ["Wow, Harbor Foods is on fire! More stores! Buy now?", _REFERENCE],
]


@user_errors
def score(
    table: pd.DataFrame, persona: str, content_weight: float, rouge_share: float, style_method: str
) -> tuple[dict, str, pd.DataFrame, object]:
    """Persona quality of every (prediction, reference) row for ``persona`` with the chosen weights and style."""
    cols = table_columns(table, COLUMNS)
    overall_weights = complementary_weights(content_weight, ("content", "style"))
    content_weights = complementary_weights(rouge_share, ("rougeLsum", "bertscore"))
    out = metric.compute(
        predictions=cols["prediction"],
        references=cols["reference"],
        personas=[persona] * len(cols["prediction"]),
        overall_weights=overall_weights,
        content_weights=content_weights,
        style_method=style_method,
        return_per_item=True,
    )
    per_item = out.pop("per_item")
    bands = per_item.pop("band")
    overall = out["overall_quality"]
    summary = (
        f"### Overall persona quality for **{persona}**: {format_score(overall)} ({quality_band(overall)})\n"
        f"{overall_weights['content']:.2f} × content {format_score(out['content_quality'])} + "
        f"{overall_weights['style']:.2f} × style {format_score(out['style_similarity'])} ({style_method}). "
        f"Content = {content_weights['rougeLsum']:.2f} × ROUGE-Lsum + "
        f"{content_weights['bertscore']:.2f} × BERTScore F1 (packaged all-MiniLM-L6-v2, baseline-rescaled). Bands: "
        + ", ".join(f"{label} ≥ {bound:.2f}" for bound, label in QUALITY_BANDS if bound > 0)
        + "."
    )
    breakdown = pd.DataFrame({"summary": [short(p) for p in cols["prediction"]]})
    for name, values in per_item.items():
        breakdown[name] = values
    breakdown["band"] = bands
    labels = [f"summary {i + 1}" for i in range(len(cols["prediction"]))]
    figure = grouped_bars(labels, per_item, "score")
    return out, summary, formatted_table(breakdown), figure


with gr.Blocks(title="Persona quality") as demo:
    gr.Markdown(
        "# Persona quality\nIs the summary right (content against the reference) and written for its reader "
        "(style against the persona)? Edit the rows, choose the persona and the weights, press **Compute**."
    )
    with gr.Row():
        persona = gr.Dropdown(list(BUILTIN_PERSONAS), value="journalist", label="Target persona")
        content_weight = gr.Slider(
            0,
            1,
            value=OVERALL_WEIGHTS["content"],
            step=0.05,
            label="Content weight (style = 1 − content)",
            info=QualityParams.spec("overall_weights").help,
        )
        rouge_share = gr.Slider(
            0,
            1,
            value=CONTENT_WEIGHTS_WITHOUT_BLEURT["rougeLsum"],
            step=0.05,
            label="ROUGE-Lsum share of content (BERTScore = 1 − share)",
            info=QualityParams.spec("content_weights").help,
        )
        style_method = option_dropdown(QualityParams, "style_method")
    table = input_table(EXAMPLE, COLUMNS, "Summaries and their references", column_widths=["50%", "50%"])
    results_section(
        __file__,
        score,
        [table, persona, content_weight, rouge_share, style_method],
        "Per summary",
        "Score components per summary",
    )

if __name__ == "__main__":
    demo.launch()
