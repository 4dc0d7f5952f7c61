"""The evaluate modules: loading (path and bare name, offline), result keys, docstrings, bad input."""

from __future__ import annotations

import doctest
import importlib
import inspect
import json
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

import persona_metrics
from persona_metrics import PersonaMetricsWarning
from persona_metrics.integrations.registry import metric_script, modules_cache, register, script_hash
from persona_metrics.personalization import score_personalization

DOC = "Shares of Harbor Foods rose after the grocer raised its outlook and opened two stores."
REFS = ["Harbor Foods lifts its outlook", "Two new Harbor Foods stores open", "Grocer shares climb on outlook"]
PREDS = ["Harbor Foods raises outlook", "Harbor Foods opens two stores", "Harbor Foods shares rise"]
PERSONALIZATION = ("perseval", "degress")


@pytest.fixture(scope="module", params=PERSONALIZATION)
def module(request: pytest.FixtureRequest):
    return persona_metrics.load(request.param)


def test_metrics_listed() -> None:
    assert persona_metrics.METRICS == (
        "degress",
        "perseval",
        "persona_quality",
        "persona_style",
        "summary_eval",
        "vert",
    )


def test_unknown_metric_name() -> None:
    with pytest.raises(ValueError, match="bundled metrics are"):
        persona_metrics.load("perseveral")


def test_module_name_and_no_var_kwargs(module) -> None:
    """evaluate's common test: the module name equals the file name and ``_compute`` has no **kwargs."""
    assert module.name in PERSONALIZATION
    params = inspect.signature(module._compute).parameters.values()
    assert all(p.kind is not inspect.Parameter.VAR_KEYWORD for p in params)


EXPECTED_KEYS = {
    "perseval": {
        "perseval",
        "degress",
        "egises",
        "edp",
        "accuracy_distance",
        "num_documents",
        "num_excluded_documents",
    },
    "degress": {"degress", "egises", "p_accuracy", "accuracy_distance", "num_documents", "num_excluded_documents"},
}


def test_result_keys_and_values_match_the_library(module) -> None:
    out = module.compute(predictions=PREDS, references=REFS, documents=[DOC] * 3)
    assert set(out) == EXPECTED_KEYS[module.name]
    lib = score_personalization(PREDS, REFS, [DOC] * 3)
    for key in set(out) - {"num_documents", "num_excluded_documents"}:
        assert out[key] == pytest.approx(getattr(lib, key), abs=1e-15)
    assert all(isinstance(v, float | int) for v in out.values())


def test_per_summary_aligned_with_none_for_excluded(module) -> None:
    lone = "An article only one reader summarized."
    with pytest.warns(PersonaMetricsWarning):
        out = module.compute(
            predictions=[*PREDS, "x"], references=[*REFS, "y"], documents=[DOC] * 3 + [lone], return_per_summary=True
        )
    per = out["per_summary"]
    expected = {"perseval": {"perseval", "degress", "edp"}, "degress": {"degress"}}[module.name]
    assert set(per) == expected
    for values in per.values():
        assert len(values) == 4
        assert values[3] is None
        assert all(isinstance(v, float) for v in values[:3])
    assert out["num_excluded_documents"] == 1


def test_add_batch_streaming_equals_compute(module) -> None:
    whole = module.compute(predictions=PREDS, references=REFS, documents=[DOC] * 3)
    for i in range(3):
        module.add_batch(predictions=PREDS[i : i + 1], references=REFS[i : i + 1], documents=[DOC])
    assert module.compute() == whole
    module.add(prediction=PREDS[0], reference=REFS[0], documents=DOC)
    module.add(prediction=PREDS[1], reference=REFS[1], documents=DOC)
    assert module.compute()["num_documents"] == 1


def test_bootstrap_and_signature_keys() -> None:
    out = persona_metrics.load("perseval").compute(
        predictions=PREDS, references=REFS, documents=[DOC] * 3, bootstrap=50, return_signature=True
    )
    assert out["perseval_ci_low"] <= out["perseval"] <= out["perseval_ci_high"]
    assert out["signature"].startswith("rougeL")


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (
            {"predictions": PREDS, "references": [REFS[0], 7, REFS[2]], "documents": [DOC] * 3},
            TypeError,
            r"references\[1\] must be a string",
        ),
        ({"predictions": PREDS, "references": REFS, "documents": [DOC, DOC, ""]}, ValueError, r"documents\[2\]"),
        ({"predictions": PREDS, "references": REFS[:2], "documents": [DOC] * 3}, ValueError, "references has 2"),
        (
            {"predictions": PREDS, "references": REFS, "documents": [DOC] * 3, "distance": "cosine"},
            ValueError,
            "rougeL",
        ),
    ],
)
def test_bad_input_names_field_and_index(module, kwargs: dict, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        module.compute(**kwargs)


@pytest.mark.parametrize("name", PERSONALIZATION)
def test_docstring_examples_run(registered_modules: str, name: str) -> None:
    """The ``>>>`` examples in each module's docstring, with ``evaluate.load`` by bare name (registered)."""
    from conftest import run_module_doctests

    result = run_module_doctests(name)
    assert result.failed == 0
    assert result.attempted > 3


@pytest.mark.parametrize(
    "module_name",
    [
        "persona_metrics.personalization.scorer",
        "persona_metrics.personalization.params",
        "persona_metrics.personalization.merge",
        "persona_metrics.signature",
        "persona_metrics.distances",
        "persona_metrics.summary_eval.params",
        "persona_metrics.summary_eval.rubrics",
        "persona_metrics.summary_eval.redaction",
        "persona_metrics.summary_eval.judge",
    ],
)
def test_library_docstring_examples_run(module_name: str) -> None:
    result = doctest.testmod(importlib.import_module(module_name))
    assert result.failed == 0
    assert result.attempted > 0


def test_a_stale_registered_copy_warns(tmp_path: Path) -> None:
    """A cached module from another version warns until ``persona-metrics register`` is run again."""
    from persona_metrics.integrations.registry import warn_if_stale

    stale = tmp_path / "perseval.py"
    stale.write_text(metric_script("perseval").read_text() + "\nOLD_VERSION = True\n")
    with pytest.warns(UserWarning, match="persona-metrics register"):
        warn_if_stale("perseval", stale)
    same = tmp_path / "copy" / "perseval.py"
    same.parent.mkdir()
    same.write_bytes(metric_script("perseval").read_bytes())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_if_stale("perseval", same)


# --- registration ---------------------------------------------------------------------------------------
def test_register_is_idempotent_and_current(registered_modules: str) -> None:
    first = register(["perseval"])
    second = register(["perseval"])
    assert first == second
    assert first[0].name == script_hash(metric_script("perseval"))
    assert (first[0] / "perseval.py").read_bytes() == metric_script("perseval").read_bytes()
    assert str(modules_cache()).startswith(registered_modules)


def test_register_makes_the_installed_copy_newest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An older or newer registration (upgrade/downgrade) loses to a fresh ``register`` call."""
    monkeypatch.setenv("HF_MODULES_CACHE", str(tmp_path))
    [current] = register(["degress"])
    other = current.parent / ("f" * 64)
    other.mkdir()
    (other / "degress.py").write_text("# another version\n")
    os.utime(other / "degress.py", (2e9, 2e9))  # in the future: newest by mtime
    register(["degress"])
    newest = max(current.parent.glob("*/degress.py"), key=lambda p: p.stat().st_mtime)
    assert newest.parent == current


def test_register_concurrently(tmp_path: Path) -> None:
    """Eight processes registering into one empty cache: one copy per metric, no temporary leftovers."""
    env = {**os.environ, "HF_MODULES_CACHE": str(tmp_path)}
    procs = [
        subprocess.Popen([sys.executable, "-m", "persona_metrics.cli", "register"], env=env, stdout=subprocess.DEVNULL)
        for _ in range(8)
    ]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    for name in PERSONALIZATION:
        entries = list((tmp_path / "evaluate_modules" / "metrics" / f"evaluate-metric--{name}").iterdir())
        assert sorted(e.name for e in entries) == sorted(["__init__.py", script_hash(metric_script(name))])


# --- bare-name load offline in a fresh process -------------------------------------------------------------
_BLOCK_NETWORK = textwrap.dedent(
    """
    import socket
    ATTEMPTS = []
    def _blocked(*args, **kwargs):
        ATTEMPTS.append(args[:1])
        raise OSError("network blocked by the test")
    socket.getaddrinfo = _blocked
    socket.create_connection = _blocked
    socket.socket.connect = lambda self, *a: _blocked(*a)
    socket.socket.connect_ex = lambda self, *a: _blocked(*a)
    import builtins
    builtins._NETWORK_ATTEMPTS = ATTEMPTS
    """
)

_LOAD_BY_BARE_NAME = textwrap.dedent(
    """
    import builtins, json, sys, time
    import evaluate
    t0 = time.perf_counter()
    out = {}
    for name in ("perseval", "degress"):
        m = evaluate.load(name)
        doc = "Shares of Harbor Foods rose after the grocer raised its outlook."
        refs = ["Harbor Foods lifts its outlook", "Harbor Foods shares rise"]
        out[name] = m.compute(predictions=refs, references=refs, documents=[doc, doc])["degress"]
    out["persona_style"] = evaluate.load("persona_style").compute(
        predictions=["Wow, sales are up! Buy now?"], personas=["enthusiast"])["style_similarity"]
    out["persona_quality"] = evaluate.load("persona_quality").compute(
        predictions=refs, references=refs, personas=["journalist", "journalist"])["rougeLsum"]
    out["seconds"] = time.perf_counter() - t0
    out["attempts"] = len(builtins._NETWORK_ATTEMPTS)
    print(json.dumps(out))
    """
)


def run_in_fresh_blocked_process(tmp_path: Path, script: str, offline_flags: bool = True) -> dict:
    """``persona-metrics register`` then ``python -c script`` in a fresh process with sockets blocked.

    A private ``HF_HOME``, a working directory outside the repository and no inherited ``HF_*`` variables (plus
    the README's two offline flags when ``offline_flags``). Returns the JSON the script prints on its last line.
    """
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(_BLOCK_NETWORK)
    workdir = tmp_path / "elsewhere"
    workdir.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "TRANSFORMERS_"))}
    env |= {"HF_HOME": str(tmp_path / "hf"), "PYTHONPATH": str(tmp_path / "site")}
    if offline_flags:
        env |= {"HF_EVALUATE_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    cli = Path(sys.executable).with_name("persona-metrics")
    subprocess.run([str(cli), "register"], env=env, cwd=workdir, check=True, capture_output=True)
    proc = subprocess.run(
        [sys.executable, "-c", script], env=env, cwd=workdir, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("offline_flags", [True, False])
def test_bare_name_load_in_fresh_process_with_network_blocked(tmp_path: Path, offline_flags: bool) -> None:
    """``persona-metrics register`` then ``evaluate.load(NAME)`` of all four from another directory, fresh HF_HOME.

    With ``HF_EVALUATE_OFFLINE=1`` and ``HF_HUB_OFFLINE=1`` (what the README tells users to set) no connection
    is even attempted; without them evaluate probes the Hub (and huggingface_hub fetches its agent registry),
    every attempt fails at once, and the registered module is used.
    """
    out = run_in_fresh_blocked_process(tmp_path, _LOAD_BY_BARE_NAME, offline_flags)
    assert out["perseval"] == 1.0
    assert out["degress"] == 1.0
    assert 0.5 < out["persona_style"] <= 1.0
    assert out["persona_quality"] == 1.0
    if offline_flags:
        assert out["attempts"] == 0
    else:
        assert out["attempts"] > 0  # the block was really in place


def test_wheel_ships_the_metric_scripts(tmp_path: Path) -> None:
    """A non-editable install must still find the metric scripts (``metrics/`` is linked into the package)."""
    import zipfile

    repo = Path(__file__).resolve().parents[1]
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            str(repo),
            "-w",
            str(tmp_path),
        ],
        check=True,
        capture_output=True,
    )
    [wheel] = tmp_path.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "persona_metrics/persona/personas/journalist.txt" in names
    assert "persona_metrics/persona/baselines/bertscore_baseline_minilm.tsv" in names
    for name in persona_metrics.METRICS:
        for file in (f"{name}.py", "README.md", "requirements.txt"):
            assert f"persona_metrics/metrics/{name}/{file}" in names


#: Inputs of each bundled metric (a tiny valid call) for the cross-metric contract tests.
CALLS = {
    "perseval": {"predictions": PREDS, "references": REFS, "documents": [DOC] * 3},
    "degress": {"predictions": PREDS, "references": REFS, "documents": [DOC] * 3},
    "persona_style": {"predictions": PREDS, "personas": ["journalist"] * 3},
    "persona_quality": {"predictions": PREDS, "references": REFS, "personas": ["journalist"] * 3},
    "vert": {"predictions": PREDS, "references": REFS},
    "summary_eval": {"predictions": PREDS, "sources": [DOC] * 3},
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_every_metric_offers_one_signature_format(name: str) -> None:
    """One Signature helper: ``part|key:value|...|persona_metrics:<version>`` from every module, version last."""
    out = persona_metrics.load(name).compute(**CALLS[name], return_signature=True)
    parts = out["signature"].split("|")
    assert parts[-1] == f"persona_metrics:{persona_metrics.__version__}"
    assert sum(p.startswith("persona_metrics:") for p in parts) == 1  # components compose without a version
    assert all(p and " " not in p for p in parts)


def test_per_document_output_of_the_personalization_modules(module) -> None:
    out = module.compute(predictions=PREDS, references=REFS, documents=[DOC] * 3, return_per_document=True)
    lib = score_personalization(PREDS, REFS, [DOC] * 3)
    assert out["per_document"]["document"] == [DOC]
    assert out["per_document"]["degress"] == [pytest.approx(lib.per_document("degress")[DOC], abs=1e-15)]


ROUGE_LIKE = '''
import datasets
import evaluate


class RougeLike(evaluate.Metric):
    """A local stand-in with evaluate's rouge inputs (predictions, references) and no other: a word-overlap rate."""

    def _info(self):
        return evaluate.MetricInfo(
            description="test", citation="", inputs_description="",
            features=datasets.Features(
                {"predictions": datasets.Value("string"), "references": datasets.Value("string")}
            ),
        )

    def _compute(self, predictions, references):
        shared = [len(set(p.split()) & set(r.split())) / len(set(r.split())) for p, r in zip(predictions, references)]
        return {"overlap": sum(shared) / len(shared)}
'''


def test_combine_with_a_canonical_style_module_through_add_batch(tmp_path) -> None:
    # docs/evaluate_conventions.md §4.3: compute(documents=...) reaches the rouge-like module and fails;
    # add_batch hands each module only its own features, then compute() works.
    import evaluate

    (tmp_path / "rouge_like").mkdir()
    (tmp_path / "rouge_like" / "rouge_like.py").write_text(ROUGE_LIKE)
    combined = evaluate.combine([persona_metrics.load("perseval"), evaluate.load(str(tmp_path / "rouge_like"))])
    doc = "Harbor Foods raised its outlook and opened two stores."
    inputs = {
        "predictions": ["Harbor Foods lifts its outlook", "Two new stores open"],
        "references": ["Harbor Foods lifts its outlook", "Two new Harbor Foods stores open"],
        "documents": [doc, doc],
    }
    with pytest.raises(TypeError, match="documents"):
        combined.compute(**inputs)
    combined.add_batch(**inputs)
    result = combined.compute()
    expected = persona_metrics.load("perseval").compute(**inputs)
    assert {k: result[k] for k in expected} == expected
    assert result["overlap"] == pytest.approx((1.0 + 4 / 6) / 2)  # by hand: 5/5 words, then {Two,new,stores,open}/6


def test_failed_computes_leave_no_cache_files() -> None:
    # evaluate deletes a computation's .arrow file (and releases its lock) only after a successful _compute; the
    # modules do the same after a failure, so 5 failures leave what one success leaves (one lock file, no data)
    module = persona_metrics.load("perseval", experiment_id="failed-computes")
    inputs = {"predictions": ["a", "b"], "references": ["b", "x"], "documents": ["c", "d"]}  # no 2-reference doc
    for _ in range(5):
        with pytest.raises(ValueError, match="no document has at least 2 references"):
            module.compute(**inputs)
    left = sorted(p.name for p in Path(module.data_dir).iterdir() if "failed-computes" in p.name)
    assert not [name for name in left if name.endswith(".arrow")], left
    assert len(left) <= 1, left
    result = module.compute(**{**inputs, "documents": ["c", "c"]})  # the module still works afterwards
    assert result["num_documents"] == 1
