"""The judge's answer cache (:class:`JudgeCache`: one checked JSON file per request key) and its JSON files.

Only valid answers are stored (:func:`_is_valid_entry`); :func:`read_json` and :func:`write_json` read and write
one JSON file (a cache entry, or the judge-check's cached results), the latter atomically.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeGuard

from persona_metrics.resources import CACHE_ENV, cache_dir, cache_writes, replace_file
from persona_metrics.summary_eval.rubrics import Rubric
from persona_metrics.warning import warn


def default_cache_dir() -> Path:
    """The judge's answer cache under the library's cache directory: ``resources.cache_dir() / "judge"``."""
    return cache_dir() / "judge"


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
