"""SummaryEval's one-call encoding: the batched path equals the per-pair path, side by side on this machine.

The scorer encodes every unique text of a call (summaries, topics, the sentences coherence reads) in one encoder
call and reads the rows back (``components.EmbeddingCache``); the per-pair path calls the encoder for each text list
as it is needed (the original's calls). The same component functions run on both, so the values may differ only
by the float32 encoder's noise between batch compositions (padding, kernel blocking): within 1e-6. The cosine and
TF-IDF shortcuts are compared with scikit-learn itself, bit for bit.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics.pairwise import cosine_similarity

from persona_metrics.resources import sent_tokenize
from persona_metrics.summary_eval import SummaryEvalScorer
from persona_metrics.summary_eval import components as C
from persona_metrics.text_services import EACH_PASS_TOKENS

ROOT = Path(__file__).resolve().parents[1]
CNNDM = [json.loads(line) for line in (ROOT / "data" / "cnndm_sample" / "test.jsonl").read_text().splitlines()]
GOLDEN = json.loads((ROOT / "tests" / "golden" / "summary_eval_original.json").read_text(encoding="utf-8"))["pairs"]
TOLERANCE = 1e-6


def degenerate_pairs() -> tuple[list[str], list[str]]:
    """Pairs with every shape the call can meet, several sharing sentences and sources."""
    a, b = CNNDM[0], CNNDM[1]
    lead = sent_tokenize(a["article"])
    summaries = [
        a["highlights"],
        "",  # empty summary
        "   ",  # whitespace only
        lead[0],  # one sentence, copied from the source
        "Revenue.",  # one word
        f"{lead[0]} {lead[0]} {lead[1]} {lead[1]}",  # repeated sentences
        " ".join(lead[:3]),  # lead-3: sentences shared with the source (and its topics)
        f"{lead[1]} {b['highlights']}",  # shares a sentence with the one above, another source
        a["highlights"],  # the same pair twice
        "The deal closed. It was large.",  # an empty source below
        "One source sentence here, and the summary of it.",
        b["highlights"],
    ]
    sources = [
        a["article"], a["article"], a["article"], a["article"], a["article"], a["article"], a["article"],
        b["article"], a["article"], "", "Only one sentence in this source.", b["article"],
    ]  # fmt: skip
    return summaries, sources


@pytest.fixture(scope="module")
def scorer() -> SummaryEvalScorer:
    return SummaryEvalScorer()


def per_pair(scorer: SummaryEvalScorer, summaries: list[str], sources: list[str], method: str):
    """Completeness detail and (coherence, components) per pair, the encoder called per text list."""
    encode = scorer.encoder.encode
    topics = {source: C.extract_topics(source) for source in dict.fromkeys(sources)}
    detail = [C.completeness(s, topics[src], encode) for s, src in zip(summaries, sources, strict=True)]
    if method == "original":
        scored = [C.coherence(s, encode) for s in summaries]
    else:
        scored = [
            C.robust_coherence(s, C.sentence_embeddings(src, encode), encode)
            for s, src in zip(summaries, sources, strict=True)
        ]
    return detail, scored


@pytest.mark.parametrize("method", ["original", "robust"])
def test_batched_scoring_equals_the_per_pair_path(method: str) -> None:
    summaries, sources = degenerate_pairs()
    scorer = SummaryEvalScorer(coherence_method=method)
    calls: list[list[str]] = []
    encode = scorer.encoder.encode_each

    def counted(texts: list[str]) -> np.ndarray:
        calls.append(list(texts))
        return encode(texts)

    scorer.encoder.encode_each = counted  # type: ignore[method-assign]
    result = scorer.score(summaries, sources)
    assert len(calls) == 1, "one encoder call per scoring call"
    assert len(calls[0]) == len(set(calls[0])), "each unique text encoded once"
    scorer.encoder.encode_each = encode  # type: ignore[method-assign]
    detail, scored = per_pair(scorer, summaries, sources, method)

    assert np.max(np.abs(result.completeness - [d.score for d in detail])) <= TOLERANCE
    assert np.max(np.abs(result.coherence - [value for value, _ in scored])) <= TOLERANCE
    for i, (batched, (_, parts)) in enumerate(zip(result.components, scored, strict=True)):
        assert batched.keys() == parts.keys()
        for name in parts:
            assert batched[name] == pytest.approx(parts[name], abs=TOLERANCE), (i, name)
    for batched, alone in zip(result.topics, detail, strict=True):
        assert [t[:2] + t[3:] for t in batched.topics] == [t[:2] + t[3:] for t in alone.topics]
        assert np.allclose([t[2] for t in batched.topics], [t[2] for t in alone.topics], rtol=0, atol=TOLERANCE)
    assert result.coherence[1] == result.coherence[2] == 0.0  # empty and blank summaries
    assert result.coherence[0] == result.coherence[8]
    assert result.completeness[0] == result.completeness[8]


def test_the_golden_pairs_batched_and_per_pair(scorer: SummaryEvalScorer) -> None:
    summaries, sources = [p["summary"] for p in GOLDEN], [p["source"] for p in GOLDEN]
    result = scorer.score(summaries, sources)
    detail, scored = per_pair(scorer, summaries, sources, "original")
    assert np.max(np.abs(result.completeness - [d.score for d in detail])) <= TOLERANCE
    assert np.max(np.abs(result.coherence - [value for value, _ in scored])) <= TOLERANCE


def test_an_embedding_does_not_depend_on_its_batch_neighbours(scorer: SummaryEvalScorer) -> None:
    """encode_each: a text's vector is the same bits alone, with others, and in a call split into two."""
    texts = [CNNDM[0]["highlights"], *sent_tokenize(CNNDM[1]["article"]), "Revenue.", CNNDM[2]["highlights"]]
    together = scorer.encoder.encode_each(texts)
    alone = np.concatenate([scorer.encoder.encode_each([t]) for t in texts])
    halves = np.concatenate([scorer.encoder.encode_each(texts[::2]), scorer.encoder.encode_each(texts[1::2])])
    assert together.dtype == alone.dtype == np.float32
    assert np.array_equal(together, alone)
    assert np.array_equal(np.concatenate([together[::2], together[1::2]]), halves)
    # and the model's own vectors (sentence-transformers' padded batches) within float32 rounding
    assert np.max(np.abs(together - scorer.encoder.encode(texts))) <= TOLERANCE
    # a text alone is one fixed-shape pass of copies of itself: encode() on that same batch gives the same bits
    model = scorer.encoder._model()
    for text, row in zip(texts, alone, strict=True):
        ids = model.tokenizer(text, truncation=True, max_length=model.max_seq_length)["input_ids"]
        rows = max(1, EACH_PASS_TOKENS // len(ids))
        assert np.array_equal(model.encode([text] * rows, batch_size=rows, convert_to_numpy=True)[0], row), text


def test_sharded_scores_are_the_whole_calls_bit_for_bit(scorer: SummaryEvalScorer) -> None:
    """Completeness and coherence of a call split in two (other texts encoded beside each) == the whole call's."""
    summaries, sources = [p["summary"] for p in GOLDEN], [p["source"] for p in GOLDEN]
    whole = scorer.score(summaries, sources)
    parts = [scorer.score(summaries[k::2], sources[k::2]) for k in (0, 1)]
    for k, part in enumerate(parts):
        assert part.completeness.tolist() == whole.completeness[k::2].tolist()
        assert part.coherence.tolist() == whole.coherence[k::2].tolist()


def test_embedding_cache_encodes_each_text_once_and_keeps_the_order() -> None:
    calls: list[list[str]] = []

    def encode(texts: list[str]) -> np.ndarray:
        calls.append(list(texts))
        return np.array([[len(t), ord(t[0]) if t else 0] for t in texts], dtype=np.float32)

    cache = C.EmbeddingCache(encode, ["b", "aa", "b", "ccc"])
    assert calls == [["b", "aa", "ccc"]]
    assert len(cache) == 3
    assert cache(["ccc", "b", "b"]).tolist() == [[3, 99], [1, 98], [1, 98]]
    assert cache(["dddd", "aa", "dddd", "e"]).tolist() == [[4, 100], [2, 97], [4, 100], [1, 101]]
    assert calls[1:] == [["dddd", "e"]]  # texts not given up front: encoded when first asked for, once
    assert cache([]).shape[0] == 0
    assert C.EmbeddingCache(encode)([]).shape == (0, 0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cosine_matrix_is_scikit_learns_bit_for_bit(dtype: type) -> None:
    rng = np.random.default_rng(0)
    for rows, cols in [(1, 10), (1, 1), (4, 4), (2, 7), (37, 37)]:
        for _ in range(20):
            a = rng.standard_normal((rows, 384)).astype(dtype)
            b = rng.standard_normal((cols, 384)).astype(dtype)
            assert np.array_equal(C.cosine_matrix(a, b), cosine_similarity(a, b))
            assert np.array_equal(C.cosine_matrix(a, a), cosine_similarity(a, a))
            assert np.array_equal(C.cosine_matrix(a[:1], b[:1]), cosine_similarity(a[:1], b[:1]))
    zero = np.zeros((2, 384), dtype=dtype)
    assert np.array_equal(C.cosine_matrix(zero, zero), cosine_similarity(zero, zero))
    mixed = (rng.standard_normal((3, 8)).astype(np.float32), rng.standard_normal((2, 8)))
    assert np.array_equal(C.cosine_matrix(*mixed), cosine_similarity(*mixed))
    assert C.cosine_matrix(*mixed).dtype == np.float64


def test_tfidf_row_means_are_the_per_row_means_bit_for_bit() -> None:
    sources = [r["article"] for r in CNNDM] + [p["source"] for p in GOLDEN]
    for source in sources:
        sentences = sent_tokenize(source)
        if len(sentences) < 2:
            continue
        matrix = TfidfVectorizer(max_features=1000, stop_words="english").fit_transform(sentences)
        assert C.tfidf_row_means(sentences) == [float(np.mean(matrix[i].toarray())) for i in range(len(sentences))]
