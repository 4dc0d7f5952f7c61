"""Exact merge of DEGRESS / PerSEval results scored on parts of one input (``merge_personalization``).

Golden values: the same library scoring the whole input in one call (the unsharded reduction the merge must
reproduce bit for bit); every comparison below is ``==`` on floats, not approximate.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from persona_metrics.datasets.pens import baseline_predictions, load_pens
from persona_metrics.personalization import (
    PER_SUMMARY_NAMES,
    SYSTEM_NAMES,
    merge_personalization,
    score_personalization,
    shard_of,
)

ROOT = Path(__file__).resolve().parents[1]
SEED = 20261127


@pytest.fixture(scope="module")
def pens() -> dict[str, list[str]]:
    ds = load_pens(ROOT / "data" / "pens_sample")
    return {
        "predictions": baseline_predictions(ds, "headline"),
        "references": list(ds["reference"]),
        "documents": list(ds["document"]),
        "ids": list(ds["news_id"]),
    }


def score_rows(data: dict[str, list[str]], rows: list[int], distance: str):
    return score_personalization(
        *([data[column][i] for i in rows] for column in ("predictions", "references", "documents", "ids")),
        distance=distance,
        bootstrap=500,
        seed=SEED,
    )


def assert_same(merged, whole) -> None:
    """Every number of the two results, bit for bit."""
    for name in SYSTEM_NAMES:
        assert getattr(merged, name) == getattr(whole, name), name
    assert whole.intervals
    assert merged.intervals == whole.intervals  # the bootstrap, recomputed from the states
    for name in PER_SUMMARY_NAMES:
        assert merged.per_summary(name) == whole.per_summary(name), name
        assert merged.per_document(name) == whole.per_document(name), name
        assert list(merged.per_document(name)) == list(whole.per_document(name))  # the same document order
    assert (merged.num_items, merged.num_documents, merged.num_excluded_documents) == (
        whole.num_items,
        whole.num_documents,
        whole.num_excluded_documents,
    )
    assert merged.signature == whole.signature
    assert merged.as_dict(signature=True) == whole.as_dict(signature=True)


@pytest.mark.parametrize("distance", ["rougeL", "jsd"])
def test_three_hash_shards_merged_in_shuffled_order_equal_the_whole(pens, distance: str) -> None:
    """The PENS sample in 3 shards by a hash of the article id, merged 3-1-2: the unsharded numbers exactly."""
    whole = score_rows(pens, list(range(len(pens["ids"]))), distance)
    shards = [[i for i, doc in enumerate(pens["ids"]) if shard_of(doc, 3) == k] for k in range(3)]
    assert all(shards)
    assert sum(map(len, shards)) == len(pens["ids"])
    parts = [score_rows(pens, rows, distance) for rows in shards]
    order = [2, 0, 1]
    merged = merge_personalization([parts[k] for k in order], positions=[shards[k] for k in order])
    assert_same(merged, whole)
    # Why a merge is needed: the mean of the shards' PerSEval is not the whole's (documents weigh per shard).
    assert np.mean([part.perseval for part in parts]) != whole.perseval


def test_consecutive_slices_merge_without_positions(pens) -> None:
    """Default positions: the results are consecutive slices of the input, in order (cut at a document edge)."""
    grouped = sorted(range(len(pens["ids"])), key=lambda i: (pens["ids"].index(pens["ids"][i]), i))  # docs together
    data = {column: [values[i] for i in grouped] for column, values in pens.items()}
    n = len(grouped)
    cut = next(i for i in range(n // 2, n) if data["ids"][i] != data["ids"][i - 1])
    whole = score_rows(data, list(range(n)), "rougeL")
    halves = [score_rows(data, list(range(cut)), "rougeL"), score_rows(data, list(range(cut, n)), "rougeL")]
    assert_same(merge_personalization(halves), whole)


def test_one_result_merges_to_itself(pens) -> None:
    whole = score_rows(pens, list(range(len(pens["ids"]))), "rougeL")
    assert_same(merge_personalization([whole]), whole)


def test_shard_of_is_stable_and_in_range() -> None:
    """BLAKE2b of the id: fixed values (computed with hashlib directly), the same for an int id and its text."""
    import hashlib

    for doc in ("N1", "N10046", "döc", 7):
        expected = int.from_bytes(hashlib.blake2b(str(doc).encode(), digest_size=8).digest(), "big") % 5
        assert shard_of(doc, 5) == expected
    assert shard_of(7, 5) == shard_of("7", 5)
    assert {shard_of(f"N{i}", 4) for i in range(200)} == {0, 1, 2, 3}
    with pytest.raises(ValueError, match="num_shards must be >= 1"):
        shard_of("N1", 0)
    with pytest.raises(TypeError, match="num_shards must be an int"):
        shard_of("N1", 2.0)  # type: ignore[arg-type]


DOCS = ["A port strike halts exports."] * 2 + ["Rain floods the valley."] * 2
REFS = ["exports stop", "dock workers walk out", "the valley floods", "farms lose crops"]
PREDS = ["exports halt", "workers strike", "floods hit", "crops are lost"]


def part(rows: list[int], **options):
    return score_personalization(*([column[i] for i in rows] for column in (PREDS, REFS, DOCS)), **options)


@pytest.mark.parametrize(
    ("results", "positions", "error", "match"),
    [
        (lambda: [], None, ValueError, "results is empty"),
        (lambda: part([0, 1]), None, TypeError, "sequence of PersonalizationResult"),
        (lambda: [part([0, 1]), {"perseval": 0.5}], None, TypeError, r"results\[1\] must be a PersonalizationResult"),
        (lambda: [part([0, 1]), part([2, 3], beta=1.0)], None, ValueError, r"results\[1\] was scored as"),
        (lambda: [part([0, 1]), part([0, 1])], None, ValueError, r"in results\[0\] and results\[1\]"),
        (lambda: [part([0, 1]), part([2, 3])], [[0, 1]], ValueError, "positions has 1 entries"),
        (lambda: [part([0, 1]), part([2, 3])], [[0, 1], [1, 3]], ValueError, "permutation of 0 … 3"),
        (
            lambda: [part([0, 1]), part([2, 3])],
            [[0, 1], [2, 3, 4]],
            ValueError,
            r"positions\[1\] has 3 positions but results\[1\] has 2",
        ),
        (lambda: [part([0, 1]), part([2, 3])], [[1, 0], [2, 3]], ValueError, r"results\[0\]: the items of document"),
    ],
)
def test_bad_merges_are_refused_naming_the_result(results, positions, error, match) -> None:
    with pytest.raises(error, match=match):
        merge_personalization(results(), positions)


def test_a_result_without_params_is_refused() -> None:
    from dataclasses import replace

    with pytest.raises(TypeError, match=r"results\[0\] carries no params"):
        merge_personalization([replace(part([0, 1]), params=None)])


def test_vert_results_merge_to_the_whole_call() -> None:
    """Per-item results merged directly (as the distributed classes and Ray do): VERT's parts, in shuffled order,
    give the whole call's values, chosen references and alignments (its texts are kept as two lists)."""
    import json
    import pickle

    from persona_metrics import merge
    from persona_metrics.vert import score_vert

    rows = [json.loads(line) for line in (ROOT / "data" / "cnndm_sample" / "test.jsonl").read_text().splitlines()]
    predictions = [row["article"].split(". ")[0] for row in rows[:7]]
    references = [[row["highlights"], row["article"][:80]] if k % 2 else row["highlights"] for k, row in
                  enumerate(rows[:7])]  # fmt: skip
    whole = score_vert(predictions, references)
    parts = [[5, 1], [0, 6, 3], [4, 2]]
    results = [score_vert([predictions[i] for i in p], [references[i] for i in p]) for p in parts]
    sent = [pickle.dumps(result) for result in results]  # as a rank or a Ray worker sends its part
    assert max(map(len, sent)) < 100_000  # the packaged GloVe travels by name, not as 400,000 vectors
    merged = merge([pickle.loads(blob) for blob in sent], parts)
    for name in ("vert", "sim", "wmd", "reference_index"):
        assert np.array_equal(getattr(merged, name), getattr(whole, name)), name
    assert merged.alignment(3).as_dict() == whole.alignment(3).as_dict()


def test_a_signature_is_shared_even_when_its_parts_count_the_items() -> None:
    """Two parts of k items whose signature has k parts: the signature was joined as if per item (doubled)."""
    from persona_metrics import merge
    from persona_metrics.persona import score_style

    k = len(score_style(["Shares rose 4% after the report."], ["journalist"]).config.parts)
    texts = ["Shares rose 4% after the report.", "Wow!! Best phone ever!!", "The board met on Monday."] * k
    texts, personas = texts[: 2 * k], ["journalist"] * (2 * k)
    whole = score_style(texts, personas)
    merged = merge([score_style(texts[:k], personas[:k]), score_style(texts[k:], personas[k:])])
    assert merged.signature == whole.signature
    assert merged.scores.tolist() == whole.scores.tolist()
