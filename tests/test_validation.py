"""The one validation layer (``persona_metrics.validation``) at every entry point.

Bad inputs are named by field and index: a ``None`` field, a bad ``persona_samples`` / ``persona_dir``, a lone
surrogate, an empty persona sample, a huge number, a seed beyond 64 bits, an unknown option; the documented output
ranges hold under non-default options; lists, tuples, numpy arrays, ``datasets`` Columns and pandas Series give
identical results, converted once at the boundary. Each of these tests failed before its check existed. The
reliability suite (hypothesis) is ``tests/test_fuzz.py``.
"""

from __future__ import annotations

import math
import re
import types
from pathlib import Path

import datasets
import numpy as np
import pandas as pd
import pytest

import persona_metrics
from persona_metrics.datasets.cnndm import baseline_summaries
from persona_metrics.integrations.distributed import PersevalMetric, PersonaStyleMetric, VertMetric
from persona_metrics.integrations.hooks import make_compute_metrics
from persona_metrics.persona.bertscore_baseline import unrelated_pairs
from persona_metrics.persona.quality import BertScoreConfig, QualityParams
from persona_metrics.persona.style import check_persona_samples, score_style
from persona_metrics.personalization import PersevalParams, score_personalization
from persona_metrics.personalization.stability import stability
from persona_metrics.significance import (
    bootstrap_interval,
    check_bootstrap,
    check_seed,
    paired_permutation_test,
)
from persona_metrics.summary_eval.formulas import check_weights as check_summary_weights
from persona_metrics.summary_eval.params import JudgeOptions
from persona_metrics.validation import (
    as_list,
    check_ids,
    check_mapping,
    check_number,
    check_path,
    check_reference_lists,
    check_text,
    check_text_fields,
    check_texts,
)
from persona_metrics.vert import score_vert

ROOT = Path(__file__).resolve().parents[1]
DOC = "Shares of Harbor Foods rose after the grocer raised its outlook and opened two stores."
REFS = ["Harbor Foods lifts its outlook", "Two new Harbor Foods stores open"]
PREDS = ["Harbor Foods raises outlook", "Harbor Foods opens two stores"]
NEWS = "The company reported quarterly revenue of 4.2 billion dollars, up 8 percent from a year earlier."
BLOG = "Wow, they crushed it! Sales are up 11%. Should you buy? I did!"

#: One valid call per bundled module (tiny inputs; the neural ones use the packaged small models).
VALID = {
    "perseval": {"predictions": PREDS, "references": REFS, "documents": [DOC, DOC]},
    "degress": {"predictions": PREDS, "references": REFS, "documents": [DOC, DOC]},
    "persona_style": {"predictions": [NEWS, BLOG], "personas": ["journalist", "enthusiast"]},
    "persona_quality": {"predictions": [NEWS, BLOG], "references": [NEWS, NEWS], "personas": ["journalist"] * 2},
    "vert": {"predictions": PREDS, "references": REFS},
    "summary_eval": {"predictions": PREDS, "sources": [DOC, DOC]},
}


@pytest.fixture(scope="module")
def modules() -> dict:
    return {name: persona_metrics.load(name, keep_in_memory=True) for name in VALID}


# --- bad inputs are named by field and index -----------------------------------------------------------
@pytest.mark.parametrize("name", sorted(VALID))
@pytest.mark.parametrize("field_index", [0, 1])
def test_a_none_field_is_named(modules, name: str, field_index: int) -> None:
    """``predictions=None`` (or another field None) was evaluate's ``object of type 'NoneType' has no len()``."""
    inputs = dict(VALID[name])
    field = list(inputs)[field_index]
    inputs[field] = None
    with pytest.raises(TypeError, match=rf"^{field} is missing \(None\)"):
        modules[name].compute(**inputs)


def test_no_inputs_at_all_is_named(modules) -> None:
    with pytest.raises(ValueError, match="no inputs: predictions, references, documents are all missing"):
        modules["perseval"].compute()


def test_a_none_field_in_the_library_is_named() -> None:
    with pytest.raises(TypeError, match=r"^predictions is missing \(None\)"):
        score_style(None, ["journalist"])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^references is missing \(None\)"):
        score_personalization(PREDS, None, [DOC, DOC])  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["persona_style", "persona_quality"])
def test_persona_samples_that_is_not_a_mapping(modules, name: str) -> None:
    """``persona_samples="text"`` was an AttributeError ('str' object has no attribute 'items')."""
    with pytest.raises(TypeError, match=r"^persona_samples must be a dict \{persona name: \[sample texts\]\}, got str"):
        modules[name].compute(**VALID[name], persona_samples="text")


@pytest.mark.parametrize("name", ["persona_style", "persona_quality"])
def test_persona_dir_that_is_not_a_path(modules, name: str) -> None:
    """``persona_dir=5`` was ``os.fspath``'s TypeError (no option named)."""
    with pytest.raises(TypeError, match=r"^persona_dir must be a path \(str or os.PathLike\), got int: 5"):
        modules[name].compute(**VALID[name], persona_dir=5)
    with pytest.raises(ValueError, match=r"^persona_dir is empty"):  # "" would have read the current directory
        modules[name].compute(**VALID[name], persona_dir="")
    with pytest.raises(FileNotFoundError, match=r"^persona_dir '/no/such/dir' is not a directory"):
        modules[name].compute(**VALID[name], persona_dir="/no/such/dir")


def test_persona_dir_files_are_checked(tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_text("\n---\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"persona_dir file .*empty\.txt holds no sample text"):
        score_style([NEWS], ["journalist"], persona_dir=tmp_path)
    (tmp_path / "empty.txt").write_text("Real words here.\n---\n!!!\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"persona_dir file .*empty\.txt, sample 1: text has no words"):
        score_style([NEWS], ["journalist"], persona_dir=tmp_path)
    (tmp_path / "empty.txt").write_bytes(b"caf\xe9")
    with pytest.raises(ValueError, match=r"persona_dir file .*empty\.txt is not UTF-8 text"):
        score_style([NEWS], ["journalist"], persona_dir=tmp_path)


LONE = "Harbor Foods \udfff rises"


@pytest.mark.parametrize(
    ("name", "field", "value", "where"),
    [
        ("perseval", "predictions", [PREDS[0], LONE], "predictions[1]"),
        ("degress", "documents", [DOC, DOC + "\ud800"], "documents[1]"),
        ("persona_style", "personas", ["journalist", "enthus\udc80iast"], "personas[1]"),
        ("persona_quality", "references", [NEWS, [NEWS, LONE]], "references[1][1]"),
        ("vert", "references", [REFS[0], LONE], "references[1]"),
        ("summary_eval", "sources", [LONE, DOC], "sources[0]"),
    ],
)
def test_a_lone_surrogate_is_rejected_with_field_and_index(modules, name, field, value, where) -> None:
    """A lone surrogate was pyarrow's UnicodeEncodeError, with no field or index."""
    inputs = {**VALID[name], field: value}
    pattern = rf"^{re.escape(where)} contains a lone surrogate \(U\+D[89A-F][0-9A-F]{{2}} at"
    with pytest.raises(ValueError, match=pattern):
        modules[name].compute(**inputs)


def test_a_lone_surrogate_in_the_library_and_in_options(modules) -> None:
    with pytest.raises(ValueError, match=r"^predictions\[1\] contains a lone surrogate \(U\+DFFF at position 13\)"):
        score_vert([PREDS[0], LONE], REFS)
    with pytest.raises(ValueError, match=r"^persona_samples\['x'\]\[0\] contains a lone surrogate"):
        modules["persona_style"].compute(predictions=[NEWS], personas=["x"], persona_samples={"x": [LONE]})
    valid_surrogate_pair = "emoji \U0001f600 and \ud83d\ude00".encode("utf-16", "surrogatepass").decode("utf-16")
    assert check_text(valid_surrogate_pair, "x") == valid_surrogate_pair  # a real pair decodes to one code point


def test_an_empty_persona_sample_names_the_option_and_index(modules) -> None:
    """``persona_samples={"x": ["!!!"]}`` said ``samples['x'][0]: text has no words`` (not the option's name)."""
    with pytest.raises(ValueError, match=r"^persona_samples\['x'\]\[0\]: text has no words"):
        modules["persona_style"].compute(predictions=[NEWS], personas=["x"], persona_samples={"x": ["!!!"]})
    with pytest.raises(ValueError, match=r"^persona_samples\['x'\]\[1\]: text has no words"):
        score_style([NEWS], ["x"], persona_samples={"x": (NEWS, "?! ...")})
    with pytest.raises(ValueError, match=r"^persona_samples\['x'\] must be a non-empty list of texts"):
        check_persona_samples({"x": []})
    with pytest.raises(TypeError, match=r"^persona_samples\['x'\]\[0\] must be a string, got int"):
        check_persona_samples({"x": [5]})
    with pytest.raises(TypeError, match=r"^persona_samples key 5 must be a string"):
        check_persona_samples({5: [NEWS]})


@pytest.mark.parametrize(
    ("name", "options", "message"),
    [
        ("perseval", {"beta": 10**400}, "beta must be a finite number, got an int of 401 digits"),
        ("perseval", {"alpha": -(10**400)}, "alpha must be a finite number, got an int of 401 digits"),
        ("degress", {"p_acc_alpha": 10**400}, "p_acc_alpha must be a finite number, got an int of 401 digits"),
        ("perseval", {"bootstrap": 10**400}, "bootstrap must be 0 .off. or an int from 2 to 1,000,000"),
        ("persona_style", {"bootstrap": 10**400}, "bootstrap must be 0 .off. or an int from 2 to 1,000,000"),
        ("vert", {"alpha": 10**400}, "alpha must be a finite number > 0, got an int of 401 digits"),
        ("vert", {"max_wmd": 10**400}, "max_wmd must be a finite number > 0, got an int of 401 digits"),
        ("summary_eval", {"weights": {"coherence": 10**400}}, r"weights\['coherence'\] must be a finite number"),
        ("summary_eval", {"timeout": 10**400}, r"timeout must be a finite number in \[0.001, 86400\]"),
        ("persona_quality", {"overall_weights": {"content": 10**400, "style": 0}}, r"overall_weights\['content'\]"),
    ],
)
def test_a_huge_number_is_a_named_value_error(modules, name: str, options: dict, message: str) -> None:
    """``beta=10**400`` was an OverflowError (``math.isfinite`` on a huge int), without the option's name."""
    with pytest.raises(ValueError, match=message):
        modules[name].compute(**VALID[name], **options)


def test_huge_numbers_in_the_library() -> None:
    with pytest.raises(ValueError, match="beta must be a finite number, got an int of 401 digits"):
        PersevalParams(beta=10**400)
    with pytest.raises(ValueError, match=r"max_tokens must be an int in \[1, 131072\]"):
        JudgeOptions(model="gpt-4o", max_tokens=-(10**400))
    with pytest.raises(ValueError, match=r"weights\['accuracy'\] must be a finite number"):
        check_summary_weights({"accuracy": 10**400})
    assert check_number("n", 10**400, integer=True) == 10**400  # ints are compared exactly, never as floats


#: Every function that takes a seed, called with a valid rest (``seed=10**400`` was once accepted).
SEED_TAKERS = {
    "check_seed": lambda seed: check_seed(seed),
    "check_bootstrap": lambda seed: check_bootstrap(100, seed),
    "score_style": lambda seed: score_style([NEWS], ["journalist"], bootstrap=10, seed=seed),
    "PersevalParams": lambda seed: PersevalParams(seed=seed),
    "paired_permutation_test": lambda seed: paired_permutation_test([1.0, 2.0], [0.0, 1.0], seed=seed),
    "bootstrap_interval": lambda seed: bootstrap_interval([1.0, 2.0], 10, seed),
    "stability": lambda seed: stability(np.arange(12.0).reshape(2, 6), seed=seed),
    "unrelated_pairs": lambda seed: unrelated_pairs([("a", NEWS), ("b", DOC)], seed),
    "baseline_summaries": lambda seed: baseline_summaries([NEWS], [DOC], seed=seed),
    "JudgeOptions": lambda seed: JudgeOptions(model="gpt-4o", seed=seed),
}


@pytest.mark.parametrize("seed", [10**400, 2**64, -1], ids=["10**400", "2**64", "-1"])
@pytest.mark.parametrize("taker", sorted(SEED_TAKERS))
def test_every_seed_is_bounded_to_64_bits(taker: str, seed: int) -> None:
    with pytest.raises(ValueError, match=r"seed must be an int from 0 to 2\*\*64 - 1 \(MAX_SEED\)"):
        SEED_TAKERS[taker](seed)


@pytest.mark.parametrize("taker", sorted(SEED_TAKERS))
def test_the_largest_seed_is_accepted(taker: str) -> None:
    from persona_metrics.significance import MAX_SEED

    assert MAX_SEED == 2**64 - 1  # the most torch.manual_seed takes
    SEED_TAKERS[taker](MAX_SEED)
    SEED_TAKERS[taker](np.uint64(MAX_SEED))


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"seed": -1}, ValueError, r"seed must be an int from 0 to 2\*\*64 - 1 \(MAX_SEED\), got -1"),
        ({"seed": 10**400}, ValueError, r"seed must be an int from 0 to 2\*\*64 - 1 \(MAX_SEED\), got an int of 401"),
        ({"seed": 1.5}, TypeError, "seed must be an int"),
        ({"distance_options": {1: 2}}, TypeError, "distance_options keys must be strings, got int: 1"),
        ({"document_ids": [1, [2]]}, TypeError, r"document_ids\[1\] must be a hashable id"),
        ({"document_ids": "ab"}, TypeError, "document_ids must be a list of ids"),
        ({"return_signature": 1}, TypeError, "return_signature must be a bool"),
        ({"colour": "blue"}, TypeError, r"unknown option\(s\) \['colour'\]"),
    ],
)
def test_options_are_checked_by_name_before_anything_is_written(modules, options, error, message) -> None:
    with pytest.raises(error, match=message):
        modules["perseval"].compute(**VALID["perseval"], **options)


# --- every entry point goes through the same checks ------------------------------------------------------
def test_hooks_and_distributed_classes_use_the_same_checks() -> None:
    tok = types.SimpleNamespace(pad_token_id=0)
    with pytest.raises(ValueError, match="beta must be a finite number, got an int of 401 digits"):
        make_compute_metrics("perseval", tok, {"document": [DOC, DOC]}, beta=10**400)
    with pytest.raises(TypeError, match="persona_samples must be a dict"):
        make_compute_metrics("persona_style", tok, {"persona": ["journalist"]}, persona_samples="text")
    with pytest.raises(ValueError, match=r"alpha must be in \(0, 300\], got 301"):
        PersevalMetric(alpha=301)
    with pytest.raises(TypeError, match="persona_dir must be a path"):
        PersonaStyleMetric(persona_dir=5)
    with pytest.raises(ValueError, match="max_wmd / alpha must be at most"):
        VertMetric(alpha=1e-9)
    metric = PersevalMetric()
    with pytest.raises(ValueError, match=r"^references\[0\] contains a lone surrogate"):
        metric.update(predictions=PREDS, references=[LONE, REFS[1]], documents=[DOC, DOC])


def test_the_quality_options_are_checked_before_any_model_work() -> None:
    with pytest.raises(TypeError, match="bertscore_layers must be an int"):
        BertScoreConfig(num_layers=2.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="rescale must be a bool"):
        BertScoreConfig(rescale="no")  # type: ignore[arg-type]
    with pytest.raises(FileNotFoundError, match=r"baseline_path '/no/such\.tsv' is not a file"):
        BertScoreConfig(baseline_path="/no/such.tsv")
    with pytest.raises(ValueError, match="bertscore_model is empty"):
        BertScoreConfig(model=" ")
    with pytest.raises(ValueError, match=r"content_weights must have exactly the keys"):
        QualityParams(content_weights={"rougeLsum": 1.0})
    with pytest.raises(ValueError, match="style_method = 'cosine' is not a style method"):
        QualityParams(style_method="cosine")


def test_a_bad_bertscore_baseline_file_is_named(tmp_path: Path) -> None:
    from persona_metrics.persona.content import bertscore_baseline

    bad = tmp_path / "b.tsv"
    bad.write_text("LAYER,P,R,F\n6,0.5,0.5,1.0\n", encoding="utf-8")
    with pytest.raises(ValueError, match="rescaling needs a finite F < 1"):
        bertscore_baseline(BertScoreConfig(baseline_path=str(bad)), 6)
    bad.write_text("layer;f\n6;0.5\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"baseline_path .* is not a bert_score baseline"):
        bertscore_baseline(BertScoreConfig(baseline_path=str(bad)), 6)


# --- documented ranges hold for every valid option -------------------------------------------------------
def edp_max(alpha: float) -> float:
    """The documented upper end of EDP and PerSEval: ``1 − 1/(1 + 10^α) + 1e-7``."""
    return 1.0 - 1.0 / (1.0 + 10.0**alpha) + 1e-7


@pytest.mark.parametrize("alpha", [3.0, 7.0, 50.0, 300.0])
def test_perseval_stays_inside_its_documented_range(modules, alpha: float) -> None:
    """``alpha=50`` gives perseval = edp = 1.0000001: the authors' EDP = 1 − S + 1e-7, documented, not clipped."""
    out = modules["perseval"].compute(predictions=REFS, references=REFS, documents=[DOC, DOC], alpha=alpha)
    assert 0.0 <= out["perseval"] <= edp_max(alpha) + 1e-15
    assert 1e-7 <= out["edp"] <= edp_max(alpha) + 1e-15
    if alpha > 7:
        assert out["perseval"] > 1.0  # above 1 only for alpha > 7, as documented
    if alpha == 3.0:
        assert out["perseval"] < 0.99901  # the default alpha


def test_exponents_beyond_float64_are_refused_instead_of_nan() -> None:
    """β > 308 made ``10**β`` infinite and, with γ > 323 (ADP = ACP = 0), PerSEval NaN (``inf · 0``)."""
    with pytest.raises(ValueError, match=r"beta must be in \(0, 300\], got 400"):
        score_personalization(REFS, REFS, [DOC, DOC], beta=400, gamma=1000)
    extreme = score_personalization(REFS, REFS, [DOC, DOC], alpha=300, beta=300, gamma=300)
    assert math.isfinite(extreme.perseval)
    assert 0 <= extreme.perseval <= edp_max(300)


def test_p_accuracy_range_for_every_valid_option(modules) -> None:
    worst = modules["degress"].compute(
        predictions=["", ""], references=REFS, documents=[DOC, DOC], p_acc_alpha=1.0, p_acc_beta=1.0
    )
    best = modules["degress"].compute(
        predictions=REFS, references=REFS, documents=[DOC, DOC], p_acc_alpha=1e-9, p_acc_beta=0.0
    )
    assert -1 / (1 + math.exp(-1)) < worst["p_accuracy"] < best["p_accuracy"] < 1


def test_vert_range_with_non_default_alpha(modules) -> None:
    out = modules["vert"].compute(predictions=["", "zzzq"], references=REFS, alpha=0.5, return_per_item=True)
    assert min(out["per_item"]["vert"]) >= -5.0 / (2 * 0.5)  # [−max_wmd / (2·alpha), 1]
    assert min(out["per_item"]["vert"]) < -0.5  # outside the α = cap range: the general bound is the documented one


@pytest.mark.parametrize(
    ("path", "stale", "fresh"),
    [
        ("metrics/perseval/README.md", "| `perseval` | [0, 0.999) |", "1 − 1/(1 + 10^α) + 1e-7"),
        ("metrics/perseval/perseval.py", "system PerSEval in [0, 1)", "1 - 1/(1 + 10**alpha) + 1e-7"),
        ("metrics/degress/README.md", "| `p_accuracy` | (−0.37, 0.75] for bounded σ |", "(−0.7311, 1)"),
        ("metrics/vert/README.md", "| `vert` | [−0.5, 1] with α = cap = 5 |", "[−max_wmd / (2·alpha), 1]"),
        ("metrics/summary_eval/README.md", "| `overall` | [0, 1] or `None` |", "[0, sum of the weights]"),
        ("docs/perseval.md", "| finite, > 0 |", "(0, 300]"),
    ],
)
def test_the_documented_ranges_are_the_exact_ones(path: str, stale: str, fresh: str) -> None:
    text = (ROOT / path).read_text(encoding="utf-8")
    assert stale not in text
    assert fresh in text


# --- one conversion of any sequence at the boundary ----------------------------------------------------
def _containers(values: list) -> dict:
    column = datasets.Dataset.from_dict({"c": values})["c"] if all(isinstance(v, str) for v in values) else None
    out = {"list": values, "tuple": tuple(values), "numpy": np.array(values, dtype=object), "series": pd.Series(values)}
    if column is not None:
        out["column"] = column
        out["numpy_str"] = np.array(values)
    return out


@pytest.mark.parametrize("kind", ["tuple", "numpy", "numpy_str", "series", "column"])
@pytest.mark.parametrize("name", sorted(VALID))
def test_columns_series_and_arrays_give_identical_results(modules, name: str, kind: str) -> None:
    expected = modules[name].compute(**VALID[name])
    converted = {}
    for field, values in VALID[name].items():
        flat = all(isinstance(v, str) for v in values)
        converted[field] = _containers(values)[kind] if flat or kind in ("tuple", "series") else values
    assert modules[name].compute(**converted) == expected


def test_the_library_takes_the_same_containers() -> None:
    ds = datasets.Dataset.from_dict({"p": PREDS, "r": REFS, "d": [DOC, DOC]})
    expected = score_personalization(PREDS, REFS, [DOC, DOC]).as_dict()
    assert score_personalization(ds["p"], pd.Series(REFS), np.array([DOC, DOC])).as_dict() == expected
    assert score_vert(ds["p"], pd.Series(REFS)).as_dict() == score_vert(PREDS, REFS).as_dict()
    style = score_style(pd.Series([NEWS, BLOG]), ds.add_column("x", ["journalist"] * 2)["x"])
    assert style.as_dict() == score_style([NEWS, BLOG], ["journalist"] * 2).as_dict()


def test_a_column_is_read_once_not_item_by_item() -> None:
    column = datasets.Dataset.from_dict({"c": [f"text {i}" for i in range(50)]})["c"]
    calls = []
    original = type(column).__getitem__

    def counting(self, key):
        calls.append(key)
        return original(self, key)

    type(column).__getitem__ = counting  # type: ignore[method-assign]
    try:
        assert check_texts(c=column)["c"] == [f"text {i}" for i in range(50)]
    finally:
        type(column).__getitem__ = original  # type: ignore[method-assign]
    assert calls == [slice(None)]


def test_as_list_refuses_what_is_not_a_list() -> None:
    assert as_list(pd.Index(["a", "b"]), "x") == ["a", "b"]
    for bad, kind in [
        (None, r"x is missing \(None\)"),
        ("ab", "x must be a list, got str"),
        ({"a": 1}, "x must be a list, got dict"),
        ({"a"}, "x must be a list, got set"),
        (iter(["a"]), "x must be a list, got list_iterator"),
        (np.array([["a"]]), r"x must be a list \(one-dimensional\), got ndarray of shape \(1, 1\)"),
        (5, "x must be a list, got int"),
    ]:
        with pytest.raises(TypeError, match=kind):
            as_list(bad, "x")


def test_text_checks() -> None:
    assert check_text_fields(a=["x"], b=("y",)) == 1
    with pytest.raises(TypeError, match=r"^a\[1\] must be a string, got (float: nan|NoneType: None)"):
        check_texts(a=pd.Series(["x", None]))  # a missing value of a string Series
    with pytest.raises(ValueError, match=r"^b has 2 items but a has 1; they must align"):
        check_texts(a=["x"], b=["y", "z"])
    with pytest.raises(ValueError, match=r"^a\[0\] is empty"):
        check_texts(a=["\u2003\t"])
    assert check_reference_lists(pd.Series(["a", ("b", "c")])) == [["a"], ["b", "c"]]
    with pytest.raises(TypeError, match=r"^references\[0\] must be a string or a list of strings, got NoneType"):
        check_reference_lists([None])
    assert check_ids(np.array([3, 3, 4])) == [3, 3, 4]
    assert check_mapping("o", {"a": 1}) == {"a": 1}
    with pytest.raises(ValueError, match="o contains a NUL character"):
        check_path("o", "a\x00b")
    with pytest.raises(TypeError, match="o must be a path"):
        check_path("o", b"bytes")
    with pytest.raises(ValueError, match="bootstrap must be 0"):
        check_bootstrap(True, 0)
