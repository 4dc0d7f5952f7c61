"""How well the personas are recognised, what their samples measure, and which persona an article asks for.

* :func:`evaluate_personas`: nearest-centroid identification of held-out labelled texts (confusion, similarity and
  margin tables); :func:`leave_one_out_accuracy`: the same on the samples themselves, each left out in turn;
* :func:`own_persona_ranking`: against each target persona, how often its own texts outscore the others' (ranking
  against one target, which is what a score of one summary for its persona is used for);
  :func:`leave_one_out_ranking`: the same on the samples, each scored by the model fitted without it;
* :func:`sample_feature_means` against :data:`METHODOLOGY_RANGES` / :data:`PRONOUN_ORDER`, the feature ranges the
  methodology states per persona;
* :func:`infer_persona`: the methodology's metadata rules ("Automatic Persona Detection").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from persona_metrics.persona.fidelity import fit_fidelity
from persona_metrics.persona.formulas import (
    DEFAULT_STYLE_METHOD,
    StyleModel,
    background_rows,
    fidelity_of_samples,
    fidelity_rows,
    fit_style_model,
    model_of_samples,
    nearest,
    sample_rows,
    samples_json,
    text_vectors,
)
from persona_metrics.persona.params import StyleParams
from persona_metrics.persona.samples import check_persona_samples, fidelity_texts, register_texts
from persona_metrics.persona.stylometry import STYLE_FEATURES, raw_features

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


def samples_model(samples: Mapping[str, Sequence[str]], fidelity: bool = False) -> StyleModel:
    """The style model of ``samples``, its posterior fitted with their register texts (memoised per process).

    ``fidelity``: fit the ``fidelity`` method's model too (with their extra texts and the background), which
    only that method reads: the other methods do not pay for it.
    """
    model = model_of_samples(samples_json(samples), samples_json(register_texts(samples)))
    if not fidelity:
        return model
    extra = {name: [list(row) for row in rows] for name, rows in fidelity_texts(samples).items()}
    return dataclasses.replace(model, fidelity=fidelity_of_samples(samples_json(samples), samples_json(extra)))


def _check_method(method: object) -> str:
    """``method`` if it is a style method (:class:`~persona_metrics.persona.params.StyleParams`'s check)."""
    return StyleParams.spec("method").validate("method", method)


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
    _check_method(method)
    _check_text_lists("samples", samples)
    _check_text_lists("labelled", labelled)
    for name in labelled:
        if name not in samples:
            raise ValueError(f"labelled persona {name!r} has no samples; personas with samples: {sorted(samples)}")
    personas = tuple(sorted(labelled))
    wanted = method == "fidelity"
    vectors = {p: text_vectors(labelled[p], f"labelled[{p!r}]", wanted) for p in personas}
    model = samples_model(samples, fidelity=wanted)
    centroids = tuple(sorted(model.centroids))
    confusion = np.zeros((len(personas), len(centroids)), dtype=np.int64)
    similarity = np.zeros((len(personas), len(centroids)))
    margin = np.zeros(len(personas))
    for i, persona in enumerate(personas):
        for vec in vectors[persona]:
            sims = model.similarities(vec, method)
            confusion[i, centroids.index(nearest(sims))] += 1
            similarity[i] += [sims[c] for c in centroids]
            margin[i] += sims[persona] - max(s for c, s in sims.items() if c != persona)
        similarity[i] /= len(labelled[persona])
        margin[i] /= len(labelled[persona])
    return PersonaEvaluation(method, personas, centroids, confusion, similarity, margin)


def leave_one_out_similarities(
    samples: Mapping[str, Sequence[str]], method: str = DEFAULT_STYLE_METHOD
) -> dict[str, list[dict[str, float]]]:
    """Each sample's similarities to every persona by ``method``, from the model refitted without that sample.

    ``{persona: [its samples' {persona: similarity}]}``. A persona with one sample cannot be left out of itself
    and has no entry (its sample still takes part in every other fit). The posterior's register texts
    (:func:`~persona_metrics.persona.samples.register_texts` of the whole samples) take part in every fit, and
    with ``method="fidelity"`` its extra texts and background (the fit of :func:`samples_model`, the sample and its
    excerpts left out).
    """
    _check_method(method)
    _check_text_lists("samples", samples)
    if method == "fidelity":
        return _leave_one_out_fidelity(samples)
    vectors = {name: text_vectors(texts, f"samples[{name!r}]") for name, texts in samples.items()}
    register = {name: text_vectors(texts, f"register[{name!r}]") for name, texts in register_texts(samples).items()}
    out: dict[str, list[dict[str, float]]] = {name: [] for name, vecs in vectors.items() if len(vecs) > 1}
    for name, scored in out.items():
        for i, vec in enumerate(vectors[name]):
            rest = {
                other: [v for j, v in enumerate(vecs) if other != name or j != i] for other, vecs in vectors.items()
            }
            scored.append(fit_style_model(rest, register).similarities(vec, method))
    return out


def _leave_one_out_fidelity(samples: Mapping[str, Sequence[str]]) -> dict[str, list[dict[str, float]]]:
    """:func:`leave_one_out_similarities` of ``method="fidelity"``."""
    extra = fidelity_texts(samples)
    rows = {name: sample_rows(name, texts) for name, texts in samples.items()}
    more = {name: fidelity_rows(list(texts), f"fidelity_texts[{name!r}]") for name, texts in extra.items()}
    out: dict[str, list[dict[str, float]]] = {name: [] for name, texts in samples.items() if len(texts) > 1}
    for name, scored in out.items():
        for i in range(len(samples[name])):
            left = f"sample:{name}:{i}"
            fit = {
                other: [r for r in rows[other] if other != name or r[2] != left] + more.get(other, [])
                for other in samples
            }
            vector, words, _ = next(r for r in rows[name] if r[2] == left)  # the whole text comes first
            scored.append(fit_fidelity(fit, background_rows()).scores(vector, words))
    return out


def leave_one_out_accuracy(
    samples: Mapping[str, Sequence[str]], method: str = DEFAULT_STYLE_METHOD
) -> dict[str, float]:
    """Leave-one-out nearest-persona identification accuracy per persona (and ``"overall"``).

    Each sample is assigned to the persona most similar to it (:func:`leave_one_out_similarities`: the centroids,
    spread and posterior model refitted without that sample). A persona with one sample is skipped as a row.
    """
    hits = {
        name: [nearest(sims) == name for sims in scored]
        for name, scored in leave_one_out_similarities(samples, method).items()
    }
    out = {name: sum(h) / len(h) for name, h in hits.items()}
    out["overall"] = sum(sum(h) for h in hits.values()) / sum(len(h) for h in hits.values())
    return out


def own_persona_ranking(similarities: Mapping[str, Sequence[Mapping[str, float]]]) -> dict[str, float]:
    """Per target persona P, the share of pairs (a text of P, a text of another persona) where P's text scores higher.

    ``similarities``: ``{persona: [each of its texts' {target: score}]}``, every text scored against every target
    in the mapping. A tie counts one half (below: b's second text ties with a's against target b). 1.0: against target
    P, every text of P outranks every other text.

    >>> own_persona_ranking({"a": [{"a": 0.9, "b": 0.1}], "b": [{"a": 0.4, "b": 0.6}, {"a": 0.9, "b": 0.1}]})
    {'a': 0.75, 'b': 0.75}
    """
    out = {}
    for target, texts in similarities.items():
        own = np.array([sims[target] for sims in texts])
        others = np.array([sims[target] for name, ts in similarities.items() if name != target for sims in ts])
        wins = (own[:, None] > others[None, :]).sum() + 0.5 * (own[:, None] == others[None, :]).sum()
        out[target] = float(wins / (own.size * others.size))
    return out


def leave_one_out_ranking(samples: Mapping[str, Sequence[str]], method: str = DEFAULT_STYLE_METHOD) -> dict[str, float]:
    """:func:`own_persona_ranking` of the samples, each scored by the model fitted without it.

    Personas with one sample take no part (:func:`leave_one_out_similarities`).
    """
    return own_persona_ranking(leave_one_out_similarities(samples, method))


def sample_feature_means(samples: Mapping[str, Sequence[str]]) -> dict[str, dict[str, float]]:
    """Mean raw (natural-unit) features of each persona's texts, ``{persona: {feature: mean}}``."""
    out = {}
    for name, texts in samples.items():
        feats = [raw_features(t) for t in texts]
        out[name] = {f: float(np.mean([x[f] for x in feats])) for f in STYLE_FEATURES}
    return out


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
