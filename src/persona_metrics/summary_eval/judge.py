r"""The accuracy judge: one chat-model call per (summary, source), parsed defensively (``docs/summary_eval.md`` §5).

The ``openai`` client talks to OpenAI or any OpenAI-compatible server (``base_url``). Transient failures (429,
5xx, connection errors) are retried by the SDK itself (``max_retries``); this module adds no retry loop. Answers
are checked against the contract ``{"score": 0|1|2|3, "rationale": str}``; an answer that breaks it is counted
as invalid and scored like the original (first integer in 0–3, else 0).

>>> parse_answer('```json\n{"score": 2, "rationale": "minor slip"}\n```')
ParsedAnswer(score=2, rationale='minor slip', status='json')
>>> parse_answer('I would say 3 out of 3.').status
'first-integer'
>>> parse_answer('{"score": 3.5, "rationale": "x"}').status
'invalid'
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import re
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from persona_metrics.progress import progress_bar
from persona_metrics.signature import Signature
from persona_metrics.validation import check_choice, check_number, check_path, describe, warn

logger = logging.getLogger(__name__)

#: Environment variable read for the API key by default.
API_KEY_ENV = "OPENAI_API_KEY"
#: Allowed ``response_format`` values.
RESPONSE_FORMATS = ("none", "json_object", "json_schema")
#: Allowed ``scoring`` values: the integer answer, or G-Eval's probability-weighted score.
SCORINGS = ("argmax", "weighted")
#: Rationale of an empty summary or source (no call is made).
EMPTY_RATIONALE = "Empty summary or source text provided"
#: JSON schema of the answer (for ``response_format``).
ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"score": {"type": "integer", "enum": [0, 1, 2, 3]}, "rationale": {"type": "string"}},
    "required": ["score", "rationale"],
}


@dataclass(frozen=True)
class JudgePrompt:
    """A versioned prompt: the system message and a user template with ``{source}`` and ``{summary}``.

    Raises:
        ValueError: an empty version, or a template without both placeholders.
    """

    version: str
    system: str
    user: str

    def __post_init__(self) -> None:
        if not isinstance(self.version, str) or not self.version.strip():
            raise ValueError("prompt.version must be a non-empty string")
        for name in ("{source}", "{summary}"):
            if name not in self.user:
                raise ValueError(f"prompt.user must contain the placeholder {name}")

    def messages(self, summary: str, source: str) -> list[dict[str, str]]:
        """The chat messages for one pair."""
        user = self.user.replace("{source}", source).replace("{summary}", summary)
        return [{"role": "system", "content": self.system}, {"role": "user", "content": user}]


#: The default prompt: the original's rubric and output contract, in this project's wording.
DEFAULT_PROMPT = JudgePrompt(
    version="summary-eval-accuracy-v1",
    system=("You judge summaries. Rate how accurate a summary is, using nothing but the source text it summarises."),
    user=(
        "Read the source and the summary below. Judging only by what the source says, rate the accuracy of the "
        "summary on this scale: 0 = Poor, 1 = Fair, 2 = Good, 3 = Excellent. Give a short reason.\n"
        'Answer with one JSON object and nothing else: {"score": <0, 1, 2 or 3>, "rationale": "<reason>"}\n\n'
        "<source>\n{source}\n</source>\n\n<summary>\n{summary}\n</summary>"
    ),
)


class JudgeError(RuntimeError):
    """The judge could not be called (bad key, unreachable server, quota, timeout); the message names the option."""


@dataclass(frozen=True)
class ParsedAnswer:
    """A judge answer read against the contract.

    Attributes:
        score: the integer score 0–3 used (0 when nothing usable was found).
        rationale: the model's rationale, or a note on what went wrong.
        status: ``"json"`` (valid contract), ``"first-integer"`` (no valid JSON; the first integer, as the
            original), ``"invalid"`` (nothing usable: scored 0).
    """

    score: int
    rationale: str
    status: str


_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)


def _json_object(text: str) -> dict[str, Any] | None:
    """The answer's JSON object: the whole text, its outermost ``{…}``, then without trailing commas."""
    candidates = [text]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        inner = text[start : end + 1]
        candidates += [inner, re.sub(r",\s*([}\]])", r"\1", inner)]
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def _valid_score(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and 0 <= value <= 3:
        return value
    if isinstance(value, float) and value.is_integer() and 0 <= value <= 3:
        return int(value)
    return None


def parse_answer(content: str | None) -> ParsedAnswer:
    """Read a judge answer: strip fences and ``<think>`` blocks, find the JSON object, validate the score."""
    text = _THINK.sub("", content or "").strip()
    text = _FENCE.sub("", text).strip()
    obj = _json_object(text)
    if obj is not None and "score" in obj:
        score = _valid_score(obj["score"])
        rationale = obj.get("rationale")
        if score is not None:
            return ParsedAnswer(score, str(rationale) if rationale is not None else "No rationale provided", "json")
        return ParsedAnswer(0, f"score {obj['score']!r} is not one of 0, 1, 2, 3: {text[:100]}", "invalid")
    match = re.search(r"\d+", text)
    if match and int(match.group()) <= 3:
        return ParsedAnswer(int(match.group()), f"Failed to parse JSON response: {text[:100]}", "first-integer")
    return ParsedAnswer(0, f"No usable score in the response: {text[:100]}", "invalid")


def weighted_score(logprobs: Sequence[dict[str, Any]] | None) -> float | None:
    """G-Eval's ``Σ p(s)·s / Σ p(s)`` over the digits 0–3 among the score token's ``top_logprobs``.

    Args:
        logprobs: per generated token, ``{"token": str, "top_logprobs": [{"token", "logprob"}, ...]}``.

    Returns:
        The weighted score in [0, 3], or None when no score token (or no digit with p ≥ 1 %) was found.
    """
    if not logprobs:
        return None
    text = ""
    for item in logprobs:
        token = str(item.get("token", ""))
        if token.strip() in {"0", "1", "2", "3"} and re.search(r'"score"\s*:\s*$', text):
            pairs = []
            for top in item.get("top_logprobs") or []:
                digit, p = str(top.get("token", "")).strip(), math.exp(float(top.get("logprob", -math.inf)))
                if digit in {"0", "1", "2", "3"} and p >= 0.01:
                    pairs.append((int(digit), p))
            total = sum(p for _, p in pairs)
            return sum(s * p for s, p in pairs) / total if total > 0 else None
        text += token
    return None


@dataclass(frozen=True)
class Verdict:
    """One judged pair.

    Attributes:
        accuracy: the score in [0, 1] (``score / 3``; the weighted score / 3 in ``"weighted"`` mode).
        score: the integer score 0–3 that was parsed.
        rationale: the model's rationale (or what went wrong).
        status: ``"json"``, ``"first-integer"``, ``"invalid"`` or ``"empty-input"`` (no call).
        raw: the raw answer text ("" without a call).
        cached: the answer came from the on-disk cache.
        fingerprint: the server's ``system_fingerprint`` (None when it sets none).
    """

    accuracy: float
    score: int
    rationale: str
    status: str
    raw: str = ""
    cached: bool = False
    fingerprint: str | None = None

    @property
    def valid(self) -> bool:
        """The answer followed the contract (an empty input counts as valid: nothing was asked)."""
        return self.status in {"json", "empty-input"}


class JudgeCache:
    """An on-disk exact-match cache of judge answers: one JSON file per request key (errors never stored).

    Entries are checked on read (the stored key must match, the content must be a string); a bad entry is
    ignored with a warning and the call is made again.
    """

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory).expanduser()
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(request: dict[str, Any]) -> str:
        """sha256 of the canonical JSON of the request."""
        return hashlib.sha256(json.dumps(request, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored answer of ``key``, or None."""
        path = self.directory / f"{key}.json"
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            self.misses += 1
            return None
        except (OSError, ValueError) as err:
            warn(f"ignoring unreadable judge cache entry {path}: {err}")
            self.misses += 1
            return None
        ok = isinstance(entry, dict) and entry.get("key") == key and isinstance(entry.get("content"), str)
        if not ok or not isinstance(entry.get("logprobs"), list | type(None)):
            warn(f"ignoring invalid judge cache entry {path}")
            self.misses += 1
            return None
        self.hits += 1
        return entry

    def put(self, key: str, entry: dict[str, Any]) -> None:
        """Store an answer atomically (write to a temporary file, then rename)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump({**entry, "key": key}, handle, ensure_ascii=False)
        os.replace(tmp, self.directory / f"{key}.json")


def _check_choice(name: str, value: object, allowed: Sequence[str]) -> str:
    return check_choice(name, value, allowed)


def _check_number(name: str, value: Any, minimum: float, integer: bool = False) -> Any:
    """``value`` if it is a finite number (an int with ``integer``) >= ``minimum``; never an ``OverflowError``."""
    check_number(name, value, minimum, integer=integer)
    return value


def check_judge_options(
    model: object = None,
    *,
    base_url: object = None,
    api_key: object = None,
    timeout: object = 60.0,
    max_retries: object = 2,
    temperature: object = 0.0,
    seed: object = 0,
    max_tokens: object = 200,
    response_format: object = "none",
    scoring: object = "argmax",
    top_logprobs: object = 5,
    concurrency: object = 4,
    cache_dir: object = None,
    prompt: object = None,
) -> None:
    """Check the judge's options without building a client: what :class:`Judge` and the ``summary_eval`` module run.

    ``model`` None means no judge (the other options are still checked: a bad value is bad either way).

    Raises:
        TypeError / ValueError: a bad value, naming the option.
    """
    if model is not None and (not isinstance(model, str) or not model.strip()):
        raise ValueError(f"model must be a non-empty model name (option model=, CLI -m/--model), got {describe(model)}")
    if base_url is not None and (not isinstance(base_url, str) or not base_url.startswith(("http://", "https://"))):
        raise ValueError(f"base_url must be an http(s) URL, got {describe(base_url)}")
    if api_key is not None and not isinstance(api_key, str):
        raise TypeError(f"api_key must be a string, got {type(api_key).__name__}")
    if seed is not None:
        _check_number("seed", seed, 0, integer=True)
    if prompt is not None and not isinstance(prompt, JudgePrompt):
        raise TypeError(f"prompt must be a JudgePrompt, got {type(prompt).__name__}")
    if cache_dir is not None:
        check_path("cache_dir", cache_dir)
    _check_number("timeout", timeout, 0.001)
    _check_number("max_retries", max_retries, 0, integer=True)
    _check_number("temperature", temperature, 0)
    _check_number("max_tokens", max_tokens, 1, integer=True)
    _check_choice("response_format", response_format, RESPONSE_FORMATS)
    _check_choice("scoring", scoring, SCORINGS)
    _check_number("top_logprobs", top_logprobs, 1, integer=True)
    _check_number("concurrency", concurrency, 1, integer=True)


@dataclass
class JudgeOptions:
    """Request options of a :class:`Judge` (validated by it)."""

    temperature: float = 0.0
    seed: int | None = 0
    max_tokens: int = 200
    response_format: str = "none"
    scoring: str = "argmax"
    top_logprobs: int = 5
    concurrency: int = 4
    extra: dict[str, Any] = field(default_factory=dict)


class Judge:
    """An LLM judge of summary accuracy behind the ``openai`` client.

    Args:
        model: the model name (required), e.g. ``"gpt-4o"`` or a local server's alias.
        base_url: an OpenAI-compatible endpoint (``http://127.0.0.1:8080/v1``); None for OpenAI.
        api_key: the key; default the ``OPENAI_API_KEY`` environment variable (a local server without auth
            accepts any string).
        timeout: seconds per request.
        max_retries: retries of the SDK on 408/409/429/5xx and connection errors (0 in tests).
        temperature: sampling temperature (0 by default; the original used 0.1).
        seed: the request seed (best effort on the server side); None to omit it.
        max_tokens: answer budget (the original's 200).
        response_format: ``"none"`` (default, portable), ``"json_object"`` or ``"json_schema"``; a server that
            rejects it gets one retry without it, and the judge keeps to ``"none"`` from then on.
        scoring: ``"argmax"`` (the integer answer) or ``"weighted"`` (G-Eval: probability-weighted digits from
            ``top_logprobs``; falls back to the integer when the server returns no usable logprobs).
        top_logprobs: alternatives per token requested in ``"weighted"`` mode.
        concurrency: calls in flight at once.
        cache_dir: a directory for the on-disk answer cache; None (default) for no cache.
        prompt: a :class:`JudgePrompt` (default :data:`DEFAULT_PROMPT`).
        client: an ``openai.OpenAI`` client to use as is (``base_url``/``api_key``/``timeout``/``max_retries``
            are then ignored).
        http_client: an ``httpx2.Client`` handed to the SDK (tests use a mock transport).

    Raises:
        TypeError, ValueError: a bad option (named); ValueError also when no API key is found.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 2,
        temperature: float = 0.0,
        seed: int | None = 0,
        max_tokens: int = 200,
        response_format: str = "none",
        scoring: str = "argmax",
        top_logprobs: int = 5,
        concurrency: int = 4,
        cache_dir: str | Path | None = None,
        prompt: JudgePrompt | None = None,
        client: Any = None,
        http_client: Any = None,
    ) -> None:
        if model is None:
            raise ValueError("model must be a non-empty model name (option model=, CLI -m/--model)")
        check_judge_options(
            model,
            base_url=base_url,
            api_key=api_key,
            timeout=timeout,
            max_retries=max_retries,
            temperature=temperature,
            seed=seed,
            max_tokens=max_tokens,
            response_format=response_format,
            scoring=scoring,
            top_logprobs=top_logprobs,
            concurrency=concurrency,
            cache_dir=cache_dir,
            prompt=prompt,
        )
        self.model = model
        self.base_url = base_url
        self.timeout = float(_check_number("timeout", timeout, 0.001))
        self.max_retries = _check_number("max_retries", max_retries, 0, integer=True)
        self.options = JudgeOptions(
            temperature=float(_check_number("temperature", temperature, 0)),
            seed=seed,
            max_tokens=_check_number("max_tokens", max_tokens, 1, integer=True),
            response_format=_check_choice("response_format", response_format, RESPONSE_FORMATS),
            scoring=_check_choice("scoring", scoring, SCORINGS),
            top_logprobs=_check_number("top_logprobs", top_logprobs, 1, integer=True),
            concurrency=_check_number("concurrency", concurrency, 1, integer=True),
        )
        self.prompt = prompt or DEFAULT_PROMPT
        self.cache = JudgeCache(cache_dir) if cache_dir is not None else None
        self.fingerprints: set[str] = set()
        self.served_models: set[str] = set()
        self._client = client if client is not None else self._make_client(api_key, http_client)

    def _make_client(self, api_key: str | None, http_client: Any) -> Any:
        key = api_key if api_key is not None else os.environ.get(API_KEY_ENV)
        if not key:
            raise ValueError(
                f"no API key for the judge: set {API_KEY_ENV} or pass api_key= (CLI --api-key-env); "
                "a local server without authentication accepts any string, e.g. api_key='none'"
            )
        from openai import OpenAI

        kwargs: dict[str, Any] = {"api_key": key, "timeout": self.timeout, "max_retries": self.max_retries}
        if self.base_url is not None:
            kwargs["base_url"] = self.base_url
        if http_client is not None:
            kwargs["http_client"] = http_client
        return OpenAI(**kwargs)

    @property
    def host(self) -> str:
        """The judge's host (``api.openai.com`` without ``base_url``)."""
        url = self.base_url or str(getattr(self._client, "base_url", "https://api.openai.com/v1"))
        return urlparse(url).netloc or url

    def _request(self, summary: str, source: str, response_format: str) -> dict[str, Any]:
        o = self.options
        request: dict[str, Any] = {
            "model": self.model,
            "messages": self.prompt.messages(summary, source),
            "temperature": o.temperature,
            "max_tokens": o.max_tokens,
        }
        if o.seed is not None:
            request["seed"] = o.seed
        if response_format == "json_object":
            request["response_format"] = {"type": "json_object", "schema": ANSWER_SCHEMA}
        elif response_format == "json_schema":
            request["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "accuracy", "schema": ANSWER_SCHEMA, "strict": True},
            }
        if o.scoring == "weighted":
            request["logprobs"] = True
            request["top_logprobs"] = o.top_logprobs
        return request

    def _cache_key(self, request: dict[str, Any]) -> str:
        return JudgeCache.key({"base_url": self.base_url or "openai", "prompt": self.prompt.version, **request})

    def _call(self, request: dict[str, Any]) -> dict[str, Any]:
        import openai

        try:
            response = self._client.chat.completions.create(**request)
        except openai.AuthenticationError as err:
            raise JudgeError(
                f"the judge at {self.host} rejected the API key (HTTP 401): check api_key= / {API_KEY_ENV}"
            ) from err
        except openai.PermissionDeniedError as err:
            raise JudgeError(
                f"the judge at {self.host} denied access to model {self.model!r} (HTTP 403): check api_key= / model="
            ) from err
        except openai.RateLimitError as err:
            code = getattr(err, "code", None) or ""
            what = (
                "quota exhausted (insufficient_quota)" if "quota" in str(code) + str(err) else "rate limited (HTTP 429)"
            )
            raise JudgeError(
                f"the judge at {self.host} is {what} after {self.max_retries} retries: "
                "check the account's billing, or raise max_retries= / lower concurrency="
            ) from err
        except openai.APITimeoutError as err:
            raise JudgeError(f"the judge at {self.host} did not answer within timeout={self.timeout} s") from err
        except openai.APIConnectionError as err:
            raise JudgeError(
                f"cannot reach the judge at {self.base_url or self.host}: check base_url= ({err})"
            ) from err
        return self._answer(response)

    def _answer(self, response: Any) -> dict[str, Any]:
        choice = response.choices[0]
        logprobs = None
        if getattr(choice, "logprobs", None) is not None and choice.logprobs.content:
            logprobs = [
                {
                    "token": t.token,
                    "top_logprobs": [{"token": a.token, "logprob": a.logprob} for a in (t.top_logprobs or [])],
                }
                for t in choice.logprobs.content
            ]
        return {
            "content": choice.message.content or "",
            "logprobs": logprobs,
            "system_fingerprint": getattr(response, "system_fingerprint", None),
            "model": getattr(response, "model", None),
        }

    def _call_with_fallback(self, summary: str, source: str) -> tuple[dict[str, Any], str]:
        import openai

        fmt = self.options.response_format
        try:
            return self._call(self._request(summary, source, fmt)), fmt
        except (openai.BadRequestError, openai.InternalServerError, openai.UnprocessableEntityError) as err:
            if fmt == "none":
                raise JudgeError(f"the judge at {self.host} failed on model {self.model!r}: {err}") from err
            warn(
                f"the judge at {self.host} rejected response_format={fmt!r} ({type(err).__name__}); "
                "retrying without it (response_format='none' from now on)"
            )
            self.options.response_format = "none"
        try:
            return self._call(self._request(summary, source, "none")), "none"
        except openai.APIStatusError as err:
            raise JudgeError(f"the judge at {self.host} failed on model {self.model!r}: {err}") from err

    def judge(self, summary: str, source: str) -> Verdict:
        """Judge one pair; an empty summary or source scores 0 without a call (as the original).

        Raises:
            JudgeError: the call failed for good (the message names the option to check).
        """
        if not summary.strip() or not source.strip():
            return Verdict(0.0, 0, EMPTY_RATIONALE, "empty-input")
        key = None
        entry = None
        if self.cache is not None:
            key = self._cache_key(self._request(summary, source, self.options.response_format))
            entry = self.cache.get(key)
        cached = entry is not None
        if entry is None:
            entry, fmt = self._call_with_fallback(summary, source)
            if self.cache is not None:
                self.cache.put(self._cache_key(self._request(summary, source, fmt)), entry)
        return self._verdict(entry, cached)

    def _verdict(self, entry: dict[str, Any], cached: bool) -> Verdict:
        if entry.get("system_fingerprint"):
            self.fingerprints.add(str(entry["system_fingerprint"]))
        if entry.get("model"):
            self.served_models.add(str(entry["model"]))
        parsed = parse_answer(entry["content"])
        accuracy = min(1.0, max(0.0, parsed.score / 3.0))
        if self.options.scoring == "weighted" and parsed.status == "json":
            weighted = weighted_score(entry.get("logprobs"))
            if weighted is not None:
                accuracy = min(1.0, max(0.0, weighted / 3.0))
        return Verdict(
            accuracy, parsed.score, parsed.rationale, parsed.status, entry["content"], cached,
            entry.get("system_fingerprint"),
        )  # fmt: skip

    def judge_many(self, summaries: Sequence[str], sources: Sequence[str]) -> list[Verdict]:
        """Judge aligned pairs, each unique pair once, at most ``concurrency`` calls at a time."""
        pairs = list(zip(summaries, sources, strict=True))
        unique = list(dict.fromkeys(pairs))
        desc = "summary_eval: judging"
        if self.options.concurrency == 1 or len(unique) == 1:
            verdicts = [self.judge(s, d) for s, d in progress_bar(unique, desc=desc, unit="pair")]
        else:
            with ThreadPoolExecutor(max_workers=self.options.concurrency) as pool:
                answers = pool.map(lambda pair: self.judge(*pair), unique)
                verdicts = list(progress_bar(answers, desc=desc, total=len(unique), unit="pair"))
        found = dict(zip(unique, verdicts, strict=True))
        return [found[pair] for pair in pairs]

    def signature(self) -> Signature:
        """``judge:<model>@<host>|prompt:<version>|temp:…|seed:…|format:…|scoring:…|fp:…``."""
        o = self.options
        return Signature.of(
            judge=f"{self.model}@{self.host}",
            prompt=self.prompt.version,
            temp=o.temperature,
            seed="none" if o.seed is None else o.seed,
            format=o.response_format,
            scoring=o.scoring if o.scoring == "argmax" else f"weighted-top{o.top_logprobs}",
            fp=",".join(sorted(self.fingerprints)) or "none",
        )
