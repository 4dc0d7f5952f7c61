"""Every input error of the CLI's readers names ``FILE:LINE`` (``<stdin>:LINE`` for ``-``) and the field.

One table per reader: the bytes of a bad file and the message expected after its ``FILE:LINE``. The ``score`` cases
run the command (exit status 2, nothing on standard output); the other readers are called directly. The states
files' own refusals are in ``tests/test_sharded_items.py`` and ``tests/test_sharded_cli.py``.
"""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from persona_metrics.cli import main
from persona_metrics.persona import score_style

GOOD_STYLE = {"prediction": "Shares rose 4% on Tuesday after the results.", "persona": "journalist"}
GOOD_PERSONAL = {"document_id": "D1", "document": "d", "user_id": "U1", "reference": "r", "predictions": {"m": "x"}}


def lines(*rows: object) -> bytes:
    """JSON lines; a str row is written as it is (a blank or broken line)."""
    return "".join((row if isinstance(row, str) else json.dumps(row)) + "\n" for row in rows).encode("utf-8")


#: (metric, file bytes, the line named, the message after ``FILE:LINE: ``).
SCORE_CASES = [
    ("persona_style", lines(GOOD_STYLE, {**GOOD_STYLE, "persona": 5}), 2, "['persona'] must be strings"),
    ("persona_style", lines(GOOD_STYLE, {"prediction": "x"}), 2, "missing keys ['persona']"),
    (
        "persona_style",
        lines(GOOD_STYLE, "", {**GOOD_STYLE, "persona": "nobody"}),
        3,
        "field 'persona': personas[1] = 'nobody' is not a known persona",
    ),
    ("persona_style", lines(GOOD_STYLE, {**GOOD_STYLE, "prediction": "!!!"}), 2, "field 'prediction': predictions[1]"),
    ("persona_style", lines(GOOD_STYLE, "[1, 2]"), 2, "expected a JSON object, got list"),
    ("persona_style", lines(GOOD_STYLE, "{broken"), 2, "not valid JSON"),
    ("persona_style", lines(GOOD_STYLE) + b'{"prediction": "caf\xe9"}\n', 2, "not UTF-8 text (byte"),
    (
        "vert",
        lines({"prediction": "a", "reference": 5}),
        1,
        "field 'reference' must be a string or a non-empty list of strings",
    ),
    ("vert", lines({"prediction": "a", "reference": []}), 1, "field 'reference' must be a string or a non-empty list"),
    ("vert", lines({"prediction": 3, "reference": "r"}), 1, "['prediction'] must be strings"),
    ("summary_eval", lines({"prediction": "a", "source": " "}), 1, "['source'] must not be empty"),
    ("persona_quality", lines({"prediction": "a", "reference": "r"}), 1, "missing keys ['persona']"),
    (
        "perseval",
        lines(GOOD_PERSONAL, {**GOOD_PERSONAL, "document_id": None}),
        2,
        "field 'document_id' must be a string or a whole number, got None",
    ),
    ("perseval", lines(GOOD_PERSONAL, {**GOOD_PERSONAL, "user_id": ["U2"]}), 2, "field 'user_id' must be a string"),
    (
        "degress",
        lines(GOOD_PERSONAL, {**GOOD_PERSONAL, "predictions": {"m": 5}}),
        2,
        "field 'predictions' must map each model to a string; not ['m']",
    ),
    (
        "perseval",
        lines(GOOD_PERSONAL, {k: v for k, v in GOOD_PERSONAL.items() if k != "document_id"}),
        2,
        "field 'document_id' is missing",
    ),
]


@pytest.mark.parametrize(("metric", "data", "line", "message"), SCORE_CASES)
def test_score_names_file_line_and_field(capsys, tmp_path, metric, data, line, message) -> None:
    path = tmp_path / "input.jsonl"
    path.write_bytes(data)
    code = main(["score", metric, str(path)])
    out = capsys.readouterr()
    assert code == 2
    assert out.out == ""
    assert f"{path}:{line}: {message}" in out.err


@pytest.mark.parametrize("metric", ["persona_style", "persona_quality"])
def test_an_empty_prediction_is_the_librarys_to_judge(capsys, tmp_path, metric) -> None:
    """Issue 35: ``-o empty=zero`` scores an empty prediction 0, as the module does (before, the reader refused it
    with ``['prediction'] must not be empty`` whatever the option); without it the library's error names FILE:LINE."""
    row = (
        {**GOOD_STYLE, "reference": "Shares rose 4% after the results."} if metric == "persona_quality" else GOOD_STYLE
    )
    path = tmp_path / "input.jsonl"
    path.write_bytes(lines(row, {**row, "prediction": ""}))
    assert main(["score", metric, str(path)]) == 2
    assert f"{path}:2: field 'prediction': predictions[1] is empty" in capsys.readouterr().err
    assert main(["score", metric, str(path), "-o", "empty=zero", "--format", "json"]) == 0
    (report,) = json.loads(capsys.readouterr().out)
    assert report["n"] == 2
    if metric == "persona_style":  # the library's mean over both items, the empty one's 0 included
        expected = score_style([row["prediction"], ""], ["journalist"] * 2, empty="zero").mean
        assert report["style_similarity"] == expected
        assert expected == score_style([row["prediction"]], ["journalist"]).mean / 2


@pytest.mark.parametrize(("metric", "data", "line", "message"), SCORE_CASES[:5])
def test_stdin_is_named_stdin(capsys, monkeypatch, metric, data, line, message) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    code = main(["score", metric, "-"])
    out = capsys.readouterr()
    assert code == 2
    assert f"<stdin>:{line}: {message}" in out.err


def _pens_predictions(path: Path) -> object:
    from persona_metrics.datasets.pens import read_jsonl_predictions

    return read_jsonl_predictions(path, None)  # type: ignore[arg-type]  # the lines fail before the data is used


def _cnndm_predictions(path: Path) -> object:
    from persona_metrics.datasets.cnndm import read_predictions

    return read_predictions(path, [])


def _cnndm_data(path: Path) -> object:
    from persona_metrics.datasets.cnndm import load_cnndm

    return load_cnndm([path])


def _pens_hyps(path: Path) -> object:
    from persona_metrics.datasets.pens import read_hyps

    return read_hyps(path, 2)


def _states(path: Path) -> object:
    from persona_metrics.sharding.files import read_states

    return read_states(path)


GOOD_ARTICLE = {"article": "A b c. D e f.", "highlights": "A b c.", "id": "x1"}
#: (reader, file bytes, the line named, the message after ``FILE:LINE: ``).
READER_CASES: list[tuple[Callable[[Path], object], bytes, int, str]] = [
    (_pens_predictions, lines({"user_id": None, "news_id": "N1", "prediction": "p"}), 1, "field 'user_id' must be"),
    (_pens_predictions, lines({"user_id": "U1", "news_id": "N1", "prediction": 5}), 1, "['prediction'] must be"),
    (_pens_predictions, lines({"user_id": "U1", "prediction": "p"}), 1, "missing keys ['news_id']"),
    (_pens_predictions, lines("", "[1]"), 2, "expected a JSON object"),
    (
        _pens_predictions,
        lines(*[{"user_id": "U1", "news_id": "N1", "prediction": "p"}] * 2),
        2,
        "duplicate prediction for user U1",
    ),
    (_pens_hyps, b"one\n\xff two\n", 2, "not UTF-8 text"),
    (_cnndm_predictions, lines({"prediction": "p"}), 1, "missing keys ['id']"),
    (_cnndm_predictions, lines({"id": "x1", "prediction": None}), 1, "['prediction'] must be strings"),
    (_cnndm_predictions, lines({"id": [1], "prediction": "p"}), 1, "field 'id' must be a string or a whole number"),
    (_cnndm_predictions, lines(*[{"id": 7, "prediction": "p"}] * 2), 2, "field 'id': a second prediction"),
    (_cnndm_data, lines(GOOD_ARTICLE, {**GOOD_ARTICLE, "article": None}), 2, "['article'] must be strings"),
    (_cnndm_data, lines(GOOD_ARTICLE, {**GOOD_ARTICLE, "highlights": ""}), 2, "['highlights'] must not be empty"),
    (_states, b'{"format": "persona-metrics-states"}\n{"a": Infinity}\n', 2, "not valid JSON"),
]


@pytest.mark.parametrize(("reader", "data", "line", "message"), READER_CASES)
def test_readers_name_file_line_and_field(tmp_path, reader, data, line, message) -> None:
    path = tmp_path / "input.jsonl"
    path.write_bytes(data)
    with pytest.raises(ValueError, match=re.escape(f"{path}:{line}: {message}")):
        reader(path)


def test_pens_tsv_names_the_first_malformed_line_and_a_bad_byte(tmp_path) -> None:
    from persona_metrics.datasets.pens import TEST_COLUMNS, check_tsv

    path = tmp_path / "personalized_test.tsv"
    path.write_bytes(("\t".join(TEST_COLUMNS) + "\nU1\tN1\tN2\tt\nU2\tN1\n").encode())
    with pytest.raises(ValueError, match=r"personalized_test.tsv:3: 2 tab-separated fields, expected 4 \(userid, "):
        check_tsv(path, TEST_COLUMNS)
    path.write_bytes(("\t".join(TEST_COLUMNS) + "\nU1\tN1\tN2\tt\xe9\n").encode("latin-1"))
    with pytest.raises(ValueError, match=r"personalized_test.tsv:2: not UTF-8 text"):
        check_tsv(path, TEST_COLUMNS)


def test_financial_json_names_the_line(tmp_path) -> None:
    from persona_metrics.datasets.financial import read_article_dir

    (tmp_path / "a.json").write_text('{\n  "article_id": "a",\n  oops\n}\n')
    _, problems = read_article_dir(tmp_path)
    assert problems == ["a.json:3: not valid JSON (Expecting property name enclosed in double quotes, column 3)"]


def test_cnndm_parquet_names_the_row_and_field(tmp_path) -> None:
    """A parquet file has rows, not lines: the row (0-based) and the field are named."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "test.parquet"
    table = {"article": ["A b c. D e f.", None], "highlights": ["A b c.", "D e f."], "id": ["x1", "x2"]}
    pq.write_table(pa.table(table), path)
    with pytest.raises(ValueError, match=re.escape(f"{path}: row 1: field 'article' must be a non-empty string")):
        _cnndm_data(path)


def test_judge_results_file_names_a_bad_byte(tmp_path) -> None:
    from persona_metrics.summary_eval.results_log import ResultsLog

    path = tmp_path / "judged.jsonl"
    path.write_bytes(b'{"key": "a"}\n{"key": "\xff"}\n')
    with pytest.raises(ValueError, match=re.escape(f"{path}:2: not UTF-8 text")):
        ResultsLog(path).answers()


@pytest.mark.parametrize("via", ["same name", "symlink", "./ spelling"])
@pytest.mark.parametrize("option", ["--states", "--micro"])
def test_an_output_naming_the_input_is_refused_and_the_input_kept(capsys, tmp_path, monkeypatch, via, option) -> None:
    """Issue 35: ``score persona_style in.jsonl --shard 1/2 --states in.jsonl`` overwrote the input (also through a
    symlink); now one line, exit 2, the input byte for byte as it was."""
    monkeypatch.chdir(tmp_path)
    data = lines(GOOD_STYLE, GOOD_STYLE)
    Path("in.jsonl").write_bytes(data)
    out = {"same name": "in.jsonl", "symlink": "link.jsonl", "./ spelling": "./in.jsonl"}[via]
    if via == "symlink":
        Path("link.jsonl").symlink_to("in.jsonl")
    shard = ["--shard", "1/2"] if option == "--states" else []
    assert main(["score", "persona_style", "in.jsonl", *shard, option, out]) == 2
    assert f"{option} {Path(out)} is the input file in.jsonl: writing it would overwrite" in capsys.readouterr().err
    assert Path("in.jsonl").read_bytes() == data


def test_an_output_file_is_replaced_whole_or_not_at_all(tmp_path, monkeypatch) -> None:
    """Issue 35: states files were written with a plain write, so a killed run could leave one cut at a line."""
    from persona_metrics import resources
    from persona_metrics.commands import output

    path = tmp_path / "states.jsonl"
    output.write_text(path, "old\n")

    def killed(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(resources.os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        output.write_text(path, "new\n" * 1000)
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["states.jsonl"]  # no temporary file left


@pytest.mark.parametrize("mode", ["text", "truncated"])
def test_score_summary_eval_reports_a_judge_failure_in_one_line(capsys, tmp_path, mode) -> None:
    """A judge that answers garbage ended `score summary_eval` in a RuntimeError traceback (exit 1)."""
    from judge_server import serve

    path = tmp_path / "pairs.jsonl"
    row = {"prediction": "The council approved the new tram line.", "source": "The council met. It approved a tram."}
    path.write_text(json.dumps(row) + "\n")
    with serve(mode=mode) as server:
        code = main(["score", "summary_eval", str(path), "-m", "test-judge", "--base-url", server.url])
    out, err = capsys.readouterr()
    assert (code, out) == (2, ""), err
    assert len(err.splitlines()) == 1, err
    assert err.startswith("persona-metrics score: error: ")


def _refused_one_line(capsys, args: list[str]) -> str:
    code = main(args)
    out, err = capsys.readouterr()
    assert (code, out) == (2, ""), err
    assert len(err.splitlines()) == 1, err
    return err


def test_cnndm_and_pens_refuse_an_output_that_is_an_input(capsys, tmp_path) -> None:
    """cnndm --states/--micro/--out and pens --states/--out naming an input file overwrote it."""
    root = Path(__file__).resolve().parents[1]
    data = tmp_path / "test.jsonl"
    data.write_bytes((root / "data" / "cnndm_sample" / "test.jsonl").read_bytes())
    before = data.read_bytes()
    link = tmp_path / "link.jsonl"
    link.symlink_to(data)
    for option in ("--micro", "--states"):
        extra = ["--shard", "1/2"] if option == "--states" else []
        err = _refused_one_line(capsys, ["cnndm", "-n", "2", "--data-files", str(data), *extra, option, str(link)])
        assert f"{option} {link} is the input file {data}" in err
    err = _refused_one_line(capsys, ["cnndm", "-n", "2", "--data-files", str(data), "--micro", str(tmp_path / "a"),
                                     "--out", str(tmp_path / "a"), "-m", "m"])  # fmt: skip
    assert "give each output its own path" in err
    pens = tmp_path / "pens"
    pens.mkdir()
    for name in ("news.tsv", "personalized_test.tsv"):
        (pens / name).write_bytes((root / "data" / "pens_sample" / name).read_bytes())
    tsv = (pens / "personalized_test.tsv").read_bytes()
    err = _refused_one_line(capsys, ["pens", str(pens), "--shard", "1/2", "--states", str(pens / "news.tsv")])
    assert "is the input file" in err
    predictions = tmp_path / "out" / "per_summary.jsonl"
    predictions.parent.mkdir()
    predictions.write_text("x\n")
    err = _refused_one_line(capsys, ["pens", str(pens), "--predictions", str(predictions), "--out",
                                     str(tmp_path / "out"), "--no-plot"])  # fmt: skip
    assert "per_summary.jsonl is the input file" in err
    assert (data.read_bytes(), (pens / "personalized_test.tsv").read_bytes()) == (before, tsv)
    assert predictions.read_text() == "x\n"
