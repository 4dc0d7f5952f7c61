"""How the Trainer hook is called: make_compute_metrics builds a ComputeMetrics object whose whole-set and streaming
call forms decode predictions, pass side columns and options, reset between evaluations and refuse reuse after a
failure (a fake tokenizer and a fake evaluate-like module; the real metrics are in tests/test_hooks.py)."""

from __future__ import annotations

import numpy as np
import pytest

from persona_metrics.integrations.hooks import ComputeMetrics, make_compute_metrics

PAD = 0


class FakeTokenizer:
    """Token ids decode to their numbers, space-joined; the pad id is skipped."""

    pad_token_id = PAD

    def batch_decode(self, ids, skip_special_tokens=True):
        return [" ".join(str(i) for i in row if i != PAD) + " " for row in ids]


class FakeMetric:
    """An evaluate-like module: features, _compute's signature, add_batch and compute."""

    name = "fake"
    features = {"predictions": None, "references": None, "personas": None}  # noqa: RUF012

    def __init__(self) -> None:
        self.batches: list[dict] = []

    def _compute(self, predictions, references, personas, group=None, scale=1.0):
        raise NotImplementedError  # only its signature is read

    def add_batch(self, **batch) -> None:
        self.batches.append(batch)

    def compute(self, **kwargs):
        if self.batches:
            for key in ("predictions", "references", "personas"):
                kwargs[key] = [x for b in self.batches for x in b[key]]
            self.batches = []
        preds = kwargs["predictions"]
        return {
            "n": len(preds),
            "score": kwargs.get("scale", 1.0) * sum(p == r for p, r in zip(preds, kwargs["references"], strict=True)),
            "personas": ",".join(kwargs["personas"]),
            "group": None if kwargs.get("group") is None else len(kwargs["group"]),
        }


COLUMNS = {"persona": ["a", "b", "c", "d"], "grp": [1, 1, 2, 2]}
PREDICTIONS = np.array([[5, 6], [7, PAD], [8, -100], [9, 9]])
LABELS = np.array([[5, 6], [7, -100], [1, -100], [9, 9]])


def pred(rows=slice(None)):
    from types import SimpleNamespace

    return SimpleNamespace(predictions=PREDICTIONS[rows], label_ids=LABELS[rows])


def build(streaming=False, **kwargs):
    return make_compute_metrics(
        FakeMetric(),
        FakeTokenizer(),
        COLUMNS,
        columns={"personas": "persona", "group": "grp"},
        streaming=streaming,
        **kwargs,
    )


def test_factory_returns_a_compute_metrics_instance() -> None:
    hook = build(scale=2.0)
    assert isinstance(hook, ComputeMetrics)
    assert (hook.name, hook.streaming) == ("fake", False)
    # strings and None are dropped; -100 decoded as the pad id; side columns and options passed through
    assert hook(pred()) == {"n": 4, "score": 6.0, "group": 4, "num_empty": 0}  # num_empty: the empty= policy


def test_streaming_matches_whole_set_and_resets() -> None:
    whole = build(scale=2.0)(pred())
    stream = build(streaming=True, scale=2.0)
    for _ in range(2):  # the offset is reset after each evaluation
        assert stream(pred(slice(0, 1)), compute_result=False) == {}
        assert stream(pred(slice(1, 4)), True) == whole


def test_call_form_must_match_the_build() -> None:
    with pytest.raises(TypeError, match="streaming=True"):
        build()(pred(), compute_result=True)
    with pytest.raises(TypeError, match="needs compute_result"):
        build(streaming=True)(pred())


def test_loaded_module_is_not_reused_after_a_failure() -> None:
    stream = build(streaming=True)
    with pytest.raises(ValueError, match="got 8 predictions so far but eval_dataset has 4 rows"):
        stream(pred(np.r_[0:4, 0:4]), compute_result=False)
    with pytest.raises(RuntimeError, match="failed mid-way and metric 'fake'"):
        stream(pred(), compute_result=True)
