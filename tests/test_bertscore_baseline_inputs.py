"""The shipped BERTScore baseline's inputs are explicit: a fixed pairs file, its digest in the record.

The record's SHA-256 and pair count were written when the baseline was computed (from the texts of commit
36b205e: ``unrelated_pairs(shipped_texts(data, personas), 12345)`` there gives the same digest), so they are an
independent check of the shipped pairs file. Recomputing reads only that file: a persona file added to the
persona folder changes nothing.
"""

from __future__ import annotations

import argparse
import csv
import shutil
from pathlib import Path

import pytest

from persona_metrics.commands import bertscore_baseline as command
from persona_metrics.persona import bertscore_baseline as method
from persona_metrics.persona.bertscore_baseline import BaselineRow, pairs_digest, pairs_file, read_inputs

SHIPPED = command.default_output()


def test_shipped_pairs_are_what_the_record_says() -> None:
    pairs, record = read_inputs(SHIPPED)
    assert record == {"pairs": 628, "sentences": 648, "seed": 12345, "pairs_sha256": pairs_digest(pairs)}
    assert record["pairs_sha256"] == "11b73752b7e139c5267a58dc455cc7d66ce717db5f6b2f96f1acbde2e9c5178e"


def test_an_edited_pairs_file_is_refused_with_the_way_out(tmp_path: Path) -> None:
    for suffix in (".tsv", ".json", ".pairs.jsonl"):
        shutil.copy(SHIPPED.with_suffix(suffix), tmp_path / f"b{suffix}")
    edited = tmp_path / "b.pairs.jsonl"
    edited.write_text(edited.read_text(encoding="utf-8").replace("a", "A", 1), encoding="utf-8")
    with pytest.raises(ValueError, match=r"compute_bertscore_baseline\.py --data data") as err:
        read_inputs(tmp_path / "b.tsv")
    assert "628 pairs" in str(err.value)
    edited.write_text('["only one"]\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"b\.pairs\.jsonl:1: expected a list of two non-empty strings"):
        read_inputs(tmp_path / "b.tsv")


def test_recomputing_reads_only_the_pairs_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fourth persona file (or any text) cannot move the baseline: the persona folder is never read."""
    seen: list[list[tuple[str, str]]] = []

    def compute(pairs: list[tuple[str, str]], **_: object) -> list[BaselineRow]:
        seen.append(list(pairs))
        return [BaselineRow(6, 0.5, 0.5, 0.5)]

    def no_texts(*_: object) -> None:
        raise AssertionError("the persona folder or data samples were read")

    monkeypatch.setattr(method, "compute_bertscore_baseline", compute)
    monkeypatch.setattr(method, "shipped_texts", no_texts)
    out = tmp_path / "baseline.tsv"
    args = argparse.Namespace(data=None, seed=1, out=out, model=None)
    assert command.run(args) == 0
    shipped_pairs, record = read_inputs(SHIPPED)
    assert seen == [shipped_pairs]
    assert read_inputs(out) == (shipped_pairs, record)
    monkeypatch.undo()  # a draw from today's persona samples (--data) would give other pairs: the reason for the file
    assert command.inputs(tmp_path, 12345)[1]["pairs_sha256"] != record["pairs_sha256"]


@pytest.mark.slow
def test_the_shipped_pairs_give_the_shipped_baseline() -> None:
    """Layer 6 recomputed here equals the shipped row to its 8 decimals, within the cross-CPU bound 5e-7."""
    pairs, _ = read_inputs(SHIPPED)
    (row,) = method.compute_bertscore_baseline(pairs, layers=[6])
    with SHIPPED.open(encoding="utf-8") as f:
        shipped = {int(r["LAYER"]): r for r in csv.DictReader(f)}[6]
    for value, key in ((row.precision, "P"), (row.recall, "R"), (row.f1, "F")):
        assert value == pytest.approx(float(shipped[key]), abs=5e-7)
    assert pairs_file(SHIPPED).is_file()
