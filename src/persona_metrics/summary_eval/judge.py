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

This module holds :class:`Judge` and its :class:`Verdict`. The server calls and the format fallback are in
:mod:`~persona_metrics.summary_eval.judge_client`, the answer cache in
:mod:`~persona_metrics.summary_eval.judge_cache` and the results file (``--out``) in
:mod:`~persona_metrics.summary_eval.results_log`.

>>> judge = Judge("gpt-4o", base_url="http://alice:pw@127.0.0.1:8080/v1", api_key="none")
>>> judge.rubric.name, judge.host, judge.where
('accuracy', '127.0.0.1:8080', 'http://***@127.0.0.1:8080/v1')
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

from persona_metrics.progress import progress_bar
from persona_metrics.signature import Signature
from persona_metrics.summary_eval.judge_cache import JudgeCache, _is_valid_entry, default_cache_dir
from persona_metrics.summary_eval.judge_client import FORMAT_FALLBACKS, JudgeClient, JudgeError
from persona_metrics.summary_eval.params import API_KEY_ENV, RESPONSE_FORMATS, SCORINGS, JudgeOptions
from persona_metrics.summary_eval.redaction import REDACTED, redact
from persona_metrics.summary_eval.results_log import ResultsLog
from persona_metrics.summary_eval.rubrics import (
    ACCURACY,
    DEFAULT_PROMPT,
    JudgePrompt,
    ParsedAnswer,
    boundary,
    parse_answer,
    weighted_score,
)
from persona_metrics.warning import warn

logger = logging.getLogger(__name__)

#: Verdict statuses: ``json`` (the answer followed the contract), ``invalid`` (it did not: no score) and
#: ``empty-input`` (an empty summary or source: accuracy 0 without a call, as the original).
STATUSES = ("json", "invalid", "empty-input")
#: Rationale of an empty summary or source (no call is made).
EMPTY_RATIONALE = "Empty summary or source text provided"
#: JSON schema of the default (``accuracy``) rubric's answer (``Rubric.schema``).
ANSWER_SCHEMA: dict[str, Any] = ACCURACY.schema
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


#: Called with (position, verdict) as each item's verdict is ready.
OnVerdict = Callable[[int, Verdict], None]


class Judge(JudgeClient):
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
