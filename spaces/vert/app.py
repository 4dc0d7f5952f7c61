"""Gradio Space for ``vert``: VERT of generated texts against references, with each pair's word alignment."""

from __future__ import annotations

import gradio as gr
import pandas as pd

from persona_metrics.app_support import (
    format_score,
    formatted_table,
    input_table,
    load_metric,
    option_dropdown,
    option_slider,
    results_section,
    short,
    table_columns,
    user_errors,
    word_alignment_figure,
)
from persona_metrics.vert import ENCODER_NAMES
from persona_metrics.vert.params import VertParams

metric = load_metric(__file__, "vert")

COLUMNS = ["prediction", "reference"]
_TARGET = "Endeavour astronauts join two segments of International Space Station"
#: The original authors' three examples (an acceptable paraphrase, a wrong one, the identical sentence), a looser
#: paraphrase, an unrelated sentence and a number swap (what ``meaning_sensitive`` is for).
EXAMPLE = [
    ["Endeavour astronauts join two sections of International Space Station", _TARGET],
    ["Endeavour astronauts remove two segments of International Space Station", _TARGET],
    [_TARGET, _TARGET],
    ["Space shuttle crew connects two parts of the orbiting station", _TARGET],
    ["Oil prices fell as traders worried about weak demand in China", _TARGET],
    # The same words, another meaning: the original scores it 1; meaning_sensitive does not.
    [
        "The airline ordered 30 new jets with options for 20 more",
        "The airline ordered 20 new jets with options for 30 more",
    ],
]
#: Pairs whose word alignment is drawn.
PICTURED = 4

WMD_TEXT = {
    False: "stopwords and unknown words dropped",
    True: "meaning-sensitive: negations, numbers, unknown words, opposites and names' roles count",
}
ENCODER_TEXT = {
    "wordllama": "WordLlama l2_supercat_256 (default; closest to the original InferSent cosines)",
    "minilm": "all-MiniLM-L6-v2 (packaged; a stronger general encoder on a different cosine scale)",
}


@user_errors
def score(
    table: pd.DataFrame, encoder: str, alpha: float, meaning_sensitive: bool
) -> tuple[dict, str, pd.DataFrame, object]:
    """VERT of every (prediction, reference) row, with ``encoder`` for the similarity, ``alpha`` and the WMD."""
    columns = table_columns(table, COLUMNS, allow_blank=("prediction",))
    out = metric.compute(
        predictions=columns["prediction"],
        references=columns["reference"],
        encoder=encoder,
        alpha=alpha,
        meaning_sensitive=meaning_sensitive,
        return_per_item=True,
        return_alignment=True,
    )
    per = out["per_item"]
    summary = (
        f"### VERT: {format_score(out['vert'])} (mean over {len(per['vert'])} pairs)\n"
        f"VERT = ½ · (1 + sim − min(WMD, {VertParams.default('max_wmd'):g}) / α) with α = {alpha:g}; mean sim "
        f"{format_score(out['sim'])} (cosine, {ENCODER_TEXT[encoder]}), mean WMD {format_score(out['wmd'])} "
        f"(word mover's distance on GloVe 6B 50d, {WMD_TEXT[meaning_sensitive]}, capped). 1 = identical; higher is "
        "better."
    )
    breakdown = pd.DataFrame(
        {
            "pair": list(range(1, len(per["vert"]) + 1)),
            "prediction": [short(p) for p in columns["prediction"]],
            "reference": [short(r) for r in columns["reference"]],
            "sim": per["sim"],
            "WMD": per["wmd"],
            "VERT": per["vert"],
        }
    )
    shown = out["alignment"][:PICTURED]
    figure = word_alignment_figure(shown, [f"pair {i + 1}" for i in range(len(shown))])
    numbers = {"vert": out["vert"], "sim": out["sim"], "wmd": out["wmd"], "scores": per}
    return numbers, summary, formatted_table(breakdown), figure


with gr.Blocks(title="VERT") as demo:
    gr.Markdown(
        "# VERT: Versatile Evaluation of Reduced Texts\nHow close is each generated text to its reference, by "
        "sentence-embedding similarity and word mover's distance? Edit the pairs (one per row; an empty "
        "prediction is allowed), choose the encoder and press **Compute**."
    )
    with gr.Row():
        encoder = option_dropdown(VertParams, "encoder", list(ENCODER_NAMES))
        alpha = option_slider(VertParams, "alpha")
        meaning = gr.Checkbox(
            value=VertParams.default("meaning_sensitive"),
            label="meaning_sensitive",
            info=VertParams.spec("meaning_sensitive").help,
        )
    table = input_table(EXAMPLE, COLUMNS, "Pairs", column_widths=["50%", "50%"])
    results_section(
        __file__,
        score,
        [table, encoder, alpha, meaning],
        "Per pair",
        f"Word alignment: the WMD's transport plan (first {PICTURED} pairs; width = mass moved)",
    )

if __name__ == "__main__":
    demo.launch()
