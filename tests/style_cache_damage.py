"""Damage a centroid cache file and score again: the shared body of the style cache-tampering tests."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from persona_metrics.persona import score_style, style
from persona_metrics.warning import PersonaMetricsWarning


def rescored_after_damage(
    path: Path,
    texts: list[str],
    personas: list[str],
    method: str,
    damage: Callable[[dict], object],
    redigest: bool,
    match: str,
) -> dict:
    """Score ``texts`` with a cache at ``path``, damage the record (recomputing its digest when ``redigest``), score
    again expecting a warning naming the file and ``match``, check the scores are the clean ones; the record then.
    """
    clean = score_style(texts, personas, method=method, centroid_cache=path)
    stored = json.loads(path.read_text())
    damage(stored)
    if redigest:
        stored["digest"] = style._cache_digest(stored)
    path.write_text(json.dumps(stored))
    with pytest.warns(PersonaMetricsWarning, match=f"persona centroid cache {re.escape(str(path))} .*{match}"):
        again = score_style(texts, personas, method=method, centroid_cache=path)
    assert again.scores.tolist() == clean.scores.tolist()
    return json.loads(path.read_text())
