"""The distance registry is the one source every reader consults (docs/add_a_distance.md).

The recipe's example distance (a character-count distance, executed from the doc's own code block) is registered
and then found in: ``get_distance``, the CLI (``pens --distance`` choices and help, ``score -o distance=``), the
cards' table generator and the fuzz suite's distance strategy (a short hypothesis run through the suite's own
functions). The cards' distance tables and ``distance`` bullets must equal what the registry generates.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import test_fuzz as fuzz
from hypothesis import HealthCheck, given, settings

from persona_metrics.cli import build_parser, main
from persona_metrics.distances import (
    DEFAULT_DISTANCE,
    DISTANCES,
    Distance,
    distance_names,
    distance_table,
    get_distance,
    register_distance,
    unregister_distance,
)

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "add_a_distance.md"
CARDS = [ROOT / "metrics" / name / "README.md" for name in ("perseval", "degress")]
SAMPLE = ROOT / "data" / "personalization_sample" / "sample.jsonl"


def doc_blocks(language: str) -> list[str]:
    """The fenced code blocks of the recipe in ``language``."""
    return re.findall(rf"```{language}\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)


@pytest.fixture
def recipe() -> Iterator[type[Distance]]:
    """The doc's example distance, registered by running the doc's code; unregistered afterwards."""
    namespace: dict[str, Any] = {}
    try:
        exec(compile(doc_blocks("python")[0], str(DOC), "exec"), namespace)
        yield namespace["CharCount"]
    finally:
        if "charcount" in DISTANCES:
            unregister_distance("charcount")


def card_table(card: Path) -> str:
    """The distance table of a card: the lines of the first table under "### Distances"."""
    text = card.read_text(encoding="utf-8")
    lines = text[text.index("### Distances") :].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    return "\n".join(lines[start:end])


def card_distance_bullet(card: Path) -> str:
    """The ``distance`` bullet of a card's inputs, whitespace collapsed."""
    match = re.search(r"- \*\*distance\*\* (.*?)\(table above\)", card.read_text(encoding="utf-8"), flags=re.DOTALL)
    assert match, f"{card}: no distance bullet"
    return " ".join(match.group(1).split())


# --- the cards ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("card", CARDS, ids=lambda p: p.parent.name)
def test_card_table_is_the_registry(card: Path) -> None:
    """Regenerate with docs/add_a_distance.md step 3 when this fails."""
    assert card_table(card) == distance_table(), (
        f"{card.relative_to(ROOT)}: the distance table differs from the registry; paste the output of "
        "`python -c 'from persona_metrics.distances import distance_table; print(distance_table())'`"
    )
    names = distance_names().replace(" (default)", "")
    assert card_distance_bullet(card).endswith(f"one of {names}"), f"{card}: the distance bullet lists other names"


def test_registry_attributes_are_what_the_classes_say() -> None:
    for name, cls in DISTANCES.items():
        assert cls.name == name
        assert cls.description
        assert cls.source
    assert DISTANCES["bleu"].option_names() == ["max_order"]
    assert DISTANCES["jsd"].option_names() == []
    assert DISTANCES["bertscore"].extra == DISTANCES["infolm"].extra == "neural"
    assert next(iter(DISTANCES)) == DEFAULT_DISTANCE


# --- the recipe's distance in every reader ----------------------------------------------------------------------
def test_recipe_distance_is_found_by_every_reader(recipe: type[Distance], capsys: pytest.CaptureFixture[str]) -> None:
    assert DISTANCES["charcount"] is recipe
    dist = get_distance("charcount")
    assert dist("abcd", "ab") == 0.5  # |4 − 2| / 4, by hand
    assert dist("abcd", " ") == 1.0  # the template's empty-text rule
    # the CLI: pens --distance accepts it and its help lists it
    args = build_parser().parse_args(["pens", "data/pens_sample", "--distance", "charcount", "rougeL"])
    assert args.distance == ["charcount", "rougeL"]
    with pytest.raises(SystemExit):
        main(["pens", "--help"])
    assert "charcount" in capsys.readouterr().out
    # score -o distance=charcount runs through the library and signs its result with the distance
    code = main(["score", "degress", str(SAMPLE), "-o", "distance=charcount", "-o", "bootstrap=0", "--format", "json"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert all(row["signature"].startswith("charcount|") for row in json.loads(out)), out
    # the cards' table generator and the names of the evaluate modules' docs
    assert (
        "| `charcount` | relative difference of the two texts' character counts | yes / yes | — |" in distance_table()
    )
    assert distance_names().endswith('`"infolm"`, `"charcount"`')
    assert card_table(CARDS[0]) != distance_table()  # so the card test fails until the card is regenerated


def test_recipe_distance_is_fuzzed(recipe: type[Distance]) -> None:
    assert "charcount" in fuzz.fuzzed_distances()
    strategy = fuzz.cases("degress", library=True).filter(lambda case: case.options.get("distance") == "charcount")
    outcomes: list[str] = []

    @settings(max_examples=8, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(case=strategy)
    def run(case: fuzz.Case) -> None:
        outcomes.append(fuzz.run_example(case, {}, {}, library=True))

    run()
    assert outcomes
    assert set(outcomes) <= {"ok", "documented error"}


def test_unregister_forgets_instances_and_registration_is_checked(recipe: type[Distance]) -> None:
    first = get_distance("charcount")
    unregister_distance("charcount")
    with pytest.raises(ValueError, match=r"unknown distance 'charcount'; choose one of \['rougeL'"):
        get_distance("charcount")
    register_distance(recipe)
    assert get_distance("charcount") is not first  # a fresh instance, no stale cache
    with pytest.raises(ValueError, match="already registered"):
        register_distance(type("Other", (recipe,), {}))
    with pytest.raises(ValueError, match="cannot unregister"):
        unregister_distance(DEFAULT_DISTANCE)
    with pytest.raises(TypeError, match="concrete Distance subclass"):
        register_distance(Distance)
    for attribute, value in (("name", "char count"), ("description", "two\nlines"), ("source", "a | b")):
        with pytest.raises(ValueError, match=attribute):
            register_distance(type("Bad", (recipe,), {"name": "bad", attribute: value}))
    assert "bad" not in DISTANCES
    np.testing.assert_array_equal(get_distance("charcount").pairwise([("ab", "ab"), ("", "")]), [0.0, 1.0])
