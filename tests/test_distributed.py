"""Multi-process evaluation: the Trainer hook under torchrun and the distributed metric classes over gloo.

Golden values come from an independent source: one ``persona_metrics.load(name).compute(...)`` (or one
single-process Trainer evaluation) of the same 31 rows. Both multi-process runs use real processes started by
``torch.distributed.run`` with the gloo backend (CPU), as a multi-GPU ``accelerate launch``/``torchrun`` would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import persona_metrics
from persona_metrics.integrations.distributed import (
    DegressMetric,
    PersevalMetric,
    PersonaStyleMetric,
    gather_objects,
    rank_and_size,
    run_on_main,
)

HERE = Path(__file__).resolve().parent / "distributed"
sys.path.insert(0, str(HERE))

from metric_inputs import CLASSES, OPTIONS, inputs  # noqa: E402

#: Trainer log entries that are timings or the loss (the loss averages the padded rows too), not metric values.
NOT_METRICS = ("loss", "runtime", "per_second", "preparation")


def run(args: list[str], out: Path) -> None:
    out.mkdir()
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, *args, str(out)], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]


def torchrun(script: str, out: Path) -> None:
    run(["-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2", str(HERE / script)], out)


def metrics(entry: dict) -> dict:
    return {k: v for k, v in entry.items() if not any(s in k for s in NOT_METRICS)}


@pytest.mark.slow
def test_trainer_under_torchrun_gives_single_process_numbers(tmp_path) -> None:
    """31 rows, eval batch 5, 2 processes: the Trainer hands 40 rows (its padding) to compute_metrics on every
    rank; the hook drops the 9 padding rows, computes once on rank 0 and every rank logs the one-process values."""
    run([str(HERE / "trainer_eval.py")], tmp_path / "one")
    torchrun("trainer_eval.py", tmp_path / "two")
    one = json.loads((tmp_path / "one" / "rank0.json").read_text())
    ranks = [json.loads((tmp_path / "two" / f"rank{r}.json").read_text()) for r in (0, 1)]
    assert one["rows_seen"] == [31]
    expected = metrics(one["whole"])
    assert {"eval_perseval", "eval_degress", "eval_style_similarity"} <= set(expected)
    assert 0 < expected["eval_style_similarity"] < 1  # not degenerate
    assert 0 < expected["eval_degress"] < 1
    assert metrics(one["streaming"]) == {k: v for k, v in expected.items() if "style" not in k}
    for rank, got in enumerate(ranks):
        assert got["rows_seen"] == [40], rank  # what the Trainer passes: 4 steps x 2 ranks x 5
        assert metrics(got["whole"]) == expected, rank  # exactly, on every rank
        assert metrics(got["streaming"]) == metrics(one["streaming"]), rank
    assert ranks[0]["computed_on"] == [0]  # the metric ran on rank 0 only
    assert ranks[1]["computed_on"] == []


@pytest.mark.slow
def test_metric_classes_over_two_gloo_processes_equal_one_process(tmp_path) -> None:
    torchrun("metric_classes.py", tmp_path / "two")
    ranks = [json.loads((tmp_path / "two" / f"rank{r}.json").read_text()) for r in (0, 1)]
    for name in CLASSES:
        expected = persona_metrics.load(name).compute(**inputs(name), **OPTIONS[name])
        expected = json.loads(json.dumps(expected))  # as the ranks wrote it (tuples become lists)
        for rank, got in enumerate(ranks):
            assert got[name]["contiguous"] == expected, (name, rank, "uneven contiguous shards")
            assert got[name]["sampler"] == expected, (name, rank, "DistributedSampler order, padded, with indices")


# ---------------------------------------------------------------- one process (no process group)


def test_single_process_plumbing_is_a_no_op() -> None:
    assert rank_and_size() == (0, 1)
    assert run_on_main(lambda: 7) == 7
    assert gather_objects([1, 2]) == [1, 2]
    with pytest.raises(KeyError):
        run_on_main(lambda: {}["x"])


def test_metric_class_accumulates_like_one_compute() -> None:
    columns = inputs("degress")
    metric = DegressMetric(distance="jsd")
    for start in (0, 10, 20):
        metric.update(**{k: v[start : start + 10] for k, v in columns.items()})
    metric.update(**{k: v[30:] for k, v in columns.items()})
    expected = persona_metrics.load("degress").compute(**columns, distance="jsd")
    assert metric.compute() == expected
    assert metric.compute() == expected  # compute does not reset, as in torchmetrics
    metric.reset()
    with pytest.raises(ValueError, match=r"compute\(\) called before any update\(\)"):
        metric.compute()


def test_metric_class_orders_by_indices_and_drops_sampler_repeats() -> None:
    columns = inputs("perseval")
    order = [5, 3, 0, 30, *range(31), 0, 1]  # shuffled, then every row, then two repeats (padding)
    metric = PersevalMetric(return_per_summary=True)
    for start in range(0, len(order), 7):
        part = order[start : start + 7]
        metric.update(**{k: [v[i] for i in part] for k, v in columns.items()}, indices=part)
    assert metric.compute() == persona_metrics.load("perseval").compute(**columns, return_per_summary=True)


def test_metric_class_rejects_bad_options_and_inputs_when_called() -> None:
    with pytest.raises(ValueError, match="unknown distance 'rouge-l'"):
        PersevalMetric(distance="rouge-l")
    with pytest.raises(ValueError, match=r"beta must be in \(0, 300\], got -1"):
        PersevalMetric(beta=-1)
    with pytest.raises(ValueError, match=r"\['distanse'\] are not inputs of metric 'perseval'"):
        PersevalMetric(distanse="jsd")
    with pytest.raises(ValueError, match="per-item inputs"):
        DegressMetric(document_ids=["a"])
    style = PersonaStyleMetric()
    with pytest.raises(ValueError, match=r"missing \['personas'\]"):
        style.update(predictions=["A fine quarter."])
    with pytest.raises(ValueError, match=r"predictions\[1\] is empty"):
        style.update(predictions=["A fine quarter.", ""], personas=["journalist", "journalist"])
    with pytest.raises(ValueError, match="indices has 1 items but predictions has 2"):
        style.update(predictions=["A fine quarter.", "Up 5%."], personas=["journalist"] * 2, indices=[0])
    style.update(predictions=["A fine quarter."], personas=["journalist"], indices=[0])
    style.update(predictions=["A poor quarter."], personas=["journalist"], indices=[0])
    with pytest.raises(ValueError, match="index 0 was added twice with different content"):
        style.compute()
    style.reset()
    style.update(predictions=["A fine quarter."], personas=["journalist"], indices=[0])
    style.update(predictions=["A poor quarter."], personas=["journalist"])
    with pytest.raises(ValueError, match="indices were given for 1 of 2 rows"):
        style.compute()
