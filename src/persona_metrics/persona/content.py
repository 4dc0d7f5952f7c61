"""Content quality: ROUGE-Lsum, BERTScore (with the shipped baseline) and optional BLEURT, weighted.

The persona-quality methodology (``docs/style.md``):

* content_quality = 0.40 × ROUGE-Lsum F1 + 0.30 × BERTScore F1 + 0.30 × BLEURT (normalised);
  without BLEURT the weights become 0.40 / 0.60.

Each component is computed once per item and kept in the result, so every aggregate can be traced back. The
combination with style similarity (overall quality) is :mod:`persona_metrics.persona.quality`.

References may be one string or a list of strings per prediction (evaluate's ``rouge`` convention, mixed
forms allowed). An item with several references is scored against each of them and keeps the reference with
the highest **combined** content score (``content_quality``, the weighted ROUGE-Lsum / BERTScore / BLEURT sum),
the first one on ties. All content components of the item (``rougeLsum``, ``bertscore_f1``, ``bleurt``) are
then that reference's, so ``content_quality`` stays their weighted sum; the best is not chosen per component
(evaluate's ``rouge`` maximises each ROUGE type separately: the two agree when the content weights put
everything on ROUGE-Lsum). ``ContentResult.reference_index`` says which reference was kept (``docs/style.md``
§6.2).
"""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources as importlib_resources
from pathlib import Path
from typing import Any

import numpy as np

from persona_metrics.distances import BertScore, get_distance
from persona_metrics.distances.rouge_lsum import lsum_sentences, summary_lcs_f1
from persona_metrics.persona.params import BertScoreConfig, resolve_content_weights
from persona_metrics.progress import progress_bar, quiet_foreign_progress
from persona_metrics.resources import sent_tokenize
from persona_metrics.signature import Signature
from persona_metrics.validation import check_path, check_reference_lists, check_texts
from persona_metrics.warning import warn

#: Baseline of the packaged MiniLM, computed by ``scripts/compute_bertscore_baseline.py`` (bert_score format).
MINILM_BASELINE_FILE = "bertscore_baseline_minilm.tsv"


# --- ROUGE-Lsum ------------------------------------------------------------------------------------------
def split_sentences(text: str) -> str:
    """One sentence per line (Punkt), as ROUGE-Lsum expects; existing line breaks are kept as boundaries."""
    return "\n".join(s for line in text.splitlines() for s in sent_tokenize(line) if s.strip())


def rouge_lsum(predictions: Sequence[str], references: Sequence[str], names: Sequence[str] | None = None) -> np.ndarray:
    """Per-item ROUGE-Lsum F1 with real sentence splitting: ``rouge_score``'s value, bit for bit.

    ``RougeScorer(["rougeLsum"], use_stemmer=True).score(split_sentences(ref), split_sentences(pred))`` computed by
    :func:`persona_metrics.distances.rouge_lsum.summary_lcs_f1` (the project's exact tokenizer and stemmer, a
    bit-parallel LCS table, only the sentence pairs that can change the result read out); each unique text is
    split and tokenized once per call. A pair that needs more than
    :data:`~persona_metrics.distances.rouge_lsum.SLOW_READ_OUTS` sentence-pair read-outs (the summary-level LCS's
    worst case, time growing with the product of the sentence counts) gets a ``PersonaMetricsWarning`` naming it
    (``names[k]``, default ``"pair k"``) and its sizes, and is still scored exactly (``docs/style.md`` §6.5).
    """
    sentences: dict[str, list[list[str]]] = {}

    def tokenized(text: str) -> list[list[str]]:
        if text not in sentences:
            sentences[text] = lsum_sentences(split_sentences(text))
        return sentences[text]

    def score(k: int, pred: str, ref: str) -> float:
        pred_sents, ref_sents = tokenized(pred), tokenized(ref)

        def slow(read_outs: int) -> None:
            name = names[k] if names is not None else f"pair {k}"
            warn(
                f"ROUGE-Lsum of {name} (prediction {len(pred):,} characters, {len(pred_sents):,} sentences; "
                f"reference {len(ref):,} characters, {len(ref_sents):,} sentences) has read out {read_outs:,} "
                f"sentence pairs (SLOW_READ_OUTS) and may read out up to {len(pred_sents) * len(ref_sents):,}: "
                "the summary-level LCS's worst case, time growing with the product of the sentence counts; "
                "the value stays exact (docs/style.md §6.5)"
            )

        return summary_lcs_f1(ref_sents, pred_sents, slow)

    return np.array(
        [score(k, pred, ref) for k, (pred, ref) in enumerate(zip(predictions, references, strict=True))],
        dtype=np.float64,
    )


# --- BERTScore -------------------------------------------------------------------------------------------
def bertscore_baseline(config: BertScoreConfig, layer: int) -> float:
    """The F baseline of ``config``'s model at ``layer``: the given file, the project's MiniLM file, or bert_score's.

    Raises:
        FileNotFoundError: no baseline exists for the model (pass ``rescale=False`` or ``baseline_path``).
    """
    if config.baseline_path is not None:
        path = Path(config.baseline_path)
    elif config.model is None:
        path = Path(str(importlib_resources.files("persona_metrics.persona") / "baselines" / MINILM_BASELINE_FILE))
    else:
        path = Path(str(importlib_resources.files("bert_score") / "rescale_baseline" / "en" / f"{config.model}.tsv"))
    if not path.is_file():
        raise FileNotFoundError(
            f"no BERTScore baseline for model {config.model!r} (looked for {path}); pass rescale=False to report raw "
            "scores or baseline_path=<LAYER,P,R,F csv>"
        )
    try:
        with path.open(encoding="utf-8") as f:
            rows = {int(row["LAYER"]): float(row["F"]) for row in csv.DictReader(f)}
    except (KeyError, TypeError, ValueError) as err:  # UnicodeDecodeError is a ValueError
        raise ValueError(
            f"baseline_path {path} is not a bert_score baseline (a LAYER,P,R,F csv): {type(err).__name__}: {err}"
        ) from err
    if layer not in rows:
        raise ValueError(f"BERTScore baseline {path} has no row for layer {layer}")
    base = rows[layer]
    if not (math.isfinite(base) and base < 1.0):
        raise ValueError(f"BERTScore baseline {path}: F = {base!r} at layer {layer}; rescaling needs a finite F < 1")
    return base


def quality_bertscore(config: BertScoreConfig) -> BertScore:
    """The (shared) ``bertscore`` distance persona quality embeds with: ``config``'s model and layer.

    Its fixed-shape passes (``docs/perseval.md`` §3.7): a text's bits depend on nothing else, whatever the
    other texts of the call and the number of torch threads, so sharded and distributed runs equal one process.
    """
    options = {k: v for k, v in (("model", config.model), ("num_layers", config.num_layers)) if v is not None}
    dist = get_distance("bertscore", **options)
    if not isinstance(dist, BertScore):  # pragma: no cover - the registry maps the name to this class
        raise TypeError("the bertscore distance is not a BertScore instance")
    return dist


def bertscore_f1(
    predictions: Sequence[str], references: Sequence[str], config: BertScoreConfig
) -> tuple[np.ndarray, Signature]:
    """Per-item BERTScore F1 (rescaled when ``config.rescale``) and a signature naming model, layer and rescaling."""
    dist = quality_bertscore(config)
    f1 = 1.0 - dist.pairwise(list(zip(references, predictions, strict=True)))
    if not config.rescale:
        return f1, Signature.of(dist.signature(rescale="raw"))
    base = bertscore_baseline(config, dist.layer())
    return (f1 - base) / (1.0 - base), Signature.of(dist.signature(rescale=f"rescaled:{base:.6f}"))


# --- BLEURT ----------------------------------------------------------------------------------------------
@cache
def _load_bleurt(checkpoint: str) -> tuple[Any, Any]:
    """Load a BLEURT regression checkpoint (single-logit sequence classifier) and its tokenizer.

    BERT-architecture BLEURT ports (e.g. ``Elron/bleurt-base-512``) load with transformers' Auto classes;
    checkpoints of ``model_type="bleurt"`` (the BLEURT-20 ports) need the ``bleurt-pytorch`` package.
    """
    from transformers import AutoConfig, AutoModelForSequenceClassification, AutoTokenizer

    try:
        with quiet_foreign_progress():
            config = AutoConfig.from_pretrained(checkpoint)
            if config.model_type == "bleurt":
                try:
                    import bleurt_pytorch
                except ImportError as err:
                    raise ModuleNotFoundError(
                        f"the BLEURT checkpoint {checkpoint!r} needs the bleurt-pytorch package (pip install "
                        "bleurt-pytorch sentencepiece; its 0.0.1 release does not import under transformers >= 5)"
                    ) from err
                model = bleurt_pytorch.BleurtForSequenceClassification.from_pretrained(checkpoint)
                tokenizer = bleurt_pytorch.BleurtTokenizer.from_pretrained(checkpoint)
            else:
                model = AutoModelForSequenceClassification.from_pretrained(checkpoint)
                tokenizer = AutoTokenizer.from_pretrained(checkpoint)
    except (OSError, ValueError) as err:
        raise OSError(
            f"could not load the BLEURT checkpoint {checkpoint!r} (option bleurt_checkpoint): give a local "
            f"directory or a reachable Hub id ({type(err).__name__}: {err})"
        ) from err
    if model.config.num_labels != 1:
        raise ValueError(f"BLEURT checkpoint {checkpoint!r} must be a 1-output regression model")
    return model.eval(), tokenizer


def bleurt_scores(
    predictions: Sequence[str], references: Sequence[str], checkpoint: str, batch_size: int = 16
) -> np.ndarray:
    """Per-item BLEURT scores normalised to [0, 1] by clipping (BLEURT-20 is calibrated to ≈ [0, 1])."""
    if not predictions:
        return np.empty(0)
    import torch

    model, tokenizer = _load_bleurt(checkpoint)
    out = []
    starts = range(0, len(predictions), batch_size)
    for start in progress_bar(starts, desc="bleurt: scoring", unit="batch"):
        refs = list(references[start : start + batch_size])
        cands = list(predictions[start : start + batch_size])
        with torch.no_grad():
            inputs = tokenizer(refs, cands, padding="longest", truncation=True, return_tensors="pt")
            out.append(model(**inputs).logits.flatten().float().numpy())
    return np.clip(np.concatenate(out), 0.0, 1.0)


# --- content quality -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ContentResult:
    """Per-item content components and the weighted content quality.

    Every component of an item is against the same reference: its only one, or the one of its references with
    the highest ``content_quality`` (the first on ties), whose position is ``reference_index[i]`` (0 for an
    item with one reference; -1 for an empty prediction scored 0 by ``score_quality(empty="zero")``; ``None``
    only for results built by hand).
    """

    rouge_lsum: np.ndarray
    bertscore_f1: np.ndarray
    bleurt: np.ndarray | None
    content_quality: np.ndarray
    weights: dict[str, float]
    config: Signature
    reference_index: np.ndarray | None = None

    @property
    def signature(self) -> str:
        """ROUGE-Lsum, BERTScore and BLEURT settings and the content weights (persona_metrics version last)."""
        return str(self.config)

    def placed(self, rows: Sequence[int], n: int) -> ContentResult:
        """This result's items placed at positions ``rows`` of ``n`` items; every other item scores 0.

        The items not in ``rows`` are empty predictions under ``score_quality(empty="zero")``: each content
        component 0 and ``reference_index`` -1.
        """

        def spread(values: np.ndarray, fill: float) -> np.ndarray:
            out = np.full(n, fill, dtype=values.dtype)
            out[list(rows)] = values
            return out

        return replace(
            self,
            rouge_lsum=spread(self.rouge_lsum, 0.0),
            bertscore_f1=spread(self.bertscore_f1, 0.0),
            bleurt=None if self.bleurt is None else spread(self.bleurt, 0.0),
            content_quality=spread(self.content_quality, 0.0),
            reference_index=None if self.reference_index is None else spread(self.reference_index, -1),
        )


def check_quality_references(
    predictions: object, references: object, allow_empty_predictions: bool = False
) -> list[list[str]]:
    """Validate ``predictions`` and ``references``; return the references as one list per prediction.

    Args:
        predictions: a list of strings.
        references: per prediction, a non-empty string or a non-empty list of non-empty strings.
        allow_empty_predictions: whether a prediction may be empty (``score_content`` allows it).

    Raises:
        TypeError: a non-list field or a non-string item (field and index named, ``references[2][1]``).
        ValueError: no items, different lengths, an empty list of references or an empty text (named).
    """
    empty = ("predictions",) if allow_empty_predictions else ()
    n = len(check_texts(allow_empty=empty, predictions=predictions)["predictions"])
    reference_lists = check_reference_lists(references)
    if len(reference_lists) != n:
        raise ValueError(f"references has {len(reference_lists)} items but predictions has {n}; they must align")
    return reference_lists


def best_reference(scores: np.ndarray, counts: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Per item, which of its ``counts[i]`` consecutive candidate ``scores`` is highest (the first on ties).

    Returns:
        The index within each item's references, and the position in ``scores`` of each item's pick.

    >>> best_reference(np.array([0.2, 0.5, 0.5, 0.9, 0.1]), [3, 2])
    (array([1, 0]), array([1, 3]))
    """
    starts = np.cumsum([0, *counts]).astype(np.int64)[:-1]
    index = np.array([int(np.argmax(scores[s : s + c])) for s, c in zip(starts, counts, strict=True)], dtype=np.int64)
    return index, starts + index


def _bertscore_config(bertscore: object) -> BertScoreConfig:
    """``bertscore``, or the default settings for None.

    Raises:
        TypeError: anything but a :class:`BertScoreConfig` or None.
    """
    if bertscore is None:
        return BertScoreConfig()
    if not isinstance(bertscore, BertScoreConfig):
        raise TypeError(f"bertscore must be a BertScoreConfig, got {type(bertscore).__name__}")
    return bertscore


def score_content(
    predictions: Sequence[str],
    references: Sequence[str | Sequence[str]],
    *,
    bertscore: BertScoreConfig | None = None,
    bleurt_checkpoint: str | None = None,
    weights: Mapping[str, float] | None = None,
) -> ContentResult:
    """Content quality of each prediction against its reference (its best one, when it has several).

    An item with several references is scored against each (each unique text is embedded once) and keeps the
    reference with the highest content quality; all its components are that reference's (module docstring).

    Args:
        predictions: generated summaries (an empty one scores 0 on ROUGE and BERTScore F1 = 0 raw).
        references: per prediction, a reference summary or a list of them (non-empty).
        bertscore: BERTScore settings (default: packaged MiniLM, layer 6, rescaled with the shipped baseline).
        bleurt_checkpoint: a BLEURT checkpoint (local path or Hub id) to include BLEURT; ``None`` = off.
        weights: content weights; default 0.40/0.30/0.30 with BLEURT, 0.40/0.60 without.

    Raises:
        TypeError / ValueError: bad inputs or weights (naming the field and index / key).
    """
    predictions = check_texts(allow_empty=("predictions",), predictions=predictions)["predictions"]
    reference_lists = check_quality_references(predictions, references, allow_empty_predictions=True)
    config = _bertscore_config(bertscore)
    if bleurt_checkpoint is not None:
        check_path("bleurt_checkpoint", bleurt_checkpoint)
    return _content(
        predictions, reference_lists, config, bleurt_checkpoint, resolve_content_weights(weights, bleurt_checkpoint)
    )


def _content(
    predictions: Sequence[str],
    reference_lists: Sequence[Sequence[str]],
    config: BertScoreConfig,
    bleurt_checkpoint: str | None,
    w: Mapping[str, float],
    items: Sequence[int] | None = None,
) -> ContentResult:
    """:func:`score_content` of checked inputs and weights; no item at all gives empty arrays and the signature.

    ``items``: the items' indices in the caller's input, for messages (default ``0, 1, …``).
    """
    preds = [p for p, refs in zip(predictions, reference_lists, strict=True) for _ in refs]
    refs = [r for item in reference_lists for r in item]
    names = [
        f"item {i}" + (f", reference {j}" if len(item) > 1 else "")
        for i, item in zip(items if items is not None else range(len(reference_lists)), reference_lists, strict=True)
        for j in range(len(item))
    ]
    lsum = rouge_lsum(preds, refs, names)
    f1, bs_signature = bertscore_f1(preds, refs, config)
    bleurt = bleurt_scores(preds, refs, bleurt_checkpoint) if bleurt_checkpoint else None
    content = w["rougeLsum"] * lsum + w["bertscore"] * f1
    if bleurt is not None:
        content = content + w["bleurt"] * bleurt
    index, pick = best_reference(content, [len(item) for item in reference_lists])
    made = (
        Signature.of(rougeLsum="punkt,porter")
        + bs_signature
        + Signature.of(bleurt=bleurt_checkpoint or "off", content_w=",".join(f"{k}={v:g}" for k, v in w.items()))
    )
    picked_bleurt = None if bleurt is None else bleurt[pick]
    return ContentResult(lsum[pick], f1[pick], picked_bleurt, content[pick], dict(w), made, index)
