"""Every metric's per-item values of this checkout against an earlier revision, on the same inputs.

For a change that must not move any value (a faster path, a refactor): the revision is checked out in a
temporary ``git worktree``, each side is run in its own process with its own ``src`` first on ``PYTHONPATH``
(the working tree's dependencies, offline), and every per-summary value and the system scores are compared.

Inputs: the shipped ``data/personalization_sample`` (its own model outputs) and ``data/pens_sample``, plus
optionally a PENS-format directory (``--pens-dir``, e.g. ``scripts/make_synthetic_pens.py`` output): lexical
distances on all of it, neural ones on its first ``--subset-docs`` documents. PENS inputs get two fixed model
outputs per example: the article's headline, and the first half of the user's title followed by the second half
of the headline.

The other metrics (``--metrics``, on by default) are scored through their library functions on the shipped
samples: persona_style (jsd, zscore and posterior, each named) on the held-out persona texts, persona_quality
(style_method jsd and posterior, named) and VERT on the
personalization sample's model outputs against their references (personas in turn), SummaryEval completeness and
coherence on the CNN/DM sample's highlights.

Bounds: rougeL, rougeSU4, bleu, meteor and persona_style must be bit for bit identical, jsd within 1e-12 (float64
sums in another order). BERTScore, InfoLM, persona_quality, VERT and SummaryEval run float32 networks whose
rounding depends on how texts are batched; their differences are printed with whether they are bit-identical, not
judged (the release notes of a change give its bound), unless ``--exact``: every value bit for bit (a refactor
compared on one machine, where the same batches round the same way). Exit status 1 when a bounded value differs.

    python scripts/compare_release.py HEAD~3
    python scripts/compare_release.py v0.3.0 --pens-dir outputs/synthetic_pens --infolm-model path/to/mlm
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
LEXICAL = ("rougeL", "rougeSU4", "bleu", "meteor", "jsd")
NEURAL = ("bertscore", "infolm")
#: Largest allowed |difference| per distance; None: printed, not judged.
BOUND: dict[str, float | None] = {
    "rougeL": 0.0, "rougeSU4": 0.0, "bleu": 0.0, "meteor": 0.0, "jsd": 1e-12, "persona_style": 0.0
}  # fmt: skip
#: The personas of the shipped samples, in turn for the personalization sample's items.
PERSONAS = ("enthusiast", "formal_analyst", "journalist")


def pens_models(references: Sequence[str], headlines: Sequence[str]) -> dict[str, list[str]]:
    """The two fixed model outputs for PENS inputs."""
    mixed = []
    for ref, head in zip(references, headlines, strict=True):
        r, h = ref.split(), head.split()
        mixed.append(" ".join(r[: len(r) // 2] + h[len(h) // 2 :]))
    return {"headline": list(headlines), "mixed": mixed}


def child(
    out: Path, pens_dir: Path | None, distances: list[str], subset_docs: int, infolm_model: str | None, metrics: bool
) -> None:
    """Score every input with whichever persona_metrics is importable; save the values to ``out`` (npz)."""
    import warnings

    import persona_metrics
    from persona_metrics.datasets.pens import load_pens
    from persona_metrics.personalization import PersonalizationScorer

    src = Path(os.environ["PYTHONPATH"]).resolve()
    if not Path(persona_metrics.__file__).resolve().is_relative_to(src):
        raise SystemExit(f"expected persona_metrics from {src}, imported {persona_metrics.__file__}")

    warnings.simplefilter("ignore")  # the samples' single-reference documents warn on both sides alike
    values: dict[str, np.ndarray] = {}

    def run(tag: str, refs: list[str], docs: list[str], ids: list[str], models: dict[str, list[str]], names) -> None:
        for name in names:
            options = {"model": infolm_model} if name == "infolm" else None
            scorer = PersonalizationScorer(refs, docs, ids, distance=name, distance_options=options)
            for model, preds in models.items():
                res = scorer.score(preds)
                for field in ("perseval", "degress"):
                    per = [np.nan if v is None else v for v in res.per_summary(field)]
                    values[f"{tag}|{name}|{model}|{field}"] = np.array(per, dtype=float)
                system = [res.perseval, res.degress, res.edp, res.accuracy_distance, res.p_accuracy]
                values[f"{tag}|{name}|{model}|system"] = np.array(system, dtype=float)
            sys.stderr.write(f"  {tag} {name}\n")

    rows = [json.loads(line) for line in (ROOT / "data/personalization_sample/sample.jsonl").open(encoding="utf-8")]
    columns = [[r[k] for r in rows] for k in ("reference", "document", "document_id")]
    models = {m: [r["predictions"][m] for r in rows] for m in sorted(rows[0]["predictions"])}
    run("personalization_sample", *columns, models, distances)
    for tag, directory in (("pens_sample", ROOT / "data/pens_sample"), ("pens_dir", pens_dir)):
        if directory is None:
            continue
        ds = load_pens(directory)
        refs, docs, ids, heads = (list(ds[c]) for c in ("reference", "document", "news_id", "headline"))
        lexical = [d for d in distances if d in LEXICAL]
        neural = [d for d in distances if d in NEURAL]
        if tag == "pens_dir":  # neural distances on the first documents only
            run(tag, refs, docs, ids, pens_models(refs, heads), lexical)
            keep = set(list(dict.fromkeys(ids))[:subset_docs])
            rows_kept = [i for i, doc_id in enumerate(ids) if doc_id in keep]
            refs, docs, ids, heads = ([col[i] for i in rows_kept] for col in (refs, docs, ids, heads))
            tag, lexical = f"pens_dir[:{subset_docs} docs]", []
        run(tag, refs, docs, ids, pens_models(refs, heads), lexical + neural)
    if metrics:
        values.update(other_metrics())
    np.savez(out, **values)


def other_metrics() -> dict[str, np.ndarray]:
    """persona_style, persona_quality, VERT and SummaryEval per-item values of the shipped samples (module doc)."""
    # Names importable from both revisions (this function runs on the old side too).
    from persona_metrics.persona.quality import score_quality
    from persona_metrics.persona.style import score_style, split_samples
    from persona_metrics.summary_eval import score_summary_eval
    from persona_metrics.vert import score_vert

    values: dict[str, np.ndarray] = {}
    texts, personas = [], []
    for persona in PERSONAS:
        held = split_samples((ROOT / f"data/persona_heldout/{persona}.txt").read_text(encoding="utf-8"))
        texts += held
        personas += [persona] * len(held)
    for method in ("jsd", "zscore", "posterior"):  # named: the default is another method since fidelity
        values[f"metrics|persona_style|{method}|style"] = np.array(score_style(texts, personas, method=method).scores)
    rows = [json.loads(line) for line in (ROOT / "data/personalization_sample/sample.jsonl").open(encoding="utf-8")]
    refs = [r["reference"] for r in rows]
    for model in sorted(rows[0]["predictions"]):
        preds = [r["predictions"][model] for r in rows]
        cycled = [PERSONAS[i % len(PERSONAS)] for i in range(len(preds))]
        quality = score_quality(preds, refs, cycled, style_method="jsd")
        values[f"metrics|persona_quality|{model}|overall"] = np.asarray(quality.overall_quality, dtype=float)
        posterior = score_quality(preds, refs, cycled, style_method="posterior").overall_quality
        values[f"metrics|persona_quality|{model}|overall-posterior"] = np.asarray(posterior, dtype=float)
        values[f"metrics|persona_quality|{model}|bertscore"] = np.asarray(quality.content.bertscore_f1, dtype=float)
        values[f"metrics|vert|{model}|vert"] = np.asarray(score_vert(preds, refs).vert, dtype=float)
    cnndm = [json.loads(line) for line in (ROOT / "data/cnndm_sample/test.jsonl").open(encoding="utf-8")]
    result = score_summary_eval([r["highlights"] for r in cnndm], [r["article"] for r in cnndm])
    for field in ("completeness", "coherence"):
        values[f"metrics|summary_eval|cnndm|{field}"] = np.asarray(getattr(result, field), dtype=float)
    sys.stderr.write("  metrics\n")
    return values


def side(src: Path, out: Path, args: argparse.Namespace) -> None:
    """Run :func:`child` with ``src`` first on the path."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PYTHONPATH=str(src), PERSONA_METRICS_NO_AUTO_REGISTER="1", HF_HUB_OFFLINE="1",
               HF_DATASETS_OFFLINE="1", TRANSFORMERS_OFFLINE="1", HF_EVALUATE_OFFLINE="1")  # fmt: skip
    command = [sys.executable, __file__, "--child", str(out), "--subset-docs", str(args.subset_docs), "--distance"]
    command += args.distance
    if args.pens_dir is not None:
        command += ["--pens-dir", str(args.pens_dir)]
    if args.infolm_model is not None:
        command += ["--infolm-model", args.infolm_model]
    if not args.metrics:
        command += ["--no-metrics"]
    sys.stderr.write(f"{src}:\n")
    subprocess.run(command, env=env, check=True)


def compare(before: Path, after: Path, exact: bool = False) -> bool:
    """Print one line per (input, distance) and whether the bounded ones hold."""
    old, new = np.load(before), np.load(after)
    if sorted(old.files) != sorted(new.files):
        raise SystemExit(f"the two runs scored different things: {sorted(set(old.files) ^ set(new.files))}")
    groups: dict[tuple[str, str], list[str]] = {}
    for key in old.files:
        tag, name, _, _ = key.split("|")
        groups.setdefault((tag, name), []).append(key)
    ok = True
    print(f"{'input':28s} {'distance / metric':17s} {'values':>7s} {'bit-identical':>14s} {'max |diff|':>11s}  verdict")
    for (tag, name), keys in sorted(groups.items()):
        x = np.concatenate([old[k] for k in keys])
        y = np.concatenate([new[k] for k in keys])
        same_nan = np.array_equal(np.isnan(x), np.isnan(y))
        diff = float(np.nanmax(np.abs(x - y))) if (~np.isnan(x)).any() else 0.0
        bound = 0.0 if exact else BOUND.get(name)
        verdict = (
            "printed only (float32 network)" if bound is None else ("ok" if same_nan and diff <= bound else "DIFFERS")
        )
        ok &= verdict != "DIFFERS"
        identical = bool(np.array_equal(x, y, equal_nan=True))
        print(f"{tag:28s} {name:17s} {x.size:7d} {identical!s:>14s} {diff:11.2e}  {verdict}")
    return ok


def main(argv: list[str] | None = None) -> int:
    """Compare the working tree with ``rev`` (or, with ``--child``, score one side)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rev", nargs="?", help="the git revision to compare with")
    parser.add_argument("--pens-dir", type=Path, help="a PENS-format directory scored too")
    parser.add_argument("--distance", nargs="+", default=[*LEXICAL, "bertscore"], choices=[*LEXICAL, *NEURAL])
    parser.add_argument("--subset-docs", type=int, default=300, help="documents of --pens-dir for neural distances")
    parser.add_argument("--infolm-model", help="a local masked LM for infolm (its default model is on the Hub)")
    parser.add_argument("--exact", action="store_true", help="every value must be bit-identical (a refactor)")
    parser.add_argument("--no-metrics", dest="metrics", action="store_false", help="PerSEval / DEGRESS only")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if "infolm" in args.distance and args.infolm_model is None:
        parser.error("infolm needs --infolm-model (a local masked language model directory)")
    if args.child is not None:
        child(args.child, args.pens_dir, args.distance, args.subset_docs, args.infolm_model, args.metrics)
        return 0
    if args.rev is None:
        parser.error("give the revision to compare with")
    with tempfile.TemporaryDirectory(prefix="compare-release-") as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(tree), args.rev],
                       check=True)  # fmt: skip
        try:
            side(tree / "src", Path(tmp) / "before.npz", args)
            side(ROOT / "src", Path(tmp) / "after.npz", args)
            rev = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True,
                                 text=True, check=True).stdout.strip()  # fmt: skip
            print(f"# per-item values of every metric and system scores: {args.rev} ({rev}) vs the working tree\n")
            ok = compare(Path(tmp) / "before.npz", Path(tmp) / "after.npz", args.exact)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False)
    print("\nsame values: " + ("OK" if ok else "NO"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
