"""The ``fidelity`` style method on its development texts: held-out checks of the design, not a measurement.

Development texts (``persona/register/``): the summary-length texts (20 stories, each told in the three registers
twice, 30–80 words), the register texts, the persona samples and the background texts (12 registers that are none
of the personas'). Every figure here is of texts left out of the fit:

* **summaries, story by story**: the model fitted without one story's six summaries scores them against every
  persona: nearest-persona recognition and own-persona ranking per persona and genre, and the score quantiles;
* **background, register by register**: the model fitted without one background register (all 12 of its texts)
  scores them: for every persona, the highest such score against the 10th percentile of its own summaries, and
  the AUC own-summaries vs unseen-register texts;
* **length**: the own-persona score quantiles of the summaries (30–80 words) and of the samples' excerpts and
  full texts (each sample left out with its excerpts by the same folds as the calibration).

The validity suite (``persona-metrics validity``) measures the method on cases written blind to all of this.

    python scripts/style_fidelity_dev.py [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from typing import Any

import numpy as np

from persona_metrics.persona.fidelity import fit_fidelity
from persona_metrics.persona.formulas import fidelity_rows
from persona_metrics.persona.samples import (
    SUMMARY_TEXTS_FILE,
    _register_rows,
    load_persona_samples,
    shipped_background_texts,
    shipped_fidelity_texts,
)

Row = tuple[np.ndarray, int, str]


def auc(own: list[float], other: list[float]) -> float:
    """P(own > other) + ½ P(tie) over all pairs."""
    a, b = np.asarray(own)[:, None], np.asarray(other)[None, :]
    return float(np.mean((a > b) + 0.5 * (a == b)))


def rank(own: list[float], other: list[float]) -> float:
    """Strict share of pairs where own > other (ties fail, as in the validity suite)."""
    a, b = np.asarray(own)[:, None], np.asarray(other)[None, :]
    return float(np.mean(a > b))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args(argv)
    samples = load_persona_samples()
    personas = tuple(samples)
    base: dict[str, list[Row]] = {
        p: fidelity_rows([(t, f"sample:{p}:{i}") for i, t in enumerate(texts)], p) for p, texts in samples.items()
    }
    extra = {p: fidelity_rows(list(rows), p) for p, rows in shipped_fidelity_texts().items()}
    background = {
        text_id: fidelity_rows([(text, text_id)], "background")
        for texts in shipped_background_texts().values()
        for text, text_id in texts
    }
    registers = {text_id: name for name, texts in shipped_background_texts().items() for _, text_id in texts}
    summaries = [row for row in _register_rows(SUMMARY_TEXTS_FILE)]
    out: dict[str, Any] = {}

    def by_register(rows_of: dict[str, list[Row]], drop: str | None = None) -> dict[str, list[Row]]:
        grouped: dict[str, list[Row]] = defaultdict(list)
        for i, rows in rows_of.items():
            if registers[i] != drop:
                grouped[registers[i]] += rows
        return dict(grouped)

    def fit(drop_story: str | None = None, drop_register: str | None = None):
        dropped = {row["id"] for row in summaries if row["story"] == drop_story}
        texts = {p: base[p] + [r for r in extra.get(p, []) if r[2] not in dropped] for p in personas}
        return fit_fidelity(texts, by_register(background, drop_register))

    # summaries, story by story
    scores: dict[str, np.ndarray] = {}
    for story in sorted({row["story"] for row in summaries}):
        model = fit(drop_story=story)
        for row in summaries:
            if row["story"] == story:
                vec, n, _ = fidelity_rows([(row["text"], story)], "summary")[0]
                scores[row["id"]] = model.fidelity(vec[None, :], np.array([n]))[0]
    table = []
    for genre in ("in", "cross"):
        rows = [r for r in summaries if r["genre"] == genre]
        for k, p in enumerate(personas):
            own = [scores[r["id"]][k] for r in rows if r["persona"] == p]
            other = [scores[r["id"]][k] for r in rows if r["persona"] != p]
            recog = np.mean([personas[int(np.argmax(scores[r["id"]]))] == p for r in rows if r["persona"] == p])
            table.append(
                (
                    genre,
                    p,
                    float(recog),
                    rank(own, other),
                    np.quantile(own, [0.1, 0.5]).round(3).tolist(),
                    np.quantile(other, [0.5, 0.9]).round(3).tolist(),
                )
            )
    print(
        "summaries left out story by story: genre, persona, recognition, own-persona ranking, own q10/q50, others q50/q90"
    )
    for line in table:
        print("  ", *line)
    out["summaries"] = table

    # background, register by register
    own_summary = {p: [scores[r["id"]][k] for r in summaries if r["persona"] == p] for k, p in enumerate(personas)}
    unseen: dict[str, list[np.ndarray]] = defaultdict(list)
    for register in sorted(set(registers.values())):
        model = fit(drop_register=register)
        for _, text_id in shipped_background_texts()[register]:
            vec, n, _ = background[text_id][0]
            unseen[register].append(model.fidelity(vec[None, :], np.array([n]))[0])
    print("background registers left out one at a time: persona, own q10, max unseen (register), AUC")
    bg_table = []
    for k, p in enumerate(personas):
        q10 = float(np.quantile(own_summary[p], 0.1))
        allbg = [(float(s[k]), reg) for reg, ss in unseen.items() for s in ss]
        worst = max(allbg)
        per_register = {reg: round(max(float(s[k]) for s in ss), 3) for reg, ss in unseen.items()}
        bg_table.append(
            (
                p,
                round(q10, 3),
                round(worst[0], 3),
                worst[1],
                auc(own_summary[p], [v for v, _ in allbg]),
                sum(v >= q10 for v, _ in allbg),
            )
        )
        print("  ", *bg_table[-1][:5], "above q10:", bg_table[-1][5], "of", len(allbg))
        print("     max per register:", per_register)
    out["background"] = bg_table

    # background, in 10 folds of texts (registers seen in the fit)
    ids = sorted(background)
    seen: dict[str, np.ndarray] = {}
    for fold in range(10):
        held = {i for j, i in enumerate(ids) if j % 10 == fold}
        texts = {p: base[p] + extra.get(p, []) for p in personas}
        model = fit_fidelity(texts, by_register({i: rows for i, rows in background.items() if i not in held}))
        for i in held:
            vec, n, _ = background[i][0]
            seen[i] = model.fidelity(vec[None, :], np.array([n]))[0]
    print(
        "background texts left out in 10 folds (their registers seen): persona, own q10, max (register), AUC, above q10"
    )
    seen_table = []
    for k, p in enumerate(personas):
        q10 = float(np.quantile(own_summary[p], 0.1))
        values = sorted(((float(v[k]), registers[i]) for i, v in seen.items()), reverse=True)
        seen_table.append(
            (
                p,
                round(q10, 3),
                round(values[0][0], 3),
                values[0][1],
                round(auc(own_summary[p], [v for v, _ in values]), 4),
                sum(v >= q10 for v, _ in values),
            )
        )
        print("  ", *seen_table[-1], "top 5:", [(round(v, 3), r) for v, r in values[:5]])
    out["background_seen"] = seen_table
    # length: every persona text and excerpt left out in 10 folds of texts
    groups = sorted({r[2] for p in personas for r in base[p] + extra.get(p, [])})
    fold_of = {g: i % 10 for i, g in enumerate(groups)}
    bands = ((0, 45), (45, 80), (80, 140), (140, 10_000))
    held: list[tuple[int, int, np.ndarray, bool]] = []  # persona, words, scores, is a whole text
    bg = by_register(background)
    for fold in range(10):
        texts = {p: [r for r in base[p] + extra.get(p, []) if fold_of[r[2]] != fold] for p in personas}
        model = fit_fidelity(texts, bg)
        for k, p in enumerate(personas):
            rows = [r for r in base[p] + extra.get(p, []) if fold_of[r[2]] == fold]
            if rows:
                values = model.fidelity(np.array([r[0] for r in rows]), np.array([r[1] for r in rows]))
                held += [(k, r[1], v, True) for r, v in zip(rows, values)]
    print("length: texts and excerpts left out in 10 folds: persona, words, n, recognition, own q10/q50, others q50")
    length_table = []
    for k, p in enumerate(personas):
        for lo, hi in bands:
            own = [v for j, w, v, _ in held if j == k and lo <= w < hi]
            other = [v[k] for j, w, v, _ in held if j != k and lo <= w < hi]
            if own:
                recog = float(np.mean([int(np.argmax(v)) == k for v in own]))
                line = (
                    p,
                    f"{lo}-{hi}",
                    len(own),
                    round(recog, 3),
                    np.quantile([v[k] for v in own], [0.1, 0.5]).round(3).tolist(),
                    round(float(np.median(other)), 3),
                )
                length_table.append(line)
                print("  ", *line)
    out["length"] = length_table

    # the distributions the bands are read from: own register, other persona, off-register (texts left out)
    print("distributions (texts and excerpts left out): group, length, n, q10 / q25 / q50 / q75 / q90")
    groups_of = {
        "own register": lambda j, k: j == k,
        "other persona": lambda j, k: j != k,
    }
    distributions = {}
    for length, (lo, hi) in (("summary (< 80 words)", (0, 80)), ("full (>= 80 words)", (80, 10_000))):
        for group, keep in groups_of.items():
            values = [float(v[k]) for j, w, v, _ in held for k in range(len(personas)) if keep(j, k) and lo <= w < hi]
            distributions[group, length] = np.quantile(values, [0.1, 0.25, 0.5, 0.75, 0.9]).round(3).tolist()
            print("  ", group, length, len(values), distributions[group, length])
    off = [float(v) for i, scores_i in seen.items() for v in scores_i]
    distributions["off-register", "all"] = np.quantile(off, [0.1, 0.25, 0.5, 0.75, 0.9]).round(3).tolist()
    print("   off-register all", len(off), distributions["off-register", "all"])
    own = [float(v[j]) for j, w, v, _ in held]
    print("   own register, pooled: q10 / q25 / q50 =", np.quantile(own, [0.1, 0.25, 0.5]).round(3).tolist())
    out["distributions"] = {f"{g}|{length}": q for (g, length), q in distributions.items()}
    # persona_quality triples on the summaries
    from persona_metrics.persona.quality import combine_quality, score_content
    from persona_metrics.persona.style import score_style

    by = {(r["story"], r["persona"], r["version"]): r for r in summaries}
    stories = {g: sorted({r["story"] for r in summaries if r["genre"] == g}) for g in ("in", "cross")}
    triples = []  # (persona, reference, good, wrong register, wrong content) rows of summaries
    for genre, names in stories.items():
        for j, story in enumerate(names):
            other_story = names[(j + 1) % len(names)]
            for p in personas:
                for q in personas:
                    if q != p:
                        triples.append(
                            (p, by[story, p, "A"], by[story, p, "B"], by[story, q, "B"], by[other_story, p, "B"])
                        )
    preds = [t[v]["text"] for t in triples for v in (2, 3, 4)]
    refs = [t[1]["text"] for t in triples for _ in (2, 3, 4)]
    target = [t[0] for t in triples for _ in (2, 3, 4)]
    content = score_content(preds, refs)
    print("persona_quality triples on the summaries (good > wrong register > wrong content), per persona:")
    quality_table = []
    for method in ("jsd", "posterior", "fidelity"):
        if method == "fidelity":
            style = [scores[t[v]["id"]][personas.index(t[0])] for t in triples for v in (2, 3, 4)]
        else:
            style = score_style(preds, target, method=method).scores
        overall = combine_quality(content, style, score_style(preds[:1], target[:1]).config, None).overall_quality
        overall = overall.reshape(-1, 3)
        styles = np.asarray(style).reshape(-1, 3)
        contents = content.content_quality.reshape(-1, 3)
        for p in personas:
            idx = [i for i, t in enumerate(triples) if t[0] == p]
            o = overall[idx]
            line = (
                method,
                p,
                round(float(np.mean(o[:, 0] > o[:, 1])), 3),
                round(float(np.mean(o[:, 1] > o[:, 2])), 3),
                round(float(np.mean((o[:, 0] > o[:, 1]) & (o[:, 1] > o[:, 2]))), 3),
            )
            quality_table.append(line)
            print("  ", *line)
        if method == "fidelity":
            for i in np.flatnonzero(overall[:, 1] <= overall[:, 2]):
                print(
                    "     wrong register <= wrong content:",
                    triples[i][0],
                    triples[i][3]["persona"],
                    triples[i][1]["story"],
                    "content",
                    contents[i].round(3).tolist(),
                    "style",
                    styles[i].round(3).tolist(),
                )
        gaps = {
            "good-wrong_register": (
                0.3 * np.abs(styles[:, 0] - styles[:, 1]).mean(),
                0.7 * np.abs(contents[:, 0] - contents[:, 1]).mean(),
            ),
            "good-wrong_content": (
                0.3 * np.abs(styles[:, 0] - styles[:, 2]).mean(),
                0.7 * np.abs(contents[:, 0] - contents[:, 2]).mean(),
            ),
        }
        print(
            "     mean |0.3·Δstyle| vs |0.7·Δcontent|:", {k: (round(a, 3), round(b, 3)) for k, (a, b) in gaps.items()}
        )
    out["quality"] = quality_table
    print("misrecognised summaries:")
    for row in summaries:
        got = personas[int(np.argmax(scores[row["id"]]))]
        if got != row["persona"]:
            print("  ", row["id"], row["persona"], "->", got, scores[row["id"]].round(3).tolist(), row["text"][:100])
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
