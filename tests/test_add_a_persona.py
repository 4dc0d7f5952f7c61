"""docs/add_a_persona.md, followed: the recipe's toy persona is found by every reader, and the docs match the registry.

The persona registry is the persona folder's file names (``persona_names``); these tests take the samples file of
the recipe's step 1 from the page itself, so the page and the code cannot drift apart.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from persona_metrics.cli import main
from persona_metrics.persona.formulas import STYLE_METHODS
from persona_metrics.persona.samples import BUILTIN_PERSONAS, load_persona_samples, persona_names
from persona_metrics.persona.style import score_style

ROOT = Path(__file__).resolve().parents[1]
RECIPE = ROOT / "docs" / "add_a_persona.md"
CARD = ROOT / "metrics" / "persona_style" / "README.md"
SHIPPED = ROOT / "src" / "persona_metrics" / "persona" / "personas"
HELDOUT = ROOT / "data" / "persona_heldout"

#: A summary in the toy persona's register, and one in a shipped persona's.
PIRATE_SUMMARY = "Arr, the stock be risin', matey! The cap'n says profits be up again. Buy now, ye scallywags!"
NEWS_SUMMARY = (
    "Northgate Bank said on Thursday that quarterly profit rose 6%, helped by higher interest rates. "
    "Shares fell 2% in early trading."
)


def recipe_persona(folder: Path) -> str:
    """Step 1 of the recipe: the ``text`` block after the line naming ``<name>.txt``, written into ``folder``."""
    page = RECIPE.read_text(encoding="utf-8")
    step = page.split("## 1. The samples file", 1)[1].split("## 2.", 1)[0]
    name = re.search(r"persona, `(\w+)\.txt`:", step)
    block = re.search(r"```text\n(.*?)```", step, re.DOTALL)
    assert name, "step 1 of docs/add_a_persona.md names no <name>.txt"
    assert block, "step 1 of docs/add_a_persona.md has no text block"
    (folder / f"{name.group(1)}.txt").write_text(block.group(1), encoding="utf-8")
    return name.group(1)


def card_personas() -> list[str]:
    """The persona column of the persona_style card's persona table (step 3)."""
    table = CARD.read_text(encoding="utf-8").split("| persona | register |", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^\| `(\w+)` \|", table, re.MULTILINE)


def test_the_recipe_persona_is_in_the_registry_of_its_folder(tmp_path: Path) -> None:
    name = recipe_persona(tmp_path)
    assert persona_names(tmp_path) == (name,)
    assert len(load_persona_samples(tmp_path)[name]) == 4
    assert name not in BUILTIN_PERSONAS  # the shipped registry is the package folder's, untouched


@pytest.mark.parametrize("method", STYLE_METHODS)
def test_score_style_recognises_the_recipe_persona(tmp_path: Path, method: str) -> None:
    name = recipe_persona(tmp_path)
    result = score_style(
        [PIRATE_SUMMARY, NEWS_SUMMARY],
        [name, "journalist"],
        persona_dir=tmp_path,
        method=method,
        centroid_cache=tmp_path / "centroids.json",
    )
    assert result.nearest == (name, "journalist")
    with pytest.raises(ValueError, match=rf"not a known persona; known: \[.*'{name}'"):
        score_style([PIRATE_SUMMARY], ["parrot"], persona_dir=tmp_path, centroid_cache=tmp_path / "centroids.json")


def test_the_cli_scores_the_recipe_persona_with_persona_dir(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    folder = tmp_path / "personas"
    folder.mkdir()
    name = recipe_persona(folder)
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"prediction": PIRATE_SUMMARY, "persona": name}) + "\n", encoding="utf-8")
    cache = tmp_path / "centroids.json"
    code = main(["score", "persona_style", str(rows), "-f", "json", "-o", f"persona_dir={folder}",
                 "-o", f"centroid_cache={cache}"])  # fmt: skip
    assert code == 0
    (row,) = json.loads(capsys.readouterr().out)
    direct = score_style([PIRATE_SUMMARY], [name], persona_dir=folder, centroid_cache=cache)
    assert row["style_similarity"] == direct.mean
    assert row["signature"] == direct.signature


def test_the_card_lists_exactly_the_shipped_personas_which_are_the_folders_files() -> None:
    assert tuple(card_personas()) == BUILTIN_PERSONAS
    assert tuple(sorted(p.stem for p in SHIPPED.glob("*.txt"))) == BUILTIN_PERSONAS
    assert persona_names(HELDOUT) == BUILTIN_PERSONAS
