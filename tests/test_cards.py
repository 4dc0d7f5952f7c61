"""The metric cards (``metrics/<name>/README.md``): evaluate's metric-card sections, every input documented, and
the ``>>>`` examples run, so the outputs a card shows are the outputs the module gives.

The sections are those of evaluate's card template (``templates/{{ cookiecutter.module_slug }}/README.md`` in
huggingface/evaluate): Metric Description; How to Use with Inputs, Output Values, Values from Popular Papers and
Examples; Limitations and Bias; Citation; Further References. The Space YAML header is checked in
``tests/test_spaces.py``.
"""

from __future__ import annotations

import doctest
import inspect
import re
import warnings
from pathlib import Path

import pytest

import persona_metrics
from persona_metrics import METRICS

ROOT = Path(__file__).resolve().parents[1]

#: (heading level, title) in the order evaluate's template gives them; other sections may come in between.
SECTIONS = [
    (2, "Metric Description"),
    (2, "How to Use"),
    (3, "Inputs"),
    (3, "Output Values"),
    (4, "Values from Popular Papers"),
    (3, "Examples"),
    (2, "Limitations and Bias"),
    (2, "Citation"),
    (2, "Further References"),
]
HEADING = re.compile(r"^(#{1,6}) +(.+?) *$", flags=re.MULTILINE)
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", flags=re.MULTILINE | re.DOTALL)
#: ``- **name** (`type`, default …)`` or ``- **name** (`type`, required)``: one bullet per input.
INPUT = re.compile(r"^- \*\*(?P<name>\w+)\*\* \((?P<head>[^)]*)\)", flags=re.MULTILINE)


def card(name: str) -> str:
    return (ROOT / "metrics" / name / "README.md").read_text(encoding="utf-8")


def body(text: str) -> str:
    """The card without its YAML header."""
    return text.split("\n---\n", 1)[1]


def headings(text: str) -> list[tuple[int, str]]:
    """(level, title) of every heading outside code blocks."""
    prose = FENCE.sub("", body(text))
    return [(len(m.group(1)), m.group(2)) for m in HEADING.finditer(prose)]


def section(text: str, title: str) -> str:
    """The text under the heading ``title`` up to the next heading of the same or a higher level."""
    prose = body(text)
    matches = [m for m in HEADING.finditer(prose) if not _in_fence(prose, m.start())]
    for i, m in enumerate(matches):
        if m.group(2) == title:
            level = len(m.group(1))
            end = next((n.start() for n in matches[i + 1 :] if len(n.group(1)) <= level), len(prose))
            return prose[m.end() : end]
    raise AssertionError(f"no section {title!r}")


def _in_fence(text: str, position: int) -> bool:
    return any(f.start() < position < f.end() for f in FENCE.finditer(text))


def compute_parameters(name: str) -> dict[str, inspect.Parameter]:
    """The ``_compute`` arguments of the module (what a user can pass)."""
    module = persona_metrics.load(name)
    params = inspect.signature(module._compute).parameters
    return {k: p for k, p in params.items() if k != "self"}


def doctest_blocks(text: str) -> list[str]:
    """The python code blocks written in doctest form (``>>>`` prompts)."""
    return [m.group(2) for m in FENCE.finditer(text) if m.group(1) in ("python", "py", "pycon") and ">>>" in m.group(2)]


@pytest.mark.parametrize("name", METRICS)
def test_card_has_the_template_sections_in_order(name: str) -> None:
    found = headings(card(name))
    assert found[0] == (1, f"Metric Card for {found[0][1].removeprefix('Metric Card for ')}"), found[0]
    positions = []
    for wanted in SECTIONS:
        assert wanted in found, f"{name}: missing section {'#' * wanted[0]} {wanted[1]}; found {found}"
        positions.append(found.index(wanted))
    assert positions == sorted(positions), f"{name}: sections out of order: {found}"


@pytest.mark.parametrize("name", METRICS)
def test_every_input_is_documented_with_type_meaning_and_default(name: str) -> None:
    params = compute_parameters(name)
    inputs = section(card(name), "Inputs")
    bullets = {m.group("name"): m for m in INPUT.finditer(inputs)}
    assert not set(params) - set(bullets), f"{name}: inputs not documented: {sorted(set(params) - set(bullets))}"
    assert not set(bullets) - set(params), f"{name}: documented but not arguments: {sorted(set(bullets) - set(params))}"
    for arg, match in bullets.items():
        head = match.group("head")
        assert head.startswith("`"), f"{name}: {arg}: the type comes first, in backticks: ({head})"
        if params[arg].default is inspect.Parameter.empty:
            assert "required" in head, f"{name}: {arg} has no default: say 'required' ({head})"
        else:
            assert "default" in head, f"{name}: {arg}: state the default ({head})"
        line_end = inputs.find("\n- ", match.end())
        meaning = inputs[match.end() : line_end if line_end != -1 else len(inputs)].strip(" :.\n")
        assert len(meaning) >= 15, f"{name}: {arg}: say what it means"


@pytest.mark.parametrize("name", METRICS)
def test_card_cites_in_bibtex_and_names_the_loading_command(name: str) -> None:
    text = card(name)
    assert "```bibtex\n@" in section(text, "Citation")
    how = " ".join(section(text, "How to Use").split())  # line breaks do not matter
    for needed in ("pip install persona-metrics", "import persona_metrics", "PERSONA_METRICS_NO_AUTO_REGISTER=1",
                   "persona-metrics register", "doesn't exist on the Hugging Face Hub"):  # fmt: skip
        assert needed in how, f"{name}: How to Use must say {needed!r}"
    assert "Values from Popular Papers" in text
    assert len(section(text, "Values from Popular Papers").strip()) > 200


@pytest.mark.parametrize("name", METRICS)
def test_card_examples_run_and_print_what_the_card_shows(name: str) -> None:
    """Every ``>>>`` block of the card runs, in order, in one namespace; the printed outputs must match."""
    blocks = doctest_blocks(card(name))
    assert blocks, f"{name}: no >>> examples"
    examples = section(card(name), "Examples")
    assert doctest_blocks(examples), f"{name}: the Examples section has no >>> examples"
    parser = doctest.DocTestParser()
    path = ROOT / "metrics" / name / "README.md"
    test = parser.get_doctest("\n".join(blocks), {}, f"metrics/{name}/README.md (>>> blocks joined)", str(path), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. a single-reference document excluded on purpose
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted >= 5, f"{name}: only {result.attempted} examples"
    assert result.failed == 0, f"{name}: {result.failed} of the card's examples print something else (above)"


@pytest.mark.parametrize("name", METRICS)
def test_module_info_urls_are_the_cards(name: str) -> None:
    """``homepage`` / ``reference_urls`` of the module's ``MetricInfo`` are real links that the card also gives."""
    module = persona_metrics.load(name)
    urls = [u for u in [module.homepage, *module.reference_urls, *module.codebase_urls] if u]
    assert module.reference_urls, f"{name}: MetricInfo.reference_urls is empty"
    text = card(name)
    for url in urls:
        assert url.startswith("https://"), url
        assert url in text, f"{name}: {url} is in the module's info but not in the card"
