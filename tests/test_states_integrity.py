"""States files cannot merge into a wrong number: cut, edited, dropped or forged lines are refused (issue 35).

Before the line checks and the coverage check, a PerSEval shard cut to its header merged with exit 0 (6 of 9
documents), junk ``excluded`` lines raised ``num_excluded_documents`` past the input's size, and an edited DEGRESS
of 5.0 printed PerSEval 1.15. Each test here damages a shard the way a person or a failing disk would, and expects
one line naming ``FILE:LINE`` (or the files), exit status 2 and nothing on standard output. Tests that rewrite a
line re-seal it (``states_lines.write``), as a forger who recomputes the checks would: what meets them then is the
reader's type, range and coverage checks.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
import states_lines

from persona_metrics.cli import main

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "personalization_sample" / "sample.jsonl"
STYLE = [
    ("Shares of the lender rose 4% after it beat forecasts.", "journalist"),
    ("Wow, this phone is amazing!! Best camera I have ever used!", "enthusiast"),
    ("Operating margin expanded 120 basis points year over year.", "formal_analyst"),
    ("The city council voted to extend the tram line north.", "journalist"),
]


def cli(capsys, *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def refused(capsys, *paths: Path) -> str:
    code, out, err = cli(capsys, "merge", *paths)
    assert (code, out) == (2, ""), err
    assert len(err.splitlines()) == 1, err
    return err


@pytest.fixture
def degress(capsys, tmp_path) -> list[Path]:
    """Two DEGRESS shards of the shipped personalization sample (per-document layout)."""
    paths = [tmp_path / f"d{k}.jsonl" for k in (1, 2)]
    for k, path in enumerate(paths, start=1):
        code, _, err = cli(
            capsys, "score", "degress", SAMPLE, "--significance-resamples", "0", "--shard", f"{k}/2", "--states", path
        )
        assert code == 0, err
    return paths


@pytest.fixture
def style(capsys, tmp_path) -> list[Path]:
    """Two persona_style shards (per-item layout)."""
    source = tmp_path / "style.jsonl"
    source.write_text("".join(json.dumps({"prediction": p, "persona": q}) + "\n" for p, q in STYLE))
    paths = [tmp_path / f"s{k}.jsonl" for k in (1, 2)]
    for k, path in enumerate(paths, start=1):
        code, _, err = cli(capsys, "score", "persona_style", source, "--shard", f"{k}/2", "--states", path)
        assert code == 0, err
    return paths


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines(keepends=True)


def _first(lines: list[str], kind: str) -> int:
    return next(k for k, line in enumerate(lines) if f'"kind": "{kind}"' in line)


@pytest.mark.parametrize("layout", ["degress", "style"])
def test_a_shard_cut_to_its_header_is_refused(capsys, request, tmp_path, layout) -> None:
    shards = request.getfixturevalue(layout)
    cut = tmp_path / "cut.jsonl"
    cut.write_text(_lines(shards[1])[0])
    assert f"{cut}:1: the file ends without its end line" in refused(capsys, shards[0], cut)


@pytest.mark.parametrize(("layout", "kind"), [("degress", "document"), ("degress", "excluded"), ("style", "item")])
def test_a_dropped_line_is_refused_at_the_line_after_it(capsys, request, tmp_path, layout, kind) -> None:
    shards = request.getfixturevalue(layout)
    damaged, other = next(
        ((a, b) for a, b in (shards, shards[::-1]) if f'"kind": "{kind}"' in b.read_text()), (None, None)
    )
    if other is None:
        pytest.skip(f"no shard has a {kind} line")
    lines = _lines(other)
    number = _first(lines, kind)
    dropped = tmp_path / "dropped.jsonl"
    dropped.write_text("".join(lines[:number] + lines[number + 1 :]))
    err = refused(capsys, damaged, dropped)
    assert f"{dropped}:{number + 1}: the line does not match its check" in err


@pytest.mark.parametrize(("layout", "kind", "field"), [("degress", "document", "degress"), ("style", "item", "score")])
def test_an_edited_number_in_range_is_refused_at_its_line(capsys, request, tmp_path, layout, kind, field) -> None:
    shards = request.getfixturevalue(layout)
    lines = _lines(shards[1])
    number = _first(lines, kind)
    row = json.loads(lines[number])
    value = row[field][0] if isinstance(row[field], list) else row[field]
    edited_value = 0.5 if value != 0.5 else 0.25
    lines[number] = lines[number].replace(json.dumps(value), json.dumps(edited_value), 1)
    edited = tmp_path / "edited.jsonl"
    edited.write_text("".join(lines))
    assert f"{edited}:{number + 1}: the line does not match its check" in refused(capsys, shards[0], edited)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("degress", 5.0, "field 'degress' must be a list of"),
        ("edp", -1.0, "field 'edp' must be a list of"),
        pytest.param("adp", 10**400, "field 'adp' must be a number in [0, 1]", id="adp-10**400"),
        pytest.param("accuracy", 10**400, "field 'accuracy' must be a list of", id="accuracy-10**400"),
        ("key", {"a": 1}, "field 'key' must be a string or a whole number"),
        ("key", None, "field 'key' must be a string or a whole number"),
        ("key", "moved-here", "belongs to shard"),
    ],
)
def test_a_forged_document_value_is_refused(capsys, degress, tmp_path, field, value, message) -> None:
    rows = states_lines.rows(degress[1])
    number = next(k for k, row in enumerate(rows) if row.get("kind") == "document")
    if field in ("degress", "edp", "accuracy"):
        rows[number][field] = [value] * len(rows[number][field])
    else:
        rows[number][field] = value
    if field == "key" and value == "moved-here":
        from persona_metrics.personalization import shard_of

        rows[number][field] = next(f"d{k}" for k in range(100) if shard_of(f"d{k}", 2) == 0)
    forged = states_lines.write(tmp_path / "forged.jsonl", rows)
    assert f"{forged}:{number + 1}: " in (err := refused(capsys, degress[0], forged))
    assert message in err


def test_a_resealed_dropped_document_is_refused_by_coverage(capsys, degress, tmp_path) -> None:
    rows = states_lines.rows(degress[1])
    number = next(k for k, row in enumerate(rows) if row.get("kind") == "document")
    forged = states_lines.write(tmp_path / "forged.jsonl", rows[:number] + rows[number + 1 :])
    err = refused(capsys, degress[0], forged)
    assert "are in no line for" in err
    assert "the shards are incomplete" in err


def test_junk_excluded_lines_are_refused(capsys, degress, tmp_path) -> None:
    """100 000 junk excluded lines gave num_excluded_documents 100000 for a 32-line input."""
    rows = states_lines.rows(degress[1])
    from persona_metrics.personalization import shard_of

    keys = [f"junk{k}" for k in range(400) if shard_of(f"junk{k}", 2) == 1][:100]
    junk = [{"kind": "excluded", "key": key, "indices": [0]} for key in keys]
    forged = states_lines.write(tmp_path / "forged.jsonl", [*rows, *junk])
    err = refused(capsys, degress[0], forged)
    assert f"{forged}:" in err
    assert "item 0 is also in" in err


@pytest.mark.parametrize(
    ("value", "message"), [(5.0, "must be a number in [0, 1], got 5.0"), pytest.param(10**400, "must be", id="10**400")]
)
def test_a_forged_item_value_is_refused(capsys, style, tmp_path, value, message) -> None:
    rows = states_lines.rows(style[1])
    number = next(k for k, row in enumerate(rows) if row.get("kind") == "item")
    rows[number]["score"] = value
    forged = states_lines.write(tmp_path / "forged.jsonl", rows)
    err = refused(capsys, style[0], forged)
    assert f"{forged}:{number + 1}: field 'score' {message}" in err


def test_verdict_and_summary_eval_ranges() -> None:
    """A judge accuracy of 5.0 put SummaryEval's means outside [0, 1]: the item specs refuse it."""
    from persona_metrics.state_fields import check_fields
    from persona_metrics.summary_eval.states import SUMMARY_EVAL, VERDICT_FIELDS

    spec = SUMMARY_EVAL.item_checks({"accuracy": True, "overall": True, "verdicts": False})
    with pytest.raises(ValueError, match=r"f:2: field 'accuracy' must be a number in \[0, 1\] or null"):
        check_fields({"accuracy": 5.0}, {"accuracy": spec["accuracy"]}, "f:2")
    with pytest.raises(ValueError, match=r"f:3: field 'accuracy' must be a number in \[0, 1\] or null"):
        check_fields({"accuracy": 5.0}, {"accuracy": VERDICT_FIELDS["accuracy"]}, "f:3")


def test_shards_of_one_input_typed_differently_merge(capsys, tmp_path, monkeypatch) -> None:
    """The input is its SHA-256: `sub/x.jsonl`, `x.jsonl` and standard input name one input."""
    sub = tmp_path / "sub"
    sub.mkdir()
    shutil.copy(SAMPLE, sub / "x.jsonl")
    monkeypatch.chdir(tmp_path)
    common = ["score", "degress", "--significance-resamples", "0"]
    assert cli(capsys, *common[:2], "sub/x.jsonl", *common[2:], "--shard", "1/3", "--states", "a.jsonl")[0] == 0
    monkeypatch.chdir(sub)
    assert cli(capsys, *common[:2], "x.jsonl", *common[2:], "--shard", "2/3", "--states", "../b.jsonl")[0] == 0
    monkeypatch.setattr(sys, "stdin", type("In", (), {"buffer": SAMPLE.open("rb")})())
    assert cli(capsys, *common[:2], "-", *common[2:], "--shard", "3/3", "--states", "../c.jsonl")[0] == 0
    monkeypatch.chdir(tmp_path)
    code, merged, err = cli(capsys, "merge", "a.jsonl", "b.jsonl", "c.jsonl", "--format", "json")
    assert code == 0, err
    whole = cli(capsys, *common[:2], "sub/x.jsonl", *common[2:], "--format", "json")[1]
    assert merged == whole


def test_a_document_id_with_a_line_separator_stays_one_line(capsys, tmp_path) -> None:
    """U+2028 in a key split the line for ``str.splitlines``; states are ASCII JSON and split on newlines only."""
    rows = [json.loads(line) for line in SAMPLE.read_text().splitlines()]
    for row in rows:
        row["document_id"] = f"{row['document_id']}\u2028x\x85"
    source = tmp_path / "odd.jsonl"
    source.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
    common = ["score", "degress", source, "--significance-resamples", "0"]
    paths = [tmp_path / f"o{k}.jsonl" for k in (1, 2)]
    for k, path in enumerate(paths, start=1):  # a shard prints nothing, so it takes no --format
        assert cli(capsys, *common, "--shard", f"{k}/2", "--states", path)[0] == 0
    assert paths[0].read_text().isascii()
    code, merged, err = cli(capsys, "merge", *paths, "--format", "json")
    assert code == 0, err
    assert merged == cli(capsys, *common, "--format", "json")[1]
