"""Overall persona quality: the 70/30 combination of content quality and style similarity.

The persona-quality methodology (``docs/style.md``):

* content_quality = 0.40 × ROUGE-Lsum F1 + 0.30 × BERTScore F1 + 0.30 × BLEURT (normalised);
  without BLEURT the weights become 0.40 / 0.60 (:mod:`persona_metrics.persona.content`);
* overall_quality = 0.70 × content_quality + 0.30 × style_similarity.

Each component is computed once per item and kept in the result, so every aggregate can be traced back. An item
with several references keeps the one with the highest content quality (:mod:`persona_metrics.persona.content`,
``docs/style.md`` §6.2).

A prediction without a word is refused by :func:`score_quality` (its style is undefined) unless ``empty="zero"``:
then every component of that item is 0 (its band ``None``), the other items are scored as usual, and every mean
and interval is taken over all items (``docs/style.md`` §4.6).

The options (:class:`~persona_metrics.persona.params.QualityParams`), the weights' defaults and
:class:`~persona_metrics.persona.params.BertScoreConfig` live in :mod:`persona_metrics.persona.params`; they are
importable from here too.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from persona_metrics.persona.content import ContentResult, _bertscore_config, _content, check_quality_references
from persona_metrics.persona.formulas import DEFAULT_STYLE_METHOD
from persona_metrics.persona.params import CONTENT_WEIGHTS_WITH_BLEURT as CONTENT_WEIGHTS_WITH_BLEURT
from persona_metrics.persona.params import CONTENT_WEIGHTS_WITHOUT_BLEURT as CONTENT_WEIGHTS_WITHOUT_BLEURT
from persona_metrics.persona.params import OVERALL_WEIGHTS as OVERALL_WEIGHTS
from persona_metrics.persona.params import OVERALL_WEIGHTS_KEYS as OVERALL_WEIGHTS_KEYS
from persona_metrics.persona.params import WEIGHT_SUM_TOLERANCE as WEIGHT_SUM_TOLERANCE
from persona_metrics.persona.params import BertScoreConfig as BertScoreConfig
from persona_metrics.persona.params import QualityParams as QualityParams
from persona_metrics.persona.params import check_weights as check_weights
from persona_metrics.persona.params import resolve_content_weights as resolve_content_weights
from persona_metrics.persona.style import style_result
from persona_metrics.results import ItemResult
from persona_metrics.signature import Signature
from persona_metrics.significance import (
    DEFAULT_BOOTSTRAP_SEED,
    BootstrapDraw,
    bootstrap_intervals,
    check_bootstrap,
)
from persona_metrics.validation import check_texts

logger = logging.getLogger(__name__)

#: Interpretation bands of overall quality (methodology, "Interpretation Scale"), lower bounds.
QUALITY_BANDS: tuple[tuple[float, str], ...] = (
    (0.80, "Excellent"),
    (0.70, "Very Good"),
    (0.60, "Good"),
    (0.50, "Fair"),
    (-math.inf, "Poor"),
)


def quality_band(score: float) -> str:
    """Interpretation of an overall quality score: Excellent, Very Good, Good, Fair or Poor."""
    return next(label for bound, label in QUALITY_BANDS if score >= bound)


@dataclass(frozen=True)
class QualityResult(ItemResult):
    """Overall persona quality per item, its components, and every view of them callers need.

    Attributes:
        content: the content components per item.
        style_similarity: style similarity per item.
        overall_quality: ``w_content × content_quality + w_style × style_similarity`` per item.
        weights: the overall weights used.
        config: how it was made (:attr:`signature` prints it with the version).
        bands: the interpretation band of each item's overall quality (``None`` for an empty prediction).
        intervals: ``{component: (lo, hi)}``, the 95 % item-bootstrap interval of each component's mean (all on
            the same resamples), when asked for (:meth:`with_bootstrap`, ``score_quality(bootstrap=N)``).
        empty: positions of the predictions without a word, every component 0 under ``empty="zero"`` (none
            otherwise).
        bootstrap: the resamples and seed of :attr:`intervals` (None without), so a merge draws them again.
    """

    content: ContentResult
    style_similarity: np.ndarray
    overall_quality: np.ndarray
    weights: dict[str, float]
    config: Signature
    bands: tuple[str | None, ...] = field(default=())
    intervals: dict[str, tuple[float, float]] = field(default_factory=dict)
    empty: tuple[int, ...] = ()
    bootstrap: BootstrapDraw | None = None

    def __len__(self) -> int:
        """The number of items."""
        return len(self.overall_quality)

    def completed(self) -> QualityResult:
        """A merged result's intervals, drawn again over all its items with the resamples and seed it keeps."""
        if self.bootstrap is None:
            return self
        drawn = self.bootstrap
        return replace(self, intervals=bootstrap_intervals(self.components(), drawn.resamples, drawn.seed))

    def components(self) -> dict[str, np.ndarray]:
        """Per-item arrays by output name: overall, content, style, ROUGE-Lsum, BERTScore F1 (and BLEURT)."""
        out = {
            "overall_quality": self.overall_quality,
            "content_quality": self.content.content_quality,
            "style_similarity": self.style_similarity,
            "rougeLsum": self.content.rouge_lsum,
            "bertscore_f1": self.content.bertscore_f1,
        }
        if self.content.bleurt is not None:
            out["bleurt"] = self.content.bleurt
        return out

    def means(self) -> dict[str, float]:
        """Mean of every component (plain floats), over every item (the empty ones' zeros included)."""
        return {name: float(values.mean()) for name, values in self.components().items()}

    def per_item(self) -> dict[str, list]:
        """Per-item lists of every component and the interpretation ``band``."""
        out: dict[str, list] = {name: values.tolist() for name, values in self.components().items()}
        out["band"] = list(self.bands)
        return out

    def with_bootstrap(self, bootstrap: int, seed: int = DEFAULT_BOOTSTRAP_SEED) -> QualityResult:
        """This result with 95 % item-bootstrap intervals of every component's mean (``bootstrap`` 0: unchanged).

        Args:
            bootstrap: item resamples (0 = off, else >= 2); the signature records ``bootstrap:N,seed:S``.
            seed: the seed (every component on the same resamples).

        Raises:
            ValueError / TypeError: a bad ``bootstrap`` or ``seed`` (named).
        """
        bootstrap, seed = check_bootstrap(bootstrap, seed)
        if not bootstrap:
            return self
        return replace(
            self,
            intervals=bootstrap_intervals(self.components(), bootstrap, seed),
            config=self.config + Signature.of(bootstrap=f"{bootstrap},seed:{seed}"),
            bootstrap=BootstrapDraw(bootstrap, seed),
        )

    def as_dict(self, per_item: bool = False, signature: bool = False) -> dict[str, Any]:
        """The means, plus ``per_item`` lists and the ``signature`` string when asked for.

        Each mean is followed by its interval, ``<name>_ci_low`` / ``<name>_ci_high``, when one was computed.
        """
        return self.summary_dict(per_item, signature)


def complementary_weights(share: float, names: tuple[str, str]) -> dict[str, float]:
    """``{names[0]: share, names[1]: 1 − share}``: a two-component weighting from one share (UI sliders).

    >>> complementary_weights(0.25, ("content", "style"))
    {'content': 0.25, 'style': 0.75}
    """
    return {names[0]: float(share), names[1]: 1.0 - float(share)}


def combine_quality(
    content: ContentResult,
    style_similarity: Sequence[float] | np.ndarray,
    style_config: Signature,
    weights: Mapping[str, float] | None,
    empty: Sequence[int] = (),
) -> QualityResult:
    """Overall = w_content × content_quality + w_style × style_similarity, per item.

    ``empty``: positions of empty predictions whose components are all 0 (``score_quality(empty="zero")``); their
    overall quality is then 0 and their band ``None``.
    """
    w = check_weights(weights if weights is not None else OVERALL_WEIGHTS, OVERALL_WEIGHTS_KEYS, "overall_weights")
    style = np.asarray(style_similarity, dtype=np.float64)
    overall = w["content"] * content.content_quality + w["style"] * style
    config = content.config + style_config + Signature.of(overall_w=f"content={w['content']:g},style={w['style']:g}")
    blank = frozenset(empty)
    bands = tuple(None if i in blank else quality_band(float(v)) for i, v in enumerate(overall))
    return QualityResult(content, style, overall, w, config, bands, empty=tuple(empty))


def score_quality(
    predictions: Sequence[str],
    references: Sequence[str | Sequence[str]],
    personas: Sequence[str],
    *,
    bertscore: BertScoreConfig | None = None,
    bleurt_checkpoint: str | None = None,
    content_weights: Mapping[str, float] | None = None,
    overall_weights: Mapping[str, float] | None = None,
    persona_samples: Mapping[str, Sequence[str]] | None = None,
    persona_dir: str | Path | None = None,
    centroid_cache: str | Path | None = None,
    style_method: str = DEFAULT_STYLE_METHOD,
    bootstrap: int = 0,
    seed: int = DEFAULT_BOOTSTRAP_SEED,
    empty: str = "error",
    params: QualityParams | None = None,
) -> QualityResult:
    """Overall persona quality: ``0.70 × content_quality + 0.30 × style_similarity`` (weights configurable).

    Args:
        predictions: generated summaries (each must contain a word: style is undefined for empty text, unless
            ``empty="zero"``).
        references: per prediction, a reference summary or a list of them; with several, the content
            components are those of the reference with the highest content quality (:func:`score_content`).
        personas: target persona per item.
        bertscore: BERTScore settings (default: packaged MiniLM, rescaled with the shipped baseline).
        bleurt_checkpoint: BLEURT checkpoint to include BLEURT (``None`` = off, weights 0.40/0.60).
        content_weights: weights of ``rougeLsum``, ``bertscore`` (and ``bleurt``); must sum to 1.
        overall_weights: weights of ``content`` and ``style``; must sum to 1.
        persona_samples: extra or overriding personas (see :func:`persona_metrics.persona.style.score_style`).
        persona_dir: a directory of ``{persona}.txt`` persona samples.
        centroid_cache: centroid JSON path.
        style_method: the style similarity method (:data:`persona_metrics.persona.formulas.STYLE_METHODS`).
        bootstrap: item resamples for 95 % percentile intervals of every component's mean (0 = off, else >= 2;
            :meth:`QualityResult.with_bootstrap`).
        seed: bootstrap seed.
        empty: what a prediction without a word (empty, whitespace-only, ``"!!!"``) does: ``"error"`` (default)
            raises the style library's named error; ``"zero"`` scores every component of it 0 (ROUGE-Lsum, BERTScore
            F1, BLEURT, style, content and overall quality; band ``None``) without scoring its content, the other
            items as usual, every mean and interval over all items with those zeros (:attr:`QualityResult.empty`).
        params: the options above as one checked :class:`~persona_metrics.persona.params.QualityParams` (the
            ``persona_quality`` module's names: ``bertscore`` as its four fields), instead of one by one.

    Raises:
        TypeError / ValueError: bad inputs, unknown personas, weights that do not sum to 1, a bad
            ``bootstrap`` / ``seed`` / ``empty`` (named), or with ``empty="error"`` a prediction without a word
            (index named).
    """
    config = _bertscore_config(bertscore)
    options = {
        "bertscore_model": config.model,
        "bertscore_layers": config.num_layers,
        "rescale": config.rescale,
        "baseline_path": config.baseline_path,
        "bleurt_checkpoint": bleurt_checkpoint,
        "content_weights": content_weights,
        "overall_weights": overall_weights,
        "persona_samples": persona_samples,
        "persona_dir": persona_dir,
        "centroid_cache": centroid_cache,
        "style_method": style_method,
        "bootstrap": bootstrap,
        "seed": seed,
        "empty": empty,
    }
    params = QualityParams.from_call(params, options)  # every option, before any model work
    zero = params.empty == "zero"
    texts = check_texts(allow_empty=("predictions",) if zero else (), predictions=predictions, personas=personas)
    predictions, personas = texts["predictions"], texts["personas"]
    reference_lists = check_quality_references(predictions, references, allow_empty_predictions=zero)
    style = style_result(predictions, personas, params.style)
    content = _content_of(predictions, reference_lists, style.empty, params)
    result = combine_quality(content, style.scores, style.config, params.overall_weights, style.empty)
    return result.with_bootstrap(params.bootstrap, params.seed)


def _content_of(
    predictions: Sequence[str],
    reference_lists: Sequence[Sequence[str]],
    empty: Sequence[int],
    params: QualityParams,
) -> ContentResult:
    """Content quality of checked inputs, each item in ``empty`` scoring 0 without being scored.

    The items in ``empty`` are predictions without a word under ``score_quality(empty="zero")``: style is undefined
    for them, so every component counts 0. With no other item only the settings are resolved, for the signature.
    """
    config, bleurt_checkpoint = params.bertscore, params.bleurt_checkpoint
    w = resolve_content_weights(params.content_weights, bleurt_checkpoint)
    if not empty:
        return _content(predictions, reference_lists, config, bleurt_checkpoint, w)
    blank = frozenset(empty)
    rows = [i for i in range(len(predictions)) if i not in blank]
    kept = [predictions[i] for i in rows], [reference_lists[i] for i in rows]
    return _content(*kept, config, bleurt_checkpoint, w, rows).placed(rows, len(predictions))
