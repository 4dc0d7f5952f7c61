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
from persona_metrics import PersonaMetricsWarning
from persona_metrics.integrations.distributed import (
    DegressMetric,
    PersevalMetric,
    PersonaQualityMetric,
    PersonaStyleMetric,
    gather_objects,
    rank_and_size,
    run_on_main,
)
from persona_metrics.personalization import shard_of

HERE = Path(__file__).resolve().parent / "distributed"
sys.path.insert(0, str(HERE))

from metric_inputs import CLASSES, EMPTY_POLICY_CLASSES, OPTIONS, empty_rows, inputs, inputs_with_empty  # noqa: E402
from test_hooks import DOCS, ROWS  # noqa: E402

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


def with_num_empty(result: dict, count: int = 0) -> dict:
    return {**result, "num_empty": count}


@pytest.fixture(scope="module")
def trainer_runs(tmp_path_factory) -> tuple[dict, list[dict]]:
    """tests/distributed/trainer_eval.py run once in one process and once under torchrun (2 gloo processes)."""
    tmp_path = tmp_path_factory.mktemp("trainer")
    run([str(HERE / "trainer_eval.py")], tmp_path / "one")
    torchrun("trainer_eval.py", tmp_path / "two")
    one = json.loads((tmp_path / "one" / "rank0.json").read_text())
    return one, [json.loads((tmp_path / "two" / f"rank{r}.json").read_text()) for r in (0, 1)]


@pytest.fixture(scope="module")
def class_runs(tmp_path_factory) -> list[dict]:
    """tests/distributed/metric_classes.py under torchrun (2 gloo processes): each rank's results."""
    out = tmp_path_factory.mktemp("classes") / "two"
    torchrun("metric_classes.py", out)
    return [json.loads((out / f"rank{r}.json").read_text()) for r in (0, 1)]


@pytest.mark.slow
@pytest.mark.multiprocess
def test_trainer_under_torchrun_gives_single_process_numbers(trainer_runs) -> None:
    """31 rows, eval batch 5, 2 processes: the Trainer hands 40 rows (its padding) to compute_metrics on every
    rank; the hook drops the 9 padding rows, computes once on rank 0 and every rank logs the one-process values."""
    one, ranks = trainer_runs
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
@pytest.mark.multiprocess
def test_empty_generations_under_torchrun_keep_training_alive(trainer_runs) -> None:
    """Rows 3, 17 and 30 generate "" (row 3 is also one of the Trainer's padding rows under 2 processes). The
    whole-set persona_style hook (default empty="zero") and the streaming perseval hook (empty="skip") log the
    one-process numbers on every rank, eval_num_empty = 3 (the padding copy of row 3 not counted), and the values
    of a hand calculation on the generated texts; only rank 0 warns, once per hook."""
    one, ranks = trainer_runs
    generated = one["empty"]["generated"]
    kept = [i for i, text in enumerate(generated) if text]
    assert len(generated) == 31
    assert [i for i, text in enumerate(generated) if not text] == [3, 17, 30]
    zero, skip = metrics(one["empty"]["zero"]), metrics(one["empty"]["skip"])
    assert zero["eval_num_empty"] == skip["eval_num_empty"] == 3
    rows = [ROWS[(i * 3) % len(ROWS)] for i in range(31)]  # trainer_eval.py's rows
    personas, references, documents = [r[2] for r in rows], [r[3] for r in rows], [DOCS[r[0]] for r in rows]
    scores = persona_metrics.load("persona_style").compute(
        predictions=[generated[i] for i in kept], personas=[personas[i] for i in kept]
    )["scores"]
    assert zero["eval_style_similarity"] == pytest.approx(sum(scores) / 31, rel=1e-12)  # each empty row counts 0
    expected = persona_metrics.load("perseval").compute(
        predictions=[generated[i] for i in kept],
        references=[references[i] for i in kept],
        documents=[documents[i] for i in kept],
        distance="jsd",
    )
    assert skip["eval_perseval"] == pytest.approx(expected["perseval"], rel=1e-12)  # the non-empty rows only
    assert skip["eval_num_documents"] == expected["num_documents"]
    assert len(one["empty"]["warnings"]) == 2  # once per hook
    for rank, got in enumerate(ranks):
        assert got["empty"]["generated"] == generated, rank
        assert metrics(got["empty"]["zero"]) == zero, rank
        assert metrics(got["empty"]["skip"]) == skip, rank
    assert [len(got["empty"]["warnings"]) for got in ranks] == [2, 0]  # the metric runs on rank 0 only
    assert "persona_style: 3 of 31 predictions are" in ranks[0]["empty"]["warnings"][0]


@pytest.mark.slow
@pytest.mark.multiprocess
def test_metric_classes_over_two_gloo_processes_equal_one_process(class_runs) -> None:
    ranks = class_runs
    for name in CLASSES:
        expected = persona_metrics.load(name).compute(**inputs(name), **OPTIONS[name])
        expected = json.loads(json.dumps(with_num_empty(expected)))  # as the ranks wrote it (tuples become lists)
        for rank, got in enumerate(ranks):
            assert got[name]["contiguous"] == expected, (name, rank, "uneven contiguous shards")
            assert got[name]["sampler"] == expected, (name, rank, "DistributedSampler order, padded, with indices")


@pytest.mark.slow
@pytest.mark.multiprocess
def test_metric_classes_divide_the_work_between_the_ranks(class_runs) -> None:
    """Each rank scores only its share: a per-item metric its own rows (17 / 14 contiguous; 16 / 15 from the sampler,
    the padded repeat of row 0 not scored again), DEGRESS / PerSEval the rows of the documents it owns (counted
    here from each row's document id, or its text where the class is given no ids: d3 / one text on rank 0)."""
    for name in CLASSES:
        shares = [got[name]["scored_rows"] for got in class_runs]  # per rank: [contiguous, sampler]
        if name in ("perseval", "degress"):
            columns = inputs(name)
            keys = columns.get("document_ids") or columns["documents"]
            owned = [sum(shard_of(key, 2) == rank for key in keys) for rank in range(2)]
            assert 0 < owned[0] < 31, name  # both ranks own documents: a real split
            assert shares == [[owned[0]] * 2, [owned[1]] * 2], name
        else:
            assert shares == [[17, 16], [14, 15]], name


def spread(values: list, empty: list[int], n: int, fill) -> list:
    """``values`` of the non-empty rows placed among ``n`` rows, ``fill`` at the ``empty`` ones."""
    kept = iter(values)
    return [fill if i in empty else next(kept) for i in range(n)]


def zero_hand_calculation(name: str) -> dict:
    """empty="zero" by hand for the rows of inputs_with_empty. persona_style / persona_quality (no library score
    for an empty text): the library's per-item values of the other rows, 0 for each empty row, every mean a plain
    sum over all 31 rows / 31. The other metrics define an empty summary themselves: the library on every row."""
    columns, empty = inputs_with_empty(name), empty_rows(name)
    module = persona_metrics.load(name)
    if name not in ("persona_style", "persona_quality"):
        return with_num_empty(module.compute(**columns, **OPTIONS[name]), len(empty))
    kept = {k: [v[i] for i in range(31) if i not in empty] for k, v in columns.items()}
    result = module.compute(**kept, **OPTIONS[name])
    if name == "persona_style":
        scores = spread(result["scores"], empty, 31, 0.0)
        return {"style_similarity": sum(scores) / 31, "scores": scores, "num_empty": len(empty)}
    per_item = {k: spread(v, empty, 31, None if k == "band" else 0.0) for k, v in result["per_item"].items()}
    means = {k: sum(per_item[k]) / 31 for k in result if k in per_item}
    return {**means, "per_item": per_item, "bertscore_rescaled": result["bertscore_rescaled"], "num_empty": len(empty)}


def assert_close(got, expected, where) -> None:
    """Equal, floats to 1e-12 relative (a mean taken in another order), through dicts and lists."""
    if isinstance(expected, dict):
        assert isinstance(got, dict), where
        assert set(got) == set(expected), (where, set(got) ^ set(expected))
        for key in expected:
            assert_close(got[key], expected[key], (*where, key))
    elif isinstance(expected, list):
        assert isinstance(got, list), where
        assert len(got) == len(expected), where
        for i, (g, e) in enumerate(zip(got, expected, strict=True)):
            assert_close(g, e, (*where, i))
    elif isinstance(expected, float):
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-15), where
    else:
        assert got == expected, where


@pytest.mark.slow
@pytest.mark.multiprocess
def test_metric_classes_empty_policies_over_two_gloo_processes(class_runs) -> None:
    """Rows 2, 9, 17, 30 hold "", "   ", "!!!", "" (the third is empty for persona_style and persona_quality only).
    Under 2 gloo processes each class of EMPTY_POLICY_CLASSES gives on every rank: zero (default; sampler shards
    with indices) the hand calculation, skip (uneven contiguous shards) the library's result for the non-empty rows
    alone, error the library's named error for the first empty row of the gathered rows (raised on both ranks: no
    rank left waiting)."""
    ranks = class_runs
    for name in EMPTY_POLICY_CLASSES:
        empty = empty_rows(name)
        zero = json.loads(json.dumps(zero_hand_calculation(name)))
        kept = {k: [v[i] for i in range(31) if i not in empty] for k, v in inputs_with_empty(name).items()}
        skip = persona_metrics.load(name).compute(**kept, **OPTIONS[name])
        skip = json.loads(json.dumps(with_num_empty(skip, len(empty))))
        for rank, got in enumerate(ranks):
            assert_close(got[name]["zero"], zero, (name, rank, "zero"))
            assert got[name]["skip"] == skip, (name, rank, "skip")
            assert got[name]["error"] == "predictions[2] is empty (empty or whitespace-only text)", (name, rank)


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
    expected = with_num_empty(persona_metrics.load("degress").compute(**columns, distance="jsd"))
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
    expected = persona_metrics.load("perseval").compute(**columns, return_per_summary=True)
    assert metric.compute() == with_num_empty(expected)


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
    with pytest.raises(ValueError, match=r"personas\[1\] is empty"):  # the row of an empty prediction is checked
        style.update(predictions=["A fine quarter.", ""], personas=["journalist", ""])
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


def test_metric_class_empty_policies_in_one_process() -> None:
    """ "", whitespace and a text without a word are empty for persona_style; each policy against a hand
    calculation, the warning once per instance, the interval from the zero-filled scores."""
    import warnings

    from persona_metrics.significance import DEFAULT_BOOTSTRAP_SEED, bootstrap_interval

    predictions = ["A fine quarter for the bank.", "", "   ", "!!!", "Sales rose 5% on strong demand!"]
    personas = ["journalist", "enthusiast", "formal_analyst", "journalist", "enthusiast"]
    kept = [0, 4]
    direct = persona_metrics.load("persona_style").compute(
        predictions=[predictions[i] for i in kept], personas=[personas[i] for i in kept], bootstrap=50
    )
    scores = [direct["scores"][0], 0.0, 0.0, 0.0, direct["scores"][1]]

    zero = PersonaStyleMetric(bootstrap=50, return_nearest=True)  # empty="zero", the default
    zero.update(predictions=predictions[:2], personas=personas[:2])
    zero.update(predictions=predictions[2:], personas=personas[2:])
    with pytest.warns(PersonaMetricsWarning, match="3 of 5 predictions are empty, whitespace-only or without a word"):
        result = zero.compute()
    assert result["num_empty"] == 3
    assert result["style_similarity"] == pytest.approx(sum(scores) / 5, rel=1e-12)
    assert result["style_similarity"] == pytest.approx(direct["style_similarity"] * 2 / 5, rel=1e-12)
    assert result["scores"] == scores
    assert result["nearest_persona"][1:4] == result["bands"][1:4] == [None] * 3
    interval = bootstrap_interval(scores, 50, DEFAULT_BOOTSTRAP_SEED)
    assert (result["style_similarity_ci_low"], result["style_similarity_ci_high"]) == pytest.approx(interval)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert zero.compute() == result  # no second warning from this instance

    skip = PersonaStyleMetric(empty="skip", bootstrap=50)
    skip.update(predictions=predictions, personas=personas)
    with pytest.warns(PersonaMetricsWarning, match="they are left out of the scores"):
        assert skip.compute() == with_num_empty(direct, 3)

    error = PersonaStyleMetric(empty="error")
    error.update(predictions=predictions, personas=personas)  # accepted here: compute raises on every rank
    with pytest.raises(ValueError, match=r"^predictions\[1\] is empty \(empty or whitespace-only text\)$"):
        error.compute()
    error.reset()
    error.update(predictions=[predictions[0], "!!!"], personas=personas[:2])
    with pytest.raises(ValueError, match=r"^predictions\[1\]: text has no words"):  # the style library's own error
        error.compute()

    perseval = PersevalMetric(empty="error")  # "!!!" is a prediction like any other for PerSEval
    perseval.update(predictions=["!!!", "Up 5%."], references=["Sales rose.", "Sales up."], documents=["d", "d"])
    assert perseval.compute()["num_empty"] == 0


def test_metric_class_every_prediction_empty() -> None:
    """zero: the library (given empty="zero") scores every item 0, with the keys of a real result, the signature
    asked for included; skip: only num_empty."""
    options = {"bootstrap": 20, "return_nearest": True, "return_features": True, "return_signature": True}
    real = persona_metrics.load("persona_style").compute(predictions=["Up 5%."], personas=["journalist"], **options)
    zero = PersonaStyleMetric(**options)
    zero.update(predictions=["", "  "], personas=["journalist", "enthusiast"])
    with pytest.warns(PersonaMetricsWarning, match="2 of 2 predictions are empty"):
        result = zero.compute()
    assert list(result) == [*real, "num_empty"]
    assert result["signature"] == real["signature"]  # the signature does not depend on the items
    assert result["style_similarity"] == result["style_similarity_ci_low"] == result["style_similarity_ci_high"] == 0
    assert result["scores"] == [0.0, 0.0]
    assert result["features"] == result["nearest_persona"] == result["bands"] == [None, None]
    skip = PersonaStyleMetric(empty="skip")
    skip.update(predictions=[""], personas=["journalist"])
    with pytest.warns(PersonaMetricsWarning, match="nothing was left to score"):
        assert skip.compute() == {"num_empty": 1}


@pytest.mark.slow
def test_persona_quality_class_every_prediction_empty() -> None:
    options = {"bootstrap": 20, "return_per_item": True}
    real = persona_metrics.load("persona_quality").compute(
        predictions=["Sales rose."], references=["Sales rose 5%."], personas=["journalist"], **options
    )
    metric = PersonaQualityMetric(**options)
    metric.update(predictions=[""], references=["Sales rose 5%."], personas=["journalist"])
    with pytest.warns(PersonaMetricsWarning, match="1 of 1 predictions are empty"):
        result = metric.compute()
    assert list(result) == [*real, "num_empty"]
    assert result["per_item"] == {**{k: [0.0] for k in real["per_item"] if k != "band"}, "band": [None]}
    assert result["overall_quality"] == result["bertscore_f1"] == 0.0
    assert result["bertscore_rescaled"] == real["bertscore_rescaled"]
