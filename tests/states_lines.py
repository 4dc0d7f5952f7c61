"""Read a states file's rows and write rows back sealed, for tests that damage or forge states.

A states file's lines end with a ``check`` and the file with an end line (``persona_metrics.sharding.files``);
a test that changes a field re-seals the rows with the library's own :func:`seal`, so that the reader's later checks
(types, ranges, coverage) are what it meets, as a forger who recomputes the checks would.
"""

from __future__ import annotations

import json
from pathlib import Path

try:
    from persona_metrics.sharding.files import END, seal
except ImportError:  # an earlier revision, to run these tests on it: the module's earlier home, or no line checks
    try:
        from persona_metrics.integrations.states import END, seal  # type: ignore[no-redef]
    except ImportError:  # the states format before line checks (version 1): plain JSON lines
        END = {"kind": "end"}

        def seal(rows) -> str:  # type: ignore[no-untyped-def]
            return "".join(json.dumps(row) + "\n" for row in rows)


def rows(path: Path) -> list[dict]:
    """The file's objects without their ``check`` fields and without the end line."""
    out = [json.loads(line) for line in path.read_text().split("\n") if line]
    return [{k: v for k, v in row.items() if k != "check"} for row in out if row.get("kind") != END["kind"]]


def write(path: Path, objects: list[dict]) -> Path:
    """``objects`` as a sealed states file at ``path``."""
    path.write_text(seal(objects))
    return path
