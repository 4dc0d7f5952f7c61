"""Style similarity as pure functions of feature vectors: JSD, z-score agreement, centroids, nearest persona.

The persona-quality methodology, "Style Fidelity Assessment" (the persona_style card has the formulas and the
measured figures): a summary's 10-feature vector (:mod:`persona_metrics.persona.stylometry`) and the persona's
centroid (mean vector of its sample texts) are each normalised to sum 1 and compared by the Jensen-Shannon divergence
in base 2 (in [0, 1]); ``style_similarity = 1 − JSD`` (``method="jsd"``, the default). ``method="zscore"`` is this
project's extension: per-feature Gaussian agreement in units of the pooled sample spread, averaged.
``method="posterior"``, also this project's: the probability of the target persona among all personas in use from a
model fitted on the samples (:mod:`persona_metrics.persona.posterior`), on the 10 features and 7 register markers.

A text's vector here is :func:`~persona_metrics.persona.stylometry.style_vector`: the 10 features, then the
register markers. Centroids, spread, ``jsd`` and ``zscore`` read the first 10 values only (bit for bit the
methodology's vector); the posterior reads them all.

No files and no option checks here: the samples come from :mod:`persona_metrics.persona.samples`, the options
are checked by :class:`persona_metrics.persona.params.StyleParams`, and the scorer with its centroid cache is
:mod:`persona_metrics.persona.style`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
from scipy.special import rel_entr

from persona_metrics.persona.fidelity import EXCERPT_WORDS, FidelityModel, fit_fidelity
from persona_metrics.persona.posterior import POSTERIOR_INPUTS, PosteriorModel, fit_posterior
from persona_metrics.persona.samples import shipped_background_texts
from persona_metrics.persona.stylometry import (
    FIDELITY_FEATURES,
    STYLE_FEATURES,
    excerpts,
    fidelity_vector,
    style_vector,
)

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
#: ``posterior``: this project's, how strongly the text reads as the target rather than the other personas
#: (:class:`~persona_metrics.persona.posterior.PosteriorModel`; ``docs/style.md`` §4.7).
#: ``fidelity``: this project's, graded, open-set and length-aware (:mod:`~persona_metrics.persona.fidelity`;
#: ``docs/style.md`` §4.8).
STYLE_METHODS: tuple[str, ...] = ("jsd", "zscore", "posterior", "fidelity")
#: The methodology's method is the default.
DEFAULT_STYLE_METHOD = "jsd"
#: How many leading values of a text's vector are the methodology's features (what centroids and JSD see).
N_FEATURES = len(STYLE_FEATURES)
#: Where the ``fidelity`` method's features sit in a text's vector (after the posterior's); its last value is the
#: number of words.
FIDELITY_SLICE = slice(POSTERIOR_INPUTS, POSTERIOR_INPUTS + len(FIDELITY_FEATURES))


#: Bands of ``method="fidelity"``, read from its measured distributions (``docs/style.md`` §4.8, the persona_style
#: card): its own texts' median (Excellent), lower quartile (Good) and 10th percentile (Acceptable), every persona
#: and length pooled, each text scored by a model fitted without it. Below: where 90 % of other personas' texts and
#: of texts in other registers score.
FIDELITY_BANDS: tuple[tuple[float, str], ...] = (
    (0.74, "Excellent"),
    (0.62, "Good"),
    (0.53, "Acceptable"),
    (-math.inf, "Poor"),
)
#: The bands of each method: the methodology's, but for ``fidelity``, whose scale is its own.
BANDS: Mapping[str, tuple[tuple[float, str], ...]] = {
    "jsd": STYLE_BANDS,
    "zscore": STYLE_BANDS,
    "posterior": STYLE_BANDS,
    "fidelity": FIDELITY_BANDS,
}


def style_band(similarity: float, method: str = DEFAULT_STYLE_METHOD) -> str:
    """Excellent, Good, Acceptable or Poor by ``method``'s bands (:data:`BANDS`).

    The methodology's (≥ 0.90, ≥ 0.80, ≥ 0.70) for ``jsd``, ``zscore`` and ``posterior``; ``fidelity``'s own
    (:data:`FIDELITY_BANDS`).

    >>> style_band(0.85), style_band(0.85, "fidelity")
    ('Good', 'Excellent')
    """
    return next(label for bound, label in BANDS[method] if similarity >= bound)


def jensen_shannon(p: np.ndarray, q: np.ndarray) -> float:
    """Jensen-Shannon divergence (base 2) of two non-negative vectors, each normalised to sum 1."""
    p = np.asarray(p, dtype=np.float64) / np.sum(p)
    q = np.asarray(q, dtype=np.float64) / np.sum(q)
    m = (p + q) / 2.0
    return float(min(1.0, max(0.0, (rel_entr(p, m).sum() + rel_entr(q, m).sum()) / 2.0 / math.log(2.0))))


@dataclass(frozen=True)
class StyleModel:
    """What style similarity is measured against: one centroid per persona and the pooled feature spread.

    Attributes:
        centroids: ``{persona: mean normalised feature vector of its samples}``.
        spread: per feature, the standard deviation of the normalised features over all personas' samples
            pooled (the unit of the ``zscore`` method; not used by ``jsd``).
        posterior: the persona posterior of the ``posterior`` method, fitted on the same samples (``None`` with
            fewer than two personas).
        fidelity: the ``fidelity`` method's model (:mod:`~persona_metrics.persona.fidelity`), fitted from the
            texts themselves (``None`` for a model fitted from vectors alone, :func:`fit_style_model`).
    """

    centroids: dict[str, np.ndarray]
    spread: np.ndarray
    posterior: PosteriorModel | None = None
    fidelity: FidelityModel | None = None

    def similarities(self, vector: np.ndarray, method: str = DEFAULT_STYLE_METHOD) -> dict[str, float]:
        """Similarity of one feature vector to every centroid, by ``method`` (see :data:`STYLE_METHODS`)."""
        if method == "jsd":
            return {name: 1.0 - jensen_shannon(vector[:N_FEATURES], c) for name, c in self.centroids.items()}
        if method == "posterior":
            if self.posterior is None:
                raise ValueError(
                    "method 'posterior' needs a model fitted on at least 2 personas' samples (the probability of "
                    f"the target among them); this one has {sorted(self.centroids)}"
                )
            return self.posterior.probabilities(vector)
        if method == "fidelity":
            if self.fidelity is None:
                raise ValueError(
                    "method 'fidelity' needs at least 2 texts per persona (its calibration scores each text by a "
                    f"model fitted without it) and no persona named '{BACKGROUND_PREFIX}…'; the personas "
                    f"{sorted(self.centroids)} have no fidelity model"
                )
            return self.fidelity.scores(vector[FIDELITY_SLICE], int(vector[-1]))
        if not np.all(self.spread > 0):
            flat = [f for f, s in zip(STYLE_FEATURES, self.spread, strict=True) if not s > 0]
            raise ValueError(
                f"method 'zscore' needs every feature to vary over the persona samples, but {flat} take one value "
                "in all of them: add samples (or use method 'jsd')"
            )
        return {name: zscore_similarity(vector[:N_FEATURES], c, self.spread) for name, c in self.centroids.items()}


def zscore_similarity(vector: np.ndarray, centroid: np.ndarray, spread: np.ndarray) -> float:
    """``mean_k exp(−½ · ((x_k − c_k) / s_k)²)``: per-feature Gaussian agreement in pooled-spread units, averaged.

    Each feature contributes 1 at the centroid, 0.61 one pooled standard deviation away, 0.14 at two and ≈ 0
    beyond three; the mean over the features is in [0, 1]. Averaging per feature keeps one extreme feature
    (an exclamation mark in a 15-word summary is 7 per 100 words) from zeroing the whole score.
    """
    z = (np.asarray(vector, dtype=np.float64) - centroid) / spread
    return float(np.mean(np.exp(-0.5 * z * z)))


def fit_style_model(
    vectors: Mapping[str, Sequence[np.ndarray]], register: Mapping[str, Sequence[np.ndarray]] | None = None
) -> StyleModel:
    """Centroids (mean per persona), spread (population standard deviation of all vectors pooled), posterior.

    Centroids and spread are of the first :data:`N_FEATURES` values of the samples' vectors. The posterior model
    (:func:`~persona_metrics.persona.posterior.fit_posterior`) is fitted when there are two personas or more, on
    the whole vectors of the samples and of ``register``'s texts (``{persona: vectors}``, added to those
    personas' samples; :func:`~persona_metrics.persona.samples.register_texts`).
    """
    features = {name: np.asarray([v[:N_FEATURES] for v in vecs]) for name, vecs in vectors.items()}
    centroids = {name: np.mean(x, axis=0) for name, x in features.items()}
    pooled = np.asarray([v for x in features.values() for v in x])
    extra = register or {}
    posterior = (
        fit_posterior({name: [*vecs, *extra.get(name, ())] for name, vecs in vectors.items()})
        if len(vectors) > 1
        else None
    )
    return StyleModel(centroids, pooled.std(axis=0), posterior)


def text_vector(text: str, where: str, fidelity: bool = False) -> np.ndarray:
    """The vector of one text; errors name ``where`` (``predictions[3]: text has no words ...``).

    :func:`~persona_metrics.persona.stylometry.style_vector` (the 10 features, then the register markers); with
    ``fidelity``, then :func:`~persona_metrics.persona.stylometry.fidelity_vector`'s features
    (:data:`FIDELITY_SLICE`) and, last, the number of words (what ``method="fidelity"`` reads).
    """
    try:
        style = style_vector(text)
        if not fidelity:
            return style
        features, n = fidelity_vector(text, style)
        return np.concatenate([style, features, [float(n)]])
    except ValueError as err:
        raise ValueError(f"{where}: {err}") from err


def text_vectors(texts: Sequence[str], field: str = "predictions", fidelity: bool = False) -> list[np.ndarray]:
    """The feature vectors of ``texts``; an error names ``field`` and the index (``samples['x'][2]: ...``)."""
    return [text_vector(text, f"{field}[{i}]", fidelity) for i, text in enumerate(texts)]


def vectors_or_none(
    predictions: Sequence[str], empty: frozenset[int], fidelity: bool = False
) -> list[np.ndarray | None]:
    """The predictions' feature vectors, ``None`` at the ``empty`` positions (scored 0 under ``empty="zero"``)."""
    return [
        None if i in empty else text_vector(text, f"predictions[{i}]", fidelity) for i, text in enumerate(predictions)
    ]


def samples_json(samples: Mapping[str, Sequence[object]]) -> str:
    """``samples`` (texts, or ``[text, group]`` pairs) as canonical JSON, personas sorted: a model's key."""
    return json.dumps({k: list(v) for k, v in sorted(samples.items())})


def fidelity_rows(texts: Sequence[tuple[str, str]], field: str) -> list[tuple[np.ndarray, int, str]]:
    """``(features, words, group)`` of each ``(text, group)`` and of its excerpts (:data:`EXCERPT_WORDS`)."""
    rows = []
    for i, (text, group) in enumerate(texts):
        for piece in [text, *excerpts(text, EXCERPT_WORDS)]:
            vector = text_vector(piece, f"{field}[{i}]", fidelity=True)
            rows.append((vector[FIDELITY_SLICE], int(vector[-1]), group))
    return rows


def sample_rows(name: str, texts: Sequence[str]) -> list[tuple[np.ndarray, int, str]]:
    """:func:`fidelity_rows` of persona ``name``'s samples, each its own group (``sample:<name>:<i>``)."""
    return fidelity_rows([(text, f"sample:{name}:{i}") for i, text in enumerate(texts)], f"samples[{name!r}]")


#: The fidelity model names each background register ``background:<register>`` (never a persona's name).
BACKGROUND_PREFIX = "background:"


@cache
def background_rows() -> dict[str, list[tuple[np.ndarray, int, str]]]:
    """``{register: fidelity rows}`` of the shipped background texts, computed once per process."""
    return {
        f"{BACKGROUND_PREFIX}{name}": fidelity_rows(texts, f"background[{name!r}]")
        for name, texts in shipped_background_texts().items()
    }


@cache
def model_of_samples(samples_key: str, register_key: str = "{}") -> StyleModel:
    """The style model of JSON-encoded samples and register texts (:func:`samples_json` of each), memoised.

    Centroids, spread and posterior (:func:`fit_style_model`); no fidelity model (:func:`fidelity_of_samples`).
    """
    samples, register = json.loads(samples_key), json.loads(register_key)
    return fit_style_model(
        {name: text_vectors(texts, f"samples[{name!r}]") for name, texts in samples.items()},
        {name: text_vectors(texts, f"register[{name!r}]") for name, texts in register.items()},
    )


@cache
def fidelity_of_samples(samples_key: str, fidelity_key: str = "{}") -> FidelityModel | None:
    """The fidelity model of JSON-encoded samples and extra texts, memoised; ``None`` where it cannot be fitted.

    ``fidelity_key``: the method's extra texts ``{persona: [[text, group], …]}``
    (:func:`~persona_metrics.persona.samples.fidelity_texts`). Fitted on each persona's samples (each its own
    group) and extra texts, their excerpts and the shipped background. ``None`` when a persona has fewer than 2
    texts or a background register's name (:meth:`StyleModel.similarities` says so when the method is asked for).
    """
    samples, extra = json.loads(samples_key), json.loads(fidelity_key)
    if any(
        len(texts) + len(extra.get(name, [])) < 2 or name.startswith(BACKGROUND_PREFIX)
        for name, texts in samples.items()
    ):
        return None
    rows = {
        name: sample_rows(name, texts) + fidelity_rows([tuple(t) for t in extra.get(name, [])], f"extra[{name!r}]")
        for name, texts in samples.items()
    }
    return fit_fidelity(rows, background_rows())


def nearest(similarities: Mapping[str, float]) -> str:
    """The persona with the highest similarity (the first of equal ones, in the mapping's order)."""
    return max(similarities, key=lambda k: similarities[k])


def item_scores(
    vectors: Sequence[np.ndarray | None], personas: Sequence[str], model: StyleModel, method: str, features: bool
) -> tuple[list[float], list[str | None], list[dict[str, tuple[float, float]] | None]]:
    """Per item: similarity to its persona, the nearest persona and (``features``) its features by the centroid's.

    An item without a vector (an empty prediction under ``empty="zero"``) scores 0, with ``None`` for the rest.
    """
    scores: list[float] = []
    nearest_personas: list[str | None] = []
    feats: list[dict[str, tuple[float, float]] | None] = []
    for vec, persona in zip(vectors, personas, strict=True):
        if vec is None:
            scores.append(0.0)
            nearest_personas.append(None)
            feats.append(None)
            continue
        sims = model.similarities(vec, method)
        scores.append(sims[persona])
        nearest_personas.append(nearest(sims))
        if features:
            centroid = model.centroids[persona]
            values = vec[:N_FEATURES]
            feats.append({n: (float(v), float(c)) for n, v, c in zip(STYLE_FEATURES, values, centroid, strict=True)})
    return scores, nearest_personas, feats
