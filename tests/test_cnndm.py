"""CNN/DM loader, extractive baselines and the benchmark CLI on the shipped sample."""

from __future__ import annotations

import io
import json
import random
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from persona_metrics.datasets.cnndm import lead3, load_cnndm, random3
from persona_metrics.resources import sent_tokenize

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "cnndm_sample" / "test.jsonl"


def test_shipped_sample_has_the_cnndm_schema() -> None:
    ds = load_cnndm([SAMPLE])
    assert ds.num_rows == 16
    assert set(ds.column_names) == {"article", "highlights", "id"}
    assert all(len(i) == 40 and int(i, 16) >= 0 for i in ds["id"])
    assert all(2 <= len(h.split("\n")) <= 4 for h in ds["highlights"])


def test_missing_column_and_bad_sources(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"article": "a", "id": "1"}) + "\n")
    with pytest.raises(ValueError, match=r"bad.jsonl:1: missing keys \['highlights'\]"):
        load_cnndm([bad])
    with pytest.raises(ValueError, match="hub=True"):
        load_cnndm()
    with pytest.raises(ValueError, match=r"all be \.parquet"):
        load_cnndm([bad, tmp_path / "x.parquet"])


def test_lead3_and_random3() -> None:
    article = load_cnndm([SAMPLE])["article"][0]
    sentences = sent_tokenize(article)
    assert lead3(article).split("\n") == sentences[:3]
    a, b = random3(article, random.Random(4)), random3(article, random.Random(4))
    assert a == b
    picked = a.split("\n")
    assert len(picked) == 3
    assert all(s in sentences for s in picked)
    assert [sentences.index(s) for s in picked] == sorted(sentences.index(s) for s in picked)


@pytest.fixture(scope="module")
def cli():
    from persona_metrics.commands import cnndm

    return cnndm


def _run(cli, *args: str) -> str:
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert cli.main(list(args)) == 0
    return buf.getvalue()


def test_cli_formats_and_sanity_row(cli, tmp_path: Path) -> None:
    rows = json.loads(_run(cli, "-n", "3", "--seed", "1", "-f", "json"))
    by = {r["system"]: r for r in rows}
    assert set(by) == {"lead3", "random3", "reference"}
    assert by["reference"]["rougeLsum"] == pytest.approx(1.0)
    assert by["reference"]["content_quality"] == pytest.approx(1.0, abs=1e-6)
    assert all(r["n"] == 3 for r in rows)
    csv_out = _run(cli, "-n", "3", "--seed", "1", "-f", "csv")
    assert csv_out.splitlines()[0].startswith("system,n,overall_quality")
    assert "| lead3 " in _run(cli, "-n", "3", "--seed", "1", "-f", "pretty")


def test_cli_prediction_file_missing_id(cli, tmp_path: Path) -> None:
    preds = tmp_path / "mymodel.jsonl"
    preds.write_text(json.dumps({"id": "nope", "prediction": "x"}) + "\n")
    with pytest.raises(SystemExit, match="no prediction for"):
        cli.main(["-n", "2", "--predictions", str(preds)])


def test_cli_seed_out_of_range_is_refused_before_sampling(cli) -> None:
    """``--seed 10**400`` was handed to the dataset shuffle (which takes any integer) before anything checked it."""
    with pytest.raises(SystemExit, match=r"seed must be an int from 0 to 2\*\*64 - 1"):
        cli.main(["-n", "2", "--seed", str(10**400)])
