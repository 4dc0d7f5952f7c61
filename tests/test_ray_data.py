"""Ray Data scoring (``persona_metrics.integrations.ray_data``, ``docs/scaling.md`` §4) on a local Ray cluster.

One local cluster on 127.0.0.1 with 2 CPUs for the module (no dashboard, no usage report, nothing else reached).
Golden values: the same library function called once in this process over the whole input; every comparison is
``==`` (floats bit for bit, arrays element for element), and each test checks that more than one Ray task scored.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="the ray extra is not installed")

from persona_metrics.datasets.pens import baseline_predictions, load_pens  # noqa: E402
from persona_metrics.integrations.parts import merge_parts  # noqa: E402
from persona_metrics.integrations.ray_data import from_columns, score_dataset, score_parts  # noqa: E402
from persona_metrics.persona import BUILTIN_PERSONAS, score_style  # noqa: E402
from persona_metrics.personalization import score_personalization  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SEED = 20261127
# Ray Data's own context names its deprecated settings when it is copied (not this project's code).
pytestmark = [
    pytest.mark.filterwarnings("ignore:.*deprecated:DeprecationWarning:ray.data.context"),
    pytest.mark.multiprocess,  # a local Ray cluster: make test-integration
]


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    """A fresh local Ray cluster (``address="local"``: never one named by RAY_ADDRESS), shut down after the module."""
    saved = os.environ.get("RAY_USAGE_STATS_ENABLED")
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"  # no usage report: nothing leaves 127.0.0.1
    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        _node_ip_address="127.0.0.1",
        log_to_driver=False,
        logging_level="ERROR",
    )
    context = ray.data.DataContext.get_current()
    bars, context.enable_progress_bars = context.enable_progress_bars, False
    try:
        yield
    finally:
        context.enable_progress_bars = bars
        ray.shutdown()
        if saved is None:
            os.environ.pop("RAY_USAGE_STATS_ENABLED", None)
        else:
            os.environ["RAY_USAGE_STATS_ENABLED"] = saved


@pytest.fixture(scope="module")
def pens() -> dict[str, list[str]]:
    ds = load_pens(ROOT / "data" / "pens_sample")
    return {
        "predictions": baseline_predictions(ds, "headline"),
        "references": list(ds["reference"]),
        "documents": list(ds["document"]),
        "document_ids": list(ds["news_id"]),
    }


def identical(a: Any, b: Any, where: str = "result") -> None:
    """``a`` and ``b`` hold the same values, field by field: floats ``==`` (NaN only where NaN), arrays equal."""
    assert type(a) is type(b), where
    if dataclasses.is_dataclass(a):
        for field in dataclasses.fields(a):
            if field.compare:  # compare=False: a helper, not part of what the result is (VERT's alignment helper)
                identical(getattr(a, field.name), getattr(b, field.name), f"{where}.{field.name}")
    elif isinstance(a, np.ndarray):
        assert (a.dtype, a.shape) == (b.dtype, b.shape), where
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), where
    elif isinstance(a, dict):
        assert list(a) == list(b), where
        for key in a:
            identical(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, list | tuple):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            identical(x, y, f"{where}[{i}]")
    elif isinstance(a, float) and np.isnan(a):
        assert np.isnan(b), where
    else:
        assert a == b, where


def test_perseval_scored_by_document_shards_equals_one_process(cluster, pens) -> None:
    """PerSEval (rougeL, 200-resample bootstrap) of the PENS sample: 4 document shards in Ray tasks, merged."""
    whole = score_personalization(
        pens["predictions"],
        pens["references"],
        pens["documents"],
        pens["document_ids"],
        bootstrap=200,
        seed=SEED,
    )
    dataset = from_columns(pens, override_num_blocks=4)
    parts = score_parts(dataset, "perseval", num_shards=4, bootstrap=200, seed=SEED)
    assert len(parts) > 1
    assert len({part.worker for part in parts}) > 1
    owners = [{pens["document_ids"][i] for i in part.positions} for part in parts]
    assert sum(map(len, owners)) == len(set(pens["document_ids"]))  # each document's users in one part
    merged = merge_parts(parts)
    identical(merged, whole)
    assert merged.as_dict(signature=True) == whole.as_dict(signature=True)
    assert merged.intervals
    assert merged.intervals == whole.intervals
    assert merged.per_summary("perseval") == whole.per_summary("perseval")


def test_persona_style_scored_in_batches_equals_one_process(cluster, pens) -> None:
    """persona_style with a bootstrap: 4 blocks, batches of 40 rows, in input order after the merge."""
    predictions = pens["predictions"]
    personas = [BUILTIN_PERSONAS[i % len(BUILTIN_PERSONAS)] for i in range(len(predictions))]
    whole = score_style(predictions, personas, bootstrap=300, seed=SEED)
    dataset = from_columns({"predictions": predictions, "personas": personas}, override_num_blocks=4)
    parts = score_parts(dataset, "persona_style", batch_size=40, bootstrap=300, seed=SEED)
    assert len(parts) >= len(predictions) // 40
    assert len({part.worker for part in parts}) > 1
    merged = merge_parts(parts)
    identical(merged, whole)
    assert merged.mean == whole.mean
    assert merged.intervals == whole.intervals


def test_vert_scored_in_batches_equals_one_process(cluster, pens) -> None:
    """VERT (WordLlama and GloVe, loaded in each worker) on 12 items in batches of 4."""
    from persona_metrics.vert import score_vert

    predictions, references = pens["predictions"][:12], pens["references"][:12]
    whole = score_vert(predictions, references)
    dataset = from_columns({"predictions": predictions, "references": references}, override_num_blocks=3)
    parts = score_parts(dataset, "vert", batch_size=4)
    assert len(parts) == 3
    assert len({part.worker for part in parts}) > 1
    result = merge_parts(parts)
    identical(result, whole)
    assert result.as_dict(per_item=True, signature=True) == whole.as_dict(per_item=True, signature=True)


def test_from_columns_makes_a_block_per_batch_of_rows(cluster, pens) -> None:
    """One block per 256 rows (Ray's own default is 200 blocks: a Ray task for each row or two of the sample)."""
    blocks = [
        from_columns(pens).num_blocks(),  # 279 rows
        from_columns({"predictions": ["a"] * 60_000}).num_blocks(),  # at most Ray's default
        from_columns(pens, override_num_blocks=5).num_blocks(),
    ]
    assert blocks == [2, 200, 5]


def test_document_shards_are_brought_together_by_the_sort_shuffle(cluster, pens) -> None:
    """PerSEval's groupby runs on Ray's sort-based shuffle in the cluster's reused workers, whatever the caller's
    shuffle setting: the default hash shuffle ran its reduce tasks, and the scoring fused into them, in worker
    processes started afresh for every call (about 8 s a call on 2 cores). The caller's setting is put back."""
    whole = score_personalization(pens["predictions"], pens["references"], pens["documents"], pens["document_ids"])
    plans: list[str] = []

    class Plans(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.getMessage().startswith("Execution plan of Dataset"):
                plans.append(record.getMessage())

    logger, handler = logging.getLogger("ray.data"), Plans(level=logging.INFO)
    saved_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        for strategy in ("shuffle_v2", "hash_shuffle", "sort_shuffle_pull_based"):
            dataset = from_columns(pens)
            dataset.context.shuffle_strategy = strategy
            identical(score_dataset(dataset, "perseval"), whole, strategy)
            assert dataset.context.shuffle_strategy.value == strategy
    finally:
        logger.removeHandler(handler)
        logger.setLevel(saved_level)
    assert len(plans) == 3
    for plan in plans:
        assert "AllToAllOperator[Sort]" in plan, plan
        assert "Shuffle" not in plan, plan  # ShuffleMapOp / HashShuffleOperator: the hash shuffles


def test_a_dataset_in_another_order_with_its_own_position_column(cluster) -> None:
    """Rows given in reverse order with a position column of another name: the numbers of the input order."""
    texts = ["Shares rose 4% after the report.", "Wow!! Best phone ever!!", "The board met on Monday."] * 3
    personas = ["journalist", "enthusiast", "formal_analyst"] * 3
    rows = [{"row": i, "predictions": texts[i], "personas": personas[i]} for i in reversed(range(len(texts)))]
    result = score_dataset(ray.data.from_items(rows), "persona_style", batch_size=2, position_column="row")
    identical(result, score_style(texts, personas))


def test_refusals_name_the_column(cluster) -> None:
    dataset = ray.data.from_items([{"predictions": "a text", "personas": "journalist"}])
    with pytest.raises(ValueError, match="no column 'position'"):
        score_dataset(dataset, "persona_style")
    with pytest.raises(ValueError, match=r"missing \['references'\]"):
        score_dataset(dataset, "vert")
    with pytest.raises(ValueError, match="metric must be one of"):
        score_dataset(dataset, "rouge")
    with pytest.raises(ValueError, match="one length"):
        from_columns({"predictions": ["a", "b"], "personas": ["journalist"]})
