"""The judge's side of the wire: the ``openai`` client, a pair's request and key, one call, the format fallback.

:class:`JudgeClient` is the base of :class:`~persona_metrics.summary_eval.judge.Judge`: it holds a judge's options
and state, builds a pair's request in a response format and the request's key (cache and results files), makes one
call and reads the response strictly (every failure but a refused format is a :class:`JudgeError`), and drops a
format the server refuses before its first answer (:data:`FORMAT_FALLBACKS`). Transient failures (429, 5xx,
connection errors) are retried by the SDK itself (``max_retries``), in the same response format.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from persona_metrics.extras import require
from persona_metrics.summary_eval.judge_cache import JudgeCache
from persona_metrics.summary_eval.params import API_KEY_ENV, JudgeOptions, resolve
from persona_metrics.summary_eval.redaction import redact, register_secrets
from persona_metrics.summary_eval.rubrics import get_rubric
from persona_metrics.warning import warn

#: The formats tried, in order, for each ``response_format`` option.
FORMAT_FALLBACKS: dict[str, tuple[str, ...]] = {
    "auto": ("json_schema", "json_object", "none"),
    "json_schema": ("json_schema", "none"),
    "json_object": ("json_object", "none"),
    "none": ("none",),
}
#: An error message that names the structured-output request: an HTTP 5xx saying so is the server refusing the
#: format (llama-cpp-python answers ``json_schema`` with HTTP 500 "Input should be 'text' or 'json_object'"); any
#: other 5xx is a transient server fault, retried by the SDK and never a reason to change the format.
FORMAT_ERROR = re.compile(r"response_format|json_schema|json_object|schema|grammar", re.IGNORECASE)
#: An error message about the prompt's length: an HTTP 400/422 saying so (OpenAI's ``context_length_exceeded``,
#: llama.cpp's "exceeds the available context size") is not the server refusing the format.
CONTEXT_ERROR = re.compile(r"context|too long|maximum.*tokens", re.IGNORECASE)


class JudgeError(RuntimeError):
    """The judge could not be called or answered something unreadable; the message names the option or the fault.

    The message is one line and holds no credential (:func:`redact`).
    """

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(redact(message).split()))


class JudgeClient:
    """The options, state and server calls of a :class:`~persona_metrics.summary_eval.judge.Judge`, its base.

    Construct a :class:`~persona_metrics.summary_eval.judge.Judge` (its docstring lists the arguments): this class
    talks to the server; the judge adds the stored answers, the context window and the verdicts.
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
        #: The context window and where it came from, once known
        #: (:meth:`~persona_metrics.summary_eval.judge.Judge.context_window`).
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
