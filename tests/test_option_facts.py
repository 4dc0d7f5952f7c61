"""One params object per family is where an option's name, default and range live; every entry point reads it.

The evaluate modules name their params classes (``_params`` on the mixin of
``persona_metrics.integrations.evaluate_support``); evaluate itself needs explicit ``_compute`` keywords, so these
tests hold the keywords to the params: every params field a module takes is a keyword with the field's default, and
every other keyword is an input, an id option or a ``return_*`` flag. The CLI's ``-o KEY=VALUE`` names, the metric
cards' Inputs lists, the training hook and the distributed classes are held to the same facts. The golden values
here are the params classes themselves (the one source); the synthetic module below shows each check can fail.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

import persona_metrics
from persona_metrics import METRICS
from persona_metrics.commands.score import cli_defaults, options_of, params_of
from persona_metrics.integrations.evaluate_support import ValidatedTextInputs
from persona_metrics.params import option_names
from persona_metrics.personalization import DistanceChoice, PersevalParams
from persona_metrics.summary_eval.params import JudgeOptions
from persona_metrics.vert.params import VertParams

ROOT = Path(__file__).resolve().parents[1]
#: What ``score`` takes per metric, from the metric registry: its params classes, their options, its own defaults.
PARAMS = {metric: params_of(metric) for metric in METRICS}
OPTIONS = {metric: options_of(metric) for metric in METRICS}
CLI_DEFAULTS = {metric: cli_defaults(metric) for metric in METRICS}


def module_class(name: str) -> type:
    return type(persona_metrics.load(name))


def option_problems(cls: type) -> list[str]:
    """What is wrong between a module class's params and its ``_compute`` keywords (nothing: ``[]``)."""
    keywords = {k: p for k, p in inspect.signature(cls._compute).parameters.items() if k != "self"}
    problems = [] if cls._params else ["no params class (_params)"]
    for params in cls._params:
        for name in params.names():
            if name in cls._params_not_taken:
                if name in keywords:
                    problems.append(f"{name} is listed as not taken but is a _compute keyword")
                continue
            if name not in keywords:
                problems.append(f"{params.__name__}.{name} is not a _compute keyword")
            elif keywords[name].default != params.default(name):
                problems.append(
                    f"{name}: _compute default {keywords[name].default!r} != {params.__name__} default "
                    f"{params.default(name)!r}"
                )
    known = {*cls._text_fields, *cls._id_options, *cls.param_options()}
    problems += [
        f"_compute keyword {k} is neither a params field, an input, an id option nor a return_* flag"
        for k in keywords
        if k not in known and not k.startswith("return_")
    ]
    return problems


@pytest.mark.parametrize("name", METRICS)
def test_module_keywords_are_its_params_fields_inputs_ids_and_return_flags(name: str) -> None:
    assert option_problems(module_class(name)) == []


def test_the_check_fails_on_a_field_without_keyword_a_keyword_without_field_and_a_drifted_default() -> None:
    class Drifted(ValidatedTextInputs):
        _params = (VertParams,)

        def _compute(self, predictions, references, encoder="wordllama", word_vectors="glove-6b-50d", alpha=4.0,
                     clip_negative_sim=False, meaning_sensitive=False, colour="blue",
                     return_per_item=False):  # fmt: skip
            """max_wmd missing, alpha's default drifted, colour is no option."""

    assert option_problems(Drifted) == [
        "alpha: _compute default 4.0 != VertParams default 5.0",
        "VertParams.max_wmd is not a _compute keyword",
        "_compute keyword colour is neither a params field, an input, an id option nor a return_* flag",
    ]


def test_module_checks_values_with_the_params_messages() -> None:
    """check_option_values (run by compute, the hook and the distributed classes) builds the params objects."""
    cases = [
        ("perseval", {"beta": -1}, lambda: PersevalParams(beta=-1)),
        ("degress", {"p_acc_alpha": 2}, lambda: PersevalParams(p_acc_alpha=2)),
        ("degress", {"distance": "rouge-l"}, lambda: DistanceChoice("rouge-l")),
        ("vert", {"max_wmd": 1e9}, lambda: VertParams(max_wmd=1e9)),
        ("vert", {"encoder": 3}, lambda: VertParams(encoder=3)),
    ]
    for name, options, build in cases:
        with pytest.raises((TypeError, ValueError)) as expected:
            build()
        with pytest.raises(type(expected.value), match=re.escape(str(expected.value))):
            persona_metrics.load(name).check_option_values(**options)


# --- the CLI ---------------------------------------------------------------------------------------------------
def test_cli_options_are_the_modules_options() -> None:
    """``score METRIC -o KEY=VALUE`` takes the module's params fields (ids and return flags are the CLI's own)."""
    for metric, names in OPTIONS.items():
        assert names == option_names(PARAMS[metric]), metric
        if metric == "summary_eval":  # the judge's options come through the judge flags (--base-url, -m ...)
            judge = set(option_names((JudgeOptions,)))
            assert set(names) | judge == set(module_class(metric).param_options()), metric
            assert not set(names) & judge
        elif metric not in ("perseval", "degress"):
            assert names == module_class(metric).param_options(), metric
    # a leaderboard reports PerSEval, DEGRESS and P-Acc together: it takes both modules' options
    both = set(module_class("perseval").param_options()) | set(module_class("degress").param_options())
    assert set(OPTIONS["perseval"]) == set(OPTIONS["degress"]) == both
    for metric in ("perseval", "degress"):
        assert PARAMS[metric] == module_class(metric)._params


def test_cli_help_lists_every_option_with_its_help(capsys) -> None:
    from persona_metrics.commands.score import DEFAULT_BOOTSTRAP, main

    with pytest.raises(SystemExit):
        main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    for metric in OPTIONS:
        for params in PARAMS[metric]:
            for line in params.help_lines(CLI_DEFAULTS.get(metric)):
                assert " ".join(line.split()) in out, line
    # the leaderboard's own bootstrap default, not the library's 0, on its option line
    assert f"bootstrap (default {DEFAULT_BOOTSTRAP}): document resamples" in out
    assert "bootstrap (default 0): document resamples" not in out


# --- the cards ---------------------------------------------------------------------------------------------------
#: ``- **name** (`type`, default `VALUE`)``: an option bullet of a card's Inputs section.
DEFAULT = re.compile(r"^- \*\*(?P<name>\w+)\*\* \([^)]*?default `(?P<value>[^`]*)`", flags=re.MULTILINE)
#: The cards whose Inputs bullets are held to the params (each bullet's default is a Python literal).
CARDS = ("perseval", "degress", "vert")


@pytest.mark.parametrize("name", CARDS)
def test_card_documents_each_option_with_the_params_default(name: str) -> None:
    cls = module_class(name)
    text = (ROOT / "metrics" / name / "README.md").read_text(encoding="utf-8")
    inputs = text.split("### Inputs", 1)[1].split("\n### ", 1)[0]
    documented = {m.group("name"): m.group("value") for m in DEFAULT.finditer(inputs)}
    for params in cls._params:
        for option in params.names():
            if option in cls._params_not_taken:
                assert option not in documented, f"{name}: {option} is not an option of this module"
                continue
            assert option in documented, f"{name}: the card does not document {option} with its default"
            assert ast.literal_eval(documented[option]) == params.default(option), (name, option)


# --- the Spaces ----------------------------------------------------------------------------------------------------
#: The Spaces whose controls are held to the params here.
SPACES = ("perseval", "degress", "vert")


@pytest.mark.parametrize("name", SPACES)
def test_space_controls_take_default_bounds_and_help_from_the_params(name: str) -> None:
    """Every slider and dropdown of the app is an option of the module: its value, bounds and help are the params'."""
    gr = pytest.importorskip("gradio", reason="the spaces extra (gradio) is not installed")
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"facts_app_{name}", ROOT / "spaces" / name / "app.py")
    app = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(app)
    cls = module_class(name)
    owner = {option: params for params in cls._params for option in params.names() if option in cls.param_options()}
    controls = [b for b in app.demo.blocks.values() if isinstance(b, gr.Slider | gr.Dropdown)]
    assert controls
    for control in controls:
        params = owner[control.label]  # a KeyError: a control that is not one of the module's options
        spec = params.spec(control.label)
        assert (control.value, control.info) == (params.default(control.label), spec.help), control.label
        if isinstance(control, gr.Slider):
            assert (control.minimum, control.maximum, control.step) == spec.display, control.label
