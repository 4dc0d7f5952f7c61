"""The options of the persona family as validated objects: :class:`StyleParams` and :class:`QualityParams`.

Every entry point builds one, so a bad value fails the same way everywhere, before any text is scored:
:func:`~persona_metrics.persona.style.score_style` and the ``persona_style`` evaluate module build a
:class:`StyleParams`; :func:`~persona_metrics.persona.quality.score_quality` and the ``persona_quality`` module a
:class:`QualityParams`, whose style options carry their ``persona_quality`` names (``style_method``) and whose
BERTScore options are the four of :class:`BertScoreConfig`. The hooks, the distributed classes, the CLI's
``-o KEY=VALUE`` and the Spaces read names, defaults, allowed values and help from the same classes
(:mod:`persona_metrics.params`).

The weights' defaults are the methodology's ("Content Quality Formula", "Overall Quality"; ``docs/style.md``):
content 0.40 ROUGE-Lsum / 0.30 BERTScore / 0.30 BLEURT, or 0.40 / 0.60 without BLEURT; overall 0.70 content /
0.30 style.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from persona_metrics.params import Params, option
from persona_metrics.persona.formulas import DEFAULT_STYLE_METHOD, STYLE_METHODS
from persona_metrics.persona.samples import check_persona_dir, check_persona_samples
from persona_metrics.significance import bootstrap_field, seed_field
from persona_metrics.validation import SCORED_EMPTY, check_bool, check_mapping, check_number, check_path, describe

#: Content weights with BLEURT (methodology, "Content Quality Formula").
CONTENT_WEIGHTS_WITH_BLEURT: Mapping[str, float] = {"rougeLsum": 0.40, "bertscore": 0.30, "bleurt": 0.30}
#: Content weights without BLEURT: its 0.30 goes to BERTScore (methodology: "0.40 / 0.60").
CONTENT_WEIGHTS_WITHOUT_BLEURT: Mapping[str, float] = {"rougeLsum": 0.40, "bertscore": 0.60}
#: Overall weights (methodology, "Overall Quality"): content 70 %, style 30 %.
OVERALL_WEIGHTS: Mapping[str, float] = {"content": 0.70, "style": 0.30}
#: The components of the overall score, in the order of ``overall_weights``.
OVERALL_WEIGHTS_KEYS: tuple[str, str] = ("content", "style")
#: Tolerance for "weights sum to 1".
WEIGHT_SUM_TOLERANCE = 1e-9
#: The ``persona_quality`` options that make a :class:`BertScoreConfig`, in its field order.
BERTSCORE_OPTIONS: tuple[str, ...] = ("bertscore_model", "bertscore_layers", "rescale", "baseline_path")


def check_weights(weights: Mapping[str, float], expected: Sequence[str], name: str) -> dict[str, float]:
    """Validate a weight mapping: exactly the ``expected`` keys, finite non-negative values summing to 1.

    Raises:
        TypeError: not a mapping, or a key that is not a string (naming ``name``).
        ValueError: naming ``name``, the offending key or the sum.
    """
    if not isinstance(weights, Mapping):
        raise TypeError(f"{name} must be a mapping of component → weight, got {type(weights).__name__}")
    check_mapping(name, weights)
    if set(weights) != set(expected):
        raise ValueError(f"{name} must have exactly the keys {sorted(expected)}, got {sorted(weights)}")
    values = {}
    for key, value in weights.items():
        try:
            values[key] = check_number(f"{name}[{key!r}]", value, 0.0)
        except (TypeError, ValueError):
            raise ValueError(f"{name}[{key!r}] must be a finite number >= 0, got {describe(value)}") from None
    total = float(sum(values.values()))
    if abs(total - 1.0) > WEIGHT_SUM_TOLERANCE:
        raise ValueError(f"{name} must sum to 1, got {total:.6g} ({dict(weights)})")
    return values


def resolve_content_weights(weights: object, bleurt_checkpoint: object) -> dict[str, float]:
    """The content weights in use: ``weights`` checked, or the default with or without BLEURT.

    Raises:
        TypeError / ValueError: weights that are not exactly the components in use, or do not sum to 1 (named).
    """
    keys = ("rougeLsum", "bertscore", "bleurt") if bleurt_checkpoint else ("rougeLsum", "bertscore")
    default = CONTENT_WEIGHTS_WITH_BLEURT if bleurt_checkpoint else CONTENT_WEIGHTS_WITHOUT_BLEURT
    return check_weights(weights if weights is not None else default, keys, "content_weights")  # type: ignore[arg-type]


# --- the checks of single options (``check(name, value) -> value kept``) ------------------------------------
def _check_method(name: str, value: object) -> str:
    if not isinstance(value, str) or value not in STYLE_METHODS:
        raise ValueError(f"{name} = {describe(value)} is not a style method; allowed: {list(STYLE_METHODS)}")
    return value


def _as_given(check: Callable[[str, Any], object]) -> Callable[[str, Any], Any]:
    """A check that keeps the value as given (a model id or weights mapping the scorer reads itself)."""

    def run(name: str, value: Any) -> Any:
        check(name, value)
        return value

    return run


def _check_file(name: str, value: object) -> object:
    path = check_path(name, value)
    if not path.is_file():
        raise FileNotFoundError(f"{name} {describe(str(path))} is not a file")
    return value


def check_rescaling(rescale: bool, baseline_path: object) -> None:
    """Refuse a ``baseline_path`` with ``rescale=False``: the file is only read to rescale, so it would be ignored.

    Raises:
        ValueError: naming both options.
    """
    if baseline_path is not None and not rescale:
        raise ValueError("baseline_path is used only with rescale=True, got rescale=False; drop one of them")


def _overall_weights(name: str, value: object) -> object:
    return check_weights(value, OVERALL_WEIGHTS_KEYS, name)  # type: ignore[arg-type]


def _like(params: type[Params], name: str) -> dict[str, Any]:
    """:func:`~persona_metrics.params.option`'s arguments for the default and the spec of ``params``' ``name``."""
    spec = params.spec(name)
    facts = {f.name: getattr(spec, f.name) for f in dataclasses.fields(spec)}
    return {"default": params.default(name), **facts}


@dataclass(frozen=True)
class StyleParams(Params):
    """The options of :func:`~persona_metrics.persona.style.score_style` and the ``persona_style`` module.

    Raises:
        TypeError / ValueError / FileNotFoundError: on construction, a bad value (the option named; the persona
            and index of a bad sample).

    >>> StyleParams(method="zscore").changed()
    {'method': 'zscore'}
    >>> StyleParams(method="cosine")
    Traceback (most recent call last):
    ...
    ValueError: method = 'cosine' is not a style method; allowed: ['jsd', 'zscore', 'posterior', 'fidelity']
    """

    method: str = option(
        DEFAULT_STYLE_METHOD,
        "style similarity: jsd (1 − Jensen-Shannon divergence, the methodology), zscore (per-feature agreement "
        "in pooled standard deviations), posterior (the probability of the target among the personas, from a "
        "model fitted on their samples) or fidelity (graded, open-set and length-aware: the share of texts of the "
        "same length, half the persona's own and half in other registers, that read less like the persona; use "
        "it for summaries); the last three are this project's extensions",
        choices=STYLE_METHODS,
        check=_check_method,
    )
    persona_samples: dict[str, list[str]] | None = option(
        None,
        "extra or overriding personas, {name: [sample texts]}",
        optional=True,
        check=lambda name, value: check_persona_samples(value, name),
    )
    persona_dir: Any = option(
        None,
        "a folder of {persona}.txt sample files (samples separated by --- lines); its file names are its personas",
        optional=True,
        check=lambda name, value: check_persona_dir(value),
    )
    centroid_cache: Any = option(
        None,
        "centroid cache file (default: persona_centroids.json in the library's cache directory)",
        optional=True,
        check=check_path,
    )
    bootstrap: int = bootstrap_field("item")
    seed: int = seed_field("seed of the bootstrap")
    empty: str = option(
        "error",
        "a prediction without a word: error (the named error) or zero (it scores 0)",
        choices=SCORED_EMPTY,
    )


@dataclass(frozen=True)
class QualityParams(Params):
    """The options of :func:`~persona_metrics.persona.quality.score_quality` and the ``persona_quality`` module.

    The first four are :class:`BertScoreConfig`'s (:attr:`bertscore`); the style options are
    :class:`StyleParams`' (:attr:`style`), ``method`` named ``style_method``. ``content_weights`` are checked
    against the components in use (with or without ``bleurt_checkpoint``); a ``baseline_path`` needs ``rescale``
    (:func:`check_rescaling`).

    Raises:
        TypeError / ValueError / FileNotFoundError: on construction, a bad value (the option named), or
            ``baseline_path`` with ``rescale=False`` (both named).

    >>> QualityParams(style_method="zscore").style.method
    'zscore'
    >>> QualityParams(content_weights={"rougeLsum": 1.0})
    Traceback (most recent call last):
    ...
    ValueError: content_weights must have exactly the keys ['bertscore', 'rougeLsum'], got ['rougeLsum']
    """

    bertscore_model: str | None = option(
        None,
        "BERTScore model: a local path or Hub id (default: the packaged all-MiniLM-L6-v2)",
        optional=True,
        check=_as_given(check_path),
    )
    bertscore_layers: int | None = option(
        None, "BERTScore layer (default: the model's)", optional=True, interval=(1, math.inf, True, False), integer=True
    )
    rescale: bool = option(True, "rescale BERTScore with the model's baseline", check=check_bool)
    baseline_path: Any = option(
        None,
        "a bert_score-format baseline file (LAYER,P,R,F) to rescale with (only with rescale=True)",
        optional=True,
        check=_check_file,
    )
    bleurt_checkpoint: str | None = option(
        None,
        "a BLEURT checkpoint (local path or Hub id) to add BLEURT; off by default",
        optional=True,
        check=_as_given(check_path),
    )
    content_weights: Mapping[str, float] | None = option(
        None,
        "weights of rougeLsum, bertscore (and bleurt), summing to 1 (default 0.4 / 0.6; 0.4 / 0.3 / 0.3 with BLEURT)",
        optional=True,
    )
    overall_weights: Mapping[str, float] | None = option(
        None,
        "weights of content and style, summing to 1 (default 0.7 / 0.3)",
        optional=True,
        check=_as_given(_overall_weights),
    )
    persona_samples: dict[str, list[str]] | None = option(**_like(StyleParams, "persona_samples"))
    persona_dir: Any = option(**_like(StyleParams, "persona_dir"))
    centroid_cache: Any = option(**_like(StyleParams, "centroid_cache"))
    style_method: str = option(**_like(StyleParams, "method"))
    bootstrap: int = option(**_like(StyleParams, "bootstrap"))
    seed: int = option(**_like(StyleParams, "seed"))
    empty: str = option(**_like(StyleParams, "empty"))

    def __post_init__(self) -> None:
        """Each option's check, then ``baseline_path`` against ``rescale``, then the content weights."""
        super().__post_init__()
        check_rescaling(self.rescale, self.baseline_path)
        if self.content_weights is not None:
            resolve_content_weights(self.content_weights, self.bleurt_checkpoint)

    @property
    def bertscore(self) -> BertScoreConfig:
        """The BERTScore settings."""
        return BertScoreConfig(self.bertscore_model, self.bertscore_layers, self.rescale, self.baseline_path)

    @property
    def style(self) -> StyleParams:
        """The style options, checked here already (no bootstrap: the quality result draws its own intervals)."""
        return StyleParams.of_checked(
            method=self.style_method,
            persona_samples=self.persona_samples,
            persona_dir=self.persona_dir,
            centroid_cache=self.centroid_cache,
            empty=self.empty,
        )


@dataclass(frozen=True)
class BertScoreConfig:
    """How BERTScore is computed and whether it is rescaled.

    Attributes:
        model: ``None`` for the packaged all-MiniLM-L6-v2, else a local path or Hub id.
        num_layers: layer; ``None`` = the model's default (6 for MiniLM).
        rescale: rescale with the model's baseline (``(F − b)/(1 − b)``); an error if no baseline exists.
        baseline_path: a bert_score-format baseline file (``LAYER,P,R,F``) to use instead of the bundled one;
            only with ``rescale`` (:func:`check_rescaling`).
    """

    model: str | None = None
    num_layers: int | None = None
    rescale: bool = True
    baseline_path: str | None = None

    def __post_init__(self) -> None:
        """Check the four settings by :class:`QualityParams`' checks, under its option names (``bertscore_model`` ...).

        Raises:
            TypeError / ValueError: a bad value (named), or ``baseline_path`` with ``rescale=False`` (both named);
                FileNotFoundError: a ``baseline_path`` that is no file.
        """
        values = (self.model, self.num_layers, self.rescale, self.baseline_path)
        for name, value in zip(BERTSCORE_OPTIONS, values, strict=True):
            QualityParams.spec(name).validate(name, value)
        check_rescaling(self.rescale, self.baseline_path)


__all__ = [
    "BERTSCORE_OPTIONS",
    "CONTENT_WEIGHTS_WITHOUT_BLEURT",
    "CONTENT_WEIGHTS_WITH_BLEURT",
    "OVERALL_WEIGHTS",
    "OVERALL_WEIGHTS_KEYS",
    "WEIGHT_SUM_TOLERANCE",
    "BertScoreConfig",
    "QualityParams",
    "StyleParams",
    "check_rescaling",
    "check_weights",
    "resolve_content_weights",
]
