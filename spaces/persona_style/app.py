"""Gradio Space for ``persona_style``: how closely summaries match a writing persona's style."""

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
from persona_metrics.persona.formulas import BANDS, style_band
from persona_metrics.persona.params import StyleParams
from persona_metrics.persona.samples import BUILTIN_PERSONAS

metric = load_metric(__file__, "persona_style")

COLUMNS = ["prediction"]
EXAMPLE = [
    [
        "We maintain our Neutral rating on Northgate Bank following third-quarter results that, in our view, "
        "reflect a wider net interest margin of 3.1% and disciplined cost control, partially offset by higher "
        "credit provisions. Management reiterated full-year guidance, which we consider achievable, and we "
        "accordingly leave our price target unchanged at $48."
    ],
    [
        "Northgate Bank said on Thursday that quarterly profit rose 6%, helped by higher interest rates. Net "
        "income reached $412 million. Chief executive Maria Lopez warned that loan losses could rise next year. "
        "Shares fell 2% in early trading."
    ],
    ["Northgate crushed it! Profits up again and the bank says there's more to come. Who's buying?"],
]


METHOD_TEXT = {
    "jsd": "1 − Jensen-Shannon divergence between the summary's 10 stylometric features and the persona's centroid "
    "(the methodology)",
    "zscore": "mean over the 10 features of exp(−z²/2), z = the summary's distance from the persona's centroid in "
    "standard deviations of the pooled persona samples (this project's extension; spreads scores over [0, 1])",
    "posterior": "the probability of the persona among all personas, from a logistic regression on the 10 features "
    "and 7 register markers fitted on their samples (and the shipped register texts) (this project's extension: how "
    "strongly the summary reads as this persona rather than the others; the bands do not apply)",
    "fidelity": "the share of texts of the summary's length, half the persona's own and half in 12 registers that are "
    "none of the personas', that read less like the persona (this project's: graded, open-set, length-aware; "
    "above 0.5 the summary reads more like the persona than other registers do)",
}


@user_errors
def score(table: pd.DataFrame, persona: str, method: str) -> tuple[dict, str, pd.DataFrame, object]:
    """Style similarity of every summary in the table to ``persona``, by ``method``."""
    predictions = table_columns(table, COLUMNS)["prediction"]
    out = metric.compute(
        predictions=predictions,
        personas=[persona] * len(predictions),
        method=method,
        return_features=True,
        return_nearest=True,
    )
    mean = out["style_similarity"]
    summary = (
        f"### Style similarity to **{persona}**: {format_score(mean)} ({style_band(mean, method)})\n"
        f"{METHOD_TEXT[method]}; bands: "
        + ", ".join(f"{label} ≥ {bound:.2f}" for bound, label in BANDS[method] if bound > 0)
        + "."
    )
    breakdown = pd.DataFrame(
        {
            "summary": [short(p) for p in predictions],
            "style_similarity": out["scores"],
            "band": out["bands"],
            "nearest_persona": out["nearest_persona"],
        }
    )
    features = out["features"]
    series = {f"{persona} centroid": [c for _, c in features[0].values()]}
    series.update({f"summary {i + 1}": [v for v, _ in item.values()] for i, item in enumerate(features[:4])})
    figure = grouped_bars(list(features[0]), series, "feature value (normalised units)")
    numbers = {"style_similarity": mean, "scores": out["scores"]}
    return numbers, summary, formatted_table(breakdown), figure


with gr.Blocks(title="Persona style fidelity") as demo:
    gr.Markdown(
        "# Persona style fidelity\nHow closely does each summary read like the chosen persona? "
        "Edit the summaries (one per row), pick a persona and press **Compute**."
    )
    with gr.Row():
        persona = gr.Dropdown(list(BUILTIN_PERSONAS), value="formal_analyst", label="Target persona")
        method = option_dropdown(StyleParams, "method")
    table = input_table(EXAMPLE, COLUMNS, "Summaries")
    results_section(
        __file__,
        score,
        [table, persona, method],
        "Per summary",
        "Style features against the persona centroid (first four summaries)",
    )

if __name__ == "__main__":
    demo.launch()
