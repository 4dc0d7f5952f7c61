"""Flags a run would ignore are refused, outputs are checked before scoring, and every error is one line.

Each case came from a review of the command line: before, ``score vert --timeout 0``, ``score persona_style -q -f
json`` or ``score ... --shard 1/2 -q`` scored and ignored the flag; ``--micro /sys/m.jsonl`` failed after all the
scoring, naming a hidden temporary file; ``--micro -`` wrote a file named ``-``; outputs were written ``0o600``
whatever the umask; a library's two-line message printed two lines. Expected values are the messages and modes the
commands are documented to give (``persona-metrics --help``: one ``error:`` line, exit status 2).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from persona_metrics.cli import main
from persona_metrics.commands import score
from persona_metrics.commands.output import InputError

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "data" / "score_samples"
STYLE = SAMPLES / "persona_style.jsonl"


def run_cli(capsys, *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def no_scoring(monkeypatch: pytest.MonkeyPatch) -> None:
    """A refusal must come before any scoring: scoring fails the test."""

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("scored before refusing")

    monkeypatch.setattr(score, "score_file", refuse)
    monkeypatch.setattr(score, "_write_shard", refuse)


@pytest.mark.parametrize(
    ("metric", "flags", "named"),
    [
        ("perseval", ["-m", "gpt-4o", "--rubric", "fluency"], "-m/--model, --rubric"),
        ("vert", ["--timeout", "0"], "--timeout"),
        ("persona_style", ["--concurrency", "0", "--top-logprobs", "21"], "--concurrency, --top-logprobs"),
        ("persona_quality", ["--no-cache"], "--no-cache"),
    ],
)
def test_judge_flags_for_a_metric_without_a_judge(capsys, no_scoring, metric, flags, named) -> None:
    code, out, err = run_cli(capsys, "score", metric, SAMPLES / f"{metric}.jsonl", *flags)
    assert code == 2
    assert out == ""
    assert err == (
        f"persona-metrics score: error: {named}: judge options, and {metric} has no judge (summary_eval has)\n"
    )


def test_judge_flags_without_a_judge_model(capsys) -> None:
    code, out, err = run_cli(capsys, "score", "summary_eval", SAMPLES / "summary_eval.jsonl", "--timeout", "5")
    assert code == 2
    assert out == ""
    assert (
        err == "persona-metrics score: error: --timeout: judge options, but no judge: give -m/--model, or drop them\n"
    )


def test_significance_resamples_for_a_metric_without_a_leaderboard(capsys, no_scoring) -> None:
    code, _, err = run_cli(capsys, "score", "persona_style", STYLE, "--significance-resamples", "5")
    assert code == 2
    assert "error: --significance-resamples: the test between adjacent ranks" in err
    assert "persona_style has no leaderboard" in err


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_quiet_with_a_format(capsys, no_scoring, fmt: str) -> None:
    code, out, err = run_cli(capsys, "score", "persona_style", STYLE, "-q", "-f", fmt)
    assert (code, out) == (2, "")
    assert err == (
        f"persona-metrics score: error: -q prints the score only and --format {fmt} the whole report; "
        "drop one of them\n"
    )


def test_merge_refuses_quiet_with_a_format_before_reading(capsys, tmp_path: Path) -> None:
    code, _, err = run_cli(capsys, "merge", tmp_path / "missing.jsonl", "-q", "-f", "json")
    assert code == 2
    assert "-q prints the score only and --format json" in err


@pytest.mark.parametrize("flags", [["-q"], ["-f", "json"]])
def test_a_shard_prints_nothing_so_it_takes_no_quiet_or_format(capsys, no_scoring, tmp_path, flags) -> None:
    code, _, err = run_cli(
        capsys, "score", "persona_style", STYLE, "--shard", "1/2", "--states", tmp_path / "s.jsonl", *flags
    )
    assert code == 2
    assert "error: --shard writes states and prints no scores: give -q / --format to persona-metrics merge" in err


def test_outputs_that_cannot_be_written_are_refused_before_scoring(capsys, no_scoring, tmp_path: Path) -> None:
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    cases = {
        "-": "--micro -: standard output carries the report; give a file path",
        str(tmp_path): f"--micro {tmp_path} is a folder; give a file path",
        str(a_file / "m.jsonl"): f"--micro {a_file / 'm.jsonl'}: cannot write in {a_file} (Not a directory)",
    }
    for micro, message in cases.items():
        code, out, err = run_cli(capsys, "score", "persona_style", STYLE, "--micro", micro)
        assert (code, out) == (2, ""), micro
        assert err.startswith(f"persona-metrics score: error: {message}"), err
    assert not Path("-").exists()


def test_states_that_cannot_be_written_are_refused(capsys, tmp_path: Path) -> None:
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    code, _, err = run_cli(capsys, "score", "persona_style", STYLE, "--shard", "1/2", "--states", a_file / "s.jsonl")
    assert code == 2
    assert f"--states {a_file / 's.jsonl'}: cannot write in {a_file}" in err


def test_outputs_take_the_umask_like_any_new_file(capsys, tmp_path: Path) -> None:
    """A shard's states written with umask 022 are 0o644, so another user's merge can read them (not 0o600)."""
    old = os.umask(0o022)
    try:
        micro, states = tmp_path / "new" / "micro.jsonl", tmp_path / "states.jsonl"
        assert run_cli(capsys, "score", "persona_style", STYLE, "--micro", micro)[0] == 0
        assert run_cli(capsys, "score", "persona_style", STYLE, "--shard", "1/2", "--states", states)[0] == 0
        os.umask(0o077)
        private = tmp_path / "private.jsonl"
        assert run_cli(capsys, "score", "persona_style", STYLE, "--micro", private)[0] == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(micro.stat().st_mode) == 0o644
    assert stat.S_IMODE(states.stat().st_mode) == 0o644
    assert stat.S_IMODE(private.stat().st_mode) == 0o600


def test_a_message_of_several_lines_is_printed_on_one(capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(_args: object) -> int:
        raise InputError("We couldn't connect to 'https://huggingface.co'.\nCheck your internet connection.\n")

    monkeypatch.setattr(score, "run", fail)  # the parser takes each command's run when it is built
    code, _, err = run_cli(capsys, "score", "persona_style", STYLE)
    assert code == 2
    assert err == (
        "persona-metrics score: error: We couldn't connect to 'https://huggingface.co'. "
        "Check your internet connection.\n"
    )


def test_a_model_name_with_a_pipe_stays_in_its_cell(capsys, tmp_path: Path) -> None:
    """A '|' in a model's name used to add a column to the markdown leaderboard; it is escaped as '\\|'."""
    source = tmp_path / "p.jsonl"
    source.write_text((SAMPLES / "perseval.jsonl").read_text().replace('"generic"', '"gen|eric"'))
    code, out, _ = run_cli(capsys, "score", "perseval", source)
    assert code == 0
    rows = [line for line in out.splitlines() if line.startswith("| ")]
    assert any("gen\\|eric" in row for row in rows)
    assert {row.replace("\\|", "").count("|") for row in rows} == {9}  # 8 columns in every row


def test_a_key_given_twice_is_refused_naming_the_line(capsys, tmp_path: Path) -> None:
    """json keeps the last of two equal keys without a word: {"prediction": "a", "prediction": "b"} scored "b"."""
    lines = (STYLE.read_text().splitlines()[0], '{"prediction": "a", "persona": "journalist", "prediction": "b"}')
    source = tmp_path / "twice.jsonl"
    source.write_text("\n".join(lines) + "\n")
    code, out, err = run_cli(capsys, "score", "persona_style", source)
    assert (code, out) == (2, "")
    assert err == f"persona-metrics score: error: {source}:2: key 'prediction' given twice in one object\n"
    nested = tmp_path / "nested.jsonl"
    row = (SAMPLES / "perseval.jsonl").read_text().splitlines()[0]
    nested.write_text(row.replace('"predictions": {', '"predictions": {"m": "x", "m": "y", ', 1) + "\n")
    code, _, err = run_cli(capsys, "score", "perseval", nested)
    assert code == 2
    assert err == f"persona-metrics score: error: {nested}:1: key 'm' given twice in one object\n"


def test_quiet_without_the_judge_its_headline_needs(capsys, no_scoring) -> None:
    """summary_eval -q printed 'null' offline: its headline, overall, needs the judge's accuracy."""
    code, out, err = run_cli(capsys, "score", "summary_eval", SAMPLES / "summary_eval.jsonl", "-q")
    assert (code, out) == (2, "")
    assert err == (
        "persona-metrics score: error: -q prints summary_eval's overall, which needs a judge (-m/--model); without "
        "one, drop -q for the table of the offline scores\n"
    )


def test_a_field_that_is_not_read_is_noted(capsys, tmp_path: Path) -> None:
    """A misspelt optional field ("doc_id" for "document_id") changed the grouping of documents without a word."""
    rows = (SAMPLES / "perseval.jsonl").read_text().splitlines()
    source = tmp_path / "typo.jsonl"
    source.write_text("\n".join(row.replace('"document_id"', '"doc_id"') for row in rows) + "\n")
    code, _, err = run_cli(capsys, "score", "perseval", source, "-f", "json")
    assert code == 0
    assert (
        f"note: {source}: field(s) ['doc_id'] on {len(rows)} line(s) are not read; the fields read are "
        "['document_id', 'document', 'user_id', 'reference', 'predictions', 'prediction']\n"
    ) in err
    extra = tmp_path / "extra.jsonl"
    extra.write_text(STYLE.read_text().replace('"persona"', '"id": 7, "persona"', 1))
    code, _, err = run_cli(capsys, "score", "persona_style", extra, "-f", "json")
    assert code == 0
    assert f"note: {extra}: field(s) ['id'] on 1 line(s) are not read; the fields read are ['prediction', " in err
    assert run_cli(capsys, "score", "persona_style", STYLE, "-f", "json")[2] == ""  # the shipped sample: no note
