r"""Credentials never shown: the one redaction of the judge (``docs/summary_eval.md`` §5, "Credentials").

Credentials in a judge's ``base_url`` (user-info, query values) and its API key never reach a signature, a cache
key, a log record or an error message: :func:`redact` is applied to all of them, and the loggers of the HTTP stack,
which print request URLs, are filtered while a judge with credentials exists.

>>> redact("http://alice:pw@judge.example/v1?api-key=k3y")
'http://***@judge.example/v1?api-key=***'
"""

from __future__ import annotations

import logging
import re
import threading
from urllib.parse import unquote, urlsplit, urlunsplit

from persona_metrics.validation import describe

#: What replaces a credential in anything shown or stored.
REDACTED = "***"

_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s'\"<>]*[^\s'\"<>.,:;!?)\]]")
#: Credentials taken from judges' base URLs and keys in this process, replaced wherever they appear in a message.
_SECRETS: set[str] = set()
_SECRETS_LOCK = threading.Lock()  # judges can be built in one thread while another redacts
#: Shorter secrets are not replaced in free text, where they would garble words ("none", "json"); inside a URL
#: every user-info and query value is replaced whatever its length.
_MIN_SECRET = 8
#: Loggers of the HTTP stack that write request URLs (filtered while a judge with credentials exists).
_HTTP_LOGGERS = ("httpx", "httpx2", "openai._base_client")


def _redact_url(url: str) -> str:
    try:
        parts = urlsplit(url)
    except ValueError:
        return f"<url {REDACTED}>"
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{REDACTED}@{netloc.rpartition('@')[2]}"
    query = "&".join(
        f"{name}={REDACTED}" if sep else REDACTED
        for name, sep, _ in (item.partition("=") for item in parts.query.split("&"))
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query if parts.query else "", parts.fragment))


def redact(text: str) -> str:
    """``text`` with no credential: every URL's user-info and query values, and every known secret, as ``***``.

    The one redaction of the judge: signatures, cache keys, log records, warnings and errors go through it.
    Known secrets, replaced anywhere in the text, are the passwords, user-info and query values of the base URLs
    and the API keys (of at least 8 characters) of the judges built in this process.

    >>> redact("cannot reach http://bob:hunter22@10.0.0.5:8080/v1?key=abc&v=2 now")
    'cannot reach http://***@10.0.0.5:8080/v1?key=***&v=*** now'
    """
    out = _URL.sub(lambda match: _redact_url(match.group()), text)
    with _SECRETS_LOCK:
        secrets = sorted(_SECRETS, key=len, reverse=True)
    for secret in secrets:
        out = out.replace(secret, REDACTED)
    return out


class _RedactingFilter(logging.Filter):
    """Rewrites a log record whose message holds a credential (the HTTP stack logs request URLs)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # a malformed record is left to the logging module
            return True
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


_FILTER = _RedactingFilter()


def shown_base_url(value: object) -> str:
    """A bad ``base_url`` as an error shows it.

    A URL is redacted; other text is shown in full unless it may hold a credential (``@``, ``?``, ``=`` outside
    a URL: ``alice:pw@host/v1`` without its scheme is not shown).
    """
    if not isinstance(value, str):
        return describe(value)
    shown = redact(value)
    if any(mark in _URL.sub("", shown) for mark in "@?="):
        return f"a string of {len(value)} characters (not shown: it may hold a credential)"
    return describe(shown)


def register_secrets(base_url: str | None, api_key: str | None) -> None:
    """Remember a judge's credentials (password, user-info, query values, key) and filter the HTTP stack's loggers."""
    found: list[str] = []
    if base_url:
        parts = urlsplit(base_url)
        userinfo = parts.netloc.rpartition("@")[0] if "@" in parts.netloc else ""
        found += [userinfo, userinfo.partition(":")[2]]
        found += [value for _, _, value in (item.partition("=") for item in parts.query.split("&"))]
    if api_key:
        found.append(api_key)
    secrets = {s for text in found for s in (text, unquote(text)) if len(s) >= _MIN_SECRET}
    if secrets or (base_url and ("@" in base_url or "?" in base_url)):
        with _SECRETS_LOCK:
            _SECRETS.update(secrets)
        for name in _HTTP_LOGGERS:
            logging.getLogger(name).addFilter(_FILTER)  # a no-op when already added
