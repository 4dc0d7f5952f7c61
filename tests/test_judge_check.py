"""The judge calibration check: ``check_judge``, its cached verdict, the scorer's warning, the ``judge-check`` command.

Every judge here is the real 127.0.0.1 server of ``tests/judge_server.py``. The calibration cases below are this
test's own development cases (written for this file, not the shipped set, which is the check's data). Golden values
are worked by hand from the scripted answers: with the ``accuracy`` rubric a faithful 3 and a false-fact 1 are
accuracies 1 and 1/3, a gap of 2/3.
"""

from __future__ import annotations

import configparser
import json
import re
import warnings
from pathlib import Path
from typing import Any

import pytest
from judge_server import serve

from persona_metrics import PersonaMetricsWarning
from persona_metrics.cli import main
from persona_metrics.summary_eval import Judge, calibration, score_summary_eval
from persona_metrics.summary_eval.calibration import (
    KINDS,
    CalibrationCase,
    cached_verdict,
    check_judge,
    load_cases,
    verdict_path,
)

ROOT = Path(__file__).resolve().parents[1]

#: This test's own cases: (id, source, faithful, false fact, kind, off-topic); invented companies and events.
DEV_CASES = tuple(
    CalibrationCase(*fields)
    for fields in (
        (
            "dev-number-1",
            "Harlow Foods will close 12 of its 40 bakeries by March, the company said on Monday.",
            "Harlow Foods will close 12 of its 40 bakeries by March.",
            "Harlow Foods will close 21 of its 40 bakeries by March.",
            "number",
            "A new footbridge opened over the river in Kesswick.",
        ),
        (
            "dev-number-2",
            "The Tallis Museum drew 310,000 visitors last year, up from 250,000 the year before.",
            "The Tallis Museum drew 310,000 visitors last year, up from 250,000.",
            "The Tallis Museum drew 130,000 visitors last year, up from 250,000.",
            "number",
            "Rain is expected across the north coast on Friday.",
        ),
        (
            "dev-name-1",
            "Mayor Ines Corda opened the new tram line in Belmar on Saturday, two years late.",
            "Mayor Ines Corda opened Belmar's new tram line, two years late.",
            "Mayor Paul Renner opened Belmar's new tram line, two years late.",
            "name",
            "The chess club elected a new treasurer.",
        ),
        (
            "dev-name-2",
            "Orrin Labs sold its imaging unit to Vestry Capital for an undisclosed sum.",
            "Orrin Labs sold its imaging unit to Vestry Capital.",
            "Orrin Labs sold its imaging unit to Halden Partners.",
            "name",
            "A late frost damaged apple blossom in the valley.",
        ),
        (
            "dev-negation-1",
            "The regulator approved the merger of Sable Air and Northwind after a year-long review.",
            "The regulator approved the Sable Air and Northwind merger after a year's review.",
            "The regulator did not approve the Sable Air and Northwind merger after a year's review.",
            "negation",
            "The town library extended its opening hours.",
        ),
        (
            "dev-negation-2",
            "Pellam Council will keep the old market hall open while repairs go ahead.",
            "Pellam Council will keep the old market hall open during repairs.",
            "Pellam Council will not keep the old market hall open during repairs.",
            "negation",
            "A local runner won the hill race for the third time.",
        ),
    )
)


def _which(body: dict[str, Any]) -> str:
    """Which summary of DEV_CASES a request asks about: faithful, false_fact or off_topic."""
    summary = re.search(r"<summary-[0-9a-f]{16}>\n(.*?)\n</summary-", body["messages"][1]["content"], re.S).group(1)  # type: ignore[union-attr]
    for case in DEV_CASES:
        for kind in ("faithful", "false_fact", "off_topic"):
            if getattr(case, kind) == summary:
                return kind
    raise AssertionError(f"not a development case: {summary!r}")


def _answer(scores: dict[str, int | str]) -> Any:
    """A server script answering each kind of summary with a fixed score (a string: that text, not JSON)."""

    def script(body: dict[str, Any]) -> str:
        score = scores[_which(body)]
        return score if isinstance(score, str) else json.dumps({"score": score, "rationale": "scripted"})

    return script


CORRECT = {"faithful": 3, "false_fact": 1, "off_topic": 0}


def judge(url: str, **options: Any) -> Judge:
    return Judge("m", base_url=url, api_key="none", max_retries=0, **options)


@pytest.fixture
def shipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The development cases stand in for the shipped set; the cache and the warned-about set are fresh."""
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(_row(c)) + "\n" for c in DEV_CASES), encoding="utf-8")
    monkeypatch.setattr(calibration, "SHIPPED_CASES", path)
    monkeypatch.setattr(calibration, "_WARNED", set())
    monkeypatch.setenv("PERSONA_METRICS_CACHE", str(tmp_path / "cache"))
    return path


def _row(case: CalibrationCase) -> dict[str, Any]:
    return {
        "id": case.id,
        "source": case.source,
        "faithful": case.faithful,
        "false_fact": {"kind": case.kind, "text": case.false_fact},
        "off_topic": case.off_topic,
    }


# --------------------------------------------------------------------------- the measures and the verdict


def test_a_judge_that_answers_correctly_passes() -> None:
    with serve(script=_answer(CORRECT)) as server:
        result = check_judge(judge(server.url), DEV_CASES)
    assert result.pairwise_accuracy == 1.0
    assert result.per_kind == dict.fromkeys(KINDS, 1.0)
    assert result.mean_gap == pytest.approx(2 / 3, abs=1e-15)  # 3/3 - 1/3 by hand
    assert result.off_topic_below == 1.0
    assert (result.num_invalid, result.num_answers) == (0, 18)
    assert result.passed
    assert result.as_dict()["verdict"] == "pass"
    assert result.reason.startswith("pass: pairwise accuracy 1 >= 0.8")


def test_a_judge_that_answers_at_random_fails() -> None:
    """judge_server's own mode: a score from a digest of the request, unrelated to the texts' truth."""
    with serve() as server:
        result = check_judge(judge(server.url), DEV_CASES)
    assert result.num_invalid == 0
    assert result.pairwise_accuracy < 0.8
    assert not result.passed
    assert result.reason.startswith("fail: pairwise accuracy")


def test_ties_count_half_and_a_pair_with_an_invalid_answer_counts_zero() -> None:
    with serve(script=_answer({"faithful": 2, "false_fact": 2, "off_topic": 2})) as server:
        tied = check_judge(judge(server.url), DEV_CASES)
    assert (tied.pairwise_accuracy, tied.off_topic_below, tied.mean_gap) == (0.5, 0.5, 0.0)
    prose_script = _answer({**CORRECT, "false_fact": "It has one error, so 1."})
    with serve(script=prose_script) as server, pytest.warns(PersonaMetricsWarning, match="6 of 18 judge answers"):
        prose = check_judge(judge(server.url), DEV_CASES)
    assert prose.pairwise_accuracy == 0.0  # no false-fact score: no pair separated
    assert prose.mean_gap is None  # no pair with two valid answers
    assert prose.off_topic_below == 1.0
    assert prose.num_invalid == 6
    assert prose.reason == "fail: pairwise accuracy 0 < 0.8; invalid answers 33% > 10%"


def test_too_many_invalid_answers_fail_a_judge_that_separates_the_pairs() -> None:
    script = _answer({**CORRECT, "off_topic": "Off topic."})
    with serve(script=script) as server, pytest.warns(PersonaMetricsWarning, match="no valid score"):
        result = check_judge(judge(server.url), DEV_CASES)
    assert result.pairwise_accuracy == 1.0
    assert result.off_topic_below == 0.0
    assert not result.passed
    assert result.reason == "fail: invalid answers 33% > 10%"


# --------------------------------------------------------------------------- the cached verdict and the warning


def test_the_verdict_is_cached_and_silences_the_scorer(shipped: Path, tmp_path: Path) -> None:
    """No verdict: one warning per judge and process; a passing verdict: none; a failing one: a warning saying so."""
    source, summary = DEV_CASES[0].source, DEV_CASES[0].faithful
    with serve(script=_answer(CORRECT)) as server:
        unchecked = judge(server.url)
        with pytest.warns(PersonaMetricsWarning, match="has never been checked") as record:
            score_summary_eval([summary], [source], judge=unchecked)
        [message] = [str(w.message) for w in record if "judge check" in str(w.message) or "checked" in str(w.message)]
        assert f"'persona-metrics judge-check --base-url {server.url} -m m --rubric accuracy'" in message
        with warnings.catch_warnings():
            warnings.simplefilter("error", PersonaMetricsWarning)
            score_summary_eval([summary], [source], judge=unchecked)  # once per judge and process
            result = check_judge(unchecked)  # the shipped set: the verdict is cached
            assert result.passed
            assert cached_verdict(unchecked)["passed"] is True
            score_summary_eval([summary], [source], judge=judge(server.url))  # a new Judge, the same verdict key
        path = verdict_path(unchecked)
        assert path.parent == tmp_path / "cache" / "judge" / "calibration"
        other_rubric = judge(server.url, rubric="fluency")
        assert verdict_path(other_rubric) != path  # per rubric (and prompt version, model, server)
    with serve(script=_answer({"faithful": 1, "false_fact": 1, "off_topic": 1})) as server:
        failing = judge(server.url, cache_dir=tmp_path / "own")
        assert not check_judge(failing).passed
        assert verdict_path(failing).parent == tmp_path / "own" / "calibration"  # the judge's own cache folder
        with pytest.warns(PersonaMetricsWarning, match=r"failed the judge check \(fail: pairwise accuracy 0.5 < 0.8\)"):
            score_summary_eval([summary], [source], judge=failing)


def test_a_verdict_on_other_cases_is_not_cached(shipped: Path) -> None:
    with serve(script=_answer(CORRECT)) as server:
        checked = judge(server.url)
        assert check_judge(checked, DEV_CASES).passed
    assert cached_verdict(checked) is None


def test_a_damaged_verdict_file_is_ignored_with_a_warning(shipped: Path) -> None:
    checked = judge("http://127.0.0.1:9/v1")
    path = verdict_path(checked)
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    with pytest.warns(PersonaMetricsWarning, match="unreadable judge-check verdict"):
        assert cached_verdict(checked) is None
    path.write_text(json.dumps({"key": "another", "passed": True}))
    with pytest.warns(PersonaMetricsWarning, match="malformed judge-check verdict"):
        assert cached_verdict(checked) is None


# --------------------------------------------------------------------------- the command


def test_the_command_prints_the_row_and_exits_by_the_verdict(shipped: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with serve(script=_answer(CORRECT)) as server:
        assert main(["judge-check", "--base-url", server.url, "-m", "m", "--concurrency", "1"]) == 0
        table = capsys.readouterr()
        assert main(["judge-check", "--base-url", server.url, "-m", "m", "--cases", str(shipped), "-f", "json"]) == 0
        [row] = json.loads(capsys.readouterr().out)
    with serve() as server:
        assert main(["judge-check", "--base-url", server.url, "-m", "m", "--cases", str(shipped)]) == 1
        failed = capsys.readouterr().out
    header = table.out.splitlines()[0]
    for column in ("judge", "rubric", "pairwise_accuracy", "number", "name", "negation", "mean_gap", "invalid"):
        assert f" {column} " in header, column
    assert "verdict: pass: pairwise accuracy 1 >= 0.8" in table.out
    assert "verdict cached in " in table.err
    assert row["verdict"] == "pass"
    assert row["mean_gap"] == pytest.approx(2 / 3)
    assert (row["cases"], row["invalid"], row["answers"]) == (6, 0, 18)
    assert "verdict: fail: pairwise accuracy" in failed


@pytest.mark.parametrize(
    ("line", "match"),
    [
        ("not json", r"cases.jsonl:2: not JSON"),
        ('{"id": "x"}', r"cases.jsonl:2: field source must be a non-empty string"),
        ("[1]", r"cases.jsonl:2: not a JSON object"),
        ("SAME_ID", r"cases.jsonl:2: id 'dev-number-1' repeats an earlier line's"),
        ("KIND", r"cases.jsonl:2: field false_fact.kind must be one of \['number', 'name', 'negation'\], got 'date'"),
    ],
)
def test_a_bad_cases_file_names_the_line(
    tmp_path: Path, line: str, match: str, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _row(DEV_CASES[0])
    special = {"SAME_ID": first, "KIND": {**first, "id": "y", "false_fact": {"kind": "date", "text": "t"}}}
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps(first) + "\n" + (json.dumps(special[line]) if line in special else line) + "\n")
    with pytest.raises(ValueError, match=match):
        load_cases(path)
    assert main(["judge-check", "--base-url", "http://127.0.0.1:9/v1", "-m", "m", "--cases", str(path)]) == 2
    assert re.search(match, capsys.readouterr().err)


def test_bad_arguments_are_named() -> None:
    with pytest.raises(TypeError, match=r"judge must be a persona_metrics\.summary_eval\.Judge, got str"):
        check_judge("gpt-4o")  # type: ignore[arg-type]
    checked = judge("http://127.0.0.1:9/v1")
    with pytest.raises(TypeError, match=r"cases\[1\] must be a CalibrationCase, got dict"):
        check_judge(checked, [DEV_CASES[0], {"id": "x"}])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="cases must hold at least one CalibrationCase"):
        check_judge(checked, [])


# --------------------------------------------------------------------------- the shipped set


def test_the_shipped_set_is_package_data() -> None:
    """setup.cfg ships validity/cases/*.jsonl with the package; the shipped file (once written) loads, every kind."""
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    patterns = config["options.package_data"]["persona_metrics"].split()
    assert "validity/cases/*.jsonl" in patterns
    assert (
        calibration.SHIPPED_CASES == ROOT / "src" / "persona_metrics" / "validity" / "cases" / "judge_calibration.jsonl"
    )
    if not calibration.SHIPPED_CASES.is_file():
        pytest.skip("the shipped calibration set is not written yet")
    cases = load_cases()
    assert {case.kind for case in cases} == set(KINDS)
