"""Reliability suite: hypothesis examples of every metric's inputs and options, valid and bad.

Every example calls a bundled evaluate module (``persona_metrics.load(name, keep_in_memory=True)``) or the library
function behind it and must end in one of two ways:

* **ok**, for a valid example: every number finite and inside the range the metric documents (for the options
  of the example), the same result again when the call is repeated (with the texts in another container: list,
  tuple, numpy array, pandas Series, ``datasets`` Column), and the same per-item values when the items are
  permuted (every metric here is order-invariant per item; system means are compared to 1e-9, neural ones to
  1e-6, since summation order and batch composition move the last bits);
* **documented error**, for an example with one injected fault (a wrong container or item type, None, an empty
  or whitespace text, a lone surrogate, unaligned lengths, a huge / negative / NaN / infinite number, an unknown
  option, a wrong option type or value): a ``ValueError`` or ``TypeError`` (an ``OSError`` for a path or model
  option) whose message names the field, and the index where there is one (``predictions[2]``).

Anything else is counted as a crash, NaN, out-of-range, nondeterminism or bad-input-accepted and fails the test.
``make test`` runs the reproducible ``fuzz`` profile (250 examples per metric); ``make fuzz`` sets
``PERSONA_METRICS_FUZZ=full`` (``fuzz-full``: 10,000 per metric, random) and CI's ``make fuzz-sample`` sets
``PERSONA_METRICS_FUZZ=sample`` (``fuzz-sample``: 1,000 per metric, random under ``PERSONA_METRICS_FUZZ_SEED``, a
different seed per commit); each prints the summary table per metric (also written to
``test-artifacts/fuzz-summary.txt``). ``PERSONA_METRICS_FUZZ_EXAMPLES=N`` overrides the number
of examples per test. The neural metrics use the packaged small models on tiny inputs, one torch thread.
"""

from __future__ import annotations

import math
import os
import time
import warnings
import zlib
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import datasets
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st

import persona_metrics
from persona_metrics.distances import DEFAULT_DISTANCE, DISTANCES
from persona_metrics.persona.content import bertscore_baseline
from persona_metrics.persona.quality import BertScoreConfig, score_quality
from persona_metrics.persona.style import score_style
from persona_metrics.personalization import score_personalization
from persona_metrics.summary_eval import score_summary_eval
from persona_metrics.vert import score_vert

MODE = os.environ.get("PERSONA_METRICS_FUZZ", "")
if MODE not in ("", "full", "sample"):
    raise ValueError(f"PERSONA_METRICS_FUZZ={MODE!r}: expected 'full', 'sample' or unset")
FULL = MODE == "full"
#: ``sample`` (CI): random examples under this seed, a different one per commit; replayed with the same seed.
SAMPLE_SEED = int(os.environ.get("PERSONA_METRICS_FUZZ_SEED", "0")) if MODE == "sample" else None
PROFILE_NAME = {"full": "fuzz-full", "sample": "fuzz-sample"}.get(MODE, "fuzz")
PROFILE = settings.get_profile(PROFILE_NAME)
if os.environ.get("PERSONA_METRICS_FUZZ_EXAMPLES"):
    PROFILE = settings(PROFILE, max_examples=int(os.environ["PERSONA_METRICS_FUZZ_EXAMPLES"]))
METRICS = ("perseval", "degress", "persona_style", "persona_quality", "vert", "summary_eval")
OUTCOMES = ("ok", "documented error", "crash", "NaN", "out-of-range", "nondeterminism", "bad accepted")
#: Outcome counts per (metric, entry point), and seconds spent; printed at the end of the module.
STATS: dict[tuple[str, str], Counter] = defaultdict(Counter)
SECONDS: Counter = Counter()
#: Options whose bad values may fail with an OSError (a path or a model that cannot be found or loaded).
PATH_OPTIONS = ("persona_dir", "word_vectors", "encoder", "baseline_path", "bertscore_model", "cache_dir")
LONE = "\udfff"
#: Share of valid examples (the others carry one fault); valid ones cost the model calls.
VALID_SHARE = 0.3

# --- texts -------------------------------------------------------------------------------------------------
ASCII_WORDS = (
    "Harbor", "Foods", "raised", "its", "outlook", "shares", "rose", "after", "the", "grocer", "opened", "two",
    "stores", "profit", "fell", "sharply", "analysts", "expect", "growth", "we", "believe", "consensus", "wow",
    "buy", "council", "budget", "parks", "transport", "approved", "on", "Tuesday",
)  # fmt: skip
OTHER_WORDS = (
    "naïve", "café", "Straße", "東京", "İstanbul", "ﬁnance", "Ωmega", "3.5%", "Q2", "don't", "co-op", "1,000",
    "١٢٣", "שלום", "𝔘𝔫𝔦", "ǅ", "e\u0301t\u00e9", "ＦＵＬＬ", "x²", "Ⅻ",
)  # fmt: skip
EDGE = (
    "", " ", "\t", "\n", "\r\n", "\u00a0", "\u200b", "\u200d", "\ufeff", "\u202e", "\u2028", "\x00", "\x1b[31m",
    "\u0301", "😀", "👍🏽", "👨‍👩‍👧", "\U0010ffff", "\ufffd", "—", "…", "!!!", "?", ".", ",", "<b>", "&amp;",
    "a" * 120, "\\", "'", '"', "\U000e0041",
)  # fmt: skip
edge = st.sampled_from(EDGE)
noise = st.one_of(edge, edge, edge, st.text(st.characters(exclude_categories=("Cs",)), max_size=4))


@st.composite
def worded(draw: Any, max_words: int = 6) -> str:
    """A text with at least one plain word, Unicode edge cases mixed in (never a lone surrogate)."""
    parts = [draw(st.sampled_from(ASCII_WORDS))]
    parts += draw(st.lists(st.sampled_from(ASCII_WORDS + OTHER_WORDS), max_size=max_words))
    for extra in draw(st.lists(noise, max_size=2)):
        parts.insert(draw(st.integers(0, len(parts))), extra)
    return draw(st.sampled_from((" ", " ", "  ", "\n", ". ", ", "))).join(parts)


maybe_empty = st.one_of(worded(), st.sampled_from(("", " ", "\t\n", "\u3000")))
valid_seed = st.one_of(st.integers(0, 2**40), st.just(np.int64(7)))
valid_bootstrap = st.sampled_from((0, 0, 2, 5, 17))
flag = st.booleans()
REAL_BAD = (math.nan, math.inf, -math.inf, 10**400, -(10**400), True, "3", None, [1.0], 1j)


def unit_share() -> st.SearchStrategy[float]:
    return st.one_of(st.sampled_from((0.0, 0.25, 0.5, 1.0)), st.floats(0.0, 1.0))


def exponent() -> st.SearchStrategy[Any]:
    """Valid α, β, γ of PerSEval: (0, 300], as floats, ints or numpy numbers."""
    return st.one_of(
        st.floats(0.05, 10.0),
        st.sampled_from((1e-300, 1e-3, 3, 8, 50.0, 299.5, 300)),
        st.integers(1, 300),
        st.floats(0.1, 5.0).map(np.float64),
    )


# --- cases -------------------------------------------------------------------------------------------------
@dataclass
class Case:
    """One example: the text fields (aligned lists), the options and the injected fault, if any."""

    metric: str
    fields: dict[str, Any]
    options: dict[str, Any]
    fault: str | None = None  # a description of the injected fault (None: a valid example)
    names: tuple[str, ...] = ()  # what the error message must contain (any of them)
    fault_option: str | None = None
    container: str = "list"
    repeat: bool = False
    permutation: tuple[int, ...] | None = None
    per_item: str | None = None  # the option that asks for per-item values
    extra: dict[str, Any] = field(default_factory=dict)


def _docs(draw: Any) -> tuple[dict[str, list], list[Any] | None]:
    """Items of one or two documents with 2–3 users each (and sometimes a single-user document)."""
    sizes = draw(st.lists(st.integers(2, 3), min_size=1, max_size=2))
    if draw(st.integers(0, 5)) == 0:
        sizes.append(1)  # excluded with a warning: still a valid call
    preds, refs, docs, ids = [], [], [], []
    for k, size in enumerate(sizes):
        doc = f"{draw(worded(8))} (document {k})"
        for _ in range(size):
            preds.append(draw(maybe_empty))
            refs.append(draw(worded()))
            docs.append(doc)
            ids.append(k if k % 2 else f"doc-{k}")
    order = draw(st.permutations(range(len(preds))))
    fields = {"predictions": [preds[i] for i in order], "references": [refs[i] for i in order]}
    fields["documents"] = [docs[i] for i in order]
    return fields, ([ids[i] for i in order] if draw(st.booleans()) else None)


def fuzzed_distances() -> tuple[str, ...]:
    """The distances examples draw from, read from the registry at each draw.

    Those of the core install (no extra), the default three times as often: a newly registered distance is fuzzed
    without editing this file. ``bertscore`` is drawn rarely, in :func:`_distance`; ``infolm`` is not drawn (its
    model is not packaged).
    """
    core = tuple(name for name, cls in DISTANCES.items() if cls.extra is None)
    return (DEFAULT_DISTANCE, DEFAULT_DISTANCE, *core)


def _distance(draw: Any) -> dict[str, Any]:
    name = draw(st.sampled_from(fuzzed_distances()))
    if name == DEFAULT_DISTANCE and draw(st.integers(0, 30)) == 0:
        name = "bertscore"  # the neural distance, rarely (each call embeds its new texts: ~50 ms)
    out: dict[str, Any] = {} if name == "rougeL" and draw(st.booleans()) else {"distance": name}
    if name == "bleu" and draw(st.booleans()):
        out["distance_options"] = {"max_order": draw(st.integers(1, 4))}
    return out


def _personalization(draw: Any, metric: str) -> Case:
    fields, ids = _docs(draw)
    options: dict[str, Any] = _distance(draw)
    if ids is not None:
        options["document_ids"] = ids
    names = ("alpha", "beta", "gamma") if metric == "perseval" else ("p_acc_alpha", "p_acc_beta")
    for name in names:
        if draw(st.booleans()):
            if metric == "perseval":
                options[name] = draw(exponent())
            else:
                share = draw(unit_share())
                options[name] = max(share, 1e-9) if name == "p_acc_alpha" else share
    for name, strategy in (("bootstrap", valid_bootstrap), ("seed", valid_seed)):
        if draw(st.booleans()):
            options[name] = draw(strategy)
    for name in ("return_per_summary", "return_per_document", "return_signature"):
        if draw(st.booleans()):
            options[name] = draw(flag)
    return Case(metric, fields, options, per_item="return_per_summary")


def _style_options(draw: Any, method_name: str) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if draw(st.booleans()):
        options[method_name] = draw(st.sampled_from(("jsd", "zscore")))
    if draw(st.integers(0, 3)) == 0:
        options["persona_samples"] = {"custom": draw(st.lists(worded(10), min_size=1, max_size=2))}
    if draw(st.integers(0, 5)) == 0:
        options["persona_dir"] = "<good>"  # a directory written by the fixture
    for name, strategy in (("bootstrap", valid_bootstrap), ("seed", valid_seed)):
        if draw(st.booleans()):
            options[name] = draw(strategy)
    return options


def _personas(draw: Any, n: int, options: dict[str, Any]) -> list[str]:
    known = ["journalist", "formal_analyst", "enthusiast"]
    known += ["custom"] if "persona_samples" in options else []
    known += ["extra_persona"] if options.get("persona_dir") == "<good>" else []
    return draw(st.lists(st.sampled_from(known), min_size=n, max_size=n))


def _persona_style(draw: Any) -> Case:
    options = _style_options(draw, "method")
    preds = draw(st.lists(worded(), min_size=1, max_size=3))
    fields = {"predictions": preds, "personas": _personas(draw, len(preds), options)}
    for name in ("return_features", "return_nearest", "return_signature"):
        if draw(st.booleans()):
            options[name] = draw(flag)
    return Case("persona_style", fields, options, per_item="return_nearest")


def _references(draw: Any, n: int) -> list[Any]:
    one = st.one_of(worded(), st.lists(worded(), min_size=1, max_size=2), st.tuples(worded()))
    return draw(st.lists(one, min_size=n, max_size=n))


def _persona_quality(draw: Any) -> Case:
    options = _style_options(draw, "style_method")
    preds = draw(st.lists(worded(), min_size=1, max_size=2))
    fields = {"predictions": preds, "references": _references(draw, len(preds))}
    fields["personas"] = _personas(draw, len(preds), options)
    if draw(st.booleans()):
        options["rescale"] = draw(flag)
    if draw(st.integers(0, 3)) == 0:
        options["bertscore_layers"] = draw(st.integers(1, 6))
    for name, keys in (("content_weights", ("rougeLsum", "bertscore")), ("overall_weights", ("content", "style"))):
        if draw(st.integers(0, 2)) == 0:
            share = draw(st.sampled_from((0.0, 0.3, 0.5, 1.0)))
            options[name] = {keys[0]: share, keys[1]: 1.0 - share}
    for name in ("return_per_item", "return_signature"):
        if draw(st.booleans()):
            options[name] = draw(flag)
    return Case("persona_quality", fields, options, per_item="return_per_item")


def _vert(draw: Any) -> Case:
    preds = draw(st.lists(maybe_empty, min_size=1, max_size=3))
    fields = {"predictions": preds, "references": _references(draw, len(preds))}
    options: dict[str, Any] = {}
    if draw(st.integers(0, 10)) == 0:
        options["encoder"] = "minilm"
    if draw(st.booleans()):
        options["alpha"] = draw(st.one_of(st.floats(0.01, 100.0), st.sampled_from((5, 1e-5, 1e6))))
    if draw(st.booleans()):
        options["max_wmd"] = draw(st.one_of(st.floats(0.01, 10.0), st.sampled_from((5, 1e-9, 0.5))))
    if draw(st.booleans()):
        options["clip_negative_sim"] = draw(flag)
    for name in ("return_per_item", "return_alignment", "return_signature"):
        if draw(st.booleans()):
            options[name] = draw(flag)
    return Case("vert", fields, options, per_item="return_per_item")


def _summary_eval(draw: Any) -> Case:
    preds = draw(st.lists(maybe_empty, min_size=1, max_size=2))
    sources = draw(st.lists(st.one_of(worded(12), maybe_empty), min_size=len(preds), max_size=len(preds)))
    options: dict[str, Any] = {}
    if draw(st.booleans()):
        keys = draw(st.lists(st.sampled_from(("accuracy", "completeness", "coherence")), max_size=3, unique=True))
        options["weights"] = {k: draw(st.one_of(st.floats(0.0, 5.0), st.sampled_from((0, 1, 1e6)))) for k in keys}
        if keys and not any(options["weights"].values()):
            options["weights"][keys[0]] = 1.0
    judge = {"timeout": st.floats(0.01, 100.0), "max_retries": st.integers(0, 5), "temperature": st.floats(0, 2),
             "seed": st.integers(0, 99), "max_tokens": st.integers(1, 500),
             "response_format": st.sampled_from(("none", "json_object", "json_schema")),
             "scoring": st.sampled_from(("argmax", "weighted")), "concurrency": st.integers(1, 8)}  # fmt: skip
    for name, strategy in judge.items():  # without a model they are unused, but checked
        if draw(st.integers(0, 7)) == 0:
            options[name] = draw(strategy)
    for name in ("return_per_item", "return_components", "return_signature"):
        if draw(st.booleans()):
            options[name] = draw(flag)
    return Case("summary_eval", {"predictions": preds, "sources": sources}, options, per_item="return_per_item")


BUILDERS: dict[str, Callable[[Any], Case]] = {
    "perseval": lambda draw: _personalization(draw, "perseval"),
    "degress": lambda draw: _personalization(draw, "degress"),
    "persona_style": _persona_style,
    "persona_quality": _persona_quality,
    "vert": _vert,
    "summary_eval": _summary_eval,
}
#: Which fields may hold empty texts, and which hold a reference or a list of references per item.
EMPTY_OK = {"perseval": ("predictions",), "degress": ("predictions",), "vert": ("predictions",)}
EMPTY_OK["summary_eval"] = ("predictions", "sources")
NESTED = {"persona_quality": ("references",), "vert": ("references",)}

# --- faults ------------------------------------------------------------------------------------------------
WEIGHTS_BAD = ("w", 5, {1: 0.5}, {"rougeLsum": math.nan, "bertscore": 1.0}, {"rougeLsum": 10**400, "bertscore": 0})
OPTION_FAULTS: dict[str, dict[str, tuple[Any, ...]]] = {
    "perseval": {
        **{name: (*REAL_BAD, 0, -1, 301, 1e308) for name in ("alpha", "beta", "gamma")},
    },
    "degress": {
        "p_acc_alpha": (*REAL_BAD, 0, -0.1, 1.5),
        "p_acc_beta": (*REAL_BAD, -0.1, 1.01),
    },
    "persona_style": {"method": ("cosine", None, 5, ["jsd"], "")},
    "persona_quality": {
        "style_method": ("cosine", None, 5),
        "bertscore_model": (5, "", " ", ["m"], "/no/such/model/dir"),
        "bertscore_layers": (0, -1, 2.5, "6", True, 10**400),
        "rescale": ("no", 1, None),
        "baseline_path": (5, "", "/no/such/baseline.tsv"),
        "bleurt_checkpoint": (5, "", ["x"]),
        "content_weights": (*WEIGHTS_BAD, {"rougeLsum": 1.0}, {"rougeLsum": 0.5, "bertscore": 0.6}),
        "overall_weights": ("w", {"content": 1.0}, {"content": -0.5, "style": 1.5}, {"content": math.inf, "style": 0}),
    },
    "vert": {
        "alpha": (*REAL_BAD, 0, -1, 1e-300),
        "max_wmd": (*REAL_BAD, 0, -5, 1e300),
        "clip_negative_sim": (1, "yes", None),
        "encoder": (5, "", " ", ["x"], 1.5, "/no/such/encoder/dir"),
        "word_vectors": (5, "", "/no/such/vectors.bin", ["x"], None),
    },
    "summary_eval": {
        "weights": (
            "w",
            {"x": 1},
            {"accuracy": -1},
            {"accuracy": math.nan},
            {1: 2},
            {"accuracy": 10**400},
            {"accuracy": 0, "completeness": 0, "coherence": 0},
            {"accuracy": 2e6},
        ),
        "model": ("", " ", 5, ["gpt"]),
        "base_url": ("ftp://x", 5),
        "api_key": (5, ["k"]),
        "timeout": (*REAL_BAD, 0, -1),
        "max_retries": (-1, 1.5, "2", None),
        "temperature": (*REAL_BAD, -0.5),
        "seed": (-1, 1.5, "1"),
        "max_tokens": (0, -1, 1.5),
        "response_format": ("json", None, 5),
        "scoring": ("mean", None),
        "concurrency": (0, -1, 1.5),
        "cache_dir": (5, ""),
        "prompt": ("x", 5),
        "rubric": ("humour", "", None, 5, "Accuracy"),
        "top_logprobs": (0, -1, 1.5, None),
    },
}
for _name in ("perseval", "degress"):
    OPTION_FAULTS[_name].update(
        {
            "bootstrap": (-1, 1, 1.5, "2", 10**400, 1_000_001, True, None),
            "seed": (-1, 1.5, "1", None, -(10**400)),
            "distance": ("rouge-l", 5, None, ["rougeL"], "", "Rougel"),
            "distance_options": ([1], "x", 5, {1: 2}, {"no_such": 1}),
        }
    )
for _name in ("persona_style", "persona_quality"):
    OPTION_FAULTS[_name].update(
        {
            "persona_samples": (
                "text",
                5,
                ["x"],
                {"x": []},
                {"x": ["!!!"]},
                {"x": [5]},
                {5: ["Fine words."]},
                {"x": "text"},
                {"x": [f"Bad {LONE} text"]},
                {"": ["Fine words."]},
                {"x": [""]},
            ),
            "persona_dir": (5, "", "/no/such/dir", "<empty>", "<bad>", b"bytes", ["x"]),
            "bootstrap": (-1, 1, 1.5, 10**400, None),
            "seed": (-1, 1.5, None),
        }
    )
FLAGS = {
    "perseval": ("return_per_summary", "return_per_document", "return_signature"),
    "degress": ("return_per_summary", "return_per_document", "return_signature"),
    "persona_style": ("return_features", "return_nearest", "return_signature"),
    "persona_quality": ("return_per_item", "return_signature"),
    "vert": ("return_per_item", "return_alignment", "return_signature"),
    "summary_eval": ("return_per_item", "return_components", "return_signature"),
}
#: Names an error may use for an option besides its own (the distance's own option names).
ALIASES = {
    "distance_options": ("max_order", "no_such"),
    "bertscore_model": ("option 'model'",),
    "bertscore_layers": ("num_layers",),
}


def _item_fault(draw: Any, case: Case, name: str) -> Case:
    values = list(case.fields[name])
    i = draw(st.integers(0, len(values) - 1))
    nested = name in NESTED.get(case.metric, ())
    text = values[i] if isinstance(values[i], str) else "x"
    bad: list[Any] = [None, 5, math.nan, b"bytes", {"k": "v"}, f"{text}{LONE}", f"{LONE}{text}"]
    bad += [["x"]] if not nested else [[], [5], ["ok words", LONE], ["ok", " "]]
    if name not in EMPTY_OK.get(case.metric, ()):
        bad += ["", "   ", "\n\t"]
    if name == "personas":
        bad += ["nobody", "Journalist"]
    values[i] = draw(st.sampled_from(bad))
    where = f"{name}[{i}]"
    return replace(case, fields={**case.fields, name: values}, fault=f"{where} = {values[i]!r:.40}", names=(where,))


def _field_fault(draw: Any, case: Case, name: str) -> Case:
    values = list(case.fields[name])
    bad = draw(st.sampled_from(("None", "str", "int", "dict", "set", "2d", "short", "long", "nested")))
    new: Any = {
        "None": None,
        "str": "one text",
        "int": 5,
        "dict": {"a": "b"},
        "set": set(map(str, values)),
        "2d": np.array([[str(v) for v in values]]),
        "short": values[:-1],
        "long": [*values, values[0]],
        "nested": [[["deep"]] for _ in values],
    }[bad]
    return replace(case, fields={**case.fields, name: new}, fault=f"{name} {bad}", names=(name,))


def _option_fault(draw: Any, case: Case, library: bool) -> Case:
    table = OPTION_FAULTS[case.metric]
    choices = [*table, *FLAGS[case.metric], "<unknown>", "<all empty>"]
    if case.metric in ("perseval", "degress"):
        choices.append("document_ids")
    name = draw(st.sampled_from(choices))
    options = dict(case.options)
    if name == "<unknown>":
        key = draw(st.sampled_from(("not_an_option", "Alpha", "betta", "predictions_")))
        options[key] = 1
        return replace(case, options=options, fault=f"unknown option {key}", names=(key,))
    if name == "<all empty>":
        fields = {k: [] for k in case.fields}
        return replace(case, fields=fields, fault="no items", names=(next(iter(fields)),))
    if name in FLAGS[case.metric]:
        value: Any = draw(st.sampled_from((1, "yes", None, 0.0)))
    elif name == "document_ids":
        n = len(case.fields["predictions"])
        value = draw(st.sampled_from(([0] * (n + 1), [None] * n, "ab", 5, [[1]] * n, {"a": 1})))
    else:
        value = draw(st.sampled_from(table[name]))
    if name == "distance_options" and draw(st.booleans()):
        options["distance"] = "bleu"
        value = draw(st.sampled_from(({"max_order": 0}, {"max_order": "x"}, {"max_order": -1})))
    options[name] = value
    names = (name, *ALIASES.get(name, ()))
    return replace(case, options=options, fault=f"{name} = {value!r:.40}", names=names, fault_option=name)


@st.composite
def cases(draw: Any, metric: str, library: bool) -> Case:
    case = BUILDERS[metric](draw)
    if library:  # the library functions take no return_* flags, the library's SummaryEval no judge options
        keep = ("weights",) if metric == "summary_eval" else None
        case.options = {
            k: v for k, v in case.options.items() if not k.startswith("return_") and (keep is None or k in keep)
        }
    dice = draw(st.randoms(use_true_random=True))  # plain proportions (hypothesis' draws lean to their ends)
    if dice.random() < VALID_SHARE:  # a valid example: also repeated, in another container, and permuted
        n = len(case.fields["predictions"])
        case.container = draw(st.sampled_from(("list", "tuple", "numpy", "series", "column")))
        case.repeat = dice.random() < 1 / 3
        if dice.random() < 1 / 3 and n > 1:
            case.permutation = tuple(draw(st.permutations(range(n))))
            if not library and case.per_item is not None:
                case.options[case.per_item] = True
        return case
    where = draw(st.sampled_from(("item", "field", "option", "option")))
    if where == "option" and library and metric == "summary_eval":
        where = "item"  # the library's judge is an object; its options are checked by Judge (test_summary_eval)
    if where == "option":
        return _option_fault(draw, case, library)
    name = draw(st.sampled_from(list(case.fields)))
    return _item_fault(draw, case, name) if where == "item" else _field_fault(draw, case, name)


# --- calling the metric ------------------------------------------------------------------------------------
def _contained(values: Any, container: str) -> Any:
    if not isinstance(values, list) or container == "list":
        return values
    flat = all(isinstance(v, str) for v in values)
    if container == "tuple":
        return tuple(values)
    if container == "series":
        return pd.Series(values, dtype=object)
    if container == "numpy":
        array = np.empty(len(values), dtype=object)
        array[:] = values
        return array
    return datasets.Dataset.from_dict({"c": values})["c"] if flat else values


def _paths(options: dict[str, Any], dirs: dict[str, Path]) -> dict[str, Any]:
    out = dict(options)
    if isinstance(out.get("persona_dir"), str) and out["persona_dir"].startswith("<"):
        out["persona_dir"] = dirs[out["persona_dir"].strip("<>")]
    return out


def _library_call(metric: str, fields: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The library function behind the module, as a plain dict."""
    if metric in ("perseval", "degress"):
        fields = dict(fields)
        ids = options.pop("document_ids", None)
        return score_personalization(*fields.values(), ids, **options).as_dict(per_summary=("perseval", "degress"))
    if metric == "persona_style":
        return score_style(*fields.values(), **options).as_dict(nearest=True)
    if metric == "persona_quality":
        keys = (("bertscore_model", None), ("bertscore_layers", None), ("rescale", True), ("baseline_path", None))
        config = BertScoreConfig(*(options.pop(k, default) for k, default in keys))
        return score_quality(*fields.values(), bertscore=config, **options).as_dict(per_item=True)
    if metric == "vert":
        return score_vert(*fields.values(), **options).as_dict(per_item=True)
    return score_summary_eval(*fields.values(), **options).as_dict(per_item=True)


def call(case: Case, modules: dict[str, Any], dirs: dict[str, Path], library: bool, **how: Any) -> dict[str, Any]:
    container = how.get("container", case.container)
    order = how.get("order")
    fields = {k: _contained(v if order is None else _reorder(v, order), container) for k, v in case.fields.items()}
    options = _paths(case.options, dirs)
    if order is not None and isinstance(options.get("document_ids"), list):
        options["document_ids"] = _reorder(options["document_ids"], order)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if library:
            return _library_call(case.metric, fields, dict(options))
        return modules[case.metric].compute(**fields, **options)


def _reorder(values: Any, order: tuple[int, ...]) -> Any:
    return [values[i] for i in order] if isinstance(values, list) and len(values) == len(order) else values


# --- checking the outcome ----------------------------------------------------------------------------------
class Problem(AssertionError):
    """A failed example: its category (one of OUTCOMES) and what was wrong."""

    def __init__(self, category: str, detail: str) -> None:
        super().__init__(f"{category}: {detail}")
        self.category = category


def numbers(value: Any, path: str = "") -> list[tuple[str, float]]:
    """Every float / int in a result (nested lists and dicts), with where it is."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return []
    if isinstance(value, int | float | np.number):
        return [(path, float(value))]
    if isinstance(value, dict):
        return [item for k, v in value.items() for item in numbers(v, f"{path}.{k}")]
    if isinstance(value, list | tuple):
        return [item for i, v in enumerate(value) for item in numbers(v, f"{path}[{i}]")]
    return []


def _personalization_bounds(o: dict[str, Any], metric: str) -> dict[str, tuple[float, float]]:
    """docs/perseval.md §5.6 and §6: the exact ranges for the example's α and P-Acc α, β."""
    bounded = DISTANCES[o.get("distance", DEFAULT_DISTANCE)].bounded
    top = 1.0 - 1.0 / (1.0 + 10.0 ** float(o.get("alpha", 3.0))) + 1e-7
    out = {
        "degress": (0.0, 1.0),
        "egises": (0.0, 1.0),
        "accuracy_distance": (0.0, 1.0) if bounded else (-1e-6, 2.0),
    }
    if metric == "perseval":
        out.update(perseval=(0.0, top), edp=(1e-7, top))
    elif bounded:
        p_alpha, p_beta = float(o.get("p_acc_alpha", 0.5)), float(o.get("p_acc_beta", 1.0))
        out["p_accuracy"] = (-p_alpha / (1.0 + math.exp(-p_beta)), 1.0 - p_alpha / 2)
    return out


def _bounds(case: Case, key: str) -> tuple[float, float] | None:
    """The documented range of one result key for this example's options (None: not a bounded score)."""
    o = case.options
    if case.metric in ("perseval", "degress"):
        return _personalization_bounds(o, case.metric).get(key)
    if case.metric == "vert":
        alpha, cap, clip = float(o.get("alpha", 5.0)), float(o.get("max_wmd", 5.0)), o.get("clip_negative_sim") is True
        vert = ((1 - cap / alpha) / 2 if clip else -cap / (2 * alpha), 1.0)
        return {"vert": vert, "sim": (0.0 if clip else -1.0, 1.0), "wmd": (0.0, cap)}.get(key)
    table: dict[str, dict[str, tuple[float, float]]] = {
        "persona_style": {"style_similarity": (0.0, 1.0), "scores": (0.0, 1.0)},
        "persona_quality": {
            "style_similarity": (0.0, 1.0),
            "rougeLsum": (0.0, 1.0),
            "bertscore_f1": (case.extra.get("bertscore_low", -1.0), 1.0),
            "content_quality": (-math.inf, 1.0),
            "overall_quality": (-math.inf, 1.0),
        },
        "summary_eval": {"completeness": (0.0, 1.0), "coherence": (0.0, 1.0)},
    }
    return table[case.metric].get(key)


#: Tolerances: float32 models round in the last bits; the formulas are float64.
TOLERANCE = {"persona_quality": 1e-6, "vert": 1e-6, "summary_eval": 1e-6}


def check_result(case: Case, out: dict[str, Any]) -> None:
    """Finite numbers inside the documented ranges (per item too), or a Problem."""
    for where, value in numbers(out):
        if not math.isfinite(value):
            raise Problem("NaN", f"{where} = {value}")
    tol = TOLERANCE.get(case.metric, 1e-12)
    for where, value in numbers(out):
        parts = [p for p in where.replace("[", ".").split(".") if p and not p.rstrip("]").isdigit()]
        key = parts[-1].removesuffix("_ci_low").removesuffix("_ci_high") if parts else ""
        bounds = _bounds(case, key)
        if bounds is not None and not bounds[0] - tol <= value <= bounds[1] + tol:
            raise Problem("out-of-range", f"{where} = {value!r} outside the documented {bounds}")


def _per_item(out: dict[str, Any]) -> dict[str, list]:
    """The per-item lists of a result, by name (whatever the metric calls them)."""
    found: dict[str, list] = {}
    for key in ("per_summary", "per_item"):
        found.update({f"{key}.{k}": v for k, v in (out.get(key) or {}).items() if isinstance(v, list)})
    for key in ("scores", "nearest_persona", "bands"):
        if isinstance(out.get(key), list):
            found[key] = out[key]
    return found


def _close(a: Any, b: Any, tol: float) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=tol, abs_tol=tol)
    return a == b


def check_permutation(case: Case, out: dict[str, Any], permuted: dict[str, Any]) -> None:
    """Per-item values of the permuted call, put back in order, equal the original's; system numbers too."""
    assert case.permutation is not None
    tol = 1e-6 if case.metric in TOLERANCE or case.options.get("distance") == "bertscore" else 1e-9
    for key, values in out.items():
        if isinstance(values, float) and "_ci_" not in key and not _close(values, permuted[key], tol):
            raise Problem("nondeterminism", f"{key}: {values!r} then {permuted[key]!r} with the items permuted")
    original, moved = _per_item(out), _per_item(permuted)
    for key, values in original.items():
        back = [None] * len(values)
        for new_position, old_position in enumerate(case.permutation):
            back[old_position] = moved[key][new_position]
        if not all(_close(a, b, tol) for a, b in zip(values, back, strict=True)):
            raise Problem("nondeterminism", f"{key}: {values!r} then {back!r} with the items permuted")


def run_example(case: Case, modules: dict[str, Any], dirs: dict[str, Path], library: bool) -> str:
    """Call the metric; return the outcome or raise a Problem."""
    try:
        out = call(case, modules, dirs, library)
    except Exception as err:  # classified below: only the documented errors pass
        return _classify_error(case, err)
    if case.fault is not None:
        raise Problem("bad accepted", f"{case.fault} was accepted: {str(out)[:200]}")
    check_result(case, out)
    if case.repeat:
        again = call(case, modules, dirs, library, container="list")
        if again != out:
            raise Problem("nondeterminism", f"a repeated call (in a list, was {case.container}) gave {again} != {out}")
    if case.permutation is not None:
        check_permutation(case, out, call(case, modules, dirs, library, order=case.permutation))
    return "ok"


def _classify_error(case: Case, err: Exception) -> str:
    if isinstance(err, Problem):
        raise err
    detail = f"{type(err).__name__}: {str(err)[:300]}"
    if case.fault is None:
        raise Problem("crash", f"a valid example failed: {detail}") from err
    allowed: tuple[type[Exception], ...] = (ValueError, TypeError)
    if case.fault_option in PATH_OPTIONS:
        allowed += (OSError,)
    if isinstance(err, UnicodeError) or not isinstance(err, allowed):
        raise Problem("crash", f"{case.fault}: {detail}") from err
    if not any(name in str(err) for name in case.names):
        raise Problem("crash", f"{case.fault}: the message does not name {list(case.names)}: {detail}") from err
    return "documented error"


# --- fixtures and the tests ----------------------------------------------------------------------------------
class Loaded(dict):
    """The loaded modules (a short repr: hypothesis prints the arguments of a failing example)."""

    def __repr__(self) -> str:
        return f"<loaded modules {sorted(self)}>"


@pytest.fixture(scope="module")
def modules() -> dict[str, Any]:
    return Loaded({name: persona_metrics.load(name, keep_in_memory=True) for name in METRICS})


@pytest.fixture(scope="module")
def dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("persona_dirs")
    good, empty, bad = root / "good", root / "empty", root / "bad"
    for path in (good, empty, bad):
        path.mkdir()
    (good / "extra_persona.txt").write_text(
        "We maintain our rating, as we believe estimates remain conservative.\n---\nShares rose 5% on Tuesday.\n",
        encoding="utf-8",
    )
    (bad / "broken.txt").write_text("Fine words here.\n---\n!!! ???\n", encoding="utf-8")
    return {"good": good, "empty": empty, "bad": bad}


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread() -> Any:
    """One torch thread: on two shared cores, two threads are ~30x slower for these tiny batches."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def quality_baseline() -> float:
    """The shipped MiniLM baseline F at layer 6: the lower end of the rescaled BERTScore F1 is (−1 − b)/(1 − b)."""
    return bertscore_baseline(BertScoreConfig(), 6)


@pytest.fixture(scope="module", autouse=True)
def summary(request: pytest.FixtureRequest) -> Any:
    yield
    lines = summary_table()
    out = Path(__file__).resolve().parents[1] / "test-artifacts" / "fuzz-summary.txt"
    out.parent.mkdir(exist_ok=True)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is not None and capture is not None:
        with capture.global_and_fixture_disabled():  # shown with or without -s, pass or fail
            reporter.write_line("")
            for line in lines:
                reporter.write_line(line)


def summary_table() -> list[str]:
    profile = PROFILE_NAME + " profile" + (f", seed {SAMPLE_SEED}" if SAMPLE_SEED is not None else "")
    head = f"{'metric':<16}{'entry':<9}{'examples':>9}" + "".join(f"{o:>17}" for o in OUTCOMES) + f"{'seconds':>9}"
    lines = [f"reliability suite ({profile}, {PROFILE.max_examples} examples per test)", head]
    for (metric, entry), counts in sorted(STATS.items()):
        total = sum(counts.values())
        cells = "".join(f"{counts[o]:>17}" for o in OUTCOMES)
        lines.append(f"{metric:<16}{entry:<9}{total:>9}{cells}{SECONDS[(metric, entry)]:>9.1f}")
    return lines


def _seed_key(metric: str, library: bool) -> str:
    """The fixed profile's key (unchanged since it was written), the sample's with its seed."""
    return f"{metric}-{library}" if SAMPLE_SEED is None else f"{metric}-{library}-{SAMPLE_SEED}"


def _fuzz(metric: str, library: bool) -> Callable[..., None]:
    @PROFILE
    @seed(None if FULL else zlib.crc32(_seed_key(metric, library).encode()))  # module and library: other examples
    @given(case=cases(metric, library))
    def run(case: Case, modules: dict[str, Any], dirs: dict[str, Path], quality_baseline: float) -> None:
        if metric == "persona_quality":
            rescaled = case.options.get("rescale", True) is not False
            case.extra["bertscore_low"] = (-1 - quality_baseline) / (1 - quality_baseline) if rescaled else -1.0
            if case.options.get("bertscore_layers") not in (None, 6):
                case.extra["bertscore_low"] = -math.inf  # another layer's baseline (the shipped file has them all)
        entry = "library" if library else "module"
        start = time.perf_counter()
        try:
            outcome = run_example(case, modules, dirs, library)
        except Problem as problem:
            STATS[(metric, entry)][problem.category] += 1
            raise
        finally:
            SECONDS[(metric, entry)] += time.perf_counter() - start
        STATS[(metric, entry)][outcome] += 1

    return run


for _metric in METRICS:
    globals()[f"test_fuzz_{_metric}_module"] = _fuzz(_metric, library=False)
    globals()[f"test_fuzz_{_metric}_library"] = _fuzz(_metric, library=True)
