"""The ``fidelity`` style method on its development texts: held-out checks of the design, not a measurement.

Development texts (``persona/register/``, provenance in its README): the summary-length texts (20 stories, each
told in the three registers twice, 30–80 words), the register texts, the persona samples, the background texts (12
registers that are none of the personas') and the persona-quality triples with hard wrong-content negatives. Every
figure is of texts left out of the fit:

* **summaries, story by story**: the model fitted without one story's six summaries scores them against every
  persona: nearest-persona recognition and own-persona ranking per persona and genre, score quantiles;
* **background**: one register left out at a time (a register the model has never seen) and the texts left out in
  10 folds (registers seen): for every persona, the highest score against the 10th percentile of its own summaries,
  the AUC own summaries vs background, how many background texts reach that percentile;
* **length**: every persona text and excerpt left out in 10 folds: recognition and score quantiles per word band,
  and the distributions the bands (``FIDELITY_BANDS``) are read from;
* **persona_quality**: triples built from the summaries (reference A, good B, wrong register, another story) and
  the hard-negative triples, with jsd, posterior and fidelity: good > wrong register, wrong register > wrong
  content, both, and the mean |0.3 Δstyle| against |0.7 Δcontent|.

The validity suite (``persona-metrics validity``) measures the method on cases written blind to all of this.

    python scripts/style_fidelity_dev.py [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from persona_metrics.persona.content import score_content
from persona_metrics.persona.fidelity import FidelityModel, fit_fidelity
from persona_metrics.persona.formulas import BACKGROUND_PREFIX, fidelity_rows, sample_rows
from persona_metrics.persona.quality import combine_quality, score_quality
from persona_metrics.persona.samples import (
    SUMMARY_TEXTS_FILE,
    load_persona_samples,
    register_rows,
    shipped_background_texts,
    shipped_fidelity_texts,
)
from persona_metrics.persona.style import score_style

Row = tuple[np.ndarray, int, str]
METHODS = ("jsd", "posterior", "fidelity")


def pairs_above(own: Sequence[float], other: Sequence[float], ties: float = 0.0) -> float:
    """Share of pairs (own, other) with own > other, a tie counting ``ties``."""
    a, b = np.asarray(own)[:, None], np.asarray(other)[None, :]
    return float(np.mean((a > b) + ties * (a == b)))


@dataclass
class Dev:
    """The development rows, ready to fit on."""

    personas: tuple[str, ...]
    base: dict[str, list[Row]]  # the samples and their excerpts
    extra: dict[str, list[Row]]  # register and summary-length texts and their excerpts
    background: dict[str, list[Row]]  # per background text id
    registers: dict[str, str]  # background text id -> register
    summaries: list[dict[str, str]]

    def fit(
        self, drop_ids: frozenset[str] = frozenset(), drop_register: str = "", drop_bg: frozenset[str] = frozenset()
    ) -> FidelityModel:
        texts = {p: self.base[p] + [r for r in self.extra.get(p, []) if r[2] not in drop_ids] for p in self.personas}
        grouped: dict[str, list[Row]] = defaultdict(list)
        for i, rows in self.background.items():
            if self.registers[i] != drop_register and i not in drop_bg:
                grouped[BACKGROUND_PREFIX + self.registers[i]] += rows
        return fit_fidelity(texts, dict(grouped))


def load() -> Dev:
    samples = load_persona_samples()
    background = shipped_background_texts()
    return Dev(
        tuple(samples),
        {p: sample_rows(p, ts) for p, ts in samples.items()},
        {p: fidelity_rows(list(rows), p) for p, rows in shipped_fidelity_texts().items()},
        {i: fidelity_rows([(t, i)], "background") for texts in background.values() for t, i in texts},
        {i: name for name, texts in background.items() for _, i in texts},
        list(register_rows(SUMMARY_TEXTS_FILE)),
    )


def score_one(model: FidelityModel, row: Row) -> np.ndarray:
    return model.fidelity(row[0][None, :], np.array([row[1]]))[0]


def summaries_by_story(dev: Dev) -> tuple[dict[str, np.ndarray], list[tuple]]:
    scores: dict[str, np.ndarray] = {}
    for story in sorted({row["story"] for row in dev.summaries}):
        held = [row for row in dev.summaries if row["story"] == story]
        model = dev.fit(drop_ids=frozenset(row["id"] for row in held))
        for row in held:
            scores[row["id"]] = score_one(model, fidelity_rows([(row["text"], story)], "summary")[0])
    table = []
    print(
        "summaries left out story by story: genre, persona, recognition, own-persona ranking, own q10/q50, "
        "others q50/q90"
    )
    for genre in ("in", "cross"):
        rows = [r for r in dev.summaries if r["genre"] == genre]
        for k, p in enumerate(dev.personas):
            own = [scores[r["id"]][k] for r in rows if r["persona"] == p]
            other = [scores[r["id"]][k] for r in rows if r["persona"] != p]
            hits = [dev.personas[int(np.argmax(scores[r["id"]]))] == p for r in rows if r["persona"] == p]
            line = (
                genre,
                p,
                float(np.mean(hits)),
                pairs_above(own, other),
                np.quantile(own, [0.1, 0.5]).round(3).tolist(),
                np.quantile(other, [0.5, 0.9]).round(3).tolist(),
            )
            table.append(line)
            print("  ", *line)
    return scores, table


def background_tables(dev: Dev, own_summary: Mapping[str, list[float]]) -> dict[str, list[tuple]]:
    unseen: dict[str, list[tuple[np.ndarray, str]]] = {"unseen": [], "seen": []}
    for register in sorted(set(dev.registers.values())):
        model = dev.fit(drop_register=register)
        unseen["unseen"] += [
            (score_one(model, dev.background[i][0]), register) for i, r in dev.registers.items() if r == register
        ]
    ids = sorted(dev.background)
    for fold in range(10):
        held = frozenset(i for j, i in enumerate(ids) if j % 10 == fold)
        model = dev.fit(drop_bg=held)
        unseen["seen"] += [(score_one(model, dev.background[i][0]), dev.registers[i]) for i in held]
    out: dict[str, list[tuple]] = {}
    for kind, scored in unseen.items():
        print(f"background ({kind} registers): persona, own q10, max (register), AUC own > background, at or above q10")
        out[kind] = []
        for k, p in enumerate(dev.personas):
            q10 = float(np.quantile(own_summary[p], 0.1))
            values = sorted(((float(v[k]), reg) for v, reg in scored), reverse=True)
            line = (
                p,
                round(q10, 3),
                round(values[0][0], 3),
                values[0][1],
                round(pairs_above(own_summary[p], [v for v, _ in values], 0.5), 4),
                sum(v >= q10 for v, _ in values),
            )
            out[kind].append(line)
            print("  ", *line)
    return out


def length_tables(dev: Dev) -> dict[str, Any]:
    groups = sorted({r[2] for p in dev.personas for r in dev.base[p] + dev.extra.get(p, [])})
    fold_of = {g: i % 10 for i, g in enumerate(groups)}
    held: list[tuple[int, int, np.ndarray]] = []  # persona, words, scores
    for fold in range(10):
        dropped = frozenset(g for g in groups if fold_of[g] == fold)
        texts = {p: [r for r in dev.base[p] + dev.extra.get(p, []) if r[2] not in dropped] for p in dev.personas}
        model = fit_fidelity(texts, {BACKGROUND_PREFIX + k: v for k, v in _by_register(dev).items()})
        for k, p in enumerate(dev.personas):
            rows = [r for r in dev.base[p] + dev.extra.get(p, []) if r[2] in dropped]
            if rows:
                values = model.fidelity(np.array([r[0] for r in rows]), np.array([r[1] for r in rows]))
                held += [(k, r[1], v) for r, v in zip(rows, values, strict=True)]
    print("length (texts and excerpts left out in 10 folds): persona, words, n, recognition, own q10/q50, others q50")
    table = []
    for k, p in enumerate(dev.personas):
        for lo, hi in ((0, 45), (45, 80), (80, 140), (140, 10_000)):
            own = [v for j, w, v in held if j == k and lo <= w < hi]
            other = [v[k] for j, w, v in held if j != k and lo <= w < hi]
            line = (
                p,
                f"{lo}-{hi}",
                len(own),
                round(float(np.mean([int(np.argmax(v)) == k for v in own])), 3),
                np.quantile([v[k] for v in own], [0.1, 0.5]).round(3).tolist(),
                round(float(np.median(other)), 3),
            )
            table.append(line)
            print("  ", *line)
    print("distributions the bands are read from: group, length, n, q10 / q25 / q50 / q75 / q90")
    distributions = {}
    for length, (lo, hi) in (("summary (< 80 words)", (0, 80)), ("full (>= 80 words)", (80, 10_000))):
        for group, keep in (("own register", np.equal), ("other persona", np.not_equal)):
            values = [float(v[k]) for j, w, v in held for k in range(len(dev.personas)) if keep(j, k) and lo <= w < hi]
            distributions[f"{group}|{length}"] = np.quantile(values, [0.1, 0.25, 0.5, 0.75, 0.9]).round(3).tolist()
            print("  ", group, length, len(values), distributions[f"{group}|{length}"])
    own = [float(v[j]) for j, _, v in held]
    distributions["own register, pooled"] = np.quantile(own, [0.1, 0.25, 0.5]).round(3).tolist()
    print("   own register, pooled: q10 / q25 / q50 =", distributions["own register, pooled"])
    return {"length": table, "distributions": distributions}


def _by_register(dev: Dev) -> dict[str, list[Row]]:
    grouped: dict[str, list[Row]] = defaultdict(list)
    for i, rows in dev.background.items():
        grouped[dev.registers[i]] += rows
    return dict(grouped)


def chain_lines(
    label: str,
    personas: Sequence[str],
    targets: Sequence[str],
    overall: np.ndarray,
    style: np.ndarray,
    content: np.ndarray,
) -> list[tuple]:
    """good > wrong register, wrong register > wrong content and both, per persona, and the mean term gaps."""
    o, s, c = (np.asarray(a).reshape(-1, 3) for a in (overall, style, content))
    lines = []
    for p in personas:
        idx = [i for i, t in enumerate(targets) if t == p]
        first, second = o[idx, 0] > o[idx, 1], o[idx, 1] > o[idx, 2]
        lines.append(
            (
                label,
                p,
                round(float(first.mean()), 3),
                round(float(second.mean()), 3),
                round(float((first & second).mean()), 3),
            )
        )
        print("  ", *lines[-1])
    print(
        f"     0.3|Δstyle| good-wr {0.3 * np.abs(s[:, 0] - s[:, 1]).mean():.3f}, 0.7|Δcontent| good-wr "
        f"{0.7 * np.abs(c[:, 0] - c[:, 1]).mean():.3f}, good-wc {0.7 * np.abs(c[:, 0] - c[:, 2]).mean():.3f}"
    )
    return lines


def summary_triples(dev: Dev, held_out: Mapping[str, np.ndarray]) -> list[tuple]:
    """Triples from the summaries; fidelity's style from the story-by-story fits (the others hold none of them)."""
    by = {(r["story"], r["persona"], r["version"]): r for r in dev.summaries}
    triples = []
    for genre in ("in", "cross"):
        names = sorted({r["story"] for r in dev.summaries if r["genre"] == genre})
        for j, story in enumerate(names):
            for p in dev.personas:
                for q in (q for q in dev.personas if q != p):
                    triples.append(
                        (
                            p,
                            by[story, p, "A"],
                            by[story, p, "B"],
                            by[story, q, "B"],
                            by[names[(j + 1) % len(names)], p, "B"],
                        )
                    )
    texts = [t[v]["text"] for t in triples for v in (2, 3, 4)]
    targets = [t[0] for t in triples for _ in range(3)]
    content = score_content(texts, [t[1]["text"] for t in triples for _ in range(3)])
    print("persona_quality triples from the summaries: method, persona, good>wr, wr>wc, both")
    lines = []
    for method in METHODS:
        if method == "fidelity":
            style = [held_out[t[v]["id"]][dev.personas.index(t[0])] for t in triples for v in (2, 3, 4)]
        else:
            style = score_style(texts, targets, method=method).scores.tolist()
        config = score_style(texts[:1], targets[:1], method=method).config
        overall = combine_quality(content, style, config, None).overall_quality
        lines += chain_lines(method, dev.personas, targets[::3], overall, np.array(style), content.content_quality)
    return lines


def hard_triples(personas: Sequence[str]) -> list[tuple]:
    rows = register_rows("quality_triples.jsonl")
    print("persona_quality hard-negative triples: method length, persona, good>wr, wr>wc, both")
    lines = []
    for method in METHODS:
        for length in ("summary", "full"):
            kept = [r for r in rows if r["length"] == length]
            texts = [r[v] for r in kept for v in ("good", "wrong_register", "wrong_content")]
            refs = [r["reference"] for r in kept for _ in range(3)]
            result = score_quality(texts, refs, [r["persona"] for r in kept for _ in range(3)], style_method=method)
            lines += chain_lines(
                f"{method} {length}",
                personas,
                [r["persona"] for r in kept],
                result.overall_quality,
                np.asarray(result.style_similarity),
                result.content.content_quality,
            )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args(argv)
    dev = load()
    scores, table = summaries_by_story(dev)
    own_summary = {
        p: [scores[r["id"]][k] for r in dev.summaries if r["persona"] == p] for k, p in enumerate(dev.personas)
    }
    out: dict[str, Any] = {"summaries": table, "background": background_tables(dev, own_summary)}
    out |= length_tables(dev)
    out["summary_triples"] = summary_triples(dev, scores)
    out["hard_triples"] = hard_triples(dev.personas)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
