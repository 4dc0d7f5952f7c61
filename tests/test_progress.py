"""Progress bars, other libraries' bars, warnings at the caller's line, and one report per skipped file."""

from __future__ import annotations

import importlib
import io
import json
import logging
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import persona_metrics
from persona_metrics import PersonaMetricsWarning, progress
from persona_metrics.progress import progress_bar, progress_enabled, quiet_foreign_progress, set_progress

ROOT = Path(__file__).resolve().parents[1]
DOC = "Harbor Foods will open two stores in Westfield and hire 40 staff, the company said on Tuesday."
REFS = ["Harbor Foods opens two Westfield stores.", "Two new Harbor Foods stores and 40 jobs in Westfield."]
LONE = "Copperfield Bank posted record profit on Monday."


class _Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.fixture(autouse=True)
def _default_switch(monkeypatch: pytest.MonkeyPatch):
    """Each test starts from the default: no set_progress, no environment variable."""
    monkeypatch.delenv(progress.PROGRESS_ENV, raising=False)
    set_progress(None)
    yield
    set_progress(None)


# --- the switch -------------------------------------------------------------------------------------------
def test_default_follows_whether_stderr_is_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stderr", _Stream(tty=True))
    assert progress_enabled()
    monkeypatch.setattr(sys, "stderr", _Stream(tty=False))
    assert not progress_enabled()


def test_precedence_context_then_set_progress_then_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stderr", _Stream(tty=False))
    monkeypatch.setenv(progress.PROGRESS_ENV, "1")
    assert progress_enabled()
    monkeypatch.setenv(progress.PROGRESS_ENV, "off")
    assert not progress_enabled()
    set_progress(True)
    assert progress_enabled()
    with progress.progress(False):
        assert not progress_enabled()
        with progress.progress(True):
            assert progress_enabled()
        assert not progress_enabled()
    assert progress_enabled()
    set_progress(None)
    assert not progress_enabled()


def test_an_unreadable_environment_value_is_ignored_with_a_log(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(sys, "stderr", _Stream(tty=True))
    monkeypatch.setenv(progress.PROGRESS_ENV, "sometimes")
    with caplog.at_level(logging.WARNING, logger="persona_metrics.progress"):
        assert progress_enabled()
    assert "PERSONA_METRICS_PROGRESS" in caplog.text
    with pytest.raises(TypeError, match="bool"):
        set_progress("yes")  # type: ignore[arg-type]


def test_a_bar_draws_only_when_progress_is_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress, "PROGRESS_DELAY_S", 0.0)
    for enabled, expected in ((True, True), (False, False)):
        stream = _Stream(tty=False)
        monkeypatch.setattr(sys, "stderr", stream)
        with progress.progress(enabled):
            assert list(progress_bar(range(3), desc="demo: counting")) == [0, 1, 2]
        assert ("demo: counting" in stream.getvalue()) is expected
    stream = _Stream(tty=False)
    monkeypatch.setattr(sys, "stderr", stream)
    list(progress_bar(range(3), desc="demo: forced", enabled=True))  # an explicit progress= argument wins
    assert "demo: forced" in stream.getvalue()


def test_the_embedding_loop_of_a_neural_distance_reports_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    from persona_metrics.distances import BertScore

    monkeypatch.setattr(progress, "PROGRESS_DELAY_S", 0.0)
    stream = _Stream(tty=False)
    monkeypatch.setattr(sys, "stderr", stream)
    with progress.progress(True):
        BertScore(batch_size=1).pairwise([(REFS[0], REFS[1])])
    assert "bertscore: embedding" in stream.getvalue()
    assert "bertscore: scoring pairs" in stream.getvalue()


def test_the_pens_leaderboard_loops_follow_the_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    """``persona-metrics pens`` draws its bars through the one switch: none when progress is off."""
    from persona_metrics.datasets.pens import load_models, load_pens

    ds = load_pens(ROOT / "data" / "pens_sample")
    monkeypatch.setattr(progress, "PROGRESS_DELAY_S", 0.0)
    for enabled in (False, True):
        stream = _Stream(tty=True)
        monkeypatch.setattr(sys, "stderr", stream)
        with progress.progress(enabled):
            assert list(load_models(ds, ["lead"], [])) == ["lead"]
        assert ("pens: baselines" in stream.getvalue()) if enabled else (stream.getvalue() == ""), stream.getvalue()


def test_chunked_loops_give_the_same_values(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pair loop and the sentence-transformers loop run in chunks under a bar; values do not depend on it."""
    import numpy as np

    from persona_metrics import text_services
    from persona_metrics.distances import base
    from persona_metrics.distances.lexical import RougeL

    texts = [DOC, *REFS, LONE, "Shares rose.", "A much longer sentence about Harbor Foods and its plans in Westfield."]
    pairs = [(a, b) for a in texts for b in texts if a != b]
    whole = RougeL().pairwise(pairs)
    encoder = text_services.SentenceTransformerEncoder()
    once = encoder.encode(texts)
    monkeypatch.setattr(base, "PAIR_CHUNK", 4)
    monkeypatch.setattr(text_services, "ENCODE_CHUNK", 2)
    np.testing.assert_array_equal(RougeL().pairwise(pairs), whole)
    np.testing.assert_allclose(encoder.encode(texts), once, atol=1e-5)


# --- other libraries' bars ------------------------------------------------------------------------------
def test_a_model_load_through_the_library_prints_no_foreign_bar(capfd: pytest.CaptureFixture[str]) -> None:
    from transformers import AutoModel
    from transformers.utils import logging as tf_logging

    from persona_metrics.distances import BertScore
    from persona_metrics.resources import minilm_path

    tf_logging.enable_progress_bar()  # the user's global choice: bars on
    AutoModel.from_pretrained(minilm_path())  # control: transformers draws its bar on stderr
    assert "Loading weights" in capfd.readouterr().err
    with progress.progress(False):
        BertScore().pairwise([(REFS[0], REFS[1])])  # a fresh instance: loads the model
    assert "Loading weights" not in capfd.readouterr().err
    assert tf_logging.is_progress_bar_enabled()  # restored

    hub_tqdm = importlib.import_module("huggingface_hub.utils.tqdm")
    tf_logging.disable_progress_bar()  # the user's choice: bars off, and one hub group switched back on
    hub_tqdm.enable_progress_bars("user.group")
    before = dict(hub_tqdm.progress_bar_states)
    try:
        BertScore().pairwise([(REFS[0], REFS[1])])
        assert not tf_logging.is_progress_bar_enabled()
        assert hub_tqdm.progress_bar_states == before
    finally:
        tf_logging.enable_progress_bar()


def test_a_dataset_load_through_the_library_prints_no_foreign_bar(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    import datasets
    from datasets.utils import logging as ds_logging

    from persona_metrics.datasets.cnndm import load_cnndm

    sample = ROOT / "data" / "cnndm_sample" / "test.jsonl"
    control, mine = tmp_path / "control.jsonl", tmp_path / "mine.jsonl"  # fresh files: nothing cached
    shutil.copy(sample, control)
    shutil.copy(sample, mine)
    ds_logging.enable_progress_bar()
    datasets.load_dataset("json", data_files=[str(control)], split="train")
    assert "Generating train split" in capfd.readouterr().err
    assert len(load_cnndm([mine])) > 0
    assert "Generating train split" not in capfd.readouterr().err
    assert ds_logging.is_progress_bar_enabled()


def test_quiet_blocks_nest_and_restore_once() -> None:
    from huggingface_hub.utils import are_progress_bars_disabled
    from transformers.utils import logging as tf_logging

    tf_logging.enable_progress_bar()
    with quiet_foreign_progress():
        with quiet_foreign_progress():
            assert not tf_logging.is_progress_bar_enabled()
            assert are_progress_bars_disabled()
        assert not tf_logging.is_progress_bar_enabled()  # the outer block still holds
        assert are_progress_bars_disabled()
    assert tf_logging.is_progress_bar_enabled()
    assert not are_progress_bars_disabled()


# --- warnings point at the caller's line ------------------------------------------------------------------
def test_a_library_warning_points_at_the_callers_line() -> None:
    from persona_metrics.personalization import PersonalizationScorer

    line = sys._getframe().f_lineno + 2
    with pytest.warns(PersonaMetricsWarning, match="single reference") as record:
        PersonalizationScorer([*REFS, LONE], [DOC, DOC, LONE], distance="rougeL")
    assert record[0].filename == __file__
    assert record[0].lineno == line


def test_a_warning_through_an_evaluate_module_points_at_the_callers_line() -> None:
    perseval = persona_metrics.load("perseval")
    with pytest.warns(PersonaMetricsWarning, match="single reference") as record:
        perseval.compute(predictions=[*REFS, LONE], references=[*REFS, LONE], documents=[DOC, DOC, LONE])
    assert record[0].filename == __file__


def test_a_judge_cache_warning_points_at_the_callers_line(tmp_path: Path) -> None:
    from persona_metrics.summary_eval.judge_cache import JudgeCache

    (tmp_path / "abc.json").write_text("{not json")
    with pytest.warns(PersonaMetricsWarning, match="unreadable judge cache entry") as record:
        assert JudgeCache(tmp_path).get("abc") is None
    assert record[0].filename == __file__


def test_warn_follows_the_filters() -> None:
    from persona_metrics.warning import warn

    with warnings.catch_warnings():
        warnings.simplefilter("error", PersonaMetricsWarning)
        with pytest.raises(PersonaMetricsWarning, match="boom"):
            warn("boom")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("ignore", PersonaMetricsWarning)
        warn("quiet")
    assert caught == []


@pytest.mark.parametrize("how", ["-c", "stdin"])
def test_a_warning_from_python_dash_c_or_the_repl_is_shown(how: str) -> None:
    """``python -c`` and the interactive prompt run ``__main__`` under the built-in importer; passing its globals to
    ``warnings.warn_explicit`` made CPython ask that importer for the source and raise ``ImportError: '__main__' is
    not a built-in module`` instead of warning (found when a metric loaded by ``python -c`` warned)."""
    code = "from persona_metrics.warning import warn\nwarn('from the prompt')\nprint('went on')\n"
    command = [sys.executable, "-c", code] if how == "-c" else [sys.executable, "-i"]
    proc = subprocess.run(command, input=None if how == "-c" else code, capture_output=True, text=True, timeout=120)
    assert "ImportError" not in proc.stderr
    assert "PersonaMetricsWarning: from the prompt" in proc.stderr
    assert "went on" in proc.stdout


# --- the skipped file -----------------------------------------------------------------------------------
def test_a_skipped_file_is_reported_once(tmp_path: Path) -> None:
    """The command prints the skip; the library only logs it at INFO (once the WARNING log printed it twice)."""
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(ROOT / "data" / "financial_sample" / "article_01.json", data)
    (data / "zz_broken.json").write_text("{not json")
    exe = Path(sys.executable).parent / "persona-metrics"
    done = subprocess.run(
        [str(exe), "pipeline", str(data), "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("zz_broken.json") == 1, done.stderr
    assert "Loading weights" not in done.stderr
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["skipped"] == [
        line.removeprefix("skipped ") for line in done.stderr.splitlines() if "zz_broken.json" in line
    ]


def test_the_skip_is_logged_at_info(caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    from persona_metrics.datasets.financial import read_article_dir

    shutil.copy(ROOT / "data" / "financial_sample" / "article_01.json", tmp_path)
    (tmp_path / "zz_broken.json").write_text("{not json")
    with caplog.at_level(logging.INFO, logger="persona_metrics.datasets.financial"):
        articles, problems = read_article_dir(tmp_path)
    assert len(articles) == 1
    assert len(problems) == 1
    assert [r.levelno for r in caplog.records if "zz_broken.json" in r.getMessage()] == [logging.INFO]


# --- first-use resource builds ----------------------------------------------------------------------------
def test_a_first_use_build_logs_what_it_builds_and_where(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from persona_metrics import resources

    monkeypatch.setenv(resources.CACHE_ENV, str(tmp_path))
    with caplog.at_level(logging.INFO, logger="persona_metrics.resources"):
        target = resources.ensure_wordnet()
        resources.ensure_wordnet()  # built: silent
    building = [r.getMessage() for r in caplog.records if r.getMessage().startswith("building")]
    assert building == [f"building WordNet data in {target} (first use, ~10 s)"]
