r"""The LLM judge: one chat-model call per (summary, source), read strictly (``docs/summary_eval.md`` §5).

The ``openai`` client talks to OpenAI or any OpenAI-compatible server (``base_url``). Transient failures (429,
5xx, connection errors) are retried by the SDK itself (``max_retries``), in the same response format; this module
adds no retry loop, and a transient failure never counts as the server refusing a format. The judge
asks for structured output (a JSON schema; llama.cpp servers turn it into a grammar) and accepts only an answer
that is exactly its rubric's contract (:mod:`~persona_metrics.summary_eval.rubrics`; ``accuracy``, the default:
``{"score": 0|1|2|3, "rationale": str}``). Anything else is *invalid*: it has no score, is left out of the means,
is counted in ``num_invalid``, keeps its raw text and is never cached. The options are one validated
:class:`~persona_metrics.summary_eval.params.JudgeOptions`. A prompt estimated larger than the model's context
window (:meth:`Judge.context_window`, :func:`estimate_tokens`) is sent whole, with a warning naming the item.

The texts judged are data: each sits between markers carrying a code derived from both texts and absent from
them, so no text can close a marker, and placeholders are filled in one pass, so no text can reach another's
placeholder. Credentials in ``base_url`` (user-info, query values) never reach a signature, a cache key, a log
record or an error message: :func:`~persona_metrics.summary_eval.redaction.redact` is applied to all of them.

>>> judge = Judge("gpt-4o", base_url="http://alice:pw@127.0.0.1:8080/v1", api_key="none")
>>> judge.rubric.name, judge.host, judge.where
('accuracy', '127.0.0.1:8080', 'http://***@127.0.0.1:8080/v1')
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TypeGuard
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from persona_metrics.extras import require
from persona_metrics.line_checks import checked_line, line_fault
from persona_metrics.progress import progress_bar
from persona_metrics.resources import CACHE_ENV, cache_dir, cache_writes, replace_file
from persona_metrics.signature import Signature
from persona_metrics.summary_eval.params import (
    API_KEY_ENV,
    RESPONSE_FORMATS,
    SCORINGS,
    JudgeOptions,
    resolve,
)
from persona_metrics.summary_eval.redaction import REDACTED, redact, register_secrets
from persona_metrics.summary_eval.rubrics import (
    ACCURACY,
    DEFAULT_PROMPT,
    JudgePrompt,
    ParsedAnswer,
    Rubric,
    boundary,
    get_rubric,
    parse_answer,
    weighted_score,
)
from persona_metrics.warning import warn

logger = logging.getLogger(__name__)

#: The formats tried, in order, for each ``response_format`` option.
FORMAT_FALLBACKS: dict[str, tuple[str, ...]] = {
    "auto": ("json_schema", "json_object", "none"),
    "json_schema": ("json_schema", "none"),
    "json_object": ("json_object", "none"),
    "none": ("none",),
}
#: Verdict statuses: ``json`` (the answer followed the contract), ``invalid`` (it did not: no score) and
#: ``empty-input`` (an empty summary or source: accuracy 0 without a call, as the original).
STATUSES = ("json", "invalid", "empty-input")
#: Rationale of an empty summary or source (no call is made).
EMPTY_RATIONALE = "Empty summary or source text provided"
#: JSON schema of the default (``accuracy``) rubric's answer (``Rubric.schema``).
ANSWER_SCHEMA: dict[str, Any] = ACCURACY.schema
#: An error message that names the structured-output request: an HTTP 5xx saying so is the server refusing the
#: format (llama-cpp-python answers ``json_schema`` with HTTP 500 "Input should be 'text' or 'json_object'"); any
#: other 5xx is a transient server fault, retried by the SDK and never a reason to change the format.
FORMAT_ERROR = re.compile(r"response_format|json_schema|json_object|schema|grammar", re.IGNORECASE)
#: An error message about the prompt's length: an HTTP 400/422 saying so (OpenAI's ``context_length_exceeded``,
#: llama.cpp's "exceeds the available context size") is not the server refusing the format.
CONTEXT_ERROR = re.compile(r"context|too long|maximum.*tokens", re.IGNORECASE)
#: The context window assumed when ``context_tokens`` is None and the server reports none: 128,000 tokens, the
#: window of OpenAI's gpt-4o and gpt-4o-mini (a warning, never a cut, depends on it).
DEFAULT_CONTEXT_TOKENS = 128_000
#: UTF-8 bytes per token in :func:`estimate_tokens`: English prose runs about 4 characters a token in the BPE
#: vocabularies of current chat models, other scripts fewer bytes; 3 overestimates English, so a warning comes early.
BYTES_PER_TOKEN = 3
#: Tokens added per chat message by the chat template (role markers), in :func:`estimate_tokens`.
TOKENS_PER_MESSAGE = 8
#: Seconds allowed for the one ``GET /props`` asking a llama.cpp server for its context window.
PROPS_TIMEOUT = 5.0


def estimate_tokens(messages: Sequence[Mapping[str, str]]) -> int:
    """A conservative estimate of the tokens of chat ``messages``: UTF-8 bytes / 3, rounded up, + 8 per message.

    An overestimate for English (about 4 characters a token), about right for other scripts; no tokenizer is
    loaded. See :data:`BYTES_PER_TOKEN`.

    >>> estimate_tokens([{"role": "user", "content": "x" * 3000}])
    1008
    """
    size = sum(len(str(m.get("content", "")).encode("utf-8")) for m in messages)
    return math.ceil(size / BYTES_PER_TOKEN) + TOKENS_PER_MESSAGE * len(messages)


def default_cache_dir() -> Path:
    """The judge's answer cache under the library's cache directory: ``resources.cache_dir() / "judge"``."""
    return cache_dir() / "judge"


class JudgeError(RuntimeError):
    """The judge could not be called or answered something unreadable; the message names the option or the fault.

    The message is one line and holds no credential (:func:`redact`).
    """

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(redact(message).split()))


@dataclass(frozen=True)
class Verdict:
    """One judged pair.

    Attributes:
        accuracy: the score mapped to [0, 1] by the rubric (:meth:`~persona_metrics.summary_eval.rubrics.Rubric.
            accuracy`: ``score / 3`` for ``accuracy``; the weighted score in ``"weighted"`` mode); None when the
            answer was invalid.
        score: the integer score that was parsed (on the rubric's scale); None when the answer was invalid.
        rationale: the model's rationale (or what was wrong with the answer).
        status: one of :data:`STATUSES`: ``"json"``, ``"invalid"`` or ``"empty-input"`` (no call).
        raw: the raw answer text ("" without a call).
        cached: the answer was not asked for now: it came from the cache or from ``known_answers``.
        fingerprint: the server's ``system_fingerprint`` (None when it sets none).
        key: the request's key (cache and results files; None without a call); holds no credential.
        answer: the answer as stored (``content``, ``logprobs``, ``system_fingerprint``, ``model``, ``format``);
            None without a call.
    """

    accuracy: float | None
    score: int | None
    rationale: str
    status: str
    raw: str = ""
    cached: bool = False
    fingerprint: str | None = None
    key: str | None = None
    answer: dict[str, Any] | None = field(default=None, repr=False, compare=False)

    @property
    def valid(self) -> bool:
        """The answer followed the contract (an empty input counts as valid: nothing was asked)."""
        return self.status in {"json", "empty-input"}

    def record(self) -> dict[str, Any]:
        """The verdict as one results-file row (:class:`ResultsLog`): status, scores, rationale, key and answer."""
        return {
            "status": self.status,
            "accuracy": self.accuracy,
            "score": self.score,
            "rationale": self.rationale,
            "cached": self.cached,
            "key": self.key,
            "answer": self.answer,
        }


def _is_entry(entry: object) -> TypeGuard[dict[str, Any]]:
    """Whether ``entry`` has the shape of a stored answer (content a string, logprobs a list or None)."""
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("content"), str)
        and isinstance(entry.get("logprobs"), list | type(None))
    )


def _is_valid_entry(entry: object, rubric: Rubric) -> TypeGuard[dict[str, Any]]:
    """Whether ``entry`` is a stored answer that follows the contract of ``rubric``."""
    return _is_entry(entry) and rubric.parse(entry["content"]).status == "json"


class JudgeCache:
    """An on-disk exact-match cache of valid judge answers: one JSON file per request key.

    Errors and invalid answers are never stored. Each file carries a SHA-256 digest over its key and answer,
    checked on read with the key and the answer's shape: an entry that is unreadable, for another key, or edited
    (a score changed by hand, say) is ignored with a warning and the call is made again.
    """

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory).expanduser()

    @staticmethod
    def key(request: dict[str, Any]) -> str:
        """sha256 of the canonical JSON of the request."""
        return hashlib.sha256(json.dumps(request, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()

    @staticmethod
    def _digest(entry: Mapping[str, Any]) -> str:
        """sha256 of an entry's canonical JSON (key included, its digest left out)."""
        return JudgeCache.key({k: v for k, v in entry.items() if k != "digest"})

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored answer of ``key``, or None."""
        path = self.directory / f"{key}.json"
        entry = read_json(path, "judge cache entry")
        if entry is None:
            return None
        if not _is_entry(entry) or entry.get("key") != key:
            warn(f"ignoring invalid judge cache entry {path}")
            return None
        if entry.get("digest") != self._digest(entry):
            warn(f"ignoring judge cache entry {path}: it does not match its digest (edited or damaged)")
            return None
        return {k: v for k, v in entry.items() if k != "digest"}

    def put(self, key: str, entry: dict[str, Any]) -> None:
        """Store an answer with its digest atomically (write to a temporary file, then rename)."""
        record = {**entry, "key": key}
        record["digest"] = self._digest(record)
        write_json(self.directory / f"{key}.json", record)


def read_json(path: Path, what: str) -> Any:
    """The JSON value in ``path``, or None: no such file, or (with a warning naming ``what``) unreadable or not JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as err:
        warn(f"ignoring unreadable {what} {path}: {err}")
        return None


def write_json(path: Path, record: Mapping[str, Any]) -> None:
    """Write ``record`` as JSON to ``path`` atomically (a temporary file in its folder, created, then a rename).

    Raises:
        CacheWriteError: the folder cannot take the file (full disk, read-only, ...), named with the way out.
    """
    way_out = (
        f"free space there, give the judge another cache_dir (--cache-dir; --no-cache for none) or set {CACHE_ENV} "
        "to a folder with room"
    )
    with cache_writes(path, "the judge cache", way_out):
        replace_file(path, json.dumps(record, ensure_ascii=False))


#: How many ignored lines of a results file its warning names (``FILE:LINE`` and why); the rest are counted.
SHOWN_IGNORED = 5


class ResultsLog:
    """A JSON-lines file of per-item judge results, one line appended and flushed as each item finishes.

    A run killed at any moment leaves every finished line; :meth:`answers` reads the valid answers back (by
    request key) so that a rerun asks only for the rest. Every line ends with a ``check`` over its text
    (:mod:`persona_metrics.line_checks`; not over its number: a resumed run appends, and a line's place carries no
    meaning). A line that fails it (edited by hand or damaged), is cut short (a killed run's last line), lacks it
    (written by a version before the checks) or whose ``score`` is not what its raw answer says is not reused: its
    item is judged again, and one warning names the first :data:`SHOWN_IGNORED` of them (``FILE:LINE`` and why). A
    row already in the file is not written again (its ``cached`` flag aside); for an item written twice (an
    invalid answer asked again) the last line is the current one.

    Args:
        path: the file (created with its folders; appended to when it exists).
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        self._handle: IO[str] | None = None
        self._written: set[str] = set()

    @staticmethod
    def _identity(row: Mapping[str, Any]) -> str:
        return json.dumps({k: v for k, v in row.items() if k not in {"cached", "check"}}, sort_keys=True)

    def answers(self, rubric: Rubric = ACCURACY) -> dict[str, dict[str, Any]]:
        """The answers already written that are valid under ``rubric``, by request key (empty without the file).

        Only lines that pass their ``check`` count, and only when the row's ``status`` and ``score`` are those its
        raw answer gives under ``rubric`` (the judge derives the verdict from the raw answer again in any case); the
        others are named in one warning and their items are judged again.

        Raises:
            ValueError: the file is not UTF-8 text (``FILE:LINE``): not a results file, so nothing is appended to it.
        """
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            number = data.count(b"\n", 0, err.start) + 1
            raise ValueError(f"{self.path}:{number}: not UTF-8 text (byte {err.start} of the file)") from err
        lines = text.split("\n")
        found: dict[str, dict[str, Any]] = {}
        ignored: list[tuple[int, str]] = []
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            row = self._row(line, rubric, cut=number == len(lines))  # the last line lacks its newline
            if isinstance(row, str):
                ignored.append((number, row))
                continue
            self._written.add(self._identity(row))
            key, answer = row.get("key"), row.get("answer")
            if isinstance(key, str) and _is_valid_entry(answer, rubric):
                found[key] = answer
        if ignored:
            warn(self._ignored_warning(ignored))
        return found

    @staticmethod
    def _row(line: str, rubric: Rubric, cut: bool) -> dict[str, Any] | str:
        """The row of one line without its ``check``, or why the line is not reused."""
        try:
            row = json.loads(line)
        except ValueError:
            return "cut short (by a killed run?)" if cut else "that is not JSON (cut short, or damaged)"
        if not isinstance(row, dict):
            return "that is not a JSON object"
        fault = line_fault(line)
        if fault == "missing" and "check" not in row:
            return "without a check (written by an older persona-metrics, or not by --out)"
        if fault is not None:
            return "that does not match its check (edited or damaged after it was written)"
        row = {k: v for k, v in row.items() if k != "check"}
        answer = row.get("answer")
        if _is_valid_entry(answer, rubric):
            score = rubric.parse(answer["content"]).score
            if row.get("status") != "json" or type(row.get("score")) is not int or row["score"] != score:
                return f"whose score {row.get('score')!r:.20} is not its raw answer's, {score}"
        return row

    def _ignored_warning(self, ignored: Sequence[tuple[int, str]]) -> str:
        shown = "; ".join(f"{self.path}:{number}: skipping a line {why}" for number, why in ignored[:SHOWN_IGNORED])
        more = f"; and {len(ignored) - SHOWN_IGNORED} more" if len(ignored) > SHOWN_IGNORED else ""
        lines = "1 line" if len(ignored) == 1 else f"{len(ignored)} lines"
        return f"{self.path}: {lines} not reused (an item without an intact line is judged again): {shown}{more}"

    def append(self, row: Mapping[str, Any]) -> None:
        """Write one result line with its ``check`` and flush it to the operating system (it survives a kill)."""
        identity = self._identity(row)
        if identity in self._written:
            return
        if self._handle is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            cut_short = self.path.exists() and self.path.stat().st_size and not self.path.read_bytes().endswith(b"\n")
            self._handle = self.path.open("a", encoding="utf-8", newline="\n")
            if cut_short:  # a line cut short by a kill: start on a fresh line
                self._handle.write("\n")
        self._handle.write(checked_line(row))
        self._handle.flush()
        self._written.add(identity)

    def close(self) -> None:
        """Close the file (appending again reopens it)."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None


#: Called with (position, verdict) as each item's verdict is ready.
OnVerdict = Callable[[int, Verdict], None]


class Judge:
    """An LLM judge of summaries behind the ``openai`` client, asking with a rubric of the registry.

    Args:
        model: the model name (required), e.g. ``"gpt-4o"`` or a local server's alias.
        options: the options as one :class:`~persona_metrics.summary_eval.params.JudgeOptions` (``model`` and
            the keywords below are then not given), or:
        **settings: the same one by one (names, defaults and ranges: :class:`JudgeOptions`): ``base_url`` (an
            OpenAI-compatible endpoint, ``http://127.0.0.1:8080/v1``; None for OpenAI; credentials in it are sent
            to the server and shown nowhere), ``api_key`` (default the ``OPENAI_API_KEY`` environment variable; a
            local server without auth accepts any string), ``timeout`` (seconds per request), ``max_retries``
            (retries of the SDK on 408/409/429/5xx and connection errors; 0 in tests), ``temperature`` (0; the
            original used 0.1), ``seed`` (best effort on the server side; None to omit it), ``max_tokens``
            (200, the original's), ``response_format`` (``"auto"``: ``"json_schema"``, then ``"json_object"``
            with the schema, which llama.cpp servers enforce with a grammar, then ``"none"``; a format the server
            refuses before its first answer (HTTP 400/422, or a 5xx whose message names the format) is dropped
            with a warning and the item asked again with the next one; any other 5xx is a transient fault,
            retried in the same format, and a JudgeError once ``max_retries`` are spent), ``scoring`` (``"argmax"``,
            the integer answer, or ``"weighted"``, G-Eval's
            probability-weighted digits from ``top_logprobs``, the integer when the server returns no usable
            logprobs), ``top_logprobs``, ``concurrency`` (calls in flight), ``cache_dir`` (the on-disk cache of
            valid answers; None for none), ``rubric`` (a name in
            :data:`~persona_metrics.summary_eval.rubrics.RUBRICS`, default ``"accuracy"``), ``prompt`` (a
            :class:`JudgePrompt` replacing the rubric's; same scale and parser), ``context_tokens`` (the model's
            context window, for the warning on a prompt likely to exceed it: :meth:`context_window`).
        known_answers: answers already received, by request key (:meth:`ResultsLog.answers`): used instead of a
            call when valid.
        client: an ``openai.OpenAI`` client to use as is (``base_url``/``api_key``/``timeout``/``max_retries``
            are then ignored).
        http_client: an ``httpx2.Client`` handed to the SDK (tests use a mock transport).

    Raises:
        TypeError, ValueError: a bad option (named); ValueError also when no API key is found.
    """

    def __init__(
        self,
        model: str | None = None,
        *,
        options: JudgeOptions | None = None,
        known_answers: Mapping[str, dict[str, Any]] | None = None,
        client: Any = None,
        http_client: Any = None,
        **settings: Any,
    ) -> None:
        options = resolve(JudgeOptions, options, settings if model is None else {"model": model, **settings})
        if options.model is None:
            raise ValueError("model must be a non-empty model name (option model=, CLI -m/--model)")
        require("the SummaryEval judge", "openai")
        register_secrets(options.base_url, options.api_key)
        #: The options (``response_format`` as given; the format sent now is :attr:`current_format`).
        self.options = options
        self.model: str = options.model
        self.base_url = options.base_url
        self.rubric = get_rubric(options.rubric)
        self.prompt = options.prompt or self.rubric.prompt
        self.cache = JudgeCache(options.cache_dir) if options.cache_dir is not None else None
        self.known_answers = dict(known_answers or {})
        self.fingerprints: set[str] = set()
        self.served_models: set[str] = set()
        self.formats_used: set[str] = set()
        self._formats = list(FORMAT_FALLBACKS[options.response_format])
        #: True once the server answered in the current format: from then on a 400/422/500 is a judge error, not
        #: a rejected format, so every item of a run is asked in the same format whatever the order of calls.
        self._settled = False
        self._lock = threading.Lock()
        #: The context window and where it came from, once known (:meth:`context_window`).
        self._context: tuple[int, str] | None = None
        self._client = client if client is not None else self._make_client(options.api_key, http_client)

    def _make_client(self, api_key: str | None, http_client: Any) -> Any:
        key = api_key if api_key is not None else os.environ.get(API_KEY_ENV)
        if not key:
            raise ValueError(
                f"no API key for the judge: set {API_KEY_ENV} or pass api_key= (CLI --api-key-env); "
                "a local server without authentication accepts any string, e.g. api_key='none'"
            )
        register_secrets(None, key)
        from openai import OpenAI

        o = self.options
        kwargs: dict[str, Any] = {"api_key": key, "timeout": o.timeout, "max_retries": o.max_retries}
        if self.base_url is not None:  # the query goes to every request (the SDK would append paths after it)
            parts = urlsplit(self.base_url)
            kwargs["base_url"] = urlunsplit((*parts[:3], "", ""))
            if parts.query:
                kwargs["default_query"] = dict(parse_qsl(parts.query, keep_blank_values=True))
        if http_client is not None:
            kwargs["http_client"] = http_client
        return OpenAI(**kwargs)

    @property
    def host(self) -> str:
        """The judge's host and port, without credentials (``api.openai.com`` without ``base_url``)."""
        url = self.base_url or str(getattr(self._client, "base_url", "https://api.openai.com/v1"))
        netloc = urlsplit(url).netloc.rpartition("@")[2]
        return redact(netloc or url)

    @property
    def where(self) -> str:
        """The endpoint as shown in messages: the base URL without credentials, else the host."""
        return redact(self.base_url) if self.base_url else self.host

    @property
    def current_format(self) -> str:
        """The ``response_format`` sent now (the option, or what is left after the server rejected formats)."""
        return self._formats[0]

    def _base_request(self, summary: str, source: str) -> dict[str, Any]:
        o = self.options
        request: dict[str, Any] = {
            "model": self.model,
            "messages": self.prompt.messages(summary, source),
            "temperature": o.temperature,
            "max_tokens": o.max_tokens,
        }
        if o.seed is not None:
            request["seed"] = o.seed
        if o.scoring == "weighted":
            request["logprobs"] = True
            request["top_logprobs"] = o.top_logprobs
        return request

    def _request(self, summary: str, source: str, response_format: str) -> dict[str, Any]:
        request = self._base_request(summary, source)
        if response_format == "json_object":
            request["response_format"] = {"type": "json_object", "schema": self.rubric.schema}
        elif response_format == "json_schema":
            request["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": self.rubric.name, "schema": self.rubric.schema, "strict": True},
            }
        return request

    @property
    def endpoint_digest(self) -> str:
        """The SHA-256 of the endpoint's whole URL (the client's own when one was injected); holds no credential."""
        url = self.base_url or str(getattr(self._client, "base_url", "https://api.openai.com/v1"))
        return hashlib.sha256(url.encode("utf-8")).hexdigest()

    def request_key(self, summary: str, source: str, response_format: str | None = None) -> str:
        """The key of a pair's request (cache files, results files), with the format the request is sent in.

        The format is concrete (``json_schema``, ``json_object`` or ``none``; default :attr:`current_format`), never
        ``auto``: answers given in one format are never reused for a run that asks in another. The endpoint enters
        as :attr:`endpoint_digest`: endpoints that differ only in a query value or a credential never share answers,
        and the key, a digest, holds no credential in clear.
        """
        return self._key(summary, source, response_format or self.current_format)

    def _key(self, summary: str, source: str, response_format: str) -> str:
        request = self._base_request(summary, source)
        return JudgeCache.key(
            {"base_url": self.endpoint_digest, "prompt": self.prompt.version, "format": response_format, **request}
        )

    def _call(self, request: dict[str, Any]) -> dict[str, Any]:
        """One request; every failure but a rejected request (400/422/500, for the format fallback) is a JudgeError."""
        import openai

        try:
            response = self._client.chat.completions.create(**request)
        except (openai.BadRequestError, openai.UnprocessableEntityError, openai.InternalServerError):
            raise
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
                f"the judge at {self.host} is {what} after {self.options.max_retries} retries: "
                "check the account's billing, or raise max_retries= / lower concurrency="
            ) from err
        except openai.APITimeoutError as err:
            raise JudgeError(
                f"the judge at {self.host} did not answer within timeout={self.options.timeout:g} s after "
                f"{self.options.max_retries} retries: raise timeout= (CLI --timeout); a server that answers one "
                "request at a time also needs concurrency=1 (CLI --concurrency 1)"
            ) from err
        except openai.APIConnectionError as err:
            raise JudgeError(f"cannot reach the judge at {self.where}: check base_url= ({err})") from err
        except openai.APIStatusError as err:
            raise JudgeError(
                f"the judge at {self.host} answered HTTP {err.status_code} for model {self.model!r}: {err}"
            ) from err
        except (openai.APIError, ValueError) as err:  # ValueError: a body cut short (JSONDecodeError)
            raise JudgeError(
                f"the judge at {self.host} sent a malformed response (not a chat completion: "
                f"{type(err).__name__}: {str(err)[:200]})"
            ) from err
        return self._answer(response)

    def _answer(self, response: Any) -> dict[str, Any]:
        """The stored form of a response, checked: a text body, no choices or no message is a JudgeError."""
        if isinstance(response, str | bytes):
            raise JudgeError(
                f"the judge at {self.host} sent a response body that is not JSON ({str(response)[:100]!r}): "
                "is base_url= an OpenAI-compatible endpoint (ending in /v1)?"
            )
        choices = getattr(response, "choices", None)
        if not isinstance(choices, list) or not choices:
            raise JudgeError(f"the judge at {self.host} sent a response without choices ('choices' missing or empty)")
        message = getattr(choices[0], "message", None)
        content = getattr(message, "content", None)
        if message is None or not isinstance(content, str | None):
            raise JudgeError(f"the judge at {self.host} sent a choice without a text message")
        return {
            "content": redact(content or ""),  # an answer quoting a credential is stored and shown without it
            "logprobs": _logprobs(choices[0]),
            "system_fingerprint": _text_or_none(getattr(response, "system_fingerprint", None)),
            "model": _text_or_none(getattr(response, "model", None)),
        }

    def _ask(self, summary: str, source: str, fmt: str) -> dict[str, Any] | None:
        """A live answer in format ``fmt``, or None when the server refused the format (it is then dropped).

        Only a refusal of the format before the server's first answer drops it (:func:`_refuses_format`); a
        transient server error (a 5xx not naming the format, after the SDK's ``max_retries`` retries in the same
        format), a context error or any error after the first answer is a :class:`JudgeError` and the format stays.
        """
        import openai

        try:
            entry = self._call(self._request(summary, source, fmt))
        except (openai.BadRequestError, openai.InternalServerError, openai.UnprocessableEntityError) as err:
            if fmt != "none" and not self._settled and _refuses_format(err):
                self._drop_format(fmt, err)
                return None
            raise JudgeError(self._failure(fmt, err)) from err
        self._settled = True
        return {**entry, "format": fmt}

    def _failure(self, fmt: str, err: Any) -> str:
        """The message of a rejected request that is not a refusal of the format (see :meth:`_ask`)."""
        status = getattr(err, "status_code", 0)
        text = f"the judge at {self.host} failed on model {self.model!r}: {err}"
        if status >= 500 and not FORMAT_ERROR.search(str(err)) and not CONTEXT_ERROR.search(str(err)):
            text += (
                f" (HTTP {status} after {self.options.max_retries} retries in response_format={fmt!r}: a server "
                "fault, not a refusal of the format, which is kept; retry later or raise max_retries= "
                "(CLI --max-retries); a server that cannot take this format needs response_format= another one)"
            )
        return redact(text)

    def _drop_format(self, fmt: str, err: Exception) -> None:
        with self._lock:
            if self._formats[0] != fmt:  # another thread dropped it already
                return
            self._formats.pop(0)
            following = self._formats[0]
        warn(
            redact(
                f"the judge at {self.host} rejected response_format={fmt!r} ({type(err).__name__}); "
                f"asking with response_format={following!r} from now on"
            )
        )

    def _lookup(self, key: str, fmt: str, legacy: bool) -> dict[str, Any] | None:
        """A valid answer given in format ``fmt`` stored under ``key`` (``known_answers``, then the cache), or None.

        An invalid answer found there (stored by an older version) is never used: the pair is asked again. An answer
        stored under a ``legacy`` key (format ``auto``, by a version that keyed the option) is used only when it
        records ``fmt`` as its format; one recorded in another format never is.
        """
        for entry in (self.known_answers.get(key), self.cache.get(key) if self.cache is not None else None):
            if _is_valid_entry(entry, self.rubric) and entry.get("format", None if legacy else fmt) == fmt:
                return entry
        return None

    def _stored(self, summary: str, source: str, key: str, fmt: str) -> dict[str, Any] | None:
        """A valid answer already received for the pair in format ``fmt`` (``key``), or None.

        Keys written before keys held the concrete format held the ``response_format`` option instead; an answer
        found under that key is used when it records ``fmt`` as the format it was given in, so existing caches and
        results files stay readable wherever that is safe.
        """
        entry = self._lookup(key, fmt, legacy=False)
        legacy = self._key(summary, source, self.options.response_format)
        if entry is None and legacy != key:
            entry = self._lookup(legacy, fmt, legacy=True)
        return entry

    def judge(self, summary: str, source: str) -> Verdict:
        """Judge one pair; an empty summary or source scores 0 without a call (as the original).

        Only a valid answer is cached, under the key of the format it was given in; an invalid one has no score
        (see :func:`parse_answer`). A prompt estimated larger than :meth:`context_window` is sent whole, with a
        warning.

        Raises:
            JudgeError: the call failed for good, or the server sent a malformed response (the message names the
                option to check or what was wrong).
        """
        return self._judge(summary, source, None)

    def _judge(self, summary: str, source: str, oversized: Callable[[int], None] | None) -> Verdict:
        """:meth:`judge`; ``oversized(estimate)`` is told of a prompt above the context window (else a warning)."""
        if not summary.strip() or not source.strip():
            return Verdict(0.0, 0, EMPTY_RATIONALE, "empty-input")
        checked = False
        while True:
            fmt = self.current_format
            key = self._key(summary, source, fmt)
            stored = self._stored(summary, source, key, fmt)
            if stored is not None:
                return self._verdict(stored, key, True)
            if not checked:
                checked = True
                self._check_context(summary, source, oversized)
            entry = self._ask(summary, source, fmt)
            if entry is not None:
                break
        verdict = self._verdict(entry, key, False)
        if verdict.status == "json" and self.cache is not None:
            self.cache.put(key, entry)
        return verdict

    def context_window(self) -> tuple[int, str]:
        """The judge model's context window in tokens and where that number comes from.

        ``context_tokens`` when given; else the ``n_ctx`` a llama.cpp server reports at ``GET /props`` (asked once,
        before the judge's first call, with a timeout of :data:`PROPS_TIMEOUT` s and no retry; a server without it,
        or an error, is no answer); else :data:`DEFAULT_CONTEXT_TOKENS`.
        """
        with self._lock:
            if self._context is None:
                given = self.options.context_tokens
                served = None if given is not None else self._served_context()
                if given is not None:
                    self._context = (given, "context_tokens=")
                elif served is not None:
                    self._context = (served, "the n_ctx the server reports at /props")
                else:
                    self._context = (DEFAULT_CONTEXT_TOKENS, "assumed: context_tokens= is not set")
            return self._context

    def _served_context(self) -> int | None:
        """The ``n_ctx`` of ``GET <server>/props`` (llama.cpp's server), or None (no base_url, no such page, error)."""
        if self.base_url is None or not hasattr(self._client, "with_options"):
            return None
        base = str(getattr(self._client, "base_url", "")).rstrip("/")
        url = (base.removesuffix("/v1") or base) + "/props"
        try:
            props = self._client.with_options(max_retries=0, timeout=PROPS_TIMEOUT).get(url, cast_to=object)
        except Exception as err:  # any failure only means that the server reports no window
            logger.debug("no context window from %s: %s", redact(url), redact(f"{type(err).__name__}: {err}"))
            return None
        settings = props.get("default_generation_settings") if isinstance(props, dict) else None
        n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
        if n_ctx is None and isinstance(props, dict):
            n_ctx = props.get("n_ctx")
        valid = isinstance(n_ctx, int) and not isinstance(n_ctx, bool) and n_ctx > 0
        return n_ctx if valid else None

    def prompt_tokens(self, summary: str, source: str) -> int:
        """The estimated tokens of a pair's request: :func:`estimate_tokens` of its messages plus ``max_tokens``."""
        return estimate_tokens(self.prompt.messages(summary, source)) + self.options.max_tokens

    def _check_context(self, summary: str, source: str, oversized: Callable[[int], None] | None) -> None:
        estimate = self.prompt_tokens(summary, source)
        if estimate <= self.context_window()[0]:
            return
        if oversized is not None:
            oversized(estimate)
        else:
            warn(self._context_warning([(None, estimate, len(source))]))

    def _context_warning(self, items: Sequence[tuple[int | None, int, int]]) -> str:
        """The warning about prompts above the context window; ``items``: (position or None, estimate, source size)."""
        window, origin = self.context_window()
        position, estimate, size = max(items, key=lambda item: item[1])
        if len(items) > 1:
            shown = sorted(p for p, _, _ in items if p is not None)
            listed = ", ".join(map(str, shown[:10])) + (f" and {len(shown) - 10} more" if len(shown) > 10 else "")
            head, largest = f"{len(items)} judge prompts (items {listed}) are", f"the largest, item {position}, is"
        else:
            head = "the judge prompt" + ("" if position is None else f" of item {position}") + " is"
            largest = "it is"
        return (
            f"{head} likely to exceed the context window of model {self.model!r} at {self.host}, {window:,} tokens "
            f"({origin}): {largest} estimated at {estimate:,} tokens (a source of {size:,} characters; the estimate "
            f"is UTF-8 bytes / {BYTES_PER_TOKEN} + the max_tokens={self.options.max_tokens} answer). Sent whole, never "
            "cut: the server may refuse it or silently drop part of it. Shorten or split the source, use a model with "
            "a larger window, or set context_tokens= (CLI --context-tokens) to the model's real window"
        )

    def _verdict(self, entry: dict[str, Any], key: str, cached: bool) -> Verdict:
        if entry.get("system_fingerprint"):
            self.fingerprints.add(str(entry["system_fingerprint"]))
        if entry.get("model"):
            self.served_models.add(str(entry["model"]))
        if entry.get("format") in FORMAT_FALLBACKS["auto"]:
            self.formats_used.add(str(entry["format"]))
        content, fingerprint = entry["content"], entry.get("system_fingerprint")
        parsed = self.rubric.parse(content)
        if parsed.score is None:
            return Verdict(None, None, parsed.rationale, "invalid", content, cached, fingerprint, key, entry)
        accuracy = self.rubric.accuracy(parsed.score)
        if self.options.scoring == "weighted":
            weighted = self.rubric.weighted(entry.get("logprobs"))
            if weighted is not None:
                accuracy = self.rubric.accuracy(weighted)
        return Verdict(accuracy, parsed.score, parsed.rationale, "json", content, cached, fingerprint, key, entry)

    def judge_many(
        self, summaries: Sequence[str], sources: Sequence[str], on_verdict: OnVerdict | None = None
    ) -> list[Verdict]:
        """Judge aligned pairs, each unique pair once, at most ``concurrency`` calls at a time.

        Args:
            summaries: the summaries.
            sources: the sources, aligned.
            on_verdict: called in this thread with (position, verdict) for every position of a pair as soon as
                the pair is judged (in the order calls finish): finished work can be saved before the rest is
                done.

        Raises:
            JudgeError: a call failed for good; the calls in flight finish (and are reported), the rest are not
                made.
        """
        pairs = list(zip(summaries, sources, strict=True))
        positions: dict[tuple[str, str], list[int]] = {}
        for i, pair in enumerate(pairs):
            positions.setdefault(pair, []).append(i)
        found: dict[tuple[str, str], Verdict] = {}
        oversized: list[tuple[int, int, int]] = []

        def judge(pair: tuple[str, str]) -> Verdict:
            def report(estimate: int) -> None:
                oversized.append((positions[pair][0], estimate, len(pair[1])))

            return self._judge(*pair, report)

        def done(pair: tuple[str, str], verdict: Verdict) -> None:
            found[pair] = verdict
            if on_verdict is not None:
                for i in positions[pair]:
                    on_verdict(i, verdict)

        try:
            self._schedule(list(positions), judge, done)
        finally:  # also when a call failed: the oversized prompt may be why
            if oversized:
                warn(self._context_warning(oversized))
        verdicts = [found[pair] for pair in pairs]
        _warn_invalid(verdicts)
        return verdicts

    def _schedule(
        self,
        unique: list[tuple[str, str]],
        judge: Callable[[tuple[str, str]], Verdict],
        done: Callable[[tuple[str, str], Verdict], None],
    ) -> None:
        """Judge ``unique``: in order (``concurrency=1``), or one at a time until a format is settled, then pooled."""
        if self.options.concurrency == 1 or len(unique) == 1:
            for pair in progress_bar(unique, desc="summary_eval: judging", unit="pair"):
                done(pair, judge(pair))
            return
        while unique and not self._settled:  # one call at a time until the server has accepted a format
            pair = unique.pop(0)
            done(pair, judge(pair))
        self._judge_parallel(unique, judge, done)

    def _judge_parallel(
        self,
        unique: list[tuple[str, str]],
        judge: Callable[[tuple[str, str]], Verdict],
        done: Callable[[tuple[str, str], Verdict], None],
    ) -> None:
        """Judge ``unique`` with ``judge`` on a thread pool, reporting each pair as it finishes.

        The first failure cancels the calls not yet started; so does an interruption (Ctrl-C) or an error of
        ``done``, which is re-raised after the calls in flight end.
        """
        failure: BaseException | None = None
        with ThreadPoolExecutor(max_workers=self.options.concurrency) as pool:
            futures: dict[Future[Verdict], tuple[str, str]] = {pool.submit(judge, p): p for p in unique}
            try:
                finished = as_completed(futures)
                for future in progress_bar(finished, desc="summary_eval: judging", total=len(unique), unit="pair"):
                    if future.cancelled():
                        continue
                    error = future.exception()
                    if error is None:
                        done(futures[future], future.result())
                    elif failure is None:
                        failure = error
                        _cancel(futures)
            except BaseException:
                _cancel(futures)
                raise
        if failure is not None:
            raise failure

    def signature(self) -> Signature:
        """``judge:<model>@<host>|prompt:<version>|temp:…|seed:…|format:…|scoring:…|fp:…`` (no credential).

        ``format`` is the option, followed by ``=`` and the formats the answers were given in when they differ
        from it (``auto=json_object``).
        """
        o = self.options
        used = sorted(self.formats_used)
        fmt = o.response_format if used in ([], [o.response_format]) else f"{o.response_format}={'+'.join(used)}"
        return Signature.of(
            judge=redact(f"{self.model}@{self.host}"),
            prompt=self.prompt.version,
            temp=o.temperature,
            seed="none" if o.seed is None else o.seed,
            format=fmt,
            scoring=o.scoring if o.scoring == "argmax" else f"weighted-top{o.top_logprobs}",
            fp=",".join(sorted(self.fingerprints)) or "none",
        )


def _cancel(futures: Mapping[Future[Verdict], Any]) -> None:
    for future in futures:
        future.cancel()


def _refuses_format(err: Any) -> bool:
    """Whether a rejected request (HTTP 400/422/5xx) is the server refusing the response format.

    An HTTP 5xx is a refusal only when its message names the format (:data:`FORMAT_ERROR`): any other is a
    transient fault. An HTTP 400/422 is one unless its message is about the prompt's length (:data:`CONTEXT_ERROR`)
    without naming the format.
    """
    text = str(err)
    if FORMAT_ERROR.search(text):
        return True
    return getattr(err, "status_code", 500) < 500 and not CONTEXT_ERROR.search(text)


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _logprobs(choice: Any) -> list[dict[str, Any]] | None:
    """The choice's token logprobs as plain data, or None when it has none (or they are malformed)."""
    try:
        content = choice.logprobs.content
        if not content:
            return None
        return [
            {
                "token": str(t.token),
                "top_logprobs": [{"token": str(a.token), "logprob": float(a.logprob)} for a in (t.top_logprobs or [])],
            }
            for t in content
        ]
    except (AttributeError, TypeError, ValueError):
        return None


def _warn_invalid(verdicts: Sequence[Verdict]) -> None:
    """One warning for the invalid answers of a batch: how many, and the first raw answer."""
    invalid = [v for v in verdicts if v.status == "invalid"]
    if invalid:
        warn(
            f"{len(invalid)} of {len(verdicts)} judge answers had no valid score: left out of accuracy and "
            f"overall, counted in num_invalid, not cached; the first: {redact(invalid[0].raw[:200])!r} "
            f"({invalid[0].rationale.split(':')[0]})"
        )


__all__ = [
    "ANSWER_SCHEMA",
    "API_KEY_ENV",
    "DEFAULT_CONTEXT_TOKENS",
    "DEFAULT_PROMPT",
    "EMPTY_RATIONALE",
    "FORMAT_FALLBACKS",
    "REDACTED",
    "RESPONSE_FORMATS",
    "SCORINGS",
    "STATUSES",
    "Judge",
    "JudgeCache",
    "JudgeError",
    "JudgeOptions",
    "JudgePrompt",
    "OnVerdict",
    "ParsedAnswer",
    "ResultsLog",
    "Verdict",
    "boundary",
    "default_cache_dir",
    "estimate_tokens",
    "parse_answer",
    "redact",
    "weighted_score",
]
