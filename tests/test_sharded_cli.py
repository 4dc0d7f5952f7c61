"""Sharded CLI: ``score ... --shard I/N --states`` / ``pens ... --shard``, then ``merge``, against the unsharded run.

Golden source: the unsharded ``persona-metrics score`` / ``pens`` run on the same machine, in the same process. The
merge must print its standard output byte for byte (every number, interval, p-value, note and the signature), for
each ``--format``; the shards are written and given to ``merge`` in a shuffled order.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import states_lines

from persona_metrics import PersonaMetricsWarning
from persona_metrics.cli import main
from persona_metrics.datasets.pens import baseline_predictions, load_pens
from persona_metrics.personalization import shard_of
from persona_metrics.sharding.files import read_states

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "personalization_sample" / "sample.jsonl"
PENS = ROOT / "data" / "pens_sample"
FORMATS = ("table", "json", "csv")


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


@pytest.fixture(scope="module")
def pens_jsonl(tmp_path_factory) -> Path:
    """The PENS sample as a personalization JSONL file: document_id = news id, the headline baseline as a model."""
    ds = load_pens(PENS)
    headline = baseline_predictions(ds, "headline")
    lines = [
        {"document_id": row["news_id"], "document": row["document"], "user_id": row["user_id"],
         "reference": row["reference"], "predictions": {"headline": headline[i]}}
        for i, row in enumerate(ds)
    ]  # fmt: skip
    path = tmp_path_factory.mktemp("pens") / "pens.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("metric", "options"),
    [("perseval", ["-o", "distance=jsd", "-o", "bootstrap=500", "-o", "seed=7"]), ("degress", [])],
)
def test_pens_sample_in_three_shuffled_shards_merges_to_the_unsharded_output(
    capsys, tmp_path, pens_jsonl, metric, options
) -> None:
    """PerSEval, DEGRESS, EGISES, P-Acc, accuracy, intervals, p-values, notes, signature: byte for byte."""
    ids = [json.loads(line)["document_id"] for line in pens_jsonl.read_text().splitlines()]
    assert len({shard_of(doc, 3) for doc in ids}) == 3  # every shard holds documents
    paths = write_shards(capsys, tmp_path, ["score", metric, pens_jsonl, *options], 3, [3, 1, 2])
    for fmt in FORMATS:
        code, whole, _ = cli(capsys, "score", metric, pens_jsonl, *options, "--format", fmt)
        assert code == 0
        code, merged, _ = cli(capsys, "merge", paths[1], paths[2], paths[0], "--format", fmt)
        assert code == 0
        assert merged == whole, fmt
    assert cli(capsys, "merge", *paths, "-q")[1] == cli(capsys, "score", metric, pens_jsonl, *options, "-q")[1]


def test_per_document_values_survive_the_states_file_bit_for_bit(capsys, tmp_path) -> None:
    """Each scored document's per-summary arrays read back equal to the unsharded result's (floats as repr)."""
    from persona_metrics.datasets.personalization import read_personalization_jsonl
    from persona_metrics.personalization import PersonalizationScorer
    from persona_metrics.sharding.documents import merge_states

    paths = write_shards(capsys, tmp_path, ["score", "perseval", SAMPLE], 3, [2, 3, 1])
    merged = merge_states([read_states(p) for p in paths]).results["rougeL"]
    sample = read_personalization_jsonl(SAMPLE)
    with pytest.warns(PersonaMetricsWarning, match="single reference"):
        scorer = PersonalizationScorer(sample.references, sample.documents, sample.document_ids)
    whole = scorer.score(sample.predictions["personalized"], bootstrap=1000)
    result = merged["personalized"]
    for name in ("perseval", "degress", "edp", "accuracy_distance"):
        assert result.per_summary(name) == whole.per_summary(name)
        assert result.per_document(name) == whole.per_document(name)
    assert result.intervals == whole.intervals
    assert result.signature == whole.signature


def test_personalization_sample_each_format_and_many_shards(capsys, tmp_path) -> None:
    """7 shards of 10 documents: some shards hold only a single-reference document or nothing, and still merge."""
    paths = write_shards(capsys, tmp_path, ["score", "perseval", SAMPLE], 7, [5, 2, 7, 1, 4, 6, 3])
    kinds = [{line["kind"] for _, line in read_states(p).lines} for p in paths]
    assert set() in kinds or {"excluded"} in kinds  # a shard without any document to score wrote a valid file
    for fmt in FORMATS:
        whole = cli(capsys, "score", "perseval", SAMPLE, "-f", fmt)[1]
        assert cli(capsys, "merge", *paths, "-f", fmt)[1] == whole


def test_pens_command_shards_merge_to_its_report(capsys, tmp_path) -> None:
    """``pens DIR --shard`` then ``merge``: the unsharded report (two distances), byte for byte."""
    command = ["pens", PENS, "--distance", "rougeL", "jsd", "--bootstrap", "200", "--significance-resamples", "500"]
    paths = write_shards(capsys, tmp_path, command, 3, [2, 1, 3])
    code, whole, _ = cli(capsys, *command)
    assert code == 0
    assert cli(capsys, "merge", *paths)[1] == whole
    # pens has no single score: -q is refused in one line (it ended in a KeyError traceback)
    code, out, err = cli(capsys, "merge", *paths, "-q")
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        "persona-metrics merge: error: pens prints a leaderboard per distance, no single score: merge its states "
        "without -q"
    ]


# --- refusals --------------------------------------------------------------------------------------------------
@pytest.fixture
def shards(capsys, tmp_path) -> list[Path]:
    return write_shards(capsys, tmp_path, ["score", "degress", SAMPLE, "--significance-resamples", "0"], 2, [1, 2])


def refused(capsys, *paths: Path) -> str:
    code, out, err = cli(capsys, "merge", *paths)
    assert code == 2
    assert out == ""  # no partial output
    assert len(err.splitlines()) == 1
    return err


def test_merge_refuses_a_missing_shard(capsys, shards) -> None:
    assert "missing shards 2/2" in refused(capsys, shards[0])


def test_merge_refuses_a_shard_twice(capsys, shards, tmp_path) -> None:
    copy = tmp_path / "again.jsonl"
    copy.write_bytes(shards[0].read_bytes())
    err = refused(capsys, shards[0], copy, shards[1])
    assert f"{copy}: shard 1/2 is also {shards[0]}" in err


def test_merge_refuses_shards_of_another_input(capsys, shards, tmp_path) -> None:
    [theirs] = write_shards(
        capsys, tmp_path / "o", ["score", "degress", SAMPLE, "--significance-resamples", "1"], 2, [2]
    )
    assert "options differs" in refused(capsys, shards[0], theirs)
    header, *rest = states_lines.rows(shards[1])
    forged = states_lines.write(tmp_path / "forged.jsonl", [{**header, "input_sha256": "0" * 64}, *rest])
    assert f"{forged}: input_sha256 differs" in refused(capsys, shards[0], forged)


def test_merge_refuses_another_metric_and_signature(capsys, shards, tmp_path) -> None:
    header, *rest = states_lines.rows(shards[1])
    for field, value in (("metric", "perseval"), ("boards", {"rougeL": {"signature": "x", "params": {}}})):
        forged = states_lines.write(tmp_path / f"{field}.jsonl", [{**header, field: value}, *rest])
        assert f"{forged}: {field} differs" in refused(capsys, shards[0], forged)


def test_merge_names_file_and_line_of_a_damaged_state(capsys, shards, tmp_path) -> None:
    lines = states_lines.rows(shards[1])
    number = next(k for k, line in enumerate(lines) if line.get("kind") == "document")
    lines[number]["edp"] = lines[number]["edp"][:-1]
    damaged = states_lines.write(tmp_path / "damaged.jsonl", lines)
    assert f"{damaged}:{number + 1}: field 'edp' must be a list of" in refused(capsys, shards[0], damaged)
    plain = tmp_path / "plain.jsonl"
    plain.write_text(SAMPLE.read_text())
    assert f"{plain}:1: not a states file" in refused(capsys, plain)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--shard", "0/3", "--states", "x.jsonl"], "I must be from 1 to N"),
        (["--shard", "1-3", "--states", "x.jsonl"], "expected I/N"),
        (["--shard", "1/3"], "--shard needs --states"),
        (["--states", "x.jsonl"], "--states is written by --shard"),
    ],
)
def test_score_shard_arguments_are_checked(capsys, tmp_path, args, message) -> None:
    code, out, err = cli(capsys, "score", "perseval", SAMPLE, *args)
    assert code == 2
    assert message in err
    assert out == ""
