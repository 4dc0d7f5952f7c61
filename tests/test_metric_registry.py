"""The "add a metric" recipe (docs/add_a_metric.md), executed: a metric registered in one place is found everywhere.

The recipe's example (a word-recall metric: its params, result, library function, states codec and spec) is run
from the doc's own code blocks. Then ``score``, ``score --shard`` + ``merge``, the Trainer hook, the distributed
class, the engine parts and the validity runner all find it, with nothing else edited. Golden values: the recall
by hand on the toy texts.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
import types
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from persona_metrics.metric_registry import METRIC_SPECS, metric_spec, register_metric, unregister_metric

DOC = Path(__file__).resolve().parents[1] / "docs" / "add_a_metric.md"
NAME = "toy_recall"


def _recipe() -> dict[str, Any]:
    """The doc's Python blocks run in order, as one module (the last block registers the metric)."""
    module = types.ModuleType("add_a_metric_recipe")
    sys.modules[module.__name__] = module  # dataclasses look their module up
    for block in re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL):
        exec(compile(block, str(DOC), "exec"), module.__dict__)  # the doc's own example
    return module.__dict__


def _toy_checks(cases: Mapping[str, list[dict]], method: Any) -> list:
    from persona_metrics.validity import properties as P

    rows = cases["toy.jsonl"]
    same = metric_spec(NAME).score(
        {"predictions": [r["reference"] for r in rows], "references": [r["reference"] for r in rows]}
    )
    return [P.Check("a copy of the reference scores 1", bool(s == 1.0)) for s in same.recall]


PREDICTIONS = ["the cat sat on the mat", "a dog ran", "birds sing at dawn", "rain fell all night long"]
REFERENCES = ["the cat sat", "the dog ran far", "birds sing loudly", "snow fell at night"]
#: By hand: 3/3, 2/4, 2/3, 2/4 distinct reference words found.
RECALL = [1.0, 0.5, 2 / 3, 0.5]


@pytest.fixture
def toy():
    from persona_metrics.validity.runner import Suite

    recipe = _recipe()
    assert METRIC_SPECS[NAME] is recipe["TOY"]  # the recipe registered it
    suite = Suite(("toy.jsonl",), _toy_checks, fields={"toy.jsonl": ("id", "reference")})
    register_metric(dataclasses.replace(recipe["TOY"], validity=suite), replace=True)
    yield METRIC_SPECS[NAME]
    unregister_metric(NAME)
    assert NAME not in METRIC_SPECS


def test_the_spec_is_the_registry_entry(toy) -> None:
    assert metric_spec(NAME) is toy
    assert toy.layout == "items"
    with pytest.raises(ValueError, match="'toy_recall' is registered already"):
        register_metric(toy)
    with pytest.raises(ValueError, match="'vert' is registered already"):
        register_metric(dataclasses.replace(toy, name="vert"), replace=True)  # a bundled metric is never replaced
    with pytest.raises(ValueError, match="'vert' ships with persona-metrics"):
        unregister_metric("vert")
    with pytest.raises(ValueError, match=r"metric must be one of \[.*'toy_recall'\]"):
        metric_spec("toy_recal")
    assert toy.score({"predictions": PREDICTIONS, "references": REFERENCES}).recall.tolist() == RECALL


def _write_input(tmp_path) -> Any:
    path = tmp_path / "toy.jsonl"
    lines = [{"prediction": p, "reference": r} for p, r in zip(PREDICTIONS, REFERENCES, strict=True)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_score_and_sharded_merge_find_it(toy, tmp_path, capsys) -> None:
    from persona_metrics.cli import main

    path = _write_input(tmp_path)
    assert main(["score", NAME, str(path), "-o", "weight=0.5", "--format", "json"]) == 0
    whole = capsys.readouterr().out
    rows = json.loads(whole)
    assert rows[0]["recall"] == pytest.approx(0.5 * sum(RECALL) / 4, abs=1e-15)
    states = []
    for k in (1, 2, 3):
        out = tmp_path / f"s{k}.jsonl"
        common = ["-o", "weight=0.5", "--shard", f"{k}/3", "--states", str(out)]  # a shard prints nothing
        assert main(["score", NAME, str(path), *common]) == 0
        states.append(str(out))
    capsys.readouterr()
    assert main(["merge", *states, "--format", "json"]) == 0
    assert capsys.readouterr().out == whole  # the merge prints what the unsharded run printed, byte for byte
    assert main(["score", NAME, str(path), "-q"]) == 0
    assert float(capsys.readouterr().out.split()[-1]) == pytest.approx(sum(RECALL) / 4)


def test_the_engine_parts_find_it(toy) -> None:
    from persona_metrics.integrations.parts import merge_parts, score_rows

    columns = {"predictions": PREDICTIONS, "references": REFERENCES}
    parts = [
        score_rows(NAME, {k: [v[i] for i in rows] for k, v in columns.items()}, rows, weight=0.5)
        for rows in ([3, 0], [2, 1])
    ]
    merged = merge_parts(parts)
    assert merged.recall.tolist() == [0.5 * r for r in RECALL]
    assert merged.signature == toy.score({"predictions": PREDICTIONS, "references": REFERENCES}, weight=0.5).signature


def test_the_distributed_class_finds_it(toy) -> None:
    from persona_metrics.integrations import distributed

    cls = distributed.metric_class(NAME)
    assert cls is distributed.ToyRecallMetric
    metric = cls(weight=0.5)
    metric.update(predictions=PREDICTIONS[:2], references=REFERENCES[:2])
    metric.update(predictions=PREDICTIONS[2:], references=REFERENCES[2:])
    assert metric.compute() == {"recall": pytest.approx(0.5 * sum(RECALL) / 4), "num_empty": 0}
    with pytest.raises(ValueError, match=r"weight must be a finite number in \(0, 1\], got 2.0"):
        cls(weight=2.0)


def test_the_hook_finds_it(toy) -> None:
    from test_hooks import eval_pred, make_tokenizer

    from persona_metrics.integrations.hooks import make_compute_metrics

    tok = make_tokenizer(extra_words=" ".join(PREDICTIONS + REFERENCES).split())
    hook = make_compute_metrics(NAME, tok, {"id": list(range(4))}, weight=0.5)
    result = hook(eval_pred(tok, PREDICTIONS, REFERENCES))
    assert result == {"recall": pytest.approx(0.5 * sum(RECALL) / 4), "num_empty": 0}
    with pytest.raises(ValueError, match=r"compute options \['wieght'\] are not inputs of metric 'toy_recall'"):
        make_compute_metrics(NAME, tok, {"id": list(range(4))}, wieght=0.5)


def test_the_validity_runner_finds_it(toy, tmp_path) -> None:
    from persona_metrics.validity import run_validity
    from persona_metrics.validity.runner import all_methods, suites

    assert NAME in suites()
    assert any(m.metric == NAME for m in all_methods())
    rows = [{"id": f"t{i}", "reference": r} for i, r in enumerate(REFERENCES)]
    (tmp_path / "toy.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    report = run_validity([NAME], cases_dir=tmp_path)
    assert report.metrics() == [NAME]
    (result,) = report.results
    assert (result.metric, result.method, result.cases, result.passed) == (NAME, "default", 4, 4)


def test_unregistered_it_is_gone(tmp_path) -> None:
    from persona_metrics.integrations import distributed

    assert NAME not in METRIC_SPECS
    with pytest.raises(ValueError, match="metric must be one of"):
        distributed.metric_class(NAME)
    with pytest.raises(AttributeError):
        distributed.ToyRecallMetric  # noqa: B018


# --- the names: one registered concept, not a string spread over the package ----------------------------------
PACKAGE = Path(__file__).resolve().parents[1] / "src" / "persona_metrics"


def name_literals(root: Path, families: Mapping[str, str]) -> dict[str, set[str]]:
    """Per metric name, the modules of ``root`` outside its family holding a string literal equal to it.

    Docstrings and text that merely contains the name do not count; the metric scripts (``metrics/``) do not either.
    """
    import ast

    found: dict[str, set[str]] = {name: set() for name in families}
    for path in root.rglob("*.py"):
        rel = path.relative_to(root)
        if rel.parts[0] == "metrics":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in families and rel.parts[0] != families[node.value]:
                found[node.value].add(rel.as_posix())
    return found


def test_no_metric_name_is_a_literal_in_two_modules_outside_its_family() -> None:
    """Every per-metric table reads the registry (or a family's spec constant): at most one module spells a name."""
    families = {name: spec.family for name, spec in METRIC_SPECS.items()}
    spread = {name: sorted(mods) for name, mods in name_literals(PACKAGE, families).items() if len(mods) > 1}
    assert spread == {}


def test_the_name_check_can_fail(tmp_path) -> None:
    (tmp_path / "vert").mkdir()
    (tmp_path / "vert" / "scorer.py").write_text('NAME = "vert"\n')  # its own family: allowed
    (tmp_path / "a.py").write_text('TABLE = {"vert": 1}\n')
    (tmp_path / "b.py").write_text('if metric == "vert":\n    pass\nDOC = "the vert metric"\n')
    assert name_literals(tmp_path, {"vert": "vert"}) == {"vert": {"a.py", "b.py"}}
