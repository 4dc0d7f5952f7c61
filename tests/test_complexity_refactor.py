"""The ComputeMetrics class behind make_compute_metrics, and the PENS baseline table (same outputs as before)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import load_script

from persona_metrics.datasets.pens import _BASELINE_FUNCTIONS, BASELINES, baseline_predictions, load_pens
from persona_metrics.integrations.hooks import ComputeMetrics, make_compute_metrics

ROOT = Path(__file__).resolve().parents[1]
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


# ---------------------------------------------------------------- PENS baselines


def _original_baseline_predictions(dataset, name):
    """The implementation before the refactor, kept as an independent reference."""
    refs, heads = dataset["reference"], dataset["headline"]
    if name == "oracle":
        return list(refs)
    if name == "headline":
        return list(heads)
    if name == "shuffled":
        by_article: dict[str, list[int]] = {}
        for i, news_id in enumerate(dataset["news_id"]):
            by_article.setdefault(news_id, []).append(i)
        out = list(heads)
        for idx in by_article.values():
            if len(idx) > 1:
                for src, dst in zip(idx, idx[1:] + idx[:1], strict=True):
                    out[dst] = refs[src]
        return out
    from persona_metrics.distances import word_tokens
    from persona_metrics.resources import sent_tokenize

    sentences: dict[str, list[str]] = {}
    out = []
    for news_id, body, head, history in zip(
        dataset["news_id"], dataset["body"], heads, dataset["history_text"], strict=True
    ):
        if news_id not in sentences:
            sentences[news_id] = sent_tokenize(body) or [head]
        if name == "lead":
            out.append(sentences[news_id][0])
        else:
            interest = set(word_tokens(history))
            out.append(max(sentences[news_id], key=lambda s, interest=interest: len(interest & set(word_tokens(s)))))
    return out


@pytest.fixture(scope="module")
def pens(tmp_path_factory):
    script = load_script("make_synthetic_pens")
    path = tmp_path_factory.mktemp("pens")
    args = ["--articles", "30", "--users", "10", "--history-articles", "15", "--body-sentences", "4"]
    assert script.main([str(path), *args]) == 0
    return load_pens(path)


def test_baseline_table_covers_every_baseline() -> None:
    assert list(_BASELINE_FUNCTIONS) == list(BASELINES)


@pytest.mark.parametrize("name", list(BASELINES))
def test_baselines_match_the_original_implementation(pens, name) -> None:
    assert baseline_predictions(pens, name) == _original_baseline_predictions(pens, name)
