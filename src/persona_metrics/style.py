"""Persona centroids, style similarity (1 − Jensen-Shannon divergence), persona inference.

``reference/persona_quality_methodology.md``, "Style Fidelity Assessment": a summary's 10-feature vector
(:mod:`persona_metrics.stylometry`) and the persona's centroid (mean vector of its sample texts) are each
normalised to sum 1 and compared by the Jensen-Shannon divergence in base 2 (in [0, 1]);
``style_similarity = 1 − JSD``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources as importlib_resources
from pathlib import Path

import numpy as np
from scipy.special import rel_entr

from persona_metrics.resources import cache_dir
from persona_metrics.stylometry import FEATURE_SET_VERSION, STYLE_FEATURES, feature_vector
from persona_metrics.validation import check_text_fields

#: The shipped personas (``persona_metrics/personas/<name>.txt``).
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


def load_persona_samples(directory: str | Path | None = None) -> dict[str, list[str]]:
    """``{persona: [texts]}`` from every ``{persona}.txt`` in ``directory`` (default: the shipped personas).

    Raises:
        FileNotFoundError: the directory does not exist or holds no ``.txt`` file.
    """
    if directory is None:
        root = importlib_resources.files("persona_metrics") / "personas"
        files = {Path(str(f)).stem: f.read_text(encoding="utf-8") for f in root.iterdir() if f.name.endswith(".txt")}
    else:
        path = Path(directory)
        if not path.is_dir():
            raise FileNotFoundError(f"persona_dir {path} is not a directory")
        files = {f.stem: f.read_text(encoding="utf-8") for f in sorted(path.glob("*.txt"))}
    if not files:
        raise FileNotFoundError(f"no {{persona}}.txt files in {directory or 'the packaged personas'}")
    return {name: split_samples(text) for name, text in sorted(files.items())}


def resolve_samples(
    persona_samples: Mapping[str, Sequence[str]] | None = None, persona_dir: str | Path | None = None
) -> dict[str, list[str]]:
    """Shipped personas, overridden/extended by ``persona_dir`` files, then by ``persona_samples``."""
    samples = load_persona_samples()
    if persona_dir is not None:
        samples |= load_persona_samples(persona_dir)
    for name, texts in (persona_samples or {}).items():
        if not isinstance(name, str) or isinstance(texts, str) or not isinstance(texts, Sequence) or not texts:
            raise ValueError(f"persona_samples[{name!r}] must be a non-empty list of texts")
        check_text_fields(**{f"persona_samples[{name!r}]": list(texts)})
        samples[name] = list(texts)
    return samples


def samples_hash(samples: Mapping[str, Sequence[str]]) -> str:
    """Hash of the sample texts and the feature-set version: the centroid cache key."""
    payload = json.dumps({"v": FEATURE_SET_VERSION, "samples": {k: list(v) for k, v in sorted(samples.items())}})
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def default_centroid_path() -> Path:
    """``cache_dir()/persona_centroids.json``."""
    return cache_dir() / "persona_centroids.json"


@cache
def _centroids_for(samples_json: str) -> dict[str, np.ndarray]:
    """Centroids of JSON-encoded samples, memoised for the process."""
    samples = json.loads(samples_json)
    return {name: np.mean([feature_vector(t) for t in texts], axis=0) for name, texts in samples.items()}


def build_centroids(
    samples: Mapping[str, Sequence[str]], cache_path: str | Path | None = None
) -> dict[str, np.ndarray]:
    """Mean feature vector per persona, cached as JSON and rebuilt when the samples change.

    The JSON file holds ``{"key": <samples hash>, "features": [...], "centroids": {name: [...]}}``; a file
    with another key (other samples or feature version) is replaced.
    """
    key = samples_hash(samples)
    path = Path(cache_path) if cache_path is not None else default_centroid_path()
    if path.is_file():
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
            if stored.get("key") == key:
                return {k: np.array(v) for k, v in stored["centroids"].items()}
        except (json.JSONDecodeError, KeyError, TypeError):
            pass  # unreadable cache: rebuilt and overwritten below
    centroids = _centroids_for(json.dumps({k: list(v) for k, v in sorted(samples.items())}))
    record = {
        "key": key,
        "feature_set_version": FEATURE_SET_VERSION,
        "features": list(STYLE_FEATURES),
        "centroids": {k: v.tolist() for k, v in centroids.items()},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".centroids-", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(record, f, indent=1)
    os.replace(tmp, path)
    return dict(centroids)


# --- scoring ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class StyleResult:
    """Per-item style similarity to the target persona, and how it was made.

    Attributes:
        scores: ``1 − JSD(summary, centroid)`` per item.
        personas: the target persona per item.
        nearest: the persona whose centroid is closest to each item.
        features: per item, ``{feature: (summary value, centroid value)}`` in normalised units, when asked for.
        signature: feature-set version, divergence and the samples hash.
    """

    scores: np.ndarray
    personas: tuple[str, ...]
    nearest: tuple[str, ...]
    features: tuple[dict[str, tuple[float, float]], ...] | None
    signature: str

    @property
    def mean(self) -> float:
        """Mean style similarity."""
        return float(self.scores.mean())


def score_style(
    predictions: Sequence[str],
    personas: Sequence[str],
    *,
    persona_samples: Mapping[str, Sequence[str]] | None = None,
    persona_dir: str | Path | None = None,
    centroid_cache: str | Path | None = None,
    return_features: bool = False,
) -> StyleResult:
    """Style similarity of each prediction to its persona's centroid.

    Args:
        predictions: summaries; each must contain at least one word (style is undefined for empty text).
        personas: target persona per item (a shipped persona or one given by the next two arguments).
        persona_samples: extra or overriding personas, ``{name: [sample texts]}``.
        persona_dir: a directory of ``{persona}.txt`` files (samples separated by ``---`` lines).
        centroid_cache: centroid JSON path (default ``cache_dir()/persona_centroids.json``).
        return_features: also return each item's normalised features next to the centroid's.

    Raises:
        TypeError: a non-string item (field and index named).
        ValueError: an unknown persona (index and known personas named), mismatched lengths, or a prediction
            without words (index named).
    """
    check_text_fields(predictions=predictions, personas=personas)
    samples = resolve_samples(persona_samples, persona_dir)
    for i, persona in enumerate(personas):
        if persona not in samples:
            raise ValueError(f"personas[{i}] = {persona!r} is not a known persona; known: {sorted(samples)}")
    centroids = build_centroids(samples, centroid_cache)
    scores, nearest, features = [], [], []
    for i, (text, persona) in enumerate(zip(predictions, personas, strict=True)):
        try:
            vec = feature_vector(text)
        except ValueError as err:
            raise ValueError(f"predictions[{i}]: {err}") from err
        divergences = {name: jensen_shannon(vec, c) for name, c in centroids.items()}
        scores.append(1.0 - divergences[persona])
        nearest.append(min(divergences, key=lambda k: divergences[k]))
        if return_features:
            features.append(
                {n: (float(v), float(c)) for n, v, c in zip(STYLE_FEATURES, vec, centroids[persona], strict=True)}
            )
    return StyleResult(
        scores=np.array(scores),
        personas=tuple(personas),
        nearest=tuple(nearest),
        features=tuple(features) if return_features else None,
        signature=f"style|features:v{FEATURE_SET_VERSION}|jsd:base2|samples:{samples_hash(samples)[:12]}",
    )


def leave_one_out_accuracy(samples: Mapping[str, Sequence[str]]) -> dict[str, float]:
    """Leave-one-out nearest-centroid identification accuracy per persona (and ``"overall"``).

    Each sample is assigned to the persona whose centroid, recomputed without that sample, is nearest by JSD.
    """
    vectors = {name: [feature_vector(t) for t in texts] for name, texts in samples.items()}
    hits: dict[str, list[bool]] = {name: [] for name in samples}
    for name, vecs in vectors.items():
        for i, vec in enumerate(vecs):
            centroids = {
                other: np.mean([v for j, v in enumerate(ovecs) if other != name or j != i], axis=0)
                for other, ovecs in vectors.items()
            }
            hits[name].append(min(centroids, key=lambda k: jensen_shannon(vec, centroids[k])) == name)
    out = {name: sum(h) / len(h) for name, h in hits.items()}
    out["overall"] = sum(sum(h) for h in hits.values()) / sum(len(h) for h in hits.values())
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
