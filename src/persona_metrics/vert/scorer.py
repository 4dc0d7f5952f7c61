"""VERT of predictions against references: validation, one preparation per unique text, one solve per unique pair.

>>> from persona_metrics.vert import score_vert
>>> target = "Endeavour astronauts join two segments of International Space Station"
>>> result = score_vert([target.replace("segments", "sections"), target], [target, target])
>>> [round(v, 3) for v in result.vert.tolist()]  # an acceptable paraphrase, then the identical sentence
[0.946, 1.0]
>>> [flow[:2] for flow in result.alignment(0).flows() if flow[3] > 0]  # the only word that had to move
[('sections', 'segments')]
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

import numpy as np

from persona_metrics.extras import require
from persona_metrics.progress import progress_bar
from persona_metrics.results import ItemResult
from persona_metrics.signature import Signature, package_version
from persona_metrics.text_services import STOPWORDS_NAME
from persona_metrics.validation import check_reference_lists, check_texts
from persona_metrics.vert.encoders import WORDLLAMA, SentenceEncoder, embed_texts, resolve_encoder
from persona_metrics.vert.formulas import (
    DEFAULT_ALPHA,
    DEFAULT_MAX_WMD,
    aggregate,
    capped_wmd,
    cosine_rows,
    vert_score,
)
from persona_metrics.vert.meaning import MEANING_FIELDS, prepare_meaning_text
from persona_metrics.vert.params import VertParams
from persona_metrics.vert.vectors import GLOVE_6B_50D, WordVectors, load_word_vectors
from persona_metrics.vert.wmd import (
    PreparedText,
    prepare_bags,
    prepare_text,
    transport_plan,
    word_movers_distance,
)

#: Unique pairs prepared and solved at once: bounds what the WMD holds per call (``docs/vert.md`` §9).
PAIR_CHUNK = 1024


@dataclass(frozen=True)
class WordAlignment:
    """Which words of a prediction moved where in the reference: the optimal transport of the WMD.

    Attributes:
        prediction_words: the prediction's distinct kept words (rows of ``plan``).
        reference_words: the reference's distinct kept words (columns of ``plan``).
        prediction_weights: nBOW weight of each prediction word (row sums of ``plan``).
        reference_weights: nBOW weight of each reference word (column sums of ``plan``).
        plan: mass moved from each prediction word to each reference word.
        cost: Euclidean distance of the raw word vectors of each word pair.
        wmd: the pair's WMD as VERT uses it (capped; the cap when a side has no word).
        dropped: per side (``"prediction"``, ``"reference"``), the tokens dropped as stopwords and as
            out-of-vocabulary: ``{"stopwords": [...], "oov": [...]}``.
    """

    prediction_words: tuple[str, ...]
    reference_words: tuple[str, ...]
    prediction_weights: np.ndarray
    reference_weights: np.ndarray
    plan: np.ndarray
    cost: np.ndarray
    wmd: float
    dropped: dict[str, dict[str, list[str]]]

    def flows(self, min_mass: float = 1e-12) -> list[tuple[str, str, float, float]]:
        """``(prediction word, reference word, mass, distance)`` of every flow above ``min_mass``, largest first."""
        rows, cols = np.nonzero(self.plan > min_mass)
        items = [
            (self.prediction_words[i], self.reference_words[j], float(self.plan[i, j]), float(self.cost[i, j]))
            for i, j in zip(rows.tolist(), cols.tolist(), strict=True)
        ]
        return sorted(items, key=lambda item: (-item[2], item[0], item[1]))

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-able lists: words, weights, ``flows`` as ``[i, j, mass, distance]`` (indices into the words)."""
        rows, cols = np.nonzero(self.plan > 1e-12)
        flows = [
            [i, j, float(self.plan[i, j]), float(self.cost[i, j])]
            for i, j in zip(rows.tolist(), cols.tolist(), strict=True)
        ]
        return {
            "prediction_words": list(self.prediction_words),
            "reference_words": list(self.reference_words),
            "prediction_weights": self.prediction_weights.tolist(),
            "reference_weights": self.reference_weights.tolist(),
            "flows": flows,
            "wmd": self.wmd,
            "dropped": self.dropped,
        }


@dataclass(frozen=True)
class TextPairs(Sequence[tuple[str, str]]):
    """Each item's ``(prediction, chosen reference)``, held as two lists (a tuple per item costs 64 bytes more)."""

    predictions: list[str]
    references: list[str]

    def __len__(self) -> int:
        return len(self.predictions)

    @overload
    def __getitem__(self, item: int) -> tuple[str, str]: ...

    @overload
    def __getitem__(self, item: slice) -> list[tuple[str, str]]: ...

    def __getitem__(self, item: int | slice) -> tuple[str, str] | list[tuple[str, str]]:
        if isinstance(item, slice):
            return list(zip(self.predictions[item], self.references[item], strict=True))
        return self.predictions[item], self.references[item]


@dataclass(frozen=True, eq=False)
class VertResult(ItemResult):
    """Per-pair VERT and its two sub-scores, and how they were made.

    Attributes:
        vert: VERT per item (against its best reference when an item has several).
        sim: cosine similarity of the sentence embeddings per item.
        wmd: word mover's distance per item, capped at ``max_wmd`` (the value VERT uses).
        reference_index: per item, which of its references scored best (0 with a single reference).
        max_wmd: the cap, for :meth:`alignment`.
        config: encoder, vectors, preprocessing, α, cap and versions (:attr:`signature` prints it).
    """

    vert: np.ndarray
    sim: np.ndarray
    wmd: np.ndarray
    reference_index: np.ndarray
    max_wmd: float
    config: Signature
    _pairs: Sequence[tuple[str, str]] = field(repr=False)
    # how an alignment prepares a text; not part of what the result is (a merge takes the first part's)
    _prepare: Callable[[str], PreparedText] | None = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.vert)

    def means(self) -> dict[str, float]:
        """``{"vert", "sim", "wmd"}``: means over the items (:func:`~persona_metrics.vert.formulas.aggregate`)."""
        return {"vert": aggregate(self.vert), "sim": aggregate(self.sim), "wmd": aggregate(self.wmd)}

    def per_item(self) -> dict[str, list[float]]:
        """``{"vert", "sim", "wmd"}``: one list each, aligned with the predictions."""
        return {"vert": self.vert.tolist(), "sim": self.sim.tolist(), "wmd": self.wmd.tolist()}

    def alignment(self, item: int) -> WordAlignment:
        """The word alignment of item ``item`` with its (best) reference: the WMD's optimal transport plan.

        Raises:
            IndexError: no such item.
        """
        if not -len(self) <= item < len(self):
            raise IndexError(f"item {item} out of range for {len(self)} items")
        if self._prepare is None or not self._pairs:
            raise ValueError("this result has no texts to align (a result rebuilt from per-item states)")
        prediction, reference = (self._prepare(text) for text in self._pairs[item])
        plan, cost, distance = transport_plan(prediction, reference)
        return WordAlignment(
            prediction.words,
            reference.words,
            prediction.weights,
            reference.weights,
            plan,
            cost,
            float(capped_wmd(distance, self.max_wmd)),
            {
                side: {"stopwords": list(text.stopwords), "oov": list(text.oov)}
                for side, text in (("prediction", prediction), ("reference", reference))
            },
        )

    def as_dict(self, per_item: bool = False, signature: bool = False, alignment: bool = False) -> dict[str, Any]:
        """``vert``, ``sim``, ``wmd`` (means); ``per_item`` lists, ``signature``, per-item ``alignment`` on request."""
        out = self.summary_dict(per_item, signature)
        if alignment:
            out["alignment"] = [self.alignment(i).as_dict() for i in range(len(self))]
        return out


def check_vert_inputs(predictions: object, references: object) -> tuple[list[str], list[list[str]]]:
    """Validate the inputs; return the predictions and the references as one list per prediction.

    Raises:
        TypeError: a non-list field or a non-string item (field and index named).
        ValueError: no items, different lengths, an empty reference (field and index named). Empty
            predictions are allowed (their VERT is documented: ``docs/vert.md`` §6).
    """
    texts = check_texts(allow_empty=("predictions",), predictions=predictions)["predictions"]
    refs = check_reference_lists(references)
    if len(refs) != len(texts):
        raise ValueError(f"references has {len(refs)} items but predictions has {len(texts)}; they must align")
    return texts, refs


class VertScorer:
    """VERT with one configuration; models and vectors are loaded once per process and shared.

    Args:
        encoder: the sentence encoder: ``"wordllama"`` (default), ``"minilm"``, a sentence-transformers model
            path, an encoder object or a callable ``texts -> array``
            (:func:`~persona_metrics.vert.encoders.resolve_encoder`).
        word_vectors: ``"glove-6b-50d"`` (default, packaged), a word2vec/GloVe file path or gensim
            ``KeyedVectors`` (:func:`~persona_metrics.vert.vectors.load_word_vectors`).
        alpha: divisor of the capped WMD (the authors' 5).
        max_wmd: the WMD cap (the authors' 5).
        clip_negative_sim: raise negative cosines to 0 (off by default, like the original; ``docs/vert.md`` §6).
        meaning_sensitive: the meaning-sensitive WMD (off by default: the original; ``docs/vert.md`` §11).
        params: the options above as one checked :class:`~persona_metrics.vert.params.VertParams`, instead of one
            by one (``Params.from_call``: not both).

    Raises:
        TypeError, ValueError: a bad option (named; :class:`~persona_metrics.vert.params.VertParams` checks them).
    """

    def __init__(
        self,
        encoder: str | Path | SentenceEncoder | Callable[[list[str]], Any] | None = None,
        word_vectors: str | Path | WordVectors | Any = GLOVE_6B_50D,
        *,
        alpha: float = DEFAULT_ALPHA,
        max_wmd: float = DEFAULT_MAX_WMD,
        clip_negative_sim: bool = False,
        meaning_sensitive: bool = False,
        params: VertParams | None = None,
    ) -> None:
        require("VERT (word mover's distance: POT)", "ot")
        options = {
            "encoder": WORDLLAMA if encoder is None else encoder,  # None: the default, WordLlama
            "word_vectors": word_vectors,
            "alpha": alpha,
            "max_wmd": max_wmd,
            "clip_negative_sim": clip_negative_sim,
            "meaning_sensitive": meaning_sensitive,
        }
        self.params = VertParams.from_call(params, options)
        self.alpha, self.max_wmd = self.params.alpha, self.params.max_wmd
        self.clip_negative_sim = self.params.clip_negative_sim
        self.meaning_sensitive = self.params.meaning_sensitive
        self.encoder = resolve_encoder(self.params.encoder)
        self.vectors = load_word_vectors(self.params.word_vectors)

    @property
    def config(self) -> Signature:
        """``vert|sim:…|vectors:…|tokens:…|stopwords:…|oov:drop|wmd:…|alpha:5|cap:5|negsim:…|pot:…``.

        With ``meaning_sensitive``, ``tokens``, ``stopwords`` and ``wmd`` name its preparation and costs
        (:data:`~persona_metrics.vert.meaning.MEANING_FIELDS`).
        """
        wmd_fields = {
            "tokens": "lower-split",
            "stopwords": STOPWORDS_NAME,
            "oov": "drop",
            "wmd": "emd-euclidean-raw-nbow",
        }
        if self.meaning_sensitive:
            wmd_fields.update(MEANING_FIELDS)
        return (
            Signature.of("vert")
            + self.encoder.signature()
            + self.vectors.signature()
            + Signature.of(
                **wmd_fields,
                alpha=self.alpha,
                cap=self.max_wmd,
                negsim="clip" if self.clip_negative_sim else "keep",
                pot=package_version("POT"),
            )
        )

    def score(self, predictions: Sequence[str], references: Sequence[str | Sequence[str]]) -> VertResult:
        """VERT of each prediction against its reference (the best one, if it has several).

        Each unique pair of texts gets one cosine and one WMD solve, whichever side it appears on. The pairs
        are solved :data:`PAIR_CHUNK` at a time, each chunk preparing (and, with WordLlama, embedding) its own
        texts, so that nothing per pair or per text but the result values is held for the whole call
        (``docs/vert.md`` §9).

        Args:
            predictions: generated texts; an empty one scores sim 0, WMD = cap (``docs/vert.md`` §6).
            references: one reference, or a list of references, per prediction.

        Raises:
            TypeError, ValueError: bad inputs (field and index named).
        """
        predictions, refs = check_vert_inputs(predictions, references)
        texts = sorted(set(predictions).union(*refs))  # sorted: the encoder sees the same batches in any order
        position = {text: k for k, text in enumerate(texts)}
        counts = np.fromiter((len(r) for r in refs), dtype=np.int64, count=len(refs))
        first = np.repeat(np.fromiter((position[p] for p in predictions), dtype=np.int64, count=len(refs)), counts)
        second = np.fromiter((position[r] for item in refs for r in item), dtype=np.int64, count=int(counts.sum()))
        codes = np.minimum(first, second) * len(texts) + np.maximum(first, second)
        unique, slot = np.unique(codes, return_inverse=True)  # per (item, reference): its unique pair
        left, right = np.divmod(unique, len(texts))
        sims, raw = self._pair_values(texts, left, right)
        wmds = np.asarray(capped_wmd(raw, self.max_wmd))
        verts = np.asarray(vert_score(sims, wmds, self.alpha, self.max_wmd))
        best = best_reference(verts[slot], counts)
        picked = slot[np.cumsum(counts) - counts + best]
        pairs = TextPairs(list(predictions), [r[k] for r, k in zip(refs, best.tolist(), strict=True)])
        prepare = functools.partial(self._prepare_function(), vectors=self.vectors)
        return VertResult(verts[picked], sims[picked], wmds[picked], best, self.max_wmd, self.config, pairs, prepare)

    def _prepare_function(self) -> Callable[..., PreparedText]:
        """How an alignment prepares a text: in full (it names the dropped tokens)."""
        return prepare_meaning_text if self.meaning_sensitive else prepare_text

    def _prepare_many(self) -> Callable[[list[str], WordVectors], list[PreparedText]]:
        """How the scorer prepares a chunk's texts: for the distance only."""
        if self.meaning_sensitive:
            return lambda texts, vectors: [prepare_meaning_text(text, vectors) for text in texts]
        return prepare_bags

    def _pair_values(self, texts: list[str], left: np.ndarray, right: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Cosine and raw WMD of each unique pair ``(texts[left[k]], texts[right[k]])``, a chunk at a time.

        The pairs go in order of their more used text (a reference shared by many predictions), so a chunk
        prepares each such text once. An encoder whose embedding of a text does not depend on the other texts
        of its batch (``batch_invariant``, WordLlama) embeds each chunk's texts with the chunk; any other
        encoder embeds every text in one call first, as it always did (its batches, and so its rounding, stay
        those of the sorted texts).
        """
        sims = np.empty(len(left), dtype=np.float64)
        raw = np.empty(len(left), dtype=np.float64)
        prepare = self._prepare_many()
        streamed = bool(getattr(self.encoder, "batch_invariant", False))
        embeddings = None if streamed else embed_texts(self.encoder, texts)
        uses = np.bincount(np.concatenate([left, right]), minlength=len(texts))
        hub = np.where(uses[left] >= uses[right], left, right)
        order = np.lexsort((left + right - hub, hub))
        with progress_bar(desc="vert: word mover's distance", total=len(left), unit="pair") as bar:
            for start in range(0, len(order), PAIR_CHUNK):
                chunk = order[start : start + PAIR_CHUNK]
                a, b = left[chunk], right[chunk]
                needed = np.union1d(a, b)
                if embeddings is None:
                    vectors = embed_texts(self.encoder, [texts[k] for k in needed.tolist()])
                    sims[chunk] = cosine_rows(vectors[np.searchsorted(needed, a)], vectors[np.searchsorted(needed, b)])
                else:
                    sims[chunk] = cosine_rows(embeddings[a], embeddings[b])
                keys = needed.tolist()
                prepared = dict(zip(keys, prepare([texts[k] for k in keys], self.vectors), strict=True))
                pairs = zip(a.tolist(), b.tolist(), strict=True)
                raw[chunk] = [word_movers_distance(prepared[i], prepared[j]) for i, j in pairs]
                bar.update(len(chunk))
        sims[left == right] = 1.0  # a text against itself (never empty: references are not): exactly 1
        if self.clip_negative_sim:
            sims = np.maximum(sims, 0.0)
        return sims, raw


def best_reference(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Per item, the position of its first largest value; ``values`` holds ``counts[i]`` values per item, in order.

    >>> best_reference(np.array([0.2, 0.5, 0.5, 0.1, 0.9]), np.array([3, 1, 1])).tolist()
    [1, 0, 0]
    """
    if bool(np.all(counts == 1)):
        return np.zeros(len(counts), dtype=np.int64)
    starts = np.cumsum(counts) - counts
    within = np.arange(len(values), dtype=np.int64) - np.repeat(starts, counts)
    top = np.repeat(np.maximum.reduceat(values, starts), counts)
    return np.minimum.reduceat(np.where(values == top, within, len(values)), starts).astype(np.int64)


def score_vert(
    predictions: Sequence[str],
    references: Sequence[str | Sequence[str]],
    *,
    encoder: str | Path | SentenceEncoder | Callable[[list[str]], Any] | None = WORDLLAMA,
    word_vectors: str | Path | WordVectors | Any = GLOVE_6B_50D,
    alpha: float = DEFAULT_ALPHA,
    max_wmd: float = DEFAULT_MAX_WMD,
    clip_negative_sim: bool = False,
    meaning_sensitive: bool = False,
    params: VertParams | None = None,
) -> VertResult:
    """VERT = ½ · (1 + sim − min(WMD, max_wmd) / alpha) per pair, and its means (``docs/vert.md`` §1).

    Args:
        predictions: generated texts (an empty one is allowed: ``docs/vert.md`` §6).
        references: one reference or a list of references per prediction (the best-scoring one is kept).
        encoder: sentence encoder for sim (:class:`VertScorer`); default WordLlama ``l2_supercat_256``.
        word_vectors: word vectors for the WMD; default the packaged GloVe 6B 50d.
        alpha: divisor of the capped WMD.
        max_wmd: the WMD cap.
        clip_negative_sim: raise negative cosines to 0.
        meaning_sensitive: negations, numbers, unknown words, opposites and the names' order count in the WMD
            (``docs/vert.md`` §11); off by default (the original).
        params: the options above as one checked :class:`~persona_metrics.vert.params.VertParams`, instead of one
            by one.

    Raises:
        TypeError, ValueError: bad inputs or options (field and index named).
    """
    scorer = VertScorer(
        encoder,
        word_vectors,
        alpha=alpha,
        max_wmd=max_wmd,
        clip_negative_sim=clip_negative_sim,
        meaning_sensitive=meaning_sensitive,
        params=params,
    )
    return scorer.score(predictions, references)
