"""``empty=`` in the library: the style scorers refuse a prediction without a word by default, score it 0 on request.

``score_style`` / ``score_quality`` (and their evaluate modules) take ``empty="error"`` (default: the named error,
index named) or ``"zero"`` (the item scores 0 in every component, ``None`` for its nearest persona, band and
features; every mean and interval over all items). The hand calculations below score the non-empty items alone
with the default and place the zeros by hand (docs/style.md §4.6). The hooks and the distributed classes only pass
the option on (tests/test_hooks.py and tests/test_distributed.py pin their numbers).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import persona_metrics
from persona_metrics.persona.quality import score_quality
from persona_metrics.persona.style import score_style
from persona_metrics.significance import DEFAULT_BOOTSTRAP_SEED, bootstrap_interval, bootstrap_intervals
from persona_metrics.validation import ALLOWED_EMPTY, SCORED_EMPTY

ROOT = Path(__file__).resolve().parents[1]
NOTE = "We maintain our Overweight rating, as we believe consensus estimates underestimate the operating leverage."
NEWS = "Harbor Foods raised its sales outlook and will open two stores, the company said on Tuesday."
REF = "Harbor Foods raised its outlook and plans two new stores, the grocer said on Tuesday."
PERSONAS = ["formal_analyst", "enthusiast", "journalist"]


# --- persona_style ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("blank", "message"),
    [
        ("", r"^predictions\[1\] is empty \(empty or whitespace-only text\)$"),
        ("   ", r"^predictions\[1\] is empty \(empty or whitespace-only text\)$"),
        ("!!!", r"^predictions\[1\]: text has no words: style features are undefined for an empty text$"),
    ],
)
def test_style_default_keeps_the_named_error(blank: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        score_style([NOTE, blank, NEWS], PERSONAS)
    with pytest.raises(ValueError, match=message):
        score_style([NOTE, blank, NEWS], PERSONAS, empty="error")


@pytest.mark.parametrize("blank", ["", "   ", "!!!"])
def test_style_zero_is_the_hand_calculation(blank: str) -> None:
    """Two items scored s1, s2 alone (the default) and one empty: mean (s1 + s2 + 0) / 3, per-item None."""
    alone = score_style([NOTE, NEWS], [PERSONAS[0], PERSONAS[2]], return_features=True)
    s1, s2 = alone.scores.tolist()
    zero = score_style([NOTE, blank, NEWS], PERSONAS, empty="zero", return_features=True, bootstrap=40)
    assert zero.empty == (1,)
    assert zero.scores.tolist() == [s1, 0.0, s2]
    assert zero.mean == pytest.approx((s1 + s2 + 0.0) / 3, rel=1e-15)
    out = zero.as_dict(features=True, nearest=True)
    expected_interval = bootstrap_interval([s1, 0.0, s2], 40, DEFAULT_BOOTSTRAP_SEED)
    assert (out["style_similarity_ci_low"], out["style_similarity_ci_high"]) == expected_interval
    plain = alone.as_dict(features=True, nearest=True)
    assert out["scores"] == [s1, 0.0, s2]
    assert out["nearest_persona"] == [plain["nearest_persona"][0], None, plain["nearest_persona"][1]]
    assert out["bands"] == [plain["bands"][0], None, plain["bands"][1]]
    assert out["features"] == [plain["features"][0], None, plain["features"][1]]
    without = score_style([NOTE, NEWS], [PERSONAS[0], PERSONAS[2]], bootstrap=40)
    assert zero.signature == without.signature  # the option is not part of how the scores were made


def test_style_zero_without_an_empty_prediction_equals_the_default() -> None:
    default = score_style([NOTE, NEWS], [PERSONAS[0], PERSONAS[2]], bootstrap=20)
    zero = score_style([NOTE, NEWS], [PERSONAS[0], PERSONAS[2]], bootstrap=20, empty="zero")
    assert zero.as_dict(nearest=True, signature=True) == default.as_dict(nearest=True, signature=True)
    assert zero.empty == ()


def test_style_zero_every_prediction_empty() -> None:
    zero = score_style(["", "?!"], ["journalist", "enthusiast"], empty="zero", bootstrap=20, return_features=True)
    out = zero.as_dict(features=True, nearest=True, signature=True)
    assert out["style_similarity"] == out["style_similarity_ci_low"] == out["style_similarity_ci_high"] == 0.0
    assert out["scores"] == [0.0, 0.0]
    assert out["features"] == out["nearest_persona"] == out["bands"] == [None, None]
    assert out["signature"].startswith("style|features:")


def test_style_zero_still_checks_the_rows_of_empty_predictions() -> None:
    with pytest.raises(ValueError, match=r"personas\[1\] = 'pirate' is not a known persona"):
        score_style([NOTE, ""], ["formal_analyst", "pirate"], empty="zero")
    with pytest.raises(TypeError, match=r"predictions\[1\]"):
        score_style([NOTE, 3], ["formal_analyst", "journalist"], empty="zero")


@pytest.mark.parametrize("value", ["skip", "Zero", "", None, ["zero"]])
def test_invalid_empty_names_the_allowed_values(value: object) -> None:
    message = "^" + re.escape(f"empty must be one of {list(SCORED_EMPTY)}, got {value!r}") + "$"
    with pytest.raises(ValueError, match=message):
        score_style([NOTE], ["formal_analyst"], empty=value)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=message):  # before any model work
        score_quality([NEWS], [REF], ["journalist"], empty=value)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=message):
        persona_metrics.load("persona_style").compute(predictions=[NOTE], personas=["formal_analyst"], empty=value)


def test_the_allowed_values_are_one_constant() -> None:
    """The hooks' values and the library's live together in validation; the integration re-exports the first."""
    from persona_metrics.integrations import empty

    assert ALLOWED_EMPTY == ("zero", "skip", "error")
    assert SCORED_EMPTY == ("zero", "error")
    assert empty.ALLOWED_EMPTY is ALLOWED_EMPTY


# --- the persona_style module ----------------------------------------------------------------------------
def test_style_module_passes_the_option() -> None:
    module = persona_metrics.load("persona_style")
    predictions = [NOTE, "", NEWS]
    with pytest.raises(ValueError, match=r"^predictions\[1\] is empty"):
        module.compute(predictions=predictions, personas=PERSONAS)
    module.add_batch(predictions=predictions, personas=PERSONAS)  # accepted when added: compute decides
    with pytest.raises(ValueError, match=r"^predictions\[1\] is empty"):
        module.compute()
    out = module.compute(predictions=predictions, personas=PERSONAS, empty="zero", return_nearest=True)
    lib = score_style(predictions, PERSONAS, empty="zero").as_dict(nearest=True)
    assert out == lib


# --- persona_quality -------------------------------------------------------------------------------------
def test_quality_default_keeps_the_named_error() -> None:
    with pytest.raises(ValueError, match=r"^predictions\[1\] is empty \(empty or whitespace-only text\)$"):
        score_quality([NEWS, ""], [REF, REF], ["journalist"] * 2)
    with pytest.raises(ValueError, match=r"^predictions\[1\]: text has no words"):
        score_quality([NEWS, "!!!"], [REF, REF], ["journalist"] * 2)


def test_quality_zero_is_the_hand_calculation() -> None:
    """Every component of the empty item 0, its band None; each mean (x1 + x2 + 0) / 3 of the items scored alone."""
    alone = score_quality([NEWS, NOTE], [REF, [REF, NOTE]], ["journalist", "formal_analyst"])
    zero = score_quality(
        [NEWS, "  ", NOTE], [REF, REF, [REF, NOTE]], ["journalist", "enthusiast", "formal_analyst"], empty="zero"
    )
    assert zero.empty == (1,)
    kept = alone.per_item()
    per_item = zero.per_item()
    assert set(per_item) == set(kept)
    for key, values in kept.items():
        fill = None if key == "band" else 0.0
        assert per_item[key] == [values[0], fill, values[1]], key
    means = zero.means()
    for key, values in kept.items():
        if key != "band":
            assert means[key] == pytest.approx((values[0] + values[1] + 0.0) / 3, rel=1e-15), key
    assert zero.content.reference_index is not None
    assert zero.content.reference_index.tolist() == [0, -1, 1]  # the empty item kept no reference
    assert zero.signature == alone.signature


def test_quality_zero_intervals_over_every_item() -> None:
    alone = score_quality([NEWS], [REF], ["journalist"])
    zero = score_quality([NEWS, ""], [REF, REF], ["journalist"] * 2, empty="zero", bootstrap=30)
    columns = {key: [float(values[0]), 0.0] for key, values in alone.components().items()}
    assert zero.intervals == bootstrap_intervals(columns, 30, DEFAULT_BOOTSTRAP_SEED)


def test_quality_zero_every_prediction_empty_scores_no_content() -> None:
    zero = score_quality(["", "!!!"], [REF, REF], ["journalist"] * 2, empty="zero", bootstrap=20)
    out = zero.as_dict(per_item=True, signature=True)
    assert all(out[key] == 0.0 for key in zero.components())
    assert out["per_item"]["band"] == [None, None]
    assert all(values == [0.0, 0.0] for key, values in out["per_item"].items() if key != "band")
    assert "rescaled:" in out["signature"]


# --- floors: the library never imports an integration ----------------------------------------------------
def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


@pytest.mark.parametrize(
    "path",
    [*sorted((ROOT / "src" / "persona_metrics" / "persona").glob("*.py")), ROOT / "src/persona_metrics/validation.py"],
    ids=lambda p: p.name,
)
def test_the_library_does_not_import_upward(path: Path) -> None:
    upward = ("persona_metrics.integrations", "persona_metrics.commands", "persona_metrics.cli")
    found = sorted(name for name in _imports(path) if name.startswith(upward))
    assert not found, f"{path.name} imports {found}"
    if path.name == "validation.py":  # floor 1: no package import at all
        assert not [name for name in _imports(path) if name.startswith("persona_metrics")]


def test_the_empty_policy_holds_no_score_arithmetic() -> None:
    """integrations/empty.py selects rows, counts, warns and passes options: no statistics imported there."""
    from persona_metrics.integrations import empty

    imported = _imports(Path(empty.__file__))
    assert "persona_metrics.significance" not in imported
    assert not {"zero_filled", "checked_mean", "bootstrap_intervals"} & set(vars(empty))
    policy = empty.EmptyPolicy("persona_style", "zero")
    policy.select(["A fine quarter.", ""])
    assert policy.compute_options({"bootstrap": 5}) == {"bootstrap": 5, "empty": "zero"}
    policy.reset()
    policy.select(["A fine quarter."])
    assert policy.compute_options({"bootstrap": 5}) == {"bootstrap": 5}  # no empty row: the user's options only
    other = empty.EmptyPolicy("vert", "zero")
    other.select([""])
    assert other.compute_options({}) == {}  # the library scores an empty summary itself


def test_module_defaults_are_error() -> None:
    import inspect

    for name in ("persona_style", "persona_quality"):
        params = inspect.signature(persona_metrics.load(name)._compute).parameters
        assert params["empty"].default == "error", name
