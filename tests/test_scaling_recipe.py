"""Scoring in parts on one machine (``persona_metrics.integrations.parts``, ``docs/scaling.md`` §5; and §1's merge).

The ``datasets.map(num_proc=N)`` recipe is run as the documentation writes it (its code blocks, read from the
page) on the shipped PENS sample; §1's ``merge`` example on the shipped perseval sample, where a shard gets no
document. Golden values: the same library function called once in this process over the whole input; every
comparison is ``==``.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import datasets
import numpy as np
import pytest

from persona_metrics.datasets.pens import baseline_predictions, load_pens
from persona_metrics.datasets.personalization import read_personalization_jsonl
from persona_metrics.integrations.parts import (
    STATE,
    Part,
    merge_parts,
    pack,
    score_batch,
    score_rows,
    shard_rows,
    unpack,
)
from persona_metrics.persona import BUILTIN_PERSONAS, score_style
from persona_metrics.personalization import ExcludedPart, score_personalization, shard_of
from persona_metrics.warning import PersonaMetricsWarning

ROOT = Path(__file__).resolve().parents[1]


def merge_example() -> str:
    """The one Python code block of ``docs/scaling.md`` §1 (``merge`` of document shards)."""
    page = (ROOT / "docs" / "scaling.md").read_text(encoding="utf-8")
    section = page.split("\n## 1. ", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    return block


def recipe_blocks() -> list[str]:
    """The Python code blocks of ``docs/scaling.md`` §5."""
    page = (ROOT / "docs" / "scaling.md").read_text(encoding="utf-8")
    section = page.split("\n## 5. ", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


@pytest.fixture(scope="module")
def pens() -> datasets.Dataset:
    ds = load_pens(ROOT / "data" / "pens_sample")
    return datasets.Dataset.from_dict(
        {
            "predictions": baseline_predictions(ds, "headline"),
            "references": list(ds["reference"]),
            "documents": list(ds["document"]),
            "document_ids": list(ds["news_id"]),
        }
    )


def test_the_page_has_the_two_recipes() -> None:
    blocks = recipe_blocks()
    assert len(blocks) == 2
    assert "num_proc=4" in blocks[0]
    assert "num_proc=4" in blocks[1]


def test_per_item_recipe_gives_the_one_process_numbers(pens) -> None:
    """persona_style with a 1000-resample bootstrap, batches of 64 in 4 processes: the one-process result."""
    personas = [BUILTIN_PERSONAS[i % len(BUILTIN_PERSONAS)] for i in range(len(pens))]
    data = datasets.Dataset.from_dict({"predictions": pens["predictions"], "personas": personas})
    whole = score_style(list(data["predictions"]), personas, bootstrap=1000)  # first: forked workers reuse its caches
    scope: dict = {"data": data}
    exec(recipe_blocks()[0], scope)
    result = scope["result"]
    assert len(scope["scored"]) >= 4  # one part per batch; a batch never spans two of the 4 processes
    assert result.mean == whole.mean
    assert np.array_equal(result.scores, whole.scores)
    assert result.intervals == whole.intervals
    assert result.as_dict(nearest=True, signature=True) == whole.as_dict(nearest=True, signature=True)


def test_perseval_recipe_gives_the_one_process_numbers(pens) -> None:
    """PerSEval (rougeL, 1000-resample bootstrap) in 8 document shards over 4 processes: the one-process result."""
    scope: dict = {"data": pens}
    columns = [list(pens[name]) for name in ("predictions", "references", "documents", "document_ids")]
    whole = score_personalization(*columns, distance="rougeL", bootstrap=1000)
    exec(recipe_blocks()[0].split("# data:")[0] + recipe_blocks()[1], scope)  # the imports, then the recipe
    result = scope["result"]
    assert len(scope["scored"]) == len({shard_of(doc, 8) for doc in pens["document_ids"]})
    assert result.as_dict(signature=True) == whole.as_dict(signature=True)
    assert result.intervals == whole.intervals
    for name in ("perseval", "degress", "edp", "accuracy_distance"):
        assert result.per_summary(name) == whole.per_summary(name)
        assert result.per_document(name) == whole.per_document(name)


#: A one-user document that shard_of(·, 3) puts in shard 0, which gets no document of the perseval sample.
LONELY = {"document_id": "P4", "document": "Rain closes the valley road.", "reference": "valley road shut"}


@pytest.mark.parametrize("lonely", [False, True], ids=["empty-shard", "one-user-shard"])
def test_the_merge_example_equals_one_call_when_a_shard_gets_no_scorable_document(lonely: bool) -> None:
    """§1's example as written, 3 shards of the perseval sample (model ``tailored``): P1 and P3 go to shard 1, P2
    to shard 2, nothing to shard 0 (before: ``no items to score: predictions is empty``); with ``lonely``, shard 0
    holds only the one-user document P4, which has nothing to score either."""
    sample = read_personalization_jsonl(ROOT / "data" / "score_samples" / "perseval.jsonl")
    preds, refs = list(sample.predictions["tailored"]), list(sample.references)
    docs, ids = list(sample.documents), list(sample.document_ids or [])
    if lonely:
        preds, refs = [*preds, "road shut"], [*refs, LONELY["reference"]]
        docs, ids = [*docs, LONELY["document"]], [*ids, LONELY["document_id"]]
    assert ids[:9] == ["P1"] * 3 + ["P2"] * 3 + ["P3"] * 3
    assert [shard_of(doc, 3) for doc in ("P1", "P2", "P3", "P4")] == [1, 2, 1, 0]
    scope: dict = {"preds": preds, "refs": refs, "docs": docs, "ids": ids}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PersonaMetricsWarning)  # P4: excluded, one reference
        exec(merge_example(), scope)
        whole = score_personalization(preds, refs, docs, ids)
    assert scope["shards"] == ([[9]] if lonely else []) + [[0, 1, 2, 6, 7, 8], [3, 4, 5]]
    merged = scope["whole"]
    assert merged.as_dict(signature=True) == whole.as_dict(signature=True)
    assert (merged.num_items, merged.num_excluded_documents) == (len(ids), int(lonely))
    for name in ("perseval", "degress", "edp", "accuracy_distance"):
        assert merged.per_summary(name) == whole.per_summary(name)
        assert merged.per_document(name) == whole.per_document(name)


# --- the parts themselves ----------------------------------------------------------------------------------------
DOCS = ["A port strike halts exports."] * 2 + ["Rain floods the valley.", "Snow closes the pass."]
REFS = ["exports stop", "dock workers walk out", "the valley floods", "the pass is shut"]
PREDS = ["exports halt", "workers strike", "floods hit", "snow blocks roads"]


def columns(rows: list[int]) -> dict[str, list[str]]:
    return {"predictions": [PREDS[i] for i in rows], "references": [REFS[i] for i in rows],
            "documents": [DOCS[i] for i in rows]}  # fmt: skip


def test_a_part_of_single_reference_documents_carries_its_count() -> None:
    """Rows 2 and 3 are two documents of one user each: no score there, but the whole input's counts."""
    with pytest.warns(PersonaMetricsWarning):
        whole = score_personalization(PREDS, REFS, DOCS)
    lonely = score_rows("perseval", columns([3, 2]), [3, 2])
    assert lonely == Part((2, 3), ExcludedPart(num_items=2, num_excluded_documents=2))  # rows put in input order
    merged = merge_parts(unpack([pack(lonely), pack(score_rows("perseval", columns([0, 1]), [0, 1]))]))
    assert merged.as_dict(signature=True) == whole.as_dict(signature=True)
    assert (merged.num_items, merged.num_excluded_documents) == (4, 2)
    assert merged.per_summary("perseval") == whole.per_summary("perseval")


def test_refusals() -> None:
    with pytest.raises(ValueError, match="no document has at least 2 references"):
        merge_parts([score_rows("perseval", columns([2, 3]), [0, 1])])
    with pytest.raises(ValueError, match="no part to merge"):
        merge_parts([])
    with pytest.raises(ValueError, match=r"missing \['personas'\]"):
        score_rows("persona_style", {"predictions": ["a"]}, [0])
    with pytest.raises(ValueError, match="metric must be one of"):
        score_batch({"predictions": ["a"]}, [0], metric="bleu")
    with pytest.raises(TypeError, match=r"states\[0\] is a dict"):
        unpack([pack({"not": "a part"})])  # type: ignore[arg-type]


def test_shard_rows_holds_each_document_whole_in_input_order() -> None:
    ids = ["N1", "N2", "N1", "N3", "N2", "N4"]
    table = shard_rows(ids, 3)
    assert sorted(i for rows in table["rows"] for i in rows) == list(range(len(ids)))
    for rows in table["rows"]:
        assert rows == sorted(rows)
        assert len({shard_of(ids[i], 3) for i in rows}) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert shard_rows([], 4) == {"rows": []}
    assert STATE == "state"
