"""The judge's results file (``--out``): one checked JSON line per judged item, read back on a rerun.

:class:`ResultsLog` appends each finished item's line and flushes it; its :meth:`ResultsLog.answers` gives a rerun
the valid answers already received, by request key.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from persona_metrics.line_checks import checked_line, line_fault
from persona_metrics.summary_eval.judge_cache import _is_valid_entry
from persona_metrics.summary_eval.rubrics import ACCURACY, Rubric
from persona_metrics.warning import warn

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
