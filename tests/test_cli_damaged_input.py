"""Every subcommand, given damaged input, ends in one line and exit status 2: never a Python traceback (issue 35).

Each command is run in this process (``persona_metrics.cli.main``), so an exception escaping it fails the test
with its traceback; the test then checks the exit status, that standard output is empty and that standard error
ends with the command's one ``error:`` line. The damages are what a person, a cut download or a fuzzer hands over:
a missing path, a folder for a file and a file for a folder, bytes that are not UTF-8, broken JSON, a JSON value
that is not an object, an empty file, a lone surrogate, numbers past a float and values of the wrong type.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from persona_metrics.cli import main
from persona_metrics.commands import COMMANDS

#: name → bytes of a damaged file.
FILES: dict[str, bytes] = {
    "not-utf8": b'{"prediction": "caf\xe9"}\n',
    "broken-json": b'{"prediction": "x",\n',
    "not-an-object": b"[1, 2, 3]\n",
    "empty": b"",
    "blank-lines": b"\n\n  \n",
    "lone-surrogate": b'{"prediction": "\\ud800 x", "persona": "journalist", "reference": "\\udfff", "source": "s"}\n',
    "huge-numbers": b'{"prediction": 1e400, "persona": 100000000000000000000000000000000000000000000000000000}\n',
    "wrong-types": b'{"prediction": {"a": null}, "persona": [1], "reference": null, "source": true, "predictions": 5}'
    b"\n",
    "nul-and-bom": b'\xef\xbb\xbf{"prediction": "a\\u0000b", "persona": "journalist"}\n',
}
METRICS = ("perseval", "degress", "persona_style", "persona_quality", "vert", "summary_eval")


def run(capsys, *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def assert_one_line_refusal(capsys, command: str, *args: object) -> str:
    code, out, err = run(capsys, command, *args)
    assert code == 2, f"exit {code}: {err}"
    assert out == ""
    assert err.splitlines(), "no message"
    last = err.splitlines()[-1]
    assert last.startswith(f"persona-metrics {command}: error: "), err
    assert "Traceback" not in err
    return last


@pytest.fixture
def damaged(tmp_path) -> dict[str, Path]:
    paths = {"missing": tmp_path / "no-such-file.jsonl", "folder": tmp_path}
    for name, data in FILES.items():
        path = tmp_path / f"{name}.jsonl"
        path.write_bytes(data)
        paths[name] = path
    return paths


def test_every_subcommand_is_covered() -> None:
    assert set(COMMANDS) == {"score", "pens", "cnndm", "merge", "pipeline", "judge-check", "validity", "register",
                             "list", "docs"}  # fmt: skip


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("damage", ["missing", "folder", *FILES])
def test_score(capsys, damaged, metric, damage) -> None:
    assert_one_line_refusal(capsys, "score", metric, damaged[damage])


@pytest.mark.parametrize("damage", ["missing", "folder", *FILES])
def test_merge(capsys, damaged, damage) -> None:
    assert_one_line_refusal(capsys, "merge", damaged[damage])


@pytest.mark.parametrize("damage", ["missing", "folder", *FILES])
def test_cnndm_data_files_and_predictions(capsys, damaged, damage) -> None:
    if damage != "folder":
        assert_one_line_refusal(capsys, "cnndm", "-n", "2", "--data-files", damaged[damage])
    assert_one_line_refusal(capsys, "cnndm", "-n", "2", "--predictions", damaged[damage])


@pytest.mark.parametrize("damage", ["missing", "folder", *FILES])
def test_judge_check_cases(capsys, damaged, damage) -> None:
    assert_one_line_refusal(capsys, "judge-check", "--cases", damaged[damage], "-m", "m", "--base-url",
                            "http://127.0.0.1:9/v1")  # fmt: skip


def _folder_of(tmp_path: Path, files: dict[str, bytes]) -> Path:
    folder = tmp_path / "dir"
    folder.mkdir()
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return folder


PENS_FILES = {
    "empty folder": {},
    "garbage test file": {"personalized_test.tsv": b"\xff\xfe\x00garbage", "news.tsv": b"N1\tx\n"},
    "cut test file": {"personalized_test.tsv": b"userid\tclicknewsID\n1", "news.tsv": b""},
}


@pytest.mark.parametrize("files", PENS_FILES.values(), ids=list(PENS_FILES))
def test_pens(capsys, tmp_path, files) -> None:
    assert_one_line_refusal(capsys, "pens", _folder_of(tmp_path, files), "--no-plot")


def test_pens_on_a_file_and_a_missing_folder(capsys, damaged) -> None:
    assert_one_line_refusal(capsys, "pens", damaged["broken-json"], "--no-plot")
    assert_one_line_refusal(capsys, "pens", damaged["missing"], "--no-plot")


@pytest.mark.parametrize("damage", list(FILES))
def test_pipeline(capsys, tmp_path, damage) -> None:
    folder = _folder_of(tmp_path, {"a.json": FILES[damage], "b.json": b'{"article_id": 5}'})
    assert_one_line_refusal(capsys, "pipeline", folder, "--out", tmp_path / "out")


def test_pipeline_on_a_file_and_a_missing_folder(capsys, damaged, tmp_path) -> None:
    assert_one_line_refusal(capsys, "pipeline", damaged["broken-json"], "--out", tmp_path / "out")
    assert_one_line_refusal(capsys, "pipeline", damaged["missing"], "--out", tmp_path / "out")


@pytest.mark.parametrize("damage", list(FILES))
def test_validity_cases(capsys, tmp_path, damage) -> None:
    folder = _folder_of(tmp_path, {"style_summaries.jsonl": FILES[damage]})
    assert_one_line_refusal(capsys, "validity", "persona_style", "--cases", folder)


def test_validity_on_a_missing_folder_and_an_unknown_metric(capsys, damaged) -> None:
    assert_one_line_refusal(capsys, "validity", "persona_style", "--cases", damaged["missing"])
    assert_one_line_refusal(capsys, "validity", "no_such_metric")


def test_register_docs_and_list_refuse_unknown_names(capsys, tmp_path) -> None:
    assert_one_line_refusal(capsys, "register", "no_such_metric")
    assert_one_line_refusal(capsys, "docs", "no_such_topic")
    code, out, err = run(capsys, "list")
    assert (code, bool(out), err) == (0, True, "")


def test_the_damages_are_what_they_say() -> None:
    """The fixtures themselves: not UTF-8, broken JSON and a lone surrogate really are what the names say."""
    with pytest.raises(UnicodeDecodeError):
        FILES["not-utf8"].decode("utf-8")
    with pytest.raises(json.JSONDecodeError):
        json.loads(FILES["broken-json"])
    assert "\ud800" in json.loads(FILES["lone-surrogate"])["prediction"]
    assert json.loads(FILES["huge-numbers"])["prediction"] == float("inf")


HUGE = str(10**400)
SAMPLE = Path(__file__).resolve().parents[1] / "data" / "personalization_sample" / "sample.jsonl"


@pytest.mark.parametrize(
    "args",
    [
        ["score", "degress", SAMPLE, "--significance-resamples", HUGE],
        ["score", "degress", SAMPLE, "--shard", f"1/{HUGE}", "--states", "s.jsonl"],
        ["score", "degress", SAMPLE, "-o", f"beta={HUGE}"],
        ["score", "persona_style", SAMPLE, "-o", f"bootstrap={HUGE}"],
        ["cnndm", "-n", "2", "--seed", HUGE],
        ["cnndm", "-n", "2", "--bootstrap", HUGE],
        ["pens", "data/pens_sample", "--bootstrap", HUGE, "--no-plot"],
        ["pens", "data/pens_sample", "--significance-resamples", HUGE, "--no-plot"],
        ["merge", "SHARD"],
    ],
    ids=lambda args: " ".join(str(a) for a in args if a not in (HUGE, SAMPLE))[:60],
)
def test_a_whole_number_past_any_use_is_refused(capsys, tmp_path, monkeypatch, args) -> None:
    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    args = [str(tmp_path / a) if a == "s.jsonl" else a for a in args]
    if args == ["merge", "SHARD"]:  # a resealed header claiming 10**400 shards or items
        import states_lines

        code, _, err = run(capsys, "score", "degress", SAMPLE, "--shard", "1/2", "--states", tmp_path / "s.jsonl")
        header, *rest = states_lines.rows(tmp_path / "s.jsonl")
        states_lines.write(tmp_path / "n.jsonl", [{**header, "num_shards": 10**400}, *rest])
        states_lines.write(tmp_path / "i.jsonl", [{**header, "num_items": 10**18}, *rest])
        for name in ("n.jsonl", "i.jsonl"):
            code, out, err = run(capsys, "merge", tmp_path / name)
            assert (code, out) == (2, ""), err
            assert len(err.splitlines()) == 1, err
        return
    code, out, err = run(capsys, *args)
    assert (code, out) == (2, ""), err
    assert len(err.splitlines()) == 1, err
