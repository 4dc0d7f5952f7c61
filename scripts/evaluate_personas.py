"""How well the persona centroids recognise texts they were not built from, and how the samples measure up.

Prints, as markdown tables:

1. the mean raw features of the persona samples next to the ranges the methodology states
   (``persona_metrics.persona.recognition.METHODOLOGY_RANGES``), each marked ✓ (in range) or ✗ (outside it), with
   a line under the table that says so;
2. for each similarity method: nearest-centroid accuracy on the held-out texts, the confusion matrix, the
   mean similarity of each persona's held-out texts to every centroid, and the mean margin (own centroid minus
   the best other one).

The held-out texts are never used to build centroids or spreads
(``persona_metrics.persona.recognition.evaluate_personas``).

    python scripts/evaluate_personas.py                          # shipped samples vs data/persona_heldout
    python scripts/evaluate_personas.py --samples DIR --heldout DIR --method jsd --json out.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from persona_metrics.persona.formulas import STYLE_METHODS
from persona_metrics.persona.recognition import (
    METHODOLOGY_RANGES,
    PersonaEvaluation,
    evaluate_personas,
    sample_feature_means,
)
from persona_metrics.persona.samples import load_persona_samples
from persona_metrics.persona.stylometry import STYLE_FEATURES

DEFAULT_HELDOUT = Path(__file__).resolve().parent.parent / "data" / "persona_heldout"


def _range_text(bounds: tuple[float | None, float | None]) -> str:
    low, high = bounds
    if high is None:
        return f"≥ {low:g}"
    return f"{low:g}" if low == high else f"{low:g}–{high:g}"


def _in_range(value: float, bounds: tuple[float | None, float | None]) -> bool:
    low, high = bounds
    return (low is None or value >= low - 1e-12) and (high is None or value <= high + 1e-12)


#: What the marks of :func:`features_table` mean, printed under it.
RANGE_LEGEND = (
    "✓: the samples' mean lies in the range the methodology states for that persona and feature; ✗: it lies "
    "outside that range; no mark: the methodology states no range there."
)


def features_table(samples: dict[str, list[str]]) -> str:
    """Mean raw features per persona, with the methodology's range where it states one, then :data:`RANGE_LEGEND`."""
    means = sample_feature_means(samples)
    personas = list(means)
    lines = ["| feature | " + " | ".join(personas) + " |", "|---|" + "---|" * len(personas)]
    for feature in STYLE_FEATURES:
        cells = []
        for persona in personas:
            value = means[persona][feature]
            bounds = METHODOLOGY_RANGES.get(persona, {}).get(feature)
            mark = "" if bounds is None else f" ({_range_text(bounds)} {'✓' if _in_range(value, bounds) else '✗'})"
            cells.append(f"{value:.3f}{mark}")
        lines.append(f"| {feature} | " + " | ".join(cells) + " |")
    return "\n".join([*lines, "", RANGE_LEGEND])


def evaluation_tables(result: PersonaEvaluation) -> str:
    """Accuracy, confusion, mean similarity and margin of one method as markdown."""
    acc = result.per_persona_accuracy
    head = "| true \\ centroid | " + " | ".join(result.centroids) + " |"
    rule = "|---|" + "---|" * len(result.centroids)
    confusion = [head, rule] + [
        f"| {p} | " + " | ".join(str(int(n)) for n in row) + " |"
        for p, row in zip(result.personas, result.confusion, strict=True)
    ]
    similarity = [head + " margin |", rule + "---|"] + [
        f"| {p} | " + " | ".join(f"{v:.3f}" for v in row) + f" | {m:+.3f} |"
        for p, row, m in zip(result.personas, result.similarity, result.margin, strict=True)
    ]
    per = ", ".join(f"{p} {acc[p]:.0%} ({result.counts[p]} texts)" for p in result.personas)
    return "\n".join(
        [
            f"### method `{result.method}`: accuracy {result.accuracy:.1%} ({per})",
            "",
            "Confusion (rows: true persona, columns: nearest centroid):",
            "",
            *confusion,
            "",
            "Mean similarity to each centroid, and mean margin (own − best other):",
            "",
            *similarity,
        ]
    )


def main(argv: list[str] | None = None) -> int:
    """Print the feature table and the held-out evaluation of each method; optionally write JSON."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=Path, default=None, help="persona sample folder (default: shipped)")
    parser.add_argument("--heldout", type=Path, default=DEFAULT_HELDOUT, help="held-out {persona}.txt folder")
    parser.add_argument("--method", nargs="+", choices=STYLE_METHODS, default=list(STYLE_METHODS))
    parser.add_argument("--json", type=Path, default=None, help="also write the numbers as JSON here")
    parser.add_argument("--plot", type=Path, default=None, help="also draw the similarity tables as a PNG here")
    args = parser.parse_args(argv)
    try:
        samples = load_persona_samples(args.samples)
        heldout = load_persona_samples(args.heldout)
        results = [evaluate_personas(samples, heldout, method=m) for m in args.method]
    except (FileNotFoundError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    counts = ", ".join(f"{p} {len(t)}" for p, t in samples.items())
    print(f"## Persona samples ({counts} texts): mean raw features (methodology range, ✓/✗)\n")
    print(features_table(samples))
    held = ", ".join(f"{p} {len(t)}" for p, t in heldout.items())
    print(f"\n## Held-out texts ({held}) from {args.heldout}\n")
    for result in results:
        print(evaluation_tables(result) + "\n")
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps([r.as_dict() for r in results], indent=1), encoding="utf-8")
    if args.plot is not None:
        plot(results, args.plot)
    return 0


def plot(results: list[PersonaEvaluation], path: Path) -> None:
    """One heat map per method: mean similarity of each persona's held-out texts (rows) to each centroid."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(results), figsize=(4.2 * len(results) + 2.2, 4.4), squeeze=False, sharey=True)
    for ax, result in zip(axes[0], results, strict=True):
        image = ax.imshow(result.similarity, cmap="viridis", vmin=0.0, vmax=1.0)
        ax.set_xticks(range(len(result.centroids)), result.centroids, rotation=20)
        ax.set_yticks(range(len(result.personas)), result.personas)
        ax.set_xlabel("centroid")
        for i, persona in enumerate(result.personas):
            for j, centroid in enumerate(result.centroids):
                value = result.similarity[i, j]
                weight = "bold" if persona == centroid else "normal"
                color = "black" if value > 0.6 else "white"
                ax.text(j, i, f"{value:.3f}", ha="center", va="center", color=color, fontweight=weight)
        ax.set_title(f"method {result.method}: accuracy {result.accuracy:.0%}")
    axes[0][0].set_ylabel("held-out texts written as")
    fig.colorbar(image, ax=axes[0].tolist(), shrink=0.8, label="mean style similarity (bold: own persona)")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
