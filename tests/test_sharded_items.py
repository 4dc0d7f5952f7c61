"""Sharded CLI of the per-item metrics and cnndm: ``--shard I/N --states``, then ``merge``, against the unsharded run.

Golden source: the unsharded ``persona-metrics score`` / ``cnndm`` run on the same machine, in the same process. The
merge must print its standard output byte for byte (every mean, bootstrap interval, note and the signature) for each
``--format`` and ``-q``; the shards are written and given to ``merge`` in shuffled orders. The states files are
user input, so a damaged one is refused naming ``FILE:LINE`` and the field, with nothing on standard output.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import states_lines

from persona_metrics.cli import main
from persona_metrics.sharding.files import read_states, shard_block

ROOT = Path(__file__).resolve().parents[1]
FORMATS = ("table", "json", "csv")

#: Summaries in three registers (journalist, enthusiast, formal analyst), written for these tests.
STYLE_ROWS = [
    ("Shares of Acme rose 4% on Tuesday after the company beat quarterly estimates.", "journalist"),
    ("Wow!! This phone is amazing, the camera is the best I have ever used!!", "enthusiast"),
    ("The board approved the merger; regulators are expected to rule in the third quarter.", "journalist"),
    ("Revenue increased by 12.4 percent year over year, driven primarily by services.", "formal_analyst"),
    ("!!!", "journalist"),
    ("Honestly the new update rocks, everything feels faster and smoother!", "enthusiast"),
    ("Operating margin contracted to 18.2 percent owing to elevated input costs.", "formal_analyst"),
    ("The city council voted 7-2 on Monday to expand the bus network.", "journalist"),
    ("Can't stop playing this game, the levels are so much fun!!!", "enthusiast"),
    ("Net debt declined as free cash flow covered capital expenditure in full.", "formal_analyst"),
]


def cli(capsys, *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def write_shards(capsys, tmp_path: Path, command: list[object], n: int, order: list[int]) -> list[Path]:
    """Run ``command --shard I/N --states`` for I in ``order``; the states files in that (shuffled) order."""
    paths = []
    for i in order:
        path = tmp_path / f"shard{i}.jsonl"
        code, out, err = cli(capsys, *command, "--shard", f"{i}/{n}", "--states", path)
        assert code == 0, err
        assert out == ""
        paths.append(path)
    return paths


def write_jsonl(path: Path, rows: list[dict], blank_after: int | None = None) -> Path:
    lines = [json.dumps(row) for row in rows]
    if blank_after is not None:
        lines.insert(blank_after, "")  # a blank line: item positions are not line numbers
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def assert_merges_to_the_unsharded_output(capsys, command: list[object], paths: list[Path], quiet: bool = True) -> None:
    """``merge`` of ``paths`` (in other orders) prints, for every format, what ``command`` prints; stderr too."""
    for turn, fmt in enumerate(FORMATS, start=1):
        code, whole, whole_err = cli(capsys, *command, "--format", fmt)
        assert code == 0, whole_err
        order = (paths[turn:] + paths[:turn])[::-1]
        code, merged, merged_err = cli(capsys, "merge", *order, "--format", fmt)
        assert code == 0, merged_err
        assert merged == whole, fmt
        assert merged_err == whole_err, fmt
    if quiet:
        assert cli(capsys, "merge", *paths, "-q")[1] == cli(capsys, *command, "-q")[1]


@pytest.fixture(scope="module")
def style_file(tmp_path_factory) -> Path:
    rows = [{"prediction": p, "persona": q} for p, q in STYLE_ROWS]
    return write_jsonl(tmp_path_factory.mktemp("style") / "style.jsonl", rows, blank_after=3)


@pytest.fixture(scope="module")
def pair_rows() -> list[tuple[str, str]]:
    """(summary, reference) pairs: the lead-3 of the shipped CNN/DM sample against its highlights."""
    from persona_metrics.datasets.cnndm import lead3

    rows = [json.loads(line) for line in (ROOT / "data" / "cnndm_sample" / "test.jsonl").read_text().splitlines()]
    return [(lead3(row["article"]), row["highlights"]) for row in rows[:7]]


def test_persona_style_with_a_bootstrap_and_empty_items(capsys, tmp_path, style_file) -> None:
    """Means, the 300-resample interval (recomputed over the merged items), the signature; '!!!' scored 0."""
    command = ["score", "persona_style", style_file, "-o", "bootstrap=300", "-o", "seed=3", "-o", "empty=zero"]
    paths = write_shards(capsys, tmp_path, command, 3, [3, 1, 2])
    assert [len(shard_block(10, k, 3)) for k in (1, 2, 3)] == [3, 3, 4]
    items = [[line["index"] for _, line in read_states(p).lines if line["kind"] == "item"] for p in paths]
    assert items == [[6, 7, 8, 9], [0, 1, 2], [3, 4, 5]]  # contiguous blocks, by position (the blank line skipped)
    empty = [line for p in paths for _, line in read_states(p).lines if line.get("empty")]
    assert [line["index"] for line in empty] == [4]
    assert_merges_to_the_unsharded_output(capsys, command, paths)


def test_persona_style_items_read_back_bit_for_bit(capsys, tmp_path, style_file) -> None:
    """The merged result's per-item scores, intervals and signature are the library's call over the whole file."""
    from persona_metrics.commands.per_item import read_items
    from persona_metrics.persona.style import score_style
    from persona_metrics.sharding.items import merge_item_states

    command = ["score", "persona_style", style_file, "-o", "bootstrap=200", "-o", "empty=zero"]
    paths = write_shards(capsys, tmp_path, command, 4, [2, 4, 1, 3])
    merged = merge_item_states([read_states(p) for p in paths]).results["style"]["persona_style"]
    cols = read_items("persona_style", style_file).columns
    whole = score_style(cols["prediction"], cols["persona"], bootstrap=200, empty="zero")
    assert merged.scores.tolist() == whole.scores.tolist()
    assert (merged.intervals, merged.signature, merged.empty) == (whole.intervals, whole.signature, whole.empty)
    assert (merged.personas, merged.nearest) == (whole.personas, whole.nearest)


def test_persona_quality_two_shards(capsys, tmp_path) -> None:
    from persona_metrics.datasets.financial import read_article_dir, summary_items

    items = summary_items(read_article_dir(ROOT / "data" / "financial_sample")[0]).iloc[:6]
    rows = [
        {"prediction": p, "reference": r, "persona": q}
        for p, r, q in zip(items.prediction, items.reference, items.persona, strict=True)
    ]
    path = write_jsonl(tmp_path / "quality.jsonl", rows)
    command = ["score", "persona_quality", path, "-o", "bootstrap=200", "-o", "seed=5"]
    paths = write_shards(capsys, tmp_path, command, 2, [2, 1])
    assert_merges_to_the_unsharded_output(capsys, command, paths)


def test_vert_with_several_references_and_empty_shards(capsys, tmp_path, pair_rows) -> None:
    """7 items in 9 shards: two shards hold no item and still write a valid file; a list of references."""
    rows = [{"prediction": p, "reference": [r, p[:40]] if k % 3 == 0 else r} for k, (p, r) in enumerate(pair_rows)]
    path = write_jsonl(tmp_path / "pairs.jsonl", rows)
    paths = write_shards(capsys, tmp_path, ["score", "vert", path], 9, [9, 4, 1, 7, 2, 8, 3, 6, 5])
    assert sum(not read_states(p).lines for p in paths) == 2
    assert_merges_to_the_unsharded_output(capsys, ["score", "vert", path], paths)


@pytest.fixture(scope="module")
def summary_eval_file(tmp_path_factory) -> Path:
    rows = [
        {"prediction": "The cat sat on the mat. It purred.", "source": "A cat sat on a mat and purred. A dog barked."},
        {"prediction": "Markets fell.", "source": "Stock markets fell on Monday. Investors feared higher rates."},
        {"prediction": "", "source": "Nothing happened today. The town was calm."},
        {
            "prediction": "Rain is expected. Winds will be strong.",
            "source": "Rain is due tomorrow. Winds may be strong.",
        },
    ]
    return write_jsonl(tmp_path_factory.mktemp("se") / "se.jsonl", rows)


def test_summary_eval_without_a_judge(capsys, tmp_path, summary_eval_file) -> None:
    """Completeness and coherence, accuracy/overall empty, and the note on standard error: all as unsharded."""
    paths = write_shards(capsys, tmp_path, ["score", "summary_eval", summary_eval_file], 3, [2, 3, 1])
    assert_merges_to_the_unsharded_output(capsys, ["score", "summary_eval", summary_eval_file], paths, quiet=False)


def test_summary_eval_with_a_judge(capsys, tmp_path, summary_eval_file) -> None:
    """The verdicts travel in the states (tests/judge_server.py: deterministic scores); standard output is equal."""
    from judge_server import serve

    with serve() as server:
        command = ["score", "summary_eval", summary_eval_file, "-m", "test", "--base-url", server.url, "--no-cache"]
        paths = write_shards(capsys, tmp_path, command, 2, [2, 1])
        for fmt in FORMATS:
            whole = cli(capsys, *command, "--format", fmt)[1]
            assert cli(capsys, "merge", paths[1], paths[0], "--format", fmt)[1] == whole
        assert cli(capsys, "merge", *paths, "-q")[1] == cli(capsys, *command, "-q")[1]
    verdicts = [line["verdict"] for p in paths for _, line in read_states(p).lines if line["kind"] == "item"]
    assert len(verdicts) == 4
    assert all(v["status"] in ("json", "empty-input") for v in verdicts)


def test_cnndm_two_shards(capsys, tmp_path) -> None:
    """cnndm -n 2 (lead3, random3, reference): persona_quality with intervals and SummaryEval, byte for byte."""
    command = ["cnndm", "-n", "2", "--seed", "1", "--bootstrap", "100"]
    paths = write_shards(capsys, tmp_path, command, 2, [2, 1])
    header = read_states(paths[0]).header
    assert (header["command"], header["systems"]) == ("cnndm", ["lead3", "random3", "reference"])
    assert_merges_to_the_unsharded_output(capsys, command, paths, quiet=False)


# --- refusals --------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def style_shards(tmp_path_factory, style_file) -> list[Path]:
    """Two shards of persona_style (written without capsys: a module fixture)."""
    folder = tmp_path_factory.mktemp("shards")
    paths = []
    for k in (1, 2):
        paths.append(folder / f"s{k}.jsonl")
        command = ["score", "persona_style", str(style_file), "-o", "empty=zero"]
        assert main([*command, "--shard", f"{k}/2", "--states", str(paths[-1])]) == 0
    return paths


def refused(capsys, *paths: Path) -> str:
    code, out, err = cli(capsys, "merge", *paths)
    assert code == 2
    assert out == ""  # no partial output
    assert len(err.splitlines()) == 1
    return err


def _set(field: str, value: object):
    def change(line: dict) -> dict:
        return {**line, field: value}

    return change


def _drop(field: str):
    def change(line: dict) -> dict:
        return {k: v for k, v in line.items() if k != field}

    return change


#: (which line: 0 = header, "result", "item"; how it is damaged; what the error says after FILE:LINE).
DAMAGES = [
    ("item", _set("score", "high"), "field 'score' must be a number in [0, 1], got 'high'"),
    ("item", _set("score", 5.0), "field 'score' must be a number in [0, 1], got 5.0"),
    ("item", _drop("persona"), "field 'persona' is missing (expected a string)"),
    ("item", _set("empty", 0), "field 'empty' must be true or false"),
    ("item", _set("index", 4), "field 'index' is 4, expected 5 (shard 2/2 holds the items 5 to 9 in order)"),
    ("item", _set("index", "5"), "field 'index' must be a whole number"),
    ("item", _set("system", "other"), "field 'system' is 'other', not one of the header's ['style']"),
    ("item", _set("result", "vert"), "field 'result' is 'vert', not one of the header's ['persona_style']"),
    ("item", _set("kind", "document"), "field 'kind' must be 'result' or 'item'"),
    ("result", _set("config", "style"), "field 'config' must be a list of strings"),
    ("result", _drop("features"), "field 'features' is missing"),
    (0, _set("shard", "2"), "field 'shard' must be a whole number from 1"),
    (0, _set("num_items", -1), "field 'num_items' must be a whole number"),
    (0, _set("notes", "none"), "field 'notes' must be a list of strings"),
    (0, _set("shard", 3), "field 'shard' is 3, past num_shards 2"),
]


@pytest.mark.parametrize(("where", "change", "message"), DAMAGES)
def test_a_damaged_line_is_named_with_its_field(capsys, tmp_path, style_shards, where, change, message) -> None:
    lines = states_lines.rows(style_shards[1])
    number = where if isinstance(where, int) else next(k for k, line in enumerate(lines) if line.get("kind") == where)
    lines[number] = change(lines[number])
    damaged = states_lines.write(tmp_path / "damaged.jsonl", lines)
    assert f"{damaged}:{number + 1}: {message}" in refused(capsys, style_shards[0], damaged)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b'{"format": "persona-metrics-states", "version": 2}\n{"kind": "item", "score": NaN}\n', ":2: not valid JSON"),
        (b'{"format": "persona-metrics-states", "version": 2}\n{"kind": "it\xffem"}\n', ":2: not UTF-8 text"),
        (b"\n", ":1: not valid JSON"),
    ],
)
def test_unreadable_states_are_named(capsys, tmp_path, text, message) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(text)
    assert f"{path}{message}" in refused(capsys, path)


def test_another_signature_or_input_is_refused(capsys, tmp_path, style_shards) -> None:
    header, result, *items = states_lines.rows(style_shards[1])
    forged = tmp_path / "forged.jsonl"
    result["config"] = [*result["config"], "bootstrap:10,seed:0"]
    states_lines.write(forged, [header, result, *items])
    assert "the persona_style signature of 'style' differs from" in refused(capsys, style_shards[0], forged)
    header["input_sha256"] = "0" * 64
    states_lines.write(forged, [header, result, *items])
    assert f"{forged}: input_sha256 differs" in refused(capsys, style_shards[0], forged)


def test_item_and_document_states_do_not_mix(capsys, tmp_path, style_shards) -> None:
    sample = ROOT / "data" / "personalization_sample" / "sample.jsonl"
    [other] = write_shards(capsys, tmp_path, ["score", "degress", sample, "--significance-resamples", "0"], 2, [2])
    assert "differs from" in refused(capsys, style_shards[0], other)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--shard", "1/2"], "--shard needs --states"),
        (["--states", "x.jsonl"], "--states is written by --shard"),
        (["--shard", "3/2", "--states", "x.jsonl"], "I must be from 1 to N"),
    ],
)
def test_cnndm_shard_arguments_are_checked(capsys, args, message) -> None:
    code, out, err = cli(capsys, "cnndm", "-n", "1", *args)
    assert code == 2
    assert message in err
    assert out == ""
