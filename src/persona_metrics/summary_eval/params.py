"""SummaryEval's options as validated frozen objects: the judge's (:class:`JudgeOptions`) and the scorer's.

Every entry point builds them, so a bad value fails the same way everywhere, on construction, naming the option:
the :class:`~persona_metrics.summary_eval.judge.Judge`, :class:`~persona_metrics.summary_eval.scorer.
SummaryEvalScorer`, the ``summary_eval`` evaluate module, ``persona-metrics cnndm`` (its judge flags' defaults and
help) and the Space (its rubric list and labels). ``docs/summary_eval.md`` §5 describes the judge's options.

>>> JudgeOptions(model="gpt-4o", api_key="sk-0123456789")
JudgeOptions(model='gpt-4o', base_url=None, api_key='***', timeout=60.0, max_retries=2, temperature=0.0, seed=0, \
max_tokens=200, response_format='auto', scoring='argmax', top_logprobs=5, concurrency=4, cache_dir=None, \
rubric='accuracy', prompt=None, context_tokens=None)
>>> JudgeOptions(rubric="humour")
Traceback (most recent call last):
...
ValueError: rubric must be one of ['accuracy', 'coherence', 'consistency', 'fluency', 'relevance'], got 'humour'
>>> JudgeOptions(max_tokens=10**400)
Traceback (most recent call last):
...
ValueError: max_tokens must be an int in [1, 131072], got an int of 401 digits
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from persona_metrics.params import Params, option
from persona_metrics.significance import seed_field
from persona_metrics.summary_eval.formulas import (
    COHERENCE_METHODS,
    COMPLETENESS_METHODS,
    DEFAULT_WEIGHTS,
    MAX_WEIGHT,
    check_weights,
)
from persona_metrics.summary_eval.redaction import REDACTED, redact, shown_base_url
from persona_metrics.summary_eval.rubrics import DEFAULT_RUBRIC, JudgePrompt, get_rubric
from persona_metrics.validation import check_path, describe

#: Environment variable read for the API key by default.
API_KEY_ENV = "OPENAI_API_KEY"
#: Allowed ``response_format`` values. ``"auto"`` (default) asks for ``"json_schema"``, then ``"json_object"`` with
#: the schema (llama.cpp's grammar), then ``"none"``, moving on only when the server rejects a format.
RESPONSE_FORMATS = ("auto", "json_schema", "json_object", "none")
#: Allowed ``scoring`` values: the integer answer, or G-Eval's probability-weighted score.
SCORINGS = ("argmax", "weighted")
# Upper bounds of the judge's numeric options: a value above one is a ValueError naming the option and its range
# (never a run that retries for ever or a thread pool that cannot start); docs/summary_eval.md section 5.
#: ``max_retries``: the SDK backs off up to 8 s between retries, so 100 is already minutes for one request.
MAX_RETRIES = 100
#: ``max_tokens``: 2**17, beyond any chat model's longest answer (the judge's is one short JSON object).
MAX_TOKENS = 131_072
#: ``top_logprobs``: OpenAI's ceiling, and vLLM's default one.
MAX_TOP_LOGPROBS = 20
#: ``concurrency``: one thread per call in flight.
MAX_CONCURRENCY = 1024
#: ``timeout``: one day, in seconds (a larger one is no limit, and a huge one overflows the socket layer).
MAX_TIMEOUT = 86_400.0
#: ``context_tokens``: the range of a context window, 256 to 10**7 tokens (beyond any model's).
MIN_CONTEXT_TOKENS, MAX_CONTEXT_TOKENS = 256, 10**7

P = TypeVar("P", bound=Params)


def _check_model(name: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"model must be a non-empty model name (option model=, CLI -m/--model), got {describe(value)}")
    return value


def _check_base_url(name: str, value: object) -> str:
    if not isinstance(value, str) or not value.startswith(("http://", "https://")):
        raise ValueError(f"base_url must be an http(s) URL, got {shown_base_url(value)}")
    return value


def _check_api_key(name: str, value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"api_key must be a string, got {type(value).__name__}")  # the value is never shown
    return value


def _check_path(name: str, value: object) -> Any:
    check_path(name, value)
    return value  # kept as given (str or os.PathLike)


def _check_rubric(name: str, value: object) -> str:
    return get_rubric(value).name


def _check_prompt(name: str, value: object) -> JudgePrompt:
    if not isinstance(value, JudgePrompt):
        raise TypeError(f"prompt must be a JudgePrompt, got {type(value).__name__}")
    return value


def _at_least(low: float, integer: bool = False) -> dict[str, Any]:
    return {"interval": (low, math.inf, True, True), "integer": integer}


def _between(low: float, high: float, integer: bool = False) -> dict[str, Any]:
    return {"interval": (low, high, True, True), "integer": integer}


@dataclass(frozen=True)
class JudgeOptions(Params):
    """The accuracy judge's options, validated on construction (defaults: ``docs/summary_eval.md`` §5).

    ``model`` None means no judge (the ``summary_eval`` module then computes completeness and coherence only); the
    :class:`~persona_metrics.summary_eval.judge.Judge` needs one. ``api_key`` is never shown: the ``repr`` prints
    ``***`` and errors name only its type; ``base_url`` is shown without its credentials.

    Raises:
        TypeError / ValueError: on construction, a bad value (named; a URL shown without its credentials).
    """

    model: str | None = option(
        None, "the judge's model name (e.g. gpt-4o); None: no judge", optional=True, check=_check_model
    )
    base_url: str | None = option(
        None,
        "an OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1; None for OpenAI",
        optional=True,
        check=_check_base_url,
    )
    api_key: str | None = option(
        None, f"the key; None: the {API_KEY_ENV} environment variable", optional=True, check=_check_api_key
    )
    timeout: float = option(60.0, "seconds per judge request", **_between(0.001, MAX_TIMEOUT))
    max_retries: int = option(
        2,
        "retries of a judge request that failed for a transient reason (HTTP 408/409/429/5xx, timeout, connection "
        "error), by the SDK, in the same response format",
        **_between(0, MAX_RETRIES, integer=True),
    )
    temperature: float = option(0.0, "sampling temperature (the original used 0.1)", **_at_least(0.0))
    seed: int | None = seed_field("the request seed (best effort); None to omit it", default=0, optional=True)
    max_tokens: int = option(
        200, "answer budget in tokens (the original's 200)", **_between(1, MAX_TOKENS, integer=True)
    )
    response_format: str = option(
        "auto",
        "structured output asked for (auto: json_schema, then json_object, then none)",
        choices=RESPONSE_FORMATS,
    )
    scoring: str = option(
        "argmax", "argmax (the integer answer) or weighted (G-Eval, from top_logprobs)", choices=SCORINGS
    )
    top_logprobs: int = option(
        5, "alternatives per token requested in weighted scoring", **_between(1, MAX_TOP_LOGPROBS, integer=True)
    )
    concurrency: int = option(
        4, "judge requests in flight (1 for a one-slot server)", **_between(1, MAX_CONCURRENCY, integer=True)
    )
    cache_dir: str | Path | None = option(
        None, "a folder for the on-disk cache of valid answers; None: no cache", optional=True, check=_check_path
    )
    rubric: str = option(
        DEFAULT_RUBRIC,
        "the judge's rubric, a name in the rubric registry (accuracy: the original's 0-3 scale)",
        check=_check_rubric,
    )
    prompt: JudgePrompt | None = option(
        None,
        "a JudgePrompt replacing the rubric's prompt (same scale); None: the rubric's",
        optional=True,
        check=_check_prompt,
    )
    context_tokens: int | None = option(
        None,
        "the judge model's context window in tokens: a prompt estimated larger (UTF-8 bytes / 3 + max_tokens) is "
        "warned about, never cut; None: n_ctx from the server's /props (llama.cpp), else 128000",
        optional=True,
        **_between(MIN_CONTEXT_TOKENS, MAX_CONTEXT_TOKENS, integer=True),
    )

    def __repr__(self) -> str:
        """The options with ``api_key`` as ``***`` and ``base_url`` without credentials."""
        shown = {name: getattr(self, name) for name in self.names()}
        if self.api_key is not None:
            shown["api_key"] = REDACTED
        text = ", ".join(f"{name}={value!r}" for name, value in shown.items())
        return redact(f"JudgeOptions({text})")


@dataclass(frozen=True)
class SummaryEvalParams(Params):
    """The scorer's options (overall weights, the sentence encoder, the coherence and completeness methods), validated.

    >>> SummaryEvalParams(weights={"accuracy": 1.0}).overall_weights
    {'accuracy': 1.0, 'completeness': 0.25, 'coherence': 0.15}
    >>> SummaryEvalParams(weights={"fluency": 1.0})
    Traceback (most recent call last):
    ...
    ValueError: weights has unknown keys ['fluency']; allowed: ['accuracy', 'coherence', 'completeness']
    """

    weights: dict[str, float] | None = option(
        None,
        f"weights of overall, {{accuracy, completeness, coherence}} (missing keys keep {DEFAULT_WEIGHTS}); each in "
        f"[0, {MAX_WEIGHT:g}], not all 0, not renormalised",
        optional=True,
        check=lambda name, value: check_weights(value),
    )
    encoder: str | Path | None = option(
        None,
        "a sentence-transformers model folder; None: the packaged all-MiniLM-L6-v2 (the original's)",
        optional=True,
        check=_check_path,
    )
    coherence_method: str = option(
        "original",
        "coherence: original (the original's definition) or robust (repeats penalised, sentence order against the "
        "source's, a sentence cut off charged, lists read item by item, one-sentence texts capped at 0.3)",
        choices=COHERENCE_METHODS,
    )
    completeness_method: str = option(
        "original",
        "completeness: original (the original's coverage of the source's topic sentences at cosine 0.4) or "
        "recall_precision (graded topic recall and the precision of the summary's sentences against the source, "
        "their F-measure with beta 1.5: missing and off-topic content both cost)",
        choices=COMPLETENESS_METHODS,
    )

    @property
    def overall_weights(self) -> dict[str, float]:
        """The weights of overall, every key present (the defaults where none was given)."""
        return dict(self.weights) if self.weights is not None else dict(DEFAULT_WEIGHTS)


def resolve(cls: type[P], params: P | None, options: Mapping[str, Any]) -> P:
    """``params``, or a ``cls`` built from keyword ``options`` (unknown names refused).

    Raises:
        TypeError: both given, ``params`` of another type, or an unknown option name.
    """
    if params is None:
        return cls.from_options(options)
    if options:
        raise TypeError(f"give either a {cls.__name__} or the options {sorted(options)}, not both")
    if not isinstance(params, cls):
        raise TypeError(f"expected a {cls.__name__}, got {type(params).__name__}")
    return params
